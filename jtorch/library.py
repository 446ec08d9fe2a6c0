"""torch.library: Python custom operators (``custom_op`` and its registrations).

``custom_op("mylib::op", fn, mutates_args=())`` makes an operator: a :class:`CustomOpDef` that
is callable, also reachable as ``torch.ops.mylib.op`` (``jtorch/ops.py``). Calling it binds the
arguments to the op's schema (PyTorch's errors for a wrong call), picks the kernel for the
tensors' device type (``register_kernel``, else ``fn``) and runs it with grad mode off, as
PyTorch runs kernels below autograd. When an input requires grad the call goes through a
generated ``autograd.Function`` (grad_fn ``GeneratedBackwardFor_<ns>_<op>_defaultBackward``)
whose backward is the formula ``register_autograd`` gave; without one, backward raises
PyTorch's error.

Differences from PyTorch: jtorch traces real values, so the fake impl (``register_fake``) is
kept and only runs for meta tensors; ``Library``, ``define``, ``impl`` and the other
dispatcher-level APIs raise NotImplementedError. See docs/differences.md.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import sys
import warnings
from collections.abc import Sequence

from . import ops as _ops
from ._core.device import device as _device
from ._core.errors import missing_class, missing_function, not_implemented
from ._core.hooks import increment_version
from ._core.state import STATE, grad_mode
from ._core.tensor_base import TensorBase
from ._library._schema import IDENT, NO_DEFAULT, parse_namespace, parse_schema
from ._library.infer_schema import infer_schema
from .autograd.function import Function

__all__ = ["Library", "impl", "define", "fallthrough_kernel", "impl_abstract",
           "register_autocast", "register_fake", "register_torch_dispatch", "register_vmap",
           "get_ctx", "get_kernel", "custom_op", "triton_op", "wrap_triton", "infer_schema"]

log = logging.getLogger(__name__)

device_types_t = str | Sequence[str] | None
OpOverload = _ops.OpOverload

OPDEFS: dict = {}             # "namespace::name" -> CustomOpDef
_PENDING_KERNELS: dict = {}   # kernels registered before their op was defined
_FAKE_CTX: list = []          # the ops whose fake impl is running now (get_ctx)

# what jtorch does not have: stand-ins that raise NotImplementedError naming the API
Library = missing_class("torch.library.Library")
define = missing_function("torch.library.define")
impl = missing_function("torch.library.impl")
get_kernel = missing_function("torch.library.get_kernel")
register_autocast = missing_function("torch.library.register_autocast")
register_torch_dispatch = missing_function("torch.library.register_torch_dispatch")
register_vmap = missing_function("torch.library.register_vmap")
triton_op = missing_function("torch.library.triton_op")
wrap_triton = missing_function("torch.library.wrap_triton")
opcheck = missing_function("torch.library.opcheck")


def fallthrough_kernel():
    """A dummy function to pass to ``Library.impl`` in order to register a fallthrough."""
    raise NotImplementedError("fallthrough_kernel() should never be called.")


# ------------------------------------------------------------------ tensor lists
def _is_tensor_list(v):
    return isinstance(v, (list, tuple)) and any(isinstance(t, TensorBase) for t in v)


def _tensors(values):
    for v in values:
        if isinstance(v, TensorBase):
            yield v
        elif _is_tensor_list(v):
            yield from (t for t in v if isinstance(t, TensorBase))


class _Meta:
    """The structure of one call through autograd: which inputs and outputs are tensor lists
    (flattened for ``autograd.Function``), and the keyword-only arguments."""

    def __init__(self, pos, kwargs):
        self.in_sizes = [len(v) if _is_tensor_list(v) else None for v in pos]
        self.kwargs = kwargs
        self.out_sizes = None    # per output: None (one value) or a list's length
        self.out_tuple = False

    def flatten_inputs(self, pos):
        return [x for v, n in zip(pos, self.in_sizes) for x in (v if n is not None else (v,))]

    def unflatten(self, flat, sizes):
        out, i = [], 0
        for n in sizes:
            out.append(flat[i] if n is None else list(flat[i:i + n]))
            i += 1 if n is None else n
        return out

    def flatten_outputs(self, result):
        self.out_tuple = isinstance(result, tuple)
        outs = result if self.out_tuple else (result,)
        self.out_sizes = [len(o) if isinstance(o, list) else None for o in outs]
        return tuple(x for o in outs for x in (o if isinstance(o, list) else (o,)))

    def unflatten_outputs(self, flat):
        outs = self.unflatten(flat, self.out_sizes)
        return tuple(outs) if self.out_tuple else outs[0]

    def flatten_grads(self, grads):
        flat = []
        for g, n in zip(grads, self.in_sizes):
            if n is None:
                flat.append(g)
            elif isinstance(g, (list, tuple)) and len(g) == n:
                flat.extend(g)
            else:
                raise RuntimeError("Expected the return from backward to be of the same "
                                   f"structure as the inputs. Got: {grads} (return from "
                                   f"backward), input sizes {self.in_sizes} (inputs)")
        return flat + list(grads[len(self.in_sizes):])


# ------------------------------------------------------------------ the op
class CustomOpDef:
    """A function made into a custom op by :func:`custom_op`: callable (runs the op), with
    methods that register more of its behaviour (kernels per device type, a fake impl, an
    autograd formula)."""

    def __init__(self, namespace, name, schema, fn, tags=None):
        self._namespace, self._name, self._schema = namespace, name, schema
        self._tags = tuple(tags) if isinstance(tags, (list, tuple)) else \
            () if tags is None else (tags,)
        self._init_fn = fn
        self._source = "unknown"   # custom_op sets where it was called
        self.__name__ = name
        self._backend_fns: dict = {}
        self._abstract_fn = None
        self._setup_context_fn = None
        self._backward_fn = None
        self._disabled_kernel: set = set()
        self._args, self._returns = parse_schema(schema, self._qualname)
        self._decl = f"{self._qualname}{schema}"
        if any(a.kwarg_only and a.is_tensor for a in self._args):
            raise NotImplementedError("custom_op with kwarg-only Tensor args. Please make your "
                                      f"tensors not kwarg-only. Got: {name}{schema}")
        try:
            params = inspect.signature(fn).parameters
        except (TypeError, ValueError):   # a callable without a signature: the schema's defaults
            params = {}
        self._args = [a._replace(default=params[a.name].default) if a.name in params
                      and params[a.name].default is not params[a.name].empty else a
                      for a in self._args]
        self._n_pos = sum(not a.kwarg_only for a in self._args)
        self._has_kwarg_only = self._n_pos < len(self._args)
        self._mutated = [i for i, a in enumerate(self._args) if a.mutable]
        self._checks_aliasing = not any("(" in r for r in self._returns)
        self._autograd_fn = type(f"GeneratedBackwardFor_{namespace}_{name}_default",
                                 (Function,), {"forward": staticmethod(self._forward),
                                               "backward": staticmethod(self._backward)})
        self._backend_fns.update(_PENDING_KERNELS.pop(self._qualname, {}))
        self._opoverload = _ops.register(namespace, name, self, self._decl).default
        OPDEFS[self._qualname] = self

    @property
    def _qualname(self):
        return f"{self._namespace}::{self._name}"

    def __repr__(self):
        return f"<CustomOpDef({self._qualname})>"

    # -------------------------------------------------------------- registrations
    def register_kernel(self, device_types, fn=None, /):
        """Register ``fn`` as this op's implementation for ``device_types`` ("cpu", "cuda"...;
        None: every device type). Usable as a decorator."""
        if device_types is not None and not any(a.is_tensor for a in self._args) and \
                not any(a.type.startswith("Device") for a in self._args):
            raise ValueError("Functions without tensor inputs are required to have a `device: "
                             "torch.device` argument")

        def inner(fn):
            types_ = [device_types] if device_types is None or isinstance(device_types, str) \
                else list(device_types)
            for t in types_:
                self._backend_fns[t] = fn
            return fn

        return inner if fn is None else inner(fn)

    def register_fake(self, fn, /):
        """Register the op's FakeTensor implementation. jtorch traces with real values: it runs
        only for meta tensors."""
        self._abstract_fn = fn
        return fn

    def register_autograd(self, backward, /, *, setup_context=None):
        """Register the op's backward formula: ``setup_context(ctx, inputs, output)`` runs in
        the forward (``keyword_only_inputs`` too when the op has keyword-only arguments) and
        ``backward(ctx, *grads)`` returns one gradient per input, as in
        ``autograd.Function``."""
        if self._mutated:
            raise RuntimeError(f"Cannot register autograd formula for non-functional operator "
                               f"{self} with schema {self._decl}. Please create a functional "
                               "operator and register an autograd formula for that.")
        self._backward_fn = backward
        self._setup_context_fn = setup_context

    @contextlib.contextmanager
    def set_kernel_enabled(self, device_type, enabled=True):
        """Within the block, the kernel registered for ``device_type`` is (not) used; the
        function the op was made from runs instead."""
        was_disabled = device_type in self._disabled_kernel
        if device_type not in self._backend_fns:
            log.warning("Attempted to %s kernel for %s but no kernel was registered for this "
                        "device type.", "enable" if enabled else "disable", device_type)
        if enabled:
            self._disabled_kernel.discard(device_type)
        else:
            self._disabled_kernel.add(device_type)
        try:
            yield
        finally:
            if was_disabled:
                self._disabled_kernel.add(device_type)
            else:
                self._disabled_kernel.discard(device_type)

    def register_torch_dispatch(self, torch_dispatch_class, fn=None, /):
        raise not_implemented("torch.library.CustomOpDef.register_torch_dispatch")

    def register_vmap(self, func=None):
        raise not_implemented("torch.library.CustomOpDef.register_vmap")

    def register_autocast(self, device_type, cast_inputs):
        raise not_implemented("torch.library.CustomOpDef.register_autocast")

    def register_effect(self, effect):
        raise not_implemented("torch.library.CustomOpDef.register_effect")

    # -------------------------------------------------------------- calling
    def __call__(self, *args, **kwargs):
        pos, kw = self._bind(args, kwargs)
        if STATE.grad_enabled and any(t._requires_grad for t in _tensors(pos)):
            meta = _Meta(pos, kw)
            outs = self._autograd_fn.apply(*meta.flatten_inputs(pos), meta)
            return meta.unflatten_outputs(outs)
        with grad_mode(False):
            return self._run(pos, kw)

    def _bind(self, args, kwargs):
        """PyTorch's binding of a call to the schema: (positional values, keyword-only)."""
        n_pos, decl = self._n_pos, self._decl
        if len(args) > n_pos:
            raise RuntimeError(f"{self._qualname}() takes {n_pos} positional argument(s) but "
                               f"{len(args)} was/were given.  Declaration: {decl}")
        if len(args) + len(kwargs) > len(self._args):
            raise RuntimeError(f"{self._qualname}() expected at most {len(self._args)} "
                               f"argument(s) but received {len(args) + len(kwargs)} "
                               f"argument(s). Declaration: {decl}")
        names = {a.name for a in self._args}
        for k in kwargs:
            if k not in names:
                raise RuntimeError(f"Unknown keyword argument '{k}' for operator "
                                   f"'{self._qualname}'. Schema: {decl}")
        pos, kw = list(args), {}
        for i, a in enumerate(self._args):
            if i < len(args):
                if a.name in kwargs:
                    raise RuntimeError(f"Argument '{a.name}' specified both as positional and "
                                       f"keyword argument. Schema: {decl}")
                continue
            if a.name in kwargs:
                v = kwargs[a.name]
            elif a.default is not NO_DEFAULT:
                v = a.default
            else:
                raise RuntimeError(f"{self._qualname}() is missing value for argument "
                                   f"'{a.name}'. Declaration: {decl}")
            if a.kwarg_only:
                kw[a.name] = v
            else:
                pos.append(v)
        return tuple(pos), kw

    def _kernel(self, pos, kw):
        """The function to run for these arguments' device type."""
        device_type = next((t.device.type for t in _tensors(pos)), None)
        if device_type is None:
            devices = [v for a, v in zip(self._args, (*pos, *kw.values()))
                       if a.type.startswith("Device") and v is not None]
            device_type = _device(devices[0]).type if devices else None
        if device_type == "meta":
            return self._fake_kernel
        fn = self._backend_fns.get(device_type)
        if fn is None:
            fn = self._backend_fns.get(None)
            if fn is None:
                key = (device_type or "cpu").upper()
                raise NotImplementedError(
                    f"Could not run '{self._qualname}' with arguments from the '{key}' backend. "
                    "This could be because the operator doesn't exist for this backend. "
                    f"'{self._qualname}' is only available for these backends: "
                    f"{sorted(str(k).upper() for k in self._backend_fns)}.")
        elif device_type in self._disabled_kernel:
            return self._init_fn
        return fn

    def _fake_kernel(self, *args, **kwargs):
        if self._abstract_fn is None:
            if self._returns == [] or self._returns == [""]:
                return None
            raise RuntimeError(f"There was no fake impl registered for {self}. This is "
                               "necessary for torch.compile/export/fx tracing to work. Please "
                               f"use `{self._init_fn.__name__}.register_fake` to add an fake "
                               "impl.")
        _FAKE_CTX.append(self)
        try:
            return self._abstract_fn(*args, **kwargs)
        finally:
            _FAKE_CTX.pop()

    def _run(self, pos, kw):
        """Runs the kernel (grad mode is off), with PyTorch's checks and version bumps."""
        fn = self._kernel(pos, kw)
        result = fn(*pos, **kw)
        if self._checks_aliasing:
            self._check_aliasing(pos, result, fn)
        for i in self._mutated:
            v = (pos[i] if i < len(pos) else kw[self._args[i].name])
            for t in _tensors((v,)):
                increment_version(t)
        return result

    def _check_aliasing(self, pos, result, fn):
        outs = list(_tensors(result if isinstance(result, (tuple, list)) else (result,)))
        if not outs:
            return
        owners = [t if t._base is None else t._base for t in _tensors(pos)]
        seen = []
        for o in outs:
            owner = o if o._base is None else o._base
            if any(owner is w for w in owners) or any(owner is s for s in seen):
                raise RuntimeError(
                    f"{self._name} (with implementation in {inspect.getmodule(fn)}): The output "
                    "of this custom operator (1) must not also be an input to this custom "
                    "operator and (2) may not alias any inputs to this custom operator or "
                    "other returns. The most common way to trigger this error is if we have y "
                    "= custom_op(x) and y and x are the same Tensor. Please instead return a "
                    "clone of the offending output tensor(s) (e.g. return x.clone()) or "
                    "refactor the custom operator to not return y.")
            seen.append(owner)

    # the generated autograd.Function (runs with grad mode off)
    def _forward(self, ctx, *flat):
        meta = flat[-1]
        pos = tuple(meta.unflatten(flat[:-1], meta.in_sizes))
        result = self._run(pos, meta.kwargs)
        if self._setup_context_fn is not None:
            if self._has_kwarg_only:
                self._setup_context_fn(ctx=ctx, inputs=pos, keyword_only_inputs=meta.kwargs,
                                       output=result)
            else:
                self._setup_context_fn(ctx=ctx, inputs=pos, output=result)
        ctx._pt_metadata = meta
        return meta.flatten_outputs(result)

    def _backward(self, ctx, *grads):
        if self._backward_fn is None:
            raise RuntimeError(f"Trying to backward through {self._opoverload} but no autograd "
                               "formula was registered. Please use register_autograd to add "
                               "one.")
        meta = ctx._pt_metadata
        grads = meta.unflatten(grads, meta.out_sizes)
        needs = ctx.needs_input_grad
        try:
            ctx.needs_input_grad = tuple(meta.unflatten(needs[:-1], meta.in_sizes))
            result = self._backward_fn(ctx, *grads)
        finally:
            ctx.needs_input_grad = needs
        result = result if isinstance(result, tuple) else (result,)
        return (*meta.flatten_grads(result), None)


