"""``torch.layout`` and ``torch.memory_format`` values.

jtorch stores every tensor as a dense jax.Array: ``strided`` is the only layout it has, and the
memory formats are accepted where PyTorch takes them without changing how values are stored.
"""

from __future__ import annotations


def _layout_named(name):
    return _LAYOUTS[name]


def _format_named(name):
    return _FORMATS[name]


class _NamedConstant:
    """A ``torch.<name>`` constant: one object per name, printed and pickled by its name
    (``_by_name`` is the module-level function that finds it again)."""

    __slots__ = ("name",)
    _by_name = None

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"

    def __reduce__(self):
        return (type(self)._by_name, (self.name,))


class layout(_NamedConstant):  # noqa: N801 - PyTorch's name
    """A tensor layout (``torch.strided``, ``torch.sparse_coo``...)."""

    __slots__ = ()
    _by_name = _layout_named


class memory_format(_NamedConstant):  # noqa: N801 - PyTorch's name
    """A memory format (``torch.contiguous_format``, ``torch.channels_last``...)."""

    __slots__ = ()
    _by_name = _format_named


strided = layout("strided")
sparse_coo = layout("sparse_coo")
sparse_csr = layout("sparse_csr")
sparse_csc = layout("sparse_csc")
sparse_bsr = layout("sparse_bsr")
sparse_bsc = layout("sparse_bsc")
jagged = layout("jagged")

contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
# PyTorch's old name for the same object (``torch.legacy_contiguous_format is
# torch.contiguous_format``); phimoe's router passes it to ``empty_like``
legacy_contiguous_format = contiguous_format

_LAYOUTS = {x.name: x for x in (strided, sparse_coo, sparse_csr, sparse_csc, sparse_bsr,
                                sparse_bsc, jagged)}
_FORMATS = {x.name: x for x in (contiguous_format, preserve_format, channels_last,
                                channels_last_3d)}
