"""How many float16/bfloat16 results of jtorch differ from real PyTorch's, op by op.

    python scripts/half_precision_survey.py            # forward values and input gradients
    python scripts/half_precision_survey.py --forward  # forward values only

Each op runs on the same (64, 300) normal inputs rounded to the half type, in jtorch and in
PyTorch 2.13 (CPU); the gradients are those of a random cotangent. A row is printed for every
op and dtype with elements that are not equal bit for bit (NaNs equal NaNs), then the totals.
tests/test_half_opmath.py asserts equality for the ops that match; docs/differences.md says
which do not and why.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch

import jtorch

_A = np.random.default_rng(0).standard_normal((64, 300)).astype(np.float32)
_B = np.random.default_rng(1).standard_normal((64, 300)).astype(np.float32)

OPS = {
    "add_scalar": lambda T, x, y: x + 0.1,
    "sub_scalar": lambda T, x, y: x - 0.1,
    "mul_scalar": lambda T, x, y: x * 0.7,
    "div_scalar": lambda T, x, y: x / 3.3,
    "rdiv_scalar": lambda T, x, y: 3.3 / x,
    "add_alpha": lambda T, x, y: T.add(x, y, alpha=0.3),
    "mul": lambda T, x, y: x * y,
    "div": lambda T, x, y: x / (y.abs() + 1),
    "pow_scalar": lambda T, x, y: x.abs() ** 1.7,
    "sigmoid": lambda T, x, y: x.sigmoid(),
    "tanh": lambda T, x, y: x.tanh(),
    "exp": lambda T, x, y: x.exp(),
    "sqrt": lambda T, x, y: x.abs().sqrt(),
    "rsqrt": lambda T, x, y: x.abs().rsqrt(),
    "log1p": lambda T, x, y: x.abs().log1p(),
    "expm1": lambda T, x, y: x.expm1(),
    "sinh": lambda T, x, y: x.sinh(),
    "asinh": lambda T, x, y: x.asinh(),
    "erf": lambda T, x, y: x.erf(),
    "hypot": lambda T, x, y: T.hypot(x, y),
    "logaddexp": lambda T, x, y: T.logaddexp(x, y),
    "addcmul": lambda T, x, y: x.addcmul(y, x, value=0.3),
    "addcdiv": lambda T, x, y: x.addcdiv(y, x.abs() + 1, value=0.3),
    "lerp": lambda T, x, y: x.lerp(y, 0.3),
    "gelu": lambda T, x, y: T.nn.functional.gelu(x),
    "silu": lambda T, x, y: T.nn.functional.silu(x),
    "softplus": lambda T, x, y: T.nn.functional.softplus(x),
    "mish": lambda T, x, y: T.nn.functional.mish(x),
    "hardswish": lambda T, x, y: T.nn.functional.hardswish(x),
    "logsigmoid": lambda T, x, y: T.nn.functional.logsigmoid(x),
    "elu": lambda T, x, y: T.nn.functional.elu(x),
    "sum": lambda T, x, y: x.sum(1),
    "mean": lambda T, x, y: x.mean(1),
    "var": lambda T, x, y: x.var(1),
    "norm": lambda T, x, y: x.norm(dim=1),
    "prod": lambda T, x, y: (x / 8 + 1).prod(1),
    "cumsum": lambda T, x, y: x.cumsum(1),
    "cumprod": lambda T, x, y: (x / 8 + 1).cumprod(1),
    "logsumexp": lambda T, x, y: x.logsumexp(1),
    "softmax": lambda T, x, y: x.softmax(1),
    "log_softmax": lambda T, x, y: x.log_softmax(1),
    "layer_norm": lambda T, x, y: T.nn.functional.layer_norm(x, (300,)),
    "rms_norm": lambda T, x, y: T.nn.functional.rms_norm(x, (300,)),
    "normalize": lambda T, x, y: T.nn.functional.normalize(x, dim=1),
    "cosine_similarity": lambda T, x, y: T.nn.functional.cosine_similarity(x, y),
    "mse_loss": lambda T, x, y: T.nn.functional.mse_loss(x, y),
    "cross_entropy": lambda T, x, y: T.nn.functional.cross_entropy(x, T.arange(64)),
    "matmul": lambda T, x, y: x @ y.t(),
    "addmm": lambda T, x, y: T.addmm(x[:, :64], x, y.t(), beta=0.5, alpha=0.3),
}


def _run(T, dtype, f, grad):
    dt = getattr(T, dtype)
    x = T.tensor(_A).to(dt).requires_grad_(grad)
    y = T.tensor(_B).to(dt).requires_grad_(grad)
    out = f(T, x, y)
    values = [np.asarray(out.detach().double().tolist())]
    if grad:
        g = np.random.default_rng(5).standard_normal(tuple(out.shape)).astype(np.float32)
        gx = T.autograd.grad(out, [x, y], T.tensor(g).to(dt), allow_unused=True)
        values += [None if v is None else np.asarray(v.double().tolist()) for v in gx]
    return values


def _differing(a, b):
    if a is None or b is None:
        return 0 if a is None and b is None else -1
    return int((~((a == b) | (np.isnan(a) & np.isnan(b)))).sum())


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--forward", action="store_true", help="forward values only")
    grad = not p.parse_args().forward
    totals = [0, 0]
    for dtype in ("bfloat16", "float16"):
        for name, f in OPS.items():
            ours, theirs = _run(jtorch, dtype, f, grad), _run(torch, dtype, f, grad)
            counts = [_differing(a, b) for a, b in zip(ours, theirs)]
            totals[0] += counts[0]
            totals[1] += sum(c for c in counts[1:] if c > 0)
            if any(counts):
                grads = f"  input gradients {counts[1:]}" if grad else ""
                print(f"{dtype:9} {name:18} of {ours[0].size:6}: values {counts[0]:6}{grads}")
    print(f"total differing elements: values {totals[0]}" +
          (f", gradients {totals[1]}" if grad else ""))


if __name__ == "__main__":
    main()
