"""Record the public names of PyTorch's namespaces (run with real torch 2.13 installed).

    python scripts/gen_torch_names.py

Writes jtorch/_data/torch_names.json: for each namespace jtorch mirrors, every public name of
real torch's module (``dir()``, no leading underscore) and what it is: ``"torch-class"``
(PyTorch's own class: where jtorch lacks it, a stand-in class that raises NotImplementedError
when made, so annotations and ``isinstance`` that name it work), ``"torch"`` (PyTorch's own
function, value or submodule: jtorch implements it or names it as not implemented) or
``"python:<module>:<qualname>"`` (an object PyTorch re-exports from the standard library or a
third-party package, e.g. ``typing.Optional``: jtorch gives the same object). jtorch reads it
when a name is not found (``jtorch._core.errors.torch_name_fallback``), so nothing PyTorch has
is an AttributeError; tests/test_namespaces.py walks real torch against it.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import types
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "jtorch", "_data", "torch_names.json")

NAMESPACES = [
    "torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.nn.utils",
    "torch.nn.parallel", "torch.linalg", "torch.fft", "torch.special", "torch.distributions",
    "torch.utils", "torch.utils.data", "torch.utils.checkpoint", "torch.optim",
    "torch.optim.lr_scheduler", "torch.autograd", "torch.cuda", "torch.backends", "torch.amp",
    "torch.func", "torch.random", "torch.testing", "torch.jit", "torch.onnx", "torch.export",
    "torch.profiler", "torch.hub", "torch.multiprocessing", "torch.distributed", "torch.cpu",
    "torch.accelerator", "torch.version", "torch.compiler", "torch.sparse", "torch.fx",
    "torch.Tensor",
]


def _kind(value):
    if isinstance(value, types.ModuleType):
        return "torch" if value.__name__.startswith("torch") else f"python:{value.__name__}:"
    module = getattr(value, "__module__", None)
    qual = getattr(value, "__qualname__", None)
    if isinstance(module, str) and not module.startswith("torch") and qual and \
            "<" not in qual and _importable(module, qual, value):
        return f"python:{module}:{qual}"
    return "torch-class" if isinstance(value, type) else "torch"


def _importable(module, qual, value):
    try:
        obj = importlib.import_module(module)
        for part in qual.split("."):
            obj = getattr(obj, part)
    except Exception:
        return False
    return obj is value


def main():
    import torch  # noqa: F401

    table = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for ns in NAMESPACES:
            if ns == "torch.Tensor":
                mod = torch.Tensor
            else:
                mod = importlib.import_module(ns)
            names = {}
            for n in sorted(dir(mod)):
                if n.startswith("_"):
                    continue
                try:
                    names[n] = _kind(getattr(mod, n))
                except Exception:
                    names[n] = "torch"
            table[ns] = names
    # submodules that torch imports lazily (torch.onnx...) are names of their parent too
    for ns in NAMESPACES:
        parent, _, child = ns.rpartition(".")
        if parent in table:
            table[parent].setdefault(child, "torch")
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump({"torch_version": torch.__version__, "namespaces": table}, f, indent=0,
                  sort_keys=True)
        f.write("\n")
    print(f"wrote {OUT}: {sum(len(v) for v in table.values())} names")
    return 0


if __name__ == "__main__":
    sys.exit(main())
