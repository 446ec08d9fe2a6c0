"""The kernel layer: what an op is (:class:`OpDef`), how one call binds its arguments
(:class:`CallSpec`), and the compiled functions that run it (:class:`Kernel`).

A call of an op is described by a *key*, a hashable template of its arguments that the
dispatcher builds in one pass: tensors and Python numbers in tensor parameters become slot
markers (their values are the kernel's dynamic arguments), everything else is kept as a static
value. The key is a plain tuple, ``(args template, kwargs template, autocast)``, so that looking
up a kernel costs one C-level hash; only this module reads it, by building the key's
:class:`CallSpec` once per distinct key. Every other layer asks the CallSpec (``bind``,
``static_arguments``, ``dynamic_slots``...), never the tuple.

A :class:`Kernel` is an op with one CallSpec: its body wrapped so PyTorch's type promotion (and
autocast's casts) run inside the trace, jitted once (``Kernel.forward``); its vjps, jitted once
per set of differentiated slots (``Kernel.vjp``); and the vjp as an op of its own for
create_graph (``Kernel.backward_ops``, built by the graph layer).
"""

from __future__ import annotations

import collections
import inspect
import weakref

import jax
import jax.numpy as jnp
import numpy as np

from . import dtypes, xla_options
from .autocast import autocast_body
from .tensor_base import TensorBase
from .torch_function import Foreign


# ------------------------------------------------------------------ what an op is
class OpDef:
    """One tensor operation.

    Args:
        name: PyTorch's name (``"add"``, ``"linalg.norm"``).
        fn: the body, a pure function of jnp arrays and static Python values.
        tensors: parameter names that take tensors (a Python number there becomes a dynamic
            0-d array; lists of tensors are allowed).
        promote: ``None`` (body sees inputs as given), ``"common"`` (PyTorch's promotion of the
            ``tensors`` parameters to one dtype) or ``"float"`` (as common, then integers and
            bools become the default float dtype).
        is_view: the outputs are views of the first tensor argument (they share storage).
        saves: backward needs the inputs' values, so modifying them in place afterwards is an
            error at backward and a second backward needs retain_graph (PyTorch's rule). Ops
            whose PyTorch derivative needs no saved values (add, sum, views...) set False;
            bilinear ops (mul, matmul) set ``"others"``: input j is saved only when another
            input needs a gradient; ``"output"``: PyTorch's formula reads the outputs; a tuple
            of parameter names: only those parameters' tensors (``where`` saves ``condition``).
        grad_name: the grad_fn's class name; default ``<CamelName>Backward0``. May be a
            function of the op's static arguments (tensor slots passed as their markers) when
            PyTorch's name depends on the overload: ``SumBackward0`` for ``sum()``,
            ``SumBackward1`` with a dim.
        returns: field names of the namedtuple PyTorch returns (``("values", "indices")``).
        differentiable: False for ops whose outputs never carry gradients (comparisons...).
        nondiff: parameter names whose tensors never receive gradients (index, mask...).
        stride_rule: for view ops, ``rule(shape, strides, offset, out_shape, output index,
            *static args, **static kwargs) -> (strides, offset)``: PyTorch's strides of the view.
        check: ``check(*args, **kwargs)`` run eagerly before dispatch, for errors PyTorch raises
            on the VALUE of a Python-number argument (``int_tensor ** -1``, ``int_tensor // 0``);
            numbers are dynamic inside the kernel, so the body cannot see them.
        listed_first: parameter names whose tensors the node lists first among its inputs
            (``next_functions``, node hooks' ``grad_inputs``), where PyTorch's node is another
            op's: ``linear`` lists ``bias`` first, as the ``addmm(bias, input, weight.t())``
            PyTorch lowers it to.
        opmath: PyTorch's kernels compute float16 and bfloat16 values in float32 and round
            the result once (their "opmath" type), and a Python number or 0-d tensor operand
            enters that computation at float32 precision, not rounded to the half type first
            (``x * 0.7``). With ``opmath`` the body sees such inputs as float32 and its outputs
            are rounded to the dtypes it gives for the half inputs; without it, XLA computes in
            the half type where it expands an op into several (sigmoid, softplus) and Python
            numbers are rounded to it. ``"forward"``: only the forward; the backward is
            differentiated in the half type, where PyTorch's derivative is a composite of ops
            that each round (``sinh``'s ``grad * cosh(x)``), not a kernel of its own.
    """

    __slots__ = ("name", "fn", "params", "tensors", "tensor_pos", "promote", "is_view", "saves",
                 "grad_name", "returns", "differentiable", "nondiff", "stride_rule", "check",
                 "listed_first", "opmath", "kernel_cache", "kernel_caches_set_aside", "public",
                 "__weakref__")

    def __init__(self, name, fn, *, tensors=("input",), promote=None, is_view=False,
                 saves=True, grad_name=None, returns=None, differentiable=True, nondiff=(),
                 stride_rule=None, check=None, listed_first=(), opmath=False):
        self.name = name
        self.fn = fn
        self.params = list(inspect.signature(fn).parameters)
        self.tensors = frozenset(tensors)
        self.tensor_pos = frozenset(i for i, p in enumerate(self.params) if p in self.tensors)
        self.promote = promote
        self.is_view = is_view
        self.saves = saves
        short = name.rsplit(".", 1)[-1]
        self.grad_name = grad_name or "".join(w.capitalize() for w in short.split("_")) + \
            "Backward0"
        self.returns = return_type(name.replace(".", "_"), returns) if returns else None
        self.differentiable = differentiable
        self.nondiff = frozenset(nondiff)
        self.stride_rule = stride_rule
        self.check = check
        self.listed_first = tuple(listed_first)
        self.opmath = opmath
        self.kernel_cache = {}   # key -> Kernel, under the current default dtype
        self.kernel_caches_set_aside = {}   # other default dtype -> its kernel_cache
        self.public = None   # the function publishing it (set by _ops/_registry.op), if any
        _ALL_OPS.add(self)

    def __repr__(self):
        return f"OpDef({self.name})"

    def kernel(self, key):
        """The Kernel of this op for the call described by ``key`` (made on first use)."""
        k = self.kernel_cache.get(key)
        if k is None:
            args, kwargs, autocast = key
            if any(n in NUMPY_NAMES for n, _ in kwargs):   # x.sum(axis=1): PyTorch's names
                kwargs = tuple((self.torch_name(n), v) for n, v in kwargs)
            k = self.kernel_cache[key] = Kernel(self, CallSpec((args, kwargs, autocast)))
        return k

    def torch_name(self, name):
        """The parameter NumPy's keyword ``name`` stands for (``axis``: ``dim``) where this op
        has that parameter and not ``name`` itself, else ``name``."""
        alias = NUMPY_NAMES.get(name)
        return alias if alias in self.params and name not in self.params else name

    def torch_kwargs(self, kwargs):
        """``kwargs`` with NumPy's keywords renamed as PyTorch's (:meth:`torch_name`)."""
        return {self.torch_name(n): v for n, v in kwargs.items()}


