"""Shared bits of the examples: a progress bar, the loss/accuracy plot, and where MNIST is."""

from __future__ import annotations

import os
from pathlib import Path

try:
    from tqdm import tqdm
except ImportError:  # the examples extra is not installed: plain iteration, one hint
    print("(install the examples extra for progress bars and plots: pip install -e '.[examples]')")

    def tqdm(iterable, **kwargs):
        return iterable


def progress(iterable, desc):
    return tqdm(iterable, desc=desc, leave=False, dynamic_ncols=True)


def plot_curves(history, path, title):
    """Save a PNG with the loss curves and the accuracy curve of ``history`` (lists per epoch)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"matplotlib is not installed; no plot written to {path}")
        return
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    epochs = range(1, len(history["train_loss"]) + 1)
    ax1.plot(epochs, history["train_loss"], "o-", label="train")
    if "test_loss" in history:
        ax1.plot(epochs, history["test_loss"], "o-", label="test")
    ax1.set_xlabel("epoch")
    ax1.set_ylabel("loss")
    ax1.legend()
    ax2.plot(epochs, [100 * a for a in history["test_acc"]], "o-", color="tab:green")
    ax2.set_xlabel("epoch")
    ax2.set_ylabel("test accuracy (%)")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    print(f"saved {path}")


def data_root(name="mnist"):
    """Where MNIST-format data lives: $JTORCH_DATA, else ../shared/data/<name> beside the repo,
    else ./data."""
    env = os.environ.get("JTORCH_DATA")
    if env:
        return env
    shared = Path(__file__).resolve().parents[2] / "shared" / "data" / name
    return str(shared) if shared.is_dir() else str(Path(__file__).resolve().parents[1] / "data")
