"""Driver of GPyTorch (docs/real-programs.md): the ``gpytorch`` package (1.15, with
``linear_operator`` 0.6), installed and used unchanged, fits small Gaussian-process models on
synthetic data and prints every loss, the learned hyperparameters and checksums of the
predictions at full precision.

Variants (each reseeds with ``torch.manual_seed``, so a subset prints what the full run prints
for it):

- ``simple32`` / ``simple64``: the "simple GP regression" tutorial (ExactGP,
  ScaleKernel(RBFKernel), GaussianLikelihood, Adam on the ExactMarginalLogLikelihood of noisy
  sin data), then the predictive mean, variance and confidence region under
  ``fast_pred_var()``; in float32 and float64.
- ``kernels``: Matern-5/2 + periodic and spectral-mixture kernels (float64).
- ``multitask``: a batch-independent multitask GP (MultitaskGaussianLikelihood,
  MultitaskMultivariateNormal.from_batch_mvn).
- ``svgp``: an ApproximateGP (VariationalStrategy, CholeskyVariationalDistribution, learned
  inducing points) trained on minibatches of a shuffled DataLoader with VariationalELBO.
- ``cg``: ``max_cholesky_size(0)``: linear_operator's preconditioned conjugate gradients and
  stochastic Lanczos quadrature for the marginal likelihood, Lanczos (LOVE) for
  ``fast_pred_var``.
- ``dirichlet``: Dirichlet-based GP classification (DirichletClassificationLikelihood, a
  batch of ExactGPs).
- ``bernoulli``: variational GP classification with BernoulliLikelihood (Gauss-Hermite
  quadrature).
- ``botorch``: BoTorch (0.18) on top: a SingleTaskGP fit by ``fit_gpytorch_mll`` (SciPy's
  L-BFGS-B through NumPy), its posterior, and ``optimize_acqf`` of qLogExpectedImprovement
  with a scrambled-Sobol QMC sampler (skipped, with a note on stderr, without botorch).

    python scripts/shared_rng_run.py gpytorch_models.py [VARIANT ... | all]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py gpytorch_models.py [VARIANT ... | all]   # jtorch
"""

import math
import os
import sys
import time
import warnings

import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import gpytorch  # noqa: E402

warnings.filterwarnings("ignore")

VARIANTS = {}


def variant(name):
    def register(fn):
        VARIANTS[name] = fn
        return fn
    return register


def checksum(t):
    t = t.detach().double()
    return (f"sum {t.sum().item()!r} mean {t.mean().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def hyper(model):
    """Every raw parameter's checksum (constrained values are printed by the variants)."""
    for name, p in model.named_parameters():
        print(f"  {name} {list(p.shape)} {checksum(p)}")


def sin_data(n, dtype, noise=0.2):
    x = torch.linspace(0, 1, n, dtype=dtype)
    y = torch.sin(x * (2 * math.pi)) + torch.randn(x.size(), dtype=dtype) * noise
    return x, y


class ExactGPModel(gpytorch.models.ExactGP):
    def __init__(self, train_x, train_y, likelihood, covar):
        super().__init__(train_x, train_y, likelihood)
        self.mean_module = gpytorch.means.ConstantMean()
        self.covar_module = covar

    def forward(self, x):
        mean_x = self.mean_module(x)
        covar_x = self.covar_module(x)
        return gpytorch.distributions.MultivariateNormal(mean_x, covar_x)


def train_exact(name, model, likelihood, x, y, steps, lr=0.1, show=()):
    model.train()
    likelihood.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    mll = gpytorch.mlls.ExactMarginalLogLikelihood(likelihood, model)
    for i in range(steps):
        optimizer.zero_grad()
        output = model(x)
        loss = -mll(output, y).sum()  # (the Dirichlet model's is one per class)
        loss.backward()
        extra = " ".join(f"{k} {f(model)!r}" for k, f in show)
        print(f"{name} iter {i + 1}/{steps} loss {loss.item()!r} {extra}")
        optimizer.step()


def predict(name, model, likelihood, test_x):
    model.eval()
    likelihood.eval()
    with torch.no_grad(), gpytorch.settings.fast_pred_var():
        f_pred = model(test_x)
        observed = likelihood(f_pred)
        lower, upper = observed.confidence_region()
    print(f"{name} f mean {checksum(f_pred.mean)}")
    print(f"{name} f var {checksum(f_pred.variance)}")
    print(f"{name} y mean {checksum(observed.mean)}")
    print(f"{name} y lower {checksum(lower)}")
    print(f"{name} y upper {checksum(upper)}")
    return f_pred


def simple(name, dtype):
    x, y = sin_data(100, dtype)
    likelihood = gpytorch.likelihoods.GaussianLikelihood().to(dtype)
    covar = gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel())
    model = ExactGPModel(x, y, likelihood, covar).to(dtype)
    show = (("lengthscale", lambda m: m.covar_module.base_kernel.lengthscale.item()),
            ("outputscale", lambda m: m.covar_module.outputscale.item()),
            ("noise", lambda m: m.likelihood.noise.item()))
    train_exact(name, model, likelihood, x, y, 50, show=show)
    hyper(model)
    predict(name, model, likelihood, torch.linspace(0, 1, 51, dtype=dtype))


