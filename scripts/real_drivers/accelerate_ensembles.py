"""Driver of accelerate, torchensemble and kmeans-pytorch (docs/real-programs.md): the installed
packages, unchanged, on tiny seeded models and data (float64 where the libraries allow).
accelerate (on CPU, one process): ``Accelerator()`` and ``Accelerator(gradient_accumulation_steps
=2)``, ``prepare`` of a model, optimizer, DataLoader and LR scheduler, ``backward``, the
``accumulate`` context, ``clip_grad_norm_``, ``gather_for_metrics``, ``autocast`` under
mixed_precision="bf16", ``save_state``/``load_state`` and resuming (the next losses),
``unwrap_model``, ``save_model``, ``set_seed`` and ``accelerate.utils`` helpers. torchensemble:
VotingClassifier, BaggingClassifier, GradientBoostingRegressor, SnapshotEnsembleClassifier and
FusionClassifier fitted for 2 epochs on a tiny synthetic dataset, ``predict``/``evaluate`` and
save/load through ``torchensemble.utils.io``. kmeans-pytorch: ``kmeans`` and
``kmeans_predict`` with euclidean and cosine distances (its initial centres come from
``np.random``, seeded). Each result is printed as a checksum at full precision.

    python scripts/shared_rng_run.py drive_accel.py [VARIANT ... | all]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_accel.py [VARIANT ... | all]   # jtorch

Without arguments it runs every variant (``all`` too). Each variant reseeds
(``torch.manual_seed``, ``np.random.seed``), so a subset prints what the full run prints for it.
"""

import contextlib
import importlib.metadata
import io
import logging
import os
import sys
import tempfile
import time

import numpy as np
import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import accelerate  # noqa: E402
from accelerate import Accelerator  # noqa: E402
from accelerate.state import AcceleratorState, GradientState  # noqa: E402
from accelerate.utils import extract_model_from_parallel, find_batch_size, send_to_device, set_seed  # noqa: E402
from kmeans_pytorch import kmeans, kmeans_predict  # noqa: E402
from torch import nn  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402
from torchensemble import (  # noqa: E402
    AdversarialTrainingClassifier,
    BaggingClassifier,
    BaggingRegressor,
    FastGeometricClassifier,
    FusionClassifier,
    FusionRegressor,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    NeuralForestClassifier,
    SnapshotEnsembleClassifier,
    SoftGradientBoostingRegressor,
    VotingClassifier,
    VotingRegressor,
)
from torchensemble.utils import io as te_io  # noqa: E402

logging.disable(logging.CRITICAL)   # torchensemble logs timings and paths
torch.set_default_dtype(torch.float64)

VARIANTS = {}


def variant(name):
    def register(build):
        VARIANTS[name] = build
        return build
    return register


