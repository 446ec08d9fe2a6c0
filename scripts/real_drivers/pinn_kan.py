"""Driver of DeepXDE and pykan (docs/real-programs.md): the ``deepxde`` package (1.15, PyTorch
backend, float64) and ``pykan`` (0.2.8, ``import kan``), installed and used unchanged, train
tiny physics-informed networks and Kolmogorov-Arnold networks and print every loss, metric and
checksums of the predictions and parameters at full precision.

Variants (each reseeds with ``torch.manual_seed`` and ``np.random.seed``, so a subset prints
what the full run prints for it):

- ``poisson``: a 1-D Poisson PINN (``-u'' = pi^2 sin(pi x)`` on ``Interval(0, 1)``,
  DirichletBC, ``dde.data.PDE`` with uniform points, ``dde.nn.FNN`` tanh/Glorot normal, the
  residual through ``dde.grad.hessian``), Adam then L-BFGS, the l2 relative error metric,
  ``model.predict`` with an operator (the PDE residual), save/restore in a temp dir.
- ``ode``: an ODE system (``y1' = y2, y2' = -y1`` on ``TimeDomain``, IC through
  ``dde.icbc.IC``, ``dde.grad.jacobian`` with ``i=``), Adam.
- ``heat``: the heat equation on ``GeometryXTime(Interval, TimeDomain)`` (DirichletBC + IC,
  ``jacobian``/``hessian`` in x and t), Adam then a short L-BFGS.
- ``kan``: a pykan ``KAN(width=[2,3,1], grid=3, k=3)`` on ``create_dataset`` data: forward,
  ``fit`` with LBFGS (grid updates, an l1/entropy penalty), ``refine``,
  ``update_grid_from_samples``, ``prune``, ``suggest_symbolic``/``auto_symbolic`` and the
  symbolic functions' affine parameters, Adam fit with grid updates and the regulariser,
  ``saveckpt``/``loadckpt``, and a MultKAN with a multiplication node.

    DDE_BACKEND=pytorch python scripts/shared_rng_run.py pinn_kan.py [VARIANT ... | all]
    DDE_BACKEND=pytorch python -m jtorch scripts/shared_rng_run.py pinn_kan.py [VARIANT ...]
"""

import contextlib
import os
import shutil
import sys
import tempfile
import time
import warnings

os.environ.setdefault("DDE_BACKEND", "pytorch")

import numpy as np  # noqa: E402
import torch  # noqa: E402

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

with contextlib.redirect_stdout(sys.stderr):
    import deepxde as dde  # noqa: E402

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


def params(name, module):
    for pname, p in module.named_parameters():
        print(f"{name} param {pname} {list(p.shape)} {checksum(p)}")


def train(name, model, **kwargs):
    seen = len(model.losshistory.steps)
    with contextlib.redirect_stdout(sys.stderr):  # progress lines carry timings
        losshistory, state = model.train(**kwargs)
    for step, loss, test, metric in list(zip(losshistory.steps, losshistory.loss_train,
                                             losshistory.loss_test,
                                             losshistory.metrics_test))[seen:]:
        print(f"{name} step {step} loss {[float(v) for v in loss]} "
              f"test {[float(v) for v in test]} metrics {[float(v) for v in metric]}")
    print(f"{name} best step {state.best_step} loss {float(np.sum(state.best_loss_train))!r}")
    return losshistory, state


def lbfgs(maxiter, per_step):
    """L-BFGS options: ``iter_per_step`` (torch.optim.LBFGS's ``max_iter`` per ``step``) is
    derived from ``maxiter`` only when deepxde is imported, so it is set here too."""
    dde.optimizers.set_LBFGS_options(maxiter=maxiter)
    dde.optimizers.config.LBFGS_options["iter_per_step"] = per_step
    dde.optimizers.config.LBFGS_options["fun_per_step"] = int(per_step * 1.25)


def compile_(model, *args, **kwargs):
    with contextlib.redirect_stdout(sys.stderr):
        model.compile(*args, **kwargs)


def adam_then_lbfgs(name, model, adam_iterations, lbfgs_iterations):
    compile_(model, "adam", lr=1e-3, metrics=["l2 relative error"])
    train(f"{name} adam", model, iterations=adam_iterations, display_every=50)
    lbfgs(lbfgs_iterations, 10)
    compile_(model, "L-BFGS", metrics=["l2 relative error"])
    train(f"{name} lbfgs", model, display_every=10)


