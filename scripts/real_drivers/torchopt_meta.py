"""Driver of TorchOpt (docs/real-programs.md): the installed package, unchanged, on tiny models
and problems: its functional optimizers (``torchopt.sgd``/``adam``/``adamw``/``rmsprop``/...,
chained with ``clip_grad_norm``, hooks and schedules, stepped with ``torch.func.grad`` and
``apply_updates``), its OOP optimizers and ``FuncOptimizer``, MAML inner loops through its
differentiable meta-optimizers (``MetaSGD``/``MetaAdam``... with ``extract_state_dict``,
``recover_state_dict`` and ``stop_gradient``), a functorch-style MAML over ``vmap``-ed tasks,
implicit differentiation (``custom_root`` on a ridge regression with its linear solvers, an
``ImplicitMetaGradientModule``), zero-order gradient estimates (its three methods and a
``ZeroOrderGradientModule``), its linear algebra (``cg``, ``ns``) and its ``optree`` pytree
helpers, printing losses, parameters and meta-gradients at full precision.

    python scripts/shared_rng_run.py drive_torchopt.py [VARIANT ... | all]            # PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_torchopt.py [VARIANT ... | all]  # jtorch

Without arguments it runs every variant (``all`` too). Each variant reseeds
(``torch.manual_seed``), so a subset prints what the full run prints for it; the zero-order
estimates draw their perturbations from ``torch.distributions.Normal``, which the wrapper routes
to the shared stream. TorchOpt's C++ ops are not built for this PyTorch, so every optimizer runs
its pure-Python path (``use_accelerated_op=False``). ``TORCHOPT_FLOAT64=1`` runs everything in
float64 (to tell float32 rounding from a bug).
"""