def checksum(t):
    """Sums of magnitudes, a weighted sum (weights 1 to 2 in a period of 7) and the largest
    magnitude, in float64."""
    t = t.detach().double().flatten()
    if t.numel() == 0:
        return "empty"
    w = 1.0 + (torch.arange(t.numel(), dtype=torch.float64) % 7) / 6
    return (f"abssum {t.abs().sum().item()!r} wsum {(t * w).sum().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def mlp(n_in=4, n_out=3, hidden=8):
    return nn.Sequential(nn.Linear(n_in, hidden), nn.Tanh(), nn.Linear(hidden, n_out))


def classification_data(n=32, n_in=4, n_cls=3):
    x = torch.randn(n, n_in)
    y = (x[:, 0] + 0.5 * x[:, 1] > 0).long() + (x[:, 2] > 0.8).long()
    return x, y.clamp(max=n_cls - 1)


def fresh_accelerator(**kwargs):
    AcceleratorState._reset_state(True)
    GradientState._reset_state()
    return Accelerator(cpu=True, **kwargs)


def train_steps(acc, model, opt, loader, sched, steps, loss_fn):
    losses = []
    it = iter(loader)
    for _ in range(steps):
        x, y = next(it)
        with acc.accumulate(model):
            loss = loss_fn(model(x), y)
            acc.backward(loss)
            if acc.sync_gradients:
                acc.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
        losses.append(loss.detach())
    return torch.stack(losses)


@variant("accel_basic")
def accel_basic():
    set_seed(0)
    acc = fresh_accelerator()
    x, y = classification_data()
    model = mlp()
    opt = torch.optim.AdamW(model.parameters(), lr=0.05)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    loader = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=True)
    model, opt, loader, sched = acc.prepare(model, opt, loader, sched)
    out = [("device", str(acc.device)), ("num_processes", acc.num_processes),
           ("mixed_precision", acc.mixed_precision), ("is_main", acc.is_main_process),
           ("loader len", len(loader))]
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    for epoch in range(2):
        for xb, yb in loader:
            loss = loss_fn(model(xb), yb)
            acc.backward(loss)
            norm = acc.clip_grad_norm_(model.parameters(), 0.5)
            out.append((f"epoch {epoch} grad norm", norm))
            opt.step()
            sched.step()
            opt.zero_grad()
            losses.append(loss.detach())
    out += [("losses", torch.stack(losses)), ("lr", sched.get_last_lr()[0])]
    # evaluation with gather_for_metrics over an uneven loader
    model.eval()
    eval_loader = acc.prepare(DataLoader(TensorDataset(x[:27], y[:27]), batch_size=8))
    preds, labels = [], []
    with torch.no_grad():
        for xb, yb in eval_loader:
            p, t = acc.gather_for_metrics((model(xb).argmax(-1), yb))
            preds.append(p)
            labels.append(t)
    preds, labels = torch.cat(preds), torch.cat(labels)
    out += [("gathered n", preds.numel()), ("accuracy", (preds == labels).double().mean()),
            ("gathered preds", preds)]
    unwrapped = acc.unwrap_model(model)
    out += [("unwrapped is Sequential", type(unwrapped).__name__),
            ("extract_model_from_parallel", type(extract_model_from_parallel(model)).__name__)]
    out += [(f"param {n}", p) for n, p in unwrapped.named_parameters()]
    with tempfile.TemporaryDirectory() as d:
        acc.save_model(model, d)
        files = sorted(os.listdir(d))
        out.append(("save_model files", files))
        if "model.safetensors" in files:
            from safetensors.torch import load_file
            sd = load_file(os.path.join(d, "model.safetensors"))
        else:
            sd = torch.load(os.path.join(d, files[0]))
        out += [(f"saved {k}", v) for k, v in sorted(sd.items())]
        fresh = mlp()
        fresh.load_state_dict(sd)
        out.append(("reloaded logits", fresh(x[:5])))
    return out


@variant("accel_accumulate")
def accel_accumulate():
    set_seed(1)
    acc = fresh_accelerator(gradient_accumulation_steps=2)
    x = torch.randn(48, 3)
    y = x @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.1 * torch.randn(48, 1)
    model = nn.Sequential(nn.Linear(3, 6), nn.ReLU(), nn.Linear(6, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 1.0 / (1 + s))
    loader = DataLoader(TensorDataset(x, y), batch_size=6, shuffle=True)
    model, opt, loader, sched = acc.prepare(model, opt, loader, sched)
    out = [("gradient_accumulation_steps", acc.gradient_accumulation_steps)]
    syncs, losses = [], []
    for xb, yb in loader:
        with acc.accumulate(model):
            loss = nn.functional.mse_loss(model(xb), yb)
            acc.backward(loss)
            syncs.append(acc.sync_gradients)
            if acc.sync_gradients:
                out.append(("synced grad", next(iter(model.parameters())).grad))
                acc.clip_grad_value_(model.parameters(), 0.5)
            opt.step()
            sched.step()
            opt.zero_grad()
            losses.append(loss.detach())
    out += [("sync pattern", syncs), ("losses", torch.stack(losses)),
            ("lr", sched.get_last_lr()[0]), ("optimizer step_was_skipped", opt.step_was_skipped)]
    out += [(f"param {n}", p) for n, p in acc.unwrap_model(model).named_parameters()]
    return out


@variant("accel_state")
def accel_state():
    set_seed(2)
    acc = fresh_accelerator(gradient_accumulation_steps=2)
    x, y = classification_data(n=40)
    model = mlp()
    opt = torch.optim.Adam(model.parameters(), lr=0.02)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)
    loader = DataLoader(TensorDataset(x, y), batch_size=5, shuffle=False)
    model, opt, loader, sched = acc.prepare(model, opt, loader, sched)
    loss_fn = nn.CrossEntropyLoss()
    out = [("first losses", train_steps(acc, model, opt, loader, sched, 4, loss_fn))]
    with tempfile.TemporaryDirectory() as d:
        acc.save_state(d)
        out.append(("save_state files", sorted(os.listdir(d))))
        cont = train_steps(acc, model, opt, loader, sched, 4, loss_fn)
        params_after = [p.detach().clone() for p in model.parameters()]
        # perturb, then resume from the checkpoint
        with torch.no_grad():
            for p in model.parameters():
                p.add_(1.0)
        acc.load_state(d)
        resumed = train_steps(acc, model, opt, loader, sched, 4, loss_fn)
    out += [("continued losses", cont), ("resumed losses", resumed),
            ("resume max diff", (cont - resumed).abs().max()),
            ("params match", all(torch.equal(a, b) for a, b in zip(
                params_after, [p.detach() for p in model.parameters()])))]
    out += [("lr", sched.get_last_lr()[0]), ("opt state step",
            float(next(iter(opt.state_dict()["state"].values()))["step"]))]
    return out


