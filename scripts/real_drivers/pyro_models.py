"""Driver of Pyro (docs/real-programs.md): the ``pyro`` package (pyro-ppl 1.9), installed and
used unchanged, on tiny seeded models; every log density, loss, learned parameter and sample
checksum is printed at full precision.

Variants (each reseeds with ``pyro.set_rng_seed``, so a subset prints what the full run prints
for it):

- ``dists``: ``pyro.distributions`` (PyTorch's wrapped with pyro's mixin, and pyro's own):
  ``log_prob`` at fixed values, draws under the seed, ``rsample`` gradients, ``to_event``,
  ``expand``, ``mask``, KL divergences.
- ``transforms``: TransformedDistribution over PyTorch's transforms and pyro's normalizing
  flows (AffineAutoregressive over an AutoRegressiveNN, Spline, AffineCoupling,
  Planar, Radial, Householder, BlockAutoregressive), their draws,
  ``log_prob`` and gradients.
- ``linreg``: Bayesian linear regression by SVI: Trace_ELBO with AutoNormal,
  AutoDiagonalNormal, AutoMultivariateNormal, AutoLowRankMultivariateNormal and AutoDelta
  (medians, quantiles), TraceMeanField_ELBO (vectorized particles) and a two-particle
  Trace_ELBO with a hand-written guide, pyro.optim Adam and ClippedAdam, then Predictive.
- ``mixture``: a two-component Gaussian mixture by TraceEnum_ELBO with
  ``config_enumerate`` (parallel enumeration of the assignments, AutoDelta on the rest under
  ``poutine.block``), then ``infer_discrete`` MAP assignments.
- ``paramstore``: the param store's ``get_state``/``set_state`` and ``save``/``load``.
- ``poutine``: ``trace`` (log_prob_sum, node shapes), ``condition``, ``replay``, ``block``,
  ``scale``, ``mask``, ``uncondition``, ``do``, ``seed``, ``plate`` subsampling, and an ELBO
  by hand from a guide trace replayed into the model, with its gradients.
- ``vae``: a tiny VAE (``pyro.module`` encoder and decoder) trained by SVI.
- ``extras``: RenyiELBO, AutoLaplaceApproximation (and its Laplace approximation),
  AutoIAFNormal, Importance sampling with EmpiricalMarginal, and ``pyro.ops.stats``
  (autocorrelation by FFT, effective sample size, Gelman-Rubin, HPDI, quantiles, WAIC).
- ``mcmc``: HMC and NUTS (10 warmup and 10 samples each) on the linear regression.

    python scripts/shared_rng_run.py pyro_models.py [VARIANT ... | all]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py pyro_models.py [VARIANT ... | all]   # jtorch
"""

import os
import sys
import tempfile
import time
import warnings

import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import pyro  # noqa: E402
import pyro.distributions as dist  # noqa: E402
import pyro.distributions.transforms as T  # noqa: E402
import pyro.ops.stats as stats  # noqa: E402
import pyro.poutine as poutine  # noqa: E402
from pyro.infer import (  # noqa: E402
    HMC,
    MCMC,
    NUTS,
    SVI,
    EmpiricalMarginal,
    Importance,
    Predictive,
    RenyiELBO,
    Trace_ELBO,
    TraceEnum_ELBO,
    TraceMeanField_ELBO,
    autoguide,  # noqa: E402
    config_enumerate,
    infer_discrete,
)
from pyro.optim import Adam, ClippedAdam  # noqa: E402

warnings.filterwarnings("ignore")

VARIANTS = {}


def variant(name):
    def register(fn):
        VARIANTS[name] = fn
        return fn
    return register


