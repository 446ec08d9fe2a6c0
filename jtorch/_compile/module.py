"""``jtorch.compile(module)``: the forward as one compiled program, the backward as one
compiled vjp.

When gradients are needed (grad mode on, and a parameter or an input requires grad), the
forward runs in its vjp form (``diff.py``): one jitted call returns the outputs, the state the
forward wrote and the vjp's residuals, and the outputs' backward is one more jitted call.
Otherwise the forward is compiled like any function (``step.CompiledFunction``).
"""

from __future__ import annotations

from .._core.state import STATE, structure_epoch
from .._tensor import Tensor
from ..nn.modules.module import Module
from . import stats
from .context import NeedsTape
from .diff import trace_diff
from .state import State
from .step import _UNTRACEABLE, CompiledFunction
from .trees import flatten, spec


class _DiffCompiled(CompiledFunction):
    """A compiled function whose outputs are differentiated by one compiled vjp."""

    def _build_diff(self, leaves, treedef, args, kwargs):
        try:
            return self._trace_finding_state(
                args, kwargs, leaves, lambda st: trace_diff(self._fn, st, leaves, treedef))
        except NeedsTape:   # the forward differentiates inside itself: record the tape
            return self._trace_finding_state(
                args, kwargs, leaves,
                lambda st: trace_diff(self._fn, st, leaves, treedef, tape=True))


class OptimizedModule(Module):
    """What ``jtorch.compile(module)`` returns (PyTorch's ``OptimizedModule``): calling it runs
    the compiled forward; its state_dict keys carry PyTorch's ``_orig_mod.`` prefix."""

    def __init__(self, mod, **kw):
        super().__init__()
        self._orig_mod = mod
        object.__setattr__(self, "_compile_options", dict(kw))
        if kw.get("state") is not None:   # the module's own parameters and buffers are state
            kw["state"] = [mod, *kw["state"]]
        fwd = mod.__call__
        object.__setattr__(self, "_plain", CompiledFunction(fwd, **kw))
        object.__setattr__(self, "_diff", _DiffCompiled(fwd, **kw))
        object.__setattr__(self, "_diff_cache", {})

    def __call__(self, *args, **kwargs):
        if self._plain.disable or STATE.trace is not None:
            return self._plain._fn(*args, **kwargs)
        leaves, treedef = flatten(args, kwargs)
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
        key = (st.signature(), spec(leaves), treedef, stats.amp_key())
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

    def __reduce__(self):
        # pickled (copy.deepcopy, torch.save) as the module and the options, compiled again on
        # loading: the compiled programs are not picklable and are rebuilt on the first call
        return _compiled_again, (type(self), self._orig_mod, self._compile_options)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._modules["_orig_mod"], name)


def _compiled_again(cls, mod, options):
    """An unpickled :class:`OptimizedModule` (or subclass): ``mod`` compiled with ``options``."""
    return cls(mod, **options)
