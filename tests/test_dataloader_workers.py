"""DataLoader with real worker processes: ordering, worker info, persistence, errors, dead
workers, timeouts and shutdown. Every test runs under a SIGALRM time limit, so a bug fails
instead of hanging CI. Datasets live in data_helpers.py (importable by spawn workers)."""

import gc
import os
import time

import jax
import numpy as np
import pytest
from data_helpers import (
    ArrayDataset,
    DyingDataset,
    FailingDataset,
    InfoDataset,
    JtorchOpsDataset,
    KeyFailDataset,
    RangeIterable,
    SlowDataset,
    record_init,
    time_limit,
)

import jtorch
from jtorch.utils.data import DataLoader, TensorDataset
from jtorch.utils.data._main_guard import _guarded

pytestmark = pytest.mark.filterwarnings("ignore:os.fork:RuntimeWarning")  # explicit JAX-free forks


@pytest.fixture(autouse=True)
def _guard():
    with time_limit(90):
        yield


def _alive(pid):
    return os.path.exists(f"/proc/{pid}")


def _wait_gone(pids, seconds=5.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end and any(_alive(p) for p in pids):
        time.sleep(0.05)
    return not any(_alive(p) for p in pids)


def _flat(batches):
    return [(b[0].numpy().tolist(), b[1].tolist()) for b in batches]


def test_order_matches_single_process_and_in_order_false():
    ds = ArrayDataset(24, delay=0.004)
    ref = _flat(DataLoader(ds, batch_size=3))
    got = _flat(DataLoader(ds, batch_size=3, num_workers=2, multiprocessing_context="fork",
                           prefetch_factor=3))
    assert got == ref
    loose = _flat(DataLoader(ds, batch_size=3, num_workers=2, multiprocessing_context="fork",
                             in_order=False))
    assert sorted(map(str, loose)) == sorted(map(str, ref))
    dtypes = next(iter(DataLoader(ds, batch_size=3, num_workers=2,
                                  multiprocessing_context="fork")))
    assert dtypes[0].dtype == jtorch.float32 and dtypes[1].dtype == jtorch.int64


def test_tensor_dataset_default_context_and_one_transfer(monkeypatch):
    x, y = jtorch.randn(50, 4), jtorch.arange(50)
    ds = TensorDataset(x, y)
    calls = []
    real = jax.device_put
    monkeypatch.setattr(jax, "device_put", lambda a, *k, **kw: calls.append(1) or real(a, *k, **kw))
    for nw in (0, 2):
        calls.clear()
        loader = DataLoader(ds, batch_size=8, num_workers=nw, shuffle=True)
        batches = list(loader)
        assert len(calls) == 2 * len(batches)  # one device_put per tensor leaf per batch
        xs = np.concatenate([b[0].numpy() for b in batches])
        ys = np.concatenate([b[1].numpy() for b in batches])
        assert sorted(ys.tolist()) == list(range(50))
        np.testing.assert_array_equal(xs, x.numpy()[ys])
    it = iter(DataLoader(ds, batch_size=8, num_workers=2))
    assert type(it._workers[0]).__name__ == "ForkProcess"  # jtorch's own data: fork is safe


def test_worker_info_init_fn_and_seeds():
    loader = DataLoader(InfoDataset(), batch_size=None, num_workers=2,
                        multiprocessing_context="fork", worker_init_fn=record_init)
    rows = list(loader)
    assert [r[0].item() if hasattr(r[0], "item") else r[0] for r in rows] == list(range(12))
    by_worker = {}
    for _i, wid, nw, seed, pid, init, same in rows:
        wid = int(wid)
        assert int(nw) == 2 and init == f"init{wid}" and bool(same)
        assert int(pid) != os.getpid()
        by_worker.setdefault(wid, set()).add((int(seed), int(pid)))
    assert set(by_worker) == {0, 1}
    assert all(len(v) == 1 for v in by_worker.values())
    assert by_worker[0] != by_worker[1]
    assert [int(r[1]) for r in rows] == [0, 1] * 6  # round-robin assignment, as PyTorch


def test_persistent_workers_keep_processes():
    loader = DataLoader(InfoDataset(), batch_size=4, num_workers=2, persistent_workers=True,
                        multiprocessing_context="fork")
    first = list(loader)
    it = loader._iterator
    pids = it.worker_pids
    second = next(iter(loader))  # break early in epoch 2 ...
    third = list(loader)  # ... epoch 3 is still complete and in order
    assert loader._iterator is it and it.worker_pids == pids and all(map(_alive, pids))
    assert [b[0].tolist() for b in first] == [b[0].tolist() for b in third]
    assert second[0].tolist() == first[0][0].tolist()
    assert {int(p) for b in first + third for p in b[4].tolist()} == set(pids)
    del loader, it
    gc.collect()
    assert _wait_gone(pids)


def test_worker_exception_reraised_with_traceback():
    loader = DataLoader(FailingDataset(), batch_size=2, num_workers=2,
                        multiprocessing_context="fork")
    it = iter(loader)
    assert next(it).tolist() == [0, 1] and next(it).tolist() == [2, 3]
    kind, msg = _error_of(it)
    assert kind is ValueError
    assert msg.startswith("Caught ValueError in DataLoader worker process 0.\nOriginal Traceback")
    assert "bad sample 5" in msg and "data_helpers.py" in msg
    pids = it.worker_pids
    del it
    gc.collect()
    assert _wait_gone(pids)
    with pytest.raises(KeyError, match="Caught KeyError in DataLoader worker process"):
        list(DataLoader(KeyFailDataset(), num_workers=1, multiprocessing_context="fork"))


def _error_of(it):
    """(type, message) of the error next(it) raises, keeping no traceback (which would keep
    the iterator and its workers alive)."""
    try:
        next(it)
    except Exception as exc:  # noqa: BLE001 - the test inspects it
        return type(exc), str(exc)
    raise AssertionError("no error")


def test_worker_init_fn_exception():
    def bad_init(worker_id):
        raise OSError("init failed")
    with pytest.raises(OSError, match="init failed"):
        list(DataLoader(ArrayDataset(4), num_workers=1, worker_init_fn=bad_init,
                        multiprocessing_context="fork"))


def test_dead_worker_raises_instead_of_hanging():
    loader = DataLoader(DyingDataset(), batch_size=1, num_workers=2,
                        multiprocessing_context="fork")
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited "
                                           r"unexpectedly"):
        list(loader)


