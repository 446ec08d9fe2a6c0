"""Parity helpers: run the same code in PyTorch and jtorch and compare everything.

``parity(fn, *args)`` calls ``fn(torch, *torch_args)`` and ``fn(jtorch, *jtorch_args)``, where
NumPy arrays among ``args`` become tensors of each library (floating ones requiring grad), and
compares output values and dtypes, then the gradients of every differentiable input after
backward from a random cotangent. With ``jit=True`` (default) it may also run the jtorch forward
and backward under ``jax.jit``, with every Tensor holding a tracer, and compare with eager: on a
deterministic sample of the cases that covers every op (see :func:`check_jit`).
"""

from __future__ import annotations

import collections
import contextlib
import os
import warnings

import jax
import numpy as np
import pytest
import torch

import jtorch
from jtorch._core import dispatch as jdispatch, xla_options

# names of the jtorch ops exercised inside parity() (dumped for docs/ops.md by conftest.py)
PARITY_OPS: set = set()
# the jit re-run's sample (see check_jit): the ops dispatched by parity cases that ask for it
# (jit=True), the ops dispatched inside jit re-runs, and per test file the ops re-run there
JIT_WANTED: set = set()
JIT_TRACED: set = set()
JIT_TRACED_IN: dict[str, set] = collections.defaultdict(set)   # test file -> ops re-run

TOL = {np.float16: (1e-2, 1e-2), np.float32: (1e-5, 1e-5), np.float64: (1e-10, 1e-10),
       np.complex64: (1e-5, 1e-5), np.complex128: (1e-10, 1e-10)}


def rand(*shape, dtype=np.float32, low=-2.0, high=2.0, seed=None):
    """Random NumPy input; integer dtypes draw from [low, high)."""
    rng = np.random.default_rng(seed) if seed is not None else np.random
    if np.dtype(dtype) == np.bool_:
        return rng.random(shape) > 0.5
    if np.issubdtype(dtype, np.integer):
        draw = rng.integers if seed is not None else rng.randint
        return np.asarray(draw(int(low), int(high), size=shape)).astype(dtype)
    if np.issubdtype(dtype, np.complexfloating):
        return (rng.uniform(low, high, shape) + 1j * rng.uniform(low, high, shape)).astype(dtype)
    return np.asarray(rng.uniform(low, high, shape)).astype(dtype)


class NonContig:
    """Marks an input to be passed as a non-contiguous (transposed) view in both libraries."""

    def __init__(self, array):
        self.array = np.ascontiguousarray(np.swapaxes(array, -1, -2))


class NoGrad:
    """Marks a floating input that must not require grad."""

    def __init__(self, array):
        self.array = array


def _is_float(a):
    return np.issubdtype(a.dtype, np.floating) or np.issubdtype(a.dtype, np.complexfloating)


def _convert(lib, a, grad):
    if isinstance(a, NonContig):
        t = lib.tensor(a.array)
        if grad and _is_float(a.array):
            t.requires_grad_(True)
        return t.transpose(-1, -2), t
    if isinstance(a, NoGrad):
        t = lib.tensor(a.array)
        return t, None
    if isinstance(a, np.ndarray):
        t = lib.tensor(a)
        if grad and _is_float(a):
            t.requires_grad_(True)
            return t, t
        return t, None
    if isinstance(a, (list, tuple)) and any(isinstance(x, (np.ndarray, NonContig)) for x in a):
        pairs = [_convert(lib, x, grad) for x in a]
        return type(a)(p[0] for p in pairs), [p[1] for p in pairs]
    return a, None


def _leaves(x):
    if isinstance(x, (list, tuple)):
        out = []
        for e in x:
            out.extend(_leaves(e))
        return out
    return [x] if x is not None else []


def _outputs(out):
    if isinstance(out, (list, tuple)):
        res = []
        for o in out:
            res.extend(_outputs(o))
        return res
    return [out]


