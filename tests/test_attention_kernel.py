"""torch.nn.attention against PyTorch on the CPU: SDPBackend's members, sdpa_kernel as a context
manager and a decorator (which backends it enables, with priorities, and restores, also after
an error), its argument checks, and which attention calls run or raise PyTorch's "No viable
backend" error under each choice; the values inside the block are PyTorch's."""

import numpy as np
import pytest
import torch
import torch.nn.attention as tattn
from helpers import assert_close, rand

import jtorch
import jtorch.nn.attention as jattn

LIBS = ((torch, tattn), (jtorch, jattn))


def test_backend_enum():
    for _, A in LIBS:
        B = A.SDPBackend
        assert [(m, int(v)) for m, v in B.__members__.items()] == [
            ("ERROR", -1), ("MATH", 0), ("FLASH_ATTENTION", 1), ("EFFICIENT_ATTENTION", 2),
            ("CUDNN_ATTENTION", 3), ("OVERRIDEABLE", 4)]
        assert repr(B.MATH) == "<SDPBackend.MATH: 0>" and str(B.MATH) == "SDPBackend.MATH"
        assert B(1) == B.FLASH_ATTENTION and B.MATH != 0 and B.MATH.name == "MATH"
        assert B.__module__ == A.__name__ and A.WARN_FOR_UNFUSED_KERNELS is False
    assert set(jattn.__all__) == set(tattn.__all__)


CHOICES = {
    "math": lambda B: B.MATH,
    "flash": lambda B: B.FLASH_ATTENTION,
    "efficient": lambda B: B.EFFICIENT_ATTENTION,
    "cudnn": lambda B: B.CUDNN_ATTENTION,
    "overrideable": lambda B: B.OVERRIDEABLE,
    "error": lambda B: B.ERROR,
    "none": lambda B: [],
    "fused gpu ones": lambda B: [B.EFFICIENT_ATTENTION, B.CUDNN_ATTENTION],
    "math twice": lambda B: [B.MATH, B.MATH],
    "cudnn and math": lambda B: [B.CUDNN_ATTENTION, B.MATH],
}

Q, K, V = rand(2, 2, 5, 8, seed=0), rand(2, 2, 6, 8, seed=1), rand(2, 2, 6, 8, seed=2)
X = rand(5, 2, 8, seed=3)


def _calls(T):
    """Every attention call that goes through scaled dot product attention in PyTorch (and
    one that does not: MHA returning its weights)."""
    q, k, v, x = (T.tensor(a) for a in (Q, K, V, X))
    T.manual_seed(0)
    mha = T.nn.MultiheadAttention(8, 2)
    layer = T.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0)
    return {
        "sdpa": lambda: T.nn.functional.scaled_dot_product_attention(q, k, v),
        "sdpa causal": lambda: T.nn.functional.scaled_dot_product_attention(q, k, v,
                                                                            is_causal=True),
        "mha weights": lambda: mha(x, x, x, need_weights=True)[1],
        "mha no weights": lambda: mha(x, x, x, need_weights=False)[0],
        "encoder layer": lambda: layer(x),
    }


def _outcome(fn):
    try:
        return fn()
    except RuntimeError as e:
        return str(e)


@pytest.mark.parametrize("choice", list(CHOICES))
def test_which_calls_run(choice):
    results = []
    for T, A in LIBS:
        calls = _calls(T)
        before = A._cur_sdpa_kernel_backends()
        with A.sdpa_kernel(CHOICES[choice](A.SDPBackend)) as ctx:
            assert ctx == {}
            enabled = [b.name for b in A._cur_sdpa_kernel_backends()]
            results.append((enabled, {n: _outcome(f) for n, f in calls.items()}))
        assert A._cur_sdpa_kernel_backends() == before
    (t_enabled, t_out), (j_enabled, j_out) = results
    assert j_enabled == t_enabled
    for name in t_out:
        if isinstance(t_out[name], str):
            assert j_out[name] == t_out[name], name
        else:
            # the model weights differ (each library's init), so compare shapes for modules
            assert not isinstance(j_out[name], str), (name, j_out[name])
            if name.startswith("sdpa"):
                assert_close(j_out[name], t_out[name], atol=1e-5, rtol=1e-5)
            else:
                assert tuple(j_out[name].shape) == tuple(t_out[name].shape)


def test_priority_order_and_restore():
    for _, A in LIBS:
        B = A.SDPBackend
        default = A._cur_sdpa_kernel_backends(with_priority=True)
        with A.sdpa_kernel([B.CUDNN_ATTENTION, B.MATH], set_priority=True):
            ordered = A._cur_sdpa_kernel_backends(with_priority=True)
            assert ordered == [B.CUDNN_ATTENTION, B.MATH]
        assert A._cur_sdpa_kernel_backends(with_priority=True) == default
        with pytest.raises(ValueError, match="inside"):
            with A.sdpa_kernel(B.EFFICIENT_ATTENTION):
                raise ValueError("inside")
        assert A._cur_sdpa_kernel_backends(with_priority=True) == default


def test_decorator():
    for T, A in LIBS:
        @A.sdpa_kernel(A.SDPBackend.EFFICIENT_ATTENTION)
        def attend(q, sdpa=T.nn.functional.scaled_dot_product_attention):
            return sdpa(q, q, q)

        with pytest.raises(RuntimeError, match="No viable backend for "
                                               "scaled_dot_product_attention was found"):
            attend(T.tensor(Q))
        out = T.nn.functional.scaled_dot_product_attention(*(T.tensor(Q),) * 3)
        assert np.isfinite(out.numpy()).all()


@pytest.mark.parametrize("bad", [("MATH",), "math", 0, None])
def test_argument_checks(bad):
    messages = []
    for _, A in LIBS:
        arg = tuple(getattr(A.SDPBackend, b) for b in bad) if isinstance(bad, tuple) else bad
        with pytest.raises(AssertionError) as e:
            with A.sdpa_kernel(arg):
                pass
        messages.append(str(e.value))
    assert messages[1] == messages[0]


def test_compiled_call_inside_the_block():
    f = jtorch.compile(lambda q: jtorch.nn.functional.scaled_dot_product_attention(q, q, q))
    q = jtorch.tensor(Q)
    with jattn.sdpa_kernel(jattn.SDPBackend.MATH):
        expected = torch.nn.functional.scaled_dot_product_attention(*(torch.tensor(Q),) * 3)
        assert_close(f(q), expected, atol=1e-5, rtol=1e-5)


def test_stand_ins():
    with pytest.raises(NotImplementedError, match="torch.nn.attention.varlen"):
        jattn.varlen.varlen_attn  # noqa: B018 - the attribute read raises
    with pytest.raises(NotImplementedError, match="register_flash_attention_impl"):
        jattn.register_flash_attention_impl("FA3", register_fn=None)


def test_reached_from_the_top_package():
    # as torch.nn.attention and torch.testing after a plain `import torch`
    assert jtorch.nn.attention is jattn and jtorch.nn.attention.sdpa_kernel is jattn.sdpa_kernel
    assert jtorch.testing.assert_close.__module__.startswith("jtorch.testing")
