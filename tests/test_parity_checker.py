"""jtorch.testing.compare_with_torch and ``python -m jtorch.parity``: models that agree with
PyTorch are reported within tolerance (the differences are computed, not assumed), and a
gradient deliberately made wrong in jtorch is caught for exactly that parameter."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import jtorch
from jtorch.parity import main as parity_main
from jtorch.testing import compare_with_torch

pytest.importorskip("torch")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RNG = np.random.default_rng(0)
X = RNG.standard_normal((6, 4)).astype(np.float32)
Y = np.array([0, 1, 1, 0, 1, 0])


def mlp(T):
    return T.nn.Sequential(T.nn.Linear(4, 8), T.nn.ReLU(), T.nn.Linear(8, 2))


def mlp_with_wrong_weight_grad(T):
    """jtorch's first weight gets a gradient 1e-3 too large (relative) through a hook."""
    model = mlp(T)
    if T is jtorch:
        model[0].weight.register_hook(lambda g: g * (1 + 1e-3))
    return model


class _OffByScale(jtorch.autograd.Function):
    """The identity, with a backward 1e-3 (relative) too large."""

    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        return grad * (1 + 1e-3)


def test_mlp_agrees_and_every_quantity_is_reported():
    report = compare_with_torch(mlp, X, loss_fn=lambda T: T.nn.CrossEntropyLoss(), target=Y,
                                print_report=False)
    assert report.ok, str(report)
    got = [(e.kind, e.name) for e in report.entries]
    assert got == [("output", "output"), ("loss", "loss"), ("grad", "0.weight"),
                   ("grad", "0.bias"), ("grad", "2.weight"), ("grad", "2.bias"),
                   ("input grad", "input")]
    for e in report.entries:
        assert e.numel == int(np.prod(e.shape))
        assert 0 <= e.max_abs_diff <= e.atol + e.rtol * 10  # values are O(1)
        assert (e.rtol, e.atol) == (1.3e-6, 1e-5)  # assert_close's float32 defaults


def test_small_cnn_agrees_including_batchnorm_buffers(capsys):
    x = RNG.standard_normal((2, 3, 8, 8)).astype(np.float32)

    def cnn(T):
        return T.nn.Sequential(T.nn.Conv2d(3, 4, 3, padding=1), T.nn.BatchNorm2d(4),
                               T.nn.ReLU(), T.nn.MaxPool2d(2), T.nn.Flatten(),
                               T.nn.Linear(64, 5))

    report = compare_with_torch(cnn, x)
    assert report.ok, str(report)
    assert report.entry("grad", "0.weight").shape == (4, 3, 3, 3)
    assert report.entry("buffer", "1.num_batches_tracked").max_abs_diff == 0
    printed = capsys.readouterr().out
    assert "all within tolerance" in printed and "1.running_mean" in printed


def test_the_report_matches_a_direct_computation():
    """The numbers in the report are the differences between the two frameworks' grads."""
    import torch

    jm, tm = mlp(jtorch), mlp(torch)
    tm.load_state_dict({k: torch.tensor(v.detach().numpy()) for k, v in
                        jm.state_dict().items()})
    report = compare_with_torch((jm, tm), X, loss_fn=lambda T: T.nn.CrossEntropyLoss(),
                                target=Y, print_report=False)
    a = jm[2].weight.grad.numpy().astype(np.float64)
    b = tm[2].weight.grad.numpy().astype(np.float64)
    assert report.entry("grad", "2.weight").max_abs_diff == np.abs(a - b).max()


def test_a_wrong_gradient_is_caught_for_exactly_that_parameter():
    report = compare_with_torch(mlp_with_wrong_weight_grad, X,
                                loss_fn=lambda T: T.nn.CrossEntropyLoss(), target=Y,
                                print_report=False)
    assert not report.ok
    assert [(e.kind, e.name) for e in report.failures] == [("grad", "0.weight")]
    bad = report.entry("grad", "0.weight")
    assert bad.mismatched > 0 and 0.5e-3 < bad.max_rel_diff < 2e-3


def test_a_wrong_custom_function_backward_is_caught_in_the_input_gradient():
    report = compare_with_torch(
        lambda T: (lambda x: _OffByScale.apply(x).tanh()) if T is jtorch else
        (lambda x: x.tanh()), np.linspace(-1, 1, 20).reshape(4, 5), print_report=False)
    assert [(e.kind, e.name) for e in report.failures] == [("input grad", "input")]
    # looser tolerances accept the same difference
    assert compare_with_torch(
        lambda T: (lambda x: _OffByScale.apply(x).tanh()) if T is jtorch else
        (lambda x: x.tanh()), np.linspace(-1, 1, 20).reshape(4, 5), rtol=1e-2, atol=1e-2,
        print_report=False).ok


