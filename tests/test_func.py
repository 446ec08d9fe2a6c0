"""torch.func against real PyTorch: grad/grad_and_value (argnums, has_aux, pytrees), vjp, jvp,
jacrev/jacfwd/hessian, linearize, vmap (in_dims/out_dims/chunk_size/nesting/randomness),
per-sample gradients through functional_call, stack_module_state, error texts.

``parity`` also backpropagates through each transform's result (inputs that require grad make
the transform one node of the tape, as in PyTorch) and reruns it under jax.jit."""

from __future__ import annotations

import functools

import jax
import numpy as np
import pytest
import torch

import jtorch
from tests.helpers import NoGrad, assert_close, parity, raises_like, rand

LIBS = (torch, jtorch)


def _t(lib, a, grad=False):
    t = lib.tensor(a)
    return t.requires_grad_() if grad else t


def _norm(x):
    """Dicts as tuples (sorted keys) so assert_close can walk the structure."""
    if isinstance(x, dict):
        return tuple(_norm(x[k]) for k in sorted(x))
    if isinstance(x, (list, tuple)):
        return type(x)(_norm(e) for e in x) if not hasattr(x, "_fields") else \
            tuple(_norm(e) for e in x)
    return x


def both(fn, *arrays, atol=None, rtol=None):
    """``fn(lib, *tensors)`` with torch and jtorch (NumPy arrays -> tensors, no grad)."""
    res = [fn(lib, *[_t(lib, a) if isinstance(a, np.ndarray) else a for a in arrays])
           for lib in LIBS]
    assert_close(_norm(res[1]), _norm(res[0]), atol, rtol)
    return res


def F(lib):  # noqa: N802
    return lib.func


X3, Y3 = rand(3, seed=1), rand(3, seed=2)
A34, B43 = rand(3, 4, seed=3), rand(4, 3, seed=4)
X64 = rand(4, dtype=np.float64, seed=5)


# ----------------------------------------------------------------------------- grad
def _f_sq(T, x, y):
    return (x.sin() * y).sum() + (x ** 2).sum()


GRAD_CASES = {
    "argnum0": lambda T, x, y: F(T).grad(functools.partial(_f_sq, T))(x, y),
    "argnum1": lambda T, x, y: F(T).grad(functools.partial(_f_sq, T), argnums=1)(x, y),
    "argnum-1": lambda T, x, y: F(T).grad(functools.partial(_f_sq, T), argnums=-1)(x, y),
    "argnums01": lambda T, x, y: F(T).grad(functools.partial(_f_sq, T), argnums=(0, 1))(x, y),
    "argnums10": lambda T, x, y: F(T).grad(functools.partial(_f_sq, T), argnums=(1, 0))(x, y),
    "aux": lambda T, x, y: F(T).grad(lambda a, b: ((a * b).sum(), (a.cos(), b * 2)),
                                     has_aux=True)(x, y),
    "value": lambda T, x, y: F(T).grad_and_value(lambda a, b: (a * b).exp().sum())(x, y),
    "value_aux": lambda T, x, y: F(T).grad_and_value(
        lambda a, b: ((a * b).exp().sum(), a.tanh()), argnums=(0, 1), has_aux=True)(x, y),
    "tuple_arg": lambda T, x, y: F(T).grad(lambda p: (p[0] * p[1].exp()).sum())((x, y)),
    "list_arg": lambda T, x, y: F(T).grad(lambda p: (p[0] / (1 + p[1] ** 2)).sum())([x, y]),
    "kwargs": lambda T, x, y: F(T).grad(lambda a, scale=1.0: (a * scale).sin().sum())(
        x, scale=y),
    "grad_grad": lambda T, x, y: F(T).grad(F(T).grad(lambda a: a.sin().sum() * 3))(x[0]),
    "grad_grad_grad": lambda T, x, y: F(T).grad(F(T).grad(F(T).grad(
        lambda a: (a ** 4).sum())))(x[1]),
    "vmap_grad": lambda T, x, y: F(T).vmap(F(T).grad(lambda a, b: (a * b).sin().sum()))(
        x.reshape(3, 1).expand(3, 2) * 1, y.reshape(3, 1).expand(3, 2) * 1),
    "grad_vmap": lambda T, x, y: F(T).grad(lambda a: F(T).vmap(torch_or_j_dot(T))(
        a.reshape(3, 1) * y.reshape(1, 3), y.reshape(1, 3).expand(3, 3) * 1).sum())(x),
}


