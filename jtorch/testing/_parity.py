"""Gradient parity against real PyTorch: ``compare_with_torch`` builds one model (or function)
in jtorch and in PyTorch, gives both the same weights and inputs, runs forward, loss and
backward in each, and reports how far the outputs, the loss and every gradient are apart.

PyTorch (the ``torch`` package) is an optional dependency of jtorch; it is imported only when a
comparison runs. jtorch's own namespace reaches this module through ``register_namespace``
(jtorch's ``__init__`` calls it), because this layer sits below the top-level package.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from ..nn import Module
from ._comparison import default_tolerances

__all__ = ["compare_with_torch", "ParityEntry", "ParityReport"]

_NAMESPACES = {}

# the seed of the fixed random weights of the default loss, sum(output * w)
_DEFAULT_LOSS_SEED = 0


def register_namespace(module):
    """Record jtorch's top-level module, the ``T`` that factories are called with."""
    _NAMESPACES["jtorch"] = module


def _jtorch():
    return _NAMESPACES["jtorch"]


def _torch():
    try:
        import torch  # optional dependency: only the parity checker needs real PyTorch
    except ImportError as e:
        raise ImportError("jtorch.testing.compare_with_torch compares with real PyTorch, "
                          "which is not installed: pip install torch") from e
    return torch


@dataclasses.dataclass(frozen=True)
class ParityEntry:
    """One compared quantity: jtorch's value against PyTorch's.

    Args:
        kind: ``"output"``, ``"loss"``, ``"grad"`` (a parameter's gradient),
            ``"input grad"`` or ``"buffer"`` (after the forward pass).
        name: the parameter's or buffer's ``state_dict`` key, ``"input"`` (``"input[i]"``
            for several inputs), ``"output"`` (``"output[0]"``, ``"output[1]['key']"``... in a
            nested output) or the loss.
        shape: jtorch's shape.
        dtype: jtorch's dtype, without the ``torch.`` prefix.
        max_abs_diff: the largest ``|jtorch - torch|``.
        max_rel_diff: the largest ``|jtorch - torch| / |torch|`` (``inf`` where torch's value
            is 0 and jtorch's is not).
        mismatched: how many elements are beyond ``atol + rtol * |torch|``.
        numel: the number of elements.
        rtol, atol: the tolerances applied.
        note: why the entry fails without element-wise numbers (a shape, dtype or missing
            gradient); empty otherwise.
    """

    kind: str
    name: str
    shape: tuple
    dtype: str
    max_abs_diff: float
    max_rel_diff: float
    mismatched: int
    numel: int
    rtol: float
    atol: float
    note: str = ""

    @property
    def ok(self) -> bool:
        """Whether jtorch agrees with PyTorch within tolerance."""
        return self.mismatched == 0 and not self.note


@dataclasses.dataclass(frozen=True)
class ParityReport:
    """The result of ``compare_with_torch``: one ``ParityEntry`` per compared quantity.

    ``str(report)`` is the table ``print_report`` prints.
    """

    entries: tuple
    torch_version: str

    @property
    def ok(self) -> bool:
        """Whether every entry is within tolerance."""
        return all(e.ok for e in self.entries)

    @property
    def failures(self) -> list:
        """The entries beyond tolerance."""
        return [e for e in self.entries if not e.ok]

    def entry(self, kind, name):
        """The entry of ``kind`` (``"grad"``, ``"output"``...) named ``name``; KeyError if
        there is none."""
        for e in self.entries:
            if e.kind == kind and e.name == name:
                return e
        raise KeyError(f"no {kind!r} entry named {name!r}; there are "
                       f"{[(e.kind, e.name) for e in self.entries]}")

    def __str__(self):
        head = ("what", "name", "shape", "dtype", "max abs diff", "max rel diff", "rtol",
                "atol", "result")
        rows = [head] + [(e.kind, e.name, str(tuple(e.shape)), e.dtype,
                          _number(e.max_abs_diff), _number(e.max_rel_diff), _number(e.rtol),
                          _number(e.atol), _result(e)) for e in self.entries]
        widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
        lines.insert(1, "  ".join("-" * w for w in widths))
        bad = len(self.failures)
        title = (f"jtorch vs torch {self.torch_version}: {len(self.entries)} compared, "
                 + ("all within tolerance" if not bad else f"{bad} beyond tolerance"))
        return "\n".join([title] + lines)


