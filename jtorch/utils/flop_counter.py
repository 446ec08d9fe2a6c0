"""``torch.utils.flop_counter``: ``FlopCounterMode``, counting the FLOPs of matrix products and
convolutions run within it, per module (Lightning's model summary shows them).

PyTorch counts the ATen ops its functions decompose into (``aten.mm``, ``aten.addmm``,
``aten.bmm``, ``aten.baddbmm``, ``aten.convolution`` and their backward ops) with the formulas
of its flop registry; jtorch's ops are whole functions (``linear``, ``matmul``, ``conv2d``), so
each is counted here as the ATen op PyTorch would run for it, under that op's name
(``"aten.mm"``...), forward when the op runs and backward when its gradient is computed
(for the operands that need one). Modules are named as PyTorch's ``ModuleTracker`` names them
(the root by its class, ``Root.child.grandchild`` below), ``"Global"`` always.

Not counted (PyTorch counts them): ``einsum`` and ``tensordot`` (its ``aten.bmm``),
``scaled_dot_product_attention`` on a GPU (its fused kernels), custom ``custom_mapping``
formulas, which are accepted and ignored.
"""

from __future__ import annotations

import math
import threading
import warnings
from collections import defaultdict

from .._core import dispatch as _dispatch
from .._core.state import STATE
from .._core.tensor_base import TensorBase
from ..nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook

__all__ = ["FlopCounterMode"]

_ACTIVE = []   # the counters entered (the op observer feeds every one)
_LOCK = threading.Lock()
_PREV_OBSERVER = [None]


def _prod(xs):
    return math.prod(int(x) for x in xs)


def _needs_grad(t):
    return isinstance(t, TensorBase) and t.requires_grad


def _conv_flop_count(x_shape, w_shape, out_shape, transposed):
    """PyTorch's ``conv_flop_count``: 2 * batch * prod(spatial) * prod(filter) * c_out * c_in."""
    batch = x_shape[0]
    conv_shape = (x_shape if transposed else out_shape)[2:]
    c_out, c_in, *filter_size = w_shape
    return _prod(conv_shape) * _prod(filter_size) * batch * c_out * c_in * 2


def _conv_backward_flops(x_shape, w_shape, out_shape, transposed, mask):
    def t(shape):
        return [shape[1], shape[0], *shape[2:]]

    flops = 0
    if mask[0]:
        flops += _conv_flop_count(out_shape, w_shape, x_shape, not transposed)
    if mask[1]:
        if transposed:
            flops += _conv_flop_count(t(out_shape), t(x_shape), t(w_shape), False)
        else:
            flops += _conv_flop_count(t(x_shape), t(out_shape), t(w_shape), False)
    return flops


def _matmul_flops(a, b, out):
    """2 * (output elements) * (contracted size): mm, bmm, addmm and baddbmm alike."""
    return 2 * _prod(out.shape) * int(a.shape[-1])


def _count(name, args, out):
    """(forward op name, forward flops, backward op name, backward flops) of a jtorch op as
    PyTorch counts the ATen ops it runs, or None when PyTorch counts nothing for it."""
    if not isinstance(out, TensorBase):
        return None
    if name in ("mm", "bmm", "addmm", "baddbmm"):
        a, b = args[:2] if name in ("mm", "bmm") else args[1:3]
        flops = _matmul_flops(a, b, out)
        back = flops * (_needs_grad(a) + _needs_grad(b))
        return f"aten.{name}", flops, f"aten.{name[-3:] if name != 'baddbmm' else 'bmm'}", back
    if name == "matmul":
        a, b = args[:2]
        if b.dim() == 1:   # dot and mv: not in PyTorch's registry
            return None
        batched = b.dim() > 2 or (a.dim() > 2 and b.dim() > 2)
        op = "aten.bmm" if batched else "aten.mm"
        flops = _matmul_flops(a, b, out)
        return op, flops, op, flops * (_needs_grad(a) + _needs_grad(b))
    if name == "linear":
        x, w = args[:2]
        bias = args[2] if len(args) > 2 else None
        flops = 2 * _prod(x.shape[:-1]) * int(w.shape[0]) * int(w.shape[1])
        op = "aten.addmm" if bias is not None else "aten.mm"
        return op, flops, "aten.mm", flops * (_needs_grad(x) + _needs_grad(w))
    if name.startswith(("conv1d", "conv2d", "conv3d", "conv_transpose")):
        x, w = args[:2]
        transposed = name.startswith("conv_transpose")
        x_shape, w_shape, out_shape = list(x.shape), list(w.shape), list(out.shape)
        if len(x_shape) == len(w_shape) - 1:   # an unbatched input
            x_shape, out_shape = [1, *x_shape], [1, *out_shape]
        flops = _conv_flop_count(x_shape, w_shape, out_shape, transposed)
        back = _conv_backward_flops(x_shape, w_shape, out_shape, transposed,
                                    (_needs_grad(x), _needs_grad(w)))
        return "aten.convolution", flops, "aten.convolution_backward", back
    return None


