"""Driver of BackPACK and laplace-torch (docs/real-programs.md): the installed packages,
unchanged, on tiny seeded float64 models and data. BackPACK: ``extend()`` on a small MLP
(Linear, ReLU/Sigmoid/Tanh, Dropout in eval) and a small CNN (Conv2d, MaxPool2d/AvgPool2d,
Flatten, Linear) with CrossEntropyLoss and MSELoss, every first-order extension (BatchGrad,
BatchL2Grad, Variance, SumGradSquared) and second-order one (DiagGGNExact, DiagGGNMC seeded,
KFAC seeded, KFLR, KFRA, DiagHessian, BatchDiagGGNExact), each parameter's quantities printed.
laplace-torch: ``Laplace`` with subset_of_weights "last_layer" and "all", hessian_structure
"diag", "kron" and "full" on the backpack and curvlinops backends, ``fit`` on a tiny
regression and a tiny classification DataLoader, ``optimize_prior_precision`` (marglik and
gridsearch), predictive means and variances (probit and seeded mc link approximations), the
log marginal likelihood and its gradient. Each result is printed as a checksum (sums and
largest magnitude) at full precision.

    python scripts/shared_rng_run.py drive_curvature.py [VARIANT ... | all]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_curvature.py [VARIANT ... | all]   # jtorch

Without arguments it runs every variant (``all`` too). Each variant reseeds
(``torch.manual_seed``), so a subset prints what the full run prints for it.
"""

import io
import os
import sys
import time
import types

import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

if "torchvision" not in sys.modules and torch is not sys.modules.get("jtorch"):
    # laplace imports torchvision. The CPU torch's torchvision wheel cannot load its C++
    # extension, whose fake/autograd kernel registrations then fail at import
    # (tests/vision_helpers.py): stand empty modules in.
    for _name in ("torchvision._meta_registrations", "torchvision._autograd_registrations"):
        sys.modules.setdefault(_name, types.ModuleType(_name))

import backpack  # noqa: E402
from backpack import extend, extensions  # noqa: E402
from laplace import Laplace  # noqa: E402
from laplace.curvature import BackPackEF, BackPackGGN  # noqa: E402
from torch import nn  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402

try:
    from laplace.curvature import CurvlinopsGGN  # noqa: E402
except ImportError:   # curvlinops not installed
    CurvlinopsGGN = None

torch.set_default_dtype(torch.float64)
N = 8

VARIANTS = {}


def variant(name):
    def register(build):
        VARIANTS[name] = build
        return build
    return register


