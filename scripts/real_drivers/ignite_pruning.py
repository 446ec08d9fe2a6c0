"""Driver of pytorch-ignite and torch-pruning (docs/real-programs.md): the installed packages
(ignite 0.5.5, torch-pruning 1.6.1), unchanged, on tiny seeded models and synthetic data,
printing losses, metrics, parameter counts and checksums at full precision.

Variants (each reseeds with ``torch.manual_seed``, so a subset prints what the full run prints
for it):

- ``ignite_supervised``: create_supervised_trainer/evaluator on a small CNN classifier with a
  shuffling DataLoader; Accuracy, Loss, Precision, Recall (also per class), Fbeta,
  ConfusionMatrix, TopKCategoricalAccuracy, RunningAverage of the loss; Events filters
  (``every``, ``once``), PiecewiseLinear then CosineAnnealingScheduler (ConcatScheduler) and
  LRScheduler around StepLR, Timer (counts only), TerminateOnNan, EarlyStopping,
  ModelCheckpoint in a temporary directory and Checkpoint.load_objects into a fresh model,
  optimizer and trainer.
- ``ignite_engine``: a custom Engine process function, custom events (``EventEnum``), engine
  ``state_dict`` resume, ``terminate``, regression metrics (MSE, MAE, RMSE), SSIM and PSNR on
  images, IoU/mIoU from a segmentation ConfusionMatrix, MetricsLambda.
- ``ignite_idist``: ignite.distributed in its serial mode: auto_model, auto_optim,
  auto_dataloader, world size/rank/backend, all_reduce/all_gather, and a training run with them.
- ``prune_graph``: DependencyGraph of a small CNN with BatchNorm, residual additions, a
  concatenation, a channel split, a flatten, an unwrapped parameter and a Linear head: groups of
  a pruned conv (their text), the number of groups, group pruning by hand, forward and a
  training step.
- ``prune_magnitude``: MagnitudePruner/MetaPruner with MagnitudeImportance (L1, L2) on the CNN
  and on torchvision's resnet18 (10 classes, 64x64), local and global, round_to, iterative
  steps, pruning_ratio_dict; MACs/parameter counts, outputs and an SGD step.
- ``prune_taylor_bn``: TaylorImportance (after a backward), BNScaleImportance with
  BNScalePruner's sparsity regularisation over training steps, GroupNormPruner, LAMP and FPGM
  importances; tp.state_dict/load_state_dict of a pruned model into a fresh one.
- ``prune_finetune``: prune a tiny torchvision ResNet (one BasicBlock a stage) in two
  iterative steps, each fine-tuned by an ignite trainer and evaluated.

    python scripts/shared_rng_run.py scripts/real_drivers/ignite_pruning.py [VARIANT ... | all]
    python -m jtorch scripts/shared_rng_run.py scripts/real_drivers/ignite_pruning.py [...]
"""

import os
import re
import sys
import tempfile
import time
import warnings

import torch
from torch import nn
from torch.nn import functional as F

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import ignite.distributed as idist  # noqa: E402
import torch_pruning as tp  # noqa: E402
from ignite.engine import (  # noqa: E402
    Engine,
    EventEnum,
    Events,
    create_supervised_evaluator,
    create_supervised_trainer,
)
from ignite.handlers import (  # noqa: E402
    Checkpoint,
    ConcatScheduler,
    CosineAnnealingScheduler,
    EarlyStopping,
    LRScheduler,
    ModelCheckpoint,
    PiecewiseLinear,
    TerminateOnNan,
    Timer,
)
from ignite.metrics import (  # noqa: E402
    PSNR,
    SSIM,
    Accuracy,
    ConfusionMatrix,
    Fbeta,
    IoU,
    Loss,
    MeanAbsoluteError,
    MeanSquaredError,
    MetricsLambda,
    Precision,
    Recall,
    RootMeanSquaredError,
    RunningAverage,
    TopKCategoricalAccuracy,
    mIoU,
)
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402
from torchvision.models import resnet18  # noqa: E402
from torchvision.models.resnet import BasicBlock, ResNet  # noqa: E402

warnings.filterwarnings("ignore")

VARIANTS = {}


def variant(name):
    def register(fn):
        VARIANTS[name] = fn
        return fn
    return register


