"""Driver of torchdiffeq (docs/real-programs.md): the ``torchdiffeq`` package (0.2.5), installed
and used unchanged, integrates a spiral ODE and small neural ODEs with its fixed-grid and
adaptive solvers and prints every solution's checksum, the number of function evaluations and
the gradients at full precision.

Variants (each reseeds with ``torch.manual_seed``, so a subset prints what the full run prints
for it):

- ``fixed64`` / ``fixed32``: the spiral ODE of torchdiffeq's ``ode_demo.py``
  (``dy/dt = (y**3) @ A``) with euler, midpoint, heun3, rk4, explicit_adams and
  implicit_adams on a ``step_size`` grid and on the output grid, in float64 and float32.
- ``adaptive64`` / ``adaptive32``: dopri5, bosh3, adaptive_heun, dopri8 (float64 only) and
  fehlberg2 at two rtol/atol pairs (their accepted and rejected step counts show in the nfe).
- ``options``: first_step, max_num_steps, per-element tolerances, ``step_t``/``jump_t``,
  ``max_step``, ``grid_constructor``, ``perturb``, heun2, ``scipy_solver`` (SciPy's RK45 and
  LSODA through NumPy), reversed time, a tuple state and a time-dependent float32 ODE.
- ``grads``: a small neural ODE (``nn.Linear`` + ``tanh``): ``odeint_adjoint`` gradients of
  the final state against backpropagation through the solver (dopri5, rk4, dopri8, with
  ``adjoint_params`` and the seminorm ``adjoint_options``), in float64 and float32.
- ``complex``: a complex state and parameter, gradients through the solver and adjoint.
- ``event``: ``odeint_event`` (a ball dropped to the floor, its event time and the gradients
  of the event time through ``ImplicitFnGradientRerouting``, plain and adjoint).
- ``train``: a few Adam steps fitting a tiny neural ODE to the spiral's trajectory (plain
  backprop with rk4, adjoint with dopri5).
- ``cnf``: a small continuous normalizing flow (examples/cnf.py: hypernetwork weights, the
  exact trace of df/dz by ``autograd.grad(create_graph=True)``), three Adam steps on the
  log-likelihood, through the solver and by the adjoint (double backward).

    python scripts/shared_rng_run.py scripts/real_drivers/torchdiffeq_odes.py [VARIANT ... | all]
    python -m jtorch scripts/shared_rng_run.py scripts/real_drivers/torchdiffeq_odes.py [...]
"""

import math
import os
import sys
import time
import warnings

import torch
from torch import nn

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import torchdiffeq  # noqa: E402
from torchdiffeq import odeint, odeint_adjoint, odeint_event  # noqa: E402

warnings.filterwarnings("ignore")

VARIANTS = {}


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


class Counted(nn.Module):
    """Wraps an ODE function and counts its evaluations."""

    def __init__(self, f):
        super().__init__()
        self.f = f
        self.nfe = 0

    def forward(self, t, y):
        self.nfe += 1
        return self.f(t, y)


class Spiral(nn.Module):
    def __init__(self, dtype):
        super().__init__()
        self.A = nn.Parameter(torch.tensor([[-0.1, 2.0], [-2.0, -0.1]], dtype=dtype))

    def forward(self, t, y):
        return torch.mm(y ** 3, self.A)


class ODEFunc(nn.Module):
    """The neural ODE of ode_demo.py: Linear(2, H) -> tanh -> Linear(H, 2) on y**3."""

    def __init__(self, dtype, hidden=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, hidden), nn.Tanh(), nn.Linear(hidden, 2))
        for m in self.net.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, mean=0, std=0.1)
                nn.init.constant_(m.bias, val=0)
        self.to(dtype)

    def forward(self, t, y):
        return self.net(y ** 3)


def spiral_problem(dtype, n=11, t1=2.0):
    y0 = torch.tensor([[1.0, 0.0]], dtype=dtype)
    t = torch.linspace(0.0, t1, n, dtype=dtype)
    return y0, t


def report(name, sol, func):
    print(f"{name} nfe {func.nfe} shape {list(sol.shape)} {checksum(sol)} "
          f"final {sol[-1].reshape(-1).tolist()!r}")


