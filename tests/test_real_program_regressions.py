"""Regressions found by running public PyTorch programs under jtorch (docs/real-programs.md):
each test is a small stand-in for what the program did, run in jtorch and in real PyTorch."""

import pickle
import warnings

import numpy as np
import pytest
import torch

import jtorch


def _load_outcome(T, path, **kwargs):
    """What ``T.load(path, **kwargs)`` does: ('ok', value, warning texts) or the error type."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = T.load(path, **kwargs)
        except (pickle.UnpicklingError, RuntimeError) as e:
            return type(e).__name__, None, []
    return "ok", value, [str(w.message) for w in caught if "TORCH_FORCE" in str(w.message)]


@pytest.mark.parametrize("env, kwargs", [
    ({"TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "1"}, {}),
    ({"TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "true"}, {"weights_only": True}),
    ({"TORCH_FORCE_WEIGHTS_ONLY_LOAD": "1"}, {"weights_only": False}),
    ({"TORCH_FORCE_WEIGHTS_ONLY_LOAD": "1", "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "1"}, {}),
    ({}, {}),
])
def test_load_honours_the_weights_only_environment_variables(tmp_path, monkeypatch, env,
                                                              kwargs):
    # pytorch/examples time_sequence_prediction saves a NumPy array with torch.save and loads
    # it with a bare torch.load: PyTorch 2.6+ needs TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1 for it
    data = np.sin(np.arange(12.0)).reshape(3, 4)
    path = tmp_path / "traindata.pt"
    torch.save(data, path)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    got, value, messages = _load_outcome(jtorch, path, **kwargs)
    want, expected, expected_messages = _load_outcome(torch, path, **kwargs)
    assert got == want
    assert messages == expected_messages
    if want == "ok":
        np.testing.assert_array_equal(value, expected)


def _loader_warnings(T, **kwargs):
    data = T.utils.data.TensorDataset(T.arange(6.0))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        batches = [b[0].tolist() for b in T.utils.data.DataLoader(data, batch_size=4, **kwargs)]
    return batches, sorted(str(w.message) for w in caught if "pin" in str(w.message))


@pytest.mark.parametrize("kwargs", [{"pin_memory": True}, {"pin_memory": False},
                                    {"pin_memory": True, "pin_memory_device": "cpu"}])
def test_pin_memory_without_an_accelerator_warns_as_pytorch(kwargs):
    # minGPT's Trainer builds its DataLoader with pin_memory=True: on a machine without an
    # accelerator PyTorch warns when iterating, jtorch said nothing
    if jtorch.accelerator.is_available() != torch.accelerator.is_available():
        pytest.skip("the two frameworks see different accelerators on this machine")
    assert _loader_warnings(jtorch, **kwargs) == _loader_warnings(torch, **kwargs)


def test_module_share_memory_raises_instead_of_training_nothing():
    # pytorch/examples mnist_hogwild: model.share_memory(), then child processes train it and
    # the parent evaluates it; jtorch's no-op left the parent's model untrained, silently
    model = jtorch.nn.Linear(2, 2)
    with pytest.raises(NotImplementedError, match=r"torch\.nn\.Module\.share_memory"):
        model.share_memory()
    reference = torch.nn.Linear(2, 2)
    assert reference.share_memory() is reference  # where PyTorch shares and goes on


# ---- PyTorch Lightning (scripts/real_drivers/lightning_mnist.py): the torch internals it reaches

@pytest.mark.parametrize("args, kwargs", [
    (("cpu",), {}), ((), {"dtype": "float16"}), (("cpu", "float64", True), {}),
    ((), {"device": "cpu"}), (("tensor64",), {}), ((), {"memory_format": "channels_last"}),
    (("int64",), {}), ((), {}), (("tensor32", True), {}),
    ((), {"dtype": "float32", "device": "cpu", "non_blocking": True}),
    (("cpu", "float64", True, False), {}), (("float64",), {"copy": False}),
    ((1, 2, 3, 4, 5), {}),
])
def test_parse_to_returns_what_pytorch_parses(args, kwargs):
    # Lightning's DeviceDtypeModuleMixin.to calls torch._C._nn._parse_to(*args, **kwargs)
    def outcome(T):
        def arg(v):
            if v == "tensor64":
                return T.zeros(1, dtype=T.float64)
            if v == "tensor32":
                return T.zeros(1)
            return getattr(T, v) if isinstance(v, str) and v != "cpu" else v

        try:
            parsed = T._C._nn._parse_to(*map(arg, args), **{k: arg(v) for k, v in kwargs.items()})
        except (RuntimeError, TypeError) as e:
            return type(e).__name__, str(e)
        return tuple(str(p) for p in parsed)

    assert outcome(jtorch) == outcome(torch)


def test_c_module_names_libraries_reach():
    # lightning.fabric.utilities.load imports torch._C._TensorMeta; torchmetrics' Metric calls
    # torch._C._log_api_usage_once; Lightning probes hasattr(torch._C, "_cuda_...")
    assert isinstance(jtorch.Tensor, jtorch._C._TensorMeta)
    assert isinstance(torch.Tensor, torch._C._TensorMeta)
    assert jtorch._C._log_api_usage_once("x") is torch._C._log_api_usage_once("x") is None
    assert not hasattr(jtorch._C, "_cuda_clearCublasWorkspaces")


def test_dynamo_exports_optimized_module():
    # lightning.fabric.wrappers: from torch._dynamo import OptimizedModule
    import torch._dynamo  # noqa: PLC0415 -- loaded on first use in PyTorch

    import jtorch._dynamo  # noqa: PLC0415
    assert torch._dynamo.OptimizedModule is torch._dynamo.eval_frame.OptimizedModule
    assert jtorch._dynamo.OptimizedModule is jtorch._dynamo.eval_frame.OptimizedModule
    assert isinstance(jtorch.compile(jtorch.nn.Linear(2, 2)), jtorch._dynamo.OptimizedModule)


def test_emit_nvtx_as_cpu_only_pytorch():
    # lightning.pytorch.profilers.pytorch names torch.autograd.profiler.emit_nvtx at import
    if jtorch.cuda.is_available() or torch.cuda.is_available():
        pytest.skip("a GPU: PyTorch emits NVTX ranges there")
    for T in (jtorch, torch):
        nvtx = T.autograd.profiler.emit_nvtx()
        assert (nvtx.enabled, nvtx.record_shapes) == (True, False)
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
            with nvtx:
                pass
        with T.autograd.profiler.emit_nvtx(enabled=False):
            pass


def test_cuda_rng_state_all_without_cuda():
    # Lightning's isolate_rng restores torch.cuda.set_rng_state_all(states) after each sanity
    # check; without CUDA the list is empty and setting a state does nothing
    if jtorch.cuda.is_available() or torch.cuda.is_available():
        pytest.skip("a GPU")
    for T in (jtorch, torch):
        assert T.cuda.get_rng_state_all() == []
        T.cuda.set_rng_state_all([])
        T.cuda.set_rng_state(T.zeros(16, dtype=T.uint8))   # queued in PyTorch: never applied
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
            T.cuda.get_rng_state()


def test_import_leaves_numpys_global_random_stream_alone():
    # eriklindernoren/PyTorch-GAN draws its noise with np.random: seeded before the import
    # (here, as the comparison seeds it at start-up), the stream must not move on import
    # torch; importing JAX drew five numbers from it (jax._src.clusters.k8s_cluster)
    import subprocess
    import sys

    def first_draw(module):
        code = (f"import numpy as np\nnp.random.seed(0)\nimport {module}\n"
                "print(np.random.get_state()[2], repr(np.random.normal()))")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              check=True)
        return done.stdout.split()

    assert first_draw("jtorch") == first_draw("torch")
