"""Driver for PyTorch Lightning (the ``lightning`` package, 2.6.x, used unchanged): a small CNN
LightningModule on an MNIST subset, trained, validated, tested, predicted, resumed from its
checkpoint and reloaded, with Lightning's CSVLogger, ModelCheckpoint, EarlyStopping and
LearningRateMonitor; then gradient accumulation with clipping, bf16-mixed precision on CPU,
and a Fabric manual loop. Every logged metric and the CSV are printed at full precision.

    python lightning_mnist.py                     # every part
    python lightning_mnist.py fit accum           # a subset: fit accum bf16 fabric
    MNIST_DIR=/path/to/gz/files python lightning_mnist.py

The MNIST gz IDX files are read from ``MNIST_DIR`` (default /work/shared/data/mnist): the first
1024 training images (896 train, 128 validation) and 256 test images. Without them random
images are used.
"""

import csv
import glob
import gzip
import logging
import os
import struct
import sys
import warnings

import lightning as L
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from lightning.pytorch.callbacks import EarlyStopping, LearningRateMonitor, ModelCheckpoint
from lightning.pytorch.loggers import CSVLogger
from torch.utils.data import DataLoader, TensorDataset

warnings.filterwarnings("ignore")
logging.getLogger("lightning").setLevel(logging.ERROR)
logging.getLogger("lightning.pytorch").setLevel(logging.ERROR)
logging.getLogger("lightning.fabric").setLevel(logging.ERROR)

MNIST_DIR = os.environ.get("MNIST_DIR", "/work/shared/data/mnist")
OUT = os.environ.get("LIGHTNING_OUT", "lightning_out")


def _idx(name, n):
    with gzip.open(os.path.join(MNIST_DIR, name + ".gz")) as f:
        data = f.read()
    ndim = data[3]
    shape = list(struct.unpack(f">{ndim}i", data[4:4 + 4 * ndim]))
    shape[0] = n
    count = int(np.prod(shape))
    return np.frombuffer(data, np.uint8, count, 4 + 4 * ndim).reshape(shape)


def mnist(n_train=1024, n_test=256):
    if os.path.exists(os.path.join(MNIST_DIR, "train-images-idx3-ubyte.gz")):
        xs = _idx("train-images-idx3-ubyte", n_train)
        ys = _idx("train-labels-idx1-ubyte", n_train)
        xt = _idx("t10k-images-idx3-ubyte", n_test)
        yt = _idx("t10k-labels-idx1-ubyte", n_test)
    else:
        rng = np.random.default_rng(1)
        xs, xt = (rng.integers(0, 256, (n, 28, 28), dtype=np.uint8) for n in (n_train, n_test))
        ys, yt = (rng.integers(0, 10, n) for n in (n_train, n_test))

    def tensors(x, y):
        x = torch.from_numpy(x.astype(np.float32) / 255.0).unsqueeze(1)
        return (x - 0.1307) / 0.3081, torch.from_numpy(y.astype(np.int64))

    return tensors(xs, ys), tensors(xt, yt)


class MNISTData(L.LightningDataModule):
    def __init__(self, batch_size=64):
        super().__init__()
        self.save_hyperparameters()
        self.batch_size = batch_size

    def setup(self, stage=None):
        (x, y), (xt, yt) = mnist()
        self.train_set = TensorDataset(x[:896], y[:896])
        self.val_set = TensorDataset(x[896:], y[896:])
        self.test_set = TensorDataset(xt, yt)

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=self.batch_size, shuffle=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=self.batch_size)

    def test_dataloader(self):
        return DataLoader(self.test_set, batch_size=self.batch_size)

    def predict_dataloader(self):
        return DataLoader(TensorDataset(self.test_set.tensors[0][:96]), batch_size=32)