# PyTorch's argument parser takes NumPy's names for these parameters of every op
# (python_arg_parser.cpp's numpy_compatibility_arg_names): ``x.max(axis=2, keepdims=True)``
NUMPY_NAMES = {"axis": "dim", "keepdims": "keepdim"}


class return_types:  # noqa: N801 - PyTorch's module name
    """Namespace of the namedtuples ops return, as ``torch.return_types``."""


def _return_repr(self):
    """PyTorch's text of a structseq: ``torch.return_types.max(`` and a field a line."""
    fields = ",\n".join(f"{k}={v!r}" for k, v in zip(self._fields, self))
    return f"torch.return_types.{type(self).__name__}(\n{fields})"


def return_type(name, fields):
    cls = getattr(return_types, name, None)
    if cls is None:
        cls = collections.namedtuple(name, fields)
        cls.__module__ = "torch.return_types"
        cls.__qualname__ = name
        cls.__repr__ = _return_repr
        setattr(return_types, name, cls)
    return cls


# ------------------------------------------------------------------ argument templates
class Slot:
    """The kind of a dynamic argument slot in a key's template."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


PROMOTED = Slot("PROMOTED")      # a tensor in a tensor parameter: promoted, differentiable
UNPROMOTED = Slot("UNPROMOTED")  # a tensor elsewhere (indices, masks): never promoted
SCALAR = Slot("SCALAR")          # a Python number in a tensor parameter: a dynamic 0-d value
_FLOAT = Slot("FLOAT")           # tags static floats and bools, so 1, 1.0 and True differ
_BOOL = Slot("BOOL")
_SLICE = Slot("SLICE")

_NUMBER = (bool, int, float, complex)
_np_ndarray = np.ndarray
_np_generic = np.generic


def template(a, tensor_param, values, tensors):
    """The template of argument ``a`` (``tensor_param``: it is in a tensor parameter); appends
    its dynamic parts to ``values`` and their tensors (or None) to ``tensors``."""
    if isinstance(a, TensorBase):
        values.append(a._value)
        tensors.append(a)
        return PROMOTED if tensor_param else UNPROMOTED
    t = type(a)
    if t is int or t is float or t is bool or t is complex:
        if tensor_param:
            values.append(a)
            tensors.append(None)
            return SCALAR
        if t is float:
            return (_FLOAT, a)
        return (_BOOL, a) if t is bool else a
    if a is None or t is str:
        return a
    if t is list or t is tuple or isinstance(a, (tuple, list)):  # with torch.return_types
        return tuple([template(e, tensor_param, values, tensors) for e in a])
    if t is slice:
        return (_SLICE, template(a.start, False, values, tensors),
                template(a.stop, False, values, tensors), template(a.step, False, values, tensors))
    if isinstance(a, (jax.Array, _np_ndarray)) and not isinstance(a, _np_generic):
        values.append(a)
        tensors.append(None)
        return PROMOTED if tensor_param else UNPROMOTED
    if isinstance(a, _np_generic):
        return template(a.item(), tensor_param, values, tensors)
    if hasattr(t, "__torch_function__"):   # an FX Proxy: dispatch asks the protocol
        raise Foreign
    return a


def _fill(t, it):
    """An argument rebuilt from its template, taking dynamic values from ``it``."""
    if t is PROMOTED or t is UNPROMOTED or t is SCALAR:
        return next(it)
    if type(t) is tuple:
        if t and (t[0] is _FLOAT or t[0] is _BOOL):
            return t[1]
        if t and t[0] is _SLICE:
            return slice(_fill(t[1], it), _fill(t[2], it), _fill(t[3], it))
        return tuple(_fill(e, it) for e in t)
    return t


def _slots_of(t, out):
    if t is PROMOTED or t is UNPROMOTED or t is SCALAR:
        out.append(t)
    elif type(t) is tuple:
        if t and (t[0] is _FLOAT or t[0] is _BOOL):
            return out
        for e in t:
            _slots_of(e, out)
    return out


class CallSpec:
    """How one call of an op binds its arguments, parsed once from its key.

    Attributes:
        args, kwargs: the templates (``kwargs`` as ``((name, template), ...)``).
        slots: the kind (PROMOTED, UNPROMOTED or SCALAR) of each dynamic value, in order.
        autocast: ``None``, or ``(kind or rule, dtype)``: the casts autocast applies inside the
            kernel (jtorch/_core/autocast.py).
    """

    __slots__ = ("args", "kwargs", "slots", "autocast", "_static")

    def __init__(self, key):
        self.args, self.kwargs, self.autocast = key
        slots = []
        for a in self.args:
            _slots_of(a, slots)
        for _, v in self.kwargs:
            _slots_of(v, slots)
        self.slots = tuple(slots)
        self._static = None

    def bind(self, values):
        """``(args, kwargs)`` of the op's body, with ``values`` in the dynamic slots."""
        it = iter(values)
        args = [_fill(a, it) for a in self.args]
        kwargs = {k: _fill(v, it) for k, v in self.kwargs}
        return args, kwargs

    def bind_by_name(self, params, values):
        """The bound arguments as ``{parameter name: value}``."""
        args, kwargs = self.bind(values)
        bound = dict(zip(params, args))
        bound.update(kwargs)
        return bound

    def static_arguments(self):
        """``(args, kwargs)`` with each dynamic slot shown as its kind (PROMOTED...): what
        rules that depend only on static arguments read (grad names, stride rules)."""
        if self._static is None:
            self._static = self.bind(self.slots)
        return self._static

    def promoted(self):
        """Indices of the values taking part in type promotion (all but UNPROMOTED)."""
        return tuple(i for i, s in enumerate(self.slots) if s is not UNPROMOTED)

    def scalars(self):
        return frozenset(i for i, s in enumerate(self.slots) if s is SCALAR)

    def tensor_slots(self):
        """Indices of the values that are tensors (not Python numbers)."""
        return tuple(i for i, s in enumerate(self.slots) if s is not SCALAR)

    def listed_slots(self, numbers_listed):
        """The slots PyTorch lists as a node's inputs (``next_functions``): promoted tensors,
        and Python numbers too when ``numbers_listed``."""
        return tuple(i for i, s in enumerate(self.slots)
                     if s is PROMOTED or (numbers_listed and s is SCALAR))