def fixed(tag, dtype):
    # (the tolerances are implicit_adams' corrector's; float32's are above its resolution)
    tol = {"rtol": 1e-7, "atol": 1e-9} if dtype == torch.float64 else {"rtol": 1e-5, "atol": 1e-6}
    y0, t = spiral_problem(dtype)
    # (explicit_adams diverges to nan on this grid, in torchdiffeq 0.2.5 itself)
    for method in ("euler", "midpoint", "heun3", "rk4", "explicit_adams", "implicit_adams"):
        for options in ({"step_size": 0.05}, {}):
            func = Counted(Spiral(dtype))
            with torch.no_grad():
                sol = odeint(func, y0, t, method=method, options=dict(options), **tol)
            report(f"{tag} {method} {options}", sol, func)
    func = Counted(Spiral(dtype))
    with torch.no_grad():
        sol = odeint(func, y0, t, method="rk4", options={"step_size": 0.05, "interp": "cubic"})
    report(f"{tag} rk4 cubic interp", sol, func)


@variant("fixed64")
def _():
    fixed("fixed64", torch.float64)


@variant("fixed32")
def _():
    fixed("fixed32", torch.float32)


def adaptive(tag, dtype):
    # float32 is not asked for tolerances near its resolution (its error estimates would be
    # rounding noise, and the step sizes with them)
    tight = (1e-6, 1e-8) if dtype == torch.float64 else (1e-5, 1e-6)
    # (nor dopri8, whose error estimates are below float32's resolution at any of its steps:
    # PyTorch's own float32 dopri8 takes 119 evaluations instead of 132 for y0 moved by 1 ulp)
    methods = ["dopri5", "bosh3", "adaptive_heun", "dopri8", "fehlberg2"]
    if dtype == torch.float32:
        methods.remove("dopri8")
    y0, t = spiral_problem(dtype)
    for method in methods:
        for rtol, atol in ((1e-3, 1e-4), tight):
            func = Counted(Spiral(dtype))
            with torch.no_grad():
                sol = odeint(func, y0, t, rtol=rtol, atol=atol, method=method)
            report(f"{tag} {method} rtol {rtol} atol {atol}", sol, func)


@variant("adaptive64")
def _():
    adaptive("adaptive64", torch.float64)


@variant("adaptive32")
def _():
    adaptive("adaptive32", torch.float32)


@variant("options")
def _():
    dtype = torch.float64
    y0, t = spiral_problem(dtype)
    cases = [
        ("first_step", "dopri5", {"first_step": 0.01}, {}),
        ("per-element tol", "dopri5", {},
         {"rtol": torch.tensor([1e-5, 1e-3], dtype=dtype), "atol": 1e-6}),
        ("step_t", "dopri5", {"step_t": torch.tensor([0.5, 1.0], dtype=dtype)}, {}),
        ("jump_t", "bosh3", {"jump_t": torch.tensor([0.7], dtype=dtype)}, {}),
        ("max_step", "adaptive_heun", {"max_step": 0.1}, {}),
        ("grid_constructor", "rk4",
         {"grid_constructor": lambda f, y0, t: torch.linspace(t[0], t[-1], 31, dtype=t.dtype)},
         {}),
        ("perturb", "euler", {"step_size": 0.1, "perturb": True}, {}),
        ("heun2", "heun2", {"step_size": 0.05}, {}),
        # SciPy's solve_ivp through NumPy (torch.tensor of float64 arrays, .numpy())
        ("scipy RK45", "scipy_solver", {"solver": "RK45"}, {}),
        ("scipy LSODA", "scipy_solver", {"solver": "LSODA"}, {}),
    ]
    for name, method, options, kw in cases:
        func = Counted(Spiral(dtype))
        kw = {"rtol": 1e-5, "atol": 1e-7, **kw}
        with torch.no_grad():
            sol = odeint(func, y0, t, method=method, options=options, **kw)
        report(f"options {name} {method}", sol, func)
    # too few steps allowed: torchdiffeq's own error
    try:
        odeint(Spiral(dtype), y0, t, method="dopri5", rtol=1e-10, atol=1e-12,
               options={"max_num_steps": 5})
    except AssertionError as e:
        print(f"options max_num_steps AssertionError {e}")
    # reversed time
    func = Counted(Spiral(dtype))
    with torch.no_grad():
        sol = odeint(func, y0, t.flip(0), rtol=1e-6, atol=1e-8, method="dopri5")
    report("options reversed dopri5", sol, func)
    # a tuple state: a harmonic oscillator (x, v)
    osc = Counted(lambda t, s: (s[1], -s[0] - 0.1 * s[1]))
    x0 = (torch.tensor([1.0, 0.5], dtype=dtype), torch.tensor([0.0, 0.2], dtype=dtype))
    with torch.no_grad():
        xs, vs = odeint(osc, x0, t, rtol=1e-6, atol=1e-8, method="dopri5")
    print(f"options tuple nfe {osc.nfe} x {checksum(xs)} v {checksum(vs)}")
    # time-dependent forcing, float32 with float64 times
    forced = Counted(lambda t, y: -y + torch.sin(3 * t))
    with torch.no_grad():
        sol = odeint(forced, torch.zeros(3, dtype=torch.float32), t, method="bosh3", rtol=1e-4,
                     atol=1e-5)
    report("options forced float32 with float64 t", sol, forced)
    # unknown methods and option names: torchdiffeq's own errors
    for method, options in (("nope", None), ("rk4", {"bogus": 1})):
        try:
            odeint(Spiral(dtype), y0, t, method=method, options=options)
        except (ValueError, TypeError) as e:
            print(f"options error {type(e).__name__} {e}")