@variant("accel_bf16")
def accel_bf16():
    set_seed(3)
    acc = fresh_accelerator(mixed_precision="bf16")
    x, y = classification_data(n=16)
    x = x.float()
    model = mlp().float()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model, opt = acc.prepare(model, opt)
    out = [("mixed_precision", acc.mixed_precision)]
    for step in range(3):
        logits = model(x)
        out.append((f"step {step} logits dtype", str(logits.dtype)))
        loss = nn.functional.cross_entropy(logits.float(), y)
        acc.backward(loss)
        out += [(f"step {step} loss", loss),
                (f"step {step} grad", next(iter(model.parameters())).grad)]
        opt.step()
        opt.zero_grad()
    with acc.autocast():
        h = acc.unwrap_model(model)[0](x)
        d = torch.randn(4, 4) @ torch.randn(4, 4)   # float64 inputs stay float64
        out += [("autocast linear dtype", str(h.dtype)), ("autocast linear", h),
                ("autocast f64 matmul dtype", str(d.dtype))]
    out.append(("unwrapped params", torch.cat([p.flatten() for p in
                                                acc.unwrap_model(model).parameters()])))
    return out


@variant("accel_compile")
def accel_compile():
    set_seed(9)
    acc = fresh_accelerator(dynamo_backend="eager")   # prepare() wraps in torch.compile
    x, y = classification_data(n=16)
    model = mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, nesterov=True, momentum=0.5)
    model, opt = acc.prepare(model, opt)
    out = [("prepared type", type(model).__name__)]
    for step in range(3):
        loss = nn.functional.cross_entropy(model(x), y)
        acc.backward(loss)
        opt.step()
        opt.zero_grad()
        out.append((f"step {step} loss", loss))
    plain = acc.unwrap_model(model, keep_torch_compile=False)
    out += [("unwrapped type", type(plain).__name__), ("unwrapped logits", plain(x[:4]))]
    return out


@variant("accel_utils")
def accel_utils():
    set_seed(4)
    a = torch.randn(3, 2)
    batch = {"x": a, "y": [torch.arange(3), (torch.ones(3), "tag")], "n": 7}
    moved = send_to_device(batch, torch.device("cpu"))
    out = [("send_to_device x", moved["x"]), ("send_to_device types",
           [type(moved["y"]).__name__, type(moved["y"][1]).__name__, moved["y"][1][1], moved["n"]]),
           ("find_batch_size dict", find_batch_size(batch)),
           ("find_batch_size list", find_batch_size([torch.zeros(5, 2), torch.zeros(5)]))]
    from accelerate.utils import (
        concatenate,
        convert_outputs_to_fp32,
        is_torch_tensor,
        pad_across_processes,
        recursively_apply,
    )
    out += [("concatenate", concatenate([{"a": a}, {"a": a * 2}])["a"]),
            ("pad_across_processes", pad_across_processes(a, dim=0)),
            ("recursively_apply", recursively_apply(lambda t: t * 3, {"k": [a]})["k"][0]),
            ("is_torch_tensor", is_torch_tensor(a))]
    f = convert_outputs_to_fp32(lambda t: t.to(torch.bfloat16))
    out.append(("convert_outputs_to_fp32 dtype", str(f(a).dtype)))
    set_seed(5)
    r1 = torch.rand(3)
    n1 = np.random.rand(2)
    set_seed(5)
    out += [("set_seed torch repeat", torch.equal(r1, torch.rand(3))),
            ("set_seed numpy repeat", bool((n1 == np.random.rand(2)).all())),
            ("accelerate version", accelerate.__version__)]
    return out


