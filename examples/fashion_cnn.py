"""A small CNN with BatchNorm and Dropout, trained with SGD + momentum and a cosine schedule.

Run:  python examples/fashion_cnn.py [--epochs 3] [--data DIR] [--limit N]

Uses FashionMNIST when its files are present under --data (or $JTORCH_DATA), else MNIST from
the same places mnist_mlp.py looks (both are MNIST-format IDX files; nothing is downloaded
unless you pass --download and are online). --limit trains on the first N images, for a quick
run. Saves fashion_cnn.png.
"""

import argparse
import os

from _common import data_root, plot_curves, progress

import jtorch as torch
from jtorch import nn
from jtorch.utils.data import DataLoader, Subset
from jtorch.vision import datasets, transforms


class Net(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Dropout(0.25), nn.Linear(64 * 7 * 7, 128), nn.ReLU(),
            nn.Dropout(0.25), nn.Linear(128, num_classes),
        )

    def forward(self, x):
        return self.classifier(self.features(x))


def dataset_class(root):
    fashion = [os.path.join(root, "FashionMNIST", "raw"), os.path.join(root, "fashion")]
    return datasets.FashionMNIST if any(os.path.isdir(p) for p in fashion) else datasets.MNIST


def main(epochs=3, root=None, limit=None, download=False, batch_size=64):
    torch.manual_seed(0)
    root = root or data_root()
    cls = dataset_class(root)
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))])
    train = cls(root, train=True, transform=tf, download=download)
    test = cls(root, train=False, transform=tf, download=download)
    if limit:
        train, test = Subset(train, range(limit)), Subset(test, range(min(limit, len(test))))
    print(f"{cls.__name__}: {len(train)} training images, {len(test)} test images")
    train_loader = DataLoader(train, batch_size=batch_size, shuffle=True)
    test_loader = DataLoader(test, batch_size=500)

    model = Net()
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer,
                                                           T_max=epochs * len(train_loader))
    history = {"train_loss": [], "test_loss": [], "test_acc": []}
    for epoch in range(1, epochs + 1):
        model.train()
        total, n = 0.0, 0
        for x, y in progress(train_loader, f"epoch {epoch}"):
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            scheduler.step()
            total += loss.item() * len(x)
            n += len(x)
        model.eval()
        tl, correct, m = 0.0, 0, 0
        with torch.no_grad():
            for x, y in test_loader:
                out = model(x)
                tl += loss_fn(out, y).item() * len(x)
                correct += (out.argmax(1) == y).sum().item()
                m += len(x)
        history["train_loss"].append(total / n)
        history["test_loss"].append(tl / m)
        history["test_acc"].append(correct / m)
        print(f"epoch {epoch}  train loss {total / n:.4f}  test loss {tl / m:.4f}  "
              f"test accuracy {100 * correct / m:.2f}%  lr {scheduler.get_last_lr()[0]:.4f}")
    plot_curves(history, "fashion_cnn.png", f"CNN on {cls.__name__} (jtorch)")
    return history


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--data", default=None)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--download", action="store_true")
    a = ap.parse_args()
    main(a.epochs, a.data, a.limit, a.download)
