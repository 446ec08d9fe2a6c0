"""Driver of three differential-equation and optimal-transport libraries (docs/real-programs.md):
torchsde (0.2.6), torchcde (0.2.5) and geomloss (0.3.1), installed and used unchanged, at tiny
sizes (batch 3, state 2-3), in float64 (and float32 in one variant), printing every value and
checksum at full precision.

Variants (each reseeds with ``torch.manual_seed``, so a subset prints what the full run prints
for it):

- ``sde_brownian``: BrownianInterval (space-time, Davie and Foster Levy areas, halfway tree),
  BrownianPath and BrownianTree with fixed entropy: increments, Levy areas, the same query twice
  and in another order, a reversed interval; ``brownian_interval_like``.
- ``sde_ito`` / ``sde_strat``: a small SDE with diagonal, scalar, additive and general noise,
  solved by every method torchsde allows for it (euler, milstein and its grad-free form, srk,
  heun, euler_heun, midpoint, reversible_heun, log_ode), on the output grid, with
  ``extra=True``/``extra_solver_state``, ``logqp`` and ``names``; adaptive euler/milstein/srk.
- ``sde_adjoint``: ``sdeint_adjoint`` gradients of a neural SDE, against backpropagation
  through the solver (euler, milstein, midpoint, reversible_heun with its adjoint).
- ``sde_latent``: a tiny latent SDE (posterior drift with a context, prior drift, diagonal
  diffusion, ``logqp=True``), three Adam steps of its ELBO, and prior samples.
- ``sde_more``: an SDE given by ``f_and_g``/``g_prod``, ``sdeint_adjoint`` with ``logqp`` and
  ``adjoint_params`` against backpropagation, ReverseBrownian, a state_dict round trip.
- ``cde_interp``: natural cubic, Hermite cubic (backward differences) and linear interpolation
  coefficients of data with NaNs and irregular times; CubicSpline and LinearInterpolation
  ``evaluate``/``derivative`` inside and outside the knots, ``grid_points``, ``interval``,
  rectilinear linear interpolation; gradients through the coefficients.
- ``cde_train``: a small neural CDE (``cdeint`` with rk4, dopri5 and the adjoint, a
  ``TupleControl``), three Adam steps of a classifier on fixed spirals.
- ``cde_more``: a linear-interpolation CDE by dopri5 with ``jump_t``, torchcde's torchsde
  backend (euler_heun, midpoint and reversible_heun with their adjoints), a state_dict round
  trip, training from a shuffling DataLoader of coefficients.
- ``sde_gan``: a tiny run of torchsde's examples/sde_gan.py (a neural-SDE generator by
  reversible Heun and its adjoint, a neural-CDE discriminator through torchcde's torchsde
  backend, Adadelta steps with weight clipping, swa_utils.AveragedModel).
- ``ot_losses``: SamplesLoss ``sinkhorn`` (p=1 and 2, debias on and off, blurs, scaling,
  reach for unbalanced OT, diameter, weights, potentials, a custom cost), ``energy``,
  ``gaussian``, ``laplacian``, batched, all on the tensorized backend, with gradients with
  respect to the positions and the weights; ``geomloss.ot.solve_sample``.
- ``ot_flow``: gradient flow of a point cloud toward a target (SGD on the positions through the
  Sinkhorn divergence).
- ``ot_more``: 1-D, 3-D and 40-point clouds; ``geomloss.ot.solve`` (balanced and unbalanced:
  value, plan, potentials, marginals), ``solve_batch``, ``solve_sample`` with ``debias`` and
  its gradient, and unbalanced; Hessian-vector products (double backward) of the losses.
- ``float32``: the same calls on float32 data, printing the dtypes they return.

Not run: torchcde's log-ODE method (``logsig_windows`` needs ``signatory``, not installed: that
is printed), geomloss's ``hausdorff`` loss on the tensorized backend (geomloss 0.3.1 raises
KeyError there, in PyTorch too) and ``ImagesBarycenter`` (it needs pykeops).

    python scripts/shared_rng_run.py sde_cde_ot.py [VARIANT ... | all]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py sde_cde_ot.py [VARIANT ... | all]   # jtorch
"""

import io
import math
import os
import sys
import time

import numpy as np
import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import geomloss  # noqa: E402
import geomloss.ot  # noqa: E402
import torchcde  # noqa: E402
import torchsde  # noqa: E402

VARIANTS = {}
F64 = torch.float64


def variant(name):
    def register(fn):
        VARIANTS[name] = fn
        return fn
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


def show(label, value):
    if isinstance(value, torch.Tensor):
        print(f"  {label} {list(value.shape)} {checksum(value)}")
    elif isinstance(value, (tuple, list)):
        for i, v in enumerate(value):
            show(f"{label}[{i}]", v)
    else:
        print(f"  {label} {value!r}")


def points(n, features, phase=0.3, scale=1.0):
    """Fixed points (not drawn), computed by Python's math so both frameworks see the same
    bits."""
    size = n * features
    return torch.tensor([math.sin(i * 0.7 + phase) * scale * (1.0 + i / size)
                         for i in range(size)], dtype=F64).view(n, features)


def grads(module):
    gs = [p.grad.flatten() for p in module.parameters() if p.grad is not None]
    return torch.cat(gs) if gs else torch.zeros(1)


def mlp(i, h, o, final=None):
    layers = [torch.nn.Linear(i, h), torch.nn.Tanh(), torch.nn.Linear(h, o)]
    if final is not None:
        layers.append(final)
    return torch.nn.Sequential(*layers).to(F64)


# --------------------------------------------------------------------------------- torchsde