@variant("simple32")
def _():
    simple("simple32", torch.float32)


@variant("simple64")
def _():
    simple("simple64", torch.float64)


@variant("kernels")
def _():
    dtype = torch.float64
    x, y = sin_data(60, dtype, noise=0.1)
    y = y + 0.3 * torch.cos(x * 9)
    test_x = torch.linspace(-0.2, 1.2, 41, dtype=dtype)
    k = gpytorch.kernels
    covars = {
        "matern_periodic": k.ScaleKernel(k.MaternKernel(nu=2.5))
        + k.ScaleKernel(k.PeriodicKernel()),
        "matern12_ard": k.ScaleKernel(k.MaternKernel(nu=0.5)) * k.LinearKernel(),
        "rq_poly": k.ScaleKernel(k.RQKernel()) + k.PolynomialKernel(power=2),
        "spectral_mixture": None,
    }
    for sub, covar in covars.items():
        torch.manual_seed(1)
        likelihood = gpytorch.likelihoods.GaussianLikelihood().to(dtype)
        if covar is None:
            covar = k.SpectralMixtureKernel(num_mixtures=3)
            covar.initialize_from_data(x, y)
        model = ExactGPModel(x, y, likelihood, covar).to(dtype)
        train_exact(f"kernels/{sub}", model, likelihood, x, y, 15)
        hyper(model)
        predict(f"kernels/{sub}", model, likelihood, test_x)


class MultitaskGPModel(gpytorch.models.ExactGP):
    def __init__(self, train_x, train_y, likelihood, tasks):
        super().__init__(train_x, train_y, likelihood)
        batch = torch.Size([tasks])
        self.mean_module = gpytorch.means.ConstantMean(batch_shape=batch)
        self.covar_module = gpytorch.kernels.ScaleKernel(
            gpytorch.kernels.RBFKernel(batch_shape=batch), batch_shape=batch)

    def forward(self, x):
        mean_x = self.mean_module(x)
        covar_x = self.covar_module(x)
        return gpytorch.distributions.MultitaskMultivariateNormal.from_batch_mvn(
            gpytorch.distributions.MultivariateNormal(mean_x, covar_x))


@variant("multitask")
def _():
    dtype = torch.float64
    x = torch.linspace(0, 1, 50, dtype=dtype)
    y = torch.stack([torch.sin(x * (2 * math.pi)) + torch.randn(x.size(), dtype=dtype) * 0.2,
                     torch.cos(x * (2 * math.pi)) + torch.randn(x.size(), dtype=dtype) * 0.2,
                     ], -1)
    likelihood = gpytorch.likelihoods.MultitaskGaussianLikelihood(num_tasks=2).to(dtype)
    model = MultitaskGPModel(x, y, likelihood, 2).to(dtype)
    train_exact("multitask", model, likelihood, x, y, 20)
    hyper(model)
    model.eval()
    likelihood.eval()
    with torch.no_grad(), gpytorch.settings.fast_pred_var():
        pred = likelihood(model(torch.linspace(0, 1, 21, dtype=dtype)))
        lower, upper = pred.confidence_region()
    print(f"multitask mean {list(pred.mean.shape)} {checksum(pred.mean)}")
    print(f"multitask var {checksum(pred.variance)}")
    print(f"multitask lower {checksum(lower)} upper {checksum(upper)}")
    print(f"multitask covariance {checksum(pred.covariance_matrix)}")


class SVGPModel(gpytorch.models.ApproximateGP):
    def __init__(self, inducing_points):
        dist = gpytorch.variational.CholeskyVariationalDistribution(inducing_points.size(0))
        strategy = gpytorch.variational.VariationalStrategy(
            self, inducing_points, dist, learn_inducing_locations=True)
        super().__init__(strategy)
        self.mean_module = gpytorch.means.ConstantMean()
        self.covar_module = gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel())

    def forward(self, x):
        return gpytorch.distributions.MultivariateNormal(self.mean_module(x),
                                                          self.covar_module(x))