def torch_or_j_dot(T):
    return lambda u, v: (u * v).sum()


@pytest.mark.parametrize("name", GRAD_CASES)
def test_grad_family(name):
    # x requires grad in both libraries: the result is differentiated again through the tape
    parity(GRAD_CASES[name], X3, Y3)


def test_grad_unused_argument():
    # constant gradients: PyTorch's results do not require grad; jtorch's would (it records
    # every float output of a transform whose inputs require grad), so compare without grad
    parity(lambda T, x, y: F(T).grad(lambda a, b: b.sum(), argnums=(0, 1))(x, y),
           NoGrad(X3), NoGrad(Y3))


def test_grad_dict_and_float64():
    both(lambda T, a, b: F(T).grad(lambda d: (d["w"] @ d["b"]).sin().sum())(
        {"w": a, "b": b}), A34, B43)
    both(lambda T, x: F(T).grad(lambda a: (a.exp() * a).sum())(x), X64)
    res = both(lambda T, x: F(T).grad(lambda a: a.sum())(x), X64)
    assert res[1].dtype == jtorch.float64


def test_detach_and_python_values_inside_grad():
    both(lambda T, x: F(T).grad(lambda a: a.detach().pow(2).sum() + (a * a.detach()).sum())(x),
         X3)
    both(lambda T, x: F(T).grad(lambda a: (a * a).sum() if float(a.sum()) > 0 else
                                -a.sum())(x), X3)


# ----------------------------------------------------------------------------- vjp / jvp
def _vjp_multi(T, x, y):
    out, fn = F(T).vjp(lambda a, b: (a.sin() * b, (a * b).sum()), x, y)
    ct = (T.ones_like(out[0]) * 0.5, T.tensor(2.0))
    return out, fn(ct)


VJP_JVP_CASES = {
    "vjp": lambda T, x, y: (lambda o, f: (o, f(T.ones(3) * y))[1])(*F(T).vjp(T.sin, x)),
    "vjp_multi": _vjp_multi,
    "vjp_aux": lambda T, x, y: (lambda o, f, aux: (o, f(y), aux))(
        *F(T).vjp(lambda a: (a.exp(), a.cos()), x, has_aux=True)),
    "jvp": lambda T, x, y: F(T).jvp(lambda a, b: a.sin() * b, (x, y), (y, x)),
    "jvp_multi": lambda T, x, y: F(T).jvp(lambda a: (a.exp(), [a.sum(), a * 2]), (x,), (y,)),
    "jvp_aux": lambda T, x, y: F(T).jvp(lambda a: (a.tanh(), a.sum()), (x,), (y,),
                                        has_aux=True),
    "linearize": lambda T, x, y: (lambda o, f: (o, f(y), f(x)))(*F(T).linearize(T.sin, x)),
    "vjp_of_grad": lambda T, x, y: F(T).vjp(F(T).grad(lambda a: a.sin().sum()), x)[1](y),
    "jvp_of_grad": lambda T, x, y: F(T).jvp(F(T).grad(lambda a: (a ** 3).sum()), (x,), (y,)),
}


@pytest.mark.parametrize("name", VJP_JVP_CASES)
def test_vjp_jvp(name):
    parity(VJP_JVP_CASES[name], X3, Y3)