def _np(x):
    if isinstance(x, torch.Tensor):
        x = x.detach().resolve_conj().resolve_neg()  # torch.fft's ihfft returns a conj view
        if x.dtype == torch.bfloat16:
            x = x.float()
        return x.numpy()
    if isinstance(x, jtorch.Tensor):
        x = x.detach()
        if x.dtype == jtorch.bfloat16:
            x = x.float()
        return x.numpy()
    return np.asarray(x)


def assert_close(actual, expected, atol=None, rtol=None, check_dtype=True, msg=""):
    """Compare a jtorch result with a torch result (tensors, tuples, numbers)."""
    if isinstance(expected, (list, tuple)):
        assert isinstance(actual, (list, tuple)), f"{msg}: expected a sequence, got {actual!r}"
        assert len(actual) == len(expected), f"{msg}: length {len(actual)} != {len(expected)}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_close(a, e, atol, rtol, check_dtype, f"{msg}[{i}]")
        return
    if isinstance(expected, torch.Tensor):
        assert isinstance(actual, jtorch.Tensor), f"{msg}: expected a Tensor, got {actual!r}"
        if check_dtype:
            assert str(actual.dtype) == str(expected.dtype), \
                f"{msg}: dtype {actual.dtype} != {expected.dtype}"
        assert tuple(actual.shape) == tuple(expected.shape), \
            f"{msg}: shape {tuple(actual.shape)} != {tuple(expected.shape)}"
    e, a = _np(expected), _np(actual)
    if a.dtype.kind in "fc" or e.dtype.kind in "fc":
        base = e.dtype.type if e.dtype.kind in "fc" else np.float32
        dat, drt = TOL.get(base, (1e-5, 1e-5))
        np.testing.assert_allclose(a, e, atol=dat if atol is None else atol,
                                   rtol=drt if rtol is None else rtol, equal_nan=True,
                                   err_msg=msg)
    else:
        np.testing.assert_array_equal(a, e, err_msg=msg)


def _op_recorder(names):
    """An op observer (jtorch._core.dispatch.set_observer) adding each op's name to ``names``."""
    def observe(opdef, args, kwargs, run):
        names.add(opdef.name)
        return run(opdef, args, kwargs)
    return observe


def parity(fn, *args, grad=True, atol=None, rtol=None, jit=True, check_dtype=True,
           grad_atol=None, grad_rtol=None, cotangent_seed=0):
    """Run ``fn(lib, *args)`` with torch and jtorch; compare outputs and input gradients."""
    t_args = [_convert(torch, a, grad) for a in args]
    j_args = [_convert(jtorch, a, grad) for a in args]
    t_out = fn(torch, *[a for a, _ in t_args])
    ops = set()
    prev = jdispatch.set_observer(_op_recorder(ops))
    try:
        j_out = fn(jtorch, *[a for a, _ in j_args])
    finally:
        jdispatch.set_observer(prev)
    PARITY_OPS.update(ops)
    assert_close(j_out, t_out, atol, rtol, check_dtype, "output")
    t_leaves = _leaves([lv for _, lv in t_args])
    j_leaves = _leaves([lv for _, lv in j_args])
    outs_t = [o for o in _outputs(t_out) if isinstance(o, torch.Tensor) and o.requires_grad]
    outs_j = [o for o in _outputs(j_out) if isinstance(o, jtorch.Tensor) and o.requires_grad]
    assert len(outs_t) == len(outs_j), \
        f"{len(outs_j)} jtorch outputs require grad, torch has {len(outs_t)}"
    if grad and outs_t:
        rng = np.random.default_rng(cotangent_seed)
        cts = [rng.uniform(-1, 1, tuple(o.shape)) for o in outs_t]
        torch.autograd.backward(outs_t, [torch.tensor(c, dtype=o.dtype)
                                         for c, o in zip(cts, outs_t)])
        jtorch.autograd.backward(outs_j, [jtorch.tensor(c, dtype=o.dtype)
                                          for c, o in zip(cts, outs_j)])
        for i, (tl, jl) in enumerate(zip(t_leaves, j_leaves)):
            if tl.grad is None:
                assert jl.grad is None or not np.any(_np(jl.grad)), f"grad[{i}] should be None"
                continue
            assert jl.grad is not None, f"grad[{i}] is None in jtorch"
            assert_close(jl.grad, tl.grad, grad_atol or atol, grad_rtol or rtol, check_dtype,
                         f"grad[{i}]")
    if jit:
        JIT_WANTED.update(ops)
        traced_here = JIT_TRACED_IN[_test_module()]
        if not ops or not ops <= traced_here:
            traced = check_jit(fn, args, j_out, j_leaves, grad and bool(outs_t), cotangent_seed)
            traced_here.update(traced)
            JIT_TRACED.update(traced)
    return j_out