@variant("svgp")
def _():
    from torch.utils.data import DataLoader, TensorDataset
    dtype = torch.float64
    x = torch.rand(256, 2, dtype=dtype)
    y = torch.sin(x[:, 0] * 6) * torch.cos(x[:, 1] * 3) + 0.1 * torch.randn(256, dtype=dtype)
    model = SVGPModel(x[:16].clone()).to(dtype)
    likelihood = gpytorch.likelihoods.GaussianLikelihood().to(dtype)
    loader = DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True)
    model.train()
    likelihood.train()
    optimizer = torch.optim.Adam([*model.parameters(), *likelihood.parameters()], lr=0.05)
    mll = gpytorch.mlls.VariationalELBO(likelihood, model, num_data=y.size(0))
    for epoch in range(3):
        for i, (xb, yb) in enumerate(loader):
            optimizer.zero_grad()
            loss = -mll(model(xb), yb)
            loss.backward()
            optimizer.step()
            print(f"svgp epoch {epoch} batch {i} loss {loss.item()!r}")
    hyper(model)
    print(f"svgp noise {likelihood.noise.item()!r}")
    model.eval()
    likelihood.eval()
    with torch.no_grad():
        pred = likelihood(model(torch.rand(32, 2, dtype=dtype)))
    print(f"svgp pred mean {checksum(pred.mean)} var {checksum(pred.variance)}")


@variant("cg")
def _():
    # CG (preconditioned by a rank-5 pivoted Cholesky), stochastic Lanczos quadrature for the
    # log determinant (random probe vectors), LOVE for the predictive variance
    # a well-conditioned system that still needs more than CG's minimum of 10 iterations
    # (a short lengthscale, much noise). CG amplifies rounding by about the condition number
    # once its residual nears rounding level: with the defaults (lengthscale and noise 0.69)
    # it solves to that level in 7 iterations and then iterates on rounding noise, and with
    # noise 0.01 the condition number is ~1e4; in both PyTorch's own CG, given kernel
    # matrices 1 ulp apart, differs from itself by 1e-7 to 5e-4
    dtype = torch.float64
    x, y = sin_data(240, dtype)
    likelihood = gpytorch.likelihoods.GaussianLikelihood().to(dtype)
    likelihood.noise = 0.5
    covar = gpytorch.kernels.ScaleKernel(gpytorch.kernels.MaternKernel(nu=1.5))
    covar.base_kernel.lengthscale = 0.05
    model = ExactGPModel(x, y, likelihood, covar).to(dtype)
    with gpytorch.settings.max_cholesky_size(0), gpytorch.settings.cg_tolerance(1e-4), \
            gpytorch.settings.num_trace_samples(4):
        train_exact("cg", model, likelihood, x, y, 6)
        hyper(model)
        predict("cg", model, likelihood, torch.linspace(0, 1, 31, dtype=dtype))


class DirichletGPModel(gpytorch.models.ExactGP):
    def __init__(self, train_x, train_y, likelihood, num_classes):
        super().__init__(train_x, train_y, likelihood)
        batch = torch.Size((num_classes,))
        self.mean_module = gpytorch.means.ConstantMean(batch_shape=batch)
        self.covar_module = gpytorch.kernels.ScaleKernel(
            gpytorch.kernels.RBFKernel(batch_shape=batch), batch_shape=batch)

    def forward(self, x):
        return gpytorch.distributions.MultivariateNormal(self.mean_module(x),
                                                          self.covar_module(x))


def two_moons(n, dtype):
    x = torch.rand(n, 2, dtype=dtype) * 2 - 1
    labels = ((x[:, 0] * 3).sin() > x[:, 1] * 2).long()
    return x, labels