def checksum(t):
    """Sum of magnitudes, a weighted sum (weights 1 to 2 in a period of 7) and the largest
    magnitude, in float64."""
    t = torch.as_tensor(t).detach().double().flatten()
    w = 1.0 + (torch.arange(t.numel(), dtype=torch.float64) % 7) / 6
    return (f"abssum {t.abs().sum().item()!r} wsum {(t * w).sum().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def params_line(model):
    flat = torch.cat([p.detach().flatten() for p in model.parameters()])
    return f"params {sum(p.numel() for p in model.parameters())} {checksum(flat)}"


def grads_line(model):
    flat = torch.cat([p.grad.flatten() for p in model.parameters() if p.grad is not None])
    return f"grads {checksum(flat)}"


def fmt(value):
    if isinstance(value, torch.Tensor):
        return f"tensor{list(value.shape)} {value.tolist()!r}" if value.numel() <= 16 else \
            checksum(value)
    if isinstance(value, float):
        return repr(value)
    return repr(value)


# ----------------------------------------------------------------------------------- models

class Block(nn.Module):
    """conv-bn-relu-conv-bn with an identity or 1x1-projection shortcut."""

    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.short = (nn.Sequential() if stride == 1 and cin == cout else
                      nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                    nn.BatchNorm2d(cout)))

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(y)) + self.short(x))


class SmallCNN(nn.Module):
    """Stem, two residual blocks, a branch concatenated with the trunk, a learnable
    per-channel scale (an unwrapped parameter), a flatten of 2x2 maps and two Linear layers."""

    def __init__(self, classes=10, scale=False):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1), nn.BatchNorm2d(16), nn.ReLU())
        self.block1 = Block(16, 16)
        self.block2 = Block(16, 32, stride=2)
        self.branch = nn.Sequential(nn.Conv2d(32, 8, 1), nn.BatchNorm2d(8), nn.ReLU())
        self.mix = nn.Conv2d(40, 24, 3, 1, 1)
        self.scale = nn.Parameter(torch.ones(1, 24, 1, 1)) if scale else None
        self.pool = nn.AdaptiveAvgPool2d(2)
        self.fc1 = nn.Linear(24 * 4, 32)
        self.fc2 = nn.Linear(32, classes)

    def forward(self, x):
        x = self.block2(self.block1(self.stem(x)))
        x = self.mix(torch.cat([x, self.branch(x)], dim=1))
        if self.scale is not None:
            x = x * self.scale
        x = self.pool(F.relu(x))
        return self.fc2(F.relu(self.fc1(torch.flatten(x, 1))))


class SplitNet(nn.Module):
    """A channel split, a slice, a view and an expand (graph nodes torch-pruning names)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, padding=1)
        self.left = nn.Conv2d(8, 8, 1)
        self.right = nn.Conv2d(8, 8, 1)
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        a, b = torch.split(self.conv(x), 8, dim=1)
        y = self.left(a) * torch.sigmoid(self.right(b))
        y = y[:, :, 1:-1].mean((2, 3)).view(x.shape[0], -1, 1)
        return self.fc(y.expand(-1, -1, 3).sum(-1))


def tiny_resnet(classes=10):
    """torchvision's ResNet with one BasicBlock a stage (a resnet10)."""
    return ResNet(BasicBlock, [1, 1, 1, 1], num_classes=classes)


def classification_loader(n=48, batch=8, classes=10, size=16, shuffle=True):
    x = torch.randn(n, 3, size, size)
    y = torch.randint(0, classes, (n,))
    return DataLoader(TensorDataset(x, y), batch_size=batch, shuffle=shuffle)


_OP_ID = re.compile(r"(_[A-Za-z]+Op|_Reshape|_Slice)_\d+")


def show_group(tag, group):
    """A group's dependencies, one a line; torch-pruning's op numbers are left out, and so are
    the dependencies on a Linear weight's ``TBackward0`` (jtorch's Linear node leads to the
    weight directly, docs/real-programs.md)."""
    deps = [(str(dep), idxs) for dep, idxs in group]
    deps = [(_OP_ID.sub(r"\1", d), idxs) for d, idxs in deps if "(TBackward0)" not in d]
    print(f"{tag} {len(deps)} deps")
    for dep, idxs in deps:
        print(f"{tag}   {dep} idxs {list(idxs)}")