def checksum(t):
    t = torch.as_tensor(t).detach().double()
    return (f"sum {t.sum().item()!r} mean {t.mean().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def show(label, t):
    print(f"{label} {list(torch.as_tensor(t).shape)} {checksum(t)}")


def params(label):
    for name, value in sorted(pyro.get_param_store().items()):
        show(f"  {label} param {name}", value)


# ---------------------------------------------------------------------------------------------
# distributions


@variant("dists")
def _():
    x = torch.linspace(-1.5, 2.0, 8)
    pos = torch.linspace(0.1, 3.0, 8)
    unit = torch.linspace(0.05, 0.95, 8)
    loc, scale = torch.tensor(0.3), torch.tensor(1.7)
    cases = {
        "Normal": (dist.Normal(loc, scale), x),
        "LogNormal": (dist.LogNormal(loc, scale), pos),
        "Gamma": (dist.Gamma(torch.tensor(2.5), torch.tensor(1.3)), pos),
        "Beta": (dist.Beta(torch.tensor(1.5), torch.tensor(2.5)), unit),
        "StudentT": (dist.StudentT(torch.tensor(3.0), loc, scale), x),
        "Cauchy": (dist.Cauchy(loc, scale), x),
        "Laplace": (dist.Laplace(loc, scale), x),
        "HalfCauchy": (dist.HalfCauchy(scale), pos),
        "HalfNormal": (dist.HalfNormal(scale), pos),
        "Exponential": (dist.Exponential(torch.tensor(0.7)), pos),
        "InverseGamma": (dist.InverseGamma(torch.tensor(2.0), torch.tensor(1.5)), pos),
        "VonMises": (dist.VonMises(loc, torch.tensor(2.0)), x),
        "Uniform": (dist.Uniform(-2.0, 3.0), x),
        "Poisson": (dist.Poisson(torch.tensor(2.5)), torch.arange(8.0)),
        "Binomial": (dist.Binomial(7, torch.tensor(0.3)), torch.arange(8.0)),
        "Bernoulli": (dist.Bernoulli(logits=torch.tensor(0.4)), torch.tensor([0., 1.] * 4)),
        "Categorical": (dist.Categorical(logits=torch.linspace(-1, 1, 4)),
                        torch.tensor([0, 1, 2, 3, 3, 2, 1, 0])),
        "Geometric": (dist.Geometric(torch.tensor(0.3)), torch.arange(8.0)),
        "NegativeBinomial": (dist.NegativeBinomial(torch.tensor(3.0), torch.tensor(0.4)),
                             torch.arange(8.0)),
        # pyro's own
        "AsymmetricLaplace": (dist.AsymmetricLaplace(loc, scale, torch.tensor(0.6)), x),
        "SoftAsymmetricLaplace": (dist.SoftAsymmetricLaplace(loc, scale, torch.tensor(0.6)),
                                  x),
        "SkewLogistic": (dist.SkewLogistic(loc, scale, torch.tensor(1.5)), x),
        "ZeroInflatedPoisson": (dist.ZeroInflatedPoisson(torch.tensor(2.0),
                                                         gate=torch.tensor(0.3)),
                                torch.arange(8.0)),
        "ZeroInflatedNegativeBinomial": (
            dist.ZeroInflatedNegativeBinomial(torch.tensor(3.0), probs=torch.tensor(0.4),
                                              gate=torch.tensor(0.2)), torch.arange(8.0)),
        "GammaPoisson": (dist.GammaPoisson(torch.tensor(2.0), torch.tensor(1.5)),
                         torch.arange(8.0)),
        "BetaBinomial": (dist.BetaBinomial(torch.tensor(1.5), torch.tensor(2.0), 7),
                         torch.arange(8.0)),
        "Delta": (dist.Delta(torch.tensor(0.5)), torch.tensor([0.5, 0.4])),
        "Stable": (dist.Stable(torch.tensor(1.5), torch.tensor(0.3)).mask(False), x),
        "Logistic": (dist.Logistic(loc, scale), x),
    }
    for name, (d, value) in cases.items():
        show(f"dists {name} log_prob", d.log_prob(value))
    for name in ("Normal", "Gamma", "Beta", "StudentT", "Poisson", "ZeroInflatedPoisson"):
        d = cases[name][0]
        show(f"dists {name} mean", d.mean)
        show(f"dists {name} variance", d.variance)

    # multivariate
    cov = torch.tensor([[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 0.5]])
    mloc = torch.tensor([0.1, -0.4, 0.7])
    v3 = torch.tensor([[0.2, 0.1, -0.3], [1.0, -1.0, 0.5]])
    mvn = dist.MultivariateNormal(mloc, covariance_matrix=cov)
    show("dists MVN log_prob", mvn.log_prob(v3))
    show("dists MVN entropy", mvn.entropy())
    lr = dist.LowRankMultivariateNormal(mloc, torch.tensor([[0.5], [0.2], [-0.3]]),
                                        torch.tensor([1.0, 0.7, 0.4]))
    show("dists LowRankMVN log_prob", lr.log_prob(v3))
    simplex = torch.tensor([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])
    show("dists Dirichlet log_prob",
         dist.Dirichlet(torch.tensor([1.5, 2.0, 0.7])).log_prob(simplex))
    show("dists DirichletMultinomial log_prob",
         dist.DirichletMultinomial(torch.tensor([1.5, 2.0, 0.7]), 5).log_prob(
             torch.tensor([[1.0, 2.0, 2.0], [5.0, 0.0, 0.0]])))
    show("dists Multinomial log_prob",
         dist.Multinomial(5, torch.tensor([0.2, 0.3, 0.5])).log_prob(
             torch.tensor([[1.0, 2.0, 2.0], [5.0, 0.0, 0.0]])))
    show("dists LKJCholesky log_prob",
         dist.LKJCholesky(3, torch.tensor(1.5)).log_prob(_corr_cholesky(cov)))

    # shapes: expand, to_event, mask, independent
    d = dist.Normal(torch.zeros(3), torch.ones(3)).expand([2, 3]).to_event(1)
    print(f"dists expand.to_event batch {list(d.batch_shape)} event {list(d.event_shape)}")
    show("dists expand.to_event log_prob", d.log_prob(v3))
    show("dists masked log_prob", dist.Normal(0.0, 1.0).expand([4]).mask(
        torch.tensor([True, False, True, False])).log_prob(x[:4]))

    # draws under the seed
    # (not Cauchy, Exponential, Gamma and the rest, whose PyTorch samplers draw from
    # Tensor.cauchy_/exponential_ or C++ kernels that the shared generator draws differently)
    pyro.set_rng_seed(1)
    for name in ("Normal", "LogNormal", "Uniform", "Bernoulli", "Categorical", "Laplace",
                 "Logistic"):
        show(f"dists {name} sample", cases[name][0].sample([6]))
    show("dists MVN sample", mvn.sample([4]))
    show("dists LowRankMVN sample", lr.sample([4]))

    # rsample gradients (reparameterised draws)
    for name, make in (
        ("Normal", lambda a, b: dist.Normal(a, b)),
        ("LogNormal", lambda a, b: dist.LogNormal(a, b)),
        ("Laplace", lambda a, b: dist.Laplace(a, b)),
        ("Uniform", lambda a, b: dist.Uniform(a, a + b)),
        ("MVN", lambda a, b: dist.MultivariateNormal(a.expand(3), scale_tril=b * torch.eye(3)
                                                     + torch.tril(cov, -1) * 0.1)),
    ):
        a = torch.tensor(0.3, requires_grad=True)
        b = torch.tensor(1.2, requires_grad=True)
        s = make(a, b).rsample([5])
        (s ** 2).sum().backward()
        show(f"dists {name} rsample", s)
        print(f"dists {name} rsample grad {a.grad.item()!r} {b.grad.item()!r}")

    # log_prob gradients
    a = torch.tensor([0.2, -0.1], requires_grad=True)
    b = torch.tensor([1.3, 0.8], requires_grad=True)
    lp = (dist.StudentT(4.0, a, b).log_prob(x[:, None]).sum()
          + dist.Gamma(b, torch.exp(a)).log_prob(pos[:, None]).sum()
          + dist.Beta(b, b + 1).log_prob(unit[:, None]).sum())
    lp.backward()
    print(f"dists log_prob grad {lp.item()!r} {checksum(a.grad)} {checksum(b.grad)}")

    # KL divergences
    for name, p, q in (
        ("Normal", dist.Normal(0.2, 1.1), dist.Normal(-0.3, 0.7)),
        ("Gamma", dist.Gamma(2.0, 1.5), dist.Gamma(1.2, 0.7)),
        ("MVN", mvn, dist.MultivariateNormal(torch.zeros(3), torch.eye(3))),
        ("Independent", dist.Normal(torch.zeros(3), torch.ones(3)).to_event(1),
         dist.Normal(torch.ones(3), 2 * torch.ones(3)).to_event(1)),
        ("Delta", dist.Delta(torch.tensor(0.4)), dist.Normal(0.0, 1.0)),
    ):
        show(f"dists KL {name}", torch.distributions.kl_divergence(p, q))


def _corr_cholesky(cov):
    """The Cholesky factor of the correlation matrix of ``cov``."""
    sd = cov.diagonal().sqrt()
    return torch.linalg.cholesky(cov / sd[:, None] / sd[None, :])


# ---------------------------------------------------------------------------------------------
# transforms and normalizing flows


@variant("transforms")
def _():
    base = dist.Normal(torch.zeros(2), torch.ones(2))
    value = torch.tensor([[0.3, -0.5], [1.2, 0.4], [-0.8, 2.0]])
    td = dist.TransformedDistribution(base, [T.AffineTransform(0.5, 2.0), T.ExpTransform()])
    show("transforms affine+exp log_prob", td.log_prob(value.exp()))
    for name, t in (("sigmoid", T.SigmoidTransform()), ("tanh", T.TanhTransform()),
                    ("softplus", T.SoftplusTransform()), ("power", T.PowerTransform(3.0))):
        y = t(value.abs() * 0.5 + 0.1)
        show(f"transforms {name} y", y)
        show(f"transforms {name} ladj", t.log_abs_det_jacobian(value.abs() * 0.5 + 0.1, y))
    stick = T.StickBreakingTransform()
    y = stick(value)
    show("transforms stickbreaking y", y)
    show("transforms stickbreaking inverse", stick.inv(y))
    show("transforms stickbreaking ladj", stick.log_abs_det_jacobian(value, y))
    corr = T.CorrLCholeskyTransform()
    y = corr(torch.tensor([0.3, -0.4, 0.8]))
    show("transforms corr_cholesky y", y)
    show("transforms corr_cholesky inverse", corr.inv(y))

    # normalizing flows: each built under the seed (their nets draw their initial weights),
    # then log_prob of fixed values, draws and the gradients of a flow objective
    flows = {
        "affine_autoregressive": lambda: T.affine_autoregressive(2, hidden_dims=[6]),
        "spline": lambda: T.Spline(2, count_bins=4),
        "planar": lambda: T.Planar(2),
        "radial": lambda: T.Radial(2),
        "householder": lambda: T.Householder(2, count_transforms=2),
        "affine_coupling": lambda: T.affine_coupling(2, hidden_dims=[6]),
        "block_autoregressive": lambda: T.block_autoregressive(2, hidden_factors=[2]),
    }
    for name, make in flows.items():
        pyro.set_rng_seed(3)
        flow = make()
        for p in flow.parameters():
            if p.dim() == 1 and float(p.detach().abs().sum()) == 0.0:
                p.data.normal_(0.0, 0.1)  # (some start at zero: the identity)
        td = dist.TransformedDistribution(base, [flow])
        x = td.rsample([4])
        lp = td.log_prob(x)  # from the cached draw (Planar, Radial and BNAF have no inverse)
        show(f"transforms {name} rsample", x)
        show(f"transforms {name} log_prob", lp)
        if name not in ("planar", "radial", "block_autoregressive"):
            fixed = td.log_prob(value)
            show(f"transforms {name} log_prob of values", fixed)
            lp = lp + fixed.sum()
        # (the linear term breaks the rotation invariance that makes Householder's gradient
        # zero up to rounding)
        loss = -lp.sum() + (x ** 2).sum() + 3.0 * x[..., 0].sum()
        loss.backward()
        grads = [p.grad for p in flow.parameters() if p.grad is not None]
        print(f"transforms {name} loss {loss.item()!r} grads {len(grads)} "
              + " ".join(f"{g.abs().sum().item()!r}" for g in grads))


# ---------------------------------------------------------------------------------------------
# SVI: Bayesian linear regression


def regression_data(n=20):
    x = torch.linspace(-1.0, 1.0, n).unsqueeze(-1) * torch.tensor([1.0, -0.5])
    x = x + 0.1 * torch.randn(n, 2)
    y = 0.5 + x @ torch.tensor([1.5, -2.0]) + 0.3 * torch.randn(n)
    return x, y


def linreg_model(x, y=None):
    w = pyro.sample("w", dist.Normal(torch.zeros(2), torch.ones(2)).to_event(1))
    b = pyro.sample("b", dist.Normal(0.0, 2.0))
    sigma = pyro.sample("sigma", dist.HalfNormal(1.0))
    mean = b + (x * w.unsqueeze(-2)).sum(-1)  # (w may carry particle dimensions)
    with pyro.plate("data", x.shape[0]):
        return pyro.sample("obs", dist.Normal(mean, sigma), obs=y)


def linreg_guide(x, y=None):
    w_loc = pyro.param("w_loc", torch.zeros(2))
    w_scale = pyro.param("w_scale", torch.ones(2), constraint=dist.constraints.positive)
    b_loc = pyro.param("b_loc", torch.tensor(0.0))
    b_scale = pyro.param("b_scale", torch.tensor(1.0), constraint=dist.constraints.positive)
    s_loc = pyro.param("s_loc", torch.tensor(0.0))
    pyro.sample("w", dist.Normal(w_loc, w_scale).to_event(1))
    pyro.sample("b", dist.Normal(b_loc, b_scale))
    pyro.sample("sigma", dist.LogNormal(s_loc, 0.3))


def run_svi(label, model, guide, loss, optim, steps, *args):
    svi = SVI(model, guide, optim, loss=loss)
    for step in range(steps):
        value = svi.step(*args)
        if step % 5 == 0 or step == steps - 1:
            print(f"{label} step {step} loss {value!r}")
    params(label)
    return svi


@variant("linreg")
def _():
    x, y = regression_data()
    for name, make, optim in (
        ("AutoNormal", autoguide.AutoNormal, Adam({"lr": 0.05})),
        ("AutoDiagonalNormal", autoguide.AutoDiagonalNormal, ClippedAdam({"lr": 0.05,
                                                                            "lrd": 0.99,
                                                                            "clip_norm": 5.0})),
        ("AutoMultivariateNormal", autoguide.AutoMultivariateNormal, Adam({"lr": 0.05})),
        ("AutoDelta", autoguide.AutoDelta, Adam({"lr": 0.05})),
        ("AutoLowRankMultivariateNormal",
         lambda m: autoguide.AutoLowRankMultivariateNormal(m, rank=1), Adam({"lr": 0.05})),
    ):
        pyro.clear_param_store()
        pyro.set_rng_seed(4)
        guide = make(linreg_model)
        run_svi(f"linreg {name}", linreg_model, guide, Trace_ELBO(), optim, 15, x, y)
        median = guide.median(x, y) if name != "AutoDelta" else guide(x, y)
        for site, v in sorted(median.items()):
            show(f"linreg {name} median {site}", v)
        if name == "AutoNormal":
            show("linreg AutoNormal quantiles w", guide.quantiles([0.1, 0.9])["w"])
            predictive = Predictive(linreg_model, guide=guide, num_samples=5,
                                    return_sites=("w", "obs", "_RETURN"))
            for site, v in sorted(predictive(x).items()):
                show(f"linreg predictive {site}", v)
    pyro.clear_param_store()
    pyro.set_rng_seed(5)
    run_svi("linreg meanfield", linreg_model, linreg_guide,
            TraceMeanField_ELBO(num_particles=2, vectorize_particles=True),
            ClippedAdam({"lr": 0.05}), 15, x, y)
    pyro.clear_param_store()
    pyro.set_rng_seed(5)
    run_svi("linreg trace2", linreg_model, linreg_guide, Trace_ELBO(num_particles=2),
            Adam({"lr": 0.05, "betas": (0.8, 0.99)}), 10, x, y)


# ---------------------------------------------------------------------------------------------
# mixture model: enumeration of discrete sites


def mixture_data():
    return torch.cat([torch.randn(10) * 0.5 - 2.0, torch.randn(10) * 0.5 + 2.0])


@config_enumerate
def mixture_model(data):
    weights = pyro.sample("weights", dist.Dirichlet(0.5 * torch.ones(2)))
    scale = pyro.sample("scale", dist.LogNormal(0.0, 2.0))
    with pyro.plate("components", 2):
        locs = pyro.sample("locs", dist.Normal(0.0, 10.0))
    with pyro.plate("data", len(data)):
        assignment = pyro.sample("assignment", dist.Categorical(weights))
        pyro.sample("obs", dist.Normal(locs[assignment], scale), obs=data)


@variant("mixture")
def _():
    data = mixture_data()
    pyro.clear_param_store()
    pyro.set_rng_seed(6)

    def init_loc_fn(site):
        if site["name"] == "weights":
            return torch.ones(2) / 2
        if site["name"] == "scale":
            return (data.var() / 2).sqrt()
        if site["name"] == "locs":
            return torch.tensor([-1.0, 1.0])
        raise ValueError(site["name"])

    guide = autoguide.AutoDelta(poutine.block(mixture_model, expose=["weights", "locs", "scale"]),
                                init_loc_fn=init_loc_fn)
    elbo = TraceEnum_ELBO(max_plate_nesting=1)
    print(f"mixture initial loss {elbo.loss(mixture_model, guide, data)!r}")
    run_svi("mixture", mixture_model, guide, elbo, Adam({"lr": 0.1, "betas": [0.8, 0.99]}),
            20, data)
    guide_trace = poutine.trace(guide).get_trace(data)
    trained = poutine.replay(mixture_model, trace=guide_trace)
    assign = infer_discrete(trained, temperature=0, first_available_dim=-2)
    trace = poutine.trace(assign).get_trace(data)
    print("mixture MAP assignment", trace.nodes["assignment"]["value"].tolist())
    pyro.set_rng_seed(7)
    sampled = infer_discrete(trained, temperature=1, first_available_dim=-2)
    trace = poutine.trace(sampled).get_trace(data)
    print("mixture sampled assignment", trace.nodes["assignment"]["value"].tolist())
    # the marginal log likelihood with the assignments summed out, and its gradient
    elbo = TraceEnum_ELBO(max_plate_nesting=1)
    loss = elbo.differentiable_loss(mixture_model, guide, data)
    loss.backward()
    print(f"mixture differentiable loss {loss.item()!r}")
    for name, p in sorted(pyro.get_param_store().named_parameters()):
        show(f"  mixture grad {name}", p.grad)


# ---------------------------------------------------------------------------------------------
# the param store


@variant("paramstore")
def _():
    pyro.clear_param_store()
    a = pyro.param("a", torch.tensor([0.5, 1.5]))
    b = pyro.param("b", torch.tensor([[2.0, 0.3]]), constraint=dist.constraints.positive)
    c = pyro.param("c", torch.tensor([0.2, 0.3, 0.5]), constraint=dist.constraints.simplex)
    show("paramstore a", a)
    show("paramstore b", b)
    show("paramstore b unconstrained", pyro.get_param_store().get_param("b").unconstrained())
    show("paramstore c", c)
    show("paramstore c unconstrained", c.unconstrained())
    (a.sum() + b.log().sum() + (c ** 2).sum()).backward()
    for name, p in sorted(pyro.get_param_store().named_parameters()):
        show(f"paramstore grad {name}", p.grad)
    state = pyro.get_param_store().get_state()
    print("paramstore state keys", sorted(state["params"]), sorted(state["constraints"]))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "params.pt")
        pyro.get_param_store().save(path)
        pyro.clear_param_store()
        print("paramstore cleared", list(pyro.get_param_store().keys()))
        pyro.get_param_store().load(path)
    for name in sorted(pyro.get_param_store().keys()):
        show(f"paramstore loaded {name}", pyro.param(name))
    print("paramstore loaded constraint b",
          type(pyro.get_param_store()._constraints["b"]).__name__)
    pyro.clear_param_store()
    pyro.get_param_store().set_state(state)
    show("paramstore set_state c", pyro.param("c"))


