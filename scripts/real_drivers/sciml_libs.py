"""Driver of three scientific-ML libraries (docs/real-programs.md), the installed packages
unchanged, in float64 where they allow it:

- neuraloperator 2.0 (``neuralop``): FNO and TFNO in 1-D and 2-D, SpectralConv in 1-3-D with
  complex weights over ``torch.fft.rfftn``/``irfftn``, Tucker and CP factorized weights through
  tensorly, UNO, LpLoss and H1Loss, Adam steps on a synthetic Darcy-like problem and the
  model's checkpoint save/load. It runs in float32: its SpectralConv makes its weights and its
  spectrum buffer ``torch.cfloat`` whatever the input's dtype;
- POT 0.9.7 (``ot`` on torch tensors): ``ot.dist``, exact EMD, Sinkhorn (plain, log-domain,
  stabilized), unbalanced Sinkhorn, Gromov-Wasserstein (exact and entropic), sliced Wasserstein
  with a seeded projection, and the gradients of these losses with respect to the point
  positions and the weights;
- torchquad 0.6: Trapezoid, Simpson, Boole, GaussLegendre, seeded MonteCarlo and VEGAS over
  1-3-D integrands, and the gradient of an integral with respect to a parameter of the
  integrand and to the integration domain.

Each result prints as a checksum at full precision.

    python scripts/shared_rng_run.py drive_sciml.py [VARIANT ... | all]             # real PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_sciml.py [VARIANT ... | all]   # jtorch

Without arguments it runs every variant; each reseeds (``torch.manual_seed``), so a subset
prints what the full run prints for it.
"""

import os
import sys
import tempfile
import time

import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import ot  # noqa: E402
import torchquad  # noqa: E402
from neuralop.layers.spectral_convolution import SpectralConv  # noqa: E402
from neuralop.losses import H1Loss, LpLoss  # noqa: E402
from neuralop.models import FNO, TFNO, UNO  # noqa: E402

torch.set_default_dtype(torch.float64)
torchquad.set_up_backend("torch", data_type="float64")
torchquad.set_log_level("ERROR")

VARIANTS = {}


def variant(name, dtype=torch.float64):
    def register(build):
        VARIANTS[name] = (build, dtype)
        return build
    return register


neuralop_variant = lambda name: variant(name, torch.float32)  # noqa: E731