def test_vjp_dict_output():
    def fn(T, x):
        out, f = F(T).vjp(lambda a: {"s": a.sin(), "c": a.cos()}, x)
        return out, f({"s": T.ones(3), "c": x})

    both(fn, X3)


# ----------------------------------------------------------------------------- jacobians
def _vecfn(T):
    return lambda x, y: (x.sin() * y.sum(), (x[:2] * y[1:]).exp())


JAC_CASES = {
    "jacrev": lambda T, x, y: F(T).jacrev(T.sin)(x),
    "jacfwd": lambda T, x, y: F(T).jacfwd(T.sin)(x),
    "jacrev_multi": lambda T, x, y: F(T).jacrev(_vecfn(T), argnums=(0, 1))(x, y),
    "jacfwd_multi": lambda T, x, y: F(T).jacfwd(_vecfn(T), argnums=(0, 1))(x, y),
    "jacrev_arg1": lambda T, x, y: F(T).jacrev(_vecfn(T), argnums=1)(x, y),
    "jacfwd_arg1": lambda T, x, y: F(T).jacfwd(_vecfn(T), argnums=1)(x, y),
    "jacrev_chunk1": lambda T, x, y: F(T).jacrev(_vecfn(T), chunk_size=1)(x, y),
    "jacrev_chunk2": lambda T, x, y: F(T).jacrev(_vecfn(T), chunk_size=2)(x, y),
    "jacrev_aux": lambda T, x, y: F(T).jacrev(lambda a: (a.exp() * y, a.sum()),
                                              has_aux=True)(x),
    "jacfwd_aux": lambda T, x, y: F(T).jacfwd(lambda a: (a.exp() * y, a.sum()),
                                              has_aux=True)(x),
    "jac_matrix": lambda T, x, y: F(T).jacrev(lambda m: m @ y.reshape(3, 1))(
        x.reshape(3, 1) * y.reshape(1, 3)),
    "hessian": lambda T, x, y: F(T).hessian(lambda a: (a.sin() * a.sum()).sum())(x),
    "hessian_argnums": lambda T, x, y: F(T).hessian(lambda a, b: (a * b.exp() * a).sum(),
                                                    argnums=(0, 1))(x, y),
    "jacrev_jacrev": lambda T, x, y: F(T).jacrev(F(T).jacrev(lambda a: (a ** 3).sum()))(x),
    "jacrev_jacfwd": lambda T, x, y: F(T).jacrev(F(T).jacfwd(lambda a: a.sin() * y))(x),
    "vmap_jacrev": lambda T, x, y: F(T).vmap(F(T).jacrev(T.tanh))(
        x.reshape(3, 1) * y.reshape(1, 3)),
}


@pytest.mark.parametrize("name", JAC_CASES)
def test_jacobians(name):
    parity(JAC_CASES[name], X3, Y3)