class Counter:
    """A custom object saved with ``register_for_checkpointing``."""

    def __init__(self):
        self.count = 0

    def state_dict(self):
        return {"count": self.count}

    def load_state_dict(self, state):
        self.count = state["count"]


@variant("accel_more")
def accel_more():
    from accelerate import init_empty_weights, load_checkpoint_and_dispatch, skip_first_batches
    from accelerate.utils import (
        compute_module_sizes,
        infer_auto_device_map,
        set_module_tensor_to_device,
    )
    set_seed(6)
    acc = fresh_accelerator()
    x, y = classification_data(n=24)
    model = mlp()
    opt = torch.optim.RMSprop(model.parameters(), lr=0.01)
    loader = DataLoader(TensorDataset(x, y), batch_size=6, shuffle=True)
    model, opt, loader = acc.prepare(model, opt, loader)
    counter = Counter()
    acc.register_for_checkpointing(counter)
    out = [("gather", acc.gather(x[:3])), ("reduce sum", acc.reduce(x[:3], "sum")),
           ("reduce mean", acc.reduce(x[:3], "mean")),
           ("skip_first_batches len", len(skip_first_batches(loader, 2)))]
    loss_fn = nn.CrossEntropyLoss()
    for xb, yb in loader:
        loss = loss_fn(model(xb), yb)
        acc.backward(loss)
        opt.step()
        opt.zero_grad()
        counter.count += 1
    with tempfile.TemporaryDirectory() as d:
        acc.save_state(d, safe_serialization=False)
        out.append(("save_state files", sorted(os.listdir(d))))
        saved = [p.detach().clone() for p in model.parameters()]
        counter.count = 99
        with torch.no_grad():
            for p in model.parameters():
                p.zero_()
        acc.load_state(d)
        out += [("counter restored", counter.count),
                ("params restored", all(torch.equal(a, p) for a, p in
                                        zip(saved, model.parameters())))]
        sd = acc.get_state_dict(model)
        out += [(f"state_dict {k}", v) for k, v in sd.items()]
        acc.save_model(model, d, safe_serialization=True)
        with init_empty_weights():
            empty = mlp()
        out += [("empty device", str(empty[0].weight.device)),
                ("module sizes", dict(compute_module_sizes(empty))),
                ("device map", infer_auto_device_map(empty, max_memory={"cpu": 10 ** 6}))]
        loaded = load_checkpoint_and_dispatch(empty, os.path.join(d, "model.safetensors"),
                                              device_map={"": "cpu"})
        out += [("dispatched device", str(loaded[0].weight.device)),
                ("dispatched logits", loaded(x[:4]))]
    with init_empty_weights():
        lin = nn.Linear(3, 2)
    set_module_tensor_to_device(lin, "weight", "cpu", value=torch.ones(2, 3))
    set_module_tensor_to_device(lin, "bias", "cpu", value=torch.arange(2.0))
    out += [("set_module_tensor_to_device", lin(torch.ones(1, 3))),
            ("free_memory", acc.free_memory() is None or True)]
    return out


@variant("accel_offload")
def accel_offload():
    from accelerate import cpu_offload, disk_offload, dispatch_model
    from accelerate.utils import load_checkpoint_in_model, offload_state_dict
    set_seed(7)
    x = torch.randn(5, 4)
    ref = mlp()
    want = ref(x)
    out = [("reference", want)]
    with tempfile.TemporaryDirectory() as d:
        m = mlp()
        m.load_state_dict(ref.state_dict())
        cpu_offload(m, execution_device=torch.device("cpu"))
        out.append(("cpu_offload", m(x)))
        m = mlp()
        m.load_state_dict(ref.state_dict())
        disk_offload(m, os.path.join(d, "disk"), execution_device=torch.device("cpu"))
        out += [("disk_offload", m(x)), ("disk_offload files",
                                          sorted(os.listdir(os.path.join(d, "disk"))))]
        m = mlp()
        m.load_state_dict(ref.state_dict())
        m = dispatch_model(m, device_map={"0": "cpu", "1": "cpu", "2": "disk"},
                           main_device="cpu", offload_dir=os.path.join(d, "mixed"))
        y = m(x)
        out.append(("dispatch cpu+disk", y))
        y.sum().backward()
        out.append(("dispatch cpu grad", m[0].weight.grad))
        offload_state_dict(os.path.join(d, "sd"), ref.state_dict())
        out.append(("offload_state_dict files", sorted(os.listdir(os.path.join(d, "sd")))))
        torch.save(ref.state_dict(), os.path.join(d, "ref.bin"))
        m = mlp()
        load_checkpoint_in_model(m, os.path.join(d, "ref.bin"))
        out.append(("load_checkpoint_in_model", m(x)))
        m = mlp()
        load_checkpoint_in_model(m, os.path.join(d, "ref.bin"), dtype=torch.float32)
        out += [("load_checkpoint_in_model f32 dtype", str(m[0].weight.dtype)),
                ("load f32 weight", m[0].weight)]
    return out


