"""The modules ``torch._C._linalg``, ``torch._C._special`` and ``torch._C._fft``: PyTorch's
bindings of torch.linalg's, torch.special's and torch.fft's functions, named with the
namespace as a prefix (``torch._C._linalg.linalg_vector_norm`` is
``torch.linalg.vector_norm``). torch.fx names a call of one so in graphs and generated code."""

from __future__ import annotations


def prefixed_names(namespace, prefix, module_name):
    """``(__getattr__, __dir__)`` of a module whose ``<prefix><name>`` is ``namespace.<name>``."""
    def __getattr__(name):
        if name.startswith(prefix) and name[len(prefix):] in namespace.__all__:
            return getattr(namespace, name[len(prefix):])
        raise AttributeError(f"module {module_name!r} has no attribute {name!r}")

    def __dir__():
        return [prefix + n for n in namespace.__all__]

    return __getattr__, __dir__