# ----------------------------------------------------------------------------- vmap
VMAP_CASES = {
    "basic": lambda T, a, b: F(T).vmap(T.sin)(a),
    "dot": lambda T, a, b: F(T).vmap(lambda u, v: (u * v).sum())(a, b.t()),
    "in_dims_none": lambda T, a, b: F(T).vmap(lambda u, v: u @ v, in_dims=(0, None))(a, b),
    "in_dims_1": lambda T, a, b: F(T).vmap(lambda u: u.cumsum(0), in_dims=1)(a),
    "in_dims_neg": lambda T, a, b: F(T).vmap(lambda u, v: u - v.sum(), in_dims=(-1, 0))(a, b),
    "out_dims_1": lambda T, a, b: F(T).vmap(lambda u: u.outer(u), out_dims=1)(a),
    "out_dims_tuple": lambda T, a, b: F(T).vmap(lambda u: (u * 2, u.sum()), out_dims=(1, 0))(a),
    "out_dims_neg": lambda T, a, b: F(T).vmap(lambda u: u.reshape(2, 2), out_dims=-1)(a),
    "nested": lambda T, a, b: F(T).vmap(F(T).vmap(lambda u, v: u * v, in_dims=(0, None)),
                                        in_dims=(None, 0))(a[0], b),
    "nested_out_dims": lambda T, a, b: F(T).vmap(F(T).vmap(T.outer), in_dims=(0, 1),
                                                 out_dims=1)(a.reshape(3, 2, 2), a.t()
                                                                             .reshape(2, 3, 2)),
    "pytree_in": lambda T, a, b: F(T).vmap(lambda d: d["u"] * d["v"][0],
                                           in_dims=({"u": 0, "v": (1,)},))(
        {"u": a, "v": (b,)}),
    "list_in_dims": lambda T, a, b: F(T).vmap(lambda p: p[0] + p[1], in_dims=([0, None],))(
        [a, b[:, 0]]),
    "kwargs_unbatched": lambda T, a, b: F(T).vmap(lambda u, w=None: u * w)(a, w=b[:, 0]),
    "unbatched_output": lambda T, a, b: F(T).vmap(lambda u: b.sum())(a),
    "out_none_unbatched": lambda T, a, b: F(T).vmap(lambda u: (u.exp(), b.sum()),
                                                    out_dims=(0, None))(a),
    "chunk_size": lambda T, a, b: F(T).vmap(lambda u: (u.sin(), u.sum()), in_dims=1,
                                            out_dims=(1, 0), chunk_size=3)(a),
    "torch_vmap_alias": lambda T, a, b: T.vmap(T.dot)(a, b.t()),
    "matmul_rows": lambda T, a, b: F(T).vmap(T.mv, in_dims=(None, 1))(a, b),
}


@pytest.mark.parametrize("name", VMAP_CASES)
def test_vmap(name):
    parity(VMAP_CASES[name], A34, B43)


def test_vmap_non_tensor_output_and_ints():
    res = both(lambda T, a: F(T).vmap(lambda u: (u * 2, 3.5), out_dims=(0, None))(a), A34)
    assert res[1][1] == 3.5
    both(lambda T, a: F(T).vmap(lambda u: u.argmax())(a), A34)
    both(lambda T, a, i: F(T).vmap(lambda u, v: u[v], in_dims=(0, 0))(a, i), A34,
         np.array([0, 3, 1]))


def test_vmap_randomness():
    x = jtorch.zeros(4, 3)
    jtorch.manual_seed(0)
    diff = jtorch.func.vmap(lambda u: u + jtorch.rand(3), randomness="different")(x)
    same = jtorch.func.vmap(lambda u: u + jtorch.rand(3), randomness="same")(x)
    d, s = diff.numpy(), same.numpy()
    assert len({tuple(r) for r in d.round(6)}) == 4  # every example draws its own numbers
    assert (s == s[0]).all() and not (s == 0).all()
    chunks = jtorch.func.vmap(lambda u: u + jtorch.rand(3), randomness="different",
                              chunk_size=2)(x).numpy()
    assert len({tuple(r) for r in chunks.round(6)}) == 4
    raises_like(lambda: torch.func.vmap(lambda u: u + torch.rand(3))(torch.zeros(4, 3)),
                lambda: jtorch.func.vmap(lambda u: u + jtorch.rand(3))(x))
    raises_like(lambda: torch.func.vmap(lambda u: torch.nn.functional.dropout(u, 0.5))(
        torch.zeros(4, 3)), lambda: jtorch.func.vmap(lambda u: jtorch.nn.functional.dropout(
            u, 0.5))(x))
    jtorch.rand(2)  # the generator is usable again after the error


# ----------------------------------------------------------------------------- modules
def _mlp(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(5, 8), lib.nn.Tanh(), lib.nn.Linear(8, 3))


def _cnn(lib):
    return lib.nn.Sequential(lib.nn.Conv2d(1, 2, 3), lib.nn.ReLU(), lib.nn.Flatten(),
                             lib.nn.Linear(2 * 4 * 4, 3))


