"""torch.nn.utils._per_sample_grad.call_for_per_sample_grads: a module's forward that fills
each trainable parameter's ``grad_sample`` with per-sample gradients on backward (Opacus's
"ew" grad-sample mode calls it).

PyTorch swaps in ``ExpandedWeight`` tensors whose op overrides compute per-sample gradients.
jtorch gives each sample its own copy of the parameters (a leaf of shape ``(B, *p.shape)``)
and maps the module over the batch with ``torch.func.vmap``: the gradient of that leaf is the
per-sample gradient. The same values for the layers ExpandedWeight supports (Linear, convs,
Embedding, the norms but BatchNorm); where PyTorch raises for a module that mixes samples
(BatchNorm in training), jtorch computes each sample on its own.
"""

from __future__ import annotations

import functools

from ..._tensor import Tensor
from ...func import functional_call, vmap
from ...utils import _pytree as pytree
from ..modules.module import Module

__all__ = ["call_for_per_sample_grads"]


def _batch_size(leaves, batch_dim):
    batch_size = None
    for arg in leaves:
        if not isinstance(arg, Tensor):
            continue
        arg_batch_size = arg.shape[batch_dim]
        if batch_size is not None and batch_size != arg_batch_size:
            raise RuntimeError(
                "When computing batch size, found at least one input with batch size "
                f"{batch_size} and one with batch size {arg_batch_size}. Please specify it "
                "explicitly using the batch size kwarg in call_for_per_sample_grads")
        batch_size = arg_batch_size
    if batch_size is None:
        raise RuntimeError(
            "Unable to find a tensor in the passed args and kwargs. They may not be pytree-able "
            "and so ExpandedWeights cannot compute the batch size from the inputs. Please specify "
            "it explicitly")
    return batch_size


def _store_grad_sample(param, scale):
    def hook(grad):
        grad = grad * scale if scale != 1 else grad
        old = getattr(param, "grad_sample", None)
        param.grad_sample = grad if old is None else old + grad
    return hook


def call_for_per_sample_grads(module, *, batch_size=None, loss_reduction="sum",
                              batch_first=True):
    """Return a forward function for ``module`` whose backward fills each trainable
    parameter's ``grad_sample`` (shape ``(batch_size, *param.shape)``) instead of ``grad``;
    with ``loss_reduction="mean"`` the per-sample gradients are scaled by the batch size."""
    if loss_reduction not in ["sum", "mean"]:
        raise RuntimeError(
            f"Expected loss_reduction argument to be sum or mean, got {loss_reduction}")
    if not isinstance(module, Module):
        raise RuntimeError(f"Module passed must be nn.Module, got {type(module).__name__}")
    if not (batch_size is None or isinstance(batch_size, int)):
        raise RuntimeError(
            f"Batch size passed must be None or an integer, got {type(batch_size).__name__}")
    if batch_size is not None and batch_size < 1:
        raise RuntimeError(f"Batch size must be positive, got {batch_size}")
    for weight in module.parameters():
        if getattr(weight, "grad_sample", None) is not None:
            raise RuntimeError(
                "Current Expanded Weights accumulates the gradients, which will be incorrect for "
                f"multiple calls without clearing gradients. Please clear out the grad_sample "
                f"parameter of {weight} or post an issue to pytorch/pytorch to prioritize correct "
                "behavior")
    batch_dim = 0 if batch_first else 1

    @functools.wraps(module.forward)
    def wrapper(*args, **kwargs):
        leaves, spec = pytree.tree_flatten((args, kwargs))
        size = batch_size if batch_size is not None else _batch_size(leaves, batch_dim)
        scale = size if loss_reduction == "mean" else 1
        copies = {}
        for name, p in module.named_parameters():
            if p.requires_grad:
                leaf = p.detach().unsqueeze(0).expand(size, *p.shape).requires_grad_()
                leaf.register_hook(_store_grad_sample(p, scale))
                copies[name] = leaf
        dims = tuple(batch_dim if isinstance(x, Tensor) else None for x in leaves)

        def one_sample(params, sample_leaves):
            sample_leaves = [x.unsqueeze(batch_dim) if d is not None else x
                             for x, d in zip(sample_leaves, dims)]
            a, kw = pytree.tree_unflatten(sample_leaves, spec)
            out = functional_call(module, params, a, kw)
            return pytree.tree_map(
                lambda t: t.squeeze(batch_dim) if isinstance(t, Tensor) else t, out)

        return vmap(one_sample, in_dims=(0, dims), out_dims=batch_dim)(copies, tuple(leaves))

    return wrapper
