"""Installed first on ``PYTHONPATH`` by jtorch's drop-in runner (``python -m jtorch``) for its
child processes: when ``JTORCH_AS_TORCH=1``, ``import torch`` resolves to jtorch before any user
code runs. Then the ``sitecustomize`` this one shadows, if any, runs as it would have.

The alias hook (``jtorch/_runner.py``, standard library only) is loaded by path, so a child that
never imports ``torch`` does not import jtorch or JAX.
"""

import importlib.machinery
import importlib.util
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_PACKAGE_PARENT = os.path.dirname(os.path.dirname(_HERE))


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _install_alias():
    if importlib.util.find_spec("jtorch") is None:
        sys.path.append(_PACKAGE_PARENT)  # jtorch importable as it was in the runner
    runner = _load("_jtorch_runner", os.path.join(os.path.dirname(_HERE), "_runner.py"))
    runner.install()


def _chain_shadowed_sitecustomize():
    others = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", others)
    if spec is not None and spec.origin and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)


if os.environ.get("JTORCH_AS_TORCH") == "1":
    _install_alias()
_chain_shadowed_sitecustomize()
