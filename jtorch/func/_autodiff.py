"""torch.func's autodiff transforms on JAX's: grad, grad_and_value, vjp, jvp, jacrev, jacfwd,
hessian, linearize. See _core.py for how a transform call becomes one pure function of arrays."""

from __future__ import annotations

import contextlib
from types import SimpleNamespace

import jax
import jax.numpy as jnp
import numpy as np

from .._core.kernel import conj_complex
from .._core.state import STATE
from .._tensor import Tensor
from ..utils import _pytree as pt
from ._core import (
    Inputs,
    check_differentiable,
    check_tensor_outputs,
    collecting,
    diff_positions,
    differentiating,
    error_if_complex,
    is_float,
    normalize_argnums,
    note,
    run,
    slice_argnums,
    split_aux,
    transform_wraps,
    unwrap_aux,
    wrap,
)
from ._vmap import check_randomness, rng_mode

_VJP = "vjp(f, *primals)"
_JVP = "jvp(f, primals, tangents)"


def _replace(arrays, positions, values):
    full = list(arrays)
    for p, v in zip(positions, values):
        full[p] = v
    return full


# ----------------------------------------------------------------------------- grad
def grad(func, argnums=0, has_aux=False):
    """``torch.func.grad``: a function computing the gradient of scalar ``func`` with respect
    to the argument(s) ``argnums`` (pytrees of Tensors); with ``has_aux``, ``func`` returns
    ``(output, aux)`` and the call returns ``(grads, aux)``."""

    @transform_wraps(func)
    def wrapper(*args, **kwargs):
        g, (_, aux) = _grad_and_value(func, argnums, has_aux, args, kwargs)
        return (g, aux) if has_aux else g

    return wrapper


def grad_and_value(func, argnums=0, has_aux=False):
    """``torch.func.grad_and_value``: ``(grads, output)``, or ``(grads, (output, aux))``."""

    @transform_wraps(func)
    def wrapper(*args, **kwargs):
        g, (value, aux) = _grad_and_value(func, argnums, has_aux, args, kwargs)
        return (g, (value, aux)) if has_aux else (g, value)

    return wrapper


def _grad_and_value(func, argnums, has_aux, args, kwargs):
    inp = Inputs(args, kwargs)
    argnums = normalize_argnums(argnums, len(args))
    dpos = diff_positions(inp, argnums)
    side = SimpleNamespace(aux_spec=None)
    api = "grad_and_value(f)(*args)"

    def compute(*arrays):
        def pure(*diff):
            a, kw = inp.rebuild(_replace(arrays, dpos, diff))
            with differentiating(diff):
                out = func(*a, **kw)
            aux = None
            if has_aux:
                out, aux = split_aux(out, api)
            if not isinstance(out, Tensor):
                raise RuntimeError(f"{api}: Expected f(*args) to return a Tensor, got "
                                   f"{type(out)}")
            if out.dim() != 0:
                raise RuntimeError(f"{api}: Expected f(*args) to return a scalar Tensor, got "
                                   f"tensor with {out.dim()} dims. Maybe you wanted to use "
                                   "the vjp or jacrev APIs instead?")
            note([out])
            aux_arrays = []
            if has_aux:
                aux_arrays, side.aux_spec = unwrap_aux(aux)
            return out._value, aux_arrays

        (value, aux), grads = jax.value_and_grad(
            pure, argnums=tuple(range(len(dpos))), has_aux=True)(*[arrays[p] for p in dpos])
        return [*map(conj_complex, grads), value, *aux]

    res = run(compute, inp.tensors, "GradBackward")
    n = len(dpos)
    _, spec = pt.tree_flatten(slice_argnums(args, argnums, as_tuple=False))
    grads = pt.tree_unflatten(res[:n], spec)
    aux = pt.tree_unflatten(res[n + 1:], side.aux_spec) if has_aux else None
    return grads, (res[n], aux)


# ----------------------------------------------------------------------------- vjp
def _call_rebuilt(func, inp, arrays, has_aux, api, side):
    """``func`` called on the inputs rebuilt around ``arrays``: ``(output leaves, aux arrays)``,
    the output (and aux) tree specs kept on ``side``; ``api``'s checks of the outputs (vjp's
    must be floating-point or complex)."""
    a, _ = inp.rebuild(arrays)
    out = func(*a)
    aux_arrays = []
    if has_aux:
        out, aux = split_aux(out, api)
        aux_arrays, side.aux_spec = unwrap_aux(aux)
    leaves, side.out_spec = pt.tree_flatten(out)
    check_tensor_outputs(leaves, api)
    if api == _VJP:
        for o in leaves:
            if not o.dtype.is_floating_point and not o.dtype.is_complex:
                raise RuntimeError("vjp(f, ...): All outputs of f must be floating-point or "
                                   f"complex Tensors, got Tensor with dtype {o.dtype}")
    return leaves, aux_arrays


