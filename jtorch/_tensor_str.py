"""Printing tensors exactly as PyTorch does (``repr``/``str``), and ``set_printoptions``.

Same algorithm as PyTorch's printer, written over NumPy: one formatter per tensor (two for
complex: real and imaginary parts) decides integer mode, scientific mode and the column width
from the finite non-zero values that will be shown; rows wrap at ``linewidth``; tensors with
more than ``threshold`` elements show ``edgeitems`` items at each end of every dimension.
Values are formatted from float64 (exact for every floating dtype), as PyTorch's ``.item()``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math

import jax
import numpy as np

from ._core import dtypes
from ._core.tensor_base import MetaStorage

# c10's ScalarType names by dtype name (legacy type strings 'torch.FloatTensor')
_TYPE = {d.name: d.scalar_name for d in dtypes.ALL}

@dataclasses.dataclass
class _PrinterOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = _PrinterOptions()

_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80),
             "full": (4, math.inf, 3, 80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Set options for printing (torch.set_printoptions).

    Args:
        precision: digits after the point for floating point output (default 4).
        threshold: number of elements above which a tensor is summarized (default 1000).
        edgeitems: items shown at the start and end of each dimension when summarized (3).
        linewidth: characters per line before wrapping (80).
        profile: ``"default"``, ``"short"`` or ``"full"``; explicit options override it.
        sci_mode: True/False forces scientific notation on/off; None (the default, and what
            every call without it restores) chooses automatically.
    """
    if profile is not None and profile in _PROFILES:
        (PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems,
         PRINT_OPTS.linewidth) = _PROFILES[profile]
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict:
    """The current print options, as keyword arguments for ``set_printoptions``."""
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs):
    """Context manager that sets print options and restores the previous ones on exit."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


def type_name(t) -> str:
    """PyTorch's legacy type string of a tensor: ``'torch.FloatTensor'``."""
    return dtypes.legacy_type_name(t.dtype, t.device)


# ------------------------------------------------------------------------------ formatting
class _Formatter:
    """Chooses integer mode, scientific mode and width for the values of one tensor."""

    def __init__(self, values, floating):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        p = PRINT_OPTS.precision
        if not floating:
            for v in set(values.ravel().tolist()):
                self.max_width = max(self.max_width, len(f"{v}"))
            return
        v = values.ravel()
        nz = v[np.isfinite(v) & (v != 0)]
        if nz.size == 0:
            return
        a = np.abs(nz)
        lo, hi = a.min(), a.max()
        self.int_mode = bool(np.all(nz == np.ceil(nz)))
        if PRINT_OPTS.sci_mode is None:
            self.sci_mode = bool(hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4)
        else:
            self.sci_mode = PRINT_OPTS.sci_mode
        uniq = np.unique(nz).tolist()
        if self.sci_mode:
            widths = (len(f"{x:.{p}e}") for x in uniq)
        elif self.int_mode:
            widths = (len(f"{x:.0f}") + 1 for x in uniq)
        else:
            widths = (len(f"{x:.{p}f}") for x in uniq)
        self.max_width = max(self.max_width, *widths)

    def width(self):
        return self.max_width

    def format(self, value):
        if self.floating:
            if self.sci_mode:
                ret = f"{value:{self.max_width}.{PRINT_OPTS.precision}e}"
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{value:.{PRINT_OPTS.precision}f}"
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


def _complex_str(val, f1, f2):
    real = f1.format(val.real)
    imag = (f2.format(val.imag) + "j").lstrip()
    if imag[0] == "+" or imag[0] == "-":
        return real + imag
    return real + "+" + imag


def _fmt(val, f1, f2):
    return f1.format(val) if f2 is None else _complex_str(val, f1, f2)


def _vector_str(a, cut, indent, f1, f2):
    element_length = f1.width() + 2
    if f2 is not None:
        element_length += f2.width() + 1
    per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / element_length))
    vals = a.tolist()
    if cut:
        e = PRINT_OPTS.edgeitems
        data = ([_fmt(v, f1, f2) for v in vals[:e]] + [" ..."]
                + [_fmt(v, f1, f2) for v in vals[-e:]])
    else:
        data = [_fmt(v, f1, f2) for v in vals]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _body(a, cuts, indent, f1, f2):
    """The bracketed text of the (already summarized) array ``a``; ``cuts[d]`` says whether
    dimension d shows ``...`` between its first and last ``edgeitems`` entries."""
    if a.ndim == 0:
        return _fmt(a.item(), f1, f2)
    if a.ndim == 1:
        return _vector_str(a, cuts[0], indent, f1, f2)
    rows = [_body(a[i], cuts[1:], indent + 1, f1, f2) for i in range(a.shape[0])]
    if cuts[0]:
        e = PRINT_OPTS.edgeitems
        rows = rows[:e] + ["..."] + rows[e:]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def _host_edges(arr, summarize):
    """NumPy copy of the entries that will be shown, and per dimension whether it was cut."""
    e = PRINT_OPTS.edgeitems
    cuts = tuple(summarize and n > 2 * e for n in arr.shape)
    if not any(cuts):
        return np.asarray(arr), cuts
    idx = [np.r_[0:e, n - e:n] if c else np.arange(n) for n, c in zip(arr.shape, cuts)]
    on_host = not isinstance(arr, jax.Array) or all(d.platform == "cpu" for d in arr.devices())
    src = np.asarray(arr) if on_host else arr
    return np.asarray(src[np.ix_(*idx)]), cuts