# ------------------------------------------------------------------ promotion (in the trace)
def promote_values(vals, promotable, scalar_slots, mode):
    """PyTorch's result dtype of the promotable values (inside a trace: dtypes are static)."""
    dims, zeros, scats = [], [], []
    for i in promotable:
        v = vals[i]
        if i in scalar_slots:
            scats.append(dtypes.scalar_category(v) if isinstance(v, _NUMBER)
                         else dtypes.from_np(v.dtype).category)
        elif jnp.ndim(v) == 0:
            zeros.append(dtypes.from_np(v.dtype))
        else:
            dims.append(dtypes.from_np(v.dtype))
    if not (dims or zeros or scats):
        return None
    out = dtypes.result_type_from(dims, zeros, scats)
    if mode == "float" and out.category < dtypes.FLOAT:
        out = dtypes.get_default_dtype()
    return out


def promote_to(v, dtype):
    """``v`` converted to ``dtype`` for an op's body. A bool array becoming floating passes
    through an optimization barrier: XLA rewrites ``x * convert(mask)`` as ``select(mask, x,
    0)``, which gives 0 where PyTorch's product gives NaN (``nan * False``, ``inf * False``)
    or -0.0 (``-3.0 * False``)."""
    if getattr(v, "dtype", None) == jnp.bool_ and jnp.issubdtype(dtype, jnp.inexact):
        return jax.lax.optimization_barrier(jnp.asarray(v, dtype))
    return jnp.asarray(v, dtype)