# ---------------------------------------------------------------------------------------------
# poutine: effect handlers


@variant("poutine")
def _():
    x, y = regression_data()
    pyro.set_rng_seed(8)
    trace = poutine.trace(linreg_model).get_trace(x, y)
    trace.compute_log_prob()
    print(f"poutine trace log_prob_sum {trace.log_prob_sum().item()!r}")
    for name, node in trace.nodes.items():
        if node["type"] == "sample":
            show(f"poutine trace {name} value", node["value"])
            show(f"poutine trace {name} log_prob", node["log_prob"])
    print(trace.format_shapes())
    conditioned = poutine.condition(linreg_model, data={"w": torch.tensor([1.0, -1.0]),
                                                        "sigma": torch.tensor(0.5)})
    ctrace = poutine.trace(conditioned).get_trace(x, y)
    print(f"poutine condition log_prob_sum {ctrace.log_prob_sum().item()!r} observed "
          + " ".join(n for n, s in ctrace.nodes.items() if s.get("is_observed")))
    replayed = poutine.trace(poutine.replay(linreg_model, trace=trace)).get_trace(x, y)
    print(f"poutine replay log_prob_sum {replayed.log_prob_sum().item()!r}")
    blocked = poutine.trace(poutine.block(linreg_model, hide=["w", "b"])).get_trace(x, y)
    print("poutine block visible", [n for n, s in blocked.nodes.items() if s["type"] == "sample"])
    scaled = poutine.trace(poutine.scale(linreg_model, scale=0.25)).get_trace(x, y)
    print(f"poutine scale log_prob_sum {scaled.log_prob_sum().item()!r}")
    masked = poutine.trace(poutine.mask(linreg_model, mask=False)).get_trace(x, y)
    print(f"poutine mask log_prob_sum {masked.log_prob_sum().item()!r}")
    uncond = poutine.uncondition(linreg_model)
    show("poutine uncondition obs", poutine.trace(uncond).get_trace(x, y).nodes["obs"]["value"])
    do = poutine.do(linreg_model, data={"b": torch.tensor(3.0)})
    show("poutine do obs", do(x))
    seeded = poutine.seed(linreg_model, rng_seed=11)
    show("poutine seed obs", seeded(x))
    show("poutine seed obs again", seeded(x))

    def subsampled(data):
        loc = pyro.sample("loc", dist.Normal(0.0, 1.0))
        with pyro.plate("data", len(data), subsample_size=5) as idx:
            pyro.sample("obs", dist.Normal(loc, 1.0), obs=data[idx])
        return idx
    strace = poutine.trace(subsampled).get_trace(y)
    print("poutine subsample idx", strace.nodes["_RETURN"]["value"].tolist(),
          f"log_prob_sum {strace.log_prob_sum().item()!r}")
    # an ELBO by hand from a guide trace replayed into the model
    pyro.clear_param_store()
    gtrace = poutine.trace(linreg_guide).get_trace(x, y)
    mtrace = poutine.trace(poutine.replay(linreg_model, trace=gtrace)).get_trace(x, y)
    elbo = mtrace.log_prob_sum() - gtrace.log_prob_sum()
    elbo.backward()
    print(f"poutine elbo {elbo.item()!r}")
    for name, p in sorted(pyro.get_param_store().named_parameters()):
        show(f"  poutine grad {name}", p.grad)