def test_nested_outputs_and_non_array_arguments():
    """Each tensor of a nested output is compared; ints pass through as they are; a float64
    input gets float64's tolerances."""
    x = np.linspace(-2, 2, 12).reshape(3, 4)
    report = compare_with_torch(
        lambda T: (lambda x, dim: (x.sin(), {"c": x.cos().sum(dim), "n": None})), (x, 1),
        print_report=False)
    assert report.ok, str(report)
    got = [(e.kind, e.name, e.shape) for e in report.entries]
    assert got == [("output", "output[0]", (3, 4)), ("output", "output[1]['c']", (3,)),
                   ("loss", "sum(output * w)", ()), ("input grad", "input[0]", (3, 4))]
    assert {(e.rtol, e.atol) for e in report.entries} == {(1e-7, 1e-7)}


def test_bfloat16_weights_and_inputs_cross_bit_for_bit():
    """bfloat16 arrays (ml_dtypes, which PyTorch cannot read) reach both frameworks exactly;
    bfloat16's tolerances (assert_close's: 1.6e-2, 1e-5) apply."""
    x = np.linspace(-2, 2, 12).reshape(3, 4).astype(jtorch.tensor(0.0).bfloat16().numpy().dtype)
    report = compare_with_torch(lambda T: T.nn.Linear(4, 2, bias=False).to(T.bfloat16), x,
                                print_report=False)
    assert report.ok, str(report)
    assert report.entry("output", "output").dtype == "bfloat16"
    assert {(e.rtol, e.atol) for e in report.entries} == {(0.016, 1e-5)}


def test_without_torch_the_error_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # what a missing package imports as
    with pytest.raises(ImportError, match="pip install torch"):
        compare_with_torch(mlp, X, print_report=False)


def test_arguments_are_checked():
    with pytest.raises(TypeError, match="PyTorch cannot rebuild a jtorch module"):
        compare_with_torch(mlp(jtorch), X, print_report=False)
    with pytest.raises(ValueError, match="'rtol' and 'atol'"):
        compare_with_torch(mlp, X, rtol=1e-3, print_report=False)


CASE = """
import numpy as np

def parity_case(T):
    model = T.nn.Sequential(T.nn.Linear(4, 8), T.nn.ReLU(), T.nn.Linear(8, 2))
    if {perturb} and T.__name__ == "jtorch":
        model[2].bias.register_hook(lambda g: g * 1.001)
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    return model, x, T.nn.CrossEntropyLoss(), np.array([0, 1, 1, 0, 1])
"""


@pytest.mark.parametrize("perturb, status", [(False, 0), (True, 1)])
def test_cli_subprocess_exit_codes(tmp_path, perturb, status):
    """``python -m jtorch.parity case.py`` in a fresh interpreter: status 0 when everything
    agrees, 1 when jtorch's gradient of ``2.bias`` is made wrong, and only it is listed."""
    script = tmp_path / "case.py"
    script.write_text(textwrap.dedent(CASE.format(perturb=perturb)))
    env = dict(os.environ, PYTHONPATH=ROOT, JAX_PLATFORMS="cpu")
    done = subprocess.run([sys.executable, "-m", "jtorch.parity", str(script)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == status, done.stdout[-2000:] + done.stderr[-2000:]
    differs = [ln.split()[1] for ln in done.stdout.splitlines() if "DIFFERS" in ln]
    assert differs == (["2.bias"] if perturb else [])


def test_cli_usage_errors(tmp_path, capsys):
    script = tmp_path / "empty.py"
    script.write_text("x = 1\n")
    for argv in ([str(script)], [str(tmp_path / "missing.py")],
                 [str(script), "--rtol", "1e-3"]):
        with pytest.raises(SystemExit) as e:
            parity_main(argv)
        assert e.value.code == 2
    err = capsys.readouterr().err
    assert "defines no function parity_case(T)" in err and "no such file" in err


def test_cli_in_process_with_tolerances(tmp_path, capsys):
    """The perturbed case passes with --rtol/--atol loose enough for a 1e-3 relative error."""
    script = tmp_path / "case.py"
    script.write_text(textwrap.dedent(CASE.format(perturb=True)))
    assert parity_main([str(script), "--rtol", "1e-2", "--atol", "1e-4"]) == 0
    assert "all within tolerance" in capsys.readouterr().out
