"""torch.fx's subgraph rewriter (``replace_pattern``, ``replace_pattern_with_filters``,
``SubgraphMatcher``) on jtorch against PyTorch 2.13's: the same graphs rewritten in both,
compared by generated code, the matches returned (anchors and node maps, by name), and the
rewritten module's outputs and gradients."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import torch
from helpers import assert_close

import jtorch

LIBS = (torch, jtorch)


def _names(nodes_map):
    return sorted((p.name, g.name) for p, g in nodes_map.items())


def _neg_cat(T):
    class M(T.nn.Module):
        def forward(self, x, w1, w2):
            m1 = T.cat([T.neg(w1), w2]).sum()
            m2 = T.cat([T.neg(w1), w2]).sum()
            return x + T.max(m1) + T.max(m2)

    def pattern(a1, a2):
        return T.cat([T.neg(a1), a2]).sum()

    def replacement(w1, w2):
        return T.stack([w1, w2])

    return M(), pattern, replacement


def _two_outputs(T):
    """A pattern returning two values (two anchors), used with kwargs and literals."""
    class M(T.nn.Module):
        def forward(self, x, y):
            a = T.relu(x) * 2.0
            b = T.sigmoid(x).sum(dim=1, keepdim=True)
            c = T.relu(y) * 3.0          # the literal differs: no match
            return a + b + c

    def pattern(x):
        return T.relu(x) * 2.0, T.sigmoid(x).sum(dim=1, keepdim=True)

    def replacement(x):
        return T.tanh(x), x.mean(1, keepdim=True)

    return M(), pattern, replacement


def _used_outside(T):
    """The pattern's inner value is used outside the match: not replaced."""
    class M(T.nn.Module):
        def forward(self, x):
            n = T.neg(x)
            return T.exp(n) + n

    return M(), (lambda x: T.exp(T.neg(x))), (lambda x: T.exp(x))


CASES = {"neg_cat": _neg_cat, "two_outputs": _two_outputs, "used_outside": _used_outside}


def _rewrite(T, case):
    module, pattern, replacement = CASES[case](T)
    gm = T.fx.symbolic_trace(module)
    matches = T.fx.replace_pattern(gm, pattern, replacement)
    return gm, matches


@pytest.mark.parametrize("case", sorted(CASES))
def test_replace_pattern_matches_torch(case):
    (tgm, tm), (jgm, jm) = (_rewrite(T, case) for T in LIBS)
    assert jgm.code == tgm.code
    assert [m.anchor.name for m in jm] == [m.anchor.name for m in tm]
    assert [_names(m.nodes_map) for m in jm] == [_names(m.nodes_map) for m in tm]
    n = len([p for p in tgm.graph.nodes if p.op == "placeholder"])
    rng = np.random.default_rng(0)
    values = [rng.standard_normal((2, 3)).astype(np.float32) for _ in range(n)]
    targs = [torch.tensor(v, requires_grad=True) for v in values]
    jargs = [jtorch.tensor(v, requires_grad=True) for v in values]
    tout, jout = tgm(*targs), jgm(*jargs)
    assert_close(jout, tout, atol=1e-6, rtol=1e-6)
    tout.sum().backward()
    jout.sum().backward()
    for j, t in zip(jargs, targs):
        assert (j.grad is None) == (t.grad is None)
        if t.grad is not None:
            assert_close(j.grad, t.grad, atol=1e-6, rtol=1e-6)


def test_filters_literals_and_callback_match_torch():
    def rewrite(T):
        module, _, _ = _two_outputs(T)
        sub = T.fx.subgraph_rewriter
        # ignore_literals: relu(y) * 3.0 matches relu(x) * 2.0 too; the filter keeps only it
        gm = T.fx.symbolic_trace(module)
        out = sub.replace_pattern_with_filters(
            gm, lambda x: T.relu(x) * 2.0, lambda x: T.tanh(x), ignore_literals=True,
            match_filters=[lambda m, g, p: m.placeholder_nodes[0].name == "y"])
        filtered = (gm.code, [(r.anchor.name, sorted(n.name for n in r.replacements))
                              for r in out])
        gm = T.fx.symbolic_trace(module)
        out = sub.replace_pattern_with_filters(
            gm, lambda x: T.relu(x) * 2.0,
            replacement_callback=lambda m, g, p: T.fx.symbolic_trace(lambda x: x + 1).graph)
        return filtered, (gm.code, len(out))

    results = {T: rewrite(T) for T in LIBS}
    assert results[jtorch] == results[torch]
    (code, replaced), (callback_code, n) = results[torch]
    assert len(replaced) == 1 and "tanh(y)" in code and "relu(x)" in code
    assert n == 1 and "relu(x)" not in callback_code