def test_timeout_and_cleanup():
    loader = DataLoader(SlowDataset(), num_workers=1, timeout=1,
                        multiprocessing_context="fork")
    it = iter(loader)
    pids = it.worker_pids
    t = time.monotonic()
    with pytest.raises(RuntimeError, match="DataLoader timed out after 1 seconds"):
        next(it)
    assert time.monotonic() - t < 10
    del it
    assert _wait_gone(pids)


def test_early_break_and_gc_leave_no_orphans():
    loader = DataLoader(ArrayDataset(200), batch_size=2, num_workers=2,
                        multiprocessing_context="fork")
    # children started by earlier tests in this process (multiprocessing's resource tracker
    # lives as long as its parent) are not this loader's
    before = set(_children())
    for i, _ in enumerate(loader):
        if i == 1:
            workers = [int(p) for p in set(_children()) - before if _is_worker(p)]
            break
    assert len(workers) == 2
    # the for-loop's iterator is gone after the break: its workers must be too
    gc.collect()
    assert _wait_gone(workers)

    def consume_one():
        it = iter(loader)
        next(it)
        return it.worker_pids
    pids = consume_one()
    gc.collect()
    assert _wait_gone(pids)


def _children():
    return [p for p in os.listdir("/proc") if p.isdigit() and _ppid(p) == os.getpid()]


def _ppid(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except OSError:
        return -1


def _is_worker(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return b"python" in f.read()
    except OSError:
        return False


def test_iterable_dataset_sharding():
    loader = DataLoader(RangeIterable(0, 10), batch_size=2, num_workers=2,
                        multiprocessing_context="fork")
    assert [b.tolist() for b in loader] == [[0, 1], [5, 6], [2, 3], [7, 8], [4], [9]]
    loader = DataLoader(RangeIterable(0, 7), batch_size=None, num_workers=2,
                        multiprocessing_context="fork")
    assert sorted(int(v) for v in loader) == list(range(7))


def test_custom_collate_in_fork_worker():
    loader = DataLoader(ArrayDataset(6), batch_size=3, num_workers=2,
                        multiprocessing_context="fork",
                        collate_fn=lambda b: [float(s[0].sum()) for s in b])
    assert list(loader) == [[3.0, 12.0, 21.0], [30.0, 39.0, 48.0]]


def test_default_context_choice():
    from jtorch.utils.data.dataloader import _choose_context
    from jtorch.vision import transforms

    td = TensorDataset(jtorch.zeros(4))

    def method(ds, **kw):
        return _choose_context(DataLoader(ds, num_workers=1, **kw))[0].get_start_method()
    assert method(td) == "fork"
    assert method(td + td) == "fork"
    assert method(JtorchOpsDataset()) == "spawn"  # user code may call JAX
    assert method(td, collate_fn=lambda b: b) == "spawn"
    assert method(td, worker_init_fn=record_init) == "spawn"
    assert method(td, multiprocessing_context="forkserver") == "forkserver"
    assert transforms.Compose([transforms.ToTensor()])._jtorch_fork_safe()
    assert not transforms.Compose([transforms.Lambda(abs)])._jtorch_fork_safe()


def test_spawn_workers_run_jtorch_ops():
    ref = [(b[0].tolist(), b[1].tolist()) for b in DataLoader(JtorchOpsDataset(), batch_size=3)]
    loader = DataLoader(JtorchOpsDataset(), batch_size=3, num_workers=2,
                        multiprocessing_context="spawn", persistent_workers=True)
    for _ in range(2):  # one start-up (a fresh interpreter per worker), two epochs
        it = iter(loader)
        assert type(it._workers[0]).__name__ == "SpawnProcess"
        assert [(b[0].tolist(), b[1].tolist()) for b in it] == ref
    pids = it.worker_pids
    del it, loader
    gc.collect()
    assert _wait_gone(pids)


@pytest.mark.parametrize("source, line, guarded", [
    ("for x in loader:\n    pass\n", 1, False),
    ("def main():\n    pass\n\nmain()\n", 4, False),
    ('if __name__ == "__main__":\n    for x in loader:\n        pass\n', 2, True),
    ('if "__main__" == __name__: main()\n', 1, True),
    ('try:\n    if __name__ == "__main__":\n        main()\nexcept KeyboardInterrupt:\n'
     "    pass\n", 3, True),
    ("import multiprocessing as mp\nif mp.parent_process() is None:\n    main()\n", 3, True),
    ("if verbose:\n    main()\n", 2, False),
])
def test_which_statements_of_a_script_count_as_guarded(source, line, guarded):
    assert _guarded(source, line) is guarded
