"""torch.autograd.functional: vjp, jvp, jacobian, hessian, hvp, vhp on the tape engine.

Same structure, argument checks and strict-mode errors as PyTorch's; ``vectorize`` and the
forward-mode strategies give the same values through reverse mode (one backward per output
element).
"""

from __future__ import annotations

import jax.numpy as jnp

from .._core.state import STATE
from .._core.tensor_base import TensorBase
from .._ops.creation import zeros, zeros_like
from .._ops.shape import stack
from .grad_mode import enable_grad, set_grad_enabled
from .gradients import grad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _as_tuple(inp, arg_name=None, fn_name=None):
    if arg_name is None and fn_name is None:   # PyTorch's _as_tuple_nocheck: the tuple alone
        return tuple(inp) if isinstance(inp, (tuple, list)) else (inp,)
    is_tuple = isinstance(inp, tuple)
    inp = inp if is_tuple else (inp,)
    for i, el in enumerate(inp):
        if not isinstance(el, TensorBase):
            where = f"value at index {i}" if is_tuple else f"given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                            f"tuple of Tensors but the {where} has type {type(el)}.")
    return is_tuple, inp


def _unpack(res, is_tuple):
    return res if is_tuple else res[0]


def _preprocess(inputs, create_graph, need_graph):
    return tuple(t.view(tuple(t.shape)) if create_graph and t._requires_grad
                 else t.detach().requires_grad_(need_graph) for t in inputs)


def _postprocess(xs, create_graph):
    if not isinstance(xs[0], tuple):
        return xs if create_graph else tuple(x.detach() for x in xs)
    return tuple(_postprocess(x, create_graph) for x in xs)


# PyTorch's private names for these helpers, which libraries import (pytorch-minimize's
# ScipyMinimizer builds a constraint's Jacobian from them and the legacy _vmap)
_grad_postprocess = _postprocess


def _tuple_postprocess(res, to_unpack):
    """Undoes ``_as_tuple``'s wrapping: ``to_unpack`` is one flag, or (outer, inner) for a
    nested tuple (outputs x inputs)."""
    if isinstance(to_unpack, tuple):
        if len(to_unpack) != 2:
            raise AssertionError("Expected to_unpack tuple to have exactly 2 elements")
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _construct_standard_basis_for(tensors, tensor_numels):
    """The N x N identity (N = sum of ``tensor_numels``) split by columns into one chunk per
    tensor, each of that tensor's dtype and device."""
    if len(tensors) != len(tensor_numels):
        raise AssertionError("Expected tensors and tensor_numels to have the same length, but "
                             f"got {len(tensors)} and {len(tensor_numels)}")
    if len(tensors) == 0:
        raise AssertionError("Expected at least one tensor")
    total, start, chunks = sum(tensor_numels), 0, []
    for t, n in zip(tensors, tensor_numels):
        chunks.append(TensorBase._make(jnp.eye(total, n, -start, t.dtype.np), t.device))
        start += n
    return tuple(chunks)


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got "
                               f"{len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, other)):
        if a.shape != b.shape:
            prefix = f"Entry {i} in " if is_other_tuple else ""
            raise RuntimeError(f"{prefix}v has invalid size: should be {b.shape} but got "
                               f"{a.shape}.")


_INDEPENDENT = {
    "outputs": "Output {i} of the user-provided function does not require gradients. The "
               "outputs must be computed in a differentiable manner from the input when "
               "running in strict mode.",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the "
                   "user-provided function. This is not allowed in strict mode.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided "
                "function with respect to input {i} is independent of the input. This is not "
                "allowed in strict mode. You should ensure that your function is twice "
                "differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example).",
    "hessian": "The hessian of the user-provided function with respect to input {i} is "
               "independent of the input. This is not allowed in strict mode. You should "
               "ensure that your function is thrice differentiable and that the hessian "
               "depends on the inputs.",
}


def _check_requires_grad(xs, kind, strict):
    if not strict:
        return
    for i, x in enumerate(xs):
        if x is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if not x._requires_grad:
            raise RuntimeError(_INDEPENDENT[kind].format(i=i))


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    grad_outputs = (None,) * len(outputs) if grad_outputs is None else grad_outputs
    keep = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o._requires_grad]
    if not keep:
        return (None,) * len(inputs)
    return grad([o for o, _ in keep], inputs, [g for _, g in keep], allow_unused=True,
                create_graph=create_graph, retain_graph=retain_graph)


