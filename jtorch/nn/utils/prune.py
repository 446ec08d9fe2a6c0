"""torch.nn.utils.prune: pruning a module's tensors with masks, ported from PyTorch 2.13.

Pruning ``module.weight`` moves the parameter to ``weight_orig``, registers the mask as the
buffer ``weight_mask`` (so ``state_dict()`` has PyTorch's keys) and makes ``weight`` a plain
attribute, ``weight_mask * weight_orig``, recomputed before every forward by a forward pre-hook
(the pruning method itself). Pruning the same tensor again combines the methods in a
:class:`PruningContainer`, each new mask computed on what the previous ones left; ``remove``
makes the pruned tensor a plain parameter again.

The deterministic methods (L1, Ln, custom masks, global) give PyTorch's masks; the random ones
draw from jtorch's generator, so which entries go differs from PyTorch with the same seed
(how many, and in what structure, does not).
"""

from __future__ import annotations

import numbers
import sys
from abc import ABC, abstractmethod
from collections.abc import Iterable

from ..._core.layout import contiguous_format
from ..._ops.creation import ones_like, zeros_like
from .convert_parameters import parameters_to_vector

_TOP = __name__.split(".", 1)[0]   # "jtorch"

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured",
           "L1Unstructured", "RandomStructured", "LnStructured", "CustomFromMask", "identity",
           "random_unstructured", "l1_unstructured", "random_structured", "ln_structured",
           "global_unstructured", "custom_from_mask", "remove", "is_pruned"]


class BasePruningMethod(ABC):
    """The base of the pruning methods: subclasses define ``compute_mask`` and
    ``PRUNING_TYPE`` ("unstructured", "structured" or "global"). An instance is the forward
    pre-hook that recomputes the pruned tensor."""

    _tensor_name: str

    def __call__(self, module, inputs):
        """The forward pre-hook: ``module.<name> = mask * orig``."""
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The new mask of ``t`` given the mask left by earlier pruning (``default_mask``)."""

    def apply_mask(self, module):
        """The pruned tensor: the module's mask times its original tensor."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune ``module.<name>`` with a new ``cls(*args, **kwargs)``, composed with the
        pruning already there; returns the method (or container) that is now the hook.

        Args:
            importance_scores: scores that decide what to prune (default: the tensor itself),
                of the tensor's shape.
        """
        method = _composite_method(cls, module, name, *args, **kwargs)
        orig = getattr(module, name)
        if importance_scores is not None:
            if importance_scores.shape != orig.shape:
                raise AssertionError(
                    f"importance_scores should have the same shape as parameter {name} of "
                    f"{module}, got {importance_scores.shape} vs {orig.shape}")
        else:
            importance_scores = orig
        if not isinstance(method, PruningContainer):  # first pruning: keep the original
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone(
                memory_format=contiguous_format)
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if not isinstance(method, PruningContainer):  # put the parameter back
                orig = getattr(module, name + "_orig")
                module.register_parameter(name, orig)
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """``t`` times the mask this method computes for it."""
        if importance_scores is not None:
            if importance_scores.shape != t.shape:
                raise AssertionError("importance_scores should have the same shape as tensor "
                                     f"t, got {importance_scores.shape} vs {t.shape}")
        else:
            importance_scores = t
        default_mask = default_mask if default_mask is not None else ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module) -> None:
        """Make the pruned tensor permanent: ``module.<name>`` becomes the parameter
        ``<name>_orig`` holding ``mask * orig``; the mask buffer goes."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be "
                                 "removed")
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = weight.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


def _composite_method(cls, module, name, *args, **kwargs):
    """The new method, or the container of the methods already pruning ``name`` and it (whose
    old hook is removed)."""
    old_method = None
    found = 0
    hooks_to_remove = []
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            old_method = hook
            hooks_to_remove.append(k)
            found += 1
    if found > 1:
        raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} of "
                             f"module {module}. Use a PruningContainer.")
    for k in hooks_to_remove:
        del module._forward_pre_hooks[k]
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if old_method is not None:
        if isinstance(old_method, PruningContainer):
            old_method.add_pruning_method(method)
            method = old_method
        elif isinstance(old_method, BasePruningMethod):
            container = PruningContainer(old_method)
            container.add_pruning_method(method)
            method = container
    return method


