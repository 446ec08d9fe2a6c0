"""Regressions found by running tensordict and TorchRL unchanged under jtorch
(scripts/real_drivers/torchrl_losses.py, docs/real-programs.md): each test is a small stand-in
for what the library did, in plain torch-API code, run in jtorch and in real PyTorch."""

import importlib

import numpy as np
import pytest
import torch

import jtorch

BOTH = (jtorch, torch)


def test_tensor_long_and_quantized_dtype_names():
    # functorch.dim (imported by tensordict) lists Tensor.__long__; tensordict's dtype table
    # names the quantized dtypes (AttributeError / NotImplementedError at import tensordict)
    for T in BOTH:
        assert T.tensor(3.7).__long__() == 3
    for name in ("qint8", "quint8", "qint32", "quint4x2", "quint2x4"):
        got, want = getattr(jtorch, name), getattr(torch, name)
        assert repr(got) == repr(want) and str(got) == str(want)
        assert (got.is_floating_point, got.is_complex, got.itemsize) == \
            (want.is_floating_point, want.is_complex, want.itemsize)
        assert got != jtorch.int8 and got in (jtorch.float32, got)
        with pytest.raises(NotImplementedError, match=f"torch.{name}"):
            jtorch.zeros(2, dtype=got)


def test_private_helper_modules():
    # tensordict imports torch.utils._contextlib._DecoratorContextManager,
    # torch._utils._get_available_device_type, torch._C._functorch and
    # torch.nn.utils._named_member_accessor.swap_tensor; torchrl tests
    # isinstance(self, torch._C._distributed_rpc.PyRRef)
    calls = []
    for T in BOTH:
        ctx = importlib.import_module(T.__name__ + ".utils._contextlib")

        class flag(ctx._DecoratorContextManager):  # noqa: N801 - as tensordict's
            def __enter__(self):
                calls.append("in")

            def __exit__(self, *exc):
                calls.append("out")

        @flag()
        def f(x):
            calls.append(x)
            return x + 1

        @flag()
        def gen():
            yield 1
            yield 2

        assert f(1) == 2 and list(gen()) == [1, 2]
        utils = importlib.import_module(T.__name__ + "._utils")
        assert utils._get_available_device_type() is None
        assert utils._get_device_module("cpu") is T.cpu
        fn = T._C._functorch
        t = T.ones(2)
        assert (fn.is_batchedtensor(t), fn.is_functorch_wrapped_tensor(t),
                fn.maybe_get_level(t), fn.maybe_current_level()) == (False, False, -1, None)
        with pytest.raises(RuntimeError, match="No wrappers present!"):
            fn.get_unwrapped(t)
        assert not isinstance(t, T._C._distributed_rpc.PyRRef)
        acc = importlib.import_module(T.__name__ + ".nn.utils._named_member_accessor")
        lin = T.nn.Linear(2, 1)
        new = T.zeros(1)
        old = acc.swap_tensor(lin, "bias", new)
        assert lin.bias is new and isinstance(old, T.nn.Parameter)
        with pytest.raises(KeyError, match="tensor name can"):
            acc.swap_tensor(lin, "a.b", new)
        with pytest.raises(AttributeError, match="has no attribute `nope`"):
            acc.swap_tensor(lin, "nope", new)
    half = len(calls) // 2
    assert calls[:half] == calls[half:]
    assert calls[:half] == ["in", 1, "out", "in", "out", "in", "out", "in", "out"]


class _Bag:
    """A tensor-like container that is not a Tensor and answers torch functions through
    ``__torch_function__``, as tensordict's TensorDict does."""

    seen = []

    def __init__(self, **tensors):
        self.tensors = tensors

    __hash__ = None   # unhashable, as TensorDict

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.seen.append(func.__name__)
        kwargs = kwargs or {}
        if func.__name__ == "stack":
            bags = args[0]
            out = _Bag(**{k: func([b.tensors[k] for b in bags], *args[1:], **{
                n: v for n, v in kwargs.items() if n != "out"}) for k in bags[0].tensors})
            if "out" in kwargs:
                kwargs["out"].tensors.update(out.tensors)
                return kwargs["out"]
            return out
        if func.__name__ == "where":
            c, a, b = args
            return _Bag(**{k: func(c, a.tensors[k], b.tensors[k]) for k in a.tensors})
        if isinstance(args[0], _Bag) and func.__name__ != "view":
            return _Bag(**{k: func(v, *args[1:], **kwargs)
                           for k, v in args[0].tensors.items()})
        return NotImplemented


