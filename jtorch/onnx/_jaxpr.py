"""A jaxpr as an ONNX graph, built with ``onnx.helper`` (opset 18).

Nested calls (``jit``, ``custom_jvp_call``...) are inlined; each JAX primitive maps to one or a
few ONNX nodes. A symbolic (dynamic) dimension is read at run time from the graph input that
first carries it (``Shape``). A primitive with no rule raises NotImplementedError naming it.
"""

from __future__ import annotations

import itertools

import numpy as np
from jax import export as jax_export
from jax.extend import core as jax_core

from ._dim_expr import dim_value

OPSET = 18

_UNARY = {"abs": "Abs", "exp": "Exp", "log": "Log", "tanh": "Tanh", "logistic": "Sigmoid",
          "sqrt": "Sqrt", "neg": "Neg", "sin": "Sin", "cos": "Cos", "floor": "Floor",
          "ceil": "Ceil", "sign": "Sign", "erf": "Erf", "not": "Not", "tan": "Tan",
          "round": "Round", "is_finite": None}
_BINARY = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "max": "Max", "min": "Min",
           "pow": "Pow", "eq": "Equal", "gt": "Greater", "ge": "GreaterOrEqual", "lt": "Less",
           "le": "LessOrEqual", "and": "And", "or": "Or", "xor": "Xor", "rem": "Mod"}
_REDUCE = {"reduce_sum": "ReduceSum", "reduce_max": "ReduceMax", "reduce_min": "ReduceMin",
           "reduce_prod": "ReduceProd"}
_IDENTITY = {"stop_gradient", "copy", "copy_p", "optimization_barrier", "reduce_precision"}
_INLINE = {"jit": "jaxpr", "pjit": "jaxpr", "closed_call": "call_jaxpr",
           "custom_jvp_call": "call_jaxpr", "custom_vjp_call": "call_jaxpr",
           "custom_vjp_call_jaxpr": "fun_jaxpr", "remat": "jaxpr", "checkpoint": "jaxpr"}


def _same_dim(a, b):
    """Whether two sizes (ints or symbolic dimensions) are the same."""
    if jax_export.is_symbolic_dim(a) or jax_export.is_symbolic_dim(b):
        return str(a) == str(b)
    return int(a) == int(b)


