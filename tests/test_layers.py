"""The package's shape: layers that import only downwards, public modules that import on their
own, an ``import jtorch`` that starts no JAX backend, and few function-local imports.

The layers (docs/layout.md draws them): a module may import, at module level, modules of its
own layer or of the layers below it, never above. Where a lower layer must call a higher one at
run time, the higher one registers itself downwards at import (``register_*`` functions).
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PKG = os.path.join(ROOT, "jtorch")

# bottom to top; a module belongs to the first entry that is a prefix of its dotted name
LAYERS = [
    ("facts and per-thread state", ["jtorch._core.dtypes", "jtorch._core.device",
                                    "jtorch._core.state", "jtorch._core.errors",
                                    "jtorch._core.layout", "jtorch._core.removed",
                                    "jtorch._core.torch_function",
                                    "jtorch._core.warn_once", "jtorch._core.context_decorator"]),
    ("the Tensor data type", ["jtorch._core.tensor_base", "jtorch._core.generator"]),
    ("the kernel", ["jtorch._core.autocast", "jtorch._core.kernel",
                    "jtorch._core.xla_options"]),
    ("the autograd graph", ["jtorch._core.hooks", "jtorch._core.anomaly",
                            "jtorch._core.fused_backward", "jtorch._core.graph",
                            "jtorch._core.saved_hooks", "jtorch._core.saved_attrs",
                            "jtorch._core.python_node", "jtorch._core.strides"]),
    ("dispatch and views", ["jtorch._core.dispatch", "jtorch._core.views", "jtorch._core"]),
    ("op families", ["jtorch._ops"]),
    ("autograd API", ["jtorch.autograd"]),
    ("Tensor methods and the public namespaces",
     ["jtorch._tensor_ops", "jtorch._tensor_str", "jtorch._tensor", "jtorch.linalg",
      "jtorch.special", "jtorch.fft", "jtorch.random", "jtorch.sparse", "jtorch.types",
      "jtorch.overrides", "jtorch.signal", "jtorch.futures"]),
    ("nn, optim, utils, amp, serialization, vision, func",
     ["jtorch.nn", "jtorch.optim", "jtorch.utils", "jtorch.amp", "jtorch.serialization",
      "jtorch._weights_only", "jtorch.vision", "jtorch.func", "jtorch.distributions",
      "jtorch.testing", "jtorch.hub", "jtorch.cuda", "jtorch.cpu", "jtorch.onnx",
      "jtorch.export", "jtorch.profiler", "jtorch.backends", "jtorch.accelerator",
      "jtorch.version", "jtorch.distributed", "jtorch.multiprocessing", "jtorch.fx"]),
    ("compile and the top floor", ["jtorch._compile", "jtorch.parity", "jtorch.compiler",
                                   "jtorch.jit", "jtorch._dynamo", "jtorch._library",
                                   "jtorch._higher_order_ops",
                                   "jtorch.library",
                                   "jtorch.ops", "jtorch"]),
]

# the most function-local imports of jtorch's own modules allowed (each with a comment why)
MAX_LOCAL_IMPORTS = 20


def _modules():
    for dirpath, _, files in os.walk(PKG):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
                is_pkg = rel.endswith(".__init__")
                yield path, rel[:-9] if is_pkg else rel, is_pkg


def _layer(module):
    best = None
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and \
                    (best is None or len(p) > best[1]):
                best = (i, len(p))
    return best[0]


def _resolve(module, is_pkg, node):
    if node.level == 0:
        return node.module
    parts = module.split(".") if is_pkg else module.split(".")[:-1]
    if node.level > 1:
        parts = parts[:len(parts) - node.level + 1]
    return ".".join(parts + ([node.module] if node.module else []))


def _imports(tree, module, is_pkg, local):
    """(line, imported module) of jtorch's own modules, at module level or in functions."""
    out = []
    funcs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    inside = {id(n) for f in funcs for n in ast.walk(f) if n is not f}
    for node in ast.walk(tree):
        if (id(node) in inside) != local:
            continue
        if isinstance(node, ast.ImportFrom):
            target = _resolve(module, is_pkg, node)
            if target and target.startswith("jtorch"):
                names = [f"{target}.{a.name}" for a in node.names]
                out.append((node.lineno, target, names))
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("jtorch"):
                    out.append((node.lineno, a.name, [a.name]))
    return out


def _all_imports(local):
    found = []
    for path, module, is_pkg in _modules():
        with open(path) as f:
            tree = ast.parse(f.read())
        for line, target, names in _imports(tree, module, is_pkg, local):
            found.append((module, line, target, names))
    return found