def neural_grads(tag, dtype, method, options, rtol, atol):
    torch.manual_seed(1)
    y0, t = spiral_problem(dtype, n=6, t1=1.0)
    y0 = y0.clone().requires_grad_(True)
    func = Counted(ODEFunc(dtype))
    params = list(func.parameters())
    sol = odeint(func, y0, t, method=method, options=options, rtol=rtol, atol=atol)
    loss = (sol ** 2).sum() + sol[-1, 0, 0]
    direct = torch.autograd.grad(loss, [y0, *params])
    fwd_nfe = func.nfe
    func.nfe = 0
    sol_adj = odeint_adjoint(func, y0, t, method=method, options=options, rtol=rtol, atol=atol,
                             adjoint_options={"norm": "seminorm"} if method == "dopri5" else None)
    loss_adj = (sol_adj ** 2).sum() + sol_adj[-1, 0, 0]
    fwd_adj_nfe = func.nfe
    adjoint = torch.autograd.grad(loss_adj, [y0, *params])
    print(f"{tag} {method} loss {loss.item()!r} adjoint loss {loss_adj.item()!r} "
          f"nfe {fwd_nfe} adjoint nfe forward {fwd_adj_nfe} total {func.nfe}")
    for name, g, ga in zip(["y0"] + [n for n, _ in func.named_parameters()], direct, adjoint):
        # the two gradients differ by the solvers' error (rounding noise for rk4): their
        # agreement is printed as a flag, not a number
        close = bool((g - ga).abs().max() <= 1e3 * rtol * g.abs().max())
        print(f"  {name} direct {checksum(g)}")
        print(f"  {name} adjoint {checksum(ga)} close to direct {close}")


@variant("grads")
def _():
    for dtype, tag in ((torch.float64, "grads64"), (torch.float32, "grads32")):
        rtol, atol = (1e-7, 1e-9) if dtype == torch.float64 else (1e-5, 1e-6)
        neural_grads(tag, dtype, "dopri5", None, rtol, atol)
        neural_grads(tag, dtype, "rk4", {"step_size": 0.05}, rtol, atol)
    neural_grads("grads64", torch.float64, "dopri8", None, 1e-8, 1e-10)
    # adjoint_params given explicitly for a closure
    A = torch.tensor([[-0.1, 2.0], [-2.0, -0.1]], dtype=torch.float64, requires_grad=True)
    y0, t = spiral_problem(torch.float64, n=5, t1=1.0)
    sol = odeint_adjoint(lambda t, y: torch.mm(y ** 3, A), y0, t, method="dopri5",
                         adjoint_params=(A,), rtol=1e-8, atol=1e-10)
    (g_adj,) = torch.autograd.grad(sol[-1].sum(), A)
    sol = odeint(lambda t, y: torch.mm(y ** 3, A), y0, t, method="dopri5", rtol=1e-8, atol=1e-10)
    (g,) = torch.autograd.grad(sol[-1].sum(), A)
    print(f"grads closure A adjoint {checksum(g_adj)} direct {checksum(g)}")
    # gradients with respect to the output times (odeint_adjoint's own formula for them)
    for interface in (odeint, odeint_adjoint):
        tt = t.clone().requires_grad_(True)
        func = Spiral(torch.float64)
        sol = interface(func, y0, tt, method="dopri5", rtol=1e-8, atol=1e-10)
        (g_t,) = torch.autograd.grad((sol ** 2).sum(), tt)
        print(f"grads {interface.__name__} d/dt {g_t.tolist()!r}")


