"""Regressions found by running geoopt unchanged under jtorch
(scripts/real_drivers/geoopt_manifolds.py, docs/real-programs.md): each test is a small
stand-in for what the library did, in plain torch-API code, run in jtorch and in real PyTorch."""

import io
import zipfile

import numpy as np
import pytest
import torch

import jtorch


def _np(t):
    return t.detach().cpu().numpy() if hasattr(t, "detach") else np.asarray(t)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_set_real_and_imag_parts(dtype):
    # geoopt's Siegel samplers: tens.imag = expm(tens.imag) (AttributeError: no setter)
    out = []
    for T in (torch, jtorch):
        v = T.tensor([0.5, -1.5], dtype=T.float64, requires_grad=True)
        z = T.zeros(2, 2, dtype=getattr(T, dtype))
        z.imag = v * 2          # broadcast over rows, cast to the part's dtype
        z.real = v ** 2
        w = T.tensor([1 + 2j, 3 - 1j], dtype=getattr(T, dtype))
        w.real = 7              # a number
        (z.abs() ** 2).sum().backward()
        r = T.tensor([1.0, 2.0])
        r.real = T.tensor([3.0, 4.0])   # a real tensor: the whole tensor
        with pytest.raises(RuntimeError, match="imag is not implemented for tensors with "
                                               "non-complex dtypes"):
            r.imag = r
        out.append((z, w, r, v.grad, z._version))
    (zt, wt, rt, gt, vt), (zj, wj, rj, gj, vj) = out
    for a, b in ((zt, zj), (wt, wj), (rt, rj), (gt, gj)):
        np.testing.assert_allclose(_np(b), _np(a), rtol=1e-6)
    assert zj.dtype == getattr(jtorch, dtype) and vj == vt


def test_parameter_subclass_takes_extra_constructor_arguments():
    # geoopt's ManifoldParameter(data, manifold=ball): Parameter had an __init__ of its own
    # that rejected the subclass's keyword (TypeError)
    made = []
    for T in (torch, jtorch):
        class MP(T.nn.Parameter):
            def __new__(cls, data=None, manifold=None, requires_grad=True, T=T):
                inst = T.Tensor._make_subclass(cls, data, requires_grad)
                inst.manifold = manifold
                return inst

        p = MP(T.ones(2), manifold="ball", requires_grad=False)
        made.append((type(p).__name__, p.manifold, p.requires_grad,
                     isinstance(p, T.nn.Parameter)))
        with pytest.raises(TypeError):
            T.nn.Parameter(T.ones(1), True, "extra")
    assert made[0] == made[1]


def test_set_takes_source_storage():
    # geoopt's Distance2StereographicHyperplanes.reset_parameters: self.points.set_(sample)
    # under no_grad (NotImplementedError: torch.Tensor.set_)
    seen = []
    for T in (torch, jtorch):
        p = T.nn.Parameter(T.zeros(3))
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            p.set_(T.ones(2))
        with T.no_grad():
            r = p.set_(T.arange(4.0).view(2, 2))
        (p * T.tensor([1.0, 2.0])).sum().backward()
        s = T.ones(4)
        t = T.zeros(1)
        t.set_(s)
        t.add_(1)
        s.mul_(3)           # writes through either tensor show in the other
        m = T.arange(6.0).view(2, 3)
        u = T.zeros(1)
        u.set_(m.t())       # shape and strides too
        e = T.zeros(2)
        e.set_()
        with pytest.raises(RuntimeError, match="Could not set tensor of type double to a "
                                               "tensor of type float"):
            T.zeros(2).set_(T.ones(2, dtype=T.float64))
        seen.append((r is p, type(p).__name__, p.is_leaf, p._version, _np(p).tolist(),
                     _np(p.grad).tolist(), _np(s).tolist(), _np(t).tolist(), _np(u).tolist(),
                     u.stride(), u.is_contiguous(), tuple(e.shape)))
    assert seen[0] == seen[1]


def _manifold_tensor_classes(T):
    """geoopt's ManifoldTensor/ManifoldParameter: a __reduce_ex__ of their own that calls the
    tensor's and wraps its rebuild function."""
    import functools

    class ManifoldTensor(T.Tensor):
        def __new__(cls, data, manifold="euclid", requires_grad=False):
            inst = T.Tensor._make_subclass(cls, data, requires_grad)
            inst.manifold = manifold
            return inst

        def __reduce_ex__(self, proto):
            build, proto = super().__reduce_ex__(proto)
            new_build = functools.partial(_rebuild, build_fn=build)
            return new_build, proto + ({}, self.__class__, self.manifold, self.requires_grad)

    class ManifoldParameter(ManifoldTensor, T.nn.Parameter):
        def __new__(cls, data, manifold="euclid", requires_grad=True):
            if not isinstance(data, ManifoldTensor):
                data = ManifoldTensor(data, manifold=manifold)
            inst = ManifoldTensor._make_subclass(cls, data, requires_grad)
            inst.manifold = data.manifold
            return inst

    return ManifoldTensor, ManifoldParameter