def prune_report(tag, model, x, base=None):
    macs, nparams = tp.utils.count_ops_and_params(model, x)
    line = f"{tag} macs {macs!r} params {nparams}"
    if base is not None:
        line += f" ratio {nparams / base:.6f}"
    print(line)
    return nparams


def shapes_line(model):
    return " ".join(f"{n}:{list(p.shape)}" for n, p in model.named_parameters()
                    if p.dim() > 1)


def train_step(tag, model, x, y, lr=0.05):
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    for step in range(2):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        print(f"{tag} train step {step} loss {loss.item()!r} {grads_line(model)}")
    model.eval()
    print(f"{tag} after training {params_line(model)}")


# ------------------------------------------------------------------------------ ignite

@variant("ignite_supervised")
def _():
    model = SmallCNN()
    train = classification_loader(n=48)
    val = classification_loader(n=32, shuffle=False)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    trainer = create_supervised_trainer(model, opt, loss_fn)
    RunningAverage(output_transform=lambda out: out).attach(trainer, "avg_loss")
    precision = Precision(average=False)
    recall = Recall(average=False)
    metrics = {"acc": Accuracy(), "loss": Loss(loss_fn),
               "precision": Precision(average=True), "recall": Recall(average="macro"),
               "precision_per_class": precision, "recall_per_class": recall,
               "f1": Fbeta(1.0, precision=precision, recall=recall),
               "f2": Fbeta(2.0), "top3": TopKCategoricalAccuracy(k=3),
               "cm": ConfusionMatrix(num_classes=10)}
    evaluator = create_supervised_evaluator(model, metrics=metrics)
    sched = ConcatScheduler([PiecewiseLinear(opt, "lr", [(0, 0.01), (6, 0.05)]),
                             CosineAnnealingScheduler(opt, "lr", 0.05, 0.001, cycle_size=12)],
                            durations=[6])
    trainer.add_event_handler(Events.ITERATION_STARTED, sched)
    trainer.add_event_handler(Events.ITERATION_COMPLETED, TerminateOnNan())
    timer = Timer(average=True)
    timer.attach(trainer, start=Events.EPOCH_STARTED, resume=Events.ITERATION_STARTED,
                 pause=Events.ITERATION_COMPLETED, step=Events.ITERATION_COMPLETED)

    @trainer.on(Events.ITERATION_COMPLETED(every=4))
    def log_iter(engine):
        print(f"sup iter {engine.state.iteration} loss {engine.state.output!r} "
              f"avg {engine.state.metrics['avg_loss']!r} lr {opt.param_groups[0]['lr']!r}")

    @trainer.on(Events.ITERATION_COMPLETED(once=3))
    def once(engine):
        print(f"sup once at iteration {engine.state.iteration}")

    @trainer.on(Events.EPOCH_COMPLETED)
    def validate(engine):
        evaluator.run(val)
        m = evaluator.state.metrics
        print(f"sup epoch {engine.state.epoch} timer steps {timer.step_count} " +
              " ".join(f"{k} {fmt(m[k])}" for k in metrics if k != "cm"))
        print(f"sup epoch {engine.state.epoch} cm {m['cm'].tolist()}")

    def score(engine):
        return -engine.state.metrics["loss"]

    tmp = tempfile.mkdtemp()
    early = EarlyStopping(patience=2, score_function=score, trainer=trainer)
    evaluator.add_event_handler(Events.COMPLETED, early)
    ckpt = ModelCheckpoint(tmp, "sup", n_saved=2, score_function=score, score_name="negloss",
                           require_empty=False)
    to_save = {"model": model, "optimizer": opt, "trainer": trainer}
    evaluator.add_event_handler(Events.COMPLETED, ckpt, to_save)
    state = trainer.run(train, max_epochs=3)
    print(f"sup finished epoch {state.epoch} iteration {state.iteration} "
          f"{params_line(model)}")
    print(f"sup saved {sorted(os.listdir(tmp))}")
    print(f"sup last checkpoint {os.path.basename(ckpt.last_checkpoint)}")

    # load the best checkpoint into fresh objects
    fresh = SmallCNN()
    fresh_opt = torch.optim.SGD(fresh.parameters(), lr=0.05, momentum=0.9)
    fresh_trainer = create_supervised_trainer(fresh, fresh_opt, loss_fn)
    best = sorted(os.listdir(tmp), key=lambda f: float(f.split("=")[-1][:-3]))[-1]
    Checkpoint.load_objects({"model": fresh, "optimizer": fresh_opt, "trainer": fresh_trainer},
                            torch.load(os.path.join(tmp, best)))
    print(f"sup loaded {best} epoch {fresh_trainer.state.epoch} "
          f"iteration {fresh_trainer.state.iteration} {params_line(fresh)}")
    momentum = torch.cat([s["momentum_buffer"].flatten()
                          for s in fresh_opt.state_dict()["state"].values()])
    print(f"sup loaded momentum {checksum(momentum)}")
    fresh.eval()
    xb = next(iter(val))[0]
    print(f"sup loaded output {checksum(fresh(xb))}")

    # LRScheduler around a torch scheduler, resumed training of the loaded objects
    step = LRScheduler(torch.optim.lr_scheduler.StepLR(fresh_opt, step_size=3, gamma=0.5))
    fresh_trainer.add_event_handler(Events.ITERATION_COMPLETED, step)
    fresh_trainer.add_event_handler(
        Events.EPOCH_COMPLETED,
        lambda e: print(f"sup resumed epoch {e.state.epoch} loss {e.state.output!r} "
                        f"lr {fresh_opt.param_groups[0]['lr']!r}"))
    fresh_trainer.run(train, max_epochs=fresh_trainer.state.epoch + 1)
    print(f"sup resumed {params_line(fresh)}")


