"""Driver of four optimisation libraries (docs/real-programs.md): pytorch-minimize (torchmin),
Cooper (cooper-optim), TorchJD and muP (mup), the installed packages, unchanged, on small
seeded problems in float32 and float64:

- torchmin's ``minimize`` with every method (bfgs, l-bfgs, cg, newton-cg, newton-exact, dogleg,
  trust-ncg, trust-exact, trust-krylov) on the Rosenbrock function and an L2-regularised
  logistic regression (iterates through the callback, final x, f, gradient, iteration and
  evaluation counts), ``least_squares`` (trf, lsmr and exact), ``minimize_constr``
  (trust-constr), the ``Minimizer`` and ``ScipyMinimizer`` optimizers on an ``nn.Linear``;
- Cooper: a norm-constrained logistic regression and a fairness-constrained one, trained by
  SimultaneousOptimizer, AlternatingPrimalDual/DualPrimal, the Augmented Lagrangian and
  QuadraticPenalty formulations with penalty updaters, ExtraSGD/ExtraAdam extrapolation,
  nuPI, an IndexedMultiplier and an ImplicitMultiplier;
- TorchJD: ``autojac.backward``/``mtl_backward``/``jac``/``jac_to_grad`` on a tiny MLP with two
  losses under every aggregator that needs no cvxpy, and the autogram ``Engine``;
- muP: an MLP with ``MuReadout``, ``set_base_shapes`` (base and delta models), ``mup.init``,
  trained by MuAdam, MuAdamW and MuSGD.

    python scripts/shared_rng_run.py drive_optim2.py [VARIANT ... | all]             # real PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_optim2.py [VARIANT ... | all]   # jtorch

Without arguments it runs every variant, each in float32 and float64 unless its name ends in
``32`` or ``64`` (then only that one). Each run reseeds (``torch.manual_seed``).
"""

import os
import sys
import time
import warnings

import torch
from torch import nn

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import cooper  # noqa: E402
import mup  # noqa: E402
import torchmin  # noqa: E402
from torchjd import aggregation as agg, autojac  # noqa: E402
from torchjd.autogram import Engine  # noqa: E402
from torchmin.benchmarks import rosen  # noqa: E402

warnings.filterwarnings("ignore", category=UserWarning)

VARIANTS = {}
DT = [torch.float32]


def variant(name):
    def register(build):
        VARIANTS[name] = build
        return build
    return register


def fmt(t):
    """A tensor's shape, dtype and values (up to 12 of them), else its checksums."""
    if not isinstance(t, torch.Tensor):
        return repr(t)
    t = t.detach()
    head = f"{list(t.shape)} {str(t.dtype).replace('torch.', '')}"
    flat = t.double().flatten()
    if flat.numel() <= 12:
        return f"{head} {[float(v) for v in flat.tolist()]}"
    w = 1.0 + (torch.arange(flat.numel(), dtype=torch.float64) % 7) / 6
    return (f"{head} abssum {flat.abs().sum().item()!r} wsum {(flat * w).sum().item()!r} "
            f"absmax {flat.abs().max().item()!r}")


def show(label, value):
    if isinstance(value, (tuple, list)) and value and isinstance(value[0], torch.Tensor):
        for i, v in enumerate(value):
            print(f"  {label}[{i}] {fmt(v)}")
    else:
        print(f"  {label} {fmt(value)}")