@variant("sde_brownian")
def _():
    t0, t1 = 0.0, 1.0
    for levy in ("none", "space-time", "davie", "foster"):
        bm = torchsde.BrownianInterval(t0, t1, size=(3, 2), dtype=F64, entropy=7,
                                       levy_area_approximation=levy)
        w = bm(0.2, 0.7)
        show(f"interval {levy} W(0.2,0.7)", w)
        again = bm(0.2, 0.7)
        print(f"  interval {levy} same query equal {bool((again == w).all())}")
        show(f"interval {levy} W(0.25)", bm(0.25))
        if levy != "none":
            out = bm(0.1, 0.9, return_U=True, return_A=(levy in ("davie", "foster")))
            show(f"interval {levy} (W, U[, A])", list(out))
        steps = [bm(0.1 * i, 0.1 * (i + 1)) for i in range(10)]
        total = torch.stack(steps).sum(0)
        show(f"interval {levy} sum of 10 increments", total)
        print(f"  interval {levy} additive within 1e-12 "
              f"{bool((total - bm(0.0, 1.0)).abs().max() < 1e-12)}")
    half = torchsde.BrownianInterval(t0, t1, size=(2, 3), dtype=F64, entropy=11,
                                     halfway_tree=True, tol=1e-6, cache_size=None)
    show("halfway_tree W(0.3,0.6)", half(0.3, 0.6))
    other = torchsde.BrownianInterval(t0, t1, size=(2, 3), dtype=F64, entropy=11,
                                      halfway_tree=True, tol=1e-6)
    show("halfway_tree other order W(0.6,0.9)", other(0.6, 0.9))
    show("halfway_tree other order W(0.3,0.6)", other(0.3, 0.6))
    like = torchsde.brownian_interval_like(torch.zeros(3, 2, dtype=F64), t0=0.0, t1=2.0,
                                           entropy=3)
    show("brownian_interval_like W(0.5,1.5)", like(0.5, 1.5))
    rev = torchsde.BrownianInterval(-1.0, 0.5, size=(4,), dtype=F64, entropy=5)
    show("interval negative times W(-0.5,0.25)", rev(-0.5, 0.25))
    np.random.seed(13)  # BrownianPath (and sdeint without a bm) take their entropy from NumPy
    path = torchsde.BrownianPath(t0=0.0, w0=torch.zeros(3, 2, dtype=F64))
    show("BrownianPath W(0.4,0.9)", path(0.4, 0.9))
    show("BrownianPath W(0.4,0.9) again", path(0.4, 0.9))
    tree = torchsde.BrownianTree(t0=0.0, w0=torch.zeros(3, 2, dtype=F64), t1=1.0, entropy=17)
    show("BrownianTree W(0.33,0.66)", tree(0.33, 0.66))
    show("BrownianTree W(0.5)", tree(0.5))
    print(f"  repr {type(bm).__name__} shape {tuple(bm.shape)} dtype {bm.dtype}")


class ToySDE(torch.nn.Module):
    """dy = a * sin(y) + b dt + noise: diagonal (sigma * cos(y)), scalar, additive or general
    noise (a 2-column matrix)."""

    def __init__(self, noise_type, sde_type, d=2):
        super().__init__()
        self.noise_type, self.sde_type = noise_type, sde_type
        self.a = torch.nn.Parameter(torch.tensor([0.5, -0.3, 0.2][:d], dtype=F64))
        self.b = torch.nn.Parameter(torch.tensor([0.1, 0.2, -0.1][:d], dtype=F64))
        self.s = torch.nn.Parameter(torch.tensor([0.3, 0.4, 0.25][:d], dtype=F64))
        self.m = torch.nn.Parameter(torch.tensor([[0.3, -0.1], [0.2, 0.25], [0.1, 0.05]][:d],
                                                 dtype=F64))

    def f(self, t, y):
        return self.a * torch.sin(y) + self.b * torch.cos(t)

    def g(self, t, y):
        if self.noise_type == "diagonal":
            return self.s * torch.cos(y) + 0.1
        if self.noise_type == "scalar":
            return (self.s * torch.cos(y)).unsqueeze(-1)
        if self.noise_type == "additive":
            return self.m.expand(y.size(0), -1, -1) * (1 + 0.1 * t)
        return self.m * torch.tanh(y).unsqueeze(-1) + 0.05


def noise_size(noise_type):
    return 2 if noise_type in ("additive", "general") else (1 if noise_type == "scalar" else None)


def solve_lines(label, sde, method, d=2, adaptive=False, **kw):
    y0 = points(3, d, 0.1, 0.5)
    ts = torch.tensor([0.0, 0.3, 0.7, 1.0], dtype=F64)
    m = noise_size(sde.noise_type) or d
    bm = torchsde.BrownianInterval(0.0, 1.0, size=(3, m), dtype=F64, entropy=21,
                                   levy_area_approximation="foster")
    ys = torchsde.sdeint(sde, y0, ts, bm=bm, method=method, dt=0.05, adaptive=adaptive,
                         rtol=1e-3, atol=1e-4, **kw)
    show(f"{label} ys", ys)
    ys[-1].pow(2).sum().backward()
    show(f"{label} grads", grads(sde))
    sde.zero_grad()


