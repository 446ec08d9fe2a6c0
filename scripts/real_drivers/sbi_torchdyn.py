"""Driver of sbi and torchdyn (docs/real-programs.md): the installed ``sbi`` (0.27) and
``torchdyn`` (1.0.6) packages, used unchanged, train small models and print losses, samples'
checksums, log-probabilities and gradients at full precision.

Variants (each reseeds with ``torch.manual_seed``, so a subset prints what the full run prints
for it):

- ``npe``: NPE on a toy Gaussian simulator with a BoxUniform prior: MAF, NSF (nflows), MDN and
  zuko MAF density estimators, a few epochs each, ``build_posterior``, ``sample``,
  ``log_prob``, ``map``, a second (truncated-proposal) round, torch.save/load of the posterior.
- ``nle``: NLE (MAF) with an MCMC posterior (``slice_np_vectorized``), its ``log_prob`` and
  potential, and the likelihood estimator's ``log_prob``.
- ``nre``: NRE (NRE_B), NRE_A, NRE_C and BNRE classifiers, their potentials, a rejection
  posterior and an importance-sampling posterior.
- ``flowmatch``: ``simulate_for_sbi``, FMPE (flow matching) and NPSE (score-based) posteriors:
  training, ``sample`` (ODE / diffusion sampling) and FMPE's ``log_prob``.
- ``vi``: NLE with a variational posterior (``sample_with="vi"``, rKL, a MAF ``q``) trained
  for 20 iterations, its samples and ``log_prob``.
- ``ode``: torchdyn NeuralODE with rk4, euler, dopri5 and tsit5, ``autograd`` / ``adjoint`` /
  ``interpolated_adjoint`` sensitivities, gradients, ``trajectory``.
- ``augment``: Augmenter + NeuralODE + readout, DataControl, DepthCat, an Adam training loop
  on a toy dataset (ToyDataset moons), ``odeint`` of torchdyn.numerics, state_dict save/load.
- ``cnf``: torchdyn's CNF (Hutchinson and exact trace) in a NeuralODE, loss gradients.

    python scripts/shared_rng_run.py scripts/real_drivers/sbi_torchdyn.py [VARIANT ... | all]
    python -m jtorch scripts/shared_rng_run.py scripts/real_drivers/sbi_torchdyn.py [...]
"""

import io
import os
import sys
import time
import warnings

import numpy as np
import torch
from torch import nn

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import sbi  # noqa: E402
import torchdyn  # noqa: E402
from sbi.inference import BNRE, FMPE, NLE, NPE, NPSE, NRE, NRE_A, NRE_C, simulate_for_sbi  # noqa: E402
from sbi.neural_nets import classifier_nn, likelihood_nn, posterior_nn  # noqa: E402
from sbi.utils import BoxUniform  # noqa: E402
from torchdyn.core import NeuralODE  # noqa: E402
from torchdyn.datasets import ToyDataset  # noqa: E402
from torchdyn.models import CNF, hutch_trace  # noqa: E402
from torchdyn.nn import Augmenter, DataControl, DepthCat  # noqa: E402
from torchdyn.numerics import odeint  # noqa: E402

warnings.filterwarnings("ignore")

VARIANTS = {}
START = [time.time()]


def variant(name):
    def register(fn):
        VARIANTS[name] = fn
        return fn
    return register


