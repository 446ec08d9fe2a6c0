"""einsum and tensordot (PyTorch's parsing, checks and label broadcasting; jnp does the work)."""

from __future__ import annotations

import math

import jax.numpy as jnp

from .._core import torch_function
from .._core.dtypes import from_np, promote_types
from .._core.tensor_base import TensorBase
from ._registry import export, op
from ._util import wrap_dim
from .linalg import HI, bmm_dtype_error, no_bool


def _tensordot_dims(a, b, dims):
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return tuple(range(-dims, 0)), tuple(range(dims))
    da, db = dims
    da = (da,) if isinstance(da, int) else tuple(da)
    db = (db,) if isinstance(db, int) else tuple(db)
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    return da, db


@op("tensordot", method=False, tensors=("a", "b"), saves="others",
    grad_name="ViewBackward0", namespace=None)
def _tensordot(a, b, dims):
    da, db = _tensordot_dims(a, b, dims)
    if a.dtype != b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    wa = [wrap_dim(d, a.ndim) for d in da]
    wb = [wrap_dim(d, b.ndim) for d in db]
    for i, j, oi, oj in zip(wa, wb, da, db):
        if a.shape[i] != b.shape[j]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{a.shape[i]} in dim {oi} and second has size {b.shape[j]} in "
                               f"dim {oj}")
    no_bool("dot" if a.ndim == b.ndim == len(wa) == 1 else "addmm_impl_cpu_", a)
    return jnp.tensordot(a, b, (wa, wb), precision=HI)


@export("tensordot")
def tensordot(a, b, dims=2, out=None):
    """torch.tensordot: dims is an int, a pair of dim lists, or a tensor holding either."""

    if isinstance(dims, TensorBase):
        dims = dims.tolist()
    if isinstance(dims, (list, tuple)):
        if len(dims) != 2:
            raise RuntimeError("tensordot expects dims to be a pair of lists or an int")
        dims = tuple(tuple(d) if isinstance(d, (list, tuple)) else d for d in dims)
        if isinstance(dims[0], int) != isinstance(dims[1], int):
            raise RuntimeError("both dimension lists should have same length")
    return _tensordot(a, b, dims, out=out)


# --- einsum ----------------------------------------------------------------------------------

def _einsum_parse(equation, operands):
    """Validate ``equation`` against the operands as PyTorch does; return (terms, output)
    where each term is a list of labels with ``...`` kept as one entry."""
    lhs, arrow, rhs = equation.partition("->")
    p = equation.find("->")
    for i, c in enumerate(equation):
        if not (c.isascii() and c.isalpha() or c in ". " or c == "," and (p < 0 or i < p)
                or p >= 0 and i in (p, p + 1)):
            raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation "
                               "string, subscripts must be in [a-zA-Z]")

    def term(s, k):
        labels, rest = [], s.replace(" ", "")
        while rest:
            if rest.startswith("..."):
                if "..." in labels:
                    raise RuntimeError(f"einsum(): found '.' for operand {k} for which an "
                                       "ellipsis was already found")
                labels.append("...")
                rest = rest[3:]
            elif rest[0] == ".":
                raise RuntimeError(f"einsum(): found '.' for operand {k} that is not part of "
                                   "any ellipsis")
            else:
                labels.append(rest[0])
                rest = rest[1:]
        return labels

    terms = [term(s, k) for k, s in enumerate(lhs.split(","))]
    if len(terms) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the "
                           "equation")
    if len(terms) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation")
    sizes, ell = {}, None
    for k, (t, x) in enumerate(zip(terms, operands)):
        n = len([c for c in t if c != "..."])
        if "..." in t and n > x.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n}) is "
                               f"more than the number of dimensions ({x.ndim}) for operand {k}")
        if "..." not in t and n != x.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n}) does "
                               f"not match the number of dimensions ({x.ndim}) for operand {k}"
                               " and no ellipsis was given")
        shape = _einsum_dims(t, x.shape)
        seen = {}
        for c, s in zip(t, shape):
            if c == "...":
                ell = s if ell is None else _broadcast_ell(ell, s, k, t.index("..."))
                continue
            if c in seen and seen[c] != s:
                raise RuntimeError(f"einsum(): subscript {c} is repeated for operand {k} but the"
                                   f" sizes don't match, {s} != {seen[c]}")
            seen[c] = s
            prev = sizes.get(c, 1)
            if prev != s and prev != 1 and s != 1:
                raise RuntimeError(f"einsum(): subscript {c} has size {s} for operand {k} which "
                                   f"does not broadcast with previously seen size {prev}")
            if c not in sizes or prev == 1:
                sizes[c] = s
    if arrow:
        out = term(rhs, len(terms))
        for c in out:
            if c != "..." and c not in sizes:
                raise RuntimeError(f"einsum(): output subscript {c} does not appear in the "
                                   "equation for any input operand")
            if out.count(c) > 1 and c != "...":
                raise RuntimeError(f"einsum(): output subscript {c} appears more than once in "
                                   "the output")
    else:
        counts = {}
        for t in terms:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        out = (["..."] if ell is not None else []) + sorted(
            c for c, n in counts.items() if n == 1 and c != "...")
    return terms, out, sizes