class LitCNN(L.LightningModule):
    def __init__(self, lr=2e-3, hidden=32, step_size=1, gamma=0.5, dropout=0.1):
        super().__init__()
        self.save_hyperparameters()
        # no bias before BatchNorm: its gradient is zero in exact arithmetic, and Adam would
        # turn the float32 rounding noise of both frameworks into full steps
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.drop = nn.Dropout(dropout)
        self.fc1 = nn.Linear(16 * 7 * 7, hidden)
        self.fc2 = nn.Linear(hidden, 10)
        # the model summary's input/output sizes and FLOPs (torch.utils.flop_counter)
        self.example_input_array = torch.zeros(2, 1, 28, 28)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = self.drop(F.relu(self.fc1(x.flatten(1))))
        return self.fc2(x)

    def _step(self, batch, stage):
        x, y = batch
        logits = self(x)
        loss = F.cross_entropy(logits, y)
        acc = (logits.argmax(-1) == y).float().mean()
        on_step = stage == "train"
        self.log(f"{stage}_loss", loss, on_step=on_step, on_epoch=True, prog_bar=True)
        self.log(f"{stage}_acc", acc, on_step=on_step, on_epoch=True)
        return loss

    def training_step(self, batch, batch_idx):
        return self._step(batch, "train")

    def validation_step(self, batch, batch_idx):
        self._step(batch, "val")

    def test_step(self, batch, batch_idx):
        self._step(batch, "test")

    def predict_step(self, batch, batch_idx, dataloader_idx=0):
        return self(batch[0]).softmax(-1)

    def configure_optimizers(self):
        opt = torch.optim.Adam(self.parameters(), lr=self.hparams.lr)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=self.hparams.step_size,
                                                gamma=self.hparams.gamma)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "epoch"}}


def fmt(v):
    if isinstance(v, torch.Tensor):
        v = v.item() if v.numel() == 1 else v.tolist()
    return repr(v)


def show_metrics(title, metrics):
    print(f"[{title}]")
    for k in sorted(metrics):
        print(f"  {k} = {fmt(metrics[k])}")


def show_csv(folder):
    for path in sorted(glob.glob(os.path.join(folder, "**", "metrics.csv"), recursive=True)):
        print(f"[csv {os.path.relpath(path, OUT)}]")
        with open(path) as f:
            rows = list(csv.reader(f))
        print("  " + ",".join(rows[0]))
        for row in rows[1:]:
            print("  " + ",".join(row))


def show_state(title, state):
    print(f"[{title}]")
    for k, v in state.items():
        if isinstance(v, torch.Tensor) and v.is_floating_point():
            print(f"  {k} {tuple(v.shape)} sum {v.double().sum().item()!r} "
                  f"abs {v.double().abs().sum().item()!r}")
        elif isinstance(v, torch.Tensor):
            print(f"  {k} {tuple(v.shape)} {v.dtype} {v.sum().item()}")


def trainer(name, **kwargs):
    callbacks = kwargs.pop("callbacks", None)
    if callbacks is None:
        callbacks = [LearningRateMonitor(logging_interval="epoch")]
    args = {"accelerator": "cpu", "devices": 1, "max_epochs": 2, "limit_train_batches": 6,
            "limit_val_batches": 2, "limit_test_batches": 2, "enable_progress_bar": False,
            "enable_model_summary": False, "log_every_n_steps": 2,
            "logger": CSVLogger(OUT, name=name, version=0), "callbacks": callbacks,
            "default_root_dir": OUT}
    return L.Trainer(**{**args, **kwargs})