def _same_weights(tm, jm):
    for (_, tp), (_, jp) in zip(tm.named_parameters(), jm.named_parameters()):
        with jtorch.no_grad():
            jp.copy_(jtorch.tensor(tp.detach().numpy()))
    return tm, jm


@pytest.mark.parametrize("make,xshape", [(_mlp, (6, 5)), (_cnn, (6, 1, 6, 6))])
def test_per_sample_gradients(make, xshape):
    models = _same_weights(make(torch), make(jtorch))
    x, y = rand(*xshape, seed=7), np.array([0, 2, 1, 1, 0, 2])
    res = []
    for lib, model in zip(LIBS, models):
        f = lib.func
        params = {k: v.detach() for k, v in model.named_parameters()}

        def compute_loss(params, sample, target, lib=lib, model=model, f=f):
            out = f.functional_call(model, params, (sample.unsqueeze(0),))
            return lib.nn.functional.cross_entropy(out, target.unsqueeze(0))

        res.append(f.vmap(f.grad(compute_loss), in_dims=(None, 0, 0))(
            params, lib.tensor(x), lib.tensor(y)))
    assert_close(_norm(res[1]), _norm(res[0]), atol=1e-5, rtol=1e-4)
    # the per-sample gradients average to the batch gradient
    tm = models[1]
    loss = jtorch.nn.functional.cross_entropy(tm(jtorch.tensor(x)), jtorch.tensor(y))
    loss.backward()
    for k, p in tm.named_parameters():
        np.testing.assert_allclose(res[1][k].mean(0).numpy(), p.grad.numpy(), atol=1e-5)


def test_functional_call_through_grad_keeps_the_tape():
    # MAML-style: the inner gradient of live parameters is differentiated again
    models = _same_weights(_mlp(torch), _mlp(jtorch))
    x = rand(4, 5, seed=8)
    grads = []
    for lib, model in zip(LIBS, models):
        f = lib.func
        params = dict(model.named_parameters())
        xt = lib.tensor(x)

        def inner(p, model=model, f=f, xt=xt):
            return f.functional_call(model, p, (xt,)).pow(2).mean()

        g = f.grad(inner)(params)
        fast = {k: v - 0.1 * g[k] for k, v in params.items()}
        f.functional_call(model, fast, (xt,)).sum().backward()
        grads.append([p.grad for p in model.parameters()])
    assert_close(grads[1], grads[0], atol=1e-5, rtol=1e-4)


def test_stack_module_state_ensemble():
    models = [_same_weights(_mlp(torch), _mlp(jtorch)) for _ in range(3)]
    x = rand(4, 5, seed=9)
    res = []
    for i, lib in enumerate(LIBS):
        ms = [m[i] for m in models]
        params, buffers = lib.func.stack_module_state(ms)
        assert all(p.requires_grad and p.is_leaf for p in params.values())

        def run(p, b, data, m0=ms[0], lib=lib):
            return lib.func.functional_call(m0, (p, b), (data,))

        res.append(lib.func.vmap(run, in_dims=(0, 0, None))(params, buffers, lib.tensor(x)))
    assert_close(res[1], res[0], atol=1e-6)


def test_functional_call_errors():
    for lib in LIBS:
        lib.manual_seed(0)
    tm, jm = torch.nn.Linear(2, 2), jtorch.nn.Linear(2, 2)
    raises_like(lambda: torch.func.functional_call(tm, ({"weight": torch.ones(2, 2)},
                                                        {"weight": torch.ones(2, 2)}),
                                                   torch.ones(2)),
                lambda: jtorch.func.functional_call(jm, ({"weight": jtorch.ones(2, 2)},
                                                         {"weight": jtorch.ones(2, 2)}),
                                                    jtorch.ones(2)))
    raises_like(lambda: torch.func.functional_call(tm, 3, torch.ones(2)),
                lambda: jtorch.func.functional_call(jm, 3, jtorch.ones(2)))
    raises_like(lambda: torch.func.functional_call(tm, [{}, 1], torch.ones(2)),
                lambda: jtorch.func.functional_call(jm, [{}, 1], jtorch.ones(2)))
    out = [lib.func.functional_call(m, ({"weight": lib.eye(2)}, {"bias": lib.zeros(2)}),
                                    lib.tensor([1.0, 2.0])) for lib, m in zip(LIBS, (tm, jm))]
    assert_close(out[1], out[0])