def _test_module():
    """The file of the running test (pytest sets PYTEST_CURRENT_TEST: 'path::name (call)')."""
    return os.environ.get("PYTEST_CURRENT_TEST", "").split("::")[0]


def jit_coverage_gaps():
    """Ops that a parity case asking for the jit re-run dispatched, but no jit re-run did."""
    return JIT_WANTED - JIT_TRACED


def check_jit(fn, args, eager_out, eager_leaves, grad, cotangent_seed=0):
    """Run ``fn(jtorch, ...)`` forward and backward under jax.jit and compare with eager.

    Returns the names of the ops dispatched while tracing.

    ``parity`` runs it on a deterministic sample of its cases that covers every op (issue 8):
    a case is re-run under jit when it dispatches (eagerly) an op that no earlier re-run of the
    same test file traced; cases that dispatch no op (factories) are always re-run. The tests
    of a file run in one process in collection order (``--dist loadfile``, set in
    pyproject.toml; or no xdist), so the sample depends only on which tests of the file are
    selected: the same cases every run. Every op that a parity case with ``jit=True``
    dispatches is traced under jit at least once per file; ``conftest.py`` asserts that at the
    end of the session (``jit_coverage_gaps``). The cases left out are compared eagerly only;
    their ops are traced, compiled and differentiated under jit by an earlier case of the file
    (combinations of ops under jit are what jtorch.compile's own tests check). Re-running
    every case took a third of the parity tests' time.

    The program compiles with jtorch's op-kernel compiler options (xla_options): the re-run
    checks tracing, differentiation and values, which XLA's emitters do not change, and those
    options compile it in about 60% of the time.
    """
    arrays = []

    def collect(a):
        if isinstance(a, (NonContig, NoGrad)):
            arrays.append(a.array)
        elif isinstance(a, np.ndarray):
            arrays.append(a)
        elif isinstance(a, (list, tuple)):
            for x in a:
                collect(x)

    for a in args:
        collect(a)

    def traced(*arrs):
        it = iter(arrs)

        def rebuild(a):
            if isinstance(a, NonContig):
                t = jtorch.Tensor._make(next(it))
                if grad and _is_float(a.array):
                    t.requires_grad_(True)
                return t.transpose(-1, -2), t
            if isinstance(a, NoGrad):
                return jtorch.Tensor._make(next(it)), None
            if isinstance(a, np.ndarray):
                t = jtorch.Tensor._make(next(it))
                if grad and _is_float(a):
                    t.requires_grad_(True)
                    return t, t
                return t, None
            if isinstance(a, (list, tuple)) and any(isinstance(x, (np.ndarray, NonContig))
                                                    for x in a):
                pairs = [rebuild(x) for x in a]
                return type(a)(p[0] for p in pairs), [p[1] for p in pairs]
            return a, None

        built = [rebuild(a) for a in args]
        out = fn(jtorch, *[b for b, _ in built])
        outs = [o for o in _outputs(out) if isinstance(o, jtorch.Tensor)]
        grads = []
        if grad:
            diff = [o for o in outs if o.requires_grad]
            rng = np.random.default_rng(cotangent_seed)
            cts = [jtorch.tensor(rng.uniform(-1, 1, tuple(o.shape)), dtype=o.dtype)
                   for o in diff]
            if diff:
                jtorch.autograd.backward(diff, cts)
            grads = [lv.grad._value if lv is not None and lv.grad is not None else None
                     for lv in _leaves([lv for _, lv in built])]
        return [o._value for o in outs], grads

    traced_ops = set()
    prev = jdispatch.set_observer(_op_recorder(traced_ops))
    try:
        kernel_options = xla_options.compiler_options(kernel=True)
        outs, grads = jax.jit(traced, compiler_options=kernel_options)(*arrays)
    finally:
        jdispatch.set_observer(prev)
    eager = [o for o in _outputs(eager_out) if isinstance(o, jtorch.Tensor)]
    for i, (a, e) in enumerate(zip(outs, eager)):
        np.testing.assert_allclose(_np_arr(a), _np(e), rtol=1e-4, atol=1e-5, equal_nan=True,
                                   err_msg=f"jit output[{i}]")
    if grad:
        for i, (g, lv) in enumerate(zip(grads, eager_leaves)):
            if g is not None and lv.grad is not None:
                np.testing.assert_allclose(_np_arr(g), _np(lv.grad), rtol=1e-4, atol=1e-5,
                                           err_msg=f"jit grad[{i}]")
    return traced_ops


