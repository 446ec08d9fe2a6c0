"""The ``__torch_function__`` protocol of Tensor subclasses, as PyTorch runs it.

A call whose tensor arguments include an instance of a Tensor subclass that does not disable
the protocol (``__torch_function__ = torch._C._disabled_torch_function_impl``, as Parameter
does) goes to that class's ``__torch_function__(func, types, args, kwargs)`` instead of
running: subclasses before their bases, otherwise left to right; the first result that is not
``NotImplemented`` is the call's result. Tensor's own ``__torch_function__`` (jtorch/_tensor.py)
runs ``func`` with the protocol off (:class:`DisableTorchFunctionSubclass`) and turns tensor
results into the subclass.

Where jtorch checks (see docs/differences.md): every op (``dispatch``, ``func`` the op's public
function: ``torch.add`` for ``torch.add(x, 1)``, ``x.add(1)`` and ``x + 1`` alike, where
PyTorch passes ``Tensor.add`` for the latter two), and the methods, operators and tensor-valued
properties of a subclass's instances (wrapped on the subclass when it is defined, ``func``
the Tensor attribute). A public function that is not an op (a composite of ops) is
:func:`overridable`: seen as itself, as PyTorch's (jtorch/_ops/_registry.py's ``export``
decides how it hands the call on). Until the first such subclass is defined (:data:`ACTIVE`),
an op pays one check.
"""

from __future__ import annotations

import functools
import inspect
import threading
import warnings

# [True] once a Tensor subclass that takes part in the protocol exists (set by Tensor's
# __init_subclass__): until then dispatch skips everything here after one list read
ACTIVE = [False]
# the public Tensor class, whose own instances never overload (registered by jtorch/_tensor.py)
PLAIN = [None]
# [True] once an object that is not a Tensor but whose type defines __torch_function__ (an FX
# Proxy) has reached an op: from then on the composite functions (:func:`overridable`) look for
# one among their arguments too. Ops always find one: the kernel key's template of an argument
# of an unknown type raises :class:`Foreign` (jtorch/_core/kernel.py), off the tensor path.
FOREIGN = [False]


class Foreign(Exception):  # noqa: N818 (a signal, caught by dispatch)
    """An op's argument is not a Tensor but defines ``__torch_function__``: dispatch answers
    the call through the protocol (:func:`tensor_likes`)."""


class _Disabled(threading.local):
    subclass = False   # inside DisableTorchFunctionSubclass (or DisableTorchFunction)


_DISABLED = _Disabled()


def _disabled_torch_function_impl(func, types, args=(), kwargs=None):
    """``torch._C._disabled_torch_function_impl``: a class whose ``__torch_function__`` is this
    takes no part in the protocol (Parameter); called, it runs ``func`` with the protocol off."""
    with DisableTorchFunctionSubclass():
        return func(*args, **(kwargs or {}))


class DisableTorchFunctionSubclass:
    """``torch._C.DisableTorchFunctionSubclass``: within it, subclasses' ``__torch_function__``
    is not called (this thread)."""

    def __enter__(self):
        self._prev = _DISABLED.subclass
        _DISABLED.subclass = True
        return self

    def __exit__(self, *exc):
        _DISABLED.subclass = self._prev


# jtorch's modes are consulted by four nn.init functions only (torch.overrides), so disabling
# the protocol as a whole is disabling it for subclasses
DisableTorchFunction = DisableTorchFunctionSubclass


def is_disabled():
    return _DISABLED.subclass


def takes_part(cls) -> bool:
    """Whether instances of Tensor subclass ``cls`` take part in the protocol."""
    return getattr(cls, "__torch_function__", _disabled_torch_function_impl) \
        is not _disabled_torch_function_impl


def overloaded(objs):
    """The arguments among ``objs`` whose ``__torch_function__`` is called, in PyTorch's order
    (one per type; a subclass before its bases, otherwise left to right). Empty when the
    protocol is off on this thread."""
    if _DISABLED.subclass:
        return []
    plain = PLAIN[0]
    args, types = [], []
    for a in objs:
        cls = type(a)
        if cls is plain or cls in types or not takes_part(cls):
            continue
        at = len(args)
        for i, t in enumerate(types):
            if issubclass(cls, t):
                at = i
                break
        args.insert(at, a)
        types.insert(at, cls)
    return args


def overloaded_args(args, kwargs):
    """:func:`overloaded` of the arguments (and their list/tuple items) of a call; empty until
    a subclass taking part, or an object that is not a Tensor but defines
    ``__torch_function__``, has been seen (two list reads)."""
    if ACTIVE[0] or FOREIGN[0]:
        return overloaded(_tensors_in(args, kwargs))
    return ()


