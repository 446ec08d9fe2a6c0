"""torch.futures (Future, collect_all, wait_all), torch.jit.fork / wait and torch.fork / wait
against PyTorch 2.13: results, callbacks, exceptions and their messages, and a future set from
another thread."""

import threading
import time

import pytest
import torch

import jtorch

BOTH = pytest.mark.parametrize("T", [torch, jtorch], ids=["torch", "jtorch"])


def _error(f):
    try:
        f()
    except Exception as e:  # noqa: BLE001 - compared with PyTorch's
        return type(e).__name__, str(e).split("\n")[0]
    return None


def _script(T):
    """A run through the API: what it returns and raises, in order."""
    F = T.futures.Future
    seen = []
    f = F()
    seen.append(f.done())
    f.set_result(5)
    seen += [f.wait(), f.value(), f.done(), _error(lambda: f.set_result(6))]
    g = F()
    g.set_exception(ValueError("boom"))
    seen += [g.done(), _error(g.wait), _error(g.value), _error(lambda: F().set_exception(3))]
    h = F()
    chained = h.then(lambda fut: fut.wait() + 1).then(lambda fut: fut.value() * 10)
    seen.append(chained.done())
    h.set_result(1)
    seen.append(chained.wait())
    k = F()
    failing = k.then(lambda fut: 1 / 0)
    k.set_result(1)
    seen.append(_error(failing.wait))
    calls = []
    m = F()
    m.add_done_callback(lambda fut: calls.append(fut.value()))
    m.set_result(7)
    m.add_done_callback(lambda fut: calls.append(8))   # already done: runs at once
    seen.append(calls)
    a, b = F(), F()
    both = T.futures.collect_all([a, b])
    a.set_result(1)
    seen.append(both.done())
    b.set_result(2)
    seen += [[x.wait() for x in both.wait()], T.futures.wait_all([a, b])]
    bad = F()
    bad.set_exception(RuntimeError("x"))
    seen += [_error(lambda: T.futures.wait_all([a, bad])),
             T.futures.collect_all([]).wait()]
    return seen


def test_future_api_as_pytorch():
    assert _script(jtorch) == _script(torch)


def test_failing_done_callback_is_reported_and_dropped(capfd):
    for T in (torch, jtorch):
        f = T.futures.Future()
        f.add_done_callback(lambda fut: 1 / 0)
        f.set_result(1)
        assert f.done() and f.wait() == 1
        assert ("Got the following error when running the callback: ZeroDivisionError: "
                "division by zero") in capfd.readouterr().err


@BOTH
def test_wait_blocks_until_another_thread_sets_it(T):
    f = T.futures.Future()
    threading.Thread(target=lambda: (time.sleep(0.05), f.set_result("late"))).start()
    assert f.wait() == "late"


@BOTH
def test_fork_and_wait(T):
    def add(x, y=0):
        return x + y

    fut = T.jit.fork(add, T.ones(2), y=T.full((2,), 2.0))
    assert isinstance(fut, T.Future) and fut.done()   # (PyTorch's: the C++ base class)
    assert T.jit.wait(fut).tolist() == [3.0, 3.0]
    assert T.wait(T.fork(add, 1, 2)) == 3
    assert T.jit.Future is T.futures.Future and issubclass(T.futures.Future, T.Future)


def test_fork_raises_the_functions_error_as_pytorch():
    def boom():
        raise ValueError("inside")

    assert _error(lambda: jtorch.jit.fork(boom)) == _error(lambda: torch.jit.fork(boom))


def test_async_collective_work_returns_a_torch_future():
    from jtorch.distributed.work import Work

    fut = Work([jtorch.ones(2)]).get_future()
    assert isinstance(fut, jtorch.futures.Future)
    assert fut.then(lambda f: f.value()[0].sum().item()).wait() == 2.0