class PruningContainer(BasePruningMethod):
    """A sequence of pruning methods on one tensor, applied one after another: the last one
    prunes what the earlier ones kept."""

    def __init__(self, *args) -> None:
        self._pruning_methods: tuple[BasePruningMethod, ...] = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method) -> None:
        """Append ``method`` (which must act on this container's tensor)."""
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError("Can only add pruning methods acting on the parameter named "
                             f"'{self._tensor_name}' to PruningContainer {self}. Found "
                             f"'{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        """The last method's mask computed on the entries (unstructured), channels
        (structured) or whole tensor (global) that ``default_mask`` keeps."""
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        if method.PRUNING_TYPE == "unstructured":
            slc = default_mask == 1
        elif method.PRUNING_TYPE == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to have '
                                     "the attribute `dim` defined.")
            n_dims = t.dim()
            dim = method.dim
            if dim < 0:
                dim = n_dims + dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {n_dims}")
            keep_channel = default_mask.sum(dim=[d for d in range(n_dims) if d != dim]) != 0
            slc = [slice(None)] * n_dims
            slc[dim] = keep_channel
            slc = tuple(slc)
        elif method.PRUNING_TYPE == "global":
            slc = (slice(None),) * len(t.shape)
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {method.PRUNING_TYPE}")
        partial_mask = method.compute_mask(t[slc], default_mask=default_mask[slc])
        new_mask[slc] = partial_mask.to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    """Prunes nothing: the mask is all ones."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


class _PrunesAmount(BasePruningMethod):
    """A method that prunes ``amount``: a fraction in [0, 1] or a count."""

    def __init__(self, amount) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount


class RandomUnstructured(_PrunesAmount):
    """Prunes ``amount`` (a fraction, or a count) of the entries, chosen at random."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        # torch.rand_like, looked up at each call as PyTorch's prune does (a program that
        # replaces torch's random functions replaces these draws too)
        return _zero_top(self.amount, t, default_mask, lambda: _torch().rand_like(t),
                         largest=True)

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(_PrunesAmount):
    """Prunes ``amount`` of the entries with the smallest absolute values."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return _zero_top(self.amount, t, default_mask, t.abs, largest=False)

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(_PrunesAmount):
    """Prunes ``amount`` of the channels along ``dim``, chosen at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1) -> None:
        super().__init__(amount)
        self.dim = dim

    def compute_mask(self, t, default_mask):
        tensor_size, nparams_toprune = _channels_to_prune(t, self.amount, self.dim)
        if nparams_toprune == 0:
            return default_mask
        prob = _torch().rand(tensor_size)
        threshold = prob.kthvalue(k=nparams_toprune).values
        return _channel_mask(t, self.dim, prob > threshold, default_mask)

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(_PrunesAmount):
    """Prunes ``amount`` of the channels along ``dim`` with the smallest L``n`` norms."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1) -> None:
        super().__init__(amount)
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        tensor_size, nparams_toprune = _channels_to_prune(t, self.amount, self.dim)
        norm = _compute_norm(t, self.n, self.dim)
        topk = norm.topk(k=tensor_size - nparams_toprune, largest=True)
        if nparams_toprune == 0:
            return default_mask
        return _channel_mask(t, self.dim, topk.indices, default_mask)

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes with a given mask (multiplied into the current one)."""

    PRUNING_TYPE = "global"

    def __init__(self, mask) -> None:
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match self.mask "
                                 f"shape {self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


def _torch():
    """The top-level jtorch module, read at call time (a program may replace its functions)."""
    return sys.modules[_TOP]


def _zero_top(amount, t, default_mask, scores, largest):
    """``default_mask`` with the ``amount`` entries of largest (or smallest) ``scores()``
    zeroed (scores are computed only when something is pruned)."""
    tensor_size = t.nelement()
    nparams_toprune = _compute_nparams_toprune(amount, tensor_size)
    _validate_pruning_amount(nparams_toprune, tensor_size)
    mask = default_mask.clone(memory_format=contiguous_format)
    if nparams_toprune != 0:
        topk = scores().view(-1).topk(k=nparams_toprune, largest=largest)
        mask.view(-1)[topk.indices] = 0
    return mask


def _channels_to_prune(t, amount, dim):
    """``(size of dim, how many of its channels to prune)`` for the structured methods,
    after PyTorch's checks of ``t``, ``dim`` and ``amount``."""
    _validate_structured_pruning(t)
    _validate_pruning_dim(t, dim)
    tensor_size = t.shape[dim]
    nparams_toprune = _compute_nparams_toprune(amount, tensor_size)
    _validate_pruning_amount(nparams_toprune, tensor_size)
    return tensor_size, nparams_toprune


def _channel_mask(t, dim, channels, default_mask):
    """``default_mask`` times a mask of ones on the ``channels`` (a bool mask or indices) of
    ``dim`` and zeros elsewhere."""
    mask = zeros_like(t)
    slc = [slice(None)] * len(t.shape)
    slc[dim] = channels
    mask[tuple(slc)] = 1
    mask *= default_mask.to(dtype=mask.dtype)
    return mask


# ------------------------------------------------------------------ the functions
def identity(module, name):
    """Prune nothing, but set ``module`` up as pruned (``<name>_orig``, ``<name>_mask``)."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Prune ``amount`` of the entries of ``module.<name>`` at random."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Prune ``amount`` of the entries of ``module.<name>`` with the smallest absolute values
    (of ``importance_scores`` when given)."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Prune ``amount`` of the channels along ``dim`` of ``module.<name>`` at random."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Prune ``amount`` of the channels along ``dim`` of ``module.<name>`` with the smallest
    L``n`` norms (``n``: an int, float, inf, -inf or "fro")."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs) -> None:
    """Prune the ``(module, name)`` pairs of ``parameters`` together: ``pruning_method``
    (an unstructured method class, built with ``kwargs``) decides on all their entries at
    once; each tensor gets its share as a :class:`CustomFromMask`.

    Args:
        importance_scores: ``{(module, name): scores}`` (default: the tensors themselves).
    """
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    relevant_importance_scores = parameters_to_vector(
        [importance_scores.get((module, name), getattr(module, name))
         for module, name in parameters])
    default_mask = parameters_to_vector(
        [getattr(module, name + "_mask", ones_like(getattr(module, name)))
         for module, name in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
                        f"Found method {pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    final_mask = container.compute_mask(relevant_importance_scores, default_mask)
    pointer = 0
    for module, name in parameters:
        param = getattr(module, name)
        num_param = param.numel()
        param_mask = final_mask[pointer:pointer + num_param].view_as(param)
        custom_from_mask(module, name, mask=param_mask)
        pointer += num_param


def custom_from_mask(module, name, mask):
    """Prune ``module.<name>`` with ``mask`` (zeros prune)."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module, name):
    """Make the pruning of ``module.<name>`` permanent and drop its hook, mask and ``_orig``."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning "
                     "can be removed")


def is_pruned(module) -> bool:
    """Whether ``module`` or a submodule has a pruning hook."""
    for _, submodule in module.named_modules():
        for hook in submodule._forward_pre_hooks.values():
            if isinstance(hook, BasePruningMethod):
                return True
    return False


# ------------------------------------------------------------------ checks
def _validate_pruning_amount_init(amount) -> None:
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral)
            and (float(amount) > 1.0 or float(amount) < 0.0)):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a "
                         "non-negative integer")


def _validate_pruning_amount(amount, tensor_size) -> None:
    if isinstance(amount, numbers.Integral) and amount > tensor_size:
        raise ValueError(f"amount={amount} should be smaller than the number of parameters to "
                         f"prune={tensor_size}")


def _validate_structured_pruning(t) -> None:
    shape = t.shape
    if len(shape) <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional tensors. "
                         f"Found tensor of shape {shape} with {len(shape)} dims")


def _compute_nparams_toprune(amount, tensor_size):
    if isinstance(amount, numbers.Integral):
        return amount
    return round(amount * tensor_size)


def _validate_pruning_dim(t, dim) -> None:
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _compute_norm(t, n, dim):
    """The L``n`` norm of each channel along ``dim`` (over all the other dims)."""
    dims = list(range(t.dim()))
    if dim < 0:
        dim = dims[dim]
    dims.remove(dim)
    return t.norm(p=n, dim=dims)