def tensor_likes(args, kwargs):
    """The arguments (and list/tuple elements) that are not Tensors but define
    ``__torch_function__`` (tensordict's TensorDict), in :func:`overloaded`'s order: PyTorch's
    argument parser sends a call with one in a tensor or tensor-list slot to it."""
    objs = [e for e in _tensors_in(args, kwargs) if not isinstance(e, PLAIN[0])]
    return overloaded(objs) if objs else objs


# torch's functions that PyTorch writes in Python (torch/functional.py's __all__), each of which
# checks the protocol itself (``has_torch_function``): jtorch's composites of these names are
# published :func:`overridable` (jtorch/_ops/_registry.py's ``export``), so an FX Proxy or a
# subclass gets the function itself, not the ops it runs (e3nn traces
# ``torch.broadcast_tensors`` of proxies). name -> how PyTorch hands the call on: the number of
# leading parameters passed positionally, every other one as a keyword with its default filled
# in (``tensordot(a, b, dims=dims, out=out)``), or None: as called. ``einsum`` checks for
# itself (its operands spread); ``norm``, ``cdist``, ``stft`` and ``istft`` are ops in jtorch.
PYTHON_FUNCTIONS = {
    "atleast_1d": None, "atleast_2d": None, "atleast_3d": None, "broadcast_tensors": None,
    "cartesian_prod": None, "block_diag": None, "cdist": 2, "chain_matmul": None, "istft": 1,
    "lu": 1, "norm": 1, "meshgrid": 0, "pca_lowrank": 1, "split": 2, "stft": 1,
    "svd_lowrank": 1, "tensordot": 2, "unique": 1, "unique_consecutive": 1, "unravel_index": 1}

# torch's functions that PyTorch does not hand to ``__torch_function__``: Python functions
# without the check, and those whose arguments are data, dtypes or shapes (``torch.tensor``).
# Every other composite that jtorch publishes in torch, torch.linalg, torch.special or
# torch.fft is a C++ binding in PyTorch, whose argument parser hands a call with a subclass
# or an FX proxy among its arguments (or their list items: ``torch.arange(x.size(0))``) to
# ``__torch_function__`` as made: jtorch's are published :func:`overridable` as called.
# (``einsum`` checks for itself: its operands spread.)
NOT_OVERRIDABLE = frozenset({
    "as_tensor", "asarray", "broadcast_shapes", "can_cast", "einsum", "from_dlpack",
    "from_numpy", "frombuffer", "is_storage", "is_tensor", "promote_types",
    "set_default_tensor_type", "sym_float", "sym_int", "sym_ite", "sym_max", "sym_min",
    "sym_not", "sym_sqrt", "sym_sum", "tensor", "typename"})

# torch.nn.functional's functions that are C++ bindings in PyTorch (torch._C._nn; jtorch's name
# -> PyTorch's): their calls reach ``__torch_function__`` as made, and FX names them
# ``torch._C._nn.<name>``. Every other composite of torch.nn.functional is PyTorch's Python
# function checking the protocol itself: its required parameters are handed on positionally,
# the rest as keywords (:func:`functional_positional`).
C_NN_FUNCTIONS = {"gelu": "gelu", "linear": "linear", "avg_pool2d": "avg_pool2d",
                  "avg_pool3d": "avg_pool3d", "softplus": "softplus", "softshrink": "softshrink",
                  "one_hot": "one_hot", "logsigmoid": "log_sigmoid",
                  "scaled_dot_product_attention": "scaled_dot_product_attention",
                  "elu_": "elu_", "leaky_relu_": "leaky_relu_"}