# ---------------------------------------------------------------------------------------------
# VAE


class Encoder(torch.nn.Module):
    def __init__(self, x_dim, z_dim, hidden):
        super().__init__()
        self.fc = torch.nn.Linear(x_dim, hidden)
        self.loc = torch.nn.Linear(hidden, z_dim)
        self.scale = torch.nn.Linear(hidden, z_dim)

    def forward(self, x):
        h = torch.nn.functional.softplus(self.fc(x))
        return self.loc(h), torch.exp(self.scale(h))


class Decoder(torch.nn.Module):
    def __init__(self, x_dim, z_dim, hidden):
        super().__init__()
        self.fc = torch.nn.Linear(z_dim, hidden)
        self.out = torch.nn.Linear(hidden, x_dim)

    def forward(self, z):
        return torch.sigmoid(self.out(torch.nn.functional.softplus(self.fc(z))))


class VAE(torch.nn.Module):
    def __init__(self, x_dim=12, z_dim=2, hidden=8):
        super().__init__()
        self.encoder = Encoder(x_dim, z_dim, hidden)
        self.decoder = Decoder(x_dim, z_dim, hidden)
        self.z_dim = z_dim

    def model(self, x):
        pyro.module("decoder", self.decoder)
        with pyro.plate("data", x.shape[0]):
            z_loc = x.new_zeros(torch.Size((x.shape[0], self.z_dim)))
            z_scale = x.new_ones(torch.Size((x.shape[0], self.z_dim)))
            z = pyro.sample("latent", dist.Normal(z_loc, z_scale).to_event(1))
            probs = self.decoder(z)
            pyro.sample("obs", dist.Bernoulli(probs, validate_args=False).to_event(1), obs=x)

    def guide(self, x):
        pyro.module("encoder", self.encoder)
        with pyro.plate("data", x.shape[0]):
            z_loc, z_scale = self.encoder(x)
            pyro.sample("latent", dist.Normal(z_loc, z_scale).to_event(1))


