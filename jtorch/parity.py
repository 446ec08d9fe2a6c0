"""``python -m jtorch.parity script.py``: check a model's outputs and gradients against real
PyTorch from the command line.

The script defines ``parity_case(T)``, called once with ``T = jtorch`` and once with
``T = torch``, returning ``(model, inputs)``, ``(model, inputs, loss_fn)`` or
``(model, inputs, loss_fn, target)``: the model and the loss built from ``T``, the inputs and
the target as NumPy arrays (the same for both calls: seed any generator)::

    import numpy as np

    def parity_case(T):
        model = T.nn.Sequential(T.nn.Linear(4, 8), T.nn.ReLU(), T.nn.Linear(8, 2))
        x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
        return model, x, T.nn.CrossEntropyLoss(), np.array([0, 1, 1, 0, 1])

The command copies jtorch's initial weights into PyTorch's model, runs both (see
``jtorch.testing.compare_with_torch``), prints the table and exits with status 0 when
everything is within tolerance, 1 when something is beyond it (or the script raises), 2 on a
usage error (no such file, no ``parity_case``).

Options: ``--rtol R --atol A`` (both or neither) replace the per-dtype defaults;
``--case NAME`` names another function than ``parity_case``.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys

from .testing._parity import compare_case_with_torch

__all__ = ["main"]


def main(argv=None):
    """Run the check on the script named in ``argv`` (``sys.argv[1:]`` by default) and return
    the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m jtorch.parity",
        description="Compare a model's outputs, loss and gradients in jtorch and PyTorch.")
    parser.add_argument("script", help="a Python file defining parity_case(T)")
    parser.add_argument("--case", default="parity_case",
                        help="the function to call (default: parity_case)")
    parser.add_argument("--rtol", type=float, default=None)
    parser.add_argument("--atol", type=float, default=None)
    args = parser.parse_args(argv)
    if (args.rtol is None) != (args.atol is None):
        parser.error("give both --rtol and --atol, or neither")
    if not os.path.isfile(args.script):
        parser.error(f"no such file: {args.script}")
    sys.path.insert(0, os.path.dirname(os.path.abspath(args.script)))
    namespace = runpy.run_path(args.script, run_name="__parity__")
    case = namespace.get(args.case)
    if not callable(case):
        parser.error(f"{args.script} defines no function {args.case}(T)")
    report = compare_case_with_torch(case, rtol=args.rtol, atol=args.atol)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