class Custom(EventEnum):
    HALF = "half"


@variant("ignite_engine")
def _():
    # a regression model trained by a hand-written process function
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    x = torch.randn(40, 6)
    y = (x[:, :1] * 2 - x[:, 1:2]).sin()
    loader = DataLoader(TensorDataset(x, y), batch_size=10, shuffle=True)

    def step(engine, batch):
        model.train()
        opt.zero_grad()
        xb, yb = batch
        loss = F.mse_loss(model(xb), yb)
        loss.backward()
        opt.step()
        if engine.state.iteration % 2 == 0:
            engine.fire_event(Custom.HALF)
        return loss.item()

    engine = Engine(step)
    engine.register_events(*Custom)
    halves = []
    engine.add_event_handler(Custom.HALF, lambda e: halves.append(e.state.iteration))
    engine.add_event_handler(Events.EPOCH_COMPLETED,
                             lambda e: print(f"eng epoch {e.state.epoch} loss "
                                             f"{e.state.output!r}"))

    @engine.on(Events.ITERATION_COMPLETED)
    def stop(e):
        if e.state.iteration == 10:
            e.terminate()

    engine.run(loader, max_epochs=5)
    print(f"eng terminated at epoch {engine.state.epoch} iteration {engine.state.iteration} "
          f"halves {halves}")
    sd = engine.state_dict()
    print(f"eng state_dict {sorted(sd.items())}")

    def evaluate(engine, batch):
        model.eval()
        with torch.no_grad():
            return model(batch[0]), batch[1]

    ev = Engine(evaluate)
    mse = MeanSquaredError()
    mse.attach(ev, "mse")
    MeanAbsoluteError().attach(ev, "mae")
    RootMeanSquaredError().attach(ev, "rmse")
    MetricsLambda(lambda a, b: a / b, mse, MeanAbsoluteError()).attach(ev, "mse_over_mae")
    ev.run(DataLoader(TensorDataset(x, y), batch_size=16))
    print("eng regression " + " ".join(f"{k} {v!r}" for k, v in sorted(ev.state.metrics.items())))

    # images: SSIM and PSNR
    imgs = torch.rand(4, 3, 24, 24)
    noisy = (imgs + 0.1 * torch.randn(4, 3, 24, 24)).clamp(0, 1)
    iq = Engine(lambda e, b: b)
    SSIM(data_range=1.0).attach(iq, "ssim")
    SSIM(data_range=1.0, kernel_size=(7, 7), gaussian=False).attach(iq, "ssim_box")
    PSNR(data_range=1.0).attach(iq, "psnr")
    iq.run([(noisy[:2], imgs[:2]), (noisy[2:], imgs[2:])])
    print("eng images " + " ".join(f"{k} {v!r}" for k, v in sorted(iq.state.metrics.items())))

    # segmentation: a tiny conv net, ConfusionMatrix -> IoU / mIoU
    seg = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 4, 1))
    sopt = torch.optim.SGD(seg.parameters(), lr=0.1)
    simg = torch.rand(8, 3, 12, 12)
    smask = (simg.sum(1) * 4 / 3).long().clamp(0, 3)
    strainer = create_supervised_trainer(seg, sopt, nn.CrossEntropyLoss())
    sl = DataLoader(TensorDataset(simg, smask), batch_size=4)
    strainer.add_event_handler(Events.EPOCH_COMPLETED,
                               lambda e: print(f"eng seg epoch {e.state.epoch} loss "
                                               f"{e.state.output!r}"))
    strainer.run(sl, max_epochs=3)
    cm = ConfusionMatrix(num_classes=4)
    sev = create_supervised_evaluator(seg, metrics={"iou": IoU(cm), "miou": mIoU(cm),
                                                    "miou_nobg": mIoU(cm, ignore_index=0),
                                                    "cm": cm})
    sev.run(sl)
    m = sev.state.metrics
    print(f"eng seg iou {m['iou'].tolist()!r} miou {m['miou']!r} miou_nobg {m['miou_nobg']!r}")
    print(f"eng seg cm {m['cm'].tolist()}")


