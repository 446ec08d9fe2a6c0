"""Devices: jtorch.device parsing/repr/eq/hash like torch.device, Tensor.to(device)/.cpu()/
.cuda(), jtorch.cuda on a machine without CUDA (as CPU-only PyTorch), and jtorch's extra host
devices cpu:1..cpu:3 (tests/conftest.py asks JAX for 4): data moves, ops follow their inputs,
gradients come back to the source device, and mixing devices raises PyTorch's error.
"""

import ast
import os
import pickle
import subprocess
import sys
import warnings

import jax
import numpy as np
import pytest
import torch
from helpers import raises_like

import jtorch

GOOD = [("cpu",), ("cuda",), ("cuda:1",), ("cuda", 1), ("cpu", 0), ("cpu:0",), ("mps",),
        ("meta",), ("xla:0",), ("cuda:0",), ("privateuseone",), ("hpu", 3), ("xpu",),
        ("lazy",), ("ipu",), ("mtia",), ("vulkan",)]
BAD = [("foo",), ("tpu:x",), ("cuda:x",), ("cuda:-1",), ("cuda", -1), ("cuda:1", 2),
       ("cpu:1:2",), ("",), ("cuda:",), (" cuda",), ("CUDA",), ("cuda:01",), ("cuda:00",),
       ("cuda:1 ",), ("cuda1",), ("cuda_x",), ("1cuda",), (":1",), ("cpu:1a",),
       ("cuda:99999999999",), ("cuda::1",), ("a:1",), ("cuda:+1",), ("cuda: 1",), (None,),
       (1.5,), ("cpu", "x"), ("cpu", True), ("cuda:1\n",), (1,), (-1,)]


def test_device_construction_like_torch():
    for args in GOOD:
        t, j = torch.device(*args), jtorch.device(*args)
        assert repr(j) == repr(t) and str(j) == str(t), args
        assert (j.type, j.index) == (t.type, t.index), args
        assert hash(j) == hash(t), args
        assert j.__reduce__()[1] == t.__reduce__()[1], args
        assert pickle.loads(pickle.dumps(j)) == j
    for args in BAD:
        raises_like(lambda a=args: torch.device(*a), lambda a=args: jtorch.device(*a))
    raises_like(lambda: torch.device(torch.device("cuda", 1), 2),
                lambda: jtorch.device(jtorch.device("cuda", 1), 2))
    assert jtorch.device(type="cuda", index=2) == jtorch.device("cuda:2")
    assert jtorch.device(device="cuda:1") == jtorch.device("cuda", 1)
    assert jtorch.device(type="cpu", index=None) == jtorch.device("cpu")


def test_device_equality_and_hash():
    d = jtorch.device("cuda:1")
    assert d == jtorch.device("cuda", 1) and hash(d) == hash(jtorch.device("cuda:1"))
    assert jtorch.device(jtorch.device("cuda", 1)) is jtorch.device(jtorch.device("cuda", 1))
    # like torch: a device never equals a string, and cuda != cuda:0
    assert (d == "cuda:1") is (torch.device("cuda:1") == "cuda:1") is False
    assert (jtorch.device("cuda") == jtorch.device("cuda:0")) is False
    assert jtorch.device("cpu") != "cpu"
    assert {d: 1}[jtorch.device("cuda", 1)] == 1


def test_tpu_device_is_a_jtorch_extension():
    d = jtorch.device("tpu:1")
    assert (d.type, d.index, str(d)) == ("tpu", 1, "tpu:1")
    with pytest.raises(RuntimeError, match="no TPU device"):
        jtorch.ones(1).to("tpu")