def attempt(label, fn):
    try:
        value = fn()
    except Exception as e:  # noqa: BLE001 - printed, so a difference shows
        print(f"  {label} raised {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
        return None
    if isinstance(value, dict):  # an OptimizeResult: its fields are printed one by one
        print(f"  {label} keys {sorted(value)}")
    else:
        show(label, value)
    return value


def logreg_data(n=24, d=3):
    X = torch.randn(n, d, dtype=DT[0])
    w = torch.tensor([1.5, -2.0, 0.5][:d], dtype=DT[0])
    y = (X @ w + 0.3 * torch.randn(n, dtype=DT[0]) > 0).to(DT[0])
    return X, y


def show_result(name, res, iterates):
    show(f"{name} x", res.x)
    show(f"{name} fun", res.fun)
    for key in ("grad", "nit", "nfev", "success", "status"):
        if key in res:
            show(f"{name} {key}", res[key])
    if iterates:
        show(f"{name} iterates", iterates[:6] + iterates[-2:])


METHODS = ["bfgs", "l-bfgs", "cg", "newton-cg", "newton-exact", "dogleg", "trust-ncg",
           "trust-exact", "trust-krylov"]


@variant("torchmin_rosen")
def _():
    x0 = torch.tensor([-1.2, 1.0, 0.5, -0.4], dtype=DT[0])
    show("rosen(x0)", rosen(x0))
    for method in METHODS:
        its = []
        res = attempt(f"{method}", lambda method=method, its=its: torchmin.minimize(
            rosen, x0, method=method, max_iter=60, callback=lambda x: its.append(x.clone()),
            disp=0))
        if res is not None:
            show_result(method, res, its)


@variant("torchmin_logreg")
def _():
    X, y = logreg_data()

    def loss(w):
        z = X @ w[:-1] + w[-1]
        return nn.functional.binary_cross_entropy_with_logits(z, y) + 0.05 * w.pow(2).sum()

    w0 = torch.zeros(X.shape[1] + 1, dtype=DT[0])
    for method in METHODS:
        its = []
        res = attempt(f"{method}", lambda method=method, its=its: torchmin.minimize(
            loss, w0, method=method, max_iter=40, callback=lambda x: its.append(x.clone())))
        if res is not None:
            show_result(method, res, its)
    # least squares: fit y = a * exp(b t) + c
    t = torch.linspace(0, 1, 12, dtype=DT[0])
    yt = 2.0 * torch.exp(-1.3 * t) + 0.5 + 0.01 * torch.randn(12, dtype=DT[0])

    def resid(p):
        return p[0] * torch.exp(p[1] * t) + p[2] - yt

    p0 = torch.tensor([1.0, 0.0, 0.0], dtype=DT[0])
    for solver in ("lsmr", "exact"):
        res = attempt(f"lstsq_{solver}", lambda solver=solver: torchmin.least_squares(
            resid, p0, tr_solver=solver, max_nfev=30))
        if res is not None:
            for key in ("x", "cost", "fun", "grad", "optimality", "nfev", "status"):
                if key in res:
                    show(f"lstsq_{solver} {key}", res[key])
    # constrained: minimise rosen on the disc |x| <= 1
    res = attempt("trust_constr", lambda: torchmin.minimize_constr(
        rosen, torch.tensor([0.1, 0.1], dtype=DT[0]), method="trust-constr",
        constr={"fun": lambda x: x.square().sum(), "ub": 1.0}, max_iter=50))
    if res is not None:
        show("trust_constr x", res.x)
        show("trust_constr fun", res.fun)
    # torch.optim-style Minimizer / ScipyMinimizer on an nn.Linear
    for cls, method in ((torchmin.Minimizer, "bfgs"), (torchmin.Minimizer, "newton-exact"),
                        (torchmin.Minimizer, "trust-ncg"), (torchmin.ScipyMinimizer, "bfgs"),
                        (torchmin.ScipyMinimizer, "l-bfgs-b")):
        torch.manual_seed(1)
        model = nn.Linear(X.shape[1], 1).to(DT[0])
        kw = {"max_iter": 20} if cls is torchmin.Minimizer else {"options": {"maxiter": 20}}
        opt = cls(model.parameters(), method=method, **kw)

        def closure(opt=opt, model=model):
            opt.zero_grad()
            out = nn.functional.binary_cross_entropy_with_logits(model(X).squeeze(1), y)
            return out + 0.05 * model.weight.pow(2).sum()

        def step(opt=opt, closure=closure):
            return opt.step(closure)

        name = f"{cls.__name__}_{method}"
        value = attempt(f"{name} step", step)
        if value is not None:
            show(f"{name} weight", model.weight)
            show(f"{name} bias", model.bias)


class NormConstrainedLogReg(cooper.ConstrainedMinimizationProblem):
    """Logistic regression with ||w||^2 <= radius^2 (an inequality constraint)."""

    def __init__(self, radius, formulation=cooper.formulations.Lagrangian, penalty=None,
                 multiplier=True):
        super().__init__()
        mult = (cooper.multipliers.DenseMultiplier(num_constraints=1, dtype=DT[0])
                if multiplier else None)
        self.constraint = cooper.Constraint(
            constraint_type=cooper.ConstraintType.INEQUALITY, formulation_type=formulation,
            multiplier=mult, penalty_coefficient=penalty)
        self.radius = radius

    def compute_cmp_state(self, model, X, y):
        logits = model(X).squeeze(1)
        loss = nn.functional.binary_cross_entropy_with_logits(logits, y)
        violation = model.weight.pow(2).sum().reshape(1) - self.radius ** 2
        return cooper.CMPState(
            loss=loss,
            observed_constraints={self.constraint: cooper.ConstraintState(violation=violation)})


class FairLogReg(cooper.ConstrainedMinimizationProblem):
    """Demographic parity: |mean p(group0) - mean p(group1)| <= 0.05 as two inequalities, with
    an IndexedMultiplier, and a rate constraint with a surrogate (strict violation)."""

    def __init__(self):
        super().__init__()
        mult = cooper.multipliers.IndexedMultiplier(num_constraints=2, dtype=DT[0])
        self.constraint = cooper.Constraint(
            constraint_type=cooper.ConstraintType.INEQUALITY, multiplier=mult)
        self.rate = cooper.Constraint(
            constraint_type=cooper.ConstraintType.INEQUALITY,
            multiplier=cooper.multipliers.DenseMultiplier(num_constraints=1, dtype=DT[0]))

    def compute_cmp_state(self, model, X, y, g):
        logits = model(X).squeeze(1)
        loss = nn.functional.binary_cross_entropy_with_logits(logits, y)
        p = torch.sigmoid(logits)
        gap = p[g == 0].mean() - p[g == 1].mean()
        violation = torch.stack([gap - 0.05, -gap - 0.05])
        rate = ((logits > 0).to(DT[0]).mean() - 0.6).reshape(1)
        surrogate = (p.mean() - 0.6).reshape(1)
        return cooper.CMPState(loss=loss, observed_constraints={
            self.constraint: cooper.ConstraintState(
                violation=violation, constraint_features=torch.tensor([0, 1])),
            self.rate: cooper.ConstraintState(violation=surrogate, strict_violation=rate)})


def cooper_run(name, cmp, make_opt, data, steps=6, model=None):
    torch.manual_seed(2)
    model = model or nn.Linear(data[0].shape[1], 1).to(DT[0])
    opt = make_opt(model, cmp)
    for step in range(steps):
        kwargs = {"model": model, "X": data[0], "y": data[1]}
        if len(data) > 2:
            kwargs["g"] = data[2]
        out = opt.roll(compute_cmp_state_kwargs=kwargs)
        viol = [float(v.violation.detach().flatten()[0])
                for v in out.cmp_state.observed_constraints.values()]
        print(f"  {name} step {step} loss {float(out.loss)!r} violation {viol!r} "
              f"primal_lagrangian {float(out.primal_lagrangian_store.lagrangian)!r}")
    show(f"{name} weight", model.weight)
    show(f"{name} bias", model.bias)
    for cname, constraint in cmp.named_constraints():
        if constraint.multiplier is not None:
            show(f"{name} multiplier[{cname}]", constraint.multiplier.weight)
        if constraint.penalty_coefficient is not None:
            show(f"{name} penalty[{cname}]", constraint.penalty_coefficient.value)
    sd = opt.state_dict()
    print(f"  {name} state_dict keys {sorted(sd)}")


def simultaneous(primal_cls=torch.optim.SGD, dual_cls=torch.optim.SGD, plr=0.5, dlr=0.3,
                 cls=cooper.optim.SimultaneousOptimizer, **dual_kw):
    def make(model, cmp):
        primal = primal_cls(model.parameters(), lr=plr)
        dual = dual_cls(cmp.dual_parameters(), lr=dlr, maximize=True, **dual_kw)
        return cls(cmp=cmp, primal_optimizers=primal, dual_optimizers=dual)
    return make


@variant("cooper")
def _():
    X, y = logreg_data(32, 3)
    cooper_run("sim_sgd", NormConstrainedLogReg(1.0), simultaneous(), (X, y))
    cooper_run("sim_adam", NormConstrainedLogReg(1.0),
               simultaneous(torch.optim.Adam, plr=0.05), (X, y))
    cooper_run("alt_pd", NormConstrainedLogReg(1.0),
               simultaneous(cls=cooper.optim.AlternatingPrimalDualOptimizer), (X, y))
    cooper_run("alt_dp", NormConstrainedLogReg(1.0),
               simultaneous(cls=cooper.optim.AlternatingDualPrimalOptimizer), (X, y))
    cooper_run("nupi", NormConstrainedLogReg(1.0),
               simultaneous(dual_cls=cooper.optim.nuPI, Kp=0.5, Ki=1.0, ema_nu=0.1), (X, y))

    def extra(model, cmp):
        primal = cooper.optim.ExtraSGD(model.parameters(), lr=0.3)
        dual = cooper.optim.ExtraAdam(cmp.dual_parameters(), lr=0.1, maximize=True)
        return cooper.optim.ExtrapolationConstrainedOptimizer(
            cmp=cmp, primal_optimizers=primal, dual_optimizers=dual)

    cooper_run("extragradient", NormConstrainedLogReg(1.0), extra, (X, y))
    pc = cooper.penalty_coefficients.DensePenaltyCoefficient(torch.tensor(1.0, dtype=DT[0]))
    aug = NormConstrainedLogReg(1.0, cooper.formulations.AugmentedLagrangian, pc)
    updater = cooper.penalty_coefficients.MultiplicativePenaltyCoefficientUpdater(
        growth_factor=1.5, violation_tolerance=1e-3)

    def make_aug(model, cmp):
        primal = torch.optim.SGD(model.parameters(), lr=0.3)
        dual = torch.optim.SGD(cmp.dual_parameters(), lr=1.0, maximize=True)
        return cooper.optim.AlternatingDualPrimalOptimizer(
            cmp=cmp, primal_optimizers=primal, dual_optimizers=dual)

    torch.manual_seed(2)
    model = nn.Linear(3, 1).to(DT[0])
    opt = make_aug(model, aug)
    for step in range(5):
        out = opt.roll(compute_cmp_state_kwargs={"model": model, "X": X, "y": y})
        for constraint, cstate in out.cmp_state.observed_constraints.items():
            updater.update_penalty_coefficient_(constraint, cstate)
        print(f"  augmented step {step} loss {float(out.loss)!r} "
              f"penalty {float(pc.value)!r} multiplier {float(aug.constraint.multiplier.weight)!r}")
    show("augmented weight", model.weight)
    pc2 = cooper.penalty_coefficients.DensePenaltyCoefficient(torch.tensor(2.0, dtype=DT[0]))
    quad = NormConstrainedLogReg(1.0, cooper.formulations.QuadraticPenalty, pc2,
                                 multiplier=False)

    def make_unc(model, cmp):
        return cooper.optim.UnconstrainedOptimizer(
            cmp=cmp, primal_optimizers=torch.optim.SGD(model.parameters(), lr=0.3))

    cooper_run("quadratic_penalty", quad, make_unc, (X, y), steps=4)
    g = (torch.rand(32, dtype=DT[0]) > 0.5).long()
    Xf = torch.cat([X, g.to(DT[0]).unsqueeze(1)], 1)
    cooper_run("fairness", FairLogReg(), simultaneous(plr=0.5, dlr=0.5), (Xf, y, g), steps=6)
    # Lagrangian value and multipliers' state_dict
    cmp = NormConstrainedLogReg(0.5)
    torch.manual_seed(2)
    model = nn.Linear(3, 1).to(DT[0])
    state = cmp.compute_cmp_state(model, X, y)
    store = state.compute_primal_lagrangian()
    show("lagrangian", store.lagrangian)
    store.lagrangian.backward()
    show("lagrangian grad_w", model.weight.grad)
    print(f"  cmp state_dict {sorted(cmp.state_dict())}")


class MTL(nn.Module):
    def __init__(self):
        super().__init__()
        self.shared = nn.Sequential(nn.Linear(5, 6), nn.ReLU(), nn.Linear(6, 4), nn.Tanh())
        self.head1 = nn.Linear(4, 1)
        self.head2 = nn.Linear(4, 1)


def aggregators():
    dt = DT[0]
    return [("UPGrad", agg.UPGrad()), ("MGDA", agg.MGDA()), ("PCGrad", agg.PCGrad()),
            ("Mean", agg.Mean()), ("Sum", agg.Sum()), ("DualProj", agg.DualProj()),
            ("AlignedMTL", agg.AlignedMTL()), ("IMTLG", agg.IMTLG()),
            ("TrimmedMean", agg.TrimmedMean(0)),
            ("ConFIG", agg.ConFIG()),
            ("Constant", agg.Constant(torch.tensor([0.7, 0.3], dtype=dt))),
            ("GradVac", agg.GradVac()), ("PCD", agg.PCD()), ("FairGrad", agg.FairGrad(alpha=1.0)),
            ("ExcessMTL", agg.ExcessMTL()), ("GradDrop", agg.GradDrop()),
            ("Random", agg.Random()),
            ("UPGrad_pref", agg.UPGrad(torch.tensor([0.2, 0.8], dtype=dt)))]


@variant("torchjd")
def _():
    X = torch.randn(16, 5, dtype=DT[0])
    y1 = torch.randn(16, 1, dtype=DT[0])
    y2 = torch.randn(16, 1, dtype=DT[0])
    J = torch.randn(2, 7, dtype=DT[0])
    for name, aggregator in aggregators():
        torch.manual_seed(3)
        attempt(f"{name} on_matrix", lambda aggregator=aggregator: aggregator(J))
    J5 = torch.randn(5, 7, dtype=DT[0])
    attempt("Krum on_matrix", lambda: agg.Krum(n_byzantine=1, n_selected=2)(J5))
    attempt("TrimmedMean1 on_matrix", lambda: agg.TrimmedMean(1)(J5))
    attempt("MGDA5 on_matrix", lambda: agg.MGDA()(J5))
    attempt("UPGrad5 on_matrix", lambda: agg.UPGrad()(J5))
    for name, aggregator in aggregators():
        torch.manual_seed(4)
        model = MTL().to(DT[0])
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
        try:
            for step in range(3):
                feats = model.shared(X)
                l1 = nn.functional.mse_loss(model.head1(feats), y1)
                l2 = nn.functional.mse_loss(model.head2(feats), y2)
                autojac.mtl_backward([l1, l2], features=feats)
                w = autojac.jac_to_grad(model.shared.parameters(), aggregator)
                if step == 0:
                    show(f"{name} weights", w)
                    show(f"{name} grads", [p.grad for p in model.parameters()])
                opt.step()
                opt.zero_grad()
                print(f"  {name} step {step} losses {float(l1)!r} {float(l2)!r}")
        except Exception as e:  # noqa: BLE001
            print(f"  {name} raised {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
        show(f"{name} params", list(model.parameters()))
    # autojac.backward on the whole model, with chunks, and jac
    torch.manual_seed(4)
    model = MTL().to(DT[0])
    feats = model.shared(X)
    l1 = nn.functional.mse_loss(model.head1(feats), y1)
    l2 = nn.functional.mse_loss(model.head2(feats), y2)
    jacs = autojac.jac([l1, l2], list(model.shared.parameters()), retain_graph=True)
    show("jac", jacs)
    autojac.backward([l1, l2], parallel_chunk_size=1)
    autojac.jac_to_grad(list(model.parameters()), agg.UPGrad())
    show("backward_upgrad grads", [p.grad for p in model.parameters()])
    # per-sample losses: Jacobian of a vector of 16 losses
    model.zero_grad()
    out = model.head1(model.shared(X))
    losses = (out - y1).squeeze(1) ** 2
    autojac.backward(losses)
    autojac.jac_to_grad(list(model.shared.parameters()) + list(model.head1.parameters()),
                        agg.UPGrad(), optimize_gramian_computation=True)
    show("per_sample grads", [p.grad for p in model.parameters() if p.grad is not None])
    # autogram Engine: Gramian of per-sample losses, weights, backward
    torch.manual_seed(5)
    seq = nn.Sequential(nn.Linear(5, 4), nn.ReLU(), nn.Linear(4, 1)).to(DT[0])
    opt = torch.optim.SGD(seq.parameters(), lr=0.1)
    weighting = agg.UPGradWeighting()
    for batch_dim in (0, None):
        engine = attempt(f"engine batch_dim={batch_dim}",
                         lambda batch_dim=batch_dim: Engine(seq, batch_dim=batch_dim))
        if engine is None:
            continue
        for step in range(2):
            try:
                out = seq(X).squeeze(1)
                losses = nn.functional.mse_loss(out, y1.squeeze(1), reduction="none")
                gramian = engine.compute_gramian(losses)
                weights = weighting(gramian)
                losses.backward(weights)
                if step == 0:
                    show(f"autogram{batch_dim} gramian", gramian)
                    show(f"autogram{batch_dim} weights", weights)
                    show(f"autogram{batch_dim} grads", [p.grad for p in seq.parameters()])
                opt.step()
                opt.zero_grad()
            except Exception as e:  # noqa: BLE001
                print(f"  autogram{batch_dim} raised {type(e).__name__}: "
                      f"{str(e).splitlines()[0] if str(e) else ''}")
                break
        show(f"autogram{batch_dim} params", list(seq.parameters()))


class MuMLP(nn.Module):
    def __init__(self, width, d_in=6, d_out=3):
        super().__init__()
        self.fc1 = nn.Linear(d_in, width)
        self.fc2 = nn.Linear(width, width)
        self.readout = mup.MuReadout(width, d_out, output_mult=2.0)

    def forward(self, x):
        return self.readout(torch.relu(self.fc2(torch.relu(self.fc1(x)))))


@variant("mup")
def _():
    X = torch.randn(20, 6, dtype=DT[0])
    y = torch.randint(0, 3, (20,))
    for optname in ("MuAdam", "MuAdamW", "MuSGD"):
        for width in (8, 32):
            torch.manual_seed(6)
            base, delta = MuMLP(4), MuMLP(5)
            model = MuMLP(width).to(DT[0])
            mup.set_base_shapes(model, base, delta=delta)
            for name, p in model.named_parameters():
                if "weight" in name and "readout" not in name:
                    mup.init.kaiming_uniform_(p, a=5 ** 0.5)
            if width == 8:
                shapes = [(n, str(p.infshape), p.infshape.width_mult())
                          for n, p in model.named_parameters()]
                print(f"  infshapes {shapes}")
            show(f"{optname} w{width} init", list(model.parameters()))
            kw = {"lr": 0.05, "weight_decay": 0.01}
            if optname == "MuSGD":
                kw["momentum"] = 0.9
            opt = getattr(mup, optname)(model.parameters(), **kw)
            groups = [(len(g["params"]), g["lr"], g["weight_decay"]) for g in opt.param_groups]
            print(f"  {optname} groups {groups}")
            for step in range(4):
                loss = nn.functional.cross_entropy(model(X), y)
                opt.zero_grad()
                loss.backward()
                if step == 0:
                    show(f"{optname} w{width} grads", [p.grad for p in model.parameters()])
                opt.step()
                print(f"  {optname} w{width} step {step} loss {float(loss)!r}")
            show(f"{optname} w{width} params", list(model.parameters()))
    # mup.init variants and MuSharedReadout
    torch.manual_seed(7)
    model = MuMLP(16).to(DT[0])
    mup.set_base_shapes(model, MuMLP(4), delta=MuMLP(5))
    for fn, args in (("uniform_", (-0.5, 0.5)), ("normal_", ()), ("xavier_uniform_", ()),
                     ("xavier_normal_", ()), ("kaiming_normal_", ()), ("uniform_", (0.0, 1.0))):
        torch.manual_seed(8)
        t = model.fc2.weight if args != (0.0, 1.0) else model.fc1.weight
        getattr(mup.init, fn)(t, *args)
        show(f"init.{fn}", t)
    emb = nn.Embedding(10, 16).to(DT[0])
    shared = mup.MuSharedReadout(emb.weight, bias=False)
    mup.set_base_shapes(shared, None)
    show("shared_readout", shared(torch.randn(2, 16, dtype=DT[0])))


def main(argv):
    names = list(VARIANTS) if argv in ([], ["all"]) else argv
    runs = []
    for name in names:
        base = name[:-2] if name[-2:] in ("32", "64") else name
        if base not in VARIANTS:
            sys.exit(f"unknown variant {name}; known: {' '.join(VARIANTS)}")
        dtypes = {"32": [torch.float32], "64": [torch.float64]}.get(
            name[-2:], [torch.float32, torch.float64])
        runs += [(base, dt) for dt in dtypes]
    for name, dt in runs:
        start = time.time()
        torch.manual_seed(0)
        DT[0] = dt
        torch.set_default_dtype(dt)
        print(f"== {name} {str(dt).replace('torch.', '')}")
        VARIANTS[name]()
        torch.set_default_dtype(torch.float32)
        print(f"[{name} {dt}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