@variant("ignite_idist")
def _():
    print(f"idist backend {idist.backend()} world {idist.get_world_size()} "
          f"rank {idist.get_rank()} local {idist.get_local_rank()} nproc/node "
          f"{idist.get_nproc_per_node()} nnodes {idist.get_nnodes()} "
          f"device {idist.device().type} model_name {idist.model_name()}")
    t = torch.arange(4, dtype=torch.float32)
    print(f"idist all_reduce {idist.all_reduce(t.clone()).tolist()} all_gather "
          f"{idist.all_gather(t).tolist()} broadcast {idist.broadcast(t, src=0).tolist()} "
          f"scalar {idist.all_reduce(3.5)!r}")
    x = torch.randn(40, 3, 8, 8)
    y = torch.randint(0, 4, (40,))
    loader = idist.auto_dataloader(TensorDataset(x, y), batch_size=8, shuffle=True,
                                   num_workers=0)
    # no conv bias before the BatchNorm: its gradient is zero but for rounding, which Adam's
    # normalised steps would turn into steps of the full learning rate
    model = idist.auto_model(nn.Sequential(nn.Conv2d(3, 8, 3, bias=False), nn.BatchNorm2d(8),
                                           nn.ReLU(),
                                           nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                                           nn.Linear(8, 4)))
    opt = idist.auto_optim(torch.optim.AdamW(model.parameters(), lr=0.01))
    print(f"idist loader {type(loader).__name__} batches {len(loader)} model "
          f"{type(model).__name__} optim {type(opt).__name__}")
    trainer = create_supervised_trainer(model, opt, nn.CrossEntropyLoss(),
                                        device=idist.device())
    trainer.add_event_handler(Events.EPOCH_COMPLETED,
                              lambda e: print(f"idist epoch {e.state.epoch} loss "
                                              f"{e.state.output!r}"))
    trainer.run(loader, max_epochs=2)
    ev = create_supervised_evaluator(model, metrics={"acc": Accuracy(), "loss":
                                                     Loss(nn.CrossEntropyLoss())})
    ev.run(loader)
    print(f"idist eval {sorted(ev.state.metrics.items())} {params_line(model)}")


# ------------------------------------------------------------------------- torch-pruning