@variant("sde_ito")
def _():
    table = {"diagonal": ("euler", "milstein", "srk"), "scalar": ("euler", "milstein", "srk"),
             "additive": ("euler", "milstein", "srk"), "general": ("euler",)}
    for noise, methods in table.items():
        sde = ToySDE(noise, "ito")
        for method in methods:
            solve_lines(f"ito {noise} {method}", sde, method)
        if noise == "diagonal":
            solve_lines("ito diagonal milstein grad_free", sde, "milstein",
                        options={"grad_free": True})
            for method in ("euler", "milstein", "srk"):
                solve_lines(f"ito diagonal adaptive {method}", sde, method, adaptive=True)
    sde = ToySDE("diagonal", "ito", d=3)
    y0 = points(3, 3, 0.2, 0.4)
    ts = torch.linspace(0, 1, 5, dtype=F64)
    bm = torchsde.BrownianInterval(0.0, 1.0, size=(3, 3), dtype=F64, entropy=4)
    bm_logqp = torchsde.BrownianInterval(0.0, 1.0, size=(3, 4), dtype=F64, entropy=4)
    ys, solver_state = torchsde.sdeint(sde, y0, ts, bm=bm, dt=0.1, method="euler", extra=True)
    show("extra ys", ys)
    np.random.seed(5)
    show("no bm (NumPy entropy) ys", torchsde.sdeint(sde, y0, ts, dt=0.1, method="srk"))
    show("extra solver state", list(solver_state))
    ys2 = torchsde.sdeint(sde, y0, ts, bm=bm, dt=0.1, method="euler",
                          extra_solver_state=solver_state)
    show("extra_solver_state ys", ys2)
    ys3, logqp = torchsde.sdeint(sde, y0, ts, bm=bm_logqp, dt=0.1, method="euler", logqp=True,
                                 names={"drift": "f", "diffusion": "g",
                                        "prior_drift": "f"})
    show("logqp ys", ys3)
    show("logqp (zero: same drifts)", logqp)


@variant("sde_strat")
def _():
    table = {"diagonal": ("euler_heun", "heun", "midpoint", "milstein", "reversible_heun",
                          "log_ode"),
             "scalar": ("euler_heun", "heun", "midpoint", "milstein", "reversible_heun"),
             "additive": ("euler_heun", "heun", "midpoint", "milstein", "reversible_heun"),
             "general": ("euler_heun", "midpoint", "reversible_heun", "log_ode")}
    for noise, methods in table.items():
        sde = ToySDE(noise, "stratonovich")
        for method in methods:
            solve_lines(f"strat {noise} {method}", sde, method)
    sde = ToySDE("diagonal", "stratonovich")
    solve_lines("strat diagonal adaptive midpoint", sde, "midpoint", adaptive=True)


class NeuralSDE(torch.nn.Module):
    def __init__(self, noise_type, sde_type, d=2):
        super().__init__()
        self.noise_type, self.sde_type = noise_type, sde_type
        self.drift = mlp(d + 1, 8, d)
        self.diff = mlp(d + 1, 8, d, torch.nn.Sigmoid())

    def _in(self, t, y):
        return torch.cat([y, t.expand(y.size(0), 1)], dim=1)

    def f(self, t, y):
        return self.drift(self._in(t, y))

    def g(self, t, y):
        return 0.3 * self.diff(self._in(t, y))


@variant("sde_adjoint")
def _():
    y0 = points(3, 2, 0.5, 0.6)
    ts = torch.tensor([0.0, 0.5, 1.0], dtype=F64)
    for sde_type, method, adjoint_method in (("ito", "euler", "euler"),
                                             ("ito", "milstein", "milstein"),
                                             ("stratonovich", "midpoint", "midpoint"),
                                             ("stratonovich", "reversible_heun",
                                              "adjoint_reversible_heun")):
        sde = NeuralSDE("diagonal", sde_type)
        label = f"{sde_type} {method}"
        for adjoint in (False, True):
            bm = torchsde.BrownianInterval(0.0, 1.0, size=(3, 2), dtype=F64, entropy=99,
                                           levy_area_approximation="space-time")
            y = y0.clone().requires_grad_(True)
            if adjoint:
                ys = torchsde.sdeint_adjoint(sde, y, ts, bm=bm, method=method, dt=0.05,
                                             adjoint_method=adjoint_method)
            else:
                ys = torchsde.sdeint(sde, y, ts, bm=bm, method=method, dt=0.05)
            loss = (ys[1:] ** 2).sum()
            loss.backward()
            kind = "adjoint" if adjoint else "backprop"
            print(f"  {label} {kind} loss {loss.item()!r}")
            show(f"{label} {kind} dy0", y.grad)
            show(f"{label} {kind} dparams", grads(sde))
            sde.zero_grad()


class LatentSDE(torch.nn.Module):
    sde_type = "ito"
    noise_type = "diagonal"

    def __init__(self, d=2, ctx=3):
        super().__init__()
        self.f_net = mlp(d + ctx, 8, d)
        self.h_net = mlp(d, 8, d)
        self.g_nets = torch.nn.ModuleList([mlp(1, 4, 1, torch.nn.Sigmoid()) for _ in range(d)])
        self.encoder = torch.nn.GRU(2, ctx, batch_first=False).to(F64)
        self.qz0 = torch.nn.Linear(ctx, 2 * d).to(F64)
        self.pz0_mean = torch.nn.Parameter(torch.zeros(1, d, dtype=F64))
        self.pz0_logstd = torch.nn.Parameter(torch.zeros(1, d, dtype=F64))
        self._ctx = None

    def f(self, t, y):
        ts, ctx = self._ctx
        i = min(torch.searchsorted(ts, t, right=True).item(), len(ts) - 1)
        return self.f_net(torch.cat((y, ctx[i]), dim=1))

    def h(self, t, y):
        return self.h_net(y)

    def g(self, t, y):
        parts = torch.split(y, 1, dim=1)
        return torch.cat([net(p) for net, p in zip(self.g_nets, parts)], dim=1)

    def forward(self, xs, ts, bm):
        ctx, _ = self.encoder(torch.flip(xs, dims=(0,)))
        ctx = torch.flip(ctx, dims=(0,))
        self._ctx = (ts, ctx)
        qm, qlogstd = self.qz0(ctx[0]).chunk(2, dim=1)
        z0 = qm + qlogstd.exp() * torch.randn_like(qm)
        zs, log_ratio = torchsde.sdeint(self, z0, ts, bm=bm, dt=0.05, logqp=True,
                                        method="euler")
        like = torch.distributions.Laplace(zs, 0.1)
        log_pxs = like.log_prob(xs).sum(dim=(0, 2)).mean()
        qz0 = torch.distributions.Normal(qm, qlogstd.exp())
        pz0 = torch.distributions.Normal(self.pz0_mean, self.pz0_logstd.exp())
        kl0 = torch.distributions.kl_divergence(qz0, pz0).sum(dim=1).mean()
        return log_pxs, kl0 + log_ratio.sum(dim=0).mean()

    @torch.no_grad()
    def sample(self, ts, bm, batch):
        z0 = self.pz0_mean + self.pz0_logstd.exp() * torch.randn(batch, 2, dtype=F64)
        return torchsde.sdeint(self, z0, ts, bm=bm, dt=0.05, names={"drift": "h"},
                               method="euler")


