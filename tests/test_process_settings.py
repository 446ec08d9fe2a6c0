"""Process settings against PyTorch 2.13's CPU build: torch.version, torch.backends (the
switches, their defaults and read-back, what is available), the float32 matmul precision and
its effect on JAX, deterministic algorithms (and XLA's flag), thread counts, the default
device (set_default_device, ``with torch.device``: where factories put tensors) and
torch.accelerator without an accelerator."""

import operator
import re
import threading
import warnings

import jax
import jax.numpy as jnp
import pytest
import torch

import jtorch

LIBS = (torch, jtorch)


def _outcome(fn):
    """The value of ``fn()`` or (error type, message)."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the outcome compared is any error
        return type(e).__name__, str(e)


def _same(fn):
    t, j = _outcome(lambda: fn(torch)), _outcome(lambda: fn(jtorch))
    assert j == t
    return t


# ------------------------------------------------------------------------------ version
def test_version():
    public = {n for n in dir(torch.version) if not n.startswith("_") and n != "Optional"}
    assert public <= set(dir(jtorch.version)) and set(jtorch.version.__all__) >= public
    for name in ("cuda", "hip", "rocm", "xpu", "debug"):
        assert getattr(jtorch.version, name) == getattr(torch.version, name), name
    assert jtorch.version.__version__ == jtorch.__version__
    assert isinstance(jtorch.version.git_version, str)


def test_version_is_a_torchversion_of_the_pytorch_release_followed():
    """denoising-diffusion-pytorch's Attend asserts ``version.parse(torch.__version__) >=
    version.parse('2.0.0')`` for flash attention; jtorch's "0.1.0" failed it. torch.__version__
    is the PyTorch release followed (jtorch's own release its local part), as a TorchVersion."""
    from packaging.version import Version

    from jtorch.torch_version import TorchVersion
    assert type(jtorch.__version__) is TorchVersion
    assert type(jtorch.version.__version__) is type(torch.version.__version__) is str
    assert Version(jtorch.__version__).release == Version(torch.__version__).release
    assert Version(jtorch.__version__).local.startswith("jtorch")
    assert jtorch.__version__ >= "2.0" and jtorch.__version__ >= (2, 0)
    assert Version(jtorch.__version__) >= Version("2.0.0")
    operands = ("2.13.0", "2.13", "2.9", "2.13.0+cpu", "1.12.0a0", "2.14.0.dev1", "parrot",
                (2,), (2, 9), (2, 13, 0), (2, 14), [2, 13])
    ops = (operator.gt, operator.lt, operator.eq, operator.ge, operator.le, operator.ne)
    for text in ("2.13.0", "2.9.1", "1.10.0a", "2.13.0+cpu"):
        t, j = torch.torch_version.TorchVersion(text), TorchVersion(text)
        for other in operands:
            for op in ops:
                assert op(j, other) == op(t, other), (text, op, other)
        assert str(j) == str(t) and hash(j) == hash(t)
        # PyTorch's compares with its vendored packaging's Version only (a TypeError for the
        # installed packaging's); jtorch's with the installed packaging's
        assert (j > Version("2.0")) == (Version(text) > Version("2.0"))
    _same(lambda lib: lib.torch_version.TorchVersion("2.1") > 2)


# ------------------------------------------------------------------------------ backends
def test_backends_names_and_availability():
    public = {n for n in dir(torch.backends) if not n.startswith("_") and n != "m"}
    assert public <= set(dir(jtorch.backends))
    for expr in ("mps.is_available()", "mps.is_built()", "cudnn.is_available()",
                 "cudnn.version()", "cpu.get_cpu_capability()", "cuda.is_built()"):
        _same(lambda T, expr=expr: eval("T.backends." + expr))
    # PyTorch's CPU build links oneDNN, MKL and OpenMP; jtorch (XLA) does not
    assert [jtorch.backends.mkldnn.is_available(), jtorch.backends.mkl.is_available(),
            jtorch.backends.openmp.is_available()] == [False, False, False]
    with pytest.raises(NotImplementedError, match="torch.backends.opt_einsum"):
        jtorch.backends.opt_einsum.is_available()


CUDNN = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32")


def _cudnn(T):
    return tuple(getattr(T.backends.cudnn, n) for n in CUDNN)


def test_cudnn_switches():
    def case(T):
        seen = [_cudnn(T)]
        T.backends.cudnn.benchmark = True
        T.backends.cudnn.deterministic = True
        seen.append(_cudnn(T))
        with T.backends.cudnn.flags(enabled=False, benchmark=True):
            seen.append(_cudnn(T))
        seen.append(_cudnn(T))
        T.backends.cudnn.benchmark = T.backends.cudnn.deterministic = False
        seen.append(_cudnn(T))
        return seen

    seen = _same(case)
    assert seen[0] == (True, False, None, False, True) == seen[-1]


def test_cuda_matmul_and_sdp_switches():
    def case(T):
        m = T.backends.cuda.matmul
        m.allow_fp16_reduced_precision_reduction = False
        seen = [m.allow_fp16_reduced_precision_reduction, m.allow_bf16_reduced_precision_reduction]
        m.allow_fp16_reduced_precision_reduction = True
        seen.append(_outcome(lambda: m.not_a_switch))
        T.backends.cuda.enable_math_sdp(False)
        seen.append([T.backends.cuda.math_sdp_enabled(), T.backends.cuda.flash_sdp_enabled()])
        q = T.ones(1, 1, 2, 2)
        T.backends.cuda.enable_flash_sdp(False)
        seen.append(_outcome(lambda: T.nn.functional.scaled_dot_product_attention(q, q, q)))
        T.backends.cuda.enable_flash_sdp(True)
        T.backends.cuda.enable_math_sdp(True)
        return seen

    seen = _same(case)
    assert seen[-1][0] == "RuntimeError" and "No viable backend" in seen[-1][1]


# ------------------------------------------------------------------- matmul precision
def _jax_dot_precision():
    x = jnp.ones((2, 2), jnp.float32)
    return re.findall(r"precision = \[(\w+)", jax.jit(jnp.matmul).lower(x, x).as_text())


@pytest.mark.parametrize("precision, jax_name, hlo", [
    ("highest", "float32", ["HIGHEST"]), ("high", "tensorfloat32", ["HIGH"]),
    ("medium", "bfloat16", ["DEFAULT"])])
def test_float32_matmul_precision(precision, jax_name, hlo):
    try:
        for T in LIBS:
            assert T.get_float32_matmul_precision() == "highest"
            assert T.backends.cuda.matmul.allow_tf32 is False
            T.set_float32_matmul_precision(precision)
            assert T.get_float32_matmul_precision() == precision
            assert T.backends.cuda.matmul.allow_tf32 is (precision != "highest")
        assert jax.config.jax_default_matmul_precision == jax_name
        assert _jax_dot_precision() == hlo
    finally:
        for T in LIBS:
            T.set_float32_matmul_precision("highest")


def test_allow_tf32_sets_the_precision_and_bad_values_warn():
    try:
        for T in LIBS:
            T.backends.cuda.matmul.allow_tf32 = True
            assert T.get_float32_matmul_precision() == "high"
            T.backends.cuda.matmul.allow_tf32 = False
            assert T.get_float32_matmul_precision() == "highest"
        assert jax.config.jax_default_matmul_precision == "float32"
        msgs = []
        for T in LIBS:
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                T.set_float32_matmul_precision("low")
            msgs.append(re.sub(r" \(Triggered internally at .*\)$", "", str(w[0].message)))
            assert T.get_float32_matmul_precision() == "highest"
        assert msgs[1] == msgs[0]
    finally:
        for T in LIBS:
            T.set_float32_matmul_precision("highest")


# ------------------------------------------------------------------------- determinism
def _determinism(T):
    return (T.are_deterministic_algorithms_enabled(),
            T.is_deterministic_algorithms_warn_only_enabled(), T.get_deterministic_debug_mode())


def test_deterministic_algorithms(monkeypatch):
    monkeypatch.setenv("XLA_FLAGS", "--xla_dump_to=/nonexistent")  # restored after the test

    def case(T):
        seen = [_determinism(T)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # jtorch: XLA's backends have started
            T.use_deterministic_algorithms(True, warn_only=True)
            seen.append(_determinism(T))
            T.use_deterministic_algorithms(True)
            seen.append(_determinism(T))
            for mode in ("warn", 0, "error", "x", 3, 1.0):
                seen.append(_outcome(lambda mode=mode: T.set_deterministic_debug_mode(mode)))
                seen.append(_determinism(T))
            seen.append(_outcome(lambda: T.use_deterministic_algorithms(1)))
            T.use_deterministic_algorithms(False)
        seen.append(_determinism(T))
        return seen

    seen = _same(case)
    assert seen[0] == (False, False, 0) == seen[-1] and seen[2] == (True, False, 2)
    import os
    assert os.environ["XLA_FLAGS"] == "--xla_dump_to=/nonexistent"
    with pytest.warns(UserWarning, match="applies from the next process"):
        jtorch.use_deterministic_algorithms(True)
    assert os.environ["XLA_FLAGS"].split() == ["--xla_dump_to=/nonexistent",
                                               "--xla_gpu_deterministic_ops=true"]
    with pytest.warns(UserWarning):
        jtorch.use_deterministic_algorithms(False)


# ------------------------------------------------------------------------------ threads
def test_threads():
    before = torch.get_num_threads(), torch.get_num_interop_threads()
    assert (jtorch.get_num_threads(), jtorch.get_num_interop_threads()) == before
    try:
        def case(T):
            T.set_num_threads(1)
            return [T.get_num_threads(), _outcome(lambda: T.set_num_threads(0)),
                    _outcome(lambda: T.set_num_threads(1.5)),
                    _outcome(lambda: T.set_num_interop_threads(0)), T.get_num_threads()]

        _same(case)
    finally:
        for T in LIBS:
            T.set_num_threads(before[0])


def test_build_facts():
    """torch's build facts as jtorch's backend has them: LAPACK and FFTs, no MKL or OpenMP
    (as its torch.backends say); flush-denormal cannot be set (False); the errors as
    PyTorch's."""
    assert (jtorch.has_lapack, jtorch.has_spectral) == (torch.has_lapack, torch.has_spectral)
    assert (jtorch.has_mkl, jtorch.has_openmp) == (jtorch.backends.mkl.is_available(),
                                                   jtorch.backends.openmp.is_available())
    assert jtorch.set_flush_denormal(False) is False and jtorch.init_num_threads() is None
    _same(lambda T: [T.is_distributed(T.ones(1)), _outcome(lambda: T.is_distributed(3)),
                     _outcome(lambda: T.set_flush_denormal(1))])


# ------------------------------------------------------------------------ default device
def _where(T):
    # tensors made on "cpu:0" are left out: jtorch reports "cpu:0" where PyTorch says "cpu"
    dev = str(T.get_default_device())
    if dev == "cpu:0":
        return [dev]
    return [dev, str(T.zeros(1).device), str(T.nn.Linear(2, 2).weight.device)]


def test_default_device():
    def case(T):
        seen = [_where(T)]
        try:
            for dev in ("cpu", "cpu:0", T.device("cpu")):
                T.set_default_device(dev)
                seen.append(_where(T))
            T.set_default_device("cpu:0")
            with T.device("cpu"):
                seen.append(_where(T))
                with T.device("cpu:0"):
                    seen.append(_where(T))
                seen.append(_where(T))
            seen.append(_where(T))
            T.set_default_device(None)
            seen.append(_where(T))
            T.set_default_device("cuda")
            seen.append(_outcome(lambda: T.get_default_device()))
            seen.append(_outcome(lambda: T.zeros(1)))
            seen.append(_outcome(lambda: T.nn.Linear(2, 2)))
            seen.append(str(T.zeros(1, device="cpu").device))
            other = []
            thread = threading.Thread(target=lambda: other.append(_where(T)))
            thread.start()
            thread.join()
            seen.append(other)
        finally:
            T.set_default_device(None)
        seen.append(_where(T))
        return seen

    seen = _same(case)
    assert seen[0] == ["cpu"] * 3 and seen[2] == ["cpu:0"]
    assert seen[-4][0] == "AssertionError"


# --------------------------------------------------------------------------- accelerator
@pytest.mark.filterwarnings("error:Use `:FutureWarning")
def test_deprecated_accelerator_aliases_warn():
    for T in LIBS:
        with pytest.warns(FutureWarning, match="Use `current_device_index` instead."):
            _outcome(T.accelerator.current_device_idx)
        with pytest.warns(FutureWarning, match="Use `set_device_index` instead."):
            _outcome(lambda T=T: T.accelerator.set_device_idx(0))


@pytest.mark.filterwarnings("ignore:Use `:FutureWarning")
def test_accelerator_without_one():
    assert set(jtorch.accelerator.__all__) == set(torch.accelerator.__all__)

    def case(T):
        A = T.accelerator
        seen = [A.is_available(), A.current_accelerator(), A.current_accelerator(True),
                A.device_count()]
        for fn in (A.current_device_index, A.current_device_idx, lambda: A.set_device_index(0),
                   lambda: A.set_device_idx("cpu:0"), lambda: A.set_device_index(None),
                   A.synchronize, A.memory_allocated, A.max_memory_allocated,
                   A.memory_reserved, A.max_memory_reserved, A.memory_stats,
                   A.reset_peak_memory_stats, A.empty_cache, A.get_device_capability,
                   A.get_memory_info, A.empty_host_cache, A.reset_accumulated_memory_stats,
                   lambda: A.device_index(0).__enter__()):
            seen.append(_outcome(fn))
        with A.device_index(None):
            seen.append("no-op block")
        return seen

    seen = _same(case)
    assert seen[:4] == [False, None, None, 0]
