"""jtorch on a CUDA GPU against PyTorch: tensors on ``cuda``, moves between devices, a training
step of each benchmark model (eager and compiled) and bf16 autocast, compared with PyTorch's
values. The reference runs on PyTorch's GPU where the installed PyTorch has CUDA, else on its
CPU. Runs only where JAX sees a GPU: the suite pins JAX to the CPU unless JAX_PLATFORMS is
set, so run it as ``JAX_PLATFORMS=cuda,cpu python -m pytest tests/test_cuda.py``. On a machine
without a GPU every test here is skipped, as PyTorch's own CUDA tests are."""

import numpy as np
import pytest
import torch
from helpers import assert_close

import jtorch

pytestmark = pytest.mark.skipif(not jtorch.cuda.is_available(),
                                reason="no CUDA device (jtorch.cuda.is_available() is False)")
TORCH_DEV = "cuda" if torch.cuda.is_available() else "cpu"
FP32 = {"atol": 2e-5, "rtol": 2e-4}


@pytest.fixture(autouse=True)
def _no_tf32():
    """PyTorch's convolutions on a GPU use TF32 by default (cudnn.allow_tf32); jtorch's fp32
    matmuls and convolutions are full fp32 ("highest"): compare like with like."""
    old = torch.backends.cudnn.allow_tf32
    torch.backends.cudnn.allow_tf32 = False
    yield
    torch.backends.cudnn.allow_tf32 = old


def test_tensors_live_on_the_gpu():
    x = jtorch.arange(6.0, device="cuda").reshape(2, 3)
    assert x.device == jtorch.device("cuda", 0) and x.is_cuda and not x.is_cpu
    assert x.get_device() == 0 and next(iter(x._value.devices())).platform == "gpu"
    y = (x * 2).t().contiguous()
    assert y.device == x.device
    host = y.cpu()
    assert host.device == jtorch.device("cpu") and host.tolist() == [[0, 6], [2, 8], [4, 10]]
    back = host.to("cuda")
    assert back.is_cuda and back.equal(y)
    z = jtorch.zeros(3, device=jtorch.device("cuda:0"))
    z[1:] += 1
    assert z.tolist() == [0.0, 1.0, 1.0]
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        x + host
    assert jtorch.cuda.device_count() >= 1 and jtorch.cuda.current_device() == 0


def _platform(t):
    return next(iter(t._value.devices())).platform


def test_tensors_made_without_a_device_live_on_the_host():
    """JAX's default device is the GPU here; a tensor that reports cpu must still be in host
    memory, and its ops must run there (factories, tensor(), randomness, modules, optimizers,
    a DataLoader's batches, checkpoints)."""
    import io

    made = {"tensor": jtorch.tensor([[1.0, 2.0]]), "zeros": jtorch.zeros(2, 3),
            "arange": jtorch.arange(4), "randn": jtorch.randn(3),
            "from_numpy": jtorch.from_numpy(np.ones(3, np.float32))}
    lin = jtorch.nn.Linear(2, 3)
    made["weight"] = lin.weight
    lin(made["tensor"]).sum().backward()
    jtorch.optim.Adam(lin.parameters()).step()
    made["grad"], made["stepped"] = lin.weight.grad, lin.weight
    made["sum"] = made["zeros"].sum() + made["randn"].mean()
    loader = jtorch.utils.data.DataLoader([np.ones(2, np.float32)] * 4, batch_size=2)
    made["batch"] = next(iter(loader))
    buf = io.BytesIO()
    jtorch.save(made["zeros"], buf)
    buf.seek(0)
    made["loaded"] = jtorch.load(buf)
    for name, t in made.items():
        assert t.device == jtorch.device("cpu") and _platform(t) == "cpu", name
    # a 0-d CPU tensor joins a GPU tensor (copied there); a 1-d one does not
    g = jtorch.ones(3, device="cuda")
    joined = g * jtorch.tensor(2.0)
    assert joined.is_cuda and _platform(joined) == "gpu" and joined.tolist() == [2.0] * 3
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        g + made["randn"]


def _models(T):
    nn = T.nn
    mlp = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128),
                        nn.ReLU(), nn.Linear(128, 10))
    cnn = nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(32, 64, 3),
                        nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(1600, 128),
                        nn.ReLU(), nn.Linear(128, 10))

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(256, 64)
            layer = nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True)
            self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
            self.head = nn.Linear(64, 256)
            self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(16))

        def forward(self, x):
            return self.head(self.enc(self.emb(x), mask=self.mask, is_causal=True))

    return {"mlp": mlp, "cnn": cnn, "transformer": LM()}


def _data(kind, rng):
    if kind == "transformer":
        return rng.integers(0, 256, (8, 16)), rng.integers(0, 256, (8, 16))
    return rng.standard_normal((16, 1, 28, 28)).astype(np.float32), rng.integers(0, 10, 16)


def _train(T, model, kind, device, batches, compiled):
    """Three SGD-momentum steps; the losses and the final parameters. (Not Adam: attention's
    key bias has a zero gradient up to rounding, which Adam scales up to +-lr.)"""
    model.to(device)
    opt = T.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = T.nn.CrossEntropyLoss()

    def step(x, y):
        opt.zero_grad()
        out = model(x)
        loss = loss_fn(out.reshape(-1, out.shape[-1]), y.reshape(-1))
        loss.backward()
        opt.step()
        return loss

    f = jtorch.compile(step) if compiled else step
    losses = [f(T.tensor(x, device=device), T.tensor(y, device=device)).item()
              for x, y in batches]
    return losses, {k: v.detach().cpu().numpy() for k, v in model.state_dict().items()}


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize("kind", ["mlp", "cnn", "transformer"])
def test_training_steps_match_pytorch(kind, compiled):
    torch.manual_seed(0)
    tm = _models(torch)[kind]
    jm = _models(jtorch)[kind]
    jm.load_state_dict({k: jtorch.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    rng = np.random.default_rng(0)
    batches = [_data(kind, rng) for _ in range(3)]
    tl, tp = _train(torch, tm, kind, TORCH_DEV, batches, False)
    jl, jp = _train(jtorch, jm, kind, "cuda", batches, compiled)
    assert all(p.device.type == "cuda" for p in jm.parameters())
    np.testing.assert_allclose(jl, tl, **FP32)
    for k in tp:
        assert_close(jp[k], tp[k], atol=5e-5, rtol=5e-4, msg=k)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="the reference needs PyTorch's "
                    "CUDA autocast policy (this PyTorch has no CUDA)")
def test_bf16_autocast_matches_pytorch_cuda():
    rng = np.random.default_rng(1)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in [(8, 32), (16, 32), (16,)])
    outs = {}
    for T, dev in ((torch, "cuda"), (jtorch, "cuda")):
        xt, wt, bt = (T.tensor(a, device=dev, requires_grad=True) for a in (x, w, b))
        with T.autocast("cuda", dtype=T.bfloat16):
            h = T.nn.functional.linear(xt, wt, bt)
            s = h.softmax(-1)         # fp32 under CUDA autocast
            loss = (s * h).sum()
        loss.backward()
        outs[T] = (h.dtype, s.dtype, loss.dtype, h.float().detach().cpu().numpy(),
                   wt.grad.cpu().numpy())
    (th, ts, tl, tv, tg), (jh, js, jl, jv, jg) = outs[torch], outs[jtorch]
    assert (str(jh), str(js), str(jl)) == (str(th), str(ts), str(tl))
    assert_close(jv, tv, atol=3e-2, rtol=3e-2)
    assert_close(jg, tg, atol=5e-2, rtol=5e-2)