@variant("sde_latent")
def _():
    model = LatentSDE()
    ts = torch.linspace(0, 1, 6, dtype=F64)
    xs = torch.stack([points(4, 2, 0.2 * i, 0.5) for i in range(6)])  # (T, batch, d)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for step in range(3):
        bm = torchsde.BrownianInterval(0.0, 1.0, size=(4, 3), dtype=F64, entropy=40 + step)
        opt.zero_grad()
        log_pxs, kl = model(xs, ts, bm)
        loss = -log_pxs + kl
        loss.backward()
        opt.step()
        print(f"  step {step} log_pxs {log_pxs.item()!r} kl {kl.item()!r}")
        show(f"step {step} grads", grads(model))
    bm = torchsde.BrownianInterval(0.0, 1.0, size=(5, 2), dtype=F64, entropy=77)
    show("prior samples", model.sample(ts, bm, 5))


class FGSDE(torch.nn.Module):
    """An SDE given by ``f_and_g`` and ``g_prod`` (general noise: torchsde never forms g for
    the product)."""
    sde_type = "ito"
    noise_type = "general"

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(points(2, 2, 0.9, 0.5))
        self.m = torch.nn.Parameter(points(2, 3, 1.9, 0.3))

    def f_and_g(self, t, y):
        return torch.tanh(y @ self.w), (self.m * torch.cos(y).unsqueeze(-1))

    def g_prod(self, t, y, v):
        return ((self.m * torch.cos(y).unsqueeze(-1)) @ v.unsqueeze(-1)).squeeze(-1)

    def f(self, t, y):
        return self.f_and_g(t, y)[0]

    def g(self, t, y):
        return self.f_and_g(t, y)[1]


@variant("sde_more")
def _():
    y0 = points(3, 2, 0.4, 0.5)
    ts = torch.tensor([0.0, 0.4, 1.0], dtype=F64)
    sde = FGSDE()
    for method in ("euler", "euler_heun"):
        sde.sde_type = "ito" if method == "euler" else "stratonovich"
        bm = torchsde.BrownianInterval(0.0, 1.0, size=(3, 3), dtype=F64, entropy=8)
        ys = torchsde.sdeint(sde, y0, ts, bm=bm, method=method, dt=0.1)
        show(f"f_and_g {method} ys", ys)
        ys.sum().backward()
        show(f"f_and_g {method} grads", grads(sde))
        sde.zero_grad()
    # adjoint with adjoint_params and a logqp term, against backpropagation
    model = NeuralSDE("diagonal", "ito")
    model.h = lambda t, y: -y
    y1 = points(3, 2, 0.1, 0.5)
    for adjoint in (False, True):
        bm = torchsde.BrownianInterval(0.0, 1.0, size=(3, 3), dtype=F64, entropy=31,
                                       levy_area_approximation="space-time")
        if adjoint:
            ys, logqp = torchsde.sdeint_adjoint(model, y1, ts, bm=bm, dt=0.05, method="euler",
                                                logqp=True,
                                                adjoint_params=tuple(model.parameters()))
        else:
            ys, logqp = torchsde.sdeint(model, y1, ts, bm=bm, dt=0.05, method="euler",
                                        logqp=True)
        loss = ys[-1].pow(2).sum() + logqp.sum()
        loss.backward()
        kind = "adjoint" if adjoint else "backprop"
        print(f"  logqp {kind} loss {loss.item()!r}")
        show(f"logqp {kind} grads", grads(model))
        model.zero_grad()
    # the Brownian motion in reverse time, and a state_dict round trip of the SDE
    bm = torchsde.BrownianInterval(0.0, 1.0, size=(3, 2), dtype=F64, entropy=3)
    show("ReverseBrownian W(-0.8,-0.2)", torchsde.ReverseBrownian(bm)(-0.8, -0.2))
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    buffer.seek(0)
    clone = NeuralSDE("diagonal", "ito")
    clone.load_state_dict(torch.load(buffer))
    bm = torchsde.BrownianInterval(0.0, 1.0, size=(3, 2), dtype=F64, entropy=9)
    a = torchsde.sdeint(model, y1, ts, bm=bm, dt=0.1, method="euler")
    b = torchsde.sdeint(clone, y1, ts, bm=bm, dt=0.1, method="euler")
    print(f"  reloaded SDE solves the same {bool((a == b).all())}")
    show("reloaded SDE ys", b)


# --------------------------------------------------------------------------------- torchcde

def irregular_data():
    t = torch.tensor([0.0, 0.4, 0.5, 1.3, 2.0, 2.2, 3.0], dtype=F64)
    x = torch.stack([points(7, 3, 0.1 * b, 1.0) for b in range(2)])  # (batch, length, ch)
    x[0, 2, 1] = float("nan")
    x[1, 4, 0] = float("nan")
    return t, x