def _number(x):
    return "-" if math.isnan(x) else f"{x:.3g}"


def _result(e):
    if e.note:
        return f"DIFFERS: {e.note}"
    return "ok" if e.ok else f"DIFFERS ({e.mismatched}/{e.numel} elements)"


def _dtype_name(t):
    return str(t.dtype).split(".")[-1]


def _to_numpy(t):
    """A tensor of either framework as a NumPy array to compare in (float64 for real
    floating dtypes, which NumPy may not have, like bfloat16)."""
    t = t.detach().cpu()
    if t.dtype.is_floating_point:
        t = t.double()
    return t.numpy()


def _to_tensor(T, array):
    """A NumPy array as a tensor of namespace ``T``, bit for bit (bfloat16 and other
    ml_dtypes arrays, which PyTorch cannot read, go through float32 exactly)."""
    array = np.asarray(array)
    if array.dtype.kind == "V":
        return T.tensor(array.astype(np.float32)).to(getattr(T, array.dtype.name))
    return T.tensor(array)


def _compare(kind, name, actual, expected, tolerances):
    """The ParityEntry of jtorch's ``actual`` against torch's ``expected`` (tensors or None);
    None when neither exists (a parameter no gradient reached in either)."""
    if actual is None and expected is None:
        return None
    ref = actual if actual is not None else expected
    shape, dtype = tuple(ref.shape), _dtype_name(ref)
    rtol, atol = tolerances or default_tolerances(
        actual.dtype if actual is not None else getattr(_jtorch(), dtype))
    nan = float("nan")
    missing = ("jtorch has none" if actual is None else "torch has none"
               if expected is None else "")
    a = None if actual is None else _to_numpy(actual)
    e = None if expected is None else _to_numpy(expected)
    note = missing or (f"shape {shape} vs torch {tuple(expected.shape)}"
                       if a.shape != e.shape else "")
    if note:
        return ParityEntry(kind, name, shape, dtype, nan, nan, 0, int(np.prod(shape)), rtol,
                           atol, note)
    if _dtype_name(expected) != dtype:
        note = f"dtype {dtype} vs torch {_dtype_name(expected)}"
    equal = (a == e) | (np.isnan(a) & np.isnan(e))  # same NaNs and infinities agree
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        diff = np.where(equal, 0.0, np.abs(a.astype(np.complex128 if a.dtype.kind == "c"
                                                     else np.float64) - e))
        rel = np.where(diff == 0, 0.0, diff / np.abs(e))
        beyond = ~equal & ~(diff <= atol + rtol * np.abs(e))
    return ParityEntry(kind, name, shape, dtype,
                       float(np.nan_to_num(diff, nan=np.inf).max(initial=0.0)),
                       float(np.nan_to_num(rel, nan=np.inf).max(initial=0.0)),
                       int(beyond.sum()), int(a.size), rtol, atol, note)


def _as_list(inputs):
    return list(inputs) if isinstance(inputs, (tuple, list)) else [inputs]


def _flat(out, T, name="output"):
    """(name, tensor) of each tensor in a model's output, through nested tuples, lists and
    dicts: ``output``, ``output[0]``, ``output[1][0]``, ``output['logits']``..."""
    if isinstance(out, T.Tensor):
        return [(name, out)]
    if isinstance(out, dict):
        return [p for k, v in out.items() for p in _flat(v, T, f"{name}[{k!r}]")]
    if isinstance(out, (tuple, list)):
        return [p for i, v in enumerate(out) for p in _flat(v, T, f"{name}[{i}]")]
    return []