# ------------------------------------------------------------------ kernels
class Kernel:
    """One op with one CallSpec: a jitted forward and cached jitted vjps."""

    __slots__ = ("opdef", "spec", "body", "vjp_body", "forward", "forward_top", "nondiff",
                 "grad_name", "vjp_cache", "backward_ops", "listed", "saved_params")

    def __init__(self, opdef, spec):
        self.opdef = opdef
        self.spec = spec
        promotable, scalar_slots = spec.promoted(), spec.scalars()
        self.nondiff = frozenset(i for i, s in enumerate(spec.slots) if s is not PROMOTED)
        fn, mode, bind = opdef.fn, opdef.promote, spec.bind

        def call(*vals):
            args, kwargs = bind(vals)
            return fn(*args, **kwargs)

        def promoted(vals):
            if mode is not None:
                dt = promote_values(vals, promotable, scalar_slots, mode)
                if dt is not None:
                    vals = list(vals)
                    for i in promotable:
                        vals[i] = promote_to(vals[i], dt.np)
            return vals

        def body(*vals):
            return call(*promoted(vals))

        vjp_body = body   # what backward differentiates
        if opdef.opmath:
            body = _in_opmath(call, promoted,
                              promotable if mode is not None else spec.tensor_slots())
            if opdef.opmath != "forward":
                vjp_body = body
        if spec.autocast is not None:  # casts its inputs first (jtorch/_core/autocast.py)
            vjp_body = autocast_body(opdef, spec, vjp_body) if vjp_body is not body else None
            body = autocast_body(opdef, spec, body)
        self.body = body
        self.vjp_body = vjp_body or body
        self.grad_name = opdef.grad_name
        if callable(self.grad_name):  # the name depends on static arguments (sum vs sum(dim))
            args, kwargs = spec.static_arguments()
            self.grad_name = opdef.grad_name(*args, **kwargs)
        # keep_unused: a tensor whose values the body ignores (fill_, *_like, uniform_) still
        # decides the device the kernel runs on; pruned, its output lands on device 0
        self.forward = xla_options.jit(body, kernel=True, keep_unused=True)
        # the same at top level, without the options wrapper's checks (dispatch's fast path)
        self.forward_top = xla_options.top_level_call(self.forward)
        self.vjp_cache = {}      # differentiated slots -> jitted vjp
        self.backward_ops = {}   # (differentiated slots, missing cotangents) -> (OpDef, used);
        #                          ("reads", differentiated slots) -> slots read (saved_hooks)
        self.listed = None       # the slots next_functions lists (graph layer, made on use)
        self.saved_params = None  # the slots of OpDef.saves' parameters (graph layer, on use)

    def vjp(self, diff):
        """``(vals, cotangents) -> gradients`` of the slots in ``diff``; jitted, cached."""
        f = self.vjp_cache.get(diff)
        if f is None:
            f = self.vjp_cache[diff] = xla_options.jit(self.make_vjp(diff), kernel=True)
        return f

    def make_vjp(self, diff):
        body = self.vjp_body

        def vjp(vals, cts):
            def f(*d):
                full = list(vals)
                for i, x in zip(diff, d):
                    full[i] = x
                out = body(*full)
                outs = out if isinstance(out, (tuple, list)) else (out,)
                return tuple(o if _inexact(o) else None for o in outs)

            primal, pull = jax.vjp(f, *[vals[i] for i in diff])
            # cts holds one entry per float output only (Node.apply drops integer outputs)
            it = iter(cts)
            cts = tuple(None if p is None else
                        (jnp.zeros_like(p) if c is None else c.astype(p.dtype))
                        for p in primal for c in ((None,) if p is None else (next(it),)))
            return _conj_complex(pull(_conj_complex(cts)))

        return vjp