@variant("cde_interp")
def _():
    t, x = irregular_data()
    queries = torch.tensor([0.0, 0.25, 0.5, 1.0, 2.1, 2.999, 3.0, 3.5, -0.2], dtype=F64)
    makers = (("natural cubic", torchcde.natural_cubic_coeffs, torchcde.CubicSpline),
              ("hermite cubic", torchcde.hermite_cubic_coefficients_with_backward_differences,
               torchcde.CubicSpline),
              ("linear", torchcde.linear_interpolation_coeffs,
               torchcde.LinearInterpolation))
    for label, make, cls in makers:
        xs = x.clone().requires_grad_(True)
        coeffs = make(xs, t=t)
        show(f"{label} coeffs", coeffs)
        path = cls(coeffs, t=t)
        print(f"  {label} interval {path.interval.tolist()} grid {path.grid_points.tolist()}")
        values = torch.stack([path.evaluate(q) for q in queries])
        derivs = torch.stack([path.derivative(q) for q in queries])
        show(f"{label} evaluate", values)
        show(f"{label} derivative", derivs)
        (values.sum() + derivs.pow(2).sum()).backward()
        show(f"{label} d/dx", torch.nan_to_num(xs.grad))
    # default times, no NaNs; the deprecated natural_cubic_spline_coeffs
    x2 = points(5, 2, 0.7).unsqueeze(0)
    show("natural cubic default t", torchcde.natural_cubic_coeffs(x2))
    spline = torchcde.CubicSpline(torchcde.natural_cubic_coeffs(x2))
    show("natural cubic default t evaluate", spline.evaluate(torch.tensor(1.5, dtype=F64)))
    rect = torch.cat([torch.arange(5, dtype=F64).view(1, 5, 1), x2], dim=-1)
    show("rectilinear", torchcde.linear_interpolation_coeffs(rect, rectilinear=0))
    lin = torchcde.LinearInterpolation(torchcde.linear_interpolation_coeffs(x2))
    show("linear default t derivative", lin.derivative(torch.tensor(2.5, dtype=F64)))
    try:
        torchcde.logsig_windows(x2, 2, window_length=2)
        print("  logsig_windows ran")
    except ImportError:
        print("  logsig_windows needs signatory (not installed)")


class CDEFunc(torch.nn.Module):
    def __init__(self, ch, hidden):
        super().__init__()
        self.ch, self.hidden = ch, hidden
        self.net = mlp(hidden, 8, hidden * ch, torch.nn.Tanh())

    def forward(self, t, z):
        return self.net(z).view(z.size(0), self.hidden, self.ch)


class NeuralCDE(torch.nn.Module):
    def __init__(self, ch, hidden=4, out=2):
        super().__init__()
        self.func = CDEFunc(ch, hidden)
        self.initial = torch.nn.Linear(ch, hidden).to(F64)
        self.readout = torch.nn.Linear(hidden, out).to(F64)

    def forward(self, coeffs, **kw):
        X = torchcde.CubicSpline(coeffs)
        z0 = self.initial(X.evaluate(X.interval[0]))
        zT = torchcde.cdeint(X=X, func=self.func, z0=z0, t=X.interval, **kw)
        return self.readout(zT[:, 1])


def spirals(n=6, length=8):
    t = torch.linspace(0, 4 * math.pi, length, dtype=F64)
    xs, ys = [], []
    for i in range(n):
        sign = 1.0 if i % 2 == 0 else -1.0
        r = 1.0 + 0.1 * i
        xs.append(torch.stack([t, r * torch.cos(sign * t) / (1 + 0.3 * t),
                               r * torch.sin(sign * t) / (1 + 0.3 * t)], dim=1))
        ys.append(i % 2)
    return torch.stack(xs), torch.tensor(ys)


@variant("cde_train")
def _():
    x, y = spirals()
    coeffs = torchcde.hermite_cubic_coefficients_with_backward_differences(x)
    # dopri5 steps onto the knots (jump_t), where the spline's second derivative jumps: without
    # it the step-size controller's accept/reject decisions near the knots follow rounding (in
    # PyTorch alone, x moved by 1 ulp changes 681 evaluations to 777 and the loss by 7e-5)
    knots = {"jump_t": torchcde.CubicSpline(coeffs).grid_points}
    for label, kw in (("rk4", {"method": "rk4", "options": {"step_size": 0.5},
                               "adjoint": False}),
                      ("dopri5", {"method": "dopri5", "rtol": 1e-6, "atol": 1e-8,
                                  "options": knots, "adjoint": False}),
                      ("dopri5 adjoint", {"method": "dopri5", "rtol": 1e-6, "atol": 1e-8,
                                          "options": knots})):
        torch.manual_seed(1)
        model = NeuralCDE(3)
        opt = torch.optim.Adam(model.parameters(), lr=0.05)
        for step in range(3):
            opt.zero_grad()
            logits = model(coeffs, **kw)
            loss = torch.nn.functional.cross_entropy(logits, y)
            loss.backward()
            opt.step()
            print(f"  {label} step {step} loss {loss.item()!r}")
            show(f"{label} step {step} grads", grads(model))
    # all time points, a TupleControl of two splines
    X = torchcde.CubicSpline(coeffs)
    lin = torchcde.LinearInterpolation(torchcde.linear_interpolation_coeffs(x))
    both = torchcde.TupleControl(X, lin)
    show("TupleControl evaluate", list(both.evaluate(torch.tensor(1.0, dtype=F64))))
    func = CDEFunc(3, 4)
    z0 = torch.zeros(6, 4, dtype=F64)
    zs = torchcde.cdeint(X=X, func=func, z0=z0, t=X.grid_points, method="rk4",
                         options={"step_size": 0.5})
    show("cdeint all grid points", zs)