def seed():
    dde.config.set_random_seed(0)  # random, np.random and torch.manual_seed


@variant("poisson")
def poisson():
    with contextlib.redirect_stdout(sys.stderr):
        dde.config.set_default_float("float64")

    def pde(x, y):
        dy_xx = dde.grad.hessian(y, x)
        return -dy_xx - np.pi ** 2 * torch.sin(np.pi * x)

    def solution(x):
        return np.sin(np.pi * x)

    # on [0, 1]: on a symmetric interval the zero-initialised biases' gradients are zero up to
    # rounding, which Adam's normalisation turns into lr-sized steps of either sign
    geom = dde.geometry.Interval(0, 1)
    bc = dde.icbc.DirichletBC(geom, lambda x: 0, lambda _, on_boundary: on_boundary)
    data = dde.data.PDE(geom, pde, bc, 16, 2, train_distribution="uniform",
                        solution=solution, num_test=25)
    print(f"poisson train_x {checksum(torch.from_numpy(data.train_x))} "
          f"test_x {checksum(torch.from_numpy(data.test_x))}")
    net = dde.nn.FNN([1, 16, 16, 1], "tanh", "Glorot normal")
    params("poisson init", net)
    model = dde.Model(data, net)
    adam_then_lbfgs("poisson", model, 200, 40)
    params("poisson trained", net)

    x = geom.uniform_points(11, True)
    y = model.predict(x)
    print(f"poisson predict {checksum(torch.from_numpy(y))}")
    print(f"poisson l2 rel {dde.metrics.l2_relative_error(solution(x), y)!r}")
    residual = model.predict(x, operator=pde)
    print(f"poisson residual {checksum(torch.from_numpy(residual))}")

    def first(x, y):
        return dde.grad.jacobian(y, x, i=0, j=0)
    dy = model.predict(x, operator=first)
    print(f"poisson dy/dx {checksum(torch.from_numpy(dy))}")

    tmp = tempfile.mkdtemp()
    try:
        path = model.save(os.path.join(tmp, "model"))
        print(f"poisson saved {os.path.basename(path)}")
        net2 = dde.nn.FNN([1, 16, 16, 1], "tanh", "Glorot normal")
        model2 = dde.Model(data, net2)
        compile_(model2, "L-BFGS", metrics=["l2 relative error"])
        with contextlib.redirect_stdout(sys.stderr):
            model2.restore(path)
        y2 = model2.predict(x)
        print(f"poisson restored max diff {float(np.abs(y2 - y).max())!r}")
        lbfgs(10, 5)
        train("poisson resumed", model2, display_every=5)
    finally:
        shutil.rmtree(tmp)


@variant("ode")
def ode():
    with contextlib.redirect_stdout(sys.stderr):
        dde.config.set_default_float("float64")

    def system(x, y):
        y1, y2 = y[:, 0:1], y[:, 1:]
        dy1_x = dde.grad.jacobian(y, x, i=0)
        dy2_x = dde.grad.jacobian(y, x, i=1)
        return [dy1_x - y2, dy2_x + y1]

    def boundary(_, on_initial):
        return on_initial

    def solution(x):
        return np.hstack((np.sin(x), np.cos(x)))

    geom = dde.geometry.TimeDomain(0, 3)
    ic1 = dde.icbc.IC(geom, lambda x: 0, boundary, component=0)
    ic2 = dde.icbc.IC(geom, lambda x: 1, boundary, component=1)
    data = dde.data.PDE(geom, system, [ic1, ic2], 20, 2, train_distribution="uniform",
                        solution=solution, num_test=30)
    net = dde.nn.FNN([1, 12, 12, 2], "tanh", "Glorot uniform")
    params("ode init", net)
    model = dde.Model(data, net)
    compile_(model, "adam", lr=2e-3, metrics=["l2 relative error"])
    train("ode adam", model, iterations=200, display_every=50)
    x = geom.uniform_points(7, True)
    print(f"ode predict {checksum(torch.from_numpy(model.predict(x)))}")