# ----------------------------------------------------------------------------- errors
def _err_cases(T):
    f = T.func
    x, m, i = T.ones(3), T.ones(2, 3), T.tensor([1, 2])
    return {
        "grad_nonscalar": lambda: f.grad(lambda a: a * 2)(x),
        "grad_not_tensor": lambda: f.grad(lambda a: 1.0)(x),
        "grad_aux_not_tuple": lambda: f.grad(lambda a: a.sum(), has_aux=True)(x),
        "grad_aux_non_tensor": lambda: f.grad(lambda a: (a.sum(), 1.0), has_aux=True)(x),
        "grad_value_aux": lambda: f.grad_and_value(lambda a: [a.sum(), a], has_aux=True)(x),
        "argnum_range": lambda: f.grad(lambda a: a.sum(), argnums=2)(x),
        "argnum_type": lambda: f.grad(lambda a: a.sum(), argnums=[0])(x),
        "argnums_dup": lambda: f.grad(lambda a, b: a.sum(), argnums=(0, 0))(x, x),
        "argnums_empty": lambda: f.grad(lambda a, b: a.sum(), argnums=())(x, x),
        "argnum_float": lambda: f.grad(lambda a, b: a.sum(), argnums=(0, 1.0))(x, x),
        "grad_non_tensor_input": lambda: f.grad(lambda a: a.sum())(1.0),
        "grad_int_input": lambda: f.grad(lambda a: a.sum())(i),
        "vjp_int_output": lambda: f.vjp(lambda a: a.long(), x),
        "vjp_no_output": lambda: f.vjp(lambda a: None, x),
        "vjp_non_tensor_output": lambda: f.vjp(lambda a: (a, 2), x),
        "vjp_aux": lambda: f.vjp(lambda a: a, x, has_aux=True),
        "vjp_ct_structure": lambda: f.vjp(lambda a: a, x)[1]((x,)),
        "vjp_ct_shape": lambda: f.vjp(lambda a: a, x)[1](T.ones(4)),
        "jvp_not_tuple": lambda: f.jvp(T.sin, x, x),
        "jvp_structure": lambda: f.jvp(T.sin, (x,), (x, x)),
        "jvp_empty": lambda: f.jvp(lambda: x, (), ()),
        "jvp_non_tensor": lambda: f.jvp(lambda a: a, (1.0,), (1.0,)),
        "jvp_size": lambda: f.jvp(T.sin, (x,), (T.ones(4),)),
        "jvp_aux": lambda: f.jvp(T.sin, (x,), (x,), has_aux=True),
        "jvp_output": lambda: f.jvp(lambda a: 3, (x,), (x,)),
        "jacrev_chunk": lambda: f.jacrev(T.sin, chunk_size=0),
        "jacrev_complex": lambda: f.jacrev(T.sin)(x.to(T.complex64)),
        "jacfwd_argnum": lambda: f.jacfwd(T.sin, argnums=1)(x),
        "linearize_ct": lambda: f.linearize(T.sin, x)[1](x, x),
        "linearize_shape": lambda: f.linearize(T.sin, x)[1](T.ones(4)),
        "vmap_no_inputs": lambda: f.vmap(lambda: x)(),
        "vmap_in_dims_type": lambda: f.vmap(T.sin, in_dims=[0])(m),
        "vmap_in_dims_structure": lambda: f.vmap(lambda a, b: a, in_dims=(0, 0, 0))(m, m),
        "vmap_in_dims_tuple_vs_list": lambda: f.vmap(lambda p: p[0], in_dims=((0, None),))(
            [m, x]),
        "vmap_in_dim_range": lambda: f.vmap(T.sin, in_dims=2)(m),
        "vmap_in_dim_float": lambda: f.vmap(T.sin, in_dims=(0.5,))(m),
        "vmap_non_tensor_in": lambda: f.vmap(lambda a, b: a, in_dims=(0, 0))(m, 1.0),
        "vmap_nothing_batched": lambda: f.vmap(T.sin, in_dims=None)(m),
        "vmap_sizes": lambda: f.vmap(T.add)(m, T.ones(3, 3)),
        "vmap_out_dims_type": lambda: f.vmap(T.sin, out_dims="a")(m),
        "vmap_out_structure": lambda: f.vmap(lambda a: (a, a), out_dims=(0, 0, 0))(m),
        "vmap_out_structure_single": lambda: f.vmap(T.sin, out_dims=(0, 1))(m),
        "vmap_out_none_batched": lambda: f.vmap(T.sin, out_dims=None)(m),
        "vmap_non_tensor_out": lambda: f.vmap(lambda a: (a, 1.0))(m),
        "vmap_out_dim_range": lambda: f.vmap(T.sin, out_dims=5)(m),
        "vmap_randomness": lambda: f.vmap(T.sin, randomness="sometimes"),
        "vmap_chunk": lambda: f.vmap(T.sin, chunk_size=0),
        "vmap_partial_name": lambda: f.vmap(functools.partial(T.add, alpha=2),
                                            out_dims=None)(m, m),
        "stack_empty": lambda: f.stack_module_state([]),
        "stack_classes": lambda: f.stack_module_state([T.nn.Linear(1, 1), T.nn.Tanh()]),
    }