def _run(T, model, inputs, loss, target):
    """Forward, loss and backward of ``model`` in namespace ``T`` from NumPy ``inputs``:
    {kind: {name: tensor or None}} for the kinds output, loss, grad, input grad, buffer."""
    args = []
    for x in inputs:
        if isinstance(x, np.ndarray):
            x = _to_tensor(T, x)
            if x.dtype.is_floating_point or x.dtype.is_complex:
                x.requires_grad_(True)
        args.append(x)
    is_module = isinstance(model, T.nn.Module)
    if is_module:
        model.zero_grad(set_to_none=True)
    out = model(*args)
    outs = dict(_flat(out, T))
    if loss is None:
        rng = np.random.default_rng(_DEFAULT_LOSS_SEED)
        terms = [(o * _to_tensor(T, rng.standard_normal(tuple(o.shape))).to(o.dtype)).sum()
                 for o in outs.values() if o.dtype.is_floating_point or o.dtype.is_complex]
        value = sum(terms[1:], terms[0]) if terms else None
    else:
        value = loss(out) if target is None else loss(out, _to_tensor(T, target))
    if value is not None and value.requires_grad:
        value.backward()
    return {
        "output": outs,
        "loss": {"sum(output * w)" if loss is None else "loss": value},
        "grad": {n: p.grad for n, p in model.named_parameters()} if is_module else {},
        "input grad": {(f"input[{i}]" if len(args) > 1 else "input"): x.grad
                       for i, x in enumerate(args)
                       if isinstance(x, T.Tensor) and x.requires_grad},
        "buffer": dict(model.named_buffers()) if is_module else {},
    }


def _per_framework(obj, what, torch):
    """(jtorch's, torch's) from a factory called with each namespace or from a pair."""
    if obj is None:
        return None, None
    if isinstance(obj, tuple) and len(obj) == 2:
        return obj
    if isinstance(obj, (Module, torch.nn.Module)):
        raise TypeError(
            f"compare_with_torch: {what} must be a function of the namespace T (called once "
            "with jtorch and once with torch) or a (jtorch, torch) pair, but got a "
            f"{type(obj).__name__} instance: PyTorch cannot rebuild a jtorch module from it")
    if not callable(obj):
        raise TypeError(f"compare_with_torch: {what} must be callable or a (jtorch, torch) "
                        f"pair, but got {type(obj).__name__}")
    built = obj(_jtorch())
    with torch.random.fork_rng(devices=[]):  # torch's random init is overwritten: no trace
        return built, obj(torch)


