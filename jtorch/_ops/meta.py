"""Tensors on the ``meta`` device: shapes and dtypes without values.

A meta tensor is a ``jtorch.Tensor`` whose ``_array`` is a
:class:`~jtorch._core.tensor_base.MetaStorage` (shape and dtype only) and whose device is
``meta``. Models are built on it to know their parameters' shapes without allocating them
(``with torch.device("meta"): model = Net()``), then given real storage with
``model.to_empty(device=...)`` and initialised (``reset_parameters()``, ``load_state_dict``),
as FSDP2 and large-model code do.

- Factories on the meta device (``empty``, ``zeros``, ``ones``, ``full``, their ``_like``
  forms, ``rand``/``randn``...) allocate nothing.
- An op with a meta operand is evaluated abstractly: the dispatcher hands it here when the
  kernel refuses the storage, and ``jax.eval_shape`` of the same op on abstract values gives
  the results' shapes and dtypes (PyTorch's meta kernels are its shape rules; jtorch's are
  its ops themselves). Other operands must be meta too, or 0-d CPU tensors, as in PyTorch.
- In-place ops on a meta tensor check shapes and change nothing; random fills draw nothing.
- Autograd records meta graphs with PyTorch's ``grad_fn`` names; ``backward()`` gives each
  leaf a meta gradient of its shape and dtype.
- Reading values (``numpy()``, ``item()``, ``tolist()``, ``.to("cpu")``) raises PyTorch's
  errors. A view of a meta tensor is a new meta tensor (nothing can be written through it).
"""

from __future__ import annotations

import functools

import jax

from .._core.device import device as Device, host_cpu
from .._core.dispatch import dispatch, register_storage_handler
from .._core.python_node import record_python_node
from .._core.state import STATE, grad_mode
from .._core.tensor_base import MetaStorage, TensorBase

__all__ = ["META", "copy_out", "meta_tensor"]

META = Device("meta")


def meta_tensor(shape, dtype, requires_grad=False):
    """A new meta tensor of ``shape`` and ``dtype`` (a NumPy dtype)."""
    t = TensorBase._make(MetaStorage(shape, dtype), META)
    if requires_grad:
        t._requires_grad = True
    return t


def _is_tensor(x):
    return isinstance(x, TensorBase)


def _run(opdef, args, kwargs):
    """Run ``opdef`` with a meta operand: its results as meta tensors of the shapes and dtypes
    the op gives on abstract values."""
    leaves, tree = jax.tree_util.tree_flatten((args, kwargs), is_leaf=_is_tensor)
    tensors = [i for i, x in enumerate(leaves) if isinstance(x, TensorBase)]
    # (other operands are meta too, or 0-d CPU tensors: dispatch checked their devices)
    wants_grad = STATE.grad_enabled and opdef.differentiable and \
        any(leaves[i]._requires_grad for i in tensors)

    found = {}   # what the abstract run learns: the outputs' structure, the grad_fn's name

    def abstract(*arrays):
        inputs = list(leaves)
        for i, a in zip(tensors, arrays):
            inputs[i] = TensorBase._make(a, host_cpu())
            inputs[i]._requires_grad = wants_grad and leaves[i]._requires_grad
        a2, k2 = jax.tree_util.tree_unflatten(tree, inputs)
        with grad_mode(wants_grad):
            out = dispatch(opdef, a2, k2)
        outs, found["tree"] = jax.tree_util.tree_flatten(out, is_leaf=_is_tensor)
        found["name"] = next((type(x._node).__name__ for x in outs
                              if isinstance(x, TensorBase) and x._node is not None), None)
        return [x._array if isinstance(x, TensorBase) else x for x in outs]

    specs = [jax.ShapeDtypeStruct(leaves[i].shape, leaves[i].dtype.np) for i in tensors]
    results = jax.eval_shape(abstract, *specs)
    wrapped = [meta_tensor(r.shape, r.dtype) if isinstance(r, jax.ShapeDtypeStruct) else r
               for r in results]
    if found["name"] is not None:   # PyTorch records meta graphs: the same grad_fn name
        floats = [i for i, r in enumerate(wrapped)
                  if isinstance(r, TensorBase) and r.dtype.np.kind in "fc"]
        inputs = [leaves[i] for i in tensors]
        record_python_node(wrapped, inputs, functools.partial(_meta_grads, inputs),
                           ctx=_GRADS_UNREAD, name=found["name"], attach=floats)
    return jax.tree_util.tree_unflatten(found["tree"], wrapped)


def _meta_grads(inputs, *grads):
    """A meta node's backward: each input's gradient is a meta tensor of its shape and dtype
    (a gradient has its input's shape, whatever the op)."""
    return tuple(meta_tensor(t.shape, t.dtype.np) if t._requires_grad else None
                 for t in inputs)


class _GradsUnread:
    """A meta node's context: its backward reads no output gradient, so missing ones are not
    made (they would need storage)."""

    materialize_grads = False


_GRADS_UNREAD = _GradsUnread()


def copy_out():
    """PyTorch's error for reading a meta tensor's values (a copy to another device)."""
    return NotImplementedError("Cannot copy out of meta tensor; no data!")


register_storage_handler(MetaStorage, _run)
