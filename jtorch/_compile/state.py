"""Finding the state a compiled function reads and writes (docs/compile.md, "State").

One mechanism, two sources of roots:

- ``roots_of(fn, args, kwargs)`` (discovery, the default): the function's arguments, the
  ``self`` of a bound method, its default arguments, its closure cells and the globals its code
  names; and the same for every plain Python function found there (followed transitively; each
  function once). Functions and classes of jtorch itself are not followed: they hold no user
  state. The default generator is always a root.
- ``explicit_roots(state, args, kwargs)`` (``jtorch.compile(fn, state=[...])``): the objects
  given, the arguments and the default generator; nothing else is searched.

``State.collect(roots)`` walks the roots into slots:

- tensors: every Tensor whose value is state (parameters, buffers, optimizer state, generator
  keys, tensors held in globals, closures, containers or attributes); views are replaced by
  their base;
- grads: the ``.grad`` of every lifted tensor that requires grad (``None`` or a Tensor);
- optimizers (their hyperparameters become inputs), schedulers (their ``step`` is replayed on
  the host after each run), modules (their train/eval flags are guards).

Modules, optimizers, schedulers, generators and containers (dict, list, tuple, set) are walked
completely. A plain object (a trainer, a config) is walked through its ``__dict__`` up to
``PLAIN_OBJECT_DEPTH`` plain objects deep; objects deeper than that are not followed, and are
recorded in ``State.not_followed`` so that an error can name them. Data (datasets, samplers,
loaders, NumPy and JAX values) is never walked.

The walk runs when a function is (re)compiled, never per call: a call reads the cached slots.
"""

from __future__ import annotations

import types

from .._core.generator import Generator, default_generator
from .._tensor import Tensor
from ..nn.modules.module import Module
from ..optim._transforms import device_scalars
from ..optim.lr_scheduler import LRScheduler
from ..optim.optimizer import Optimizer

# how many plain objects deep (obj.a.b.c) the walk follows attributes of objects that are not
# modules, optimizers, schedulers or containers
PLAIN_OBJECT_DEPTH = 3

_SKIP_TYPES = (str, bytes, int, float, complex, bool, type(None), type, types.ModuleType,
               types.BuiltinFunctionType, range)
# values that hold data, not training state (and objects of the real PyTorch)
_DATA_MODULES = ("jtorch.utils.data", "jtorch.vision", "numpy", "jax", "torch.")


