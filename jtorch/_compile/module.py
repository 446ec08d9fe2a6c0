"""``jtorch.compile(module)``: the forward as one compiled program, the backward as one
compiled vjp.

When gradients are needed (grad mode on, and a parameter or an input requires grad), the
forward runs ``jax.vjp`` of the module's pure forward inside one jitted call, which returns
the outputs, the new values of the state the forward wrote (BatchNorm's running stats, the
generator key dropout advanced) and the vjp's residuals. The outputs get one autograd node
whose backward is one more jitted call, the vjp. Otherwise the forward is compiled like any
function (``step.CompiledFunction``).
"""

from __future__ import annotations

import functools

import jax

from .._core import xla_options
from .._core.python_node import record_pullback
from .._core.state import STATE, grad_mode, structure_epoch
from .._tensor import Tensor
from ..nn.modules.module import Module
from . import stats
from .context import TraceContext, tracing
from .state import State
from .step import (
    _TENSOR,
    _UNTRACEABLE,
    CompiledFunction,
    _flatten,
    _is_leaf,
    _spec,
)


def _pullback(vjp_fn, cts):
    return _pullback_jit()(vjp_fn, cts)


@functools.cache
def _pullback_jit():  # built on first use: the options are decided after import
    return xla_options.jit(lambda vjp_fn, cts: vjp_fn(cts))


class _DiffEntry:
    def __init__(self, st, diff, rest, fwd, out_tree, static):
        self.st, self.diff, self.rest, self.fwd = st, diff, rest, fwd
        self.out_tree, self.static = out_tree, static

    def run(self, leaves):
        inputs = [x for x in leaves if isinstance(x, Tensor)]
        d_in = [x for x in inputs if x._requires_grad]
        outs, vjp_fn, new_rest = self.fwd([t._array for t in self.diff],
                                          [t._array for t in self.rest],
                                          [x._value for x in d_in],
                                          [x._value for x in inputs if not x._requires_grad])
        if self.static is None:
            self.out_tree, self.static = self.rec["out_tree"], self.rec["static"]
        for t, a in zip(self.rest, new_rest):
            if a is not None:
                t._array = a
                t._version_counter += 1
        wrapped = record_pullback(outs, lambda cts: _pullback(vjp_fn, cts),
                                  list(self.diff) + d_in, "CompiledFunctionBackward")
        it = iter(wrapped)
        res = [next(it) if s is _TENSOR else s for s in self.static]
        return jax.tree_util.tree_unflatten(self.out_tree, res)


class _DiffCompiled(CompiledFunction):
    """A compiled function whose outputs are differentiated by one compiled vjp."""

    def _build_diff(self, leaves, treedef, args, kwargs):
        return self._trace_finding_state(args, kwargs, leaves,
                                         lambda st: self._trace_diff(st, leaves, treedef))

    def _trace_diff(self, st, leaves, treedef):
        diff = list(st.grad_params)
        rest = [t for t in st.tensors if not (t._requires_grad and t._node is None)]
        rec = {}
        fn = self._fn
        orig = [(t, t._array) for t in diff + rest]

        def pure(d_arrs, r_arrs, din_arrs, other_arrs):
            # jax.vjp differentiates; the tape records nothing
            with tracing(TraceContext(st.tensors)), grad_mode(False):
                try:
                    for t, a in zip(diff, d_arrs):
                        t._array = a
                        t._version_counter += 1
                    for t, a in zip(rest, r_arrs):
                        t._array = a
                        t._version_counter += 1
                    di, oi = iter(din_arrs), iter(other_arrs)
                    new_leaves = [(Tensor._make(next(di) if x._requires_grad else next(oi),
                                                x._device)
                                   if isinstance(x, Tensor) else x) for x in leaves]
                    a2, k2 = jax.tree_util.tree_unflatten(treedef, new_leaves)
                    out = fn(*a2, **k2)
                    out_leaves, out_tree = jax.tree_util.tree_flatten(out, is_leaf=_is_leaf)
                    rec.update(out_tree=out_tree,
                               static=[_TENSOR if isinstance(o, Tensor) else o
                                       for o in out_leaves])
                    new_rest = [None if t._array is a else t._value
                                for t, a in zip(rest, r_arrs)]
                    return [o._value for o in out_leaves if isinstance(o, Tensor)], new_rest
                finally:
                    for t, v in orig:  # the trace is over: the Python objects hold values again
                        t._array = v
                        t._version_counter += 1

        def fwd(d_arrs, r_arrs, din_arrs, other_arrs):
            return jax.vjp(lambda d, i: pure(d, r_arrs, i, other_arrs), d_arrs, din_arrs,
                           has_aux=True)

        entry = _DiffEntry(st, diff, rest, xla_options.jit(fwd), None, None)
        entry.rec = rec
        return entry, entry.run(leaves)


class OptimizedModule(Module):
    """What ``jtorch.compile(module)`` returns (PyTorch's ``OptimizedModule``): calling it runs
    the compiled forward; its state_dict keys carry PyTorch's ``_orig_mod.`` prefix."""

    def __init__(self, mod, **kw):
        super().__init__()
        self._orig_mod = mod
        if kw.get("state") is not None:   # the module's own parameters and buffers are state
            kw["state"] = [mod, *kw["state"]]
        fwd = mod.__call__
        object.__setattr__(self, "_plain", CompiledFunction(fwd, **kw))
        object.__setattr__(self, "_diff", _DiffCompiled(fwd, **kw))
        object.__setattr__(self, "_diff_cache", {})

    def __call__(self, *args, **kwargs):
        if self._plain.disable or STATE.trace is not None:
            return self._plain._fn(*args, **kwargs)
        leaves, treedef = _flatten(args, kwargs)
        needs = STATE.grad_enabled and (
            any(p._requires_grad for p in self._orig_mod.parameters())
            or any(isinstance(x, Tensor) and x._requires_grad for x in leaves))
        if not needs:
            return self._plain(*args, **kwargs)
        d = self._diff
        st = d._state
        if st is None or d._epoch != structure_epoch():
            st = d._state = State.collect(d._roots(args, kwargs),
                                          [x for x in leaves if isinstance(x, Tensor)])
            d._epoch = structure_epoch()
        key = (st.signature(), _spec(leaves), treedef, stats.amp_key())
        entry = self._diff_cache.get(key)
        if entry is not None:
            stats.COUNTERS["hits"] += 1
            return entry.run(leaves)
        if key in d._eager_keys:
            return self._plain._fn(*args, **kwargs)
        try:
            entry, result = d._build_diff(leaves, treedef, args, kwargs)
        except _UNTRACEABLE as e:
            return d._fallback(key, e, args, kwargs)
        stats.record(self._orig_mod.forward, stats.reason(d._last_key, key))
        d._last_key = key
        self._diff_cache[key] = entry
        return result

    def forward(self, *args, **kwargs):
        return self(*args, **kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._modules["_orig_mod"], name)