@variant("heat")
def heat():
    with contextlib.redirect_stdout(sys.stderr):
        dde.config.set_default_float("float64")
    a = 0.4

    def pde(x, y):
        dy_t = dde.grad.jacobian(y, x, i=0, j=1)
        dy_xx = dde.grad.hessian(y, x, i=0, j=0)
        return dy_t - a * dy_xx

    def solution(x):
        return np.sin(np.pi * x[:, 0:1]) * np.exp(-a * np.pi ** 2 * x[:, 1:2])

    geom = dde.geometry.Interval(-1, 1)
    timedomain = dde.geometry.TimeDomain(0, 0.5)
    geomtime = dde.geometry.GeometryXTime(geom, timedomain)
    bc = dde.icbc.DirichletBC(geomtime, lambda x: 0, lambda _, on_boundary: on_boundary)
    ic = dde.icbc.IC(geomtime, lambda x: np.sin(np.pi * x[:, 0:1]),
                     lambda _, on_initial: on_initial)
    data = dde.data.TimePDE(geomtime, pde, [bc, ic], num_domain=36, num_boundary=8,
                            num_initial=8, train_distribution="uniform",
                            solution=solution, num_test=40)
    print(f"heat train_x {checksum(torch.from_numpy(data.train_x))}")
    net = dde.nn.FNN([2, 16, 16, 1], "tanh", "Glorot normal")
    model = dde.Model(data, net)
    adam_then_lbfgs("heat", model, 150, 20)
    x = geomtime.uniform_points(20, True)
    print(f"heat predict {checksum(torch.from_numpy(model.predict(x)))}")
    print(f"heat residual {checksum(torch.from_numpy(model.predict(x, operator=pde)))}")


@variant("inverse")
def inverse():
    """An inverse problem: ``-C u'' = pi^2 sin(pi x)`` on [0, 1] with the unknown ``C``
    (``dde.Variable``, true value 2) learned from PointSetBC observations; a Neumann and a
    Robin condition, FNN with an input feature transform and a hard output transform,
    loss weights, L2 regularisation, inverse-time decay and the VariableValue, EarlyStopping
    and ModelCheckpoint callbacks."""
    with contextlib.redirect_stdout(sys.stderr):
        dde.config.set_default_float("float64")
    C = dde.Variable(1.0)

    def pde(x, y):
        return -C * dde.grad.hessian(y, x) - np.pi ** 2 * torch.sin(np.pi * x)

    def solution(x):
        return np.sin(np.pi * x) / 2 + x

    geom = dde.geometry.Interval(0, 1)
    left = dde.icbc.NeumannBC(geom, lambda x: np.pi / 2 + 1,
                              lambda x, on: on and dde.utils.isclose(x[0], 0))
    right = dde.icbc.RobinBC(geom, lambda x, y: y - np.pi / 2,
                             lambda x, on: on and dde.utils.isclose(x[0], 1))
    obs_x = np.linspace(0.05, 0.95, 7)[:, None]
    obs = dde.icbc.PointSetBC(obs_x, solution(obs_x))
    data = dde.data.PDE(geom, pde, [left, right, obs], 14, 2, anchors=obs_x,
                        train_distribution="uniform", solution=solution, num_test=20)
    net = dde.nn.FNN([2, 12, 12, 1], "tanh", "Glorot uniform", regularization=["l2", 1e-5])
    net.apply_feature_transform(lambda x: torch.cat([x, torch.sin(np.pi * x)], dim=1))
    net.apply_output_transform(lambda x, y: y * (1 + 0.5 * x))
    params("inverse init", net)
    model = dde.Model(data, net)
    compile_(model, "adam", lr=5e-3, metrics=["l2 relative error", "MSE"],
             loss_weights=[1, 1, 1, 10], decay=("inverse time", 50, 0.5),
             external_trainable_variables=[C])
    tmp = tempfile.mkdtemp()
    try:
        fname = os.path.join(tmp, "variables.dat")
        callbacks = [dde.callbacks.VariableValue(C, period=40, filename=fname, precision=17),
                     dde.callbacks.EarlyStopping(min_delta=1e-12, patience=1000),
                     dde.callbacks.ModelCheckpoint(os.path.join(tmp, "ckpt"),
                                                   save_better_only=True, period=100)]
        train("inverse adam", model, iterations=200, display_every=40, callbacks=callbacks)
        with open(fname) as f:
            print(f"inverse C history {f.read().split()}")
        print(f"inverse checkpoints {sorted(os.listdir(tmp))}")
    finally:
        shutil.rmtree(tmp)
    print(f"inverse C {C.item()!r}")
    params("inverse trained", net)
    x = geom.uniform_points(9, True)
    print(f"inverse predict {checksum(torch.from_numpy(model.predict(x)))}")