@variant("cde_more")
def _():
    x, y = spirals(4, 6)
    coeffs = torchcde.linear_interpolation_coeffs(x)
    X = torchcde.LinearInterpolation(coeffs)
    func = CDEFunc(3, 4)
    z0 = torch.zeros(4, 4, dtype=F64) + 0.1
    for label, kw in (("dopri5 jump_t", {"method": "dopri5", "rtol": 1e-6, "atol": 1e-8,
                                         "options": {"jump_t": X.grid_points},
                                         "adjoint": False}),
                      ("torchsde euler_heun", {"backend": "torchsde", "method": "euler_heun",
                                          "dt": 0.25, "adjoint": False}),
                      ("torchsde midpoint adjoint", {"backend": "torchsde",
                                                     "method": "midpoint", "dt": 0.25}),
                      ("torchsde reversible_heun adjoint", {
                          "backend": "torchsde", "method": "reversible_heun", "dt": 0.25,
                          "adjoint_method": "adjoint_reversible_heun"})):
        z = z0.clone().requires_grad_(True)
        zT = torchcde.cdeint(X=X, func=func, z0=z, t=X.interval, **kw)
        loss = zT[:, -1].pow(2).sum()
        loss.backward()
        print(f"  {label} loss {loss.item()!r}")
        show(f"{label} dz0", z.grad)
        show(f"{label} dparams", grads(func))
        func.zero_grad()
    # a trained model's state_dict round trip
    model = NeuralCDE(3)
    spline = torchcde.natural_cubic_coeffs(x)
    out = model(spline, method="rk4", options={"step_size": 0.5}, adjoint=False)
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    buffer.seek(0)
    clone = NeuralCDE(3)
    clone.load_state_dict(torch.load(buffer))
    again = clone(spline, method="rk4", options={"step_size": 0.5}, adjoint=False)
    print(f"  reloaded CDE gives the same {bool((out == again).all())}")
    show("reloaded CDE logits", again)
    # the coefficients through a TensorDataset and a shuffling DataLoader, as torchcde suggests
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(spline, y),
                                         batch_size=2, shuffle=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for i, (batch_coeffs, batch_y) in enumerate(loader):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(
            model(batch_coeffs, method="rk4", options={"step_size": 0.5}, adjoint=False),
            batch_y)
        loss.backward()
        opt.step()
        print(f"  DataLoader batch {i} labels {batch_y.tolist()} loss {loss.item()!r}")


class LipSwish(torch.nn.Module):
    def forward(self, x):
        return 0.909 * torch.nn.functional.silu(x)


def gan_mlp(i, o, width=8, tanh=False):
    layers = [torch.nn.Linear(i, width), LipSwish(), torch.nn.Linear(width, o)]
    if tanh:
        layers.append(torch.nn.Tanh())
    return torch.nn.Sequential(*layers).to(F64)


class GeneratorFunc(torch.nn.Module):
    sde_type = "stratonovich"
    noise_type = "general"

    def __init__(self, noise, hidden):
        super().__init__()
        self.noise, self.hidden = noise, hidden
        self.drift = gan_mlp(1 + hidden, hidden, tanh=True)
        self.diffusion = gan_mlp(1 + hidden, hidden * noise, tanh=True)

    def f_and_g(self, t, x):
        tx = torch.cat([t.expand(x.size(0), 1), x], dim=1)
        return self.drift(tx), self.diffusion(tx).view(x.size(0), self.hidden, self.noise)


class SDEGenerator(torch.nn.Module):
    """torchsde's examples/sde_gan.py generator: a Stratonovich neural SDE with general noise,
    solved by reversible Heun with its adjoint; its samples go out as linear-interpolation
    coefficients of (t, y)."""

    def __init__(self, data=1, initial_noise=2, noise=2, hidden=4):
        super().__init__()
        self.initial_noise = initial_noise
        self.initial = gan_mlp(initial_noise, hidden)
        self.func = GeneratorFunc(noise, hidden)
        self.readout = torch.nn.Linear(hidden, data).to(F64)

    def forward(self, ts, batch):
        x0 = self.initial(torch.randn(batch, self.initial_noise, dtype=F64))
        xs = torchsde.sdeint_adjoint(self.func, x0, ts, method="reversible_heun", dt=1.0,
                                     adjoint_method="adjoint_reversible_heun")
        ys = self.readout(xs.transpose(0, 1))
        ts = ts.unsqueeze(0).unsqueeze(-1).expand(batch, ts.size(0), 1)
        return torchcde.linear_interpolation_coeffs(torch.cat([ts, ys], dim=2))


class DiscriminatorFunc(torch.nn.Module):
    def __init__(self, data, hidden):
        super().__init__()
        self.data, self.hidden = data, hidden
        self.net = gan_mlp(1 + hidden, hidden * (1 + data), tanh=True)

    def forward(self, t, h):
        th = torch.cat([t.expand(h.size(0), 1), h], dim=1)
        return self.net(th).view(h.size(0), self.hidden, 1 + self.data)


class CDEDiscriminator(torch.nn.Module):
    """The example's discriminator: a neural CDE driven by the path, by torchcde's torchsde
    backend (reversible Heun and its adjoint, with the coefficients among adjoint_params)."""

    def __init__(self, data=1, hidden=4):
        super().__init__()
        self.initial = gan_mlp(1 + data, hidden)
        self.func = DiscriminatorFunc(data, hidden)
        self.readout = torch.nn.Linear(hidden, 1).to(F64)

    def forward(self, coeffs):
        Y = torchcde.LinearInterpolation(coeffs)
        h0 = self.initial(Y.evaluate(Y.interval[0]))
        hs = torchcde.cdeint(Y, self.func, h0, Y.interval, method="reversible_heun",
                             backend="torchsde", dt=1.0,
                             adjoint_method="adjoint_reversible_heun",
                             adjoint_params=(coeffs,) + tuple(self.func.parameters()))
        return self.readout(hs[:, -1]).mean()