# ------------------------------------------------------------------------------ no CUDA here
def test_cuda_is_absent_like_cpu_torch():
    c, tc = jtorch.cuda, torch.cuda
    assert c.is_available() is tc.is_available() is False
    assert c.device_count() == tc.device_count() == 0
    assert c.is_initialized() is tc.is_initialized() is False
    for f in ("memory_allocated", "max_memory_allocated", "memory_reserved",
              "max_memory_reserved"):
        assert getattr(c, f)() == getattr(tc, f)() == 0
        assert getattr(c, f)(0) == getattr(tc, f)(0) == 0
    assert c.memory_stats() == tc.memory_stats()
    assert c.empty_cache() is tc.empty_cache() is None
    assert c.is_bf16_supported() is tc.is_bf16_supported() is False
    assert c.get_arch_list() == tc.get_arch_list() == []
    before = jtorch.rand(3)
    jtorch.manual_seed(0)
    a = jtorch.rand(3)
    jtorch.manual_seed(0)
    c.manual_seed(123)  # no CUDA: a no-op, it must not reseed the CPU generator
    c.manual_seed_all(123)
    c.seed()
    np.testing.assert_array_equal(jtorch.rand(3).numpy(), a.numpy())
    assert before.shape == a.shape
    assert c.set_device(-1) is tc.set_device(-1) is None
    for call in [lambda m: m.current_device(), lambda m: m.get_device_name(),
                 lambda m: m.get_device_name(0), lambda m: m.synchronize(),
                 lambda m: m.synchronize(0), lambda m: m.get_device_capability(),
                 lambda m: m.init(), lambda m: m.initial_seed(), lambda m: m.mem_get_info(),
                 lambda m: m.set_device("cpu"), lambda m: m.device(0).__enter__()]:
        raises_like(lambda f=call: f(tc), lambda f=call: f(c))
    assert c.device(-1).__enter__() is tc.device(-1).__enter__() is None
    # CPU-only torch fails here with an AttributeError about a missing torch._C binding;
    # jtorch raises its usual no-CUDA AssertionError (documented difference)
    for call in [lambda: c.set_device(0), lambda: c.set_device("cuda:0"),
                 lambda: c.reset_peak_memory_stats()]:
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
            call()


def test_cuda_tensor_calls_raise_like_cpu_torch():
    t, j = torch.ones(2), jtorch.ones(2)
    for call in [lambda L, x: x.cuda(), lambda L, x: x.to("cuda"), lambda L, x: x.to("cuda:1"),
                 lambda L, x: L.ones(2, device="cuda"), lambda L, x: x.cuda(1),
                 lambda L, x: x.to(1), lambda L, x: x.cuda(-1), lambda L, x: x.cuda("cpu"),
                 lambda L, x: x.cuda(L.device("cuda:1")), lambda L, x: x.to("mps"),
                 lambda L, x: x.to("xla"), lambda L, x: x.to("xpu"), lambda L, x: x.to("hip"),
                 lambda L, x: x.to(L.device(1))]:
        raises_like(lambda f=call: f(torch, t), lambda f=call: f(jtorch, j))
    assert j.is_cuda is t.is_cuda is False and j.is_cpu is t.is_cpu is True
    assert j.get_device() == t.get_device() == -1
    assert j.device == jtorch.device("cpu") and repr(j.device) == repr(t.device)


# ------------------------------------------------------------------------------ host devices
def _dev_ids(t):
    return {d.id for d in t._value.devices()}


def test_to_moves_data_and_ops_follow():
    x = jtorch.arange(6.0).reshape(2, 3)
    y = x.to("cpu:1")
    assert y.device == jtorch.device("cpu:1") and _dev_ids(y) == {1}
    assert _dev_ids(x) == {0} and x.device == jtorch.device("cpu")
    results = [y + 1, y * y, y.sum(), y.t(), y[0], jtorch.matmul(y, y.t()), y.exp(),
               y.to(jtorch.float64), y.reshape(3, 2), jtorch.cat([y, y]), y > 2]
    for r in results:
        assert r.device == jtorch.device("cpu:1") and _dev_ids(r) == {1}, r
    np.testing.assert_allclose((y * y).cpu().numpy(), (x * x).numpy())
    y.add_(1)  # in place keeps the device
    assert _dev_ids(y) == {1} and y.device == jtorch.device("cpu:1")
    z = y.cpu()
    assert z.device == jtorch.device("cpu") and _dev_ids(z) == {0}
    assert y.to("cpu:1") is y and x.to("cpu") is x and x.cpu() is x and x.to("cpu:0") is x
    assert y.to("cpu:1", copy=True) is not y
    created = jtorch.zeros(2, device="cpu:2")
    assert created.device == jtorch.device("cpu:2") and _dev_ids(created) == {2}
    o = x.to(created)  # other tensor: its dtype and device
    assert o.device == jtorch.device("cpu:2") and _dev_ids(o) == {2}
    both = x.to("cpu:3", jtorch.float64, non_blocking=True)
    assert both.dtype is jtorch.float64 and _dev_ids(both) == {3}
    assert y.get_device() == -1 and not y.is_cuda and y.is_cpu  # a CPU tensor, as in torch
    with pytest.raises(RuntimeError, match="does not exist"):
        x.to("cpu:9")