def part_fit():
    L.seed_everything(0)
    dm = MNISTData()
    model = LitCNN()
    ckpt = ModelCheckpoint(dirpath=os.path.join(OUT, "ckpt"), filename="best-{epoch}",
                           monitor="val_loss", mode="min", save_last=True, save_top_k=1)
    stop = EarlyStopping(monitor="val_loss", mode="min", patience=3)
    t = trainer("fit", callbacks=[ckpt, stop, LearningRateMonitor(logging_interval="epoch")],
                enable_model_summary=True)
    t.fit(model, datamodule=dm)
    print("global_step", t.global_step, "epoch", t.current_epoch)
    show_metrics("fit callback_metrics", t.callback_metrics)
    print("best", os.path.basename(ckpt.best_model_path), fmt(ckpt.best_model_score))
    print("lr", [g["lr"] for g in t.optimizers[0].param_groups])
    show_metrics("validate", t.validate(model, datamodule=dm, verbose=False)[0])
    show_metrics("test", t.test(model, datamodule=dm, verbose=False)[0])
    preds = t.predict(model, datamodule=dm)
    p = torch.cat(preds)
    print("predict", len(preds), tuple(p.shape), fmt(p.sum(0)), fmt(p.argmax(-1)[:24]))
    show_csv(os.path.join(OUT, "fit"))

    # the checkpoint: what Lightning saved with torch.save
    last = os.path.join(OUT, "ckpt", "last.ckpt")
    data = torch.load(last, weights_only=False)
    print("ckpt keys", sorted(data))
    print("ckpt epoch", data["epoch"], "global_step", data["global_step"])
    print("ckpt hparams", dict(data["hyper_parameters"]))
    print("ckpt lr_schedulers", data["lr_schedulers"])
    opt_state = data["optimizer_states"][0]
    print("ckpt optimizer param_groups", opt_state["param_groups"])
    print("ckpt optimizer steps", sorted({fmt(s["step"]) for s in opt_state["state"].values()}))
    show_state("ckpt state_dict", data["state_dict"])

    # resume from the checkpoint for a third epoch
    L.seed_everything(1)
    t2 = trainer("resume", max_epochs=3)
    model2 = LitCNN()
    t2.fit(model2, datamodule=dm, ckpt_path=last)
    print("resumed global_step", t2.global_step, "epoch", t2.current_epoch)
    show_metrics("resume callback_metrics", t2.callback_metrics)
    show_csv(os.path.join(OUT, "resume"))

    # load_from_checkpoint
    loaded = LitCNN.load_from_checkpoint(last)
    print("loaded hparams", dict(loaded.hparams), "training", loaded.training)
    same = all(torch.equal(a, b) for a, b in zip(loaded.state_dict().values(),
                                                  data["state_dict"].values()))
    print("loaded equals checkpoint", same)
    t3 = trainer("loaded")
    show_metrics("loaded test", t3.test(loaded, datamodule=dm, verbose=False)[0])


def part_accum():
    L.seed_everything(0)
    t = trainer("accum", accumulate_grad_batches=2, gradient_clip_val=0.5,
                gradient_clip_algorithm="norm", max_epochs=1, limit_train_batches=8)
    model = LitCNN(dropout=0.0)
    t.fit(model, datamodule=MNISTData())
    print("accum global_step", t.global_step)
    show_metrics("accum callback_metrics", t.callback_metrics)
    L.seed_everything(0)
    t = trainer("clipvalue", gradient_clip_val=0.01, gradient_clip_algorithm="value",
                max_epochs=1, limit_train_batches=4)
    model = LitCNN(dropout=0.0)
    t.fit(model, datamodule=MNISTData())
    show_metrics("clip value callback_metrics", t.callback_metrics)
    show_state("clip value state_dict", model.state_dict())


def part_bf16():
    L.seed_everything(0)
    t = trainer("bf16", precision="bf16-mixed", max_epochs=1, limit_train_batches=4)
    model = LitCNN(dropout=0.0)
    t.fit(model, datamodule=MNISTData())
    show_metrics("bf16 callback_metrics", t.callback_metrics)
    show_metrics("bf16 test", t.test(model, datamodule=MNISTData(), verbose=False)[0])


def part_fabric():
    L.seed_everything(0)
    fabric = L.Fabric(accelerator="cpu", devices=1, precision="32-true")
    fabric.launch()
    model = LitCNN(dropout=0.0)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    model, opt = fabric.setup(model, opt)
    dm = MNISTData(batch_size=32)
    dm.setup()
    loader = fabric.setup_dataloaders(dm.train_dataloader())
    model.train()
    for i, (x, y) in enumerate(loader):
        if i == 6:
            break
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        fabric.backward(loss)
        fabric.clip_gradients(model, opt, max_norm=1.0)
        opt.step()
        print(f"fabric step {i} loss {loss.item()!r}")
    path = os.path.join(OUT, "fabric.ckpt")
    fabric.save(path, {"model": model, "optimizer": opt, "step": 6})
    model2 = LitCNN(dropout=0.0)
    opt2 = torch.optim.SGD(model2.parameters(), lr=0.05, momentum=0.9)
    model2, opt2 = fabric.setup(model2, opt2)
    state = {"model": model2, "optimizer": opt2}
    rest = fabric.load(path, state)
    print("fabric load rest", rest)
    same = all(torch.equal(a, b) for a, b in zip(model.state_dict().values(),
                                                  model2.state_dict().values()))
    print("fabric loaded equals", same)
    show_state("fabric state_dict", model2.state_dict())


PARTS = {"fit": part_fit, "accum": part_accum, "bf16": part_bf16, "fabric": part_fabric}

if __name__ == "__main__":
    for name in sys.argv[1:] or PARTS:
        print(f"===== {name}")
        PARTS[name]()