@variant("sde_gan")
def _():
    """A tiny run of torchsde's examples/sde_gan.py: Wasserstein GAN steps (Adadelta, the
    generator's gradients negated, the discriminator's Linear weights clipped), stochastic weight
    averaging of the generator (swa_utils.AveragedModel) and its samples."""
    np.random.seed(0)  # sdeint without a bm takes its entropy from NumPy
    ts = torch.linspace(0, 5, 6, dtype=F64)
    real = torch.stack([torch.sin(ts * (0.5 + 0.1 * i)) + 0.05 * i for i in range(4)])
    real_coeffs = torchcde.linear_interpolation_coeffs(
        torch.stack([ts.expand(4, 6), real], dim=2))
    generator, discriminator = SDEGenerator(), CDEDiscriminator()
    averaged = torch.optim.swa_utils.AveragedModel(generator)
    g_opt = torch.optim.Adadelta(generator.parameters(), lr=0.05, weight_decay=0.01)
    d_opt = torch.optim.Adadelta(discriminator.parameters(), lr=0.05, weight_decay=0.01)
    for step in range(3):
        fake = generator(ts, 4)
        loss = discriminator(fake) - discriminator(real_coeffs)
        loss.backward()
        for param in generator.parameters():
            param.grad *= -1
        print(f"  step {step} loss {loss.item()!r}")
        show(f"step {step} generator grads", grads(generator))
        show(f"step {step} discriminator grads", grads(discriminator))
        g_opt.step()
        d_opt.step()
        g_opt.zero_grad()
        d_opt.zero_grad()
        with torch.no_grad():
            for module in discriminator.modules():
                if isinstance(module, torch.nn.Linear):
                    lim = 1 / module.out_features
                    module.weight.clamp_(-lim, lim)
        averaged.update_parameters(generator)
    print(f"  n_averaged {averaged.n_averaged.item()}")
    with torch.no_grad():
        show("averaged generator samples", averaged.module(ts, 3))


# --------------------------------------------------------------------------------- geomloss

def cloud(n, d, phase, shift=0.0):
    return points(n, d, phase, 0.7) + shift


@variant("ot_losses")
def _():
    x0 = cloud(7, 2, 0.1)
    y0 = cloud(9, 2, 1.3, 0.4)
    a = torch.softmax(points(7, 1, 0.4).view(-1), 0)
    b = torch.softmax(points(9, 1, 2.1).view(-1), 0)
    configs = [("sinkhorn", {"p": 2, "blur": 0.05}), ("sinkhorn", {"p": 2, "blur": 0.5}),
               ("sinkhorn", {"p": 1, "blur": 0.1}),
               ("sinkhorn", {"p": 2, "blur": 0.1, "debias": False}),
               ("sinkhorn", {"p": 2, "blur": 0.05, "scaling": 0.9}),
               ("sinkhorn", {"p": 2, "blur": 0.1, "reach": 0.5}),
               ("sinkhorn", {"p": 2, "blur": 0.1, "diameter": 3.0}),
               ("energy", {}), ("gaussian", {"blur": 0.5}), ("laplacian", {"blur": 0.5}),
               ("gaussian", {"blur": 0.5, "debias": False})]
    for loss, kw in configs:
        fn = geomloss.SamplesLoss(loss, backend="tensorized", **kw)
        label = f"{loss} {kw}"
        x, y = x0.clone().requires_grad_(True), y0.clone().requires_grad_(True)
        value = fn(x, y)
        gx, gy = torch.autograd.grad(value, [x, y])
        print(f"  {label} value {value.item()!r}")
        show(f"{label} dx", gx)
        show(f"{label} dy", gy)
        aw, bw = a.clone().requires_grad_(True), b.clone().requires_grad_(True)
        x = x0.clone().requires_grad_(True)
        weighted = fn(aw, x, bw, y0)
        ga, gxw = torch.autograd.grad(weighted, [aw, x])
        print(f"  {label} weighted value {weighted.item()!r}")
        show(f"{label} weighted da", ga)
        show(f"{label} weighted dx", gxw)
    pot = geomloss.SamplesLoss("sinkhorn", p=2, blur=0.1, potentials=True, backend="tensorized")
    f, g = pot(a, x0, b, y0)
    show("potentials f", f)
    show("potentials g", g)
    batched = geomloss.SamplesLoss("sinkhorn", p=2, blur=0.1, backend="tensorized")
    xb = torch.stack([cloud(5, 3, 0.1 * i) for i in range(3)]).requires_grad_(True)
    yb = torch.stack([cloud(6, 3, 1.0 + 0.2 * i, 0.3) for i in range(3)])
    values = batched(xb, yb)
    show("batched sinkhorn", values)
    show("batched sinkhorn dx", torch.autograd.grad(values.sum(), xb)[0])
    cost = geomloss.SamplesLoss("sinkhorn", blur=0.1, backend="tensorized",
                                cost=lambda x, y: ((x.unsqueeze(-2) - y.unsqueeze(-3)) ** 2
                                                   ).sum(-1) / 2)
    show("custom cost", cost(x0, y0))
    sol = geomloss.ot.solve_sample(x0, y0, a=a, b=b, blur=0.1, max_iter=50)
    show("ot.solve_sample value", sol.value)


@variant("ot_flow")
def _():
    x = cloud(12, 2, 0.3).requires_grad_(True)
    y = cloud(10, 2, 2.0, 1.0)
    loss_fn = geomloss.SamplesLoss("sinkhorn", p=2, blur=0.05, backend="tensorized")
    opt = torch.optim.SGD([x], lr=0.5)
    for step in range(5):
        opt.zero_grad()
        loss = loss_fn(x, y)
        loss.backward()
        print(f"  flow step {step} loss {loss.item()!r}")
        show(f"flow step {step} grad", x.grad)
        opt.step()
    show("flow final", x)