@variant("vae")
def _():
    pyro.clear_param_store()
    pyro.set_rng_seed(9)
    data = (torch.rand(16, 12) > 0.5).float()
    vae = VAE()
    svi = SVI(vae.model, vae.guide, Adam({"lr": 0.01}), loss=Trace_ELBO())
    for epoch in range(3):
        total = 0.0
        for batch in data.split(8):
            total += svi.step(batch)
        print(f"vae epoch {epoch} loss {total!r}")
    params("vae")
    z_loc, z_scale = vae.encoder(data[:4])
    show("vae z_loc", z_loc)
    show("vae reconstruction", vae.decoder(z_loc))
    print(f"vae evaluate_loss {svi.evaluate_loss(data)!r}")


# ---------------------------------------------------------------------------------------------
# other inference: Renyi ELBO, Laplace and IAF guides, importance sampling, MCMC statistics


def location_model(data):
    loc = pyro.sample("loc", dist.Normal(0.0, 1.0))
    with pyro.plate("data", len(data)):
        pyro.sample("obs", dist.Normal(loc, 1.0), obs=data)


@variant("extras")
def _():
    data = torch.randn(30) + 0.5
    for name, make, loss in (
        ("RenyiELBO", autoguide.AutoNormal, RenyiELBO(alpha=0.5, num_particles=2)),
        ("AutoLaplaceApproximation", autoguide.AutoLaplaceApproximation, Trace_ELBO()),
        ("AutoIAFNormal", lambda m: autoguide.AutoIAFNormal(m, hidden_dim=[4]), Trace_ELBO()),
    ):
        pyro.clear_param_store()
        pyro.set_rng_seed(12)
        guide = make(location_model)
        run_svi(f"extras {name}", location_model, guide, loss, Adam({"lr": 0.05}), 6, data)
        if name == "AutoLaplaceApproximation":
            laplace = guide.laplace_approximation(data)
            show("extras laplace loc", laplace.loc)
            show("extras laplace scale_tril", laplace.scale_tril)
    pyro.set_rng_seed(13)
    importance = Importance(location_model, guide=None, num_samples=20).run(data)
    print(f"extras importance log_normalizer {importance.get_log_normalizer().item()!r}")
    show("extras importance loc", EmpiricalMarginal(importance, "loc").mean)
    pyro.set_rng_seed(14)
    chains = torch.randn(2, 40).cumsum(-1) * 0.3 + torch.randn(2, 40)
    show("extras autocorrelation", stats.autocorrelation(chains[0])[:8])
    show("extras autocovariance", stats.autocovariance(chains[0])[:8])
    show("extras effective_sample_size",
         stats.effective_sample_size(chains, chain_dim=0, sample_dim=1))
    show("extras gelman_rubin", stats.gelman_rubin(chains, chain_dim=0, sample_dim=1))
    show("extras split_gelman_rubin",
         stats.split_gelman_rubin(chains, chain_dim=0, sample_dim=1))
    show("extras hpdi", stats.hpdi(chains.reshape(-1), 0.8))
    show("extras quantile", stats.quantile(chains.reshape(-1), [0.1, 0.5, 0.9]))
    print("extras waic", [round(float(v), 6) for v in stats.waic(
        dist.Normal(chains[:, :5], 1.0).log_prob(torch.zeros(5)))])