def _code_names(code, out):
    out.update(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _code_names(c, out)
    return out


def _is_jtorch(obj):
    return (getattr(obj, "__module__", None) or "").startswith("jtorch")


def roots_of(fn, args, kwargs):
    """The objects ``fn`` can reach (see the module docstring)."""
    roots, seen = [], set()
    pending = [fn]
    while pending:
        f = pending.pop()
        if isinstance(f, types.MethodType):
            roots.append(f.__self__)
            f = f.__func__
        if not isinstance(f, types.FunctionType):
            if f is not None and not isinstance(f, _SKIP_TYPES):
                roots.append(f)  # a callable object (a Module...)
            continue
        if f.__code__ in seen:
            continue
        seen.add(f.__code__)
        roots.extend(f.__defaults__ or ())
        roots.extend((f.__kwdefaults__ or {}).values())
        values = []
        for cell in f.__closure__ or ():
            try:
                values.append(cell.cell_contents)
            except ValueError:  # an empty cell (a name assigned later)
                continue
        g = f.__globals__
        values.extend(g[n] for n in _code_names(f.__code__, set()) if n in g)
        for v in values:
            if isinstance(v, (types.FunctionType, types.MethodType)):
                if not _is_jtorch(v):
                    pending.append(v)
            elif not isinstance(v, _SKIP_TYPES):
                roots.append(v)
    roots.extend(args)
    roots.extend(kwargs.values())
    roots.append(default_generator)
    return roots


def explicit_roots(state, args, kwargs):
    """The roots of ``jtorch.compile(fn, state=state)``: only what the user listed."""
    return list(state) + list(args) + list(kwargs.values()) + [default_generator]


def _is_data(obj):
    return type(obj).__module__.startswith(_DATA_MODULES)


class State:
    """The slots of one compiled function's state, in a fixed order."""

    def __init__(self):
        self.tensors = []       # Tensor objects whose _array is state (bases only)
        self.grad_params = []   # tensors requiring grad: their .grad is state
        self.optimizers = []
        self.schedulers = []
        self.modules = []
        self.objects = []       # plain objects walked (their attributes are put back after an
                                # abandoned trace)
        self.not_followed = []  # plain objects past PLAIN_OBJECT_DEPTH (named in errors)
        self._ids = set()
        self._module_ids = set()

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
        if t._sparse is not None:   # a sparse COO tensor: its state is its parts' arrays
            for part in t._sparse.tensors():
                self._tensor(part)
            return
        while t._base is not None:
            t = t._base
        if id(t) in self._ids or id(t) in self._exclude:
            return
        self._ids.add(id(t))
        self.tensors.append(t)
        if t._requires_grad and t._node is None:
            self.grad_params.append(t)

    def _walk(self, obj, plain_depth):
        if isinstance(obj, Tensor):
            self._tensor(obj)
            return
        if isinstance(obj, _SKIP_TYPES) or id(obj) in self._visited:
            return
        self._visited.add(id(obj))
        if isinstance(obj, Module):
            self._module(obj)
        elif isinstance(obj, Optimizer):
            self.optimizers.append(obj)
            for g in obj.param_groups:
                for p in g["params"]:
                    self._tensor(p)
            for st in obj.state.values():
                for v in st.values():
                    if isinstance(v, Tensor):
                        self._tensor(v)
        elif isinstance(obj, LRScheduler):
            self.schedulers.append(obj)
            for v in obj.__dict__.values():
                self._walk(v, plain_depth)
        elif isinstance(obj, Generator):
            self._tensor(obj._key)
        elif isinstance(obj, dict):
            for v in list(obj.values()):
                self._walk(v, plain_depth)
        elif isinstance(obj, (list, tuple, set, frozenset)):
            # (through an iterator: a subclass's __len__ may raise, as e3nn's Irreps' does)
            for v in list(iter(obj)):
                self._walk(v, plain_depth)
        elif not _is_data(obj) and not callable(obj):
            d = getattr(obj, "__dict__", None)  # a plain object: a trainer, a config...
            if isinstance(d, dict):
                if plain_depth >= PLAIN_OBJECT_DEPTH:
                    self.not_followed.append(obj)
                    return
                self.objects.append(obj)
                for v in list(d.values()):
                    self._walk(v, plain_depth + 1)

    def _module(self, root):
        for m in root.modules():
            if id(m) not in self._module_ids:
                self._module_ids.add(id(m))
                self.modules.append(m)
            for store in (m._parameters, m._buffers):
                for v in store.values():
                    if v is not None:
                        self._tensor(v)
            for k, v in m.__dict__.items():
                if k not in ("_parameters", "_buffers", "_modules") and \
                        not k.startswith("_forward") and not k.startswith("_backward"):
                    self._walk(v, 0)

    # ------------------------------------------------------------------ per-call reads
    def hyper_values(self):
        """The optimizers' dynamic hyperparameters, one tuple per (optimizer, group)."""
        out = []
        for opt in self.optimizers:
            hyper = getattr(opt, "_hyper", None)
            for g in opt.param_groups:
                out.append(tuple(hyper(g)) if hyper is not None else ())
        return out

    def hyper_arrays(self, device):
        """:meth:`hyper_values` as arrays on ``device`` (``optim._transforms.device_scalars``:
        made once per distinct value, not converted at every call)."""
        return [device_scalars(g, device) for g in self.hyper_values()]

    def signature(self):
        """What must match for a compiled program to be reused (cheap)."""
        return (len(self.tensors), tuple(p._grad is None for p in self.grad_params),
                tuple(m.training for m in self.modules),
                tuple(len(o.state) for o in self.optimizers),
                tuple(len(o.param_groups) for o in self.optimizers))