def _known_module(name):
    path = os.path.join(ROOT, *name.split("."))
    return os.path.isdir(path) or os.path.exists(path + ".py")


def test_module_level_imports_point_downwards():
    bad = []
    for module, line, target, names in _all_imports(local=False):
        # "from . import x" imports module x; "from .x import name" imports module .x
        targets = [n for n in names if _known_module(n)] or [target]
        for t in targets:
            if module == "jtorch" or t == module:
                continue
            if _layer(t) > _layer(module):
                bad.append(f"{module}:{line} imports {t} ({LAYERS[_layer(t)][0]}, above "
                           f"{LAYERS[_layer(module)][0]})")
    assert not bad, "imports that point upwards:\n" + "\n".join(bad)


def test_few_function_local_imports():
    local = _all_imports(local=True)
    listing = "\n".join(f"{m}:{line} imports {t}" for m, line, t, _ in local)
    assert len(local) <= MAX_LOCAL_IMPORTS, (
        f"{len(local)} function-local imports of jtorch modules (at most "
        f"{MAX_LOCAL_IMPORTS}); a lower layer that needs a higher one gets it registered "
        f"once at import instead:\n{listing}")


PUBLIC_MODULES = ["jtorch", "jtorch.linalg", "jtorch.special", "jtorch.fft", "jtorch.sparse",
                  "jtorch.nn",
                  "jtorch.nn.functional", "jtorch.nn.init", "jtorch.optim",
                  "jtorch.optim.lr_scheduler", "jtorch.autograd", "jtorch.autograd.graph",
                  "jtorch.utils.data", "jtorch.utils.checkpoint", "jtorch.utils.dlpack",
                  "jtorch.amp", "jtorch.func",
                  "jtorch.cuda", "jtorch.random", "jtorch.serialization", "jtorch.vision",
                  "jtorch.compiler", "jtorch.backends", "jtorch.accelerator", "jtorch.fx",
                  "jtorch.jit.annotations",
                  "jtorch.distributed", "jtorch.distributed.fsdp", "jtorch.distributed.run",
                  "jtorch.multiprocessing", "jtorch.nn.parallel", "jtorch.types",
                  "jtorch.library", "jtorch.ops", "jtorch._dynamo", "jtorch.utils._pytree",
                  "jtorch.nn.attention.flex_attention",
                  "jtorch.distributed._functional_collectives"]


def _fresh_import(module):
    """Imports ``module`` in a fresh interpreter, checks that no JAX backend started, and
    returns the public modules that were imported with it."""
    code = (f"import json, sys\nimport {module}\n"
            "import jax._src.xla_bridge as xb\n"
            "assert not xb.backends_are_initialized(), 'importing started the JAX backend'\n"
            f"print(json.dumps([m for m in {PUBLIC_MODULES!r} if m in sys.modules]))\n")
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    env.pop("XLA_FLAGS", None)
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.fixture(scope="module")
def imported_by_jtorch():
    """The public modules that a fresh ``import jtorch`` imports (and that it starts no JAX)."""
    return _fresh_import("jtorch")


@pytest.mark.parametrize("module", PUBLIC_MODULES)
def test_public_module_imports_on_its_own_without_starting_jax(module, imported_by_jtorch):
    """Each public module imports in a fresh interpreter, and importing it runs no JAX
    computation, so ``jax.distributed.initialize`` can still run afterwards. Python imports
    the package first: for a module that a fresh ``import jtorch`` already imports, a fresh
    ``import {module}`` is that same import (checked once, by the fixture)."""
    if module not in imported_by_jtorch:
        assert module in _fresh_import(module)


def test_generated_api_blocks_are_current():
    done = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_api.py"),
                           "--check"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("expr, path, name", [
    ("jtorch.nn.functional.linear", "jtorch/_ops/nn_linear.py", "linear"),
    ("jtorch.Tensor.sum", "jtorch/_ops/reduction.py", "sum"),
    ("jtorch.linalg.inv", "jtorch/_ops/linalg_decomp.py", "inv"),
    ("jtorch.zeros", "jtorch/_ops/creation.py", "zeros"),
])
def test_a_static_tool_finds_the_definitions(expr, path, name):
    """jedi (what IDEs use for go-to-definition) resolves public names to their source."""
    jedi = pytest.importorskip("jedi")
    code = f"import jtorch\n{expr}"
    script = jedi.Script(code, path=os.path.join(ROOT, "probe.py"),
                         project=jedi.Project(ROOT))
    found = script.infer(2, len(expr) - 1)
    got = [(os.path.relpath(str(d.module_path), ROOT), d.name) for d in found]
    assert (path, name) in got, got