def _np_arr(a):
    a = np.asarray(a)
    return a.astype(np.float32) if a.dtype.name == "bfloat16" else a


def raises_like(torch_fn, jt_fn, exc_type=None):
    """Both calls raise the same exception type with the same message, and jtorch warns nothing
    that PyTorch does not."""
    with _recording_warnings() as t_warned, pytest.raises(BaseException) as te:
        torch_fn()
    with _recording_warnings() as j_warned, pytest.raises(BaseException) as je:
        jt_fn()
    t_exc, j_exc = te.value, je.value
    expected_type = exc_type or type(t_exc)
    assert isinstance(j_exc, expected_type), f"{type(j_exc).__name__}: {j_exc} (torch: " \
                                             f"{type(t_exc).__name__}: {t_exc})"
    t_msg = str(t_exc).split("\n")[0]
    assert str(j_exc).split("\n")[0] == t_msg, f"message {str(j_exc)!r} != torch {t_msg!r}"
    extra = set(_warning_texts(j_warned)) - set(_warning_texts(t_warned))
    assert not extra, f"jtorch warns {sorted(extra)}, torch does not"


@contextlib.contextmanager
def _recording_warnings():
    """Records the warnings that the active filters would raise as errors (so that the
    exception a caller catches is the real one, not a warning), keeping the other filters."""
    with warnings.catch_warnings(record=True) as log:
        active = list(warnings.filters)
        warnings.resetwarnings()
        for action, message, category, module, lineno in reversed(active):
            warnings.filterwarnings("always" if action == "error" else action,
                                    getattr(message, "pattern", message) or "", category,
                                    getattr(module, "pattern", module) or "", lineno)
        yield log


def warns_like(torch_fn, jt_fn):
    """Call both; jtorch warns exactly what PyTorch warns (categories and texts). Returns
    ``(torch_result, jtorch_result)``."""
    with warnings.catch_warnings(record=True) as t_warned:
        warnings.simplefilter("always")
        t = torch_fn()
    with warnings.catch_warnings(record=True) as j_warned:
        warnings.simplefilter("always")
        j = jt_fn()
    assert _warning_texts(j_warned) == _warning_texts(t_warned)
    return t, j


def _warning_texts(records):
    """(category, message) of recorded warnings, without PyTorch's C++ location suffix."""
    return [(w.category.__name__, str(w.message).split(" (Triggered internally at")[0])
            for w in records]