def _einsum_dims(t, shape):
    """Group a shape by the labels of a term: ``...`` gets a tuple of dims."""
    if "..." not in t:
        return list(shape)
    i = t.index("...")
    n_ell = len(shape) - (len(t) - 1)
    return list(shape[:i]) + [tuple(shape[i:i + n_ell])] + list(shape[i + n_ell:])


def _broadcast_ell(a, b, k, start):
    """Broadcast the ellipsis dims seen so far (a) with operand k's (b, from dim start)."""
    n = max(len(a), len(b))
    pad = n - len(b)
    a, b = (1,) * (n - len(a)) + a, (1,) * pad + b
    for d, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"einsum(): dimension {start + d - pad} covered by ellipsis in "
                               f"operand {k}has "
                               f"size {y} which does not broadcast with previously seen ellipsis"
                               f" with size {x} for the respective dimension")
    return tuple(max(x, y) for x, y in zip(a, b))


def _einsum_dtype(terms, out, operands):
    """The dtype einsum computes in, or PyTorch's error for operands it cannot contract.
    PyTorch contracts the operands pairwise (for more than two, in opt_einsum's order): a
    label summed over that has a size above 1 in both of a pair makes it a ``bmm``, which
    needs both dtypes equal; otherwise the pair is multiplied (``mul``, promoting the
    dtypes) after summing each operand's own dims. jtorch then contracts all operands in the
    resulting dtype at once, where PyTorch may round an intermediate product (three or more
    operands) or an operand's own sum to a narrower dtype first."""
    types = [from_np(x.dtype) for x in operands]
    if all(t is types[0] for t in types):
        return types[0]
    if len(operands) <= 2:
        path = [(0, 1)] * (len(operands) - 1)
    else:
        eq = ",".join("".join(t) for t in terms) + "->" + "".join(out)
        path = jnp.einsum_path(eq, *operands, optimize="auto")[0]

    def labelled(t, shape):  # label -> size; the ellipsis' dims as ("...", k from the right)
        dims = _einsum_dims(t, shape)
        sizes = {}
        for c, n in zip(t, dims):
            if c == "...":
                sizes.update({("...", len(n) - k): m for k, m in enumerate(n)})
            else:
                sizes[c] = n
        return sizes

    kept = {c for c in out if c != "..."}
    ops = [(labelled(t, x.shape), d) for t, x, d in zip(terms, operands, types)]
    for pair in path:
        (la, a), (lb, b) = (ops[k] for k in sorted(pair))
        ops = [o for k, o in enumerate(ops) if k not in pair]
        later = set(kept).union(*(o[0] for o in ops))
        if "..." in out:
            later |= {c for c in {**la, **lb} if isinstance(c, tuple)}
        if a is not b and any(la[c] > 1 and lb[c] > 1 for c in la.keys() & lb.keys()
                              if c not in later):
            # PyTorch contracts the pair with bmm((lo, sum), (sum, ro))
            summed = [c for c in la.keys() & lb.keys() if c not in later]
            work = math.prod(max(la[c], lb[c]) for c in summed) * math.prod(
                n for part, other in ((la, lb), (lb, la)) for c, n in part.items()
                if c in later and c not in other)
            raise bmm_dtype_error(a, b, work)
        merged = {c: max(la.get(c, 1), lb.get(c, 1)) for c in {**la, **lb} if c in later}
        ops.append((merged, promote_types(a, b)))
    return ops[0][1]