# ------------------------------------------------------------------ the public functions
def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None, tags=None):
    """Wraps a function into a custom operator named ``"namespace::name"``; usable as a
    decorator. ``mutates_args``: the names of the arguments ``fn`` mutates, or ``"unknown"``.
    The schema is inferred from ``fn``'s type hints unless ``schema`` gives it.

    Returns:
        a :class:`CustomOpDef`, also reachable as ``torch.ops.<namespace>.<name>``.

    Example:
        >>> import jtorch as torch
        >>> @torch.library.custom_op("doc_example::twice", mutates_args=())
        ... def twice(x: torch.Tensor) -> torch.Tensor:
        ...     return x * 2
        >>> torch.ops.doc_example.twice(torch.ones(2))
        tensor([2., 2.])
    """

    def inner(fn, depth=1):
        caller = sys._getframe(depth)   # where the op is made: PyTorch's errors name it
        source = f"{caller.f_code.co_filename}:{caller.f_lineno}"
        schema_str = schema if schema is not None else infer_schema(fn,
                                                                    mutates_args=mutates_args)
        namespace, opname = name.split("::")
        if not (IDENT.match(namespace) and IDENT.match(opname)):
            raise RuntimeError(f"custom_op: expected a name of the form 'namespace::opname' "
                               f"(each a Python identifier) but got '{name}'")
        if schema is not None:
            expected = {a.name for a in parse_schema(schema, name)[0] if a.mutable}
            if expected != set(mutates_args):
                raise ValueError(
                    f"Attempted to create a custom op with `mutates_args={mutates_args}` and "
                    f"`schema={schema}. The schema suggests that the op mutates {expected}"
                    "which is different from what was provided to us in `mutates_args`. "
                    "Please make these consistent.")
        result = CustomOpDef(namespace, opname, schema_str, fn, tags)
        result._source = source
        result.register_kernel(device_types)(fn)
        return result

    return inner if fn is None else inner(fn, 2)


