"""jtorch quickstart: train a small MLP classifier, PyTorch-style, on generated data.

Run:  python examples/quickstart.py      (no download needed; about 10-20 s on a laptop CPU)

Everything below is plain PyTorch code; only the import line differs. The data are three
interleaved spirals in the plane (generated, so nothing is downloaded). The script prints
per-epoch metrics, the final test accuracy, and saves quickstart.png (loss and accuracy).
"""

import math

from _common import plot_curves, progress

import jtorch as torch
from jtorch import nn
from jtorch.utils.data import DataLoader, TensorDataset, random_split


def spirals(n_per_class=1000, classes=3, noise=0.15, seed=0):
    g = torch.Generator().manual_seed(seed)
    r = torch.linspace(0.1, 1.0, n_per_class).repeat(classes)
    label = torch.arange(classes).repeat_interleave(n_per_class)
    theta = label * (2 * math.pi / classes) + r * 4.0
    theta = theta + noise * torch.randn(theta.shape, generator=g)
    x = torch.stack([r * torch.cos(theta), r * torch.sin(theta)], dim=1)
    return x, label


def main(epochs=15, batch_size=64):
    torch.manual_seed(0)
    x, y = spirals()
    train_set, test_set = random_split(TensorDataset(x, y), [0.8, 0.2],
                                       generator=torch.Generator().manual_seed(0))
    train_loader = DataLoader(train_set, batch_size=batch_size, shuffle=True)
    test_loader = DataLoader(test_set, batch_size=256)

    model = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                          nn.Linear(64, 3))
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.3)
    print(model)

    history = {"train_loss": [], "test_loss": [], "test_acc": []}
    for epoch in range(1, epochs + 1):
        model.train()
        total, n = 0.0, 0
        for xb, yb in progress(train_loader, f"epoch {epoch}"):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(xb)
            n += len(xb)
        scheduler.step()

        model.eval()
        test_loss, correct, m = 0.0, 0, 0
        with torch.no_grad():
            for xb, yb in test_loader:
                out = model(xb)
                test_loss += loss_fn(out, yb).item() * len(xb)
                correct += (out.argmax(dim=1) == yb).sum().item()
                m += len(xb)
        history["train_loss"].append(total / n)
        history["test_loss"].append(test_loss / m)
        history["test_acc"].append(correct / m)
        print(f"epoch {epoch:2d}  train loss {total / n:.4f}  test loss {test_loss / m:.4f}  "
              f"test accuracy {100 * correct / m:.1f}%")

    print(f"test accuracy: {100 * history['test_acc'][-1]:.1f}%")
    plot_curves(history, "quickstart.png", "jtorch quickstart: MLP on spirals")
    return history


if __name__ == "__main__":
    main()