def test_gradients_flow_back_across_devices():
    x = jtorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.to("cpu:1")
    assert y.grad_fn.name() == "ToCopyBackward0"
    (y * y).sum().backward()
    assert x.grad.device == jtorch.device("cpu") and _dev_ids(x.grad) == {0}
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0, 6.0])
    # a leaf on cpu:2 through two hops and a dtype change
    w = jtorch.ones(2, device="cpu:2", requires_grad=True)
    out = (w.to("cpu:1").double() * 3).to("cpu").sum()
    out.backward()
    assert w.grad.device == jtorch.device("cpu:2") and _dev_ids(w.grad) == {2}
    assert w.grad.dtype is jtorch.float32
    np.testing.assert_allclose(w.grad.numpy(), [3.0, 3.0])


def test_mixing_devices_raises_torch_error():
    a = jtorch.ones(3).to("cpu:1")
    b = jtorch.ones(3)
    msg = "Expected all tensors to be on the same device, but found at least two devices, "
    # PyTorch names the first non-CPU device first (cuda:0 and cpu!), whatever the order
    for f in (lambda: a + b, lambda: b + a, lambda: jtorch.add(b, a, alpha=2),
              lambda: a.sum() + b, lambda: jtorch.addcmul(b, a, b)):
        with pytest.raises(RuntimeError) as e:
            f()
        assert str(e.value) == msg + "cpu:1 and cpu!"
    with pytest.raises(RuntimeError) as e:
        a + jtorch.ones(3).to("cpu:2")
    assert str(e.value) == msg + "cpu:1 and cpu:2!"
    with pytest.raises(RuntimeError) as e:
        b.add_(a)
    assert str(e.value) == msg + "cpu:1 and cpu!"


def test_zero_dim_cpu_tensors_join_any_device():
    a = jtorch.ones(3, requires_grad=True)
    y = a.to("cpu:1")
    s = jtorch.tensor(2.0, requires_grad=True)
    committed = jtorch.tensor(5.0).to("cpu:1").cpu()  # a 0-d array committed to host 0
    for r in (y * s, s * y, y + committed, jtorch.addcmul(y, s, committed)):
        assert r.device == jtorch.device("cpu:1") and _dev_ids(r) == {1}
    (y * s).sum().backward()
    assert s.grad.device == jtorch.device("cpu") and _dev_ids(s.grad) == {0}
    np.testing.assert_allclose(s.grad.numpy(), 3.0)
    np.testing.assert_allclose(a.grad.numpy(), [2.0, 2.0, 2.0])
    assert _dev_ids(a.grad) == {0}


