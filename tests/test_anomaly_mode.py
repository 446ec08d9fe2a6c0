"""torch.autograd's anomaly mode against PyTorch: the flags and their context managers, the NaN
check of each backward node's gradients (PyTorch's error, naming the node and the output
index), the warning with the forward call's stack when a backward fails, custom Functions,
create_graph, and nothing checked or recorded with the mode off."""

import re
import warnings

import pytest
import torch

import jtorch

LIBS = (torch, jtorch)


def _run(fn):
    """(error message or None, [warning messages]) of ``fn()``; PyTorch's C++ source suffix of
    a warning is dropped (see jtorch/autograd/anomaly_mode.py)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn()
            err = None
        except RuntimeError as e:
            err = str(e)
    msgs = [re.sub(r" \(Triggered internally at .*\)$", "", str(w.message), flags=re.S)
            for w in caught]
    return err, msgs


def _in_this_file(msg):
    """A warning's first line and the frames of its stack that are in this file (the frames
    inside each library differ)."""
    head, *rest = msg.split("\n  File ")
    return [head] + [f for f in rest if f.startswith(f'"{__file__}"')]


def _both(case):
    out = []
    for T in LIBS:
        try:
            out.append(_run(lambda T=T: case(T)))
        finally:
            T.autograd.set_detect_anomaly(False)
    (t_err, t_msgs), (j_err, j_msgs) = out
    assert j_err == t_err
    assert [_in_this_file(m) for m in j_msgs] == [_in_this_file(m) for m in t_msgs]
    return out[0]


def _sqrt_case(T):
    x = T.tensor([-1.0, 4.0], requires_grad=True)
    with T.autograd.detect_anomaly():
        y = x.sqrt()
        (y * 2).sum().backward()


def test_nan_in_a_backward_raises_and_warns_with_the_forward_stack():
    err, msgs = _both(_sqrt_case)
    assert err == "Function 'SqrtBackward0' returned nan values in its 0th output."
    assert msgs[0].startswith("Anomaly Detection has been enabled.")
    assert msgs[1].startswith("Error detected in SqrtBackward0. Traceback of forward call that "
                              "caused the error:\n  File ") and "y = x.sqrt()" in msgs[1]


@pytest.mark.parametrize("order", ["nan first", "grad input first"])
def test_output_index_is_the_inputs_position(order):
    def case(T):
        a = T.tensor([0.0, 1.0], requires_grad=True)
        b = T.tensor([float("nan"), 1.0])
        T.autograd.set_detect_anomaly(True)
        out = b * a if order == "nan first" else a * b
        out.sum().backward()

    err, _ = _both(case)
    assert err == f"Function 'MulBackward0' returned nan values in its " \
                  f"{1 if order == 'nan first' else 0}th output."


def test_check_nan_off_and_mode_off_let_nan_through():
    grads = []
    for T in LIBS:
        for mode, check_nan in ((True, False), (False, True)):
            x = T.tensor([-1.0, 4.0], requires_grad=True)
            with T.autograd.set_detect_anomaly(mode, check_nan=check_nan):
                assert T.is_anomaly_enabled() is mode
                assert T.is_anomaly_check_nan_enabled() is check_nan
                err, msgs = _run(lambda x=x: x.sqrt().sum().backward())
            assert err is None and msgs == []
            grads.append(str(x.grad.tolist()))
    assert grads[2:] == grads[:2] == ["[nan, 0.25]"] * 2


def test_flags_restore_and_nest():
    for T in LIBS:
        assert not T.is_anomaly_enabled() and T.is_anomaly_check_nan_enabled()
        with T.autograd.set_detect_anomaly(True, check_nan=False):
            with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
                ctx = T.autograd.detect_anomaly()
            with ctx:
                assert T.is_anomaly_enabled() and T.is_anomaly_check_nan_enabled()
            assert T.is_anomaly_enabled() and not T.is_anomaly_check_nan_enabled()
        assert not T.is_anomaly_enabled() and T.is_anomaly_check_nan_enabled()
        T.set_anomaly_enabled(True)   # as a plain function, as PyTorch's
        assert T.is_anomaly_enabled()
        T.autograd.set_detect_anomaly(False)
        assert not T.is_anomaly_enabled()
        with pytest.raises(TypeError):
            T.autograd.set_detect_anomaly()


def _custom_case(T, bad):
    class Twice(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            if bad == "raise":
                raise RuntimeError("Some error in backward")
            return g * float("nan"), None

    T.autograd.set_detect_anomaly(True)
    x = T.ones(3, requires_grad=True)
    out = Twice.apply(x, 2.0)
    out.sum().backward()


@pytest.mark.parametrize("bad", ["raise", "nan"])
def test_custom_function(bad):
    err, msgs = _both(lambda T: _custom_case(T, bad))
    assert err == ("Some error in backward" if bad == "raise" else
                   "Function 'TwiceBackward' returned nan values in its 0th output.")
    assert msgs[0].startswith("Error detected in TwiceBackward. Traceback of forward call")
    assert "out = Twice.apply(x, 2.0)" in msgs[0]


def test_node_made_before_the_mode_was_on():
    def case(T):
        x = T.tensor([-1.0], requires_grad=True)
        y = x.sqrt().sum()
        T.autograd.set_detect_anomaly(True)
        y.backward()

    err, msgs = _both(case)
    assert err == "Function 'SqrtBackward0' returned nan values in its 0th output."
    assert msgs == ["Error detected in SqrtBackward0. No forward pass information available. "
                    "Enable detect anomaly during forward pass for more information."]


def test_create_graph_and_metadata():
    def case(T):
        x = T.tensor([-1.0, 1.0], requires_grad=True)
        T.autograd.set_detect_anomaly(True)
        y = x.sqrt().sum()
        stack = y.grad_fn.next_functions[0][0].metadata["traceback_"]
        assert isinstance(stack, list) and "y = x.sqrt().sum()" in stack[-1]
        T.autograd.grad(y, x, create_graph=True)

    err, msgs = _both(case)
    assert err == "Function 'SqrtBackward0' returned nan values in its 0th output."
    assert len(msgs) == 1 and "y = x.sqrt().sum()" in msgs[0]


def test_compiled_step_in_anomaly_mode():
    # inside a compile trace the gradients are abstract: they run unchecked, as documented
    w = jtorch.nn.Parameter(jtorch.tensor([1.0, 4.0]))

    @jtorch.compile
    def step(x):
        loss = (w * x).sqrt().sum()
        loss.backward()
        return loss

    with jtorch.autograd.set_detect_anomaly(True):
        loss = step(jtorch.tensor([1.0, 1.0]))
    assert loss.item() == pytest.approx(3.0)
    assert w.grad.tolist() == pytest.approx([0.5, 0.25])