def checksum(t):
    """The sum of the magnitudes, a weighted sum (weights 1 to 2 in a period of 7 elements) and
    the largest magnitude, in float64."""
    t = t.detach().double().flatten()
    if t.numel() == 0:
        return "empty"
    w = 1.0 + (torch.arange(t.numel(), dtype=torch.float64) % 7) / 6
    return (f"abssum {t.abs().sum().item()!r} wsum {(t * w).sum().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def mlp(act=nn.ReLU, out=3):
    return nn.Sequential(nn.Linear(5, 6), act(), nn.Dropout(0.3), nn.Linear(6, 4), act(),
                         nn.Linear(4, out)).eval()


def cnn(pool=nn.MaxPool2d, out=3):
    return nn.Sequential(nn.Conv2d(2, 3, 3, padding=1), nn.ReLU(), pool(2),
                         nn.Conv2d(3, 2, 3), nn.Sigmoid(), nn.Flatten(),
                         nn.Linear(2 * 2 * 2, out)).eval()


FIRST = ("BatchGrad", "BatchL2Grad", "Variance", "SumGradSquared")
SECOND = ("DiagGGNExact", "DiagGGNMC", "KFAC", "KFLR", "KFRA", "DiagHessian",
          "BatchDiagGGNExact")
ATTR = {"BatchGrad": "grad_batch", "BatchL2Grad": "batch_l2", "Variance": "variance",
        "SumGradSquared": "sum_grad_squared", "DiagGGNExact": "diag_ggn_exact",
        "DiagGGNMC": "diag_ggn_mc", "KFAC": "kfac", "KFLR": "kflr", "KFRA": "kfra",
        "DiagHessian": "diag_h", "BatchDiagGGNExact": "diag_ggn_exact_batch"}


def run_backpack(model, lossfunc, x, y, names):
    model = extend(model)
    lossfunc = extend(lossfunc)
    out = []
    for name in names:
        torch.manual_seed(1)
        model.zero_grad()
        loss = lossfunc(model(x), y)
        with backpack.backpack(getattr(extensions, name)()):
            loss.backward()
        out.append((f"{name} loss", loss))
        for pname, p in model.named_parameters():
            out.append((f"{name} {pname} grad", p.grad))
            q = getattr(p, ATTR[name])
            for i, t in enumerate(q if isinstance(q, list) else [q]):
                out.append((f"{name} {pname} {ATTR[name]}[{i}]", t))
            delattr(p, ATTR[name])
    return out


def cls_data(shape, classes=3):
    return torch.randn(N, *shape), torch.randint(0, classes, (N,))


@variant("bp_mlp_ce")
def _():
    x, y = cls_data((5,))
    return run_backpack(mlp(), nn.CrossEntropyLoss(), x, y, FIRST + SECOND)


@variant("bp_mlp_mse")
def _():
    x = torch.randn(N, 5)
    y = torch.randn(N, 2)
    return (run_backpack(mlp(nn.Sigmoid, 2), nn.MSELoss(), x, y, FIRST + SECOND)
            + run_backpack(mlp(nn.Tanh, 2), nn.MSELoss(reduction="sum"), x, y,
                           ("BatchGrad", "DiagHessian", "KFRA")))


@variant("bp_cnn_ce")
def _():
    x, y = cls_data((2, 8, 8))
    return run_backpack(cnn(), nn.CrossEntropyLoss(), x, y, FIRST + SECOND)


@variant("bp_cnn_avg_mse")
def _():
    x = torch.randn(N, 2, 8, 8)
    y = torch.randn(N, 2)
    return run_backpack(cnn(nn.AvgPool2d, 2), nn.MSELoss(), x, y,
                        ("BatchGrad", "SumGradSquared", "DiagGGNExact", "KFLR",
                         "BatchDiagGGNExact"))


def regression_loader():
    x = torch.linspace(-2, 2, 16).unsqueeze(-1)
    y = torch.sin(2 * x) + 0.1 * torch.randn_like(x)
    return DataLoader(TensorDataset(x, y), batch_size=8), x


def classification_loader():
    x = torch.randn(16, 4)
    y = (x[:, 0] + x[:, 1] > 0).long() + (x[:, 2] > 0.5).long()
    return DataLoader(TensorDataset(x, y), batch_size=8), x


def train(model, loader, lossfunc, steps=20):
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    for _ in range(steps):
        for xb, yb in loader:
            opt.zero_grad()
            lossfunc(model(xb), yb).backward()
            opt.step()
    return model


def laplace_cases(la, x, tag, likelihood):
    out = [(f"{tag} H", la.H if torch.is_tensor(la.H) else la.H.to_matrix()),
           (f"{tag} loss", torch.as_tensor(la.loss)),
           (f"{tag} log_marglik", la.log_marginal_likelihood())]
    prior = torch.tensor(0.7, requires_grad=True)
    sigma = torch.tensor(0.3, requires_grad=True)
    if likelihood == "regression":
        lml = la.log_marginal_likelihood(prior, sigma)
        gp, gs = torch.autograd.grad(lml, [prior, sigma])
        out += [(f"{tag} lml(0.7,0.3)", lml), (f"{tag} dlml/dprior", gp),
                (f"{tag} dlml/dsigma", gs)]
        mean, var = la(x, pred_type="glm")
        out += [(f"{tag} glm mean", mean), (f"{tag} glm var", var)]
        torch.manual_seed(3)
        samples = la.predictive_samples(x[:4], pred_type="glm", n_samples=5)
        out.append((f"{tag} samples", samples))
    else:
        lml = la.log_marginal_likelihood(prior)
        (gp,) = torch.autograd.grad(lml, [prior])
        out += [(f"{tag} lml(0.7)", lml), (f"{tag} dlml/dprior", gp)]
        out.append((f"{tag} probit", la(x, link_approx="probit")))
        torch.manual_seed(3)
        out.append((f"{tag} mc", la(x, link_approx="mc", n_samples=10)))
    out.append((f"{tag} posterior_precision",
                la.posterior_precision if torch.is_tensor(la.posterior_precision)
                else la.posterior_precision.to_matrix()))
    return out


def laplace_fits(likelihood, backends):
    torch.manual_seed(0)
    if likelihood == "regression":
        loader, x = regression_loader()
        model = train(nn.Sequential(nn.Linear(1, 8), nn.Tanh(), nn.Linear(8, 1)), loader,
                      nn.MSELoss())
    else:
        loader, x = classification_loader()
        model = train(nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 3)), loader,
                      nn.CrossEntropyLoss())
    out = []
    for bname, backend in backends:
        for subset in ("last_layer", "all"):
            for structure in ("diag", "kron", "full"):
                tag = f"{bname} {subset} {structure}"
                la = Laplace(model, likelihood, subset_of_weights=subset,
                             hessian_structure=structure, backend=backend)
                try:
                    la.fit(loader)
                except NotImplementedError as e:   # BackPackEF has no kron
                    out.append((f"{tag} fit", f"NotImplementedError {e}"))
                    continue
                out += laplace_cases(la, x, tag, likelihood)
    return out, model, loader, x