import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import torchopt  # noqa: E402
from torchopt import pytree  # noqa: E402

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
    w = 1.0 + (torch.arange(t.numel(), dtype=torch.float64) % 7) / 6
    return (f"abssum {t.abs().sum().item()!r} wsum {(t * w).sum().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def out(name, *parts):
    print(name, *parts)


def show(name, value):
    """A tensor, a tree of tensors (its leaves in optree's order) or a number."""
    if isinstance(value, torch.Tensor):
        if value.numel() <= 6:
            out(name, list(value.shape), [repr(v) for v in value.detach().double().flatten()
                                          .tolist()])
        else:
            out(name, list(value.shape), checksum(value))
    elif isinstance(value, float | int):
        out(name, repr(value))
    else:
        leaves = pytree.tree_leaves(value)
        for i, leaf in enumerate(leaves):
            show(f"{name}[{i}]", leaf)


class MLP(nn.Module):
    def __init__(self, n_in=4, hidden=8, n_out=2):
        super().__init__()
        self.fc1 = nn.Linear(n_in, hidden)
        self.fc2 = nn.Linear(hidden, n_out)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


def regression_data(n=16, n_in=4, n_out=2):
    x = torch.randn(n, n_in)
    y = torch.randn(n, n_out)
    return x, y


# ---------------------------------------------------------------- functional optimizers


FUNCTIONAL = {
    "sgd": lambda: torchopt.sgd(0.1),
    "sgd_momentum_nesterov": lambda: torchopt.sgd(0.05, momentum=0.9, nesterov=True,
                                                  weight_decay=1e-3),
    "sgd_dampening": lambda: torchopt.sgd(0.05, momentum=0.9, dampening=0.5),
    "adam": lambda: torchopt.adam(1e-2, use_accelerated_op=False),
    "adam_eps_root": lambda: torchopt.adam(1e-2, betas=(0.8, 0.95), eps_root=1e-8,
                                           weight_decay=1e-2, use_accelerated_op=False),
    "adamw": lambda: torchopt.adamw(1e-2, weight_decay=0.1, use_accelerated_op=False),
    # the fused op's autograd.Function with its pure-Python kernels (torchopt._C does not load)
    "adam_accelerated_fallback": lambda: torchopt.adam(1e-2, use_accelerated_op=True),
    "rmsprop": lambda: torchopt.rmsprop(1e-2, alpha=0.9, momentum=0.5),
    "rmsprop_centered": lambda: torchopt.rmsprop(1e-2, centered=True, weight_decay=1e-3),
    "adagrad": lambda: torchopt.adagrad(0.1, lr_decay=0.01, initial_accumulator_value=0.1),
    "adamax": lambda: torchopt.adamax(2e-2),
    "radam": lambda: torchopt.radam(1e-2),
    "adadelta": lambda: torchopt.adadelta(1.0, rho=0.9),
    "maximize_sgd": lambda: torchopt.sgd(0.1, maximize=True),
    "chain_clip_adam": lambda: torchopt.chain(torchopt.clip_grad_norm(max_norm=0.5),
                                              torchopt.adam(1e-2, use_accelerated_op=False)),
    "chain_nan_to_num": lambda: torchopt.chain(torchopt.nan_to_num(0.0), torchopt.sgd(0.1)),
    "linear_schedule": lambda: torchopt.sgd(torchopt.schedule.linear_schedule(
        0.2, 0.02, transition_steps=4, transition_begin=1)),
    "polynomial_schedule": lambda: torchopt.adam(torchopt.schedule.polynomial_schedule(
        1e-2, 1e-3, power=2, transition_steps=5), use_accelerated_op=False),
    "exponential_decay": lambda: torchopt.adam(torchopt.schedule.exponential_decay(
        1e-2, decay_rate=0.5, transition_steps=2, transition_begin=1, staircase=True,
        end_value=2e-3), use_accelerated_op=False),
}


@variant("functional")
def _():
    """Each functional optimizer, six steps of ``torch.func.grad`` on a functional_call."""
    model = MLP()
    x, y = regression_data()
    init = {k: v.detach().clone() for k, v in model.named_parameters()}

    def loss_fn(params):
        return F.mse_loss(torch.func.functional_call(model, params, (x,)), y)

    grad_fn = torch.func.grad_and_value(loss_fn)
    for name, make in FUNCTIONAL.items():
        optimizer = make()
        params = {k: v.clone() for k, v in init.items()}
        state = optimizer.init(params)
        losses = []
        for _ in range(6):
            grads, loss = grad_fn(params)
            updates, state = optimizer.update(grads, state, params=params, inplace=False)
            params = torchopt.apply_updates(params, updates, inplace=False)
            losses.append(loss.item())
        out(f"functional {name} losses", [repr(v) for v in losses])
        show(f"functional {name} fc1.weight", params["fc1.weight"])
        show(f"functional {name} fc2.bias", params["fc2.bias"])


@variant("functional_inplace")
def _():
    """The in-place form: ``update(inplace=True)`` and ``apply_updates`` on a tuple of leaves
    whose ``.grad`` comes from ``backward``."""
    model = MLP()
    x, y = regression_data()
    params = tuple(model.parameters())
    optimizer = torchopt.adam(1e-2, use_accelerated_op=False)
    state = optimizer.init(params)
    for step in range(5):
        loss = F.mse_loss(model(x), y)
        grads = torch.autograd.grad(loss, params)
        updates, state = optimizer.update(grads, state, inplace=True)
        torchopt.apply_updates(params, updates)
        out(f"functional_inplace step {step} loss", repr(loss.item()))
    show("functional_inplace params", params)
    show("functional_inplace state", state)


# ---------------------------------------------------------------- OOP optimizers


@variant("oop")
def _():
    """torchopt's OOP optimizers (torch.optim-like) and FuncOptimizer."""
    x, y = regression_data()
    makers = {
        "SGD": lambda p: torchopt.SGD(p, lr=0.1, momentum=0.9),
        "Adam": lambda p: torchopt.Adam(p, lr=1e-2, use_accelerated_op=False),
        "AdamW": lambda p: torchopt.AdamW(p, lr=1e-2, weight_decay=0.05,
                                          use_accelerated_op=False),
        "RMSprop": lambda p: torchopt.RMSprop(p, lr=1e-2, momentum=0.3, centered=True),
        "Adagrad": lambda p: torchopt.Adagrad(p, lr=0.1),
        "Adamax": lambda p: torchopt.Adamax(p, lr=1e-2),
        "RAdam": lambda p: torchopt.RAdam(p, lr=1e-2),
        "Adadelta": lambda p: torchopt.Adadelta(p, lr=1.0),
    }
    torch.manual_seed(1)
    init = MLP().state_dict()
    for name, make in makers.items():
        model = MLP()
        model.load_state_dict(init)
        optimizer = make(model.parameters())
        losses = []
        for _ in range(5):
            loss = F.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        out(f"oop {name} losses", [repr(v) for v in losses])
        show(f"oop {name} fc1.weight", model.fc1.weight)
        state = optimizer.state_dict()
        show(f"oop {name} state", state)
    # FuncOptimizer: params in, params out
    model = MLP()
    model.load_state_dict(init)
    params = tuple(p.detach().clone().requires_grad_() for p in model.parameters())
    names = [k for k, _ in model.named_parameters()]
    fopt = torchopt.FuncOptimizer(torchopt.adam(1e-2, use_accelerated_op=False))
    for step in range(4):
        pred = torch.func.functional_call(model, dict(zip(names, params, strict=True)), (x,))
        loss = F.mse_loss(pred, y)
        params = fopt.step(loss, params)
        out(f"oop FuncOptimizer step {step} loss", repr(loss.item()))
    show("oop FuncOptimizer params", params)


# ---------------------------------------------------------------- MAML with meta-optimizers


def sine_tasks(n_tasks=3, n=10):
    """Tiny sine-regression tasks: (support x, support y, query x, query y)."""
    tasks = []
    for _ in range(n_tasks):
        amp = 0.5 + 2.0 * torch.rand(())
        phase = 3.0 * torch.rand(())
        xs = 10.0 * torch.rand(n, 1) - 5.0
        xq = 10.0 * torch.rand(n, 1) - 5.0
        tasks.append((xs, amp * torch.sin(xs + phase), xq, amp * torch.sin(xq + phase)))
    return tasks


class SineNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(1, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(),
                                 nn.Linear(16, 1))

    def forward(self, x):
        return self.net(x)


META = {
    "MetaSGD": lambda m: torchopt.MetaSGD(m, lr=0.05),
    "MetaSGD_momentum": lambda m: torchopt.MetaSGD(m, lr=0.02, momentum=0.9, nesterov=True),
    "MetaAdam": lambda m: torchopt.MetaAdam(m, lr=1e-2, use_accelerated_op=False),
    "MetaAdam_accelerated_fallback": lambda m: torchopt.MetaAdam(m, lr=1e-2,
                                                                 use_accelerated_op=True),
    "MetaAdamW": lambda m: torchopt.MetaAdamW(m, lr=1e-2, weight_decay=0.1,
                                              use_accelerated_op=False),
    "MetaRMSprop": lambda m: torchopt.MetaRMSprop(m, lr=1e-2, momentum=0.5),
    "MetaAdagrad": lambda m: torchopt.MetaAdagrad(m, lr=0.05),
    "MetaAdamax": lambda m: torchopt.MetaAdamax(m, lr=1e-2),
    "MetaRAdam": lambda m: torchopt.MetaRAdam(m, lr=1e-2),
    "MetaAdadelta": lambda m: torchopt.MetaAdadelta(m, lr=1.0),
    "MetaOptimizer_hook_clip": lambda m: torchopt.MetaOptimizer(m, torchopt.chain(
        torchopt.register_hook(torchopt.hook.zero_nan_hook), torchopt.clip_grad_norm(1.0),
        torchopt.sgd(0.05, moment_requires_grad=True))),
}


@variant("maml")
def _():
    """Two outer steps of MAML (three tasks, three inner steps each) for each meta-optimizer:
    the inner loop runs the differentiable meta-optimizer, extract_state_dict/recover_state_dict
    restore the net and the inner optimizer between tasks, stop_gradient cuts the graph, and
    torch.optim.Adam steps the meta-parameters."""
    tasks = sine_tasks()
    torch.manual_seed(2)
    init = SineNet().state_dict()
    for name, make in META.items():
        net = SineNet()
        net.load_state_dict(init)
        outer = torch.optim.Adam(net.parameters(), lr=1e-3)
        inner = make(net)
        for outer_step in range(2):
            net_state = torchopt.extract_state_dict(net, by="reference", detach_buffers=True)
            opt_state = torchopt.extract_state_dict(inner)
            outer.zero_grad()
            query_losses = []
            for xs, ys, xq, yq in tasks:
                for _ in range(3):
                    inner.step(F.mse_loss(net(xs), ys))
                qloss = F.mse_loss(net(xq), yq)
                qloss.backward()
                query_losses.append(qloss.item())
                torchopt.recover_state_dict(net, net_state)
                torchopt.recover_state_dict(inner, opt_state)
            out(f"maml {name} outer {outer_step} query losses", [repr(v) for v in query_losses])
            show(f"maml {name} outer {outer_step} meta-grad net.0.weight",
                 net.net[0].weight.grad)
            show(f"maml {name} outer {outer_step} meta-grad net.4.bias", net.net[4].bias.grad)
            outer.step()
            torchopt.stop_gradient(net)
            torchopt.stop_gradient(inner)
        show(f"maml {name} final net.2.weight", net.net[2].weight)


@variant("maml_copy")
def _():
    """extract_state_dict(by='copy'), module_clone(by='deepcopy'/'clone') and a learned
    inner learning rate (a meta-parameter inside a MetaSGD inner step built by hand with
    torchopt.sgd's functional update, inplace=False)."""
    tasks = sine_tasks(2)
    net = SineNet()
    log_lr = torch.tensor(-2.0, requires_grad=True)
    saved = torchopt.extract_state_dict(net, by="copy")
    clone = torchopt.module_clone(net, by="clone")
    deep = torchopt.module_clone(net, by="deepcopy", detach_buffers=True)
    show("maml_copy clone net.0.bias", clone.net[0].bias)
    show("maml_copy deepcopy net.0.bias", deep.net[0].bias)
    meta_params = list(net.parameters()) + [log_lr]
    for xs, ys, xq, yq in tasks:
        params = tuple(net.parameters())
        names = [k for k, _ in net.named_parameters()]
        for _ in range(2):
            pred = torch.func.functional_call(net, dict(zip(names, params, strict=True)), (xs,))
            grads = torch.autograd.grad(F.mse_loss(pred, ys), params, create_graph=True)
            params = tuple(p - log_lr.exp() * g for p, g in zip(params, grads, strict=True))
        pred = torch.func.functional_call(net, dict(zip(names, params, strict=True)), (xq,))
        qloss = F.mse_loss(pred, yq)
        grads = torch.autograd.grad(qloss, meta_params)
        out("maml_copy query loss", repr(qloss.item()))
        show("maml_copy meta-grad log_lr", grads[-1])
        show("maml_copy meta-grad net.0.weight", grads[0])
    torchopt.recover_state_dict(net, saved)
    show("maml_copy recovered net.0.weight", net.net[0].weight)


@variant("functorch_maml")
def _():
    """functorch-style MAML: the inner loop is torchopt.sgd's functional update on a params
    dict (inplace=False, differentiable), the outer loss is vmap-ped over a batch of tasks and
    differentiated by torch.func.grad."""
    net = SineNet()
    tasks = sine_tasks(4)
    xs = torch.stack([t[0] for t in tasks])
    ys = torch.stack([t[1] for t in tasks])
    xq = torch.stack([t[2] for t in tasks])
    yq = torch.stack([t[3] for t in tasks])
    params = {k: v.detach() for k, v in net.named_parameters()}
    inner_opt = torchopt.sgd(0.05)  # momentum would add_ a batched grad to an unbatched trace

    def task_loss(params, x, y):
        return F.mse_loss(torch.func.functional_call(net, params, (x,)), y)

    def adapt_and_eval(params, xs, ys, xq, yq):
        state = inner_opt.init(params)
        for _ in range(2):
            grads = torch.func.grad(task_loss)(params, xs, ys)
            updates, state = inner_opt.update(grads, state, inplace=False)
            params = torchopt.apply_updates(params, updates, inplace=False)
        return task_loss(params, xq, yq)

    def outer_loss(params):
        losses = torch.func.vmap(adapt_and_eval, in_dims=(None, 0, 0, 0, 0))(
            params, xs, ys, xq, yq)
        return losses.mean(), losses

    outer_opt = torchopt.adam(1e-2, use_accelerated_op=False)
    outer_state = outer_opt.init(params)
    for step in range(3):
        meta_grads, losses = torch.func.grad(outer_loss, has_aux=True)(params)
        out(f"functorch_maml step {step} task losses",
            [repr(v) for v in losses.detach().double().tolist()])
        show(f"functorch_maml step {step} meta-grad net.0.weight", meta_grads["net.0.weight"])
        show(f"functorch_maml step {step} meta-grad net.4.bias", meta_grads["net.4.bias"])
        updates, outer_state = outer_opt.update(meta_grads, outer_state, inplace=False)
        params = torchopt.apply_updates(params, updates, inplace=False)
    show("functorch_maml final net.2.weight", params["net.2.weight"])


@variant("extras")
def _():
    """Parameter groups (add_param_group), the state_dict round trip of an OOP and a meta
    optimizer, module_detach_, nn.stateless.reparametrize and a MetaGradientModule holding a
    meta-parameter."""
    x, y = regression_data()
    model = MLP()
    optimizer = torchopt.Adam(list(model.fc1.parameters()), lr=1e-2, use_accelerated_op=False)
    optimizer.add_param_group(list(model.fc2.parameters()))
    for _ in range(3):
        loss = F.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    out("extras groups loss", repr(loss.item()))
    saved = optimizer.state_dict()
    show("extras groups state", saved)
    fresh = torchopt.Adam(model.parameters(), lr=1e-2, use_accelerated_op=False)
    fresh.load_state_dict((pytree.tree_map(torch.clone, saved[0]),))
    show("extras loaded state", fresh.state_dict())

    net = MLP()
    inner = torchopt.MetaAdam(net, lr=1e-2, use_accelerated_op=False)
    inner.step(F.mse_loss(net(x), y))
    state = inner.state_dict()
    inner.step(F.mse_loss(net(x), y))
    inner.load_state_dict(state)
    inner.step(F.mse_loss(net(x), y))
    show("extras meta state", inner.state_dict())
    torchopt.module_detach_(net)
    out("extras detached", [p.grad_fn is None for p in net.parameters()])
    zeros = {k: torch.zeros_like(v) for k, v in net.named_parameters()}
    with torchopt.nn.stateless.reparametrize(net, zeros):
        show("extras reparametrized", net(x))
    show("extras restored", net(x))

    class Scaled(torchopt.nn.MetaGradientModule):
        def __init__(self, scale):
            super().__init__()
            self.scale = scale  # a meta-parameter: a tensor requiring grad, not a Parameter
            self.fc = nn.Linear(4, 2)

        def forward(self, x):
            return self.scale * self.fc(x)

    scale = nn.Parameter(torch.tensor(1.5))
    module = Scaled(scale)
    out("extras meta parameters", [n for n, _ in module.named_meta_parameters()],
        "parameters", [n for n, _ in module.named_parameters()])
    inner = torchopt.MetaSGD(module, lr=0.1)
    inner.step(F.mse_loss(module(x), y))
    (g,) = torch.autograd.grad(F.mse_loss(module(x), y), scale)
    show("extras meta-grad scale", g)


# ---------------------------------------------------------------- implicit differentiation


def ridge_objective(params, l2reg, x, y):
    residual = x @ params - y
    return 0.5 * (residual ** 2).mean() + 0.5 * l2reg * (params ** 2).sum()


def ridge_optimality(params, l2reg, x, y):
    """The gradient of the ridge objective (zero at the solution), written out."""
    n = x.shape[0]
    return x.T @ (x @ params - y) / n + l2reg * params


@variant("implicit")
def _():
    """Ridge regression solved in closed form (and by gradient descent), differentiated through
    its optimality condition by custom_root with each linear solver; compared with the gradient
    of the closed form."""
    x = torch.randn(12, 5)
    y = torch.randn(12)
    l2reg = torch.tensor(0.3, requires_grad=True)
    xv = torch.randn(6, 5)
    yv = torch.randn(6)

    def closed_form(l2reg):
        n = x.shape[0]
        a = x.T @ x / n + l2reg * torch.eye(5)
        return torch.linalg.solve(a, x.T @ y / n)

    def outer(w):
        return F.mse_loss(xv @ w, yv)

    w = closed_form(l2reg)
    show("implicit closed form w", w)
    (g_direct,) = torch.autograd.grad(outer(w), l2reg)
    show("implicit closed form d outer / d l2reg", g_direct)
    solvers = {
        "normal_cg": torchopt.linear_solve.solve_normal_cg(rtol=1e-7, maxiter=50),
        "cg": torchopt.linear_solve.solve_cg(rtol=1e-7, maxiter=50),
        "cg_ridge": torchopt.linear_solve.solve_cg(ridge=1e-4, rtol=1e-7, maxiter=50),
        "inv": torchopt.linear_solve.solve_inv(),
        "inv_ns": torchopt.linear_solve.solve_inv(ns=True, maxiter=60, alpha=0.5),
    }
    for name, solve in solvers.items():
        @torchopt.diff.implicit.custom_root(ridge_optimality, argnums=1, solve=solve)
        def ridge_solver(params, l2reg, x, y):
            n = x.shape[0]
            a = x.T @ x / n + l2reg.detach() * torch.eye(5)
            return torch.linalg.solve(a, x.T @ y / n)

        w = ridge_solver(torch.zeros(5), l2reg, x, y)
        (g,) = torch.autograd.grad(outer(w), l2reg)
        show(f"implicit {name} w", w)
        show(f"implicit {name} d outer / d l2reg", g)

    # an iterative inner solver (functional SGD) and the objective's torch.func.grad as the
    # optimality function, with argnums over two meta-arguments and has_aux
    def optimality_from_objective(params, l2reg, x, y):
        return torch.func.grad(ridge_objective)(params, l2reg, x, y)

    @torchopt.diff.implicit.custom_root(optimality_from_objective, argnums=(1, 2),
                                        has_aux=True)
    def gd_solver(params, l2reg, x, y):
        params = params.detach().clone().requires_grad_()
        opt = torchopt.sgd(0.3)
        state = opt.init(params)
        with torch.enable_grad():
            for _ in range(200):
                loss = ridge_objective(params, l2reg.detach(), x.detach(), y)
                (g,) = torch.autograd.grad(loss, params)
                updates, state = opt.update(g, state)
                params = torchopt.apply_updates(params, updates, inplace=False)
        return params.detach(), loss.detach()

    xr = x.clone().requires_grad_()
    w, final_loss = gd_solver(torch.zeros(5), l2reg, xr, y)
    show("implicit gd w", w)
    show("implicit gd inner loss", final_loss)
    g_l2, g_x = torch.autograd.grad(outer(w), (l2reg, xr))
    show("implicit gd d outer / d l2reg", g_l2)
    show("implicit gd d outer / d x", g_x)


class RidgeModule(torchopt.diff.implicit.ImplicitMetaGradientModule,
                  linear_solve=torchopt.linear_solve.solve_normal_cg(rtol=1e-7, maxiter=60)):
    """A linear model whose weight is the inner solution and whose (log) ridge penalty and
    prior are meta-parameters."""

    def __init__(self, meta_prior, log_l2reg, n_in):
        super().__init__()
        self.meta_prior = meta_prior
        self.log_l2reg = log_l2reg
        self.weight = nn.Parameter(torch.zeros(n_in))

    def forward(self, x):
        return x @ self.weight

    def objective(self, x, y):
        reg = self.log_l2reg.exp() * ((self.weight - self.meta_prior) ** 2).sum()
        return 0.5 * F.mse_loss(self(x), y) + 0.5 * reg

    def solve(self, x, y):
        params = tuple(self.parameters())
        optimizer = torch.optim.SGD(params, lr=0.3)
        with torch.enable_grad():
            for _ in range(300):
                loss = self.objective(x, y)
                optimizer.zero_grad()
                loss.backward(inputs=params)
                optimizer.step()
        return self


@variant("implicit_module")
def _():
    """ImplicitMetaGradientModule: the optimality derived from objective(), the meta-gradient
    of a validation loss for the prior and the log penalty, two outer Adam steps."""
    x = torch.randn(20, 4)
    y = x @ torch.tensor([1.0, -2.0, 0.5, 0.0]) + 0.1 * torch.randn(20)
    xv, yv = torch.randn(8, 4), torch.randn(8)
    meta_prior = nn.Parameter(torch.zeros(4))
    log_l2reg = nn.Parameter(torch.tensor(-1.0))
    outer = torch.optim.Adam([meta_prior, log_l2reg], lr=0.05)
    for step in range(2):
        inner = RidgeModule(meta_prior, log_l2reg, 4)
        inner.solve(x, y)
        show(f"implicit_module step {step} weight", inner.weight)
        residual = max(r.abs().max().item() for r in inner.optimality(x, y))
        out(f"implicit_module step {step} optimality residual below 1e-6", residual < 1e-6)
        loss = F.mse_loss(inner(xv), yv)
        outer.zero_grad()
        loss.backward()
        out(f"implicit_module step {step} val loss", repr(loss.item()))
        show(f"implicit_module step {step} meta-grad prior", meta_prior.grad)
        show(f"implicit_module step {step} meta-grad log_l2reg", log_l2reg.grad)
        outer.step()


# ---------------------------------------------------------------- zero-order


@variant("zero_order")
def _():
    """Zero-order gradient estimates of a non-smooth loss by each method (64 Gaussian
    perturbations of the parameters drawn from torch.distributions.Normal), next to the true
    gradient; then a ZeroOrderGradientModule trained for three steps."""
    x = torch.randn(10, 3)
    y = torch.randn(10)
    w0 = torch.tensor([0.3, -0.5, 0.8])
    distribution = torch.distributions.Normal(torch.tensor(0.0), torch.tensor(1.0))

    def loss_fn(w, x, y):
        return (x @ w - y).abs().mean()

    w = w0.clone().requires_grad_()
    (g_true,) = torch.autograd.grad(loss_fn(w, x, y), w)
    show("zero_order true grad", g_true)
    for method in ("naive", "forward", "antithetic"):
        torch.manual_seed(5)
        estimator = torchopt.diff.zero_order.zero_order(distribution, method=method,
                                                        argnums=0, num_samples=64,
                                                        sigma=0.01)(loss_fn)
        w = w0.clone().requires_grad_()
        loss = estimator(w, x, y)
        (g,) = torch.autograd.grad(loss, w)
        out(f"zero_order {method} loss", repr(loss.item()))
        show(f"zero_order {method} grad", g)

    class Net(torchopt.diff.zero_order.ZeroOrderGradientModule, method="antithetic",
              num_samples=16, sigma=0.05):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 1)
            self.distribution = torch.distributions.Normal(torch.tensor(0.0),
                                                           torch.tensor(1.0))

        def forward(self, x, y):
            return (self.fc(x).squeeze(-1) - y).abs().mean()

        def sample(self, sample_shape=torch.Size()):  # noqa: B008
            return self.distribution.sample(sample_shape)

    torch.manual_seed(6)
    net = Net()
    optimizer = torchopt.Adam(net.parameters(), lr=0.05, use_accelerated_op=False)
    for step in range(3):
        loss = net(x, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        out(f"zero_order module step {step} loss", repr(loss.item()))
        show(f"zero_order module step {step} grad fc.weight", net.fc.weight.grad)
    show("zero_order module fc.weight", net.fc.weight)


# ---------------------------------------------------------------- linear algebra and pytrees


@variant("linalg_pytree")
def _():
    """torchopt.linalg.cg and ns on a matrix and on a tree-valued operator, ns_inv, the
    gradient of cg's solution (implicit), and optree utilities over tensors."""
    m = torch.randn(6, 6)
    a = m @ m.T / 6 + torch.eye(6)
    b = torch.randn(6)
    show("linalg cg matrix", torchopt.linalg.cg(a, b, rtol=1e-7, maxiter=30))
    show("linalg cg x0", torchopt.linalg.cg(a, b, x0=torch.ones(6), maxiter=3))
    show("linalg ns", torchopt.linalg.ns(a, b, maxiter=40, alpha=0.5))
    show("linalg ns_inv", torchopt.linalg.ns_inv(a, maxiter=40, alpha=0.5))
    show("linalg solve reference", torch.linalg.solve(a, b))
    tree_b = {"u": torch.randn(3), "v": torch.randn(2, 2)}

    def tree_matvec(t):
        return {"u": 2.0 * t["u"] + 0.5 * t["u"].sum(), "v": t["v"] @ torch.tensor(
            [[3.0, 1.0], [1.0, 2.0]])}

    show("linalg cg tree", torchopt.linalg.cg(tree_matvec, tree_b, rtol=1e-7, maxiter=30))
    show("linalg ns tree", torchopt.linalg.ns(
        lambda t: pytree.tree_map(lambda v: 0.5 * v, tree_matvec(t)), tree_b, maxiter=60))
    scale = torch.tensor(1.5, requires_grad=True)
    sol = torchopt.linalg.cg(lambda v: scale * (a @ v), b, rtol=1e-8, maxiter=40)
    (g,) = torch.autograd.grad(sol.sum(), scale)
    show("linalg cg d sum / d scale", g)
    show("linalg exact d sum / d scale", -torch.linalg.solve(a, b).sum() / 1.5 ** 2)
    params = {"w": torch.randn(2, 3), "b": (torch.randn(3), torch.ones(()))}
    show("pytree leaves", params)
    out("pytree structure", repr(pytree.tree_structure(params)))
    show("pytree add", pytree.tree_add_scalar_mul(params, params, alpha=0.5))
    show("pytree sub", pytree.tree_sub(params, pytree.tree_map(torch.ones_like, params)))
    show("pytree vdot", pytree.tree_vdot_real(params, params))
    flat, spec = pytree.tree_flatten(params)
    show("pytree unflatten",
         pytree.tree_unflatten(spec, [2 * leaf for leaf in flat]))
    show("pytree truediv", pytree.tree_truediv(params, pytree.tree_map(lambda v: v + 3.0,
                                                                         params)))


# ---------------------------------------------------------------- visual


def graph_summary(name, dot):
    """Print a Digraph's tensor nodes (named leaves and outputs, sorted: node names are ids)
    and, apart, its backward nodes and edge count, whose shape is the framework's own (PyTorch
    records ``F.linear``'s ``weight.t()`` as a node, and a double backward as the ops of each
    derivative formula)."""
    tensors, fns, edges = [], [], 0
    for line in dot.body:
        line = line.strip()
        if " -> " in line:
            edges += 1
        elif "label=" in line:
            label = line.split("label=", 1)[1].split(" fillcolor")[0].split("]")[0]
            (tensors if label.startswith('"') else fns).append(label)
    out(f"{name} tensors", sorted(tensors), "AccumulateGrad", fns.count("AccumulateGrad"))
    out(f"{name} backward nodes", sorted(set(fns) - {"AccumulateGrad"}), "edges", edges)


@variant("visual")
def _():
    """torchopt.visual.make_dot of a loss through a tiny MLP (the autograd graph's backward
    nodes, named parameters and outputs), and of a MetaSGD inner step's graph with the net's
    state extracted with enable_visual=True."""
    net = MLP(3, 4, 1)
    x = torch.randn(5, 3)
    loss = net(x).pow(2).mean()
    graph_summary("visual mlp", torchopt.visual.make_dot(loss, params=net.named_parameters()))
    inner = torchopt.MetaSGD(net, lr=0.1)
    state = torchopt.extract_state_dict(net, enable_visual=True, visual_prefix="step0.")
    inner.step(net(x).pow(2).mean())
    loss = net(x).sum()
    graph_summary("visual meta", torchopt.visual.make_dot(
        loss, params=(state, {"step1." + k: v for k, v in net.named_parameters()})))


# ---------------------------------------------------------------- main


def run(name):
    torch.manual_seed(0)
    print(f"== {name}")
    VARIANTS[name]()


def main(argv):
    if os.environ.get("TORCHOPT_FLOAT64"):  # to tell float32 rounding from a bug
        torch.set_default_dtype(torch.float64)
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