def _rebuild(*args, build_fn):
    tensor = build_fn(*args[:-4])
    return args[-3](tensor, manifold=args[-2], requires_grad=args[-1])


def test_save_calls_a_subclass_reduce_ex():
    # torch.save of geoopt's ManifoldParameter came back a plain Parameter: jtorch's pickler
    # wrote every tensor itself, never calling the subclass's __reduce_ex__
    for T in (torch, jtorch):
        MT, MP = _manifold_tensor_classes(T)
        globals()["_MT_" + T.__name__], globals()["_MP_" + T.__name__] = MT, MP
        MT.__qualname__, MP.__qualname__ = "_MT_" + T.__name__, "_MP_" + T.__name__
        p = MP(T.tensor([1.0, 2.0]), manifold="ball")
        t = MT(T.tensor([[3.0], [4.0]]), manifold="sphere")
        buf = io.BytesIO()
        T.save({"p": p, "t": t, "plain": T.nn.Parameter(T.ones(1))}, buf)
        buf.seek(0)
        got = T.load(buf, weights_only=False)
        assert type(got["p"]) is MP and got["p"].manifold == "ball"
        assert got["p"].requires_grad and not got["t"].requires_grad
        assert type(got["t"]) is MT and got["t"].manifold == "sphere"
        assert type(got["plain"]) is T.nn.Parameter
        np.testing.assert_array_equal(_np(got["p"]), [1.0, 2.0])
        np.testing.assert_array_equal(_np(got["t"]), [[3.0], [4.0]])
    # jtorch's records are PyTorch's (the wrapped rebuild function is torch._utils'), as the
    # subclass's __reduce_ex__ wrote them
    buf = io.BytesIO()
    jtorch.save(globals()["_MP_jtorch"](jtorch.tensor([5.0]), manifold="ball"), buf)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as z:
        pkl = z.read("archive/data.pkl")
    assert b"torch._utils\n_rebuild_parameter_with_state" in pkl and b"jtorch.nn" not in pkl
    assert b"_rebuild" in pkl and b"functools" in pkl


def test_sparse_index_select():
    # geoopt's SparseRiemannianAdam/SGD: grad.index_select(0, rows).to_dense()
    # (NotImplementedError: aten::index_select on SparseCPU)
    res = []
    for T in (torch, jtorch):
        i = T.tensor([[0, 3, 1, 3], [1, 0, 1, 1]])
        s = T.sparse_coo_tensor(i, T.tensor([1.0, 2.0, 3.0, 4.0]), (5, 2))
        rows = s.coalesce().indices()[0].unique()
        a = s.index_select(0, T.tensor([3, 1, 3]))
        b = s.index_select(1, T.tensor([1]))
        res.append([(_np(x._indices()).tolist(), _np(x._values()).tolist(), tuple(x.shape),
                     x.is_coalesced(), _np(x.to_dense()).tolist()) for x in (a, b)]
                   + [_np(rows).tolist(), _np(s.index_select(0, rows).to_dense()).tolist()])
    assert res[0] == res[1]


@pytest.mark.parametrize("default", ["float32", "float64"])
def test_adam_load_state_dict_makes_int_step_a_tensor(default):
    # geoopt's RiemannianAdam counts state["step"] in a Python int; PyTorch's Adam (and the
    # other optimizers that keep a tensor step) turn it into a 0-d tensor of the scalar dtype
    # on load_state_dict, so a resumed run computes its bias corrections from that tensor
    got = []
    for T in (torch, jtorch):
        prev = T.get_default_dtype()
        T.set_default_dtype(getattr(T, default))
        try:
            steps = []
            for cls in (T.optim.Adam, T.optim.AdamW, T.optim.Adamax, T.optim.RMSprop,
                        T.optim.Adagrad, T.optim.Rprop, T.optim.SGD):
                p = T.nn.Parameter(T.ones(2))
                opt = cls([p], lr=0.1)
                opt.state[p].update({"step": 3})
                again = cls([p], lr=0.1)
                again.load_state_dict(opt.state_dict())
                s = again.state[p]["step"]
                steps.append((cls.__name__, type(s).__name__,
                              str(getattr(s, "dtype", None)).replace("torch.", ""), float(s)))
            # the bias correction a subclass then computes: 1 - beta ** step, in float32
            p = T.nn.Parameter(T.ones(1))
            opt = T.optim.Adam([p])
            opt.state[p]["step"] = 7
            again = T.optim.Adam([p])
            again.load_state_dict(opt.state_dict())
            step = again.state[p]["step"] + 1
            steps.append(float(1 - 0.999 ** step))
        finally:
            T.set_default_dtype(prev)
        got.append(steps)
    assert got[0] == got[1]