# ---------------------------------------------------------------------------------------------
# MCMC


@variant("mcmc")
def _():
    x, y = regression_data()
    for name, kernel in (("HMC", lambda: HMC(linreg_model, step_size=0.05, num_steps=4,
                                              adapt_step_size=True)),
                         ("NUTS", lambda: NUTS(linreg_model, max_tree_depth=4))):
        pyro.set_rng_seed(10)
        mcmc = MCMC(kernel(), num_samples=10, warmup_steps=10, disable_progbar=True)
        mcmc.run(x, y)
        for site, v in sorted(mcmc.get_samples().items()):
            show(f"mcmc {name} {site}", v)
        k = mcmc.kernel
        print(f"mcmc {name} step_size {float(k.step_size)!r}")
        for site, diag in sorted(mcmc.diagnostics().items()):
            if site in ("w", "b", "sigma"):
                show(f"mcmc {name} {site} n_eff", diag["n_eff"])


def main(argv):
    names = list(VARIANTS) if argv in ([], ["all"]) else argv
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"unknown variants {unknown}; known: {' '.join(VARIANTS)}")
    for name in names:
        start = time.time()
        pyro.set_rng_seed(0)
        pyro.clear_param_store()
        print(f"== {name}")
        VARIANTS[name]()
        print(f"[{name}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