@variant("deeponet")
def deeponet():
    """DeepONetCartesianProd on TripleCartesianProd data (the antiderivative operator of
    sampled polynomials), Adam with mini-batches of branch inputs."""
    with contextlib.redirect_stdout(sys.stderr):
        dde.config.set_default_float("float64")
    sensors = np.linspace(0, 1, 10)[:, None]
    coeffs = np.random.uniform(-1, 1, size=(24, 3))
    funcs = coeffs @ np.vstack([np.ones(10), sensors[:, 0], sensors[:, 0] ** 2])
    ys = np.linspace(0, 1, 8)[:, None]
    anti = coeffs @ np.vstack([ys[:, 0], ys[:, 0] ** 2 / 2, ys[:, 0] ** 3 / 3])
    data = dde.data.TripleCartesianProd((funcs[:16], ys), anti[:16], (funcs[16:], ys),
                                        anti[16:])
    net = dde.nn.DeepONetCartesianProd([10, 16, 16], [1, 16, 16], "relu", "Glorot normal")
    params("deeponet init", net)
    model = dde.Model(data, net)
    compile_(model, "adam", lr=2e-3, metrics=["mean l2 relative error"])
    train("deeponet adam", model, iterations=60, batch_size=8, display_every=20)
    out = model.predict((funcs[16:], ys))
    print(f"deeponet predict {list(out.shape)} {checksum(torch.from_numpy(out))}")


@variant("forward")
def forward_mode():
    """The heat equation's residual by forward-mode autodiff (``set_default_autodiff``:
    ``torch.func.jvp`` of the network, nested for the Hessian), Adam."""
    with contextlib.redirect_stdout(sys.stderr):
        dde.config.set_default_float("float64")
        dde.config.set_default_autodiff("forward")
    try:
        def pde(x, y):
            dy_t, _ = dde.grad.jacobian(y, x, i=0, j=1)  # (value, function) in forward mode
            dy_xx, _ = dde.grad.hessian(y, x, i=0, j=0)
            return dy_t - 0.4 * dy_xx

        geomtime = dde.geometry.GeometryXTime(dde.geometry.Interval(-1, 1),
                                              dde.geometry.TimeDomain(0, 0.5))
        bc = dde.icbc.DirichletBC(geomtime, lambda x: 0, lambda _, on: on)
        ic = dde.icbc.IC(geomtime, lambda x: np.sin(np.pi * x[:, 0:1]), lambda _, on: on)
        data = dde.data.TimePDE(geomtime, pde, [bc, ic], num_domain=20, num_boundary=6,
                                num_initial=6, train_distribution="uniform", num_test=20)
        net = dde.nn.FNN([2, 12, 12, 1], "tanh", "Glorot normal")
        model = dde.Model(data, net)
        compile_(model, "adam", lr=1e-3)
        train("forward adam", model, iterations=40, display_every=20)
        params("forward trained", net)
    finally:
        with contextlib.redirect_stdout(sys.stderr):
            dde.config.set_default_autodiff("reverse")


