"""``torch.nn.modules.lazy.LazyModuleMixin``: modules whose parameter shapes come from their
first input.

A lazy module holds :class:`UninitializedParameter`/:class:`UninitializedBuffer` entries until
its first call: a forward pre-hook runs ``initialize_parameters(*args, **kwargs)``, which
materializes them and initialises them as the eager layer would, then removes itself and turns
the module into ``cls_to_become`` (``LazyLinear`` becomes ``Linear``). Loading a state_dict
into a lazy module materializes its entries with the checkpoint's shapes first
(``_state_dict._load_from_state_dict`` does that for every lazy entry). The lazy layers
themselves live with their eager classes: ``LazyLinear`` in linear.py, ``LazyConv*`` in
conv.py, ``LazyBatchNorm*`` in batchnorm.py, ``LazyInstanceNorm*`` in instancenorm.py.
"""

from __future__ import annotations

import itertools

from ..parameter import UninitializedParameter, is_lazy

__all__ = ["LazyModuleMixin"]


class LazyModuleMixin:
    """Mixed in before the eager layer's class (``class LazyLinear(LazyModuleMixin, Linear)``);
    the subclass defines ``initialize_parameters`` and ``cls_to_become``."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters,
                                                               with_kwargs=True)

    def initialize_parameters(self, *args, **kwargs):
        """Materialize and initialise the parameters from the first input's shape."""
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self):
        """Whether a parameter or buffer of this module is still uninitialized."""
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(),
                                                       self._buffers.values()))

    def _infer_parameters(self, module, args, kwargs=None):
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        del module._initialize_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become


def uninitialized_weight_and_bias(module, bias, device, dtype):
    """Make ``module.weight`` (and ``module.bias`` if ``bias``) uninitialized parameters: the
    lazy Linear and convolutions build their eager layer with no bias and in-size 0 first."""
    module.weight = UninitializedParameter(device=device, dtype=dtype)
    if bias:
        module.bias = UninitializedParameter(device=device, dtype=dtype)


def lazy_variant(eager, bases, copied=()):
    """The class ``Lazy<eager>`` with ``bases`` (a lazy mixin first), which becomes ``eager``
    once initialised; ``copied`` names methods of ``eager`` to reuse (its input checks)."""
    name = "Lazy" + eager.__name__
    namespace = {"cls_to_become": eager, "__module__": eager.__module__, "__qualname__": name,
                 "__doc__": f"``torch.nn.{name}``: a {eager.__name__} whose input size comes "
                            "from its first input."}
    namespace.update((method, getattr(eager, method)) for method in copied)
    return type(name, bases, namespace)
