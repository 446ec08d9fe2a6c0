"""Finding the state a compiled function reads and writes.

``roots_of(fn, args, kwargs)`` collects the objects a function can reach: its closure cells,
the globals its code names (and those of the functions it calls, a few levels deep), the
``self`` of a bound method, and its arguments. ``State.collect(roots)`` walks them into slots:

- tensors: every Tensor whose value is state (parameters, buffers, optimizer state, generator
  keys, tensors held in globals, closures or attributes); views are replaced by their base;
- grads: the ``.grad`` of every lifted tensor that requires grad (``None`` or a Tensor);
- optimizers (their hyperparameters become inputs), schedulers (their ``step`` is replayed on
  the host after each run), modules (their train/eval flags are guards).

The walk runs when a function is (re)compiled, never per call: a call reads the cached slots.
"""

from __future__ import annotations

import types

from .._core.generator import Generator, default_generator
from .._tensor import Tensor

_MAX_DEPTH = 4
_SKIP_TYPES = (str, bytes, int, float, complex, bool, type(None), type, types.ModuleType,
               types.BuiltinFunctionType, range)


def _code_names(code, out):
    out.update(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _code_names(c, out)
    return out


def roots_of(fn, args, kwargs):
    roots, seen = [], set()

    def from_callable(f, depth):
        if isinstance(f, types.MethodType):
            roots.append(f.__self__)
            f = f.__func__
        if not isinstance(f, types.FunctionType):
            if f is not None and not isinstance(f, _SKIP_TYPES):
                roots.append(f)  # a callable object (a Module...)
            return
        if f.__code__ in seen or depth > 3:
            return
        seen.add(f.__code__)
        roots.extend(f.__defaults__ or ())
        roots.extend((f.__kwdefaults__ or {}).values())
        for cell in f.__closure__ or ():
            try:
                v = cell.cell_contents
            except ValueError:
                continue
            if isinstance(v, (types.FunctionType, types.MethodType)):
                from_callable(v, depth + 1)
            else:
                roots.append(v)
        g = f.__globals__
        for name in _code_names(f.__code__, set()):
            if name not in g:
                continue
            v = g[name]
            if isinstance(v, (types.FunctionType, types.MethodType)):
                if getattr(v, "__module__", "") and v.__module__.startswith("jtorch"):
                    continue
                from_callable(v, depth + 1)
            elif not isinstance(v, _SKIP_TYPES):
                roots.append(v)

    from_callable(fn, 0)
    roots.extend(args)
    roots.extend(kwargs.values())
    roots.append(default_generator)
    return roots


def _is_data(obj):
    """Datasets, samplers and loaders hold data, not training state: never walked."""
    return type(obj).__module__.startswith(("jtorch.utils.data", "jtorch.vision", "torch.",
                                            "numpy", "jax"))


class State:
    """The slots of one compiled function's state, in a fixed order."""

    def __init__(self):
        self.tensors = []       # Tensor objects whose _array is state (bases only)
        self.grad_params = []   # tensors requiring grad: their .grad is state
        self.optimizers = []
        self.schedulers = []
        self.modules = []
        self._ids = set()

    # ------------------------------------------------------------------ walking
    @classmethod
    def collect(cls, roots, exclude=()):
        s = cls()
        s._exclude = set()
        for t in exclude:  # inputs (and the bases they view) are inputs, not state
            s._exclude.add(id(t))
            while t._base is not None:
                t = t._base
                s._exclude.add(id(t))
        s._visited = set()
        for r in roots:
            s._walk(r, 0)
        del s._visited
        return s

    def _tensor(self, t):
        while t._base is not None:
            t = t._base
        if id(t) in self._ids or id(t) in self._exclude:
            return
        self._ids.add(id(t))
        self.tensors.append(t)
        if t._requires_grad and t._node is None:
            self.grad_params.append(t)

    def _walk(self, obj, depth):
        if isinstance(obj, Tensor):
            self._tensor(obj)
            return
        if isinstance(obj, _SKIP_TYPES) or id(obj) in self._visited or depth > _MAX_DEPTH:
            return
        self._visited.add(id(obj))
        from ..nn.modules.module import Module
        from ..optim.lr_scheduler import LRScheduler
        from ..optim.optimizer import Optimizer

        if isinstance(obj, Module):
            for m in obj.modules():
                if id(m) not in {id(x) for x in self.modules}:
                    self.modules.append(m)
                for store in (m._parameters, m._buffers):
                    for v in store.values():
                        if v is not None:
                            self._tensor(v)
                for k, v in m.__dict__.items():
                    if k not in ("_parameters", "_buffers", "_modules") and \
                            not k.startswith("_forward") and not k.startswith("_backward"):
                        self._walk(v, depth + 1)
            return
        if isinstance(obj, Optimizer):
            self.optimizers.append(obj)
            for g in obj.param_groups:
                for p in g["params"]:
                    self._tensor(p)
            for st in obj.state.values():
                for v in st.values():
                    if isinstance(v, Tensor):
                        self._tensor(v)
            return
        if isinstance(obj, LRScheduler):
            self.schedulers.append(obj)
            for v in obj.__dict__.values():
                self._walk(v, depth + 1)
            return
        if isinstance(obj, Generator):
            self._tensor(obj._key)
            return
        if isinstance(obj, dict):
            for v in list(obj.values())[:10000]:
                self._walk(v, depth + 1)
        elif isinstance(obj, (list, tuple, set, frozenset)):
            for v in list(obj)[:10000]:
                self._walk(v, depth + 1)
        elif not _is_data(obj) and not callable(obj) and depth < 3:
            d = getattr(obj, "__dict__", None)  # a plain object: a trainer, a config...
            if isinstance(d, dict):
                for v in list(d.values()):
                    self._walk(v, depth + 1)

    # ------------------------------------------------------------------ per-call reads
    def hyper_values(self):
        """The optimizers' dynamic hyperparameters, one tuple per (optimizer, group)."""
        out = []
        for opt in self.optimizers:
            hyper = getattr(opt, "_hyper", None)
            for g in opt.param_groups:
                out.append(tuple(hyper(g)) if hyper is not None else ())
        return out

    def signature(self):
        """What must match for a compiled program to be reused (cheap)."""
        return (len(self.tensors), tuple(p._grad is None for p in self.grad_params),
                tuple(m.training for m in self.modules),
                tuple(len(o.state) for o in self.optimizers),
                tuple(len(o.param_groups) for o in self.optimizers))