class Ball(nn.Module):
    """A falling ball: state (height, velocity), gravity and quadratic drag (nonlinear, so
    that the solver's error estimates are not rounding noise)."""

    def __init__(self):
        super().__init__()
        self.gravity = nn.Parameter(torch.tensor([9.8], dtype=torch.float64))
        self.drag = nn.Parameter(torch.tensor([0.1], dtype=torch.float64))
        self.nfe = 0

    def forward(self, t, state):
        self.nfe += 1
        h, v = state
        return v, -self.gravity - self.drag * v * v.abs()

    def event_fn(self, t, state):
        return state[0]  # the height reaches zero


@variant("event")
def _():
    for interface, name in ((odeint, "odeint"), (odeint_adjoint, "odeint_adjoint")):
        ball = Ball()
        h0 = torch.tensor([10.0], dtype=torch.float64, requires_grad=True)
        v0 = torch.tensor([1.0], dtype=torch.float64, requires_grad=True)
        t0 = torch.tensor([0.0], dtype=torch.float64)
        event_t, (hs, vs) = odeint_event(ball, (h0, v0), t0, event_fn=ball.event_fn,
                                         odeint_interface=interface, method="dopri5",
                                         rtol=1e-8, atol=1e-10)
        # (the height there is zero to within the bisection's tolerance: not printed)
        print(f"event {name} t {event_t.item()!r} v {vs[-1].item()!r} nfe {ball.nfe} "
              f"h at t0 {hs[0].item()!r}")
        grads = torch.autograd.grad(event_t.sum(), [h0, v0, ball.gravity, ball.drag])
        print(f"event {name} d t/d (h0, v0, g, drag) {[g.item() for g in grads]!r}")
    # an event with several functions (the first to reach zero ends the solve), float32
    func = Counted(Spiral(torch.float32))
    y0, _ = spiral_problem(torch.float32)
    with torch.no_grad():
        event_t, sol = odeint_event(func, y0, torch.tensor(0.0),
                                    event_fn=lambda t, y: torch.stack([y[0, 1] - 0.5, t - 5.0]),
                                    method="bosh3", rtol=1e-5, atol=1e-7)
    print(f"event spiral32 t {event_t.item()!r} final {sol[-1].reshape(-1).tolist()!r} "
          f"nfe {func.nfe}")


@variant("train")
def _():
    dtype = torch.float32
    y0, t = spiral_problem(dtype, n=10, t1=1.0)
    with torch.no_grad():
        true_y = odeint(Spiral(dtype), y0, t, method="dopri5")
    print(f"train true_y {checksum(true_y)}")
    for method, interface, options in (("rk4", odeint, {"step_size": 0.1}),
                                       ("dopri5", odeint_adjoint, None)):
        torch.manual_seed(2)
        func = Counted(ODEFunc(dtype))
        opt = torch.optim.Adam(func.parameters(), lr=1e-2)
        for step in range(5):
            opt.zero_grad()
            pred = interface(func, y0, t, method=method, options=options, rtol=1e-5, atol=1e-6)
            loss = (pred - true_y).abs().mean()
            loss.backward()
            gnorm = torch.sqrt(sum((p.grad.double() ** 2).sum() for p in func.parameters()))
            print(f"train {method} {interface.__name__} step {step} loss {loss.item()!r} "
                  f"gradnorm {gnorm.item()!r} nfe {func.nfe}")
            opt.step()
        for name, p in func.named_parameters():
            print(f"  {name} {checksum(p)}")