def _resolve(op, api):
    """``op`` (a name, an OpOverload or a CustomOpDef) as its CustomOpDef, or its name."""
    if not isinstance(op, (str, _ops.OpOverload, CustomOpDef)):
        raise ValueError(f"{api}({op}): got unexpected type for op: {type(op)}")
    if isinstance(op, _ops.OpOverload):
        op = op._name
    if isinstance(op, str):
        return OPDEFS.get(op.removesuffix(".default"), op)
    return op


def _not_custom(qualname, api):
    """Raises (aten ops) or returns the (namespace, name) of an op custom_op did not make."""
    namespace, name = parse_namespace(qualname)
    if namespace == "aten":
        raise not_implemented(f"torch.library.{api} for operators not made by "
                              f"torch.library.custom_op ({qualname})")
    return namespace, name


def register_kernel(op, device_types, func=None, /, *, lib=None):
    """Register ``func`` as the implementation of ``op`` for ``device_types``; usable as a
    decorator."""
    op = _resolve(op, "register_kernel")
    if isinstance(op, CustomOpDef):
        return op.register_kernel(device_types, func)
    _not_custom(op, "register_kernel")

    def register(fn):   # PyTorch accepts kernels for ops defined later
        types_ = [device_types] if device_types is None or isinstance(device_types, str) \
            else list(device_types)
        for t in types_:
            _PENDING_KERNELS.setdefault(op, {})[t] = fn
        return fn

    return register if func is None else register(func)