_FILL_ERRORS = {
    "back": "The output of the user-provided function is independent of input {i}. This is "
            "not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
                   "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry "
                         "{i} in the grad_jacobian. This is not allowed in strict mode as it "
                         "prevents from using the double backward trick to replace forward "
                         "mode AD.",
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_FILL_ERRORS[stage].format(i=i))
            g = zeros_like(refs[i])
        elif strict and create_graph and not g._requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")
        res.append(g)
    return tuple(res)


def _v_or_none(v, against, is_tuple, fn, create_graph, what):
    if v is not None:
        _, v = _as_tuple(v, "v", fn)
        v = _preprocess(v, create_graph, need_graph=False)
        _validate_v(v, against, is_tuple)
        return v
    if len(against) != 1 or against[0].numel() != 1:
        raise RuntimeError(f"The vector v can only be None if {what} a single Tensor with a "
                           "single element.")
    return None


_OF_INPUT = "the input to the user-provided function is"
_OF_OUTPUT = "the user-provided function returns"


def _prepared_inputs(inputs, fn, create_graph):
    """``(is_tuple, inputs)``: the inputs as a tuple, each made a differentiable graph leaf."""
    in_tuple, inputs = _as_tuple(inputs, "inputs", fn)
    return in_tuple, _preprocess(inputs, create_graph, need_graph=True)


def _inputs_and_v(inputs, v, fn, create_graph):
    """``(is_tuple, inputs, v)``: the prepared inputs and the vector ``v`` checked against
    them (jvp, vhp, hvp)."""
    in_tuple, inputs = _prepared_inputs(inputs, fn, create_graph)
    return in_tuple, inputs, _v_or_none(v, inputs, in_tuple, fn, create_graph, _OF_INPUT)


def _func_outputs(func, inputs, strict, fn):
    """``(is_tuple, outputs)`` of ``func(*inputs)``, the outputs checked to require grad."""
    out_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", fn)
    _check_requires_grad(outputs, "outputs", strict)
    return out_tuple, outputs


def _last_grad_and_outputs(outputs, out_tuple, grad_args, refs, res_tuple, stage, strict,
                           create_graph):
    """The ``(outputs, result)`` pair of vjp/jvp/vhp/hvp: the last ``autograd.grad(*grad_args)``
    (under the caller's grad mode unless ``create_graph``), missing gradients filled with zeros
    shaped like ``refs`` (or the ``stage``'s strict-mode error), both unpacked like the user
    gave them."""
    with set_grad_enabled(True if create_graph else STATE.grad_enabled):
        res = _autograd_grad(*grad_args, create_graph=create_graph)
        res = _fill_in_zeros(res, refs, strict, create_graph, stage)
    return (_unpack(_postprocess(outputs, create_graph), out_tuple),
            _unpack(_postprocess(res, create_graph), res_tuple))


def _double_backward_trick(ys, inputs, zeros_for):
    """The first backward of the double-backward trick (forward-mode products by reverse
    mode): ``(u^T d ys / d inputs, u)`` for cotangents ``u``, zeros shaped like ``zeros_for``
    that require grad; the gradient of the first with respect to ``u``, applied to ``v``, is
    the product of ``d ys / d inputs`` with ``v``."""
    u = tuple(zeros_like(t, requires_grad=True) for t in zeros_for)
    return _autograd_grad(ys, inputs, u, create_graph=True), u


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """Returns ``(func(inputs), v^T J)``."""
    with enable_grad():
        in_tuple, inputs = _prepared_inputs(inputs, "vjp", create_graph)
        out_tuple, outputs = _func_outputs(func, inputs, strict, "vjp")
        v = _v_or_none(v, outputs, out_tuple, "vjp", create_graph, _OF_OUTPUT)
    return _last_grad_and_outputs(outputs, out_tuple, (outputs, inputs, v), inputs, in_tuple,
                                  "back", strict, create_graph)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """Returns ``(func(inputs), J v)``, by the double-backward trick as PyTorch does."""
    with enable_grad():
        in_tuple, inputs, v = _inputs_and_v(inputs, v, "jvp", create_graph)
        out_tuple, outputs = _func_outputs(func, inputs, strict, "jvp")
        grad_inputs, dummies = _double_backward_trick(outputs, inputs, outputs)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    return _last_grad_and_outputs(outputs, out_tuple, (grad_inputs, dummies, v), outputs, out_tuple,
                                  "back_trick", strict, create_graph)


