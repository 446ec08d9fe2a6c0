"""Checkpoint every epoch, survive a kill, resume to the same result, stop early.

Run:  python examples/checkpoint_resume.py            # train with early stopping
      python examples/checkpoint_resume.py --kill-after 2   # "crash" after epoch 2's save
      python examples/checkpoint_resume.py --resume         # ...and carry on from the file
      python examples/checkpoint_resume.py --verify         # both, then compare: identical

Each epoch writes one checkpoint (model, optimizer, scheduler, random state, early-stopping
counters, history) with jtorch.save, which writes a temporary file and renames it, so a kill
never leaves a half-written checkpoint. The best model (lowest validation loss) is kept in
best.pt; training stops when validation loss has not improved for --patience epochs. The
files are PyTorch checkpoints: torch.load(path, weights_only=True) reads them.
Data: MNIST from the places mnist_mlp.py looks (--data, $JTORCH_DATA, ../shared/data/mnist).
"""

import argparse
import os
import subprocess
import sys

from _common import data_root, plot_curves, progress

import jtorch as torch
from jtorch import nn
from jtorch.utils.data import DataLoader, Subset, random_split
from jtorch.vision import datasets, transforms


def make_model():
    return nn.Sequential(nn.Flatten(), nn.Linear(784, 128), nn.ReLU(), nn.Dropout(0.2),
                         nn.Linear(128, 10))


def data(root, limit):
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    full = datasets.MNIST(root, train=True, transform=tf, download=True)
    full = Subset(full, range(min(limit, len(full))))
    n_val = len(full) // 6
    train, val = random_split(full, [len(full) - n_val, n_val],
                              generator=torch.Generator().manual_seed(0))
    return DataLoader(train, batch_size=64, shuffle=True), DataLoader(val, batch_size=500)


def run(args):
    torch.manual_seed(0)
    train_loader, val_loader = data(args.data or data_root(), args.limit)
    model = make_model()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.7)
    loss_fn = nn.CrossEntropyLoss()
    ckpt, best_path = os.path.join(args.out, "ckpt.pt"), os.path.join(args.out, "best.pt")
    state = {"epoch": 0, "best_val": float("inf"), "bad_epochs": 0,
             "history": {"train_loss": [], "test_loss": [], "test_acc": []}}
    if args.resume and os.path.exists(ckpt):
        c = torch.load(ckpt)  # weights_only=True: tensors, numbers, strings, containers
        model.load_state_dict(c["model"])
        optimizer.load_state_dict(c["optimizer"])
        scheduler.load_state_dict(c["scheduler"])
        torch.set_rng_state(c["rng_state"])
        state = c["state"]
        print(f"resumed after epoch {state['epoch']} (best validation loss "
              f"{state['best_val']:.4f})")

    while state["epoch"] < args.epochs and state["bad_epochs"] < args.patience:
        epoch = state["epoch"] + 1
        model.train()
        total, n = 0.0, 0
        for x, y in progress(train_loader, f"epoch {epoch}"):
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(x)
            n += len(x)
        scheduler.step()
        model.eval()
        vl, correct, m = 0.0, 0, 0
        with torch.no_grad():
            for x, y in val_loader:
                out = model(x)
                vl += loss_fn(out, y).item() * len(x)
                correct += (out.argmax(1) == y).sum().item()
                m += len(x)
        vl /= m
        h = state["history"]
        h["train_loss"].append(total / n)
        h["test_loss"].append(vl)
        h["test_acc"].append(correct / m)
        improved = vl < state["best_val"]
        state.update(epoch=epoch, best_val=min(vl, state["best_val"]),
                     bad_epochs=0 if improved else state["bad_epochs"] + 1)
        if improved:
            torch.save(model.state_dict(), best_path)
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(), "rng_state": torch.get_rng_state(),
                    "state": state}, ckpt)
        print(f"epoch {epoch}  train loss {total / n:.4f}  val loss {vl:.4f}  "
              f"val accuracy {100 * correct / m:.2f}%{'  (best)' if improved else ''}")
        if args.kill_after and epoch == args.kill_after:
            print("simulated crash: exiting without cleanup")
            os._exit(3)
    if state["bad_epochs"] >= args.patience:
        print(f"early stop: no improvement for {args.patience} epochs")
    plot_curves(state["history"], os.path.join(args.out, "checkpoint_resume.png"),
                "checkpoint / resume / early stopping (jtorch)")
    return model


def verify(args):
    """An uninterrupted run and a killed-then-resumed run end with identical weights."""
    base = [sys.executable, os.path.abspath(__file__), "--epochs", str(args.epochs),
            "--limit", str(args.limit), "--patience", str(args.patience)]
    if args.data:
        base += ["--data", args.data]
    for d in ("run_a", "run_b"):
        os.makedirs(os.path.join(args.out, d), exist_ok=True)
        for f in ("ckpt.pt", "best.pt"):
            p = os.path.join(args.out, d, f)
            if os.path.exists(p):
                os.remove(p)
    a, b = os.path.join(args.out, "run_a"), os.path.join(args.out, "run_b")
    subprocess.run(base + ["--out", a], check=True)
    killed = subprocess.run(base + ["--out", b, "--kill-after", "2"])
    print(f"killed run exited with {killed.returncode}")
    subprocess.run(base + ["--out", b, "--resume"], check=True)
    sa = torch.load(os.path.join(a, "ckpt.pt"))
    sb = torch.load(os.path.join(b, "ckpt.pt"))
    same = all(torch.equal(sa["model"][k], sb["model"][k]) for k in sa["model"])
    print("resumed run identical to the uninterrupted one:", same)
    return same


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--patience", type=int, default=2)
    ap.add_argument("--limit", type=int, default=12000)
    ap.add_argument("--data", default=None)
    ap.add_argument("--out", default=".")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--kill-after", type=int, default=0)
    ap.add_argument("--verify", action="store_true")
    a = ap.parse_args()
    sys.exit(0 if verify(a) else 1) if a.verify else run(a)
