"""The examples run, and the MNIST MLP reaches PyTorch's accuracy on the real data.

MNIST is read from ../shared/data/mnist (beside the repository), or $JTORCH_MNIST. It is never
downloaded in tests.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from data_helpers import mnist_dir as _mnist_dir

import jtorch

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
sys.path.insert(0, str(EXAMPLES))


def mnist_dir():
    d = _mnist_dir()
    return None if d is None else str(d)


needs_mnist = pytest.mark.skipif(mnist_dir() is None,
                                 reason="MNIST not found in ../shared/data/mnist or $JTORCH_MNIST")


def test_quickstart_trains(tmp_path, monkeypatch):
    import quickstart

    monkeypatch.chdir(tmp_path)
    history = quickstart.main(epochs=6)
    assert history["test_acc"][-1] > 0.9
    assert history["train_loss"][-1] < history["train_loss"][0]
    assert (tmp_path / "quickstart.png").stat().st_size > 1000


@needs_mnist
def test_mnist_mlp_one_epoch_reaches_95_percent():
    import mnist_mlp

    jtorch.manual_seed(0)
    train_loader, test_loader = mnist_mlp.loaders(mnist_dir(), download=False)
    model = mnist_mlp.MLP()
    loss_fn = jtorch.nn.CrossEntropyLoss()
    opt = jtorch.optim.Adam(model.parameters(), lr=1e-3)
    mnist_mlp.train_epoch(model, train_loader, loss_fn, opt)
    _, acc = mnist_mlp.evaluate(model, test_loader, loss_fn)
    print(f"MNIST MLP, one epoch: test accuracy {100 * acc:.2f}%")
    assert acc >= 0.95


@needs_mnist
def test_checkpoint_resume_is_exact(tmp_path):
    """Killed after epoch 1 (os._exit in a subprocess) and resumed from the file, training
    ends with exactly the weights of an uninterrupted run (made in this process)."""
    import subprocess

    import checkpoint_resume
    import torch

    common = ["--epochs", "2", "--limit", "2000", "--patience", "5", "--data", mnist_dir()]
    ref = tmp_path / "ref"
    ref.mkdir()
    ns = checkpoint_resume.argparse.Namespace(epochs=2, limit=2000, patience=5,
                                              data=mnist_dir(), out=str(ref), resume=False,
                                              kill_after=0, verify=False)
    checkpoint_resume.run(ns)
    script = str(EXAMPLES / "checkpoint_resume.py")
    out = tmp_path / "b"
    out.mkdir()
    killed = subprocess.run([sys.executable, script, *common, "--out", str(out),
                             "--kill-after", "1"], capture_output=True, text=True)
    assert killed.returncode == 3, killed.stderr[-2000:]
    resumed = subprocess.run([sys.executable, script, *common, "--out", str(out), "--resume"],
                             capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert "resumed after epoch 1" in resumed.stdout
    a = jtorch.load(ref / "ckpt.pt")
    b = jtorch.load(out / "ckpt.pt")
    assert a["state"]["epoch"] == b["state"]["epoch"] == 2
    for k in a["model"]:
        assert jtorch.equal(a["model"][k], b["model"][k]), k
    sd = torch.load(out / "best.pt", weights_only=True)  # a real PyTorch file
    assert sorted(sd) == ["1.bias", "1.weight", "4.bias", "4.weight"]