def _one_hot(out, j):
    n = out.numel()
    arr = jnp.zeros((n,), out.dtype.np).at[j].set(1).reshape(tuple(out.shape))
    return TensorBase._make(arr, out.device)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: entry (i, j) has shape out_i.shape + in_j.shape."""

    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                             'Hint: If your function has more outputs than inputs, '
                             '"forward-mode" tends to be more performant. Otherwise, prefer to '
                             'use "reverse-mode".')
    if strategy == "forward-mode":   # same values, computed here by reverse mode
        if create_graph:
            raise NotImplementedError("torch.autograd.functional.jacobian: `create_graph=True` "
                                      'and `strategy="forward-mode"` are not supported together '
                                      '(yet). Please either set `create_graph=False` or '
                                      '`strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                               '`strategy="forward-mode"` are not supported together (yet). '
                               'Please either set `strict=False` or `strategy="reverse-mode"`.')
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-"
                                      "reverse Hessian isonly implemented for `vectorize=True`.")
    with enable_grad():
        in_tuple, inputs = _prepared_inputs(inputs, "jacobian", create_graph)
        out_tuple, outputs = _func_outputs(func, inputs, strict, "jacobian")
        jac = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]
            for j in range(out.numel()):
                vj = _autograd_grad((out,), inputs, (_one_hot(out, j),), retain_graph=True,
                                    create_graph=create_graph)
                for k, (g, inp) in enumerate(zip(vj, inputs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is "
                                               f"independent of input {k}. This is not "
                                               "allowed in strict mode.")
                        g = zeros_like(inp)
                    elif strict and create_graph and not g._requires_grad:
                        raise RuntimeError("The jacobian of the user-provided function is "
                                           f"independent of input {i}. This is not allowed "
                                           "in strict mode when create_graph=True.")
                    rows[k].append(g)
            jac.append(tuple(
                stack(r).view(tuple(out.shape) + tuple(inp.shape)) if r else
                zeros(tuple(out.shape) + tuple(inp.shape), dtype=inp.dtype, device=inp.device)
                for r, inp in zip(rows, inputs)))
        jac = _postprocess(tuple(jac), create_graph)
    jac = jac if in_tuple else tuple(r[0] for r in jac)
    return _unpack(jac, out_tuple)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar ``func`` at ``inputs``."""
    in_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def single_output(*inp):
        out = func(*inp)
        is_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict)
        if is_tuple or not isinstance(out, TensorBase):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        return out.view(())

    def jac_func(*inp):
        jac = jacobian(single_output, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return res if in_tuple else res[0][0]


def _scalar_func_gradient(func, inputs, v, create_graph, strict, name):
    """vhp's and hvp's start: ``(in_tuple, inputs, v, out_tuple, outputs, gradient)`` for a
    ``func`` that must return one one-element tensor, its gradient kept differentiable."""
    in_tuple, inputs, v = _inputs_and_v(inputs, v, name, create_graph)
    out_tuple, outputs = _func_outputs(func, inputs, strict, name)
    if out_tuple or not isinstance(outputs[0], TensorBase):
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {name} should "
                           "contain a single element")
    jac = _autograd_grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict)
    return in_tuple, inputs, v, out_tuple, outputs, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """Returns ``(func(inputs), v^T H)`` for a scalar ``func``."""
    with enable_grad():
        in_tuple, inputs, v, out_tuple, outputs, jac = _scalar_func_gradient(
            func, inputs, v, create_graph, strict, "vhp")
    return _last_grad_and_outputs(outputs, out_tuple, (jac, inputs, v), inputs, in_tuple,
                                  "double_back", strict, create_graph)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """Returns ``(func(inputs), H v)`` for a scalar ``func`` (by the double-backward trick)."""
    with enable_grad():
        in_tuple, inputs, v, out_tuple, outputs, jac = _scalar_func_gradient(
            func, inputs, v, create_graph, strict, "hvp")
        double_back, grad_jac = _double_backward_trick(jac, inputs, inputs)
        _check_requires_grad(jac, "hessian", strict)
    return _last_grad_and_outputs(outputs, out_tuple, (double_back, grad_jac, v), inputs, in_tuple,
                                  "double_back_trick", strict, create_graph)