def register_fake(op, func=None, /, *, lib=None, _stacklevel=1, allow_override=True):
    """Register the FakeTensor implementation of ``op``; usable as a decorator. jtorch runs it
    for meta tensors only (it traces with real values)."""
    op = _resolve(op, "register_fake")
    if isinstance(op, CustomOpDef):
        return op.register_fake if func is None else op.register_fake(func)

    def register(fn):
        _not_custom(op, "register_fake")
        raise RuntimeError(f"operator {op} does not exist")

    return register if func is None else register(func)


def impl_abstract(qualname, func=None, *, lib=None, _stacklevel=1):
    """Renamed :func:`register_fake` (deprecated in PyTorch 2.4)."""
    warnings.warn("`torch.library.impl_abstract` was renamed to `torch.library.register_fake`. "
                  "Please use that instead; we will remove `torch.library.impl_abstract` in a "
                  "future version of PyTorch.", FutureWarning, stacklevel=2)
    return register_fake(qualname, func, lib=lib, _stacklevel=_stacklevel + 1)


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    """Register the backward formula of ``op`` (see :meth:`CustomOpDef.register_autograd`)."""
    op = _resolve(op, "register_autograd")
    if isinstance(op, CustomOpDef):
        op.register_autograd(backward, setup_context=setup_context)
        return
    namespace, name = _not_custom(op, "register_autograd")
    raise AttributeError(f"'_OpNamespace' '{namespace}' object has no attribute '{name}'")


def get_ctx():
    """None outside a fake impl. Inside one (jtorch runs them on meta tensors only), PyTorch's
    error for meta tensors: they cannot have data-dependent output shapes."""
    if _FAKE_CTX:
        op = _FAKE_CTX[-1]
        raise RuntimeError(
            f"{op._qualname} ({op._source}): You're trying to run this operator with meta "
            "Tensors (as opposed to FakeTensors), but this operator may return an output Tensor "
            "with data-dependent shape. Meta Tensors don't support operators with outputs that "
            "have data-dependent shapes but FakeTensors do. If your operator does not return an "
            "output with data-dependent shape, make sure the FakeTensor and/or meta kernel does "
            "not call torch.library.get_ctx(). Otherwise, please use FakeTensors.")
    return None