@variant("kan")
def kan_variant():
    from kan import KAN
    from kan.utils import create_dataset

    torch.set_default_dtype(torch.float64)
    cwd, tmp = os.getcwd(), tempfile.mkdtemp()
    os.chdir(tmp)  # fit and prune log to ./model/history.txt
    os.makedirs("model")
    try:
        def f(x):
            return torch.exp(torch.sin(torch.pi * x[:, [0]]) + x[:, [1]] ** 2)

        dataset = create_dataset(f, n_var=2, train_num=60, test_num=30, seed=0)
        for key in ("train_input", "train_label", "test_input", "test_label"):
            print(f"kan data {key} {list(dataset[key].shape)} {checksum(dataset[key])}")
        with contextlib.redirect_stdout(sys.stderr):
            model = KAN(width=[2, 3, 1], grid=3, k=3, seed=1, auto_save=False)
        params("kan init", model)
        y = model(dataset["train_input"])
        print(f"kan forward {checksum(y)}")

        def fit(name, **kwargs):
            np.random.seed(0)
            with contextlib.redirect_stdout(sys.stderr):
                res = model.fit(dataset, **kwargs)
            for key in ("train_loss", "test_loss", "reg"):
                print(f"{name} {key} {[float(v) for v in res[key]]}")

        fit("kan lbfgs", opt="LBFGS", steps=4, lamb=0.001, update_grid=True,
            grid_update_num=2, stop_grid_update_step=4)
        params("kan fitted", model)

        with contextlib.redirect_stdout(sys.stderr):
            model = model.refine(5)
        params("kan refined", model)
        fit("kan refined lbfgs", opt="LBFGS", steps=4, update_grid=False)

        model.update_grid_from_samples(dataset["train_input"])
        print(f"kan grid {checksum(model.act_fun[0].grid)}")
        model(dataset["train_input"])
        model.attribute()
        print(f"kan edge scores {[checksum(s) for s in model.edge_scores]}")
        print(f"kan node scores {[checksum(s) for s in model.node_scores]}")
        with contextlib.redirect_stdout(sys.stderr):
            pruned = model.prune(node_th=1e-2, edge_th=3e-2)
        print(f"kan pruned width {pruned.width}")
        y = pruned(dataset["test_input"])
        print(f"kan pruned forward {checksum(y)}")

        with contextlib.redirect_stdout(sys.stderr):
            model.fix_symbolic(0, 0, 0, "sin")
        model(dataset["train_input"])
        sf = model.symbolic_fun[0]
        print(f"kan fix_symbolic affine {checksum(sf.affine[0, 0])}")
        with contextlib.redirect_stdout(sys.stderr):
            model.auto_symbolic(lib=["x", "x^2", "sin", "exp"], verbose=0)
        print(f"kan symbolic mask {checksum(model.symbolic_fun[0].mask)} "
              f"{checksum(model.symbolic_fun[1].mask)}")
        print(f"kan symbolic affine {checksum(model.symbolic_fun[0].affine)} "
              f"{checksum(model.symbolic_fun[1].affine)}")
        names = [[list(row) for row in layer.funs_name] for layer in model.symbolic_fun]
        print(f"kan symbolic names {names}")
        y = model(dataset["test_input"])
        print(f"kan symbolic forward {checksum(y)}")

        with contextlib.redirect_stdout(sys.stderr):
            model2 = KAN(width=[2, 3, 1], grid=3, k=3, seed=2, auto_save=False)
        model = model2
        fit("kan adam", opt="Adam", steps=6, lr=0.01, lamb=0.01, update_grid=True,
            grid_update_num=2, stop_grid_update_step=4)
        params("kan adam", model)

        with contextlib.redirect_stdout(sys.stderr):
            model.saveckpt("./ckpt")
            loaded = KAN.loadckpt("./ckpt")
        diff = (loaded(dataset["test_input"]) - model(dataset["test_input"])).abs().max()
        print(f"kan loadckpt max diff {diff.item()!r}")

        # a multiplication node (MultKAN): x0 * x1 from one mult node of two subnodes
        mult = create_dataset(lambda x: x[:, [0]] * x[:, [1]], n_var=2, train_num=40,
                              test_num=20, seed=1)
        with contextlib.redirect_stdout(sys.stderr):
            model = KAN(width=[2, [0, 1], 1], grid=3, k=3, seed=3, auto_save=False)
        print(f"kan mult forward {checksum(model(mult['train_input']))}")
        dataset = mult
        fit("kan mult adam", opt="Adam", steps=5, lr=0.02, update_grid=False)
        params("kan mult", model)
    finally:
        torch.set_default_dtype(torch.float32)
        os.chdir(cwd)
        shutil.rmtree(tmp)


def main(argv):
    names = [n for n in argv if n != "all"] or list(VARIANTS)
    for name in names:
        start = time.time()
        torch.manual_seed(0)
        np.random.seed(0)
        seed()
        print(f"== {name}")
        VARIANTS[name]()
        print(f"[{name}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
