"""``torch.autograd.forward_ad``: forward-mode AD with dual tensors.

``with dual_level(): d = make_dual(x, t)`` gives a tensor that carries the tangent ``t``; every
op on tensors with tangents gives outputs whose tangents are the op's Jacobian-vector product,
and ``unpack_dual(y)`` returns ``(primal, tangent)``. Leaving the level drops every tangent.

How: while a level is open, an op observer (``_core.dispatch.set_observer``) runs each op as
usual (autograd records it as before) and, when one of its tensors has a tangent, runs the op
again inside ``jax.jvp`` as a function of those tensors' arrays: the tangents are JAX's forward
derivatives of the op's own kernel (a random op passes its key as an argument, so both runs
draw the same numbers). An in-place op passes the tangent of its result to the tensor it
writes (``_core.views`` calls back through one registration).

Differences from PyTorch: ``make_dual`` returns a new tensor (PyTorch's is a view of the
primal; writing into it in place does not write the primal here), and in-place writes into a
view of a tensor with a tangent, or writes of a dual value through a view, raise
NotImplementedError rather than give a wrong tangent. One level at a time, as in PyTorch.
"""

from __future__ import annotations

import weakref
from collections import namedtuple

import jax
import jax.numpy as jnp

from .._core import dispatch as _dispatch, views as _views
from .._core.state import grad_mode
from .._core.tensor_base import TensorBase

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual",
           "unpack_dual", "dual_level"]

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])


class _Level:
    """The open level (None or 0), the observer it replaced, and the tensors given tangents
    at it (cleared on exit)."""

    current = None
    previous_observer = None
    tensors = []


def _tangent_of(t):
    entry = t.__dict__.get("_fw_tangent")
    if entry is None or entry[0] != _Level.current:
        return None
    if t._base is None:
        return entry[1]
    if entry[2] is None:   # (an indexing view gets its base after the op: the first read)
        entry = t.__dict__["_fw_tangent"] = (*entry[:2], t._base_version)
    if entry[2] != t._base._version_counter:
        raise NotImplementedError("torch.autograd.forward_ad: reading a view with a tangent "
                                  "after its base was changed in place is not implemented in "
                                  "jtorch")
    return entry[1]


def _set_tangent(t, tangent):
    base_version = None if t._base is None else t._base_version
    t.__dict__["_fw_tangent"] = (_Level.current, tangent, base_version)
    _Level.tensors.append(weakref.ref(t))


def _is_float(t):
    return t.is_floating_point() or t.is_complex()


# ------------------------------------------------------------------ levels
def enter_dual_level():
    """Open the (one) forward AD level; returns its number, 0."""
    if _Level.current is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _Level.current = 0
    _Level.previous_observer = _dispatch.set_observer(_observe)
    _views.register_forward_grad_assign(_assign_tangent)
    return 0


def exit_dual_level(*, level=None):
    """Close the level: every tangent made at it is dropped."""
    if level is None:
        level = _Level.current
    if level is None:
        raise RuntimeError("Dual level must be a positive number.")
    if level != _Level.current:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported.")
    for ref in _Level.tensors:
        t = ref()
        if t is not None:
            t.__dict__.pop("_fw_tangent", None)
    _Level.tensors = []
    _views.register_forward_grad_assign(None)
    _dispatch.set_observer(_Level.previous_observer)
    _Level.current = _Level.previous_observer = None


class dual_level:  # noqa: N801 - PyTorch's name
    """``with dual_level():`` opens a forward AD level for the block."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
        return False


# ------------------------------------------------------------------ dual tensors
def make_dual(tensor, tangent, *, level=None):
    """A tensor with ``tensor``'s values (and autograd history) carrying ``tangent``."""
    if level is None:
        level = _Level.current
    if level is None:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    if not _is_float(tensor):
        raise ValueError(f"Expected primal to be floating point or complex, but got: "
                         f"{tensor.dtype}")
    if not _is_float(tangent):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: "
                         f"{tangent.dtype}")
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError("Trying to set a forward gradient that has a different size than "
                           "that of the original Tensor, this is not supported. Tensor is of "
                           f"size {list(tensor.shape)} while the given forward gradient is of "
                           f"size {list(tangent.shape)}.")
    with _outside_forward_ad():
        dual = tensor.clone()
    _set_tangent(dual, tangent)
    return dual