@op("einsum", method=False, out=False, tensors=("operands",), saves="others",
    grad_name="ViewBackward0", namespace=None)
def _einsum(equation, operands):
    terms, out, sizes = _einsum_parse(equation, operands)
    common = _einsum_dtype(terms, out, operands)
    operands = [x if x.dtype == common.np else x.astype(common.np) for x in operands]
    first = operands[0]
    used = {c for t in terms for c in t}
    reduces = bool(used - set(out) - {"..."})
    integral = not jnp.issubdtype(first.dtype, jnp.inexact)
    if first.dtype == jnp.bool_ and len(operands) > 1 and reduces:
        raise NotImplementedError("\"bmm\" not implemented for 'Bool'")
    ops = []
    for t, x in zip(terms, operands):
        # PyTorch broadcasts labelled dims of size 1 against the other operands' sizes
        shape = _einsum_dims(t, x.shape)
        target = [s if c == "..." else sizes[c] for c, s in zip(t, shape)]
        if target != shape:
            flat = [d for s in target for d in (s if isinstance(s, tuple) else (s,))]
            x = jnp.broadcast_to(x, flat)
        ops.append(x)
    eq = ",".join("".join(t) for t in terms) + "->" + "".join(out)
    if first.dtype == jnp.bool_:
        res = jnp.einsum(eq, *[o.astype(jnp.int64) for o in ops])
        return res if reduces else res.astype(jnp.bool_)
    if integral and len(operands) == 1 and reduces:
        return jnp.einsum(eq, ops[0].astype(jnp.int64))
    return jnp.einsum(eq, *ops, precision=HI, preferred_element_type=first.dtype)


def _sublist_equation(args):
    """PyTorch's sublist form einsum(op1, [0, 1], op2, [1, 2], [0, 2]) as an equation."""
    def labels(sub):
        out = []
        for s in sub:
            if s is Ellipsis:
                out.append("...")
            elif 0 <= s < 26:
                out.append(chr(ord("A") + s))
            elif 26 <= s < 52:
                out.append(chr(ord("a") + s - 26))
            else:
                raise RuntimeError("einsum(): subscript in subscript list is not within the "
                                   f"valid range [0, 52), got {s}")
        return "".join(out)

    pairs, out = (args[:-1], args[-1]) if len(args) % 2 else (args, None)
    operands = list(pairs[0::2])
    eq = ",".join(labels(s) for s in pairs[1::2])
    if out is not None:
        eq += "->" + labels(out)
    return eq, operands


@export("einsum")
def einsum(*args):
    """torch.einsum(equation, *operands), einsum(equation, [operands]) or the sublist form."""
    if not args:
        raise RuntimeError("einsum(): must specify the equation string and at least one operand,"
                           " or at least one operand and its subscripts list")
    if isinstance(args[0], str):
        equation, operands = args[0], list(args[1:])
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = list(operands[0])
    else:
        equation, operands = _sublist_equation(args)
    if torch_function.ACTIVE[0] or torch_function.FOREIGN[0]:
        # PyTorch's protocol check: einsum itself, operands spread (a Proxy's too)
        over = torch_function.overloaded(operands)
        if over:
            return torch_function.handle(einsum, over, (equation, *operands), {},
                                         "torch.einsum")
    return _einsum(equation, tuple(operands))