@variant("dirichlet")
def _():
    dtype = torch.float64
    x, labels = two_moons(80, dtype)
    likelihood = gpytorch.likelihoods.DirichletClassificationLikelihood(
        labels, learn_additional_noise=True, dtype=dtype)
    model = DirichletGPModel(x, likelihood.transformed_targets, likelihood,
                             likelihood.num_classes).to(dtype)
    train_exact("dirichlet", model, likelihood, x, likelihood.transformed_targets, 15)
    hyper(model)
    model.eval()
    likelihood.eval()
    test = torch.rand(20, 2, dtype=dtype) * 2 - 1
    with gpytorch.settings.fast_pred_var(), torch.no_grad():
        dist = model(test)
        samples = dist.sample(torch.Size((64,))).exp()
        probs = (samples / samples.sum(-2, keepdim=True)).mean(0)
    print(f"dirichlet loc {checksum(dist.loc)} var {checksum(dist.variance)}")
    print(f"dirichlet probs {checksum(probs)} classes {probs.argmax(0).tolist()}")


class ClassifierGP(gpytorch.models.ApproximateGP):
    def __init__(self, train_x):
        dist = gpytorch.variational.CholeskyVariationalDistribution(train_x.size(0))
        strategy = gpytorch.variational.UnwhitenedVariationalStrategy(
            self, train_x, dist, learn_inducing_locations=False)
        super().__init__(strategy)
        self.mean_module = gpytorch.means.ConstantMean()
        self.covar_module = gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel())

    def forward(self, x):
        return gpytorch.distributions.MultivariateNormal(self.mean_module(x),
                                                          self.covar_module(x))


@variant("bernoulli")
def _():
    dtype = torch.float64
    x = torch.linspace(0, 1, 40, dtype=dtype)
    y = (torch.sign(torch.cos(x * (4 * math.pi))) + 1) / 2
    model = ClassifierGP(x).to(dtype)
    likelihood = gpytorch.likelihoods.BernoulliLikelihood().to(dtype)
    model.train()
    likelihood.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
    mll = gpytorch.mlls.VariationalELBO(likelihood, model, y.numel())
    for i in range(15):
        optimizer.zero_grad()
        loss = -mll(model(x), y)
        loss.backward()
        print(f"bernoulli iter {i + 1} loss {loss.item()!r}")
        optimizer.step()
    hyper(model)
    model.eval()
    likelihood.eval()
    with torch.no_grad():
        pred = likelihood(model(torch.linspace(0, 1, 21, dtype=dtype)))
    print(f"bernoulli probs {checksum(pred.mean)} labels {pred.mean.ge(0.5).long().tolist()}")


@variant("botorch")
def _():
    # BoTorch on GPyTorch: SingleTaskGP (its priors, Standardize outcome transform), fit by
    # fit_gpytorch_mll (SciPy's L-BFGS-B through NumPy), then qLogExpectedImprovement with a
    # scrambled-Sobol QMC sampler, maximised by optimize_acqf (Sobol raw samples, L-BFGS-B)
    try:
        import botorch  # noqa: F401
    except ImportError:
        print("skipped botorch: the botorch package is not installed", file=sys.stderr)
        return
    from botorch.acquisition.logei import qLogExpectedImprovement
    from botorch.fit import fit_gpytorch_mll
    from botorch.models import SingleTaskGP
    from botorch.optim import optimize_acqf
    from botorch.sampling import SobolQMCNormalSampler
    dtype = torch.float64
    x = torch.rand(12, 2, dtype=dtype)
    y = torch.sin(x * 6).sum(-1, keepdim=True) + 0.05 * torch.randn(12, 1, dtype=dtype)
    model = SingleTaskGP(x, y)
    mll = gpytorch.mlls.ExactMarginalLogLikelihood(model.likelihood, model)
    fit_gpytorch_mll(mll)
    hyper(model)
    model.eval()
    with torch.no_grad():
        post = model.posterior(torch.rand(5, 2, dtype=dtype))
    print(f"botorch posterior mean {checksum(post.mean)} var {checksum(post.variance)}")
    sampler = SobolQMCNormalSampler(sample_shape=torch.Size([32]), seed=0)
    acqf = qLogExpectedImprovement(model, best_f=y.max(), sampler=sampler)
    bounds = torch.stack([torch.zeros(2, dtype=dtype), torch.ones(2, dtype=dtype)])
    candidates, value = optimize_acqf(acqf, bounds=bounds, q=2, num_restarts=2, raw_samples=16,
                                      options={"maxiter": 15, "seed": 0})
    print(f"botorch candidates {candidates.tolist()!r}")
    print(f"botorch acquisition value {value.item()!r}")


def main(argv):
    names = list(VARIANTS) if argv in ([], ["all"]) else argv
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"unknown variants {unknown}; known: {' '.join(VARIANTS)}")
    for name in names:
        start = time.time()
        torch.manual_seed(0)
        print(f"== {name}")
        VARIANTS[name]()
        print(f"[{name}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