@variant("complex")
def _():
    # a complex state and parameter: dy/dt = -w*y + 0.1j*y**2, gradients of |y(1)| with
    # respect to the complex w through the solver and by the adjoint
    w = torch.tensor([1.0 + 0.5j, -0.3 + 2.0j], dtype=torch.complex128, requires_grad=True)
    y0 = torch.tensor([1.0 + 0j, 0.5 - 0.5j], dtype=torch.complex128)
    t = torch.linspace(0, 1, 5, dtype=torch.float64)
    for interface, method in ((odeint, "dopri5"), (odeint, "rk4"), (odeint_adjoint, "dopri5")):
        kw = {"adjoint_params": (w,)} if interface is odeint_adjoint else {}
        sol = interface(lambda t, y: -w * y + 0.1j * y ** 2, y0, t, method=method,
                        rtol=1e-8, atol=1e-10, **kw)
        (g,) = torch.autograd.grad(sol[-1].abs().sum(), w)
        print(f"complex {interface.__name__} {method} y(1) {sol[-1].tolist()!r} "
              f"grad {g.tolist()!r}")


class CNF(nn.Module):
    """The continuous normalizing flow of torchdiffeq's examples/cnf.py, small: a hypernetwork
    gives time-dependent weights of a width-``width`` planar-flow field; the state is (z,
    log p), and d log p/dt is minus the exact trace of df/dz, taken by ``autograd.grad`` with
    ``create_graph=True`` one dimension at a time."""

    def __init__(self, dtype, width=4, hidden=8):
        super().__init__()
        self.width = width
        self.hyper = nn.Sequential(nn.Linear(1, hidden), nn.Tanh(), nn.Linear(hidden, 5 * width))
        self.to(dtype)
        self.nfe = 0

    def forward(self, t, states):
        self.nfe += 1
        z, _ = states
        with torch.set_grad_enabled(True):
            z.requires_grad_(True)
            p = self.hyper(t.reshape(1, 1)).reshape(-1)
            w = p[:2 * self.width].reshape(self.width, 2, 1)
            u = p[2 * self.width:4 * self.width].reshape(self.width, 1, 2)
            b = p[4 * self.width:].reshape(self.width, 1, 1)
            h = torch.tanh(torch.matmul(z.unsqueeze(0), w) + b)
            dz_dt = torch.matmul(h, u).mean(0)
            trace = sum(torch.autograd.grad(dz_dt[:, i].sum(), z, create_graph=True)[0][:, i]
                        for i in range(2))
        return dz_dt, -trace.reshape(-1, 1)


@variant("cnf")
def _():
    dtype = torch.float64
    x = torch.randn(16, 2, dtype=dtype) * 0.5 + torch.tensor([1.0, -0.5], dtype=dtype)
    t = torch.tensor([1.0, 0.0], dtype=dtype)  # from the data (t=1) back to the base (t=0)
    for interface in (odeint, odeint_adjoint):
        torch.manual_seed(3)
        func = CNF(dtype)
        opt = torch.optim.Adam(func.parameters(), lr=1e-2)
        for step in range(3):
            opt.zero_grad()
            logp_diff = torch.zeros(16, 1, dtype=dtype)
            z_t, logp_t = interface(func, (x, logp_diff), t, atol=1e-7, rtol=1e-7,
                                    method="dopri5")
            z0, dlogp = z_t[-1], logp_t[-1]
            logp_x = (-0.5 * (z0 ** 2).sum(1, keepdim=True) - math.log(2 * math.pi)) - dlogp
            loss = -logp_x.mean()
            loss.backward()
            grads = torch.cat([p.grad.reshape(-1) for p in func.parameters()])
            print(f"cnf {interface.__name__} step {step} loss {loss.item()!r} "
                  f"grad {checksum(grads)} nfe {func.nfe}")
            opt.step()


def main(argv):
    names = list(VARIANTS) if argv in ([], ["all"]) else argv
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"unknown variants {unknown}; known: {' '.join(VARIANTS)}")
    print(f"torchdiffeq {torchdiffeq.__version__}")
    for name in names:
        start = time.time()
        torch.manual_seed(0)
        print(f"== {name}")
        VARIANTS[name]()
        print(f"[{name}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