@pytest.mark.parametrize("T", BOTH, ids=lambda T: T.__name__)
def test_tensor_like_objects_answer_torch_functions(T):
    # torch.stack([td, td]), torch.stack(tds, out=td) and torch.empty_like(td) go to
    # TensorDict.__torch_function__ (jtorch: "stack(): unsupported argument types", and
    # empty_like read td.dtype)
    _Bag.seen.clear()
    a = _Bag(x=T.arange(3.0), y=T.ones(2, dtype=T.int64))
    s = T.stack([a, a], 0)
    assert s.tensors["x"].tolist() == [[0.0, 1.0, 2.0]] * 2
    out = _Bag()
    assert T.stack([a, a], 1, out=out) is out and list(out.tensors["y"].shape) == [2, 2]
    z = T.zeros_like(a)
    assert z.tensors["y"].dtype == T.int64 and z.tensors["x"].tolist() == [0.0] * 3
    f = T.full_like(a, 7)
    assert f.tensors["y"].tolist() == [7, 7]
    assert T.empty_like(a).tensors["x"].shape == (3,)
    assert _Bag.seen == ["stack", "stack", "zeros_like", "full_like", "empty_like"]


@pytest.mark.parametrize("T", BOTH, ids=lambda T: T.__name__)
def test_tensor_like_objects_reach_composites(T):
    # tensordict's unflatten/where on nested TensorDicts call torch.unflatten(td, ...) and
    # torch.where(mask, td, td): jtorch's composites ran on the TensorDict and their inner op
    # asked __torch_function__ with torch.view ("Multiple dispatch failed"); torch.where
    # reached it as its inner op; tensordict's fallback reads torch._ops.HigherOrderOperator
    _Bag.seen.clear()
    a = _Bag(x=T.arange(6.0).reshape(2, 3))
    F = T.nn.functional
    calls = [(T.unflatten, (1, (3, 1))), (T.permute, ((1, 0),)), (T.movedim, (0, 1)),
             (T.swapaxes, (0, 1)), (T.squeeze, (0,)), (T.narrow, (1, 0, 2)), (T.tile, ((2,),)),
             (T.broadcast_to, ((3, 2, 3),)), (T.atleast_3d, ()), (T.split, (1,)),
             (T.masked_select, (T.tensor([True, False, True]),)),
             (F.mse_loss, (T.ones(2, 3),)), (F.l1_loss, (T.ones(2, 3),)),
             (F.smooth_l1_loss, (T.ones(2, 3),))]
    shapes = []
    for fn, rest in calls:
        out = fn(a, *rest)
        assert isinstance(out, _Bag), fn
        x = out.tensors["x"]
        shapes.append([list(t.shape) for t in x] if isinstance(x, tuple) else list(x.shape))
    assert _Bag.seen == [fn.__name__ for fn, _ in calls]
    assert shapes == [[2, 3, 1], [3, 2], [3, 2], [3, 2], [2, 3], [2, 2], [2, 6], [3, 2, 3],
                      [2, 3, 1], [[1, 3], [1, 3]], [4], [], [], []]
    w = T.where(T.tensor([True, False, True]), a, _Bag(x=T.zeros(2, 3)))
    assert w.tensors["x"].tolist() == [[0.0, 0.0, 2.0], [3.0, 0.0, 5.0]]
    assert isinstance(T._ops.HigherOrderOperator, type)
    assert not isinstance(T.where, T._ops.HigherOrderOperator)


def _bag_hooks(T):
    """tensordict's patch of vmap's hooks, for a batched container: a ``_Batched`` input is a
    vmap leaf whose tensors get the batch dim (``_add_batch_dim``) and whose batch size loses
    it. Returns the module patched and the originals."""
    vm = importlib.import_module(T.__name__ + "._functorch.vmap")
    add = T._C._functorch._add_batch_dim
    orig = (vm._process_batched_inputs, vm._create_batched_inputs)

    def process(in_dims, args, func):
        flat, spec = vm.tree_flatten(args, is_leaf=lambda x: isinstance(x, _Batched))
        dims = vm._broadcast_to_and_flatten(in_dims, spec)
        size = next(a.batch[d] if isinstance(a, _Batched) else a.shape[d]
                    for a, d in zip(flat, dims) if d is not None)
        return size, dims, flat, spec

    def create(dims, flat, level, spec):
        out = []
        for a, d in zip(flat, dims):
            if d is None:
                out.append(a)
            elif isinstance(a, _Batched):
                out.append(a.add_batch_dim(d, level, add))
            else:
                out.append(add(a, d, level))
        return vm.tree_unflatten(out, spec)

    vm._process_batched_inputs, vm._create_batched_inputs = process, create
    return vm, orig


class _Batched:
    def __init__(self, batch, **tensors):
        self.batch, self.tensors, self.cache = list(batch), tensors, {}

    def add_batch_dim(self, d, level, add):
        key = (d, level)   # cached per level, as tensordict's locked TensorDicts
        if key not in self.cache:
            self.cache[key] = _Batched([b for i, b in enumerate(self.batch) if i != d],
                                       **{k: add(v, d, level) for k, v in self.tensors.items()})
        return self.cache[key]


