"""torch.autograd.functional: vjp, jvp, jacobian, hessian, hvp, vhp on the tape engine."""

from __future__ import annotations

from .grad_mode import enable_grad


def _tup(x):
    from .._tensor import Tensor

    return (x,) if isinstance(x, Tensor) else tuple(x), isinstance(x, Tensor)


def _prep(inputs, create_graph):
    inputs, single = _tup(inputs)
    prepped = tuple(t.detach().requires_grad_(True) if not create_graph or not t._rg
                    else t.view_as(t) for t in inputs)
    return prepped, single


def _grads(outputs, inputs, grad_outputs, create_graph, strict=False):
    from .._creation import zeros_like
    from . import grad

    outs = list(outputs)
    gos = list(grad_outputs)
    keep = [i for i, o in enumerate(outs) if o._rg]
    if not keep:
        if strict:
            raise RuntimeError("The output of the user-provided function is independent of "
                               "input 0. This is not allowed in strict mode.")
        return tuple(zeros_like(t) for t in inputs)
    res = grad([outs[i] for i in keep], inputs, [gos[i] for i in keep], retain_graph=True,
               create_graph=create_graph, allow_unused=True)
    if strict and any(r is None for r in res):
        raise RuntimeError("The output of the user-provided function is independent of input "
                           f"{next(i for i, r in enumerate(res) if r is None)}. This is not "
                           "allowed in strict mode.")
    return tuple(zeros_like(t) if r is None else r for t, r in zip(inputs, res))


def _detach(xs, create_graph):
    return tuple(x if create_graph else x.detach() for x in xs)


def _out(xs, single):
    return xs[0] if single else xs


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """Returns ``(func(inputs), v^T J)``."""
    from .._creation import ones_like

    with enable_grad():
        inputs, single_in = _prep(inputs, create_graph)
        outputs, single_out = _tup(func(*inputs))
        v = (ones_like(outputs[0]),) if v is None else _tup(v)[0]
        g = _grads(outputs, inputs, v, create_graph, strict)
    return _out(_detach(outputs, create_graph), single_out), _out(_detach(g, create_graph),
                                                                  single_in)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """Returns ``(func(inputs), J v)``, by the double-vjp trick as PyTorch does."""
    from .._creation import ones_like, zeros_like

    with enable_grad():
        inputs, single_in = _prep(inputs, create_graph)
        v = tuple(ones_like(t) for t in inputs) if v is None else _tup(v)[0]
        outputs, single_out = _tup(func(*inputs))
        dummies = tuple(zeros_like(o).requires_grad_(True) for o in outputs)
        g = _grads(outputs, inputs, dummies, True, strict)
        jv = _grads(g, dummies, v, create_graph, strict)
    return _out(_detach(outputs, create_graph), single_out), _out(_detach(jv, create_graph),
                                                                  single_out)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: ``J[i][j]`` has shape out_i.shape + in_j.shape."""
    from .._creation import zeros
    from .._ops.shape import stack

    with enable_grad():
        inputs, single_in = _prep(inputs, create_graph)
        outputs, single_out = _tup(func(*inputs))
        jac = []
        for o in outputs:
            flat = o.reshape(-1)
            rows = []
            for k in range(flat.shape[0]):
                go = zeros(flat.shape, dtype=o.dtype)
                go[k] = 1
                rows.append(_grads([flat], inputs, [go], create_graph, strict))
            per_in = []
            for j, t in enumerate(inputs):
                if rows:
                    r = stack([row[j] for row in rows]).reshape(tuple(o.shape) + tuple(t.shape))
                else:
                    r = zeros(tuple(o.shape) + tuple(t.shape), dtype=t.dtype)
                per_in.append(r if create_graph else r.detach())
            jac.append(per_in[0] if single_in else tuple(per_in))
    return jac[0] if single_out else tuple(jac)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar ``func`` at ``inputs``."""
    single = _tup(inputs)[1]

    def grad_fn(*xs):
        out = func(*xs)
        if out.numel() != 1:
            raise RuntimeError("The function given to hessian should return a single element "
                               "Tensor")
        return _grads([out.reshape(())], xs, [out.new_ones(())], True, strict)

    res = jacobian(grad_fn if not single else (lambda x: grad_fn(x)[0]), inputs,
                   create_graph=create_graph, strict=strict)
    return res


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """Returns ``(func(inputs), H v)`` for a scalar ``func`` (H symmetric, so H v = v^T H)."""
    return vhp(func, inputs, v, create_graph, strict)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """Returns ``(func(inputs), v^T H)`` for a scalar ``func``."""
    with enable_grad():
        xs, single = _prep(inputs, create_graph)
        out = func(*xs)
        if out.numel() != 1:
            raise RuntimeError("The function given to hvp should return a single element Tensor")
        g = _grads([out], xs, [out.new_ones(out.shape)], True, strict)
        v = tuple(v) if isinstance(v, (tuple, list)) else (v,)
        hv = _grads(g, xs, v, create_graph, strict)
    return (out if create_graph else out.detach()), _out(_detach(hv, create_graph), single)