def _inexact(o):
    return jnp.issubdtype(o.dtype, jnp.inexact)


def conj_complex(x):
    """``x`` conjugated if it is a complex array (None and real arrays unchanged). PyTorch's
    gradient of a complex tensor is the conjugate of JAX's cotangent (PyTorch: dL/dz*, JAX:
    dL/dz), so a vjp takes PyTorch's gradients conjugated and conjugates what it returns;
    decided while tracing, so real kernels are unchanged."""
    return jnp.conj(x) if x is not None and jnp.iscomplexobj(x) else x


def _conj_complex(xs):
    """:func:`conj_complex` of each of ``xs``."""
    return tuple(conj_complex(x) for x in xs)


HALF = (jnp.dtype(jnp.float16), jnp.dtype(jnp.bfloat16))   # the dtypes opmath widens


def opmath(x):
    """``x`` in the dtype PyTorch's kernels compute its values in: float16 and bfloat16
    widened (exactly) to float32, others as they are. For bodies that round an intermediate
    result to the half type as PyTorch's composite does (``normalize`` rounds the norm)."""
    return x.astype(jnp.float32) if x.dtype in HALF else x


def rounded_to(v, dtype):
    """``v`` rounded to the values of ``dtype``: for float16/bfloat16 staying float32,
    otherwise converted. For bodies that round an intermediate value as PyTorch's composite or
    kernel does. Inside one program XLA may drop a float32 -> half -> float32 conversion pair
    (it allows excess precision), so bfloat16 rounds with a reduce_precision (which XLA
    keeps, and fuses) and float16 converts through an optimization barrier (reduce_precision
    flushes float16's subnormals to zero)."""
    dtype = jnp.dtype(dtype)
    if dtype == jnp.bfloat16:
        return jax.lax.reduce_precision(v.astype(jnp.float32), 8, 7)
    if dtype == jnp.float16:
        return jax.lax.optimization_barrier(v.astype(dtype)).astype(jnp.float32)
    return v.astype(dtype)


def _in_opmath(call, promoted, slots):
    """The body of an op computing in float32 where PyTorch's kernels do (OpDef's
    ``opmath``): after promotion, the half-precision values in ``slots`` are widened to
    float32 (exactly; a 0-d operand, a Python number or 0-d tensor, is widened from its value
    before promotion rounded it to the half type, as PyTorch reads a scalar operand at opmath
    precision), and the outputs are rounded once to the dtypes ``call`` gives for the half
    values."""

    def body(*raw):
        vals = promoted(raw)
        half = [i for i in slots if jnp.result_type(vals[i]) in HALF]
        if not half:
            return call(*vals)
        wide = list(vals)
        for i in half:
            wide[i] = jnp.asarray(raw[i] if jnp.ndim(raw[i]) == 0 else vals[i], jnp.float32)
        out = call(*wide)
        like = jax.eval_shape(call, *vals)
        return jax.tree_util.tree_map(lambda o, s: o if o.dtype == s.dtype else o.astype(s.dtype),
                                      out, like)

    return body


def _switch_kernel_caches(old, new):
    """Kernels promote Python numbers to the default dtype while being traced, and jax.jit's
    cache does not know the default dtype: each op keeps one kernel cache per default dtype,
    and changing the default sets the current one aside and takes up the new default's (empty
    the first time). Dropping them instead would free every compiled kernel (about a
    millisecond each) and compile them again when the default comes back."""
    for opdef in list(_ALL_OPS):
        aside = opdef.kernel_caches_set_aside
        aside[old] = opdef.kernel_cache
        opdef.kernel_cache = aside.pop(new, {})


_ALL_OPS = weakref.WeakSet()
dtypes.on_default_dtype_change(_switch_kernel_caches)