def test_matcher_and_errors_match_torch():
    def matches(T):
        pattern = T.fx.symbolic_trace(lambda x: T.relu(x).neg()).graph
        matcher = T.fx.passes.utils.matcher_utils.SubgraphMatcher(pattern)
        graph = T.fx.symbolic_trace(lambda a, b: T.relu(a).neg() + T.relu(b).neg()).graph
        found = [_names(m.nodes_map) for m in matcher.match(graph)]
        dead = T.fx.Graph()
        x = dead.placeholder("x")
        dead.call_function(T.relu, (x,))
        dead.output(x)
        with pytest.raises(AssertionError, match="pattern with dead code"):
            T.fx.passes.utils.matcher_utils.SubgraphMatcher(dead)
        with pytest.raises(ValueError, match="empty pattern"):
            T.fx.passes.utils.matcher_utils.SubgraphMatcher(T.fx.Graph())
        return found

    found = [matches(T) for T in LIBS]
    assert found[1] == found[0] and len(found[0]) == 2


def _profiled_code(T):
    """pytorch/examples' fx/profiling_tracer.py: a tracer that records record_function's
    range as torch.ops.profiler nodes (an operator called on a proxy becomes a node)."""
    class ProfilerTracer(T.fx.Tracer):
        def trace(self, root, concrete_args=None):
            rf = T.autograd.profiler.record_function
            enter, exit_ = rf.__enter__, rf.__exit__
            tracer = self

            def fake_enter(this):
                this._fx_profiler_ctx = tracer.create_proxy(
                    "call_function", T.ops.profiler._record_function_enter, (this.name,), {})
                return this._fx_profiler_ctx

            def fake_exit(this, *exc):
                T.ops.profiler._record_function_exit(this._fx_profiler_ctx)

            rf.__enter__, rf.__exit__ = fake_enter, fake_exit
            try:
                return super().trace(root, concrete_args)
            finally:
                rf.__enter__, rf.__exit__ = enter, exit_

    def f(x):
        with T.autograd.profiler.record_function("foo"):
            return T.relu(x)

    tracer = ProfilerTracer()
    graph = tracer.trace(f)
    gm = T.fx.GraphModule(tracer.root, graph)
    with T.autograd.profiler.profile() as prof:
        out = gm(T.tensor([-1.0, 2.0]))
    return gm.code, out.tolist(), "foo" in [e.key for e in prof.key_averages()]


def test_profiler_operators_trace_as_nodes_like_torch():
    assert _profiled_code(jtorch) == _profiled_code(torch)


def _immutable_facts(T):
    ic = T.fx.immutable_collections
    gm = T.fx.symbolic_trace(_cat_twice(T))
    node = next(n for n in gm.graph.nodes if n.op == "call_function")
    errors = []
    for mutate in (lambda: node.args[0].append(1), lambda: node.kwargs.update(dim=1),
                   lambda: node.kwargs.__setitem__("dim", 1)):
        with pytest.raises(TypeError) as e:
            mutate()
        errors.append(str(e.value))
    lst, dct = ic.immutable_list([1, [2]]), ic.immutable_dict(a=1)
    leaves, spec = T.utils._pytree.tree_flatten(ic.immutable_list([1, ic.immutable_dict(b=2)]))
    return (type(node.args[0]).__name__, type(node.kwargs).__name__, errors,
            hash(ic.immutable_list([1, 2])) == hash((1, 2)),
            pickle.loads(pickle.dumps(dct)), type(pickle.loads(pickle.dumps(lst))).__name__,
            leaves, type(T.utils._pytree.tree_unflatten(leaves, spec)).__name__,
            type(lst + [3]).__name__)


def _cat_twice(T):
    return lambda x: T.cat([x, x], dim=0)


def test_node_arguments_are_immutable_as_torch():
    assert _immutable_facts(jtorch) == _immutable_facts(torch)