def vjp(func, *primals, has_aux=False):
    """``torch.func.vjp``: ``(output, vjp_fn)`` (``(output, vjp_fn, aux)`` with ``has_aux``);
    ``vjp_fn(cotangents)`` returns a tuple with the vjp for each primal."""
    inp = Inputs(primals)
    for x in inp.leaves:
        check_differentiable(x)
    side = SimpleNamespace(aux_spec=None)

    def pure(*arrays):
        with differentiating(arrays):
            leaves, aux_arrays = _call_rebuilt(func, inp, arrays, has_aux, _VJP, side)
        return [o._value for o in leaves], aux_arrays

    tensors = inp.tensors
    recorded, closed = STATE.grad_enabled and any(t._requires_grad for t in tensors), ()
    pull = None
    if not recorded:
        with collecting() as closed:
            outs, pull, aux = jax.vjp(pure, *inp.arrays(), has_aux=True)
        res = [wrap(o, tensors[0]) for o in [*outs, *aux]]
    if recorded or closed:
        res = run(lambda *a: (lambda o, x: [*o, *x])(*pure(*a)), tensors, "VjpBackward")
        pull = None
    n = side.out_spec.num_leaves
    outs_t = res[:n]
    _, primals_spec = pt.tree_flatten(primals)

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        leaves, spec = pt.tree_flatten(cotangents)
        if spec != side.out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as "
                               "pytree structure of outputs to the function. cotangents: "
                               f"{pt.treespec_pprint(spec)}, primal output: "
                               f"{pt.treespec_pprint(side.out_spec)}")
        for i, (c, o) in enumerate(zip(leaves, outs_t)):
            if tuple(c.shape) != tuple(o.shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                                   f"{c.shape} and output[{i}] has a shape of {o.shape}.")
        dtypes = [o._array.dtype for o in outs_t]

        def pullback(*arrays):
            prim, cts = arrays[:len(tensors)], arrays[len(tensors):]
            cts = [conj_complex(c.astype(d)) for c, d in zip(cts, dtypes)]
            if pull is None or prim_changed(prim):
                pull_now = jax.vjp(lambda *p: pure(*p)[0], *prim)[1]
            else:
                pull_now = pull
            return [conj_complex(g) for g in pull_now(cts)]

        def prim_changed(prim):
            return any(p is not t._value for p, t in zip(prim, tensors))

        grads = run(pullback, [*tensors, *leaves], "VjpFnBackward")
        return pt.tree_unflatten(grads, primals_spec)

    output = pt.tree_unflatten(outs_t, side.out_spec)
    if has_aux:
        return output, vjp_fn, pt.tree_unflatten(res[n:], side.aux_spec)
    return output, vjp_fn


