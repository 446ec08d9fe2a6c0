"""Symbolic dimension expressions of jax.export (``b - 1``, ``min(b, 5) - 2``,
``2*floordiv(b + 1, 2) - 1``...) as ONNX int64 arithmetic evaluated at run time.

An expression is read from its text, JAX's documented form (the one ``jax.export.symbolic_shape``
parses): sums of integer multiples of products of dimension variables, ``^`` powers, and the
operations ``floordiv``, ``mod``, ``max`` and ``min``. Each variable is the 1-D int64 value the
graph reads from the input that carries it (``GraphBuilder.dims``).
"""

from __future__ import annotations

import ast

_BINARY = {ast.Add: "Add", ast.Sub: "Sub", ast.Mult: "Mul"}
_CALLS = {"max": "Max", "min": "Min"}


def dim_value(g, d):
    """A 1-D int64 ONNX value (one element) holding the symbolic dimension expression ``d``,
    built in the GraphBuilder ``g``; computed once per expression (cached in ``g.dims``)."""
    key = str(d)
    if key not in g.dims:
        tree = ast.parse(key.replace("^", "**"), mode="eval").body
        g.dims[key] = _emit(g, tree, key)
    return g.dims[key]


def _unsupported(text):
    return NotImplementedError(f"jtorch does not implement torch.onnx.export of a shape that "
                               f"depends on the symbolic dimension expression {text} yet")


def _emit(g, n, text):
    if isinstance(n, ast.Constant) and type(n.value) is int:
        return g.ints([n.value])
    if isinstance(n, ast.Name):
        if n.id not in g.dims:   # a variable no graph input carries
            raise _unsupported(text)
        return g.dims[n.id]
    if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
        return g.node("Neg", [_emit(g, n.operand, text)])
    if isinstance(n, ast.BinOp) and type(n.op) in _BINARY:
        return g.node(_BINARY[type(n.op)], [_emit(g, n.left, text), _emit(g, n.right, text)])
    if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Pow) \
            and isinstance(n.right, ast.Constant) and type(n.right.value) is int:
        base = _emit(g, n.left, text)
        out = base
        for _ in range(n.right.value - 1):
            out = g.node("Mul", [out, base])
        return out
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and len(n.args) == 2 \
            and not n.keywords:
        a, b = (_emit(g, x, text) for x in n.args)
        if n.func.id in _CALLS:
            return g.node(_CALLS[n.func.id], [a, b])
        if n.func.id == "mod":        # ONNX Mod on integers (fmod=0) is Python's %
            return g.node("Mod", [a, b], fmod=0)
        if n.func.id == "floordiv":   # exact after taking the Python remainder away
            return g.node("Div", [g.node("Sub", [a, g.node("Mod", [a, b], fmod=0)]), b])
    raise _unsupported(text)
