"""The drop-in runner behind ``python -m jtorch``: ``torch`` resolves to jtorch.

``python -m jtorch script.py args`` (or the ``jtorch`` console script) runs an unmodified PyTorch
program: an import hook first on ``sys.meta_path`` maps every ``torch[.X]`` import to the
module ``jtorch[.X]`` and every ``torchvision[.X]`` to ``jtorch.vision[.X]`` (the very same
module objects: ``sys.modules["torch.nn"] is jtorch.nn``), then the script runs as
``python script.py`` would run it (``sys.argv``, ``__main__``, ``sys.path[0]``).
``python -m jtorch -m package.module args`` runs a module as ``python -m`` does, and
``python -m jtorch -c "command" args`` a command as ``python -c`` does.

Child Python processes (DataLoader and multiprocessing ``spawn`` workers, ``subprocess``, the
distributed launcher's workers) get the same aliasing: the runner puts
``jtorch/_runner_site`` first on ``PYTHONPATH`` and sets ``JTORCH_AS_TORCH=1``; the
``sitecustomize`` there installs the hook before any user code runs, then runs the
``sitecustomize`` it shadows, if any.

This module imports only the standard library: the children's ``sitecustomize`` loads it by
path, so a child that never imports ``torch`` never pays for importing jtorch and JAX.

Differences from PyTorch: real ``torch`` is never imported under the runner, even where it is
installed; a ``torch.X`` that jtorch does not have raises ``ModuleNotFoundError`` naming both
``torch.X`` and ``jtorch.X``; the top-level modules are renamed (``torch.__name__`` is
"torch") but submodules keep jtorch's names. See docs/runner.md.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import runpy
import sys
import types

__all__ = ["ENV_FLAG", "AliasFinder", "child_environment", "install", "main", "run"]

# the aliased top-level names and the jtorch modules they resolve to
ALIASES = {"torch": "jtorch", "torchvision": "jtorch.vision"}
# set in the environment of the runner's children: their sitecustomize installs the hook
ENV_FLAG = "JTORCH_AS_TORCH"
SITE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_runner_site")

USAGE = """usage: python -m jtorch script.py [args ...]
       python -m jtorch -m module [args ...]
       python -m jtorch -c command [args ...]