# ----------------------------------------------------------------------------- jvp
def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``torch.func.jvp``: ``(output, jvp_out)`` (``(output, jvp_out, aux)`` with
    ``has_aux``), forward-mode derivative of ``func`` at ``primals`` along ``tangents``."""
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{_JVP}: Expected primals to be a tuple. E.g. it should be valid "
                           "to call f(*primals).")
    p_leaves, p_spec = pt.tree_flatten(primals)
    t_leaves, t_spec = pt.tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(f"{_JVP}: Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, "
                           "tangents also must be. Got primals with structure "
                           f"{p_spec} and tangents with structure {t_spec}")
    _check_tensor_list(p_leaves, "primals")
    _check_tensor_list(t_leaves, "tangents")
    if strict:
        raise NotImplementedError("jtorch does not implement torch.func.jvp(strict=True) yet")
    for p, t in zip(p_leaves, t_leaves):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError("Trying to set a forward gradient that has a different size "
                               "than that of the original Tensor, this is not supported. "
                               f"Tensor is of size {list(p.shape)} while the given forward "
                               f"gradient is of size {list(t.shape)}.")
    inp = Inputs(primals)
    side = SimpleNamespace(aux_spec=None)
    n = len(p_leaves)

    def pure(*arrays):
        leaves, aux_arrays = _call_rebuilt(func, inp, arrays, has_aux, _JVP, side)
        return [o._value for o in leaves], aux_arrays

    def compute(*arrays):
        prim = list(arrays[:n])
        tans = [_tangent(t, p) for t, p in zip(arrays[n:], prim)]
        outs, touts, aux = jax.jvp(pure, prim, tans, has_aux=True)
        return [*outs, *touts, *aux]

    res = run(compute, [*p_leaves, *t_leaves], "JvpBackward")
    m = side.out_spec.num_leaves
    out = pt.tree_unflatten(res[:m], side.out_spec)
    tout = pt.tree_unflatten(res[m:2 * m], side.out_spec)
    if has_aux:
        return out, tout, pt.tree_unflatten(res[2 * m:], side.aux_spec)
    return out, tout


def _tangent(t, p):
    if not is_float(p):
        return np.zeros(p.shape, jax.dtypes.float0)
    return t.astype(p.dtype)


def _check_tensor_list(leaves, argname):
    if len(leaves) == 0:
        raise RuntimeError(f"{_JVP}: Expected {argname} to contain at least one Tensor.")
    for x in leaves:
        if not isinstance(x, Tensor):
            raise RuntimeError(f"{_JVP}: Expected {argname} to only contain Tensors, got "
                               f"{type(x)}")


# ----------------------------------------------------------------------------- jacobians
def _diff_outputs(func, inp, dpos, arrays, has_aux, api, jac_name, side):
    """The pure function of the differentiated arrays used by jacrev/jacfwd."""

    def pure(*diff):
        # (jacrev's is a reverse-mode transform, jacfwd's a forward one)
        with differentiating(diff) if api == _VJP else contextlib.nullcontext():
            leaves, aux_arrays = _call_rebuilt(func, inp, _replace(arrays, dpos, diff), has_aux,
                                               api, side)
        error_if_complex(jac_name, leaves, is_input=False)
        return [o._value for o in leaves], aux_arrays

    return pure


def _jacobian_tree(res, side, args, argnums, n_in, has_aux):
    """Nest the flat [out0-in0, out0-in1, ..., aux...] list as PyTorch does: outputs outside,
    differentiated inputs inside (a bare jacobian per output when ``argnums`` is an int)."""
    _, p_spec = pt.tree_flatten(slice_argnums(args, argnums))
    n_out = side.out_spec.num_leaves
    per_out = []
    for i in range(n_out):
        t = pt.tree_unflatten(res[i * n_in:(i + 1) * n_in], p_spec)
        per_out.append(t[0] if isinstance(argnums, int) else t)
    jac = pt.tree_unflatten(per_out, side.out_spec)
    if has_aux:
        return jac, pt.tree_unflatten(res[n_out * n_in:], side.aux_spec)
    return jac


def _jacobian_transform(func, argnums, has_aux, kind, name, node_name, jacobian,
                        before_run=None):
    """The function jacrev/jacfwd return: ``jacobian(pure, diff)`` gives the flat
    ``(out_i-in_j jacobians, aux arrays)`` of the pure function of the differentiated arrays;
    ``before_run`` (if any) checks the call first."""

    @transform_wraps(func)
    def wrapper_fn(*args):
        inp = Inputs(args)
        error_if_complex(name, inp.leaves, is_input=True)
        nums = normalize_argnums(argnums, len(args))
        dpos = diff_positions(inp, nums)
        side = SimpleNamespace(aux_spec=None)

        def compute(*arrays):
            pure = _diff_outputs(func, inp, dpos, arrays, has_aux, kind, name, side)
            res, aux = jacobian(pure, [arrays[p] for p in dpos])
            return [*res, *aux]

        if before_run is not None:
            before_run()
        res = run(compute, inp.tensors, node_name)
        return _jacobian_tree(res, side, args, nums, len(dpos), has_aux)

    return wrapper_fn


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """``torch.func.jacrev``: the Jacobian of ``func`` with respect to ``argnums`` by
    reverse mode (one vjp per output element, vmapped; ``chunk_size`` rows at a time)."""
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    def jacobian(pure, diff):
        outs, pull, aux = jax.vjp(pure, *diff, has_aux=True)
        numels = [int(np.prod(o.shape)) for o in outs]
        offs = np.cumsum([0, *numels])
        total = int(offs[-1])
        step = total if chunk_size is None else chunk_size
        parts = []
        for r0 in range(0, total, step):
            rows = min(step, total - r0)
            basis = [jnp.eye(rows, n, k=r0 - int(off), dtype=o.dtype).reshape(rows, *o.shape)
                     for o, n, off in zip(outs, numels, offs)]
            parts.append(jax.vmap(pull)(basis))
        per_in = [jnp.concatenate([p[j] for p in parts]) if len(parts) > 1 else parts[0][j]
                  for j in range(len(diff))]
        return [per_in[j][offs[i]:offs[i + 1]].reshape(*o.shape, *diff[j].shape)
                for i, o in enumerate(outs) for j in range(len(diff))], aux

    return _jacobian_transform(func, argnums, has_aux, _VJP, "jacrev", "JacrevBackward",
                               jacobian)


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """``torch.func.jacfwd``: the Jacobian of ``func`` with respect to ``argnums`` by forward
    mode (one jvp per input element, vmapped)."""

    def jacobian(pure, diff):
        numels = [int(np.prod(d.shape)) for d in diff]
        offs = np.cumsum([0, *numels])
        total = int(offs[-1])
        basis = [jnp.eye(total, n, k=-int(off), dtype=d.dtype).reshape(total, *d.shape)
                 for d, n, off in zip(diff, numels, offs)]

        def push(keys, *b):
            with rng_mode(randomness, keys):
                _, touts, aux = jax.jvp(pure, diff, list(b), has_aux=True)
            return touts, aux

        keys = rng_mode.batch_keys(randomness, total)
        touts, aux = jax.vmap(push, in_axes=(0 if keys is not None else None,
                                             *[0] * len(basis)))(keys, *basis)
        res = []
        for t in touts:
            flat = jnp.moveaxis(t, 0, -1)
            for j, d in enumerate(diff):
                res.append(flat[..., offs[j]:offs[j + 1]].reshape(*t.shape[1:], *d.shape))
        return res, [a[0] for a in aux]

    return _jacobian_transform(func, argnums, has_aux, _JVP, "jacfwd", "JacfwdBackward",
                               jacobian, before_run=lambda: check_randomness(randomness))


def hessian(func, argnums=0):
    """``torch.func.hessian``: ``jacfwd(jacrev(func, argnums), argnums)``."""
    return jacfwd(jacrev(func, argnums), argnums)


# ----------------------------------------------------------------------------- linearize
def linearize(func, *primals):
    """``torch.func.linearize``: ``(output, jvp_fn)`` where ``jvp_fn(*tangents)`` is the
    forward-mode derivative at ``primals`` (JAX's linearize: the linear map is kept)."""
    inp = Inputs(primals)
    for x in inp.leaves:
        check_differentiable(x)
    tensors = inp.tensors
    side = SimpleNamespace()

    def pure(*arrays):
        a, _ = inp.rebuild(arrays)
        leaves, side.out_spec = pt.tree_flatten(func(*a))
        check_tensor_outputs(leaves, "linearize(f, *primals)")
        return [o._value for o in leaves]

    recorded = STATE.grad_enabled and any(t._requires_grad for t in tensors)
    closed, f_jvp = (), None
    if not recorded:
        with collecting() as closed:
            outs, f_jvp = jax.linearize(pure, *inp.arrays())
        out = [wrap(o, tensors[0]) for o in outs]
    if recorded or closed:
        out = run(pure, tensors, "LinearizeBackward")
        f_jvp = None
    _, p_spec = pt.tree_flatten(primals)

    def jvp_fn(*tangents):
        leaves, spec = pt.tree_flatten(tangents)
        if spec != p_spec:
            raise RuntimeError(f"Expected the tangents {spec} to have the same argspec as the "
                               f"primals {p_spec}")
        for i, (t, p) in enumerate(zip(leaves, tensors)):
            for what in ("shape", "device", "dtype"):
                tv, pv = getattr(t, what), getattr(p, what)
                if tv != pv:
                    raise RuntimeError(f"tangent:{i} with {what} {tv} in flattened pytree "
                                       f"doesn't match the {what} {pv} of the corresponding "
                                       "primal.")

        def push(*tans):  # PyTorch's jvp_fn is a traced graph: the primals are constants
            if f_jvp is not None:
                return f_jvp(*tans)
            return jax.jvp(pure, [t._value for t in tensors], list(tans))[1]

        return pt.tree_unflatten(run(push, leaves, "LinearizeJvpBackward"), side.out_spec)

    return pt.tree_unflatten(out, side.out_spec), jvp_fn