@pytest.mark.parametrize("name", list(_err_cases(torch)))
def test_errors(name):
    raises_like(_err_cases(torch)[name], _err_cases(jtorch)[name])


def test_complex_gradients_follow_pytorch():
    z = (rand(3, seed=12) + 1j * rand(3, seed=13)).astype(np.complex64)
    both(lambda T, a: F(T).grad(lambda u: (u * u.conj()).real.sum() + (u * 2).imag.sum())(a), z)
    both(lambda T, a: F(T).vjp(lambda u: u * (1 + 1j), a)[1](a * 2), z)
    both(lambda T, a: F(T).jvp(lambda u: u.exp() * u.conj(), (a,), (a * 1j,)), z)


def test_closed_over_parameters_get_gradients():
    # a module's own parameters used inside vmap/grad (not passed as arguments)
    models = _same_weights(_mlp(torch), _mlp(jtorch))
    x = rand(4, 5, seed=14)
    grads = []
    for lib, model in zip(LIBS, models):
        per_example = lib.func.vmap(lambda row, model=model: model(row).pow(2).sum())(
            lib.tensor(x))
        g = lib.func.grad(lambda row, model=model: model(row).sum())(lib.tensor(x[0]))
        (per_example.sum() + g.pow(2).sum()).backward()
        grads.append([per_example, g, *[p.grad for p in model.parameters()]])
    assert_close(grads[1], grads[0], atol=1e-5, rtol=1e-4)
    w = jtorch.ones(3, requires_grad=True)
    h = w * 2  # made before the call: its history cannot be lifted
    with pytest.raises(NotImplementedError, match="non-leaf Tensor"):
        jtorch.func.vmap(lambda u: u * h)(jtorch.ones(2, 3))


def test_not_implemented():
    with pytest.raises(NotImplementedError, match="strict=True"):
        jtorch.func.jvp(jtorch.sin, (jtorch.ones(2),), (jtorch.ones(2),), strict=True)
    with pytest.raises(NotImplementedError, match="debug_unwrap"):
        jtorch.func.debug_unwrap(jtorch.ones(2))


