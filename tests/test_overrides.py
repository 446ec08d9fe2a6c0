"""torch.overrides: TorchFunctionMode's stack and the torch.nn.init functions PyTorch routes
through it (found running PyTorch Lightning, whose ``_EmptyInit`` mode skips ``nn.init`` calls
while a model is built), against real PyTorch."""

import threading

import pytest
import torch

import jtorch


def _calls_under_mode(T, skip):
    """The nn.init calls a mode sees (name, types, args, keyword names), and whether the
    weights were left untouched when the mode skips them."""
    seen = []

    class Mode(T.overrides.TorchFunctionMode):
        def __init__(self):
            super().__init__()

        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if getattr(func, "__module__", None) == "torch.nn.init" or \
                    getattr(func, "__module__", "").endswith("nn.init"):
                seen.append((func.__name__, [t.__name__ for t in types], len(args),
                             sorted(kwargs), T.overrides._get_current_function_mode()))
                if skip:
                    return kwargs["tensor"]
            return func(*args, **kwargs)

    w = T.zeros(3, 4)
    with Mode() as mode:
        assert T.overrides._get_current_function_mode() is mode
        T.nn.init.uniform_(w)
        T.nn.init.normal_(w, 0.0, 1.0)
        T.nn.init.constant_(w, 2.0)
        T.nn.init.kaiming_uniform_(w, a=1)
        T.nn.init.xavier_uniform_(w)   # not routed through the mode in PyTorch
        T.nn.init.kaiming_normal_(w)
    assert T.overrides._get_current_function_mode() is None
    return seen, bool((w == 0).all())


@pytest.mark.parametrize("skip", [False, True])
def test_nn_init_calls_reach_the_mode_as_in_pytorch(skip):
    got, got_zero = _calls_under_mode(jtorch, skip)
    want, want_zero = _calls_under_mode(torch, skip)
    assert [c[:4] for c in got] == [c[:4] for c in want]
    assert [c[4] for c in got] == [c[4] for c in want] == [None] * 4   # popped while it runs
    assert got_zero == want_zero is False   # xavier/kaiming_normal_ wrote in both


@pytest.mark.parametrize("T", [jtorch, torch], ids=["jtorch", "torch"])
def test_mode_stack_is_per_thread_and_default_handler_raises(T):
    mode = T.overrides.TorchFunctionMode()
    seen = []
    with mode:
        thread = threading.Thread(
            target=lambda: seen.append(T.overrides._get_current_function_mode()))
        thread.start()
        thread.join()
        assert T.overrides._get_current_function_mode() is mode
        with pytest.raises(NotImplementedError):
            T.nn.init.uniform_(T.zeros(2))
    assert seen == [None]
    assert T.overrides.is_tensor_like(T.zeros(1))
    assert T.overrides.is_tensor_like(T.nn.Parameter(T.zeros(1)))
    assert not T.overrides.is_tensor_like(1.0)