def compare_with_torch(model_or_fn, inputs, *, loss_fn=None, target=None, rtol=None,
                       atol=None, print_report=True):
    r"""Check that jtorch computes what PyTorch computes: outputs, loss and gradients.

    Builds the model in jtorch and in PyTorch, copies jtorch's initial weights (its
    ``state_dict``, buffers included) into PyTorch's, runs forward, loss and backward in both
    from the same NumPy inputs and compares, element by element, the output, the loss, each
    parameter's gradient, each floating-point input's gradient and each buffer after the
    forward pass.

    Args:
        model_or_fn: a function of the namespace ``T`` returning the model, called once with
            ``T = jtorch`` and once with ``T = torch``, e.g.
            ``lambda T: T.nn.Sequential(T.nn.Linear(4, 8), T.nn.ReLU(), T.nn.Linear(8, 2))``;
            it may return any callable (``lambda T: T.nn.functional.gelu``), and a module's
            parameters are compared when it is an ``nn.Module``. Or a pair
            ``(jtorch_model, torch_model)`` built by the caller (weights are still copied from
            the first into the second; their existing ``.grad`` are cleared). A bare jtorch
            module is refused (TypeError): PyTorch cannot rebuild an arbitrary jtorch class.
        inputs: the positional arguments of the model: a NumPy array, or a tuple/list of
            them (other values, like ints, are passed unchanged). Floating-point arrays become
            tensors that require grad, so their gradients are compared too.
        loss_fn: a function of ``T`` returning the loss, called as ``loss(output, target)``
            (``loss(output)`` when ``target`` is None), e.g.
            ``lambda T: T.nn.CrossEntropyLoss()``; or a ``(jtorch_loss, torch_loss)`` pair.
            None: the loss is ``sum(output * w)`` with fixed random ``w`` (standard normal,
            seed 0), so every output element gets its own upstream gradient.
        target: a NumPy array passed to the loss (integer arrays stay integer).
        rtol, atol: the tolerances, both or neither; by default PyTorch's
            ``torch.testing.assert_close`` defaults for each entry's dtype (float32: 1.3e-6,
            1e-5; float64: 1e-7, 1e-7; float16: 1e-3, 1e-5; bfloat16: 1.6e-2, 1e-5; exact for
            integers). An element is beyond tolerance when
            ``|jtorch - torch| > atol + rtol * |torch|``.
        print_report: print the report's table.

    Returns:
        ParityReport: ``report.ok``, ``report.failures``, ``report.entry(kind, name)`` and,
        per entry, the largest absolute and relative difference and the count of elements
        beyond tolerance.

    Raises:
        ImportError: PyTorch is not installed (``pip install torch``).

    Example::

        >>> import numpy as np
        >>> from jtorch.testing import compare_with_torch
        >>> x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
        >>> report = compare_with_torch(
        ...     lambda T: T.nn.Sequential(T.nn.Linear(4, 8), T.nn.ReLU(), T.nn.Linear(8, 2)),
        ...     x, loss_fn=lambda T: T.nn.CrossEntropyLoss(), target=np.array([0, 1, 1, 0, 1]),
        ...     print_report=False)
        >>> report.ok
        True

    The same check runs from the command line on a script: ``python -m jtorch.parity
    script.py`` (see ``jtorch.parity``).

    Differences from PyTorch:
        - PyTorch has no such function; this is jtorch's own.
        - Unlike ``assert_close``, NaNs at the same places agree (the frameworks behave the
          same), and the report lists every quantity instead of raising at the first.
        - Randomness inside the model (dropout in training mode) is not shared between the
          frameworks: put such models in ``eval()`` mode in the factory.
    """
    if (rtol is None) != (atol is None):
        raise ValueError("Both 'rtol' and 'atol' must be either specified or omitted, but got "
                         f"no {'rtol' if rtol is None else 'atol'}.")
    torch = _torch()
    jt_model, th_model = _per_framework(model_or_fn, "model_or_fn", torch)
    jt_loss, th_loss = _per_framework(loss_fn, "loss_fn", torch)
    if isinstance(jt_model, Module) and isinstance(th_model, torch.nn.Module):
        th_model.load_state_dict({k: _to_tensor(torch, v.detach().cpu().numpy())
                                  for k, v in jt_model.state_dict().items()})
    inputs = _as_list(inputs)
    inputs = [x.detach().cpu().numpy() if isinstance(x, (_jtorch().Tensor, torch.Tensor))
              else x for x in inputs]
    tolerances = None if rtol is None else (rtol, atol)
    jt = _run(_jtorch(), jt_model, inputs, jt_loss, target)
    th = _run(torch, th_model, inputs, th_loss, target)
    pairs = []
    for kind in ("output", "loss", "grad", "input grad", "buffer"):
        for name in dict.fromkeys([*jt[kind], *th[kind]]):
            pairs.append((kind, name, jt[kind].get(name), th[kind].get(name)))
    entries = [_compare(*p, tolerances) for p in pairs]
    report = ParityReport(tuple(e for e in entries if e is not None), torch.__version__)
    if print_report:
        print(report)
    return report


def compare_case_with_torch(parity_case, *, rtol=None, atol=None, print_report=True):
    """``compare_with_torch`` on what ``parity_case(T)`` returns: ``(model, inputs)``,
    ``(model, inputs, loss_fn)`` or ``(model, inputs, loss_fn, target)``, where ``model`` and
    ``loss_fn`` are built from ``T`` and ``inputs``/``target`` are NumPy arrays. It is called
    with jtorch and with torch; the inputs must come out the same (seed any generator)."""
    torch = _torch()
    cases = []
    for T in (_jtorch(), torch):
        case = parity_case(T)
        if not isinstance(case, (tuple, list)) or not 2 <= len(case) <= 4:
            raise TypeError("parity_case(T) must return (model, inputs), (model, inputs, "
                            "loss_fn) or (model, inputs, loss_fn, target), but got "
                            f"{type(case).__name__}")
        cases.append(list(case) + [None] * (4 - len(case)))
    (jm, inputs, jl, target), (tm, th_inputs, tl, th_target) = cases
    for mine, theirs in ((inputs, th_inputs), (target, th_target)):
        mine, theirs = _as_list(mine), _as_list(theirs)
        if len(mine) != len(theirs) or not all(
                np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)
                for a, b in zip(mine, theirs)):
            raise ValueError("parity_case(T) returned different inputs or targets for "
                             "T=jtorch and T=torch: seed the generator that makes them")
    return compare_with_torch((jm, tm), inputs, loss_fn=None if jl is None else (jl, tl),
                              target=target, rtol=rtol, atol=atol, print_report=print_report)