def _vmap_over_a_tensor_collection(T):
    # torchrl's value estimators and SAC/TD3 losses vmap over TensorDicts of parameters and
    # data; jtorch's vmap flattened them (batch-size mismatch) and refused TensorDictParams
    vm, orig = _bag_hooks(T)
    try:
        rng = np.random.default_rng(0)
        w = T.tensor(rng.standard_normal((3, 4, 2)), requires_grad=True)
        b = T.tensor(rng.standard_normal((3, 2)), requires_grad=True)
        x = T.tensor(rng.standard_normal((5, 4)), requires_grad=True)
        params = _Batched([3], w=w, b=b)
        T.utils._pytree.register_pytree_node(   # as tensordict registers TensorDict
            _Batched, lambda p: (list(p.tensors.values()), (p.batch, list(p.tensors))),
            lambda v, c: _Batched(c[0], **dict(zip(c[1], v))))

        def f(p, x):
            assert p.batch == [] and list(p.tensors["w"].shape) == [4, 2]
            return x @ p.tensors["w"] + p.tensors["b"]

        results = []
        for _ in range(2):   # the second call reuses the cached per-level container
            y = T.func.vmap(f, (0, None))(params, x)
            (y.pow(2) * T.arange(1.0, 3.0, dtype=y.dtype)).sum().backward()
            results.append((y.detach().numpy(), w.grad.numpy().copy(), b.grad.numpy().copy(),
                            x.grad.numpy().copy()))
        assert T._C._functorch.is_batchedtensor(w) is False
    finally:
        T.utils._pytree._deregister_pytree_node(_Batched)
        vm._process_batched_inputs, vm._create_batched_inputs = orig
    return results


def test_vmap_over_a_tensor_collection():
    got = _vmap_over_a_tensor_collection(jtorch)
    want = _vmap_over_a_tensor_collection(torch)
    for g, w in zip(got, want):
        for a, b in zip(g, w):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def _vmap_grad_through_unmapped_nonleaf_argument(T):
    # SAC's actor loss vmaps its Q-networks over a TensorDict holding the actor's sampled
    # action (a non-leaf requiring grad) with in_dim None: jtorch raised "closes over a
    # non-leaf Tensor"; the unmapped container's tensors are now inputs of the vmap
    vm, orig = _bag_hooks(T)
    try:
        rng = np.random.default_rng(1)
        a = T.tensor(rng.standard_normal((4, 2)), requires_grad=True)
        ws = T.tensor(rng.standard_normal((3, 2)))
        T.utils._pytree.register_pytree_node(
            _Data, lambda d: ([d.act], None), lambda v, _: _Data(v[0]))
        try:
            act = a.tanh() * 2   # not a leaf
            q = T.func.vmap(lambda w, d: (d.act * w).sum(-1), (0, None))(ws, _Data(act))
            q.sum().backward()
        finally:
            T.utils._pytree._deregister_pytree_node(_Data)
        return q.detach().numpy(), a.grad.numpy()
    finally:
        vm._process_batched_inputs, vm._create_batched_inputs = orig


class _Data:
    def __init__(self, act):
        self.act = act


def test_vmap_grad_through_unmapped_nonleaf_argument():
    got = _vmap_grad_through_unmapped_nonleaf_argument(jtorch)
    want = _vmap_grad_through_unmapped_nonleaf_argument(torch)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def test_transform_inverse_weakref_attribute():
    # torchrl's SafeTanhTransform.inv reads self._inv (PyTorch's weakref slot): AttributeError
    for T in BOTH:
        D = T.distributions.transforms

        class Safe(D.TanhTransform):
            @property
            def inv(self, D=D):
                inv = self._inv() if self._inv is not None else None
                if inv is None:
                    inv = D._InverseTransform(self)
                    self._inv = __import__("weakref").ref(inv)
                return inv

        t = Safe()
        assert t._inv is None
        i = t.inv
        assert t.inv is i and isinstance(i, D._InverseTransform)
        y = T.tensor([0.3, -0.7], dtype=T.float64)
        np.testing.assert_allclose(i(y).numpy(), np.arctanh([0.3, -0.7]), rtol=1e-14)


def test_generator_device_none_and_copy_from_number():
    # PendulumEnv makes torch.Generator(device=self.device) with device None; torchrl's
    # trajectory pool does traj_id.copy_(1 + out[-1].item()) (a Python int)
    for T in BOTH:
        assert str(T.Generator(device=None).device) == "cpu"
    for value in (7, 2.5, True):
        for dt in ("int32", "float64"):
            got = jtorch.zeros((2,), dtype=getattr(jtorch, dt)).copy_(value)
            want = torch.zeros((2,), dtype=getattr(torch, dt)).copy_(value)
            assert got.tolist() == want.tolist() and str(got.dtype) == str(want.dtype)
    for bad in ("a", None, [1, 2]):
        with pytest.raises(TypeError, match="must be Tensor"):
            jtorch.zeros(2).copy_(bad)