@variant("accel_misc")
def accel_misc():
    from accelerate import DataLoaderConfiguration
    from accelerate.utils import (
        AutocastKwargs,
        ProjectConfiguration,
        broadcast,
        find_executable_batch_size,
        gather_object,
    )
    set_seed(8)
    out = []
    with tempfile.TemporaryDirectory() as d:
        AcceleratorState._reset_state(True)
        GradientState._reset_state()
        acc = Accelerator(cpu=True, project_dir=d, project_config=ProjectConfiguration(
            automatic_checkpoint_naming=True, total_limit=2),
            dataloader_config=DataLoaderConfiguration(split_batches=True, even_batches=False))
        x, y = classification_data(n=20)
        model = mlp()
        opt = torch.optim.Adagrad(model.parameters(), lr=0.1)
        loader = DataLoader(TensorDataset(x, y), batch_size=6)
        model, opt, loader = acc.prepare(model, opt, loader)
        sizes = []
        for i, (xb, yb) in enumerate(loader):
            sizes.append(len(xb))
            with acc.no_sync(model):
                loss = nn.functional.cross_entropy(model(xb), yb)
                acc.backward(loss)
            opt.step()
            opt.zero_grad()
            out.append((f"loss {i}", loss))
            acc.save_state()
        out += [("batch sizes", sizes),
                ("checkpoints", sorted(os.listdir(os.path.join(d, "checkpoints"))))]
        with acc.autocast(autocast_handler=AutocastKwargs(enabled=False)):
            out.append(("autocast disabled dtype", str(model(x).dtype)))
    out += [("gather_object", gather_object([{"a": 1}, 2])), ("broadcast", broadcast(x[:2]))]
    tried = []

    @find_executable_batch_size(starting_batch_size=16)
    def attempt(batch_size):
        tried.append(batch_size)
        if batch_size > 4:
            raise RuntimeError("CUDA out of memory.")
        return batch_size
    out += [("find_executable_batch_size", attempt()), ("tried", tried)]

    class Stream(torch.utils.data.IterableDataset):
        def __iter__(self):
            for i in range(7):
                yield torch.full((2,), float(i))
    acc = fresh_accelerator()
    it_loader = acc.prepare(DataLoader(Stream(), batch_size=3))
    out.append(("iterable batches", [b.sum().item() for b in it_loader]))
    return out


# --- torchensemble