def test_device_printing_and_numpy():
    y = jtorch.tensor([[1, 2], [3, 4]]).to("cpu:1")
    assert repr(y) == "tensor([[1, 2],\n        [3, 4]], device='cpu:1')"
    np.testing.assert_array_equal(y.numpy(), [[1, 2], [3, 4]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert y.tolist() == [[1, 2], [3, 4]]


def test_numpy_checks_device_then_grad_mode():
    """PyTorch checks the device first, then a gradient only while grad mode is on: numpy()
    of a tensor that requires grad works inside no_grad."""
    for T in (jtorch, torch):
        x = T.ones(2, requires_grad=True)
        with T.no_grad():
            np.testing.assert_array_equal(x.numpy(), [1.0, 1.0])
    raises_like(lambda: torch.ones(2, requires_grad=True).numpy(),
                lambda: jtorch.ones(2, requires_grad=True).numpy())


def test_cpu_index_zero_like_torch():
    """``device("cpu:0")`` keeps its index; a tensor placed there reports plain ``cpu``."""
    def devices(T):
        x = T.ones(2)
        made = [T.zeros(2, device="cpu:0"), T.ones(2, device=T.device("cpu", 0)),
                T.empty(2, device="cpu:0"), T.full((2,), 1.0, device="cpu:0"),
                T.tensor([1.0], device="cpu:0"), T.as_tensor([1.0], device="cpu:0"),
                T.arange(3, device="cpu:0"), T.randn(2, device="cpu:0"),
                T.randint(0, 3, (2,), device="cpu:0"), T.eye(2, device="cpu:0"),
                T.zeros_like(x, device="cpu:0"), x.new_zeros(2, device="cpu:0"),
                x.to("cpu:0"), x.to(device=T.device("cpu:0")), x.cpu()]
        with T.device("cpu:0"):
            made.append(T.zeros(2))
        return [repr(T.device("cpu:0")), str(T.device("cpu:0")),
                T.device("cpu:0") == T.device("cpu")] + [repr(t.device) for t in made]

    assert devices(jtorch) == devices(torch)
    assert devices(torch)[3:] == ["device(type='cpu')"] * 16


def test_regions_differentiated_by_jax_stay_on_their_device():
    """A compiled module's outputs and a checkpointed segment inside a compiled step live on
    their inputs' device (they came back on the default CPU, so the next layer's op raised
    "Expected all tensors to be on the same device"), and so do their gradients. Checked
    against the same computation left on the default device."""
    from jtorch.utils.checkpoint import checkpoint

    def run(dev):
        jtorch.manual_seed(0)
        m = jtorch.nn.Sequential(jtorch.nn.Linear(8, 8), jtorch.nn.GELU(),
                                 jtorch.nn.Linear(8, 8)).to(dev)
        x = jtorch.randn(4, 8, generator=jtorch.Generator().manual_seed(1)).to(dev)
        y = jtorch.compile(m)(x)
        y.square().sum().backward()
        grads = [p.grad for p in m.parameters()]
        opt = jtorch.optim.SGD(m.parameters(), lr=0.1)

        def step(x):
            opt.zero_grad()
            h = checkpoint(m[0], x, use_reentrant=False)
            loss = checkpoint(m[1:], h, use_reentrant=False).pow(2).mean()
            loss.backward()
            opt.step()
            return loss

        f = jtorch.compile(step)
        losses = [f(x) for _ in range(2)]
        return y, grads, losses, list(m.parameters())

    y, grads, losses, params = run("cpu:1")
    ry, rgrads, rlosses, rparams = run("cpu")
    assert y.device == jtorch.device("cpu:1") and all(g.device == y.device for g in grads)
    assert all(v.device == y.device for v in losses + params)
    for a, b in zip([y, *grads, *losses, *params], [ry, *rgrads, *rlosses, *rparams]):
        np.testing.assert_array_equal(a.detach().cpu().numpy(), b.detach().numpy())


def test_value_checks_off_the_host_read_host_copies(monkeypatch):
    # Eager bounds checks (cross_entropy's targets, embedding's indices) need index values.
    # Off the host (here cpu:1, as on a GPU) reading a device array is a device-to-host copy,
    # so integer tensors made from host data keep it, and a read is kept with its array: a
    # training step reads no device values, while the checks still raise PyTorch's errors.
    from jtorch._core import tensor_base
    from jtorch._ops import _index_util

    reads = []
    real = np.asarray
    monkeypatch.setattr(tensor_base.np, "asarray", lambda a, *k, **kw: (
        reads.append(type(a).__name__) if isinstance(a, jax.Array) else None) or real(a, *k, **kw))
    dev = "cpu:1"
    x = jtorch.randn(4, 3, device=dev, requires_grad=True)
    targets = [jtorch.tensor(np.array([0, 2, 1, 2]), device=dev),     # from host data
               jtorch.tensor([0, 2, 1, 2]).to(dev)]                     # moved from the host
    for y in targets:
        for target in (y, y.view(-1)):
            reads.clear()
            loss = jtorch.nn.functional.cross_entropy(x, target)
            loss.backward()
            assert reads == [], reads
    emb = jtorch.nn.Embedding(5, 2).to(dev)
    idx = jtorch.tensor([[0, 4], [1, 3]]).to(dev)
    reads.clear()
    emb(idx)
    assert reads == []
    # still checked: PyTorch's errors from the host copies
    bad = jtorch.tensor([0, 3, 1, 2]).to(dev)
    with pytest.raises(IndexError, match="Target 3 is out of bounds."):
        jtorch.nn.functional.cross_entropy(x, bad)
    with pytest.raises(IndexError, match="index out of range in self"):
        emb(jtorch.tensor([5]).to(dev))
    # a tensor computed on the device is read once, then its array's copy is reused
    computed = (targets[0] * 1).to(dev)
    reads.clear()
    for _ in range(3):
        jtorch.nn.functional.cross_entropy(x, computed)
    assert len(reads) == 1
    # an in-place write gives the tensor a new array: the old copy is not used
    computed.add_(1)
    with pytest.raises(IndexError, match="Target 3 is out of bounds."):
        jtorch.nn.functional.cross_entropy(x, computed)
    assert _index_util.concrete(computed).tolist() == [1, 3, 2, 3]
    # large integer tensors keep no host copy (a dataset moved whole frees its host memory)
    monkeypatch.setattr(tensor_base, "HOST_COPY_MAX", 3)
    big = jtorch.tensor([0, 1, 2, 1]).to(dev)
    assert big._host_copy is None
    _index_util.concrete(big)
    assert big._host_copy is None


_OTHER_DEFAULT = r'''
import io
import jax
jax.config.update("jax_default_device", jax.devices("cpu")[1])
import numpy as np
import jtorch

def where(t):
    return {d.id for d in t._value.devices()}

lin = jtorch.nn.Linear(3, 2)
opt = jtorch.optim.Adam(lin.parameters())
x = jtorch.tensor([[1.0, 2.0, 3.0]])
lin(x).sum().backward()
opt.step()
buf = io.BytesIO()
jtorch.save(lin.state_dict(), buf)
buf.seek(0)
made = {"tensor": x, "int": jtorch.tensor([1, 2]), "zeros": jtorch.zeros(2),
        "arange": jtorch.arange(3), "randn": jtorch.randn(2), "randint": jtorch.randint(0, 5, (2,)),
        "from_numpy": jtorch.from_numpy(np.ones(2)), "weight": lin.weight,
        "grad": lin.weight.grad, "exp_avg": opt.state[lin.weight]["exp_avg"],
        "sum": x.sum() + jtorch.ones(1), "loaded": jtorch.load(buf)["weight"],
        "batch": next(iter(jtorch.utils.data.DataLoader([np.ones(2)] * 2, batch_size=2))),
        "compiled": jtorch.compile(lambda a: a * 2)(x)}
# a compiled step on the accelerator (here cpu:1) gives the generator's key back committed
# there; eager random ops and another compiled step on host tensors still run on the host
for dev in ("cpu:1", "cpu"):
    net = jtorch.nn.Sequential(jtorch.nn.Linear(3, 3), jtorch.nn.Dropout(0.5)).to(dev)
    sgd = jtorch.optim.SGD(net.parameters(), lr=0.1)

    def step(a):
        sgd.zero_grad()
        loss = net(a).sum()
        loss.backward()
        sgd.step()
        return loss

    made["step_" + dev] = jtorch.compile(step)(x.to(dev)).cpu()
    made["dropout_" + dev] = jtorch.nn.functional.dropout(x)
print({k: (str(t.device), sorted(where(t))) for k, t in made.items()})
'''


def test_tensors_made_without_a_device_stay_on_the_host_when_jax_defaults_elsewhere():
    """On a GPU machine JAX's default device is the GPU; tensors that report plain cpu must
    still live on the host device (cpu:0), and their ops run there. Simulated with cpu:1 as
    JAX's default device, in a fresh interpreter (the choice is made once per process)."""
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2",
               JAX_PLATFORMS="cpu")
    done = subprocess.run([sys.executable, "-c", _OTHER_DEFAULT], env=env, capture_output=True,
                          text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = ast.literal_eval(done.stdout.strip().splitlines()[-1])
    assert seen == {k: ("cpu", [0]) for k in seen} and len(seen) == 18, seen