def unpack_dual(tensor, *, level=None):
    """``(primal, tangent)``: a view of ``tensor`` without a tangent, and its tangent (None
    where it has none, or outside a level)."""
    if level is None:
        level = _Level.current
    if level is None or level != _Level.current:
        return UnpackedDualTensor(tensor, None)
    tangent = _tangent_of(tensor)
    with _outside_forward_ad():
        primal = tensor.view_as(tensor) if isinstance(tensor, TensorBase) else tensor
    return UnpackedDualTensor(primal, tangent)


class _outside_forward_ad:  # noqa: N801 - used like a context-manager function
    """Run ops without computing tangents (the observer steps aside)."""

    def __enter__(self):
        self._prev = _dispatch.set_observer(_Level.previous_observer)

    def __exit__(self, *exc):
        _dispatch.set_observer(self._prev)
        return False


# ------------------------------------------------------------------ propagation
def _replace(x, new):
    """``x`` (an op argument: a tensor, or a tuple/list holding some) with its dual tensors
    replaced by ``new[id(tensor)]``."""
    if isinstance(x, TensorBase):
        return new.get(id(x), x)
    if isinstance(x, (tuple, list)):
        return type(x)(_replace(v, new) for v in x)
    return x


def _duals(x, found):
    if isinstance(x, TensorBase):
        if _tangent_of(x) is not None and id(x) not in found:
            found[id(x)] = x
    elif isinstance(x, (tuple, list)):
        for v in x:
            _duals(v, found)


def _observe(opdef, args, kwargs, run):
    previous = _Level.previous_observer
    primal_run = run if previous is None else (lambda o, a, k: previous(o, a, k, run))
    found = {}
    _duals(args, found)
    _duals(list(kwargs.values()), found)
    out = primal_run(opdef, args, kwargs)
    if not found:
        return out
    duals = list(found.values())

    def op_of_arrays(*arrays):
        new = {id(t): TensorBase._make(a, t._device) for t, a in zip(duals, arrays)}
        with grad_mode(False):
            r = run(opdef, _replace(args, new), {k: _replace(v, new) for k, v in kwargs.items()})
        items = r if isinstance(r, (tuple, list)) else (r,)
        return tuple(o._value if isinstance(o, TensorBase) else None for o in items)

    primals = tuple(t._value for t in duals)
    tangents = tuple(jnp.asarray(_tangent_of(t)._value, p.dtype) for t, p in zip(duals, primals))
    try:
        _, out_tangents = jax.jvp(op_of_arrays, primals, tangents)
    except TypeError as e:   # a kernel with a custom reverse rule only (index_put's...)
        if "custom_vjp" not in str(e):
            raise
        name = opdef.name.rsplit(".", 1)[-1]
        raise NotImplementedError(f"Trying to use forward AD with {name} that does not support "
                                  "it because it has not been implemented yet in jtorch.") from None
    items = out if isinstance(out, (tuple, list)) else (out,)
    for o, tangent in zip(items, out_tangents):
        if isinstance(o, TensorBase) and tangent is not None and _is_float(o):
            _set_tangent(o, TensorBase._make(tangent, o._device))
    return out


def _assign_tangent(t, res):
    """An in-place op rebound ``t`` to ``res``'s values: ``t`` takes ``res``'s tangent."""
    tangent = _tangent_of(res)
    through_view = t._base is not None and (tangent is not None or
                                            _tangent_of(t._base) is not None)
    if through_view:
        raise NotImplementedError("torch.autograd.forward_ad: an in-place write into a view of "
                                  "a tensor with a tangent (or of a dual value into a view) is "
                                  "not implemented in jtorch")
    if tangent is not None:
        _set_tangent(t, tangent)
    elif _tangent_of(t) is not None:   # overwritten by a value without a tangent
        t.__dict__.pop("_fw_tangent", None)