@variant("prune_graph")
def _():
    model = SmallCNN(scale=True).eval()
    x = torch.randn(2, 3, 16, 16)
    print(f"graph output {checksum(model(x))}")
    dg = tp.DependencyGraph().build_dependency(
        model, example_inputs=x, unwrapped_parameters=[(model.scale, 1)])
    groups = list(dg.get_all_groups(ignored_layers=[model.fc2]))
    sizes = [sum("(TBackward0)" not in str(dep) for dep, _ in g) for g in groups]
    print(f"graph groups {len(groups)} sizes {sizes} (without TBackward0 nodes)")
    for conv in (model.stem[0], model.block1.conv1, model.block2.conv2, model.branch[0],
                 model.mix, model.fc1):
        fn = (tp.prune_linear_out_channels if isinstance(conv, nn.Linear)
              else tp.prune_conv_out_channels)
        show_group(f"graph group of {type(conv).__name__}{tuple(conv.weight.shape)}",
                   dg.get_pruning_group(conv, fn, idxs=[0, 2, 5]))
    split = SplitNet().eval()
    xs = torch.randn(2, 3, 8, 8)
    sdg = tp.DependencyGraph().build_dependency(split, example_inputs=xs)
    for conv in (split.conv, split.left):
        group = sdg.get_pruning_group(conv, tp.prune_conv_out_channels, idxs=[1, 6])
        show_group("graph split group", group)
    group.prune()
    print(f"graph split pruned {shapes_line(split)} output {checksum(split(xs))}")
    group = dg.get_pruning_group(model.block2.conv2, tp.prune_conv_out_channels,
                                 idxs=[1, 3, 4, 8])
    if dg.check_pruning_group(group):
        group.prune()
    group = dg.get_pruning_group(model.mix, tp.prune_conv_out_channels, idxs=[0, 13, 20])
    group.prune()
    print(f"graph pruned {shapes_line(model)} scale {list(model.scale.shape)}")
    print(f"graph pruned output {checksum(model(x))} {params_line(model)}")
    train_step("graph", model, x, torch.tensor([1, 7]))


def meta_prune(tag, model, x, importance, **kwargs):
    base = prune_report(f"{tag} before", model, x)
    pruner = tp.pruner.MetaPruner(model, x, importance=importance, **kwargs)
    steps = kwargs.get("iterative_steps", 1)
    for i in range(steps):
        pruner.step()
        prune_report(f"{tag} step {i}", model, x, base)
    model.eval()
    print(f"{tag} output {checksum(model(x))}")
    return model


@variant("prune_magnitude")
def _():
    x = torch.randn(2, 3, 16, 16)
    y = torch.tensor([3, 8])
    model = SmallCNN()
    meta_prune("mag_l2", model, x, tp.importance.MagnitudeImportance(p=2),
               pruning_ratio=0.5, ignored_layers=[model.fc2])
    print(f"mag_l2 shapes {shapes_line(model)}")
    train_step("mag_l2", model, x, y)

    model = SmallCNN()
    meta_prune("mag_l1_global", model, x,
               tp.importance.MagnitudeImportance(p=1, group_reduction="max"),
               pruning_ratio=0.4, global_pruning=True, round_to=4, iterative_steps=2,
               ignored_layers=[model.fc2])
    print(f"mag_l1_global shapes {shapes_line(model)}")

    model = SmallCNN()
    tp.pruner.MagnitudePruner(model, x, importance=tp.importance.MagnitudeImportance(p=2),
                              pruning_ratio=0.25,
                              pruning_ratio_dict={model.block2: 0.5, model.stem: 0.75},
                              ignored_layers=[model.fc2]).step()
    print(f"mag_dict shapes {shapes_line(model)} output {checksum(model.eval()(x))}")

    xr = torch.randn(8, 3, 64, 64)   # the training batch too: the same shapes, compiled once
    model = resnet18(num_classes=10)
    meta_prune("resnet18", model, xr, tp.importance.MagnitudeImportance(p=2),
               pruning_ratio=0.5, ignored_layers=[model.fc])
    print(f"resnet18 shapes {shapes_line(model)}")
    # one SGD step (batch 8, so that train-mode BatchNorm of the 2x2 last stage is well
    # conditioned); prune_finetune trains a pruned ResNet further
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss = F.cross_entropy(model(xr), torch.randint(0, 10, (8,)))
    loss.backward()
    opt.step()
    print(f"resnet18 train loss {loss.item()!r} {grads_line(model)} {params_line(model)}")