def tensor_body(arr, indent):
    """PyTorch's ``_tensor_str``: the text of a non-empty jax/NumPy array's values."""
    summarize = arr.size > PRINT_OPTS.threshold
    if summarize and not PRINT_OPTS.edgeitems and arr.ndim:
        return "[...]"
    a, cuts = _host_edges(arr, summarize)
    kind = dtypes.from_np(a.dtype).category
    if kind == dtypes.COMPLEX:
        a = a.astype(np.complex128)
        f1, f2 = _Formatter(a.real, True), _Formatter(a.imag, True)
        return _body(a, cuts, indent, f1, f2)
    if kind == dtypes.FLOAT:
        a = a.astype(np.float64)
    return _body(a, cuts, indent, _Formatter(a, kind == dtypes.FLOAT), None)


def _tensor_str(self, indent):
    """PyTorch's private ``torch._tensor_str._tensor_str``: the text of tensor ``self``'s
    values (``"[]"`` when empty), as ``repr`` shows them (libraries' own reprs call it)."""
    arr = self.detach()._value
    return "[]" if arr.size == 0 else tensor_body(arr, indent)


def _add_suffixes(text, suffixes, indent, force_newline=False):
    parts = [text]
    last_line_len = len(text) - text.rfind("\n") + 1
    for s in suffixes:
        if force_newline or last_line_len + len(s) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + s)
            last_line_len = indent + len(s)
            force_newline = False
        else:
            parts.append(", " + s)
            last_line_len += len(s) + 2
    parts.append(")")
    return "".join(parts)


def _is_parameter(cls):
    return any(c.__name__ == "Parameter" and c.__module__.startswith(("jtorch", "torch."))
               for c in cls.__mro__)


def _shows_device(dev):
    """PyTorch prints the device unless it is the (CPU) default; jtorch's extra host devices
    ``cpu:1``, ``cpu:2``... are printed too."""
    return dev.type != "cpu" or bool(dev.index)


def _grad_suffix(t, suffixes):
    if t._node is not None:
        suffixes.append(f"grad_fn=<{t._node.name()}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")


def _sparse_repr(t, prefix, suffixes, show_dtype):
    """PyTorch's text of a sparse COO tensor: its indices and values, then size, nnz, dtype
    and layout on a line of their own."""
    indent = len(prefix)
    idx, vals = t._sparse[:2]
    parts = []
    for name, part in (("indices", idx), ("values", vals)):
        head = f"{name}=tensor("
        arr = part.detach()._value
        if isinstance(arr, jax.core.Tracer):
            body = f"..., size={tuple(arr.shape)}"
        elif arr.size == 0:
            body = f"[], size={tuple(arr.shape)}"
        else:
            body = tensor_body(arr, indent + len(head))
        parts.append(head + body + ")")
    suffixes += [f"size={tuple(t.shape)}", f"nnz={vals.shape[0]}"]
    if show_dtype:
        suffixes.append(f"dtype={t.dtype}")
    suffixes.append("layout=torch.sparse_coo")
    _grad_suffix(t, suffixes)
    return _add_suffixes(prefix + (",\n" + " " * indent).join(parts), suffixes, indent,
                         force_newline=True)


def tensor_repr(t, tensor_contents=None, plain=False):
    """``repr(t)``: PyTorch's text for tensor ``t`` (``plain``: t's class is jtorch.Tensor)."""
    cls = type(t)
    plain = plain or (cls.__name__ == "Parameter" and _is_parameter(cls))
    prefix = "tensor(" if plain else f"{cls.__name__}("
    indent = len(prefix)
    suffixes = []
    if _shows_device(t.device):
        suffixes.append(f"device='{t.device}'")
    dt = t.dtype
    default = dtypes.get_default_dtype()
    has_default = dt in (default, dtypes.default_complex(), dtypes.int64, dtypes.bool_)
    if t._sparse is not None:
        return _sparse_repr(t, prefix, suffixes, not has_default)
    arr = t._value
    if isinstance(arr, (jax.core.Tracer, MetaStorage)):
        # a meta tensor, or one under jax.jit, holds no numbers: PyTorch's meta/fake text
        suffixes.append(f"size={tuple(arr.shape)}")
        if dt is not default:
            suffixes.append(f"dtype={dt}")
        text = "..."
    elif arr.size == 0:
        if arr.ndim != 1:
            suffixes.append(f"size={tuple(arr.shape)}")
        if dt is not default:
            suffixes.append(f"dtype={dt}")
        text = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append(f"size={tuple(arr.shape)}")
        if not has_default:
            suffixes.append(f"dtype={dt}")
        text = tensor_body(arr, indent) if tensor_contents is None else tensor_contents
    if tensor_contents is not None:
        text = tensor_contents
    _grad_suffix(t, suffixes)
    out = _add_suffixes(prefix + text, suffixes, indent)
    if not plain and _is_parameter(cls):
        out = f"Parameter({out})"
    return out


def _str_intern(inp, *, tensor_contents=None):
    """PyTorch's private ``torch._tensor_str._str_intern``: ``repr(inp)``, with
    ``tensor_contents`` as the values' text when given."""
    cls = type(inp)
    return tensor_repr(inp, tensor_contents, plain=cls.__name__ == "Tensor"
                       and cls.__module__.startswith(("jtorch", "torch")))