class MLPc(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = mlp(4, 3, 8)

    def forward(self, x):
        return self.net(x)


class MLPr(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = mlp(4, 1, 8)

    def forward(self, x):
        return self.net(x)


def ensemble_loaders(regression=False, unit=False):
    x, y = classification_data(n=40)
    if unit:   # adversarial training wants inputs in [0, 1]
        x = torch.sigmoid(x)
    if regression:
        y = (x[:, :1] * 1.5 - x[:, 1:2] ** 2)
    train = DataLoader(TensorDataset(x[:32], y[:32]), batch_size=8, shuffle=True)
    test = DataLoader(TensorDataset(x[32:], y[32:]), batch_size=8)
    return train, test, x[32:]


def ensemble_run(make, regression=False, fit_kwargs=None):
    fit_kwargs = dict(fit_kwargs or {})
    train, test, xt = ensemble_loaders(regression, fit_kwargs.pop("unit", False))
    scheduler = fit_kwargs.pop("scheduler", None)
    model = make()
    model.set_optimizer("Adam", lr=0.01, weight_decay=5e-4)
    if scheduler:
        model.set_scheduler(scheduler[0], **scheduler[1])
    out = []
    with tempfile.TemporaryDirectory() as d, contextlib.redirect_stdout(io.StringIO()):
        model.fit(train, epochs=2, test_loader=test, save_model=True, save_dir=d,
                  **fit_kwargs)
        files = sorted(os.listdir(d))
        pred = model.predict(xt)
        ev = model.evaluate(test)
        loaded = make()
        # the checkpoint pickles the criterion module: torch.load's weights_only default
        # (PyTorch >= 2.6) needs it allow-listed
        with torch.serialization.safe_globals([nn.CrossEntropyLoss, nn.MSELoss]):
            te_io.load(loaded, d)
        pred2 = loaded.predict(xt)
    out += [("ckpt files", files), ("n estimators", len(model.estimators_)),
            ("predict", pred), ("evaluate", ev), ("loaded predict", pred2),
            ("loaded same", torch.equal(pred, pred2))]
    out += [(f"param {n}", p) for n, p in model.named_parameters()]
    return out


def ensemble(cls, estimator, n_est=3, **kwargs):
    return lambda: cls(estimator=estimator, n_estimators=n_est, cuda=False, **kwargs)


@variant("ens_voting")
def ens_voting():
    return ensemble_run(ensemble(VotingClassifier, MLPc))


@variant("ens_bagging")
def ens_bagging():
    return ensemble_run(ensemble(BaggingClassifier, MLPc))


@variant("ens_gboost")
def ens_gboost():
    return ensemble_run(ensemble(GradientBoostingRegressor, MLPr, shrinkage_rate=0.8),
                        regression=True)


@variant("ens_snapshot")
def ens_snapshot():
    return ensemble_run(ensemble(SnapshotEnsembleClassifier, MLPc, n_est=2),
                        fit_kwargs={"lr_clip": (1e-4, 0.5)})


@variant("ens_fusion")
def ens_fusion():
    out = ensemble_run(ensemble(FusionClassifier, MLPc))
    out.append(("torchensemble version", importlib.metadata.version("torchensemble")))
    return out


@variant("ens_more")
def ens_more():
    runs = {
        "adversarial": (ensemble(AdversarialTrainingClassifier, MLPc, n_est=2), False,
                        {"epsilon": 0.1, "unit": True}),
        "fastgeo": (ensemble(FastGeometricClassifier, MLPc, n_est=2), False,
                    {"cycle": 2, "lr_1": 0.05, "lr_2": 1e-3}),
        "softgb": (ensemble(SoftGradientBoostingRegressor, MLPr, n_est=2, shrinkage_rate=0.9),
                   True, None),
        "forest": (lambda: NeuralForestClassifier(n_estimators=2, depth=3, lamda=1e-3,
                                                  cuda=False), False, None),
        "voting_reg": (ensemble(VotingRegressor, MLPr, n_est=2), True, None),
        "voting_hard": (ensemble(VotingClassifier, MLPc, n_est=3, voting_strategy="hard"),
                        False, {"scheduler": ("StepLR", {"step_size": 1, "gamma": 0.5})}),
        "bagging_reg": (ensemble(BaggingRegressor, MLPr, n_est=2), True, None),
        "fusion_reg": (ensemble(FusionRegressor, MLPr, n_est=2), True, None),
        "gboost_cls": (ensemble(GradientBoostingClassifier, MLPc, n_est=2), False, None),
    }
    out = []
    for name, (make, regression, fit_kwargs) in runs.items():
        torch.manual_seed(0)
        out += [(f"{name} {label}", value)
                for label, value in ensemble_run(make, regression, fit_kwargs)]
    return out


# --- kmeans-pytorch


def blobs(n_per=20, dim=3):
    centres = torch.tensor([[3.0, 0.0, 0.0], [-3.0, 1.0, 0.0], [0.0, -3.0, 2.0]])[:, :dim]
    return torch.cat([c + 0.7 * torch.randn(n_per, dim) for c in centres])


@variant("kmeans")
def kmeans_variant():
    out = []
    x = blobs()
    xq = blobs(n_per=4)
    for dist in ("euclidean", "cosine"):
        np.random.seed(7)
        with contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            ids, centres = kmeans(X=x, num_clusters=3, distance=dist, tol=1e-6)
            pred = kmeans_predict(xq, centres, distance=dist)
        out += [(f"{dist} ids", ids), (f"{dist} centres", centres),
                (f"{dist} predict", pred), (f"{dist} dtypes", [str(ids.dtype),
                                                              str(centres.dtype)])]
    return out


def show(name, label, value):
    if isinstance(value, torch.Tensor):
        print(f"{name} {label} {list(value.shape)} {value.dtype} {checksum(value)}")
    elif isinstance(value, float):
        print(f"{name} {label} {value!r}")
    else:
        print(f"{name} {label} {value}")


def run(name):
    torch.manual_seed(0)
    np.random.seed(0)
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