def checksum(t):
    """Sum of magnitudes, a weighted sum (weights 1 to 2) and the largest magnitude, in
    float64."""
    t = t.detach().double().reshape(-1)
    w = torch.linspace(1, 2, t.numel(), dtype=torch.float64) if t.numel() > 1 else 1.0
    return (f"abssum {t.abs().sum().item()!r} wsum {(t * w).sum().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def grads(model):
    return " ".join(f"{n} {p.grad.double().abs().sum().item()!r}"
                    for n, p in model.named_parameters() if p.grad is not None)


def prior2():
    return BoxUniform(low=-2.0 * torch.ones(2), high=2.0 * torch.ones(2))


def simulator(theta):
    return theta + 0.3 * torch.randn_like(theta)


def simulate(prior, n):
    theta = prior.sample((n,))
    return theta, simulator(theta)


X_O = torch.tensor([[0.5, -0.3]])
TRAIN = {"max_num_epochs": 2, "training_batch_size": 50, "show_train_summary": False}


def summary(name, inference):
    print(f"[{name} trained: {time.time() - START[0]:.1f}s]", file=sys.stderr)
    s = inference.summary
    print(f"{name} epochs {s['epochs_trained']} train {s['training_loss']!r} "
          f"val {s['validation_loss']!r} best {s['best_validation_loss']!r}")


@variant("npe")
def npe():
    prior = prior2()
    theta, x = simulate(prior, 200)
    theta_t = torch.tensor([[0.4, -0.2], [1.0, 1.0], [-1.5, 0.3]])
    for model in ("maf", "nsf", "mdn", "zuko_maf"):
        torch.manual_seed(1)
        de = posterior_nn(model, hidden_features=10, num_transforms=2, num_components=3)
        inference = NPE(prior=prior, density_estimator=de, show_progress_bars=False)
        estimator = inference.append_simulations(theta, x).train(**TRAIN)
        summary(f"npe {model}", inference)
        posterior = inference.build_posterior(estimator)
        if model != "mdn":  # (MDN's rejection sampling compiles a kernel per batch size)
            samples = posterior.sample((200,), x=X_O, show_progress_bars=False)
            print(f"npe {model} samples {checksum(samples)} mean {samples.mean(0).tolist()!r}")
        lp = posterior.log_prob(theta_t, x=X_O)
        print(f"npe {model} log_prob {lp.tolist()!r}")
        lp_e = estimator.log_prob(theta_t.unsqueeze(0), condition=X_O.repeat(3, 1))
        print(f"npe {model} estimator log_prob {lp_e.reshape(-1).tolist()!r}")
        if model == "maf":
            theta_map = posterior.set_default_x(X_O).map(num_iter=10, num_init_samples=50,
                                      num_to_optimize=5, show_progress_bars=False)
            print(f"npe maf map {theta_map.reshape(-1).tolist()!r}")
            # second round: simulations from the posterior (atomic loss, APT)
            theta2 = posterior.sample((100,), x=X_O, show_progress_bars=False)
            x2 = simulator(theta2)
            estimator2 = inference.append_simulations(theta2, x2, proposal=posterior).train(
                num_atoms=5, **TRAIN)
            summary("npe maf round2", inference)
            post2 = inference.build_posterior(estimator2).set_default_x(X_O)
            print(f"npe maf round2 log_prob {post2.log_prob(theta_t).tolist()!r}")
            buf = io.BytesIO()
            torch.save(estimator2.state_dict(), buf)
            buf.seek(0)
            state = torch.load(buf)
            de2 = posterior_nn("maf", hidden_features=10, num_transforms=2)(theta, x)
            de2.load_state_dict(state)
            lp2 = de2.log_prob(theta_t.unsqueeze(0), condition=X_O.repeat(3, 1))
            print(f"npe maf reloaded log_prob {lp2.reshape(-1).tolist()!r}")


@variant("nle")
def nle():
    prior = prior2()
    theta, x = simulate(prior, 200)
    theta_t = torch.tensor([[0.4, -0.2], [1.0, 1.0]])
    de = likelihood_nn("maf", hidden_features=10, num_transforms=2)
    inference = NLE(prior=prior, density_estimator=de, show_progress_bars=False)
    estimator = inference.append_simulations(theta, x).train(**TRAIN)
    summary("nle maf", inference)
    lp = estimator.log_prob(X_O.repeat(2, 1).unsqueeze(0), condition=theta_t)
    print(f"nle likelihood log_prob {lp.reshape(-1).tolist()!r}")
    posterior = inference.build_posterior(
        mcmc_method="slice_np_vectorized",
        mcmc_parameters={"num_chains": 4, "warmup_steps": 10, "thin": 1,
                         "init_strategy": "proposal"})
    print(f"nle potential {posterior.potential(theta_t, x=X_O).tolist()!r}")
    np.random.seed(0)  # sbi's slice sampler draws from NumPy's global generator
    samples = posterior.sample((40,), x=X_O, show_progress_bars=False)
    print(f"nle mcmc samples {checksum(samples)}")


@variant("nre")
def nre():
    prior = prior2()
    theta, x = simulate(prior, 200)
    theta_t = torch.tensor([[0.4, -0.2], [1.0, 1.0], [-1.5, 0.3]])
    for name, cls in (("nre_b", NRE), ("nre_a", NRE_A), ("nre_c", NRE_C), ("bnre", BNRE)):
        torch.manual_seed(2)
        clf = classifier_nn("mlp", hidden_features=10)
        inference = cls(prior=prior, classifier=clf, show_progress_bars=False)
        estimator = inference.append_simulations(theta, x).train(**TRAIN)
        summary(name, inference)
        posterior = inference.build_posterior(sample_with="rejection") if name == "nre_b" \
            else inference.build_posterior(sample_with="importance") if name == "nre_a" \
            else inference.build_posterior(
                mcmc_method="slice_np_vectorized",
                mcmc_parameters={"num_chains": 2, "warmup_steps": 5, "init_strategy": "proposal"})
        print(f"{name} potential {posterior.potential(theta_t, x=X_O).tolist()!r}")
        logits = estimator(theta_t, X_O.repeat(3, 1))
        print(f"{name} logits {logits.reshape(-1).tolist()!r}")
        if name in ("nre_b", "nre_a"):
            samples = posterior.sample((30,), x=X_O, show_progress_bars=False)
            print(f"{name} samples {checksum(samples)}")


@variant("flowmatch")
def flowmatch():
    prior = prior2()
    theta, x = simulate_for_sbi(simulator, prior, 200, show_progress_bar=False)
    print(f"simulate_for_sbi theta {checksum(theta)} x {checksum(x)}")
    theta_t = torch.tensor([[0.4, -0.2], [1.0, 1.0]])
    torch.manual_seed(1)
    fmpe = FMPE(prior=prior, show_progress_bars=False)
    estimator = fmpe.append_simulations(theta, x).train(**TRAIN)
    summary("fmpe", fmpe)
    posterior = fmpe.build_posterior(estimator)
    print(f"fmpe samples {checksum(posterior.sample((20,), x=X_O, show_progress_bars=False))}")
    print(f"fmpe log_prob {posterior.log_prob(theta_t, x=X_O).tolist()!r}")
    torch.manual_seed(2)
    npse = NPSE(prior=prior, show_progress_bars=False)
    estimator = npse.append_simulations(theta, x).train(**TRAIN)
    summary("npse", npse)
    posterior = npse.build_posterior(estimator)
    samples = posterior.sample((20,), x=X_O, show_progress_bars=False, steps=20)
    print(f"npse samples {checksum(samples)}")


@variant("vi")
def vi():
    prior = prior2()
    theta, x = simulate(prior, 200)
    torch.manual_seed(3)
    de = likelihood_nn("maf", hidden_features=10, num_transforms=2)
    inference = NLE(prior=prior, density_estimator=de, show_progress_bars=False)
    inference.append_simulations(theta, x).train(**TRAIN)
    summary("vi nle", inference)
    posterior = inference.build_posterior(sample_with="vi", vi_method="rKL",
                                          vi_parameters={"q": "maf"})
    posterior.set_default_x(X_O)
    posterior.train(max_num_iters=20, n_particles=32, quality_control=False,
                    show_progress_bar=False)
    samples = posterior.sample((50,))
    print(f"vi samples {checksum(samples)} "
          f"log_prob {posterior.log_prob(torch.tensor([[0.4, -0.2], [1.0, 1.0]])).tolist()!r}")


def run_node(name, model, x, t_span):
    model.zero_grad()
    t_eval, traj = model(x, t_span)
    loss = traj[-1].pow(2).sum()
    loss.backward()
    print(f"{name} t {t_eval.tolist()!r} traj {checksum(traj)}")
    print(f"{name} loss {loss.item()!r} grads {grads(model)}")


@variant("ode")
def ode():
    x = torch.randn(8, 2)
    t_span = torch.linspace(0, 1, 5)
    for solver, sens, kw in (("rk4", "autograd", {}), ("euler", "autograd", {}),
                             ("dopri5", "autograd", {"atol": 1e-4, "rtol": 1e-4}),
                             ("tsit5", "autograd", {"atol": 1e-4, "rtol": 1e-4}),
                             ("rk4", "adjoint", {}),
                             ("dopri5", "adjoint", {"atol": 1e-4, "rtol": 1e-4,
                                                    "atol_adjoint": 1e-4,
                                                    "rtol_adjoint": 1e-4}),
                             ("rk4", "interpolated_adjoint", {})):
        torch.manual_seed(3)
        f = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 2))
        model = NeuralODE(f, solver=solver, sensitivity=sens, return_t_eval=True, **kw)
        run_node(f"node {solver} {sens}", model, x, t_span)
    torch.manual_seed(3)
    f = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 2))
    model = NeuralODE(f, solver="rk4")
    traj = model.trajectory(x, t_span)
    print(f"node trajectory {checksum(traj)}")


