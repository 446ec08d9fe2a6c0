"""jtorch quickstart: PyTorch code, JAX underneath. Needs no download.

Fits a cubic polynomial to sin(x) with tensors and autograd, the way PyTorch's own
"Learning PyTorch with Examples" tutorial does, with ``import jtorch as torch``.
"""

import math

import jtorch as torch


def main(steps=2000, lr=1e-6):
    torch.manual_seed(0)
    x = torch.linspace(-math.pi, math.pi, 2000) if hasattr(torch, "linspace") else None
    if x is None:  # factories not built yet
        x = torch.tensor([-math.pi + 2 * math.pi * i / 1999 for i in range(2000)])
    y = torch.sin(x) if hasattr(torch, "sin") else torch.tensor([math.sin(v) for v in x.tolist()])

    a, b, c, d = (torch.zeros((), requires_grad=True) for _ in range(4))
    for t in range(steps):
        y_pred = a + b * x + c * x * x + d * x * x * x
        loss = ((y_pred - y) * (y_pred - y)).sum()
        if t % 400 == 399:
            print(f"step {t + 1:5d}  loss {loss.item():10.4f}")
        loss.backward()
        with torch.no_grad():
            for p in (a, b, c, d):
                p -= lr * p.grad
                p.grad = None
    print(f"Result: y = {a.item():.4f} + {b.item():.4f} x + {c.item():.4f} x^2 + "
          f"{d.item():.4f} x^3")
    return loss.item()


if __name__ == "__main__":
    main()