Runs a PyTorch program unchanged on jtorch: `import torch` gives jtorch and
`import torchvision` gives jtorch.vision, in this process and in every Python child it starts.
"""


def target_name(fullname):
    """The jtorch module an aliased name resolves to (``torch.nn`` -> ``jtorch.nn``), or None
    for a name the runner does not alias."""
    for alias, real in ALIASES.items():
        if fullname == alias or fullname.startswith(alias + "."):
            return real + fullname[len(alias):]
    return None


class _AliasLoader(importlib.abc.Loader):
    """Loads an aliased name as the jtorch module itself (no second copy of any module)."""

    def __init__(self, target, module=None):
        self.target = target
        self.module = module  # a module object that is an attribute, not an importable module

    def create_module(self, spec):
        module = self.module if self.module is not None else importlib.import_module(self.target)
        if spec.name in ALIASES:
            # ``torch.__name__`` is "torch", as in PyTorch (pyro asserts it before patching
            # torch); submodules keep their own names (``torch.nn.__name__`` is "jtorch.nn")
            module.__name__ = spec.name
        if spec.name == "torch":
            # the tensor classes name ``torch`` as their module, as PyTorch's do: libraries
            # choose their array backend by ``type(x).__module__.split(".")[0]`` (autoray in
            # torchquad and tensorly, opt_einsum), and have paths of their own for "torch"
            module.Tensor.__module__ = "torch"
            module.nn.Parameter.__module__ = "torch.nn.parameter"
        return module

    def exec_module(self, module):
        """Nothing to run: ``create_module`` returned the imported jtorch module."""

    # what runpy needs for ``python -m torch.distributed.run`` in a child process
    def _target_loader(self):
        return importlib.util.find_spec(self.target).loader

    def get_code(self, fullname):
        return self._target_loader().get_code(self.target)

    def is_package(self, fullname):
        return self._target_loader().is_package(self.target)

    def get_source(self, fullname):
        return self._target_loader().get_source(self.target)


class AliasFinder(importlib.abc.MetaPathFinder):
    """A meta-path finder that resolves ``torch[.X]`` to ``jtorch[.X]`` and ``torchvision[.X]``
    to ``jtorch.vision[.X]``. It answers every aliased name itself, raising
    ``ModuleNotFoundError`` where jtorch has no such module, so the finders behind it (and real
    ``torch`` in site-packages) are never asked."""

    def find_spec(self, fullname, path=None, target=None):
        real = target_name(fullname)
        if real is None:
            return None
        module = sys.modules.get(real)  # a stand-in module may have no __spec__
        found = importlib.util.find_spec(real) if module is None else None
        if found is None and module is None:
            parent, _, child = real.rpartition(".")
            module = getattr(sys.modules.get(parent), child, None) if parent else None
            if not isinstance(module, types.ModuleType):
                raise ModuleNotFoundError(
                    f"No module named {fullname!r} (jtorch's drop-in runner resolves it to "
                    f"{real!r}, which jtorch does not have)", name=fullname)
        is_package = (module is None and found.submodule_search_locations is not None) or \
            hasattr(module, "__path__")
        return importlib.util.spec_from_loader(fullname, _AliasLoader(real, module),
                                               is_package=is_package)


def install():
    """Puts the alias hook first on ``sys.meta_path`` (once) and drops any real ``torch`` or
    ``torchvision`` modules imported before it, so the next import gets jtorch."""
    if not any(isinstance(f, AliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, AliasFinder())
    for name in list(sys.modules):
        real = target_name(name)
        if real is not None and sys.modules[name] is not sys.modules.get(real):
            del sys.modules[name]


def child_environment(environ):
    """``environ`` with what makes a child Python process alias ``torch`` too: the runner's
    ``sitecustomize`` directory first on ``PYTHONPATH`` and ``JTORCH_AS_TORCH=1``."""
    env = dict(environ)
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != SITE_DIR]
    env["PYTHONPATH"] = os.pathsep.join([SITE_DIR] + paths)
    env[ENV_FLAG] = "1"
    return env


def run(argv):
    """Runs ``argv`` (``["script.py", *args]``, ``["-m", "module", *args]`` or
    ``["-c", "command", *args]``) as ``python`` would, with the alias installed here and in
    every child process. Returns the exit code: 0, or 1 after an uncaught exception, reported
    by ``sys.excepthook`` from the script's own frames on, as ``python`` reports it;
    ``SystemExit`` and ``KeyboardInterrupt`` propagate."""
    os.environ.update(child_environment(os.environ))
    install()
    if argv[0] in ("-m", "-c") and len(argv) < 2:
        what = "a module name" if argv[0] == "-m" else "a command"
        print(f"python -m jtorch: {argv[0]} needs {what}\n" + USAGE, end="", file=sys.stderr)
        return 2
    if argv[0] not in ("-m", "-c") and not os.path.exists(argv[0]):
        print(f"{sys.executable}: can't open file {os.path.abspath(argv[0])!r}: "
              "[Errno 2] No such file or directory", file=sys.stderr)
        return 2
    try:
        if argv[0] == "-m":
            module = target_name(argv[1]) or argv[1]
            # as ``python -m``: the current directory first (the console script's own
            # directory is there now), also for finding the module
            sys.path[0] = os.getcwd()
            if not _module_exists(module):
                print(f"{sys.executable}: No module named {argv[1]}", file=sys.stderr)
                return 1
            sys.argv = [argv[1]] + argv[2:]  # runpy sets sys.argv[0] to the module's file
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        elif argv[0] == "-c":
            sys.argv = ["-c"] + argv[2:]
            sys.path[0] = ""   # as ``python -c``: the current directory
            main_module = sys.modules["__main__"] = types.ModuleType("__main__")
            exec(compile(argv[1], "<string>", "exec"), main_module.__dict__)  # noqa: S102
        else:
            sys.argv = list(argv)
            sys.path[0] = os.path.dirname(os.path.realpath(argv[0]))
            runpy.run_path(argv[0], run_name="__main__")
    except Exception as e:
        e.with_traceback(_user_frames(e.__traceback__))
        sys.excepthook(type(e), e, e.__traceback__)
        return 1
    return 0


def _module_exists(name):
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def _user_frames(tb):
    """The traceback without its leading frames of this runner and of runpy."""
    while tb is not None and tb.tb_next is not None and (
            tb.tb_frame.f_code.co_filename in (__file__, runpy.__file__)
            or tb.tb_frame.f_code.co_filename.startswith("<frozen runpy")):
        tb = tb.tb_next
    return tb


def main(argv=None):
    """``python -m jtorch`` / the ``jtorch`` console script."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, end="", file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    return run(argv)