@variant("prune_taylor_bn")
def _():
    x = torch.randn(4, 3, 16, 16)
    y = torch.tensor([0, 3, 5, 9])

    model = SmallCNN()
    imp = tp.importance.TaylorImportance()
    pruner = tp.pruner.MetaPruner(model, x, importance=imp, pruning_ratio=0.5,
                                  ignored_layers=[model.fc2])
    model.train()
    model.zero_grad()
    F.cross_entropy(model(x), y).backward()
    for group in pruner.DG.get_all_groups(ignored_layers=[model.fc2]):
        print(f"taylor {group[0][0].target._name} scores {checksum(imp(group))}")
    for group in pruner.step(interactive=True):
        print(f"taylor {group[0][0].target._name} prune {sorted(group[0][1])}")
        group.prune()
    prune_report("taylor", model, x)
    model.eval()
    print(f"taylor output {checksum(model(x))}")

    # network slimming: L1 on BN scales during training, then BN-scale pruning
    model = SmallCNN()
    imp = tp.importance.BNScaleImportance()
    pruner = tp.pruner.BNScalePruner(model, x, importance=imp, reg=1e-3, pruning_ratio=0.5,
                                     ignored_layers=[model.fc2])
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    model.train()
    for step in range(3):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        pruner.regularize(model)
        opt.step()
        print(f"bnscale step {step} loss {loss.item()!r} {grads_line(model)}")
    pruner.step()
    prune_report("bnscale", model, x)
    print(f"bnscale shapes {shapes_line(model)} output {checksum(model.eval()(x))}")

    model = SmallCNN()
    pruner = tp.pruner.GroupNormPruner(
        model, x, importance=tp.importance.GroupMagnitudeImportance(p=2), reg=1e-3,
        pruning_ratio=0.3, ignored_layers=[model.fc2])
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    model.train()
    for step in range(2):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        pruner.update_regularizer()
        pruner.regularize(model)
        opt.step()
        print(f"groupnorm step {step} loss {loss.item()!r} {grads_line(model)}")
    pruner.step()
    prune_report("groupnorm", model, x)
    print(f"groupnorm shapes {shapes_line(model)} output {checksum(model.eval()(x))}")

    for name, imp in (("lamp", tp.importance.LAMPImportance(p=2)),
                      ("fpgm", tp.importance.FPGMImportance(p=2))):
        model = SmallCNN()
        meta_prune(name, model, x, imp, pruning_ratio=0.5, ignored_layers=[model.fc2])
        print(f"{name} shapes {shapes_line(model)}")

    # save the pruned model's structure and weights, rebuild it in an unpruned model
    path = os.path.join(tempfile.mkdtemp(), "pruned.pth")
    torch.save(tp.state_dict(model), path)
    fresh = SmallCNN()
    tp.load_state_dict(fresh, torch.load(path, weights_only=False))
    fresh.eval()
    print(f"reload shapes {shapes_line(fresh)} equal outputs "
          f"{bool(torch.equal(fresh(x), model(x)))} {params_line(fresh)}")


@variant("prune_finetune")
def _():
    model = tiny_resnet(classes=4)
    x = torch.randn(16, 3, 64, 64)
    y = torch.randint(0, 4, (16,))
    loader = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=True)
    ex = x[:8]   # a batch's shape: tracing and counting reuse the evaluation's kernels
    base = prune_report("finetune before", model, ex)
    imp = tp.importance.MagnitudeImportance(p=2)
    pruner = tp.pruner.MetaPruner(model, ex, importance=imp, pruning_ratio=0.5,
                                  iterative_steps=2, ignored_layers=[model.fc])
    for rnd in range(2):
        pruner.step()
        prune_report(f"finetune round {rnd}", model, ex, base)
        # the optimizer must see the pruned parameters
        opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
        trainer = create_supervised_trainer(model, opt, nn.CrossEntropyLoss())
        RunningAverage(output_transform=lambda out: out).attach(trainer, "avg")
        trainer.add_event_handler(
            Events.EPOCH_COMPLETED,
            lambda e, r=rnd: print(f"finetune round {r} epoch {e.state.epoch} loss "
                                   f"{e.state.output!r} avg {e.state.metrics['avg']!r}"))
        trainer.run(loader, max_epochs=2)
        ev = create_supervised_evaluator(model, metrics={"acc": Accuracy(),
                                                         "loss": Loss(nn.CrossEntropyLoss())})
        ev.run(DataLoader(TensorDataset(x, y), batch_size=8))
        print(f"finetune round {rnd} eval {sorted(ev.state.metrics.items())}")
    print(f"finetune final {params_line(model)}")


def main(argv):
    if os.environ.get("IGNITE_PRUNING_FLOAT64"):  # to tell float32 rounding from a bug
        torch.set_default_dtype(torch.float64)
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