def test_inside_jax_jit():
    """The transforms take Tensors that hold tracers (jtorch.compile, jax.jit)."""

    def f(a):
        x = jtorch.Tensor._make(a)
        g = jtorch.func.grad(lambda u: (u.sin() * u).sum())(x)
        h = jtorch.func.hessian(lambda u: (u ** 3).sum())(x)
        v = jtorch.func.vmap(lambda u: u.exp().sum())(x.reshape(3, 1))
        return g._value, h._value, v._value

    x = rand(3, seed=11)
    got = jax.jit(f)(x)
    want = f(x)
    for a, b in zip(got, want):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)
    t = torch.tensor(x)
    np.testing.assert_allclose(np.asarray(got[0]), torch.func.grad(
        lambda u: (u.sin() * u).sum())(t).numpy(), rtol=1e-6)


def test_no_grad_input_gives_no_history():
    x = jtorch.tensor(X3)
    g = jtorch.func.grad(lambda a: a.sin().sum())(x)
    assert not g.requires_grad and g.grad_fn is None
    xr = jtorch.tensor(X3, requires_grad=True)
    with jtorch.no_grad():
        g = jtorch.func.grad(lambda a: a.sin().sum())(xr)
    assert not g.requires_grad
    parity(lambda T, a: F(T).grad(lambda u: u.sin().sum())(a), NoGrad(X3))


def test_replace_all_batch_norm_modules_then_vmap():
    """After replace_all_batch_norm_modules_, a model with BatchNorm runs under vmap with batch
    statistics, as PyTorch's."""
    x = rand(3, 4, 5, seed=2)
    outs = []
    for lib in LIBS:
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(5, 6), lib.nn.BatchNorm1d(6), lib.nn.ReLU())
        assert lib.func.replace_all_batch_norm_modules_(model) is model
        bn = model[1]
        assert bn.running_mean is None and bn.num_batches_tracked is None
        assert not bn.track_running_stats
        assert [n for n, _ in model.named_buffers()] == []
        outs.append((model, lib.func.vmap(model)(lib.tensor(x))))
    _same_weights(outs[0][0], outs[1][0])
    outs = [lib.func.vmap(m)(lib.tensor(x)) for lib, (m, _) in zip(LIBS, outs)]
    assert_close(outs[1], outs[0], atol=1e-5)


@pytest.mark.parametrize("out_dim", [0, 1])
def test_function_own_vmap_staticmethod(out_dim):
    # a Function overriding ``vmap`` gets the batched tensors with in_dims (None for the
    # unbatched one), and its out_dims say where the batch dimension of the output is
    def make(T, seen):
        class Scale(T.autograd.Function):
            @staticmethod
            def forward(x, w):
                return x * w

            @staticmethod
            def setup_context(ctx, inputs, output):
                pass

            @staticmethod
            def vmap(info, in_dims, x, w):
                seen.append((info.batch_size, info.randomness, in_dims, tuple(x.shape)))
                out = (x.movedim(in_dims[0], 0) * w + 1).movedim(0, out_dim)
                return out, out_dim

        return Scale

    x = np.arange(12.0).reshape(3, 4)
    w = np.array([1.0, -2.0, 0.5, 3.0])
    results = []
    for T in (jtorch, torch):
        seen = []
        Scale = make(T, seen)
        out = T.vmap(Scale.apply, in_dims=(1, None),
                     randomness="same")(T.tensor(x.T.copy()), T.tensor(w))
        plain = Scale.apply(T.tensor(x), T.tensor(w))   # unbatched: the forward
        results.append((np.asarray(out.tolist()), np.asarray(plain.tolist()), seen))
    (jo, jp, jseen), (to, tp, tseen) = results
    assert jseen == tseen == [(3, "same", (1, None), (4, 3))]   # (x given transposed)
    np.testing.assert_array_equal(jo, to)
    np.testing.assert_array_equal(jp, tp)