@variant("augment")
def augment():
    np.random.seed(0)  # the moons' noise is drawn from NumPy's global generator
    X, y = ToyDataset().generate(n_samples=64, dataset_type="moons", noise=0.1)
    X, y = X.float(), y.long()
    print(f"moons {checksum(X)} labels {int(y.sum())}")
    torch.manual_seed(4)
    f = nn.Sequential(DataControl(), nn.Linear(4 + 4, 16), nn.Tanh(), nn.Linear(16, 4))
    node = NeuralODE(f, solver="rk4", sensitivity="autograd")
    model = nn.Sequential(Augmenter(augment_dims=2), node, nn.Linear(4, 2))

    t_span = torch.linspace(0, 1, 4)
    node.t_span = t_span
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)

    def forward(inp):
        z = model[0](inp)
        _, traj = model[1](z, t_span)
        return model[2](traj[-1])

    for step in range(5):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(forward(X), y)
        loss.backward()
        opt.step()
        print(f"augment step {step} loss {loss.item()!r}")
    print(f"augment grads {grads(model)}")
    buf = io.BytesIO()
    torch.save(model.state_dict(), buf)
    buf.seek(0)
    model.load_state_dict(torch.load(buf))
    with torch.no_grad():
        print(f"augment reloaded logits {checksum(forward(X))}")

    torch.manual_seed(5)
    g = nn.Sequential(DepthCat(1), nn.Linear(3, 8), nn.Softplus(), nn.Linear(8, 2))
    node2 = NeuralODE(g, solver="dopri5", atol=1e-5, rtol=1e-5)
    t_eval, traj = node2(X, torch.linspace(0, 1, 3))
    print(f"depthcat dopri5 traj {checksum(traj)}")

    def vf(t, z):
        return torch.stack([z[..., 1], -z[..., 0] - 0.1 * z[..., 1]], -1)

    z0 = torch.tensor([[1.0, 0.0], [0.5, 0.5]], dtype=torch.float64)
    for solver in ("rk4", "dopri5", "tsit5", "ieuler"):
        kw = {"atol": 1e-8, "rtol": 1e-8} if solver in ("dopri5", "tsit5") else {}
        try:
            t_eval, sol = odeint(vf, z0, torch.linspace(0, 2, 11, dtype=torch.float64),
                                 solver=solver, **kw)
            print(f"odeint {solver} {checksum(sol)}")
        except Exception as e:  # some solvers need extra arguments: print the error either way
            print(f"odeint {solver} error {type(e).__name__}: {e}")


@variant("cnf")
def cnf():
    f = nn.Sequential(nn.Linear(2, 16), nn.Softplus(), nn.Linear(16, 2))
    x0 = torch.randn(8, 2)
    aug = Augmenter(augment_idx=1, augment_dims=1)
    for name, flow in (("hutchinson", CNF(f, trace_estimator=hutch_trace, noise_dist=torch.
                                          distributions.Normal(torch.zeros(2), torch.ones(2)))),
                       ("exact", CNF(f))):
        f.zero_grad()
        _, traj = NeuralODE(flow, solver="rk4")(aug(x0), torch.linspace(0, 1, 3))
        loss = traj[-1].pow(2).mean()
        loss.backward()
        print(f"cnf {name} traj {checksum(traj)} loss {loss.item()!r} grads {grads(f)}")


def main(argv):
    names = list(VARIANTS) if argv in ([], ["all"]) else argv
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"unknown variants {unknown}; known: {' '.join(VARIANTS)}")
    print(f"sbi {sbi.__version__} torchdyn {getattr(torchdyn, '__version__', '1.0.6')}")
    for name in names:
        start = START[0] = time.time()
        torch.manual_seed(0)
        print(f"== {name}")
        VARIANTS[name]()
        print(f"[{name}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