@variant("ot_more")
def _():
    # 1-D and 3-D clouds, a larger cloud at a small blur
    for label, x, y in (("1-D", cloud(9, 1, 0.5), cloud(11, 1, 2.5, 0.2)),
                        ("3-D", cloud(10, 3, 0.5), cloud(8, 3, 1.5, -0.3)),
                        ("40 points", cloud(40, 2, 0.3), cloud(30, 2, 1.7, 0.2))):
        for loss, kw in (("sinkhorn", {"blur": 0.01, "scaling": 0.7}), ("energy", {})):
            fn = geomloss.SamplesLoss(loss, backend="tensorized", **kw)
            xg = x.clone().requires_grad_(True)
            value = fn(xg, y)
            value.backward()
            print(f"  {label} {loss} value {value.item()!r}")
            show(f"{label} {loss} dx", xg.grad)
    # geomloss.ot: an explicit cost matrix, balanced and unbalanced, its plan and potentials
    x, y = cloud(6, 2, 0.3), cloud(5, 2, 1.2, 0.3)
    C = ((x.unsqueeze(1) - y.unsqueeze(0)) ** 2).sum(-1)
    for label, kw in (("balanced", {}), ("unbalanced", {"unbalanced": 1.0})):
        sol = geomloss.ot.solve(C, reg=0.05, max_iter=100, **kw)
        show(f"ot.solve {label} value", sol.value)
        show(f"ot.solve {label} plan", sol.plan)
        show(f"ot.solve {label} potentials", [sol.potential_a, sol.potential_b])
        show(f"ot.solve {label} marginals", [sol.marginal_a, sol.marginal_b])
    batch = geomloss.ot.solve_batch(torch.stack([C, 2 * C]), reg=0.1, max_iter=50)
    show("ot.solve_batch value", batch.value)
    xs = x.clone().requires_grad_(True)
    sample = geomloss.ot.solve_sample(xs, y, blur=0.1, debias=True, max_iter=50)
    sample.value.backward()
    show("ot.solve_sample debias value", sample.value)
    show("ot.solve_sample debias dx", xs.grad)
    unbalanced = geomloss.ot.solve_sample(x, y, blur=0.1, reach=0.5, max_iter=50)
    show("ot.solve_sample unbalanced value", unbalanced.value)
    show("ot.solve_sample unbalanced plan", unbalanced.plan)
    # Hessian-vector products (double backward through the Sinkhorn loop and the kernels)
    for loss, kw in (("sinkhorn", {"blur": 0.1}), ("sinkhorn", {"blur": 0.1, "reach": 0.5}),
                     ("energy", {}), ("gaussian", {"blur": 0.5})):
        xh = x.clone().requires_grad_(True)
        value = geomloss.SamplesLoss(loss, backend="tensorized", **kw)(xh, y)
        g, = torch.autograd.grad(value, xh, create_graph=True)
        hvp, = torch.autograd.grad((g * torch.cos(x)).sum(), xh)
        show(f"{loss} {kw} gradient", g)
        show(f"{loss} {kw} Hessian-vector product", hvp)


@variant("float32")
def _():
    """The same calls on float32 data: dtypes must be kept (no float64 leaks from Python
    floats or from the libraries' float64 constants)."""
    f32 = torch.float32
    bm = torchsde.BrownianInterval(0.0, 1.0, size=(3, 2), dtype=f32, entropy=7,
                                   levy_area_approximation="foster")
    w, u, a = bm(0.2, 0.7, return_U=True, return_A=True)
    print(f"  BrownianInterval dtypes {w.dtype} {u.dtype} {a.dtype}")
    show("BrownianInterval float32 W", w)
    sde = ToySDE("diagonal", "ito").float()
    y0 = points(3, 2, 0.1, 0.5).float()
    ts = torch.tensor([0.0, 0.5, 1.0], dtype=f32)
    for method in ("euler", "milstein", "srk"):
        ys = torchsde.sdeint(sde, y0, ts, bm=bm, method=method, dt=0.1)
        ys[-1].sum().backward()
        print(f"  sdeint {method} dtype {ys.dtype} grad dtype {sde.a.grad.dtype}")
        show(f"sdeint float32 {method}", ys)
        sde.zero_grad()
    t, x = irregular_data()
    for label, make in (("natural", torchcde.natural_cubic_coeffs),
                        ("hermite",
                         torchcde.hermite_cubic_coefficients_with_backward_differences),
                        ("linear", torchcde.linear_interpolation_coeffs)):
        coeffs = make(x.float(), t=t.float())
        print(f"  {label} coeffs dtype {coeffs.dtype}")
        show(f"{label} coeffs float32", coeffs)
    func = CDEFunc(3, 4).float()
    X = torchcde.CubicSpline(torchcde.natural_cubic_coeffs(spirals(2, 5)[0].float()))
    zs = torchcde.cdeint(X=X, func=func, z0=torch.zeros(2, 4, dtype=f32), t=X.interval,
                         method="rk4", options={"step_size": 1.0})
    print(f"  cdeint dtype {zs.dtype}")
    show("cdeint float32", zs)
    for loss in ("sinkhorn", "energy", "gaussian"):
        xg = cloud(8, 2, 0.2).float().requires_grad_(True)
        value = geomloss.SamplesLoss(loss, blur=0.1, backend="tensorized")(
            xg, cloud(6, 2, 1.3, 0.2).float())
        value.backward()
        print(f"  {loss} dtype {value.dtype} grad dtype {xg.grad.dtype}")
        show(f"{loss} float32 value", value)
        show(f"{loss} float32 dx", xg.grad)


def main(argv):
    torch.set_default_dtype(F64)
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