def _observe(opdef, args, kwargs, run):
    prev = _PREV_OBSERVER[0]   # a profiler recording too: it observes the op as well
    out = run(opdef, args, kwargs) if prev is None else prev(opdef, args, kwargs, run)
    counted = _count(opdef.name, args, out) if _ACTIVE else None
    if counted is None:
        return out
    op, flops, back_op, back = counted
    for counter in list(_ACTIVE):
        counter._add(op, flops)
    if back and STATE.grad_enabled and out.requires_grad:
        counters = list(_ACTIVE)
        parents = {c: set(c._parents) for c in counters}

        def count_backward(grad):
            for c in counters:
                if c in _ACTIVE:
                    c._add(back_op, back, parents[c])

        out.register_hook(count_backward)
    return out


class FlopCounterMode:
    """A context manager counting the FLOPs run within it (see the module docstring).

    ``get_total_flops()``, ``get_flop_counts()`` (module name -> op name -> FLOPs) and
    ``get_table(depth)``; with ``display`` the table is printed on exit."""

    def __init__(self, mods=None, depth=2, display=True, custom_mapping=None):
        self.flop_counts = defaultdict(lambda: defaultdict(int))
        self.depth = depth
        self.display = display
        if mods is not None:
            warnings.warn("mods argument is not needed anymore, you can stop passing it",
                          stacklevel=2)
        self._parents = ["Global"]
        self._known = {}
        self._seen = set()
        self._handles = []

    def get_total_flops(self) -> int:
        return sum(self.flop_counts["Global"].values())

    def get_flop_counts(self) -> dict:
        return {k: dict(v) for k, v in self.flop_counts.items()}

    def _add(self, op, flops, parents=None):
        for name in set(self._parents if parents is None else parents):
            self.flop_counts[name][op] += flops

    def _name(self, mod):
        if mod not in self._known:
            self._known[mod] = type(mod).__name__
        name = self._known[mod]
        if mod not in self._seen:
            for child_name, child in mod.named_children():
                self._known[child] = f"{name}.{child_name}"
                self._name(child)
            self._seen.add(mod)
        return name

    def _pre(self, mod, args):
        self._parents.append(self._name(mod))

    def _post(self, mod, args, out):
        name = self._name(mod)
        if name in self._parents:
            # the last entry of that name (a module called within itself stays entered)
            del self._parents[len(self._parents) - 1 - self._parents[::-1].index(name)]

    def get_table(self, depth=None):
        if depth is None:
            depth = self.depth
        if depth is None:
            depth = 999999
        import tabulate  # noqa: PLC0415 -- an optional dependency, as in PyTorch

        tabulate.PRESERVE_WHITESPACE = True
        header = ["Module", "FLOP", "% Total"]
        global_flops = self.get_total_flops()
        suffix = _suffix(global_flops)
        subsumed = False

        def rows(mod_name, depth):
            nonlocal subsumed
            total = sum(self.flop_counts[mod_name].values())
            subsumed |= total >= global_flops
            pad = " " * depth
            out = [[pad + mod_name, _with_suffix(total, suffix), _percent(total, global_flops)]]
            for k, v in self.flop_counts[mod_name].items():
                out.append([pad + " - " + str(k), _with_suffix(v, suffix),
                            _percent(v, global_flops)])
            return out

        values = []
        for mod in sorted(self.flop_counts):
            if mod == "Global" or mod.count(".") + 1 > depth:
                continue
            values.extend(rows(mod, mod.count(".")))
        if "Global" in self.flop_counts and not subsumed:
            for value in values:
                value[0] = " " + value[0]
            values = rows("Global", 0) + values
        if not values:
            values = [["Global", "0", "0%"]]
        return tabulate.tabulate(values, headers=header, colalign=("left", "right", "right"))

    def __enter__(self):
        self.flop_counts.clear()
        self._parents = ["Global"]
        self._handles = [register_module_forward_pre_hook(self._pre),
                         register_module_forward_hook(self._post, always_call=True)]
        with _LOCK:
            if not _ACTIVE:
                _PREV_OBSERVER[0] = _dispatch.set_observer(_observe)
            _ACTIVE.append(self)
        return self

    def __exit__(self, *args):
        with _LOCK:
            if self in _ACTIVE:
                _ACTIVE.remove(self)
            if not _ACTIVE:
                _dispatch.set_observer(_PREV_OBSERVER[0])
        for h in self._handles:
            h.remove()
        self._handles = []
        if self.display:
            print(self.get_table(self.depth))
        return False


_SUFFIXES = ["", "K", "M", "B", "T"]


def _suffix(number):
    """PyTorch's: 1.01B shows as 1001M."""
    return _SUFFIXES[max(0, min(len(_SUFFIXES) - 1, (len(str(number)) - 2) // 3))]


def _with_suffix(number, suffix):
    index = _SUFFIXES.index(suffix)
    value = f"{number / 1000 ** index:.3f}"
    return value + suffix


def _percent(num, denom):
    if denom == 0:
        return "0%"
    return f"{num / denom:.2%}"