def backends():
    out = [("BackPackGGN", BackPackGGN), ("BackPackEF", BackPackEF)]
    if CurvlinopsGGN is not None:
        out.append(("CurvlinopsGGN", CurvlinopsGGN))
    return out


@variant("la_regression")
def _():
    return laplace_fits("regression", backends())[0]


@variant("la_classification")
def _():
    return laplace_fits("classification", backends())[0]


@variant("la_prior")
def _():
    out = []
    for likelihood in ("regression", "classification"):
        _, model, loader, x = laplace_fits(likelihood, [])
        for structure in ("diag", "kron"):
            la = Laplace(model, likelihood, subset_of_weights="last_layer",
                         hessian_structure=structure, backend=BackPackGGN)
            la.fit(loader)
            la.optimize_prior_precision(method="marglik", n_steps=30, lr=0.1)
            tag = f"{likelihood} {structure}"
            out += [(f"{tag} marglik prior", la.prior_precision),
                    (f"{tag} marglik lml", la.log_marginal_likelihood())]
            if likelihood == "regression":
                out.append((f"{tag} marglik sigma", la.sigma_noise))
            la = Laplace(model, likelihood, subset_of_weights="last_layer",
                         hessian_structure=structure, backend=BackPackGGN)
            la.fit(loader)
            la.optimize_prior_precision(method="gridsearch", val_loader=loader,
                                        grid_size=8, log_prior_prec_min=-2,
                                        log_prior_prec_max=2, progress_bar=False)
            out += [(f"{tag} grid prior", la.prior_precision),
                    (f"{tag} grid lml", la.log_marginal_likelihood())]
    return out


@variant("la_extra")
def _():
    """``state_dict`` save/load through torch.save, sampled ("nn") predictives, the
    posterior covariance/scale and a BackPACK-extended training step."""
    out = []
    _, model, loader, x = laplace_fits("classification", [])
    for structure in ("diag", "kron", "full"):
        la = Laplace(model, "classification", subset_of_weights="all",
                     hessian_structure=structure, backend=BackPackGGN)
        la.fit(loader)
        buf = io.BytesIO()
        torch.save(la.state_dict(), buf)
        buf.seek(0)
        la2 = Laplace(model, "classification", subset_of_weights="all",
                      hessian_structure=structure, backend=BackPackGGN)
        la2.load_state_dict(torch.load(buf))
        tag = f"all {structure}"
        out += [(f"{tag} loaded lml", la2.log_marginal_likelihood()),
                (f"{tag} loaded probit", la2(x[:4], link_approx="probit"))]
        torch.manual_seed(5)
        out.append((f"{tag} nn mc", la(x[:4], pred_type="nn", link_approx="mc",
                                        n_samples=6)))
        torch.manual_seed(6)
        out.append((f"{tag} sample", la.sample(3)))
        if structure != "kron":
            out.append((f"{tag} posterior_covariance" if structure == "full"
                        else f"{tag} posterior_variance",
                        la.posterior_covariance if structure == "full"
                        else la.posterior_variance))
    # a training step whose update uses BackPACK's per-sample gradient norms (clipping)
    net = extend(nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 3)))
    lossfunc = extend(nn.CrossEntropyLoss(reduction="sum"))
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for step, (xb, yb) in enumerate(loader):
        opt.zero_grad()
        loss = lossfunc(net(xb), yb)
        with backpack.backpack(extensions.BatchL2Grad(), extensions.BatchGrad()):
            loss.backward()
        norms = sum(p.batch_l2 for p in net.parameters()).sqrt()
        scale = (1.0 / norms).clamp(max=1.0)
        for p in net.parameters():
            p.grad = torch.einsum("n,n...->...", scale, p.grad_batch)
        opt.step()
        out += [(f"clip step {step} loss", loss), (f"clip step {step} norms", norms)]
    out += [(f"clipped {n}", p) for n, p in net.named_parameters()]
    return out


def show(name, label, value):
    if isinstance(value, torch.Tensor):
        print(f"{name} {label} {list(value.shape)} {value.dtype} {checksum(value)}")
    elif isinstance(value, tuple):
        for i, v in enumerate(value):
            show(name, f"{label}[{i}]", v)
    else:
        print(f"{name} {label} {value}")


def run(name):
    torch.manual_seed(0)
    print(f"== {name}")
    for label, value in VARIANTS[name]():
        show(name, label, value)


def main(argv):
    names = list(VARIANTS) if argv in ([], ["all"]) else argv
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"unknown variants {unknown}; known: {' '.join(VARIANTS)}")
    for name in names:
        start = time.time()
        run(name)
        print(f"[{name}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