def checksum(t):
    """Sum of magnitudes, a weighted sum (weights 1 to 2, period 7) and the largest magnitude."""
    t = torch.as_tensor(t).detach()
    if t.is_complex():
        t = torch.view_as_real(t)
    t = t.double().flatten()
    w = 1.0 + (torch.arange(t.numel(), dtype=torch.float64) % 7) / 6
    return (f"abssum {t.abs().sum().item()!r} wsum {(t * w).sum().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def grads_of(model):
    return torch.cat([p.grad.flatten() if not p.grad.is_complex()
                      else torch.view_as_real(p.grad).flatten()
                      for p in model.parameters() if p.grad is not None])


# ------------------------------------------------------------------------ neuraloperator

def darcy(n, size):
    """A Darcy-like pair: a smooth random coefficient field and a smoothed response."""
    a = torch.rand(n, 1, size, size)
    a = 1.0 + (a + a.roll(1, -1) + a.roll(1, -2) + a.roll(-1, -1)) / 4
    u = torch.fft.irfft2(torch.fft.rfft2(1.0 / a) / (1 + torch.arange(size // 2 + 1)) ** 2,
                         s=(size, size))
    return a, u


def train(model, x, y, steps, loss_fn, lr=3e-3):
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    out = []
    for step in range(steps):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        if step == 0:
            out.append(("grad0", grads_of(model)))
        opt.step()
        out.append((f"loss{step}", repr(loss.item())))
    return out


@neuralop_variant("spectral_conv")
def _():
    out = []
    for dims, modes in ((1, (5,)), (2, (4, 6)), (3, (3, 3, 4))):
        conv = SpectralConv(3, 2, n_modes=modes)
        x = torch.randn(2, 3, *([8] * dims), requires_grad=True)
        y = conv(x)
        (y ** 2).sum().backward()
        out += [(f"conv{dims}d", y), (f"conv{dims}d_xgrad", x.grad),
                (f"conv{dims}d_wgrad", grads_of(conv))]
    return out


@neuralop_variant("fno1d")
def _():
    model = FNO(n_modes=(6,), in_channels=1, out_channels=1, hidden_channels=8, n_layers=2)
    x = torch.randn(4, 1, 32)
    y = torch.cumsum(x, -1) / 32
    out = [("params", repr(sum(p.numel() for p in model.parameters())))]
    out.append(("out", model(x)))
    return out + train(model, x, y, 3, LpLoss(d=1, p=2))


@neuralop_variant("fno2d_darcy")
def _():
    a, u = darcy(4, 16)
    model = FNO(n_modes=(6, 6), in_channels=1, out_channels=1, hidden_channels=8, n_layers=2)
    out = [("out", model(a))]
    out += train(model, a, u, 4, LpLoss(d=2, p=2))
    h1 = H1Loss(d=2)
    out.append(("h1", repr(h1(model(a), u).item())))
    with tempfile.TemporaryDirectory() as folder:
        model.save_checkpoint(folder, "fno")
        again = FNO.from_checkpoint(folder, "fno")
    out.append(("reloaded_diff", repr((again(a) - model(a)).abs().max().item())))
    return out


@neuralop_variant("tfno")
def _():
    out = []
    a, u = darcy(3, 16)
    for fact in ("tucker", "cp", "dense"):
        model = TFNO(n_modes=(5, 5), in_channels=1, out_channels=1, hidden_channels=6,
                     n_layers=2, factorization=fact, rank=0.5)
        out.append((f"{fact}_out", model(a)))
        out += [(f"{fact}_{k}", v) for k, v in train(model, a, u, 2, LpLoss(d=2, p=2))]
    model = TFNO(n_modes=(6,), in_channels=2, out_channels=1, hidden_channels=6, n_layers=1,
                 factorization="tucker", rank=0.4)
    x = torch.randn(3, 2, 24)
    out.append(("tucker1d_out", model(x)))
    return out


@neuralop_variant("uno")
def _():
    a, u = darcy(2, 16)
    model = UNO(in_channels=1, out_channels=1, hidden_channels=6, lifting_channels=8,
                projection_channels=8, n_layers=3, uno_out_channels=[6, 8, 6],
                channel_mlp_skip="linear",
                uno_n_modes=[[4, 4], [3, 3], [4, 4]], uno_scalings=[[1.0, 1.0], [0.5, 0.5],
                                                                    [2.0, 2.0]])
    out = [("out", model(a))]
    return out + train(model, a, u, 2, H1Loss(d=2))


@neuralop_variant("losses")
def _():
    x = torch.randn(3, 1, 12, 10, requires_grad=True)
    y = torch.randn(3, 1, 12, 10)
    out = []
    for name, fn in (("l2", LpLoss(d=2, p=2)), ("l1", LpLoss(d=2, p=1, reduction="mean")),
                     ("h1", H1Loss(d=2)), ("h1_np", H1Loss(d=2, periodic_in_x=False,
                                                           periodic_in_y=False))):
        x.grad = None
        loss = fn(x, y)
        loss.backward()
        out += [(name, repr(loss.item())), (f"{name}_grad", x.grad)]
    return out


# ------------------------------------------------------------------------ POT

def clouds(n=12, m=9, d=2):
    xs = torch.randn(n, d, requires_grad=True)
    xt = (torch.randn(m, d) + 1.0).requires_grad_()
    a = torch.rand(n) + 0.5
    b = torch.rand(m) + 0.5
    a = (a / a.sum()).requires_grad_()
    b = b / b.sum()
    return xs, xt, a, b


@variant("ot_emd")
def _():
    xs, xt, a, b = clouds()
    M = ot.dist(xs, xt)
    out = [("dist", M), ("dist_euclid", ot.dist(xs, xt, metric="euclidean"))]
    w = ot.emd2(a, b, M)
    w.backward()
    out += [("emd2", repr(w.item())), ("emd2_xs_grad", xs.grad), ("emd2_a_grad", a.grad)]
    G = ot.emd(a.detach(), b, M.detach())
    out.append(("emd_plan", G))
    out.append(("emd1d", repr(ot.wasserstein_1d(xs[:, 0].detach(), xt[:, 0].detach(),
                                                  a.detach(), b, p=2).item())))
    return out


@variant("ot_sinkhorn")
def _():
    out = []
    for method in ("sinkhorn", "sinkhorn_log", "sinkhorn_stabilized"):
        xs, xt, a, b = clouds()
        M = ot.dist(xs, xt)
        P = ot.sinkhorn(a, b, M, reg=0.5, method=method, numItermax=200)
        w = ot.sinkhorn2(a, b, M, reg=0.5, method=method, numItermax=200)
        w.backward()
        out += [(f"{method}_plan", P), (f"{method}_2", repr(w.item())),
                (f"{method}_xs_grad", xs.grad), (f"{method}_xt_grad", xt.grad),
                (f"{method}_a_grad", a.grad)]
    xs, xt, a, b = clouds()
    M = ot.dist(xs, xt)
    P = ot.unbalanced.sinkhorn_unbalanced(a, b, M, reg=0.3, reg_m=1.0)
    loss = (P * M).sum()
    loss.backward()
    out += [("unbalanced", P), ("unbalanced_xs_grad", xs.grad)]
    w = ot.unbalanced.sinkhorn_unbalanced2(a.detach(), b, M.detach(), reg=0.3, reg_m=1.0,
                                           method="sinkhorn_stabilized")
    out.append(("unbalanced2_stab", repr(w.item())))
    return out


@variant("ot_gromov_sliced")
def _():
    xs, xt, a, b = clouds(8, 7)
    C1 = ot.dist(xs, xs)
    C2 = ot.dist(xt, xt)
    C1 = C1 / C1.max()
    C2 = C2 / C2.max()
    gw = ot.gromov.gromov_wasserstein2(C1, C2, a, b)
    gw.backward()
    out = [("gw2", repr(gw.item())), ("gw2_xs_grad", xs.grad), ("gw2_a_grad", a.grad)]
    egw = ot.gromov.entropic_gromov_wasserstein2(C1.detach(), C2.detach(), a.detach(), b,
                                                 epsilon=0.1, max_iter=50)
    out.append(("egw2", repr(egw.item())))
    xs, xt, a, b = clouds(20, 16, 3)
    sw = ot.sliced_wasserstein_distance(xs, xt, a.detach(), b, n_projections=25, seed=3)
    sw.backward()
    out += [("sliced", repr(sw.item())), ("sliced_xs_grad", xs.grad)]
    projs = ot.sliced.get_random_projections(3, 6, seed=torch.Generator().manual_seed(1),
                                             backend=ot.backend.TorchBackend(),
                                             type_as=xs)
    out.append(("projections", projs))
    return out


# ------------------------------------------------------------------------ torchquad

def f1(x):
    return torch.sin(3 * x[:, 0]) * torch.exp(-x[:, 0])


def f3(x):
    return torch.exp(-(x ** 2).sum(1)) * (1 + x[:, 0] * x[:, 1])


@variant("quad_grid")
def _():
    out = []
    for cls in (torchquad.Trapezoid, torchquad.Simpson, torchquad.Boole,
                torchquad.GaussLegendre):
        q = cls()
        out.append((f"{cls.__name__}_1d", repr(q.integrate(f1, 1, N=101,
                                                          integration_domain=[[0, 2]]).item())))
        out.append((f"{cls.__name__}_2d", repr(q.integrate(
            lambda x: torch.cos(x[:, 0] * x[:, 1]), 2, N=33 ** 2,
            integration_domain=[[0, 1], [-1, 2]]).item())))
        out.append((f"{cls.__name__}_3d", repr(q.integrate(
            f3, 3, N=17 ** 3, integration_domain=[[-1, 1]] * 3).item())))
    return out


@variant("quad_grad")
def _():
    out = []
    for cls in (torchquad.Simpson, torchquad.GaussLegendre, torchquad.Trapezoid):
        k = torch.tensor(1.3, requires_grad=True)
        dom = torch.tensor([[0.0, 1.0], [0.0, 2.0]], requires_grad=True)
        val = cls().integrate(lambda x, k=k: torch.exp(-k * x[:, 0]) * torch.sin(k * x[:, 1]),
                              2, N=21 ** 2, integration_domain=dom)
        val.backward()
        out += [(f"{cls.__name__}", repr(val.item())), (f"{cls.__name__}_dk", k.grad),
                (f"{cls.__name__}_ddomain", dom.grad)]
    return out


@variant("quad_mc")
def _():
    out = []
    mc = torchquad.MonteCarlo()
    out.append(("mc_1d", repr(mc.integrate(f1, 1, N=2000, integration_domain=[[0, 2]],
                                           seed=7).item())))
    k = torch.tensor(0.7, requires_grad=True)
    val = mc.integrate(lambda x: torch.exp(-k * (x ** 2).sum(1)), 3, N=4000,
                       integration_domain=[[-1, 1]] * 3, seed=11)
    val.backward()
    out += [("mc_3d", repr(val.item())), ("mc_3d_dk", k.grad)]
    vegas = torchquad.VEGAS()
    v = vegas.integrate(f3, 3, N=6000, integration_domain=[[-1, 1]] * 3, seed=5,
                        max_iterations=4)
    out.append(("vegas_3d", repr(float(v))))
    return out


def main(argv):
    names = [a for a in argv if a != "all"] or list(VARIANTS)
    for name in names:
        build, dtype = VARIANTS[name]
        torch.set_default_dtype(dtype)
        torch.manual_seed(0)
        t0 = time.time()
        for label, value in build():
            text = value if isinstance(value, str) else checksum(value)
            print(f"{name} {label} {text}", flush=True)
        print(f"# {name} took {time.time() - t0:.1f}s", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