class GraphBuilder:
    """The nodes, initializers and names of one ONNX graph being built from a jaxpr."""

    def __init__(self, onnx):
        self.onnx = onnx
        self.helper = onnx.helper
        self.nodes, self.initializers = [], []
        self.names = {}          # jax Var -> onnx value name
        self.dims = {}           # symbolic dim name -> 1-D int64 value holding it
        self._ids = itertools.count()

    # ------------------------------------------------------------------ values
    def fresh(self, hint="v"):
        return f"{hint}_{next(self._ids)}"

    def node(self, op, inputs, n_out=1, **attrs):
        outs = [self.fresh(op.lower()) for _ in range(n_out)]
        self.nodes.append(self.helper.make_node(op, inputs, outs, **attrs))
        return outs[0] if n_out == 1 else outs

    def const(self, value, dtype=None, name=None):
        arr = np.asarray(value, dtype=dtype)
        name = name or self.fresh("const")
        self.initializers.append(self.onnx.numpy_helper.from_array(arr, name))
        return name

    def ints(self, values):
        return self.const(np.asarray(values, np.int64))

    def read(self, v):
        """The onnx name of a jaxpr input (a Var or a Literal)."""
        if isinstance(v, jax_core.Literal):
            return self.const(np.asarray(v.val, dtype=v.aval.dtype))
        return self.names[v]

    def add_input_dims(self, name, shape):
        """Remember where each symbolic dimension of graph input ``name`` can be read."""
        for i, d in enumerate(shape):
            if jax_export.is_symbolic_dim(d) and str(d) not in self.dims:
                self.dims[str(d)] = self.node("Shape", [name], start=i, end=i + 1)

    def shape_value(self, shape):
        """A 1-D int64 value holding ``shape`` (symbolic dimensions computed at run time from
        the inputs' sizes)."""
        if all(not jax_export.is_symbolic_dim(d) for d in shape):
            return self.ints([int(d) for d in shape])
        parts = []
        for d in shape:
            if jax_export.is_symbolic_dim(d):
                parts.append(dim_value(self, d))
            else:
                parts.append(self.ints([int(d)]))
        return self.node("Concat", parts, axis=0)

    # ------------------------------------------------------------------ the jaxpr
    def run(self, jaxpr, consts, inputs):
        """Emit ``jaxpr`` (a core.Jaxpr) with its constvars bound to ``consts`` (onnx names)
        and its invars to ``inputs``; returns the onnx names of its outputs."""
        for v, c in zip(jaxpr.constvars, consts):
            self.names[v] = c
        for v, x in zip(jaxpr.invars, inputs):
            self.names[v] = x
        for eqn in jaxpr.eqns:
            outs = self.eqn(eqn)
            for v, o in zip(eqn.outvars, outs if isinstance(outs, list) else [outs]):
                self.names[v] = o
        return [self.read(v) for v in jaxpr.outvars]

    def run_closed(self, closed, inputs):
        consts = [self.const(np.asarray(c)) for c in closed.consts]
        return self.run(closed.jaxpr, consts, inputs)

    def eqn(self, e):
        name = e.primitive.name
        ins = [self.read(v) for v in e.invars]
        p = e.params
        if name in _INLINE:
            sub = p[_INLINE[name]]
            if isinstance(sub, jax_core.ClosedJaxpr):
                return self.run_closed(sub, ins)
            return self.run(sub, [], ins)
        if name in _IDENTITY:
            return [self.node("Identity", [x]) for x in ins]
        if name in _UNARY and _UNARY[name]:
            return self.node(_UNARY[name], ins)
        if name in _BINARY:
            return self.node(_BINARY[name], ins, **({"fmod": 1} if name == "rem" else {}))
        rule = getattr(self, "_" + name, None)
        if rule is None:
            raise NotImplementedError(f"jtorch does not implement torch.onnx.export of the JAX "
                                      f"primitive {name!r} yet")
        return rule(e, ins, p)

    # ------------------------------------------------------------------ rules
    def _ne(self, e, ins, p):
        return self.node("Not", [self.node("Equal", ins)])

    def _rsqrt(self, e, ins, p):
        return self.node("Reciprocal", [self.node("Sqrt", ins)])

    def _log1p(self, e, ins, p):
        one = self.const(np.ones((), e.invars[0].aval.dtype))
        return self.node("Log", [self.node("Add", [ins[0], one])])

    def _expm1(self, e, ins, p):
        one = self.const(np.ones((), e.invars[0].aval.dtype))
        return self.node("Sub", [self.node("Exp", ins), one])

    def _square(self, e, ins, p):
        return self.node("Mul", [ins[0], ins[0]])

    def _integer_pow(self, e, ins, p):
        y = self.const(np.asarray(p["y"], e.invars[0].aval.dtype))
        return self.node("Pow", [ins[0], y])

    def _dim_as_value(self, e, ins, p):
        """A symbolic size used as a number (a mean's count over a dynamic dimension)."""
        size = self.node("Squeeze", [self.shape_value([p["dim"]]), self.ints([0])])
        to = self.helper.np_dtype_to_tensor_dtype(np.dtype(e.outvars[0].aval.dtype))
        return self.node("Cast", [size], to=to)

    def _convert_element_type(self, e, ins, p):
        to = self.helper.np_dtype_to_tensor_dtype(np.dtype(p["new_dtype"]))
        return self.node("Cast", ins, to=to)

    def _select_n(self, e, ins, p):
        if len(ins) != 3:
            raise NotImplementedError("jtorch does not implement torch.onnx.export of "
                                      "select_n with more than two cases yet")
        pred = ins[0]
        if e.invars[0].aval.dtype != np.bool_:
            pred = self.node("Cast", [pred], to=self.onnx.TensorProto.BOOL)
        return self.node("Where", [pred, ins[2], ins[1]])

    def _clamp(self, e, ins, p):
        lo, x, hi = ins
        return self.node("Min", [self.node("Max", [x, lo]), hi])

    def _reshape(self, e, ins, p):
        if p.get("dimensions") is not None:
            raise NotImplementedError("jtorch does not implement torch.onnx.export of reshape "
                                      "with dimensions yet")
        sizes = p["new_sizes"]
        symbolic = [i for i, d in enumerate(sizes) if jax_export.is_symbolic_dim(d)]
        if len(symbolic) == 1:   # the one unknown size is inferred
            shape = self.ints([-1 if i == symbolic[0] else int(d) for i, d in enumerate(sizes)])
        else:
            shape = self.shape_value(sizes)
        return self.node("Reshape", [ins[0], shape])

    def _squeeze(self, e, ins, p):
        return self.node("Squeeze", [ins[0], self.ints(p["dimensions"])])

    def _expand_dims(self, e, ins, p):
        return self.node("Unsqueeze", [ins[0], self.ints(p["dimensions"])])

    def _transpose(self, e, ins, p):
        return self.node("Transpose", ins, perm=list(p["permutation"]))

    def _broadcast_in_dim(self, e, ins, p):
        shape, bdims = p["shape"], p["broadcast_dimensions"]
        x = ins[0]
        missing = [i for i in range(len(shape)) if i not in bdims]
        if missing:
            x = self.node("Unsqueeze", [x, self.ints(missing)])
        in_shape = e.invars[0].aval.shape
        target = list(shape)
        for src, dst in enumerate(bdims):   # a kept dimension broadcasts from itself
            if _same_dim(in_shape[src], target[dst]) and jax_export.is_symbolic_dim(target[dst]):
                target[dst] = 1
        return self.node("Expand", [x, self.shape_value(target)])

    def _concatenate(self, e, ins, p):
        return self.node("Concat", ins, axis=p["dimension"])

    def _stack(self, e, ins, p):
        axis = self.ints([p["axis"]])
        return self.node("Concat", [self.node("Unsqueeze", [x, axis]) for x in ins],
                         axis=p["axis"])

    def _split(self, e, ins, p):
        sizes = p["sizes"]
        outs = self.node("Split", [ins[0], self.shape_value(sizes)],
                         n_out=len(sizes), axis=p["axis"])
        return list(outs) if len(sizes) > 1 else [outs]

    def _rev(self, e, ins, p):
        dims = list(p["dimensions"])
        big = np.iinfo(np.int64).max
        return self.node("Slice", [ins[0], self.ints([-1] * len(dims)),
                                   self.ints([-big] * len(dims)), self.ints(dims),
                                   self.ints([-1] * len(dims))])

    def _slice(self, e, ins, p):
        starts, limits = p["start_indices"], p["limit_indices"]
        steps = p["strides"] or [1] * len(starts)
        axes = list(range(len(starts)))
        return self.node("Slice", [ins[0], self.shape_value(starts), self.shape_value(limits),
                                   self.ints(axes), self.ints(steps)])

    def _dynamic_slice(self, e, ins, p):
        """``lax.dynamic_slice``: starts clamped so that the slice fits, as JAX does."""
        shape = e.invars[0].aval.shape
        starts = self.node("Concat", [self.node("Unsqueeze", [self.node(
            "Cast", [i], to=self.onnx.TensorProto.INT64), self.ints([0])]) for i in ins[1:]],
            axis=0)
        sizes = self.shape_value(p["slice_sizes"])
        room = self.node("Sub", [self.shape_value(shape), sizes])
        starts = self.node("Max", [self.node("Min", [starts, room]), self.ints([0] * len(shape))])
        ends = self.node("Add", [starts, sizes])
        return self.node("Slice", [ins[0], starts, ends, self.ints(list(range(len(shape))))])

    def _pad(self, e, ins, p):
        cfg = p["padding_config"]
        if any(i != 0 or lo < 0 or hi < 0 for lo, hi, i in cfg):
            raise NotImplementedError("jtorch does not implement torch.onnx.export of "
                                      "negative or interior padding yet")
        pads = [lo for lo, _, _ in cfg] + [hi for _, hi, _ in cfg]
        return self.node("Pad", [ins[0], self.ints(pads), ins[1]], mode="constant")

    def _reduce(self, e, ins, p, op):
        return self.node(op, [ins[0], self.ints(p["axes"])], keepdims=0)

    def _reduce_sum(self, e, ins, p):
        return self._reduce(e, ins, p, "ReduceSum")

    def _reduce_max(self, e, ins, p):
        return self._reduce(e, ins, p, "ReduceMax")

    def _reduce_min(self, e, ins, p):
        return self._reduce(e, ins, p, "ReduceMin")

    def _reduce_prod(self, e, ins, p):
        return self._reduce(e, ins, p, "ReduceProd")

    def _reduce_bool(self, e, ins, p, op):
        """all/any: the min/max of the booleans as int32 (ONNX has no boolean reduction)."""
        as_int = self.node("Cast", ins, to=self.onnx.TensorProto.INT32)
        out = self._reduce(e, [as_int], p, op)
        return self.node("Cast", [out], to=self.onnx.TensorProto.BOOL)

    def _reduce_and(self, e, ins, p):
        return self._reduce_bool(e, ins, p, "ReduceMin")

    def _reduce_or(self, e, ins, p):
        return self._reduce_bool(e, ins, p, "ReduceMax")

    def _argmax(self, e, ins, p, op="ArgMax"):
        (axis,) = p["axes"]
        out = self.node(op, ins, axis=axis, keepdims=0)
        to = self.helper.np_dtype_to_tensor_dtype(np.dtype(p["index_dtype"]))
        return self.node("Cast", [out], to=to)

    def _argmin(self, e, ins, p):
        return self._argmax(e, ins, p, "ArgMin")

    def _iota(self, e, ins, p):
        shape, dim = p["shape"], p["dimension"]
        if any(jax_export.is_symbolic_dim(d) for d in shape):   # a Range, then broadcast
            n = self.node("Squeeze", [self.shape_value([shape[dim]]), self.ints([0])])
            r = self.node("Range", [self.const(np.int64(0)), n, self.const(np.int64(1))])
            r = self.node("Cast", [r], to=self.helper.np_dtype_to_tensor_dtype(
                np.dtype(p["dtype"])))
            r = self.node("Reshape", [r, self.ints([-1 if i == dim else 1
                                                    for i in range(len(shape))])])
            return self.node("Expand", [r, self.shape_value(shape)])
        arr = np.broadcast_to(np.arange(shape[dim], dtype=p["dtype"]).reshape(
            [-1 if i == dim else 1 for i in range(len(shape))]), shape)
        return self.const(np.ascontiguousarray(arr))

    def _dot_general(self, e, ins, p):
        (lc, rc), (lb, rb) = p["dimension_numbers"]
        nl, nr = len(e.invars[0].aval.shape), len(e.invars[1].aval.shape)
        letters = iter("abcdefghijklmnopqrstuvwxyz")
        left = [None] * nl
        right = [None] * nr
        for i, j in zip(lb, rb):
            left[i] = right[j] = next(letters)
        for i, j in zip(lc, rc):
            left[i] = right[j] = next(letters)
        for seq in (left, right):
            for i, s in enumerate(seq):
                if s is None:
                    seq[i] = next(letters)
        out = [left[i] for i in lb] + [left[i] for i in range(nl) if i not in lb + lc] + \
            [right[j] for j in range(nr) if j not in rb + rc]
        eq = f"{''.join(left)},{''.join(right)}->{''.join(out)}"
        res = self.node("Einsum", ins, equation=eq)
        want = e.outvars[0].aval.dtype
        if want != e.invars[0].aval.dtype:
            res = self.node("Cast", [res], to=self.helper.np_dtype_to_tensor_dtype(want))
        return res

    def _conv_general_dilated(self, e, ins, p):
        dn = p["dimension_numbers"]
        shape = e.invars[0].aval.shape
        ident = tuple(range(len(shape)))
        if (tuple(dn.lhs_spec), tuple(dn.rhs_spec), tuple(dn.out_spec)) != (ident,) * 3 or \
                p["batch_group_count"] != 1 or any(lo < 0 or hi < 0 for lo, hi in p["padding"]):
            raise NotImplementedError("jtorch does not implement torch.onnx.export of this "
                                      "convolution (layout, batch groups or negative padding) "
                                      "yet")
        x = ins[0]
        if any(d != 1 for d in p["lhs_dilation"]):   # a transposed convolution's input
            x = self._dilate(x, shape, p["lhs_dilation"])
        pads = [lo for lo, _ in p["padding"]] + [hi for _, hi in p["padding"]]
        return self.node("Conv", [x, *ins[1:]], strides=list(p["window_strides"]), pads=pads,
                         dilations=list(p["rhs_dilation"]), group=p["feature_group_count"])

    def _dilate(self, x, shape, dilation):
        """``s - 1`` zeros between neighbours along each spatial dimension: each element
        followed by ``s - 1`` zeros (a new axis padded, merged), the trailing zeros cut."""
        if any(jax_export.is_symbolic_dim(d) for d in shape[1:]):
            raise NotImplementedError("jtorch does not implement torch.onnx.export of a "
                                      "transposed convolution with symbolic spatial sizes yet")
        dims = [0] + [int(d) for d in shape[1:]]   # Reshape's 0: the batch size as it is
        for i, s in enumerate(dilation):
            if s == 1:
                continue
            ax, rank = 2 + i, len(dims) + 1
            grown = self.node("Unsqueeze", [x, self.ints([ax + 1])])
            pads = [0] * (2 * rank)
            pads[rank + ax + 1] = s - 1
            grown = self.node("Pad", [grown, self.ints(pads)], mode="constant")
            size = dims[ax]
            dims[ax] = size * s
            merged = self.node("Reshape", [grown, self.ints(dims)])
            dims[ax] = size * s - (s - 1)
            x = self.node("Slice", [merged, self.ints([0]), self.ints([dims[ax]]),
                                    self.ints([ax])])
        return x

    def _reduce_window(self, e, ins, p, op):
        dims, strides = p["window_dimensions"], p["window_strides"]
        if dims[:2] != (1, 1) or any(d != 1 for d in p["base_dilation"]):
            raise NotImplementedError(f"jtorch does not implement torch.onnx.export of "
                                      f"{e.primitive.name} over this window yet")
        pads = [lo for lo, _ in p["padding"][2:]] + [hi for _, hi in p["padding"][2:]]
        kw = {"kernel_shape": list(dims[2:]), "strides": list(strides[2:]), "pads": pads,
              "dilations": list(p["window_dilation"][2:])}
        if op == "MaxPool":
            return self.node("MaxPool", ins, **kw)
        avg = self.node("AveragePool", ins, count_include_pad=1, **kw)
        return self.node("Mul", [avg, self.const(np.asarray(np.prod(dims),
                                                            e.invars[0].aval.dtype))])

    def _reduce_window_max(self, e, ins, p):
        return self._reduce_window(e, ins, p, "MaxPool")

    def _reduce_window_sum(self, e, ins, p):
        return self._reduce_window(e, ins, p, "AveragePool")

    def _gather(self, e, ins, p):
        """Taking whole slices along one axis (``jnp.take``: ``x[..., i, ...]``, embedding
        lookups): ONNX ``Gather`` with the index vector's last dimension squeezed."""
        dn = p["dimension_numbers"]
        shape = e.invars[0].aval.shape
        idx_shape = e.invars[1].aval.shape
        if (len(dn.collapsed_slice_dims) == 1 and dn.start_index_map == dn.collapsed_slice_dims
                and idx_shape and _same_dim(idx_shape[-1], 1) and not dn.operand_batching_dims):
            axis = dn.collapsed_slice_dims[0]
            nb = len(idx_shape) - 1
            full = all(_same_dim(s, d) for i, (s, d) in enumerate(zip(p["slice_sizes"], shape))
                       if i != axis)
            offsets = tuple(range(axis)) + tuple(axis + nb + j
                                                 for j in range(len(shape) - 1 - axis))
            if full and tuple(dn.offset_dims) == offsets:
                index = self.node("Squeeze", [ins[1], self.ints([len(idx_shape) - 1])])
                return self.node("Gather", [ins[0], index], axis=axis)
        raise NotImplementedError("jtorch does not implement torch.onnx.export of this "
                                  "gather (advanced indexing) yet")