def functional_positional(name, fn):
    """How torch.nn.functional's ``name`` (jtorch's ``fn``) hands a call on to
    ``__torch_function__`` (:func:`overridable`'s ``keywords``): None for PyTorch's C++
    bindings (as made), else the number of ``fn``'s parameters without a default
    (``cross_entropy(input, target, weight=None, ...)``: 2)."""
    if name in C_NN_FUNCTIONS:
        return None
    return sum(1 for p in inspect.signature(fn).parameters.values()
               if p.default is inspect.Parameter.empty
               and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


def input_overridable(api_name, keywords=None):
    """Decorator of a function of an input tensor (``torch.zeros_like``): :func:`overridable`
    (``keywords`` as there; default: as called), and an input that is not a Tensor but
    defines ``__torch_function__`` (a TensorDict) answers the call even before one has
    reached an op, as PyTorch's argument parser sends it there. A plain Tensor input costs
    three reads."""
    def deco(fn):
        @functools.wraps(fn)
        def public(input, *args, **kwargs):
            if type(input) is not PLAIN[0] or ACTIVE[0] or FOREIGN[0]:
                over = overloaded(_tensors_in((input, *args), kwargs))
                if over:
                    args, kwargs = (input, *args), kwargs
                    if keywords:
                        args, kwargs = _as_keywords(public, args, kwargs, keywords)
                    return handle(public, over, args, kwargs, api_name)
            return fn(input, *args, **kwargs)
        return public
    return deco


_PLAIN_METHOD = ("Defining your `__torch_function__` as a plain method is deprecated and will "
                 "be an error in future, please define it as a classmethod.")


def first_answer(func, overloaded_args, args, kwargs, plain_warning, stacklevel):
    """The first result of the overloaded arguments' ``__torch_function__`` that is not
    ``NotImplemented`` (or ``NotImplemented``); a plain-method ``__torch_function__`` warns
    ``plain_warning`` (``(message, category)``: PyTorch's C++ and Python paths word it apart)."""
    types = tuple(type(a) for a in overloaded_args)
    for a in overloaded_args:
        method = a.__torch_function__
        if getattr(method, "__self__", None) is a:
            warnings.warn(plain_warning[0], plain_warning[1], stacklevel=stacklevel + 1)
        result = method(func, types, args, kwargs or {})
        if result is not NotImplemented:
            return result
    return NotImplemented


def handle(func, overloaded_args, args, kwargs, api_name):
    """How an op or a Tensor method answers through the protocol: :func:`first_answer`, or
    PyTorch's TypeError naming ``api_name`` (``torch.add``, ``torch.Tensor.add``) when every
    handler declines."""
    result = first_answer(func, overloaded_args, args, kwargs, (_PLAIN_METHOD, UserWarning), 3)
    if result is not NotImplemented:
        return result
    lines = "".join(f"  - tensor subclass {type(a)}\n" for a in overloaded_args)
    raise TypeError(f"Multiple dispatch failed for '{api_name}'; all __torch_function__ "
                    f"handlers returned NotImplemented:\n\n{lines}\n"
                    "For more information, try re-running with TORCH_LOGS=not_implemented")


# ------------------------------------------------------------------ Tensor's side
def default(cls, func, types, args, kwargs):
    """``Tensor.__torch_function__``: ``func`` run with the protocol off, its tensor results
    (in tuples and lists too) made ``cls`` instances (``as_subclass``); ``NotImplemented``
    when ``cls`` is not a subclass of every type taking part. (PyTorch leaves the results of
    reading ``_base`` and ``grad`` as they are; jtorch does not route those reads here.)"""
    if not all(issubclass(cls, t) for t in types):
        return NotImplemented
    with DisableTorchFunctionSubclass():
        return _convert(func(*args, **(kwargs or {})), cls)


def _convert(ret, cls):
    if cls is PLAIN[0]:
        return ret
    if isinstance(ret, PLAIN[0]) and not isinstance(ret, cls):
        return ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        items = [_convert(r, cls) for r in ret]
        return type(ret)._make(items) if hasattr(type(ret), "_make") else type(ret)(items)
    return ret


# Tensor's tensor-valued properties, read through the protocol on a subclass's instances
_PROPERTIES = ("T", "mT", "H", "mH", "data", "real", "imag")
# Tensor attributes not wrapped: the protocol's own and construction, and the queries of a
# tensor's size and kind that jtorch's own functions make on their arguments (PyTorch's
# C++ makes them unseen; wrapped, a subclass's __torch_function__ would see jtorch's
# internals call them)
_NOT_WRAPPED = frozenset({
    "__torch_function__", "as_subclass", "_make_subclass", "new", "numel", "nelement",
    "size", "dim", "ndimension", "stride", "storage_offset", "is_contiguous", "element_size",
    "is_floating_point", "is_complex", "is_signed", "get_device", "data_ptr", "type"})
_WRAPPED_DUNDERS = ("__getitem__", "__setitem__")
# what Tensor's binary operators take as the other operand (registered by jtorch/_tensor.py)
OPERANDS = [()]
# Python's operators and conversions that PyTorch routes through the protocol as a Tensor
# attribute other than an op's function, with the subclass's instance first: an augmented
# assignment as the in-place method (``x += y``: ``Tensor.add_(x, y)``), a reflected operator
# as the op (``2 + x``: ``add(x, 2)``) or as Tensor's own (``2 - x``: ``Tensor.__rsub__(x, 2)``),
# ``+x`` as ``Tensor.positive``, and ``len``, ``int``, ``format``... as Tensor's dunders.
# name: (the Tensor attribute passed as ``func``, kind)
_INPLACE_OPS = {"__iadd__": "add_", "__isub__": "sub_", "__imul__": "mul_",
                "__itruediv__": "div_", "__idiv__": "div_", "__ifloordiv__": "floor_divide_",
                "__imod__": "remainder_", "__ipow__": "pow_"}
_REFLECTED_OPS = {"__radd__": "add", "__rmul__": "mul", "__rand__": "bitwise_and",
                  "__ror__": "bitwise_or", "__rxor__": "bitwise_xor"}
_OPERATORS = {
    **{n: (f, "inplace") for n, f in _INPLACE_OPS.items()},
    **{n: (n, "inplace") for n in ("__iand__", "__ior__", "__ixor__", "__ilshift__",
                                   "__irshift__")},
    **{n: (f, "reflected") for n, f in _REFLECTED_OPS.items()},
    **{n: (n, "reflected") for n in ("__rsub__", "__rtruediv__", "__rdiv__", "__rfloordiv__",
                                     "__rmod__", "__rpow__", "__rlshift__", "__rrshift__",
                                     "__rmatmul__")},
    "__pos__": ("positive", "unary"),
    # ``x == y`` as ``Tensor.__eq__`` (fastai's register_func keys on it), ``x != y`` as
    # ``Tensor.ne``; a TypeError (every handler declined) is NotImplemented, so Python falls
    # back to the reflected operator and then identity, as PyTorch's comparisons do
    "__eq__": ("__eq__", "compare"),
    "__ne__": ("ne", "compare"),
    **{n: (n, "unary") for n in ("__int__", "__float__", "__bool__", "__index__",
                                 "__complex__", "__len__", "__format__", "__repr__",
                                 "__array__", "__reversed__", "__contains__")},
}


def _tensors_in(args, kwargs):
    """The arguments (and the items of list and tuple arguments) that are Tensors, or whose
    type defines ``__torch_function__``."""
    found = []
    for a in (*args, *kwargs.values()) if kwargs else args:
        if type(a) in (list, tuple):
            found.extend(x for x in a if _candidate(x))
        elif _candidate(a):
            found.append(a)
    return found


def _candidate(a):
    return isinstance(a, PLAIN[0]) or hasattr(type(a), "__torch_function__")


def overridable(api_name, keywords=False):
    """Decorator of a composite public function that PyTorch checks the protocol for itself
    (its ``has_torch_function`` test, as ``F.grid_sample``'s): called with a subclass taking
    part (or an object defining ``__torch_function__``, an FX Proxy) among its arguments,
    ``__torch_function__`` gets the function itself as ``func`` (fastai's
    ``register_func(F.grid_sample, ...)`` keys on it), not the ops it runs. With ``keywords``
    (True, or a number of leading parameters: 1 for True; None or False: as called), the call
    it gets passes those parameters positionally (and a ``*args`` parameter spread) and every
    other parameter as a keyword, defaults filled in, as PyTorch's Python functionals hand it on
    (``handle_torch_function(dropout, (input,), input, p=p, training=training, ...)``).
    Until such an argument has been seen this costs two list reads."""
    def deco(fn):
        @functools.wraps(fn)
        def public(*args, **kwargs):
            if ACTIVE[0] or FOREIGN[0]:   # (overloaded_args, inlined: reshape is hot)
                over = overloaded(_tensors_in(args, kwargs))
                if over:
                    if keywords is not None and keywords is not False:
                        args, kwargs = _as_keywords(public, args, kwargs, int(keywords))
                    return handle(public, over, args, kwargs, api_name)
            return fn(*args, **kwargs)
        return public
    return deco


def handed_on(fn, args, kwargs):
    """The arguments ``(args, kwargs)`` of a call of op function ``fn`` as ``__torch_function__``
    gets them: as made, or for one of PyTorch's Python functionals (``fn.protocol_positional``
    set by jtorch/_ops/_registry.py's ``op``: ``F.normalize``) its first parameters positional
    and the rest keywords, defaults filled in."""
    positional = getattr(fn, "protocol_positional", None)
    return (args, kwargs) if positional is None else _as_keywords(fn, args, kwargs, positional)


def _as_keywords(fn, args, kwargs, positional):
    bound = inspect.signature(fn).bind(*args, **kwargs)
    bound.apply_defaults()
    args, kwargs = [], {}
    for i, (name, value) in enumerate(bound.arguments.items()):
        kind = bound.signature.parameters[name].kind
        if kind is inspect.Parameter.VAR_POSITIONAL:
            args.extend(value)
        elif kind is inspect.Parameter.VAR_KEYWORD:
            kwargs.update(value)
        elif i < positional:
            args.append(value)
        else:
            kwargs[name] = value
    return tuple(args), kwargs


def _wrapped_method(fn, name):
    api = "torch.Tensor." + name

    def method(*args, **kwargs):
        over = overloaded(_tensors_in(args, kwargs))
        if over:
            return handle(fn, over, args, kwargs, api)
        return fn(*args, **kwargs)

    method.__name__, method.__qualname__, method.__doc__ = name, "Tensor." + name, fn.__doc__
    method.__wrapped__ = fn
    return method


def _wrapped_operator(fn, func, name, kind):
    """Operator ``name`` of a subclass: ``fn`` (Tensor's), or the protocol's answer to ``func``
    called on ``(self, *args)``. A binary operator returns NotImplemented for what is not an
    operand, as Tensor's does; a reflected one also for a Tensor (Python asks a subclass's
    reflected operator first, where PyTorch runs the left operand's operator)."""
    api = "torch.Tensor." + name

    def method(self, *args, **kwargs):
        if kind != "unary":
            other = args[0]
            if not isinstance(other, OPERANDS[0]) or \
                    (kind == "reflected" and isinstance(other, PLAIN[0])):
                return NotImplemented
        over = overloaded(_tensors_in((self, *args), kwargs))
        if over:
            if kind != "compare":
                return handle(func, over, (self, *args), kwargs, api)
            try:
                return handle(func, over, (self, *args), kwargs, api)
            except TypeError:
                return NotImplemented
        return fn(self, *args, **kwargs)

    method.__name__, method.__qualname__, method.__doc__ = name, "Tensor." + name, fn.__doc__
    method.__wrapped__ = fn
    return method


def _wrapped_property(prop, name):
    getter = prop.__get__
    api = "torch.Tensor." + name

    def get(self):
        over = overloaded((self,))
        if over:
            return handle(getter, over, (self,), {}, api)
        return getter(self)

    return property(get, prop.fset, prop.fdel, prop.__doc__)


def _runs_one_op(fn):
    """Whether ``fn`` is an op's own public function (dispatch checks its calls)."""
    opdef = getattr(fn, "_opdef", None)
    return opdef is not None and opdef.public is fn


def subclass_defined(cls, api_names):
    """Tensor's ``__init_subclass__``: a class taking part in the protocol turns it on, and
    gets the Tensor methods and tensor-valued properties that do not run an op (``detach``,
    ``__getitem__``, ``T``, composites such as ``view``) wrapped, so that its instances' calls
    go through it; ops check in dispatch, so an op's own function is left as it is. So are the
    operators and conversions PyTorch routes as Tensor methods (:data:`_OPERATORS`). Methods
    the class (or a class between it and Tensor) defines are its own and stay so.
    ``api_names``: Tensor's names in PyTorch's API."""
    if not takes_part(cls):
        return
    ACTIVE[0] = True
    plain = PLAIN[0]
    for name in (*api_names, *_WRAPPED_DUNDERS):
        if name in _NOT_WRAPPED or (name.startswith("__") and name not in _WRAPPED_DUNDERS):
            continue
        original = plain.__dict__.get(name)
        if original is None:
            original = next((k.__dict__[name] for k in plain.__mro__ if name in k.__dict__),
                            None)
        if original is None or _runs_one_op(original):
            continue
        if next(k.__dict__[name] for k in cls.__mro__ if name in k.__dict__) is not original:
            continue   # the subclass's own (or already wrapped by a base subclass)
        if isinstance(original, property):
            if name in _PROPERTIES:
                setattr(cls, name, _wrapped_property(original, name))
        elif callable(original) and not isinstance(original, (staticmethod, classmethod)):
            setattr(cls, name, _wrapped_method(original, name))
    for name, (target, kind) in _OPERATORS.items():
        original = _tensor_attribute(name)
        func = _tensor_attribute(target)
        if original is None or func is None:
            continue
        if next(k.__dict__[name] for k in cls.__mro__ if name in k.__dict__) is not original:
            continue   # the subclass's own (or already wrapped by a base subclass)
        setattr(cls, name, _wrapped_operator(original, func, name, kind))


def _tensor_attribute(name):
    """Tensor's own attribute ``name`` (as found on its class), or None."""
    return next((k.__dict__[name] for k in PLAIN[0].__mro__ if name in k.__dict__), None)
