"""Test setup: 4 host devices for device tests, sleeping OpenMP threads, seeds, real PyTorch
for parity."""

import os
import shutil
import tempfile

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4")
os.environ.setdefault("JAX_PLATFORMS", "cpu")
# PyTorch's OpenMP threads (libgomp) spin-wait after each parallel region by default; with two
# xdist workers on two cores the spinning thread takes the core the other worker needs (about a
# quarter of the suite's CPU time on nn files). PASSIVE makes idle threads sleep: same thread
# count, same work split, same results. Set before torch loads; workers and test subprocesses
# inherit it.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# One XLA compilation cache for the whole run: both xdist workers and every test subprocess
# (examples, launchers, process groups) compile many of the same kernels; the second compile of
# a kernel becomes a file read. Made here, in the controller, before xdist starts its workers,
# so they inherit it; removed at the end by the process that made it. A user's own
# JAX_COMPILATION_CACHE_DIR is kept (and not removed).
if "JAX_COMPILATION_CACHE_DIR" not in os.environ:
    os.environ["JAX_COMPILATION_CACHE_DIR"] = tempfile.mkdtemp(prefix="jtorch-tests-xla-cache-")
    os.environ["JTORCH_TESTS_OWN_XLA_CACHE"] = os.environ["JAX_COMPILATION_CACHE_DIR"]
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")

import ctypes  # noqa: E402
import gc  # noqa: E402
import threading  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

import jtorch  # noqa: E402
from jtorch._core.program_budget import BUDGET  # noqa: E402

# JTORCH_TESTS_DEFAULT_DEVICE=1 makes host device cpu:1 JAX's default device, as a GPU is on a
# GPU machine: the suite then checks that tensors reporting plain cpu still live on cpu:0
# (`JTORCH_TESTS_DEFAULT_DEVICE=1 python -m pytest -n 2 tests`)
if os.environ.get("JTORCH_TESTS_DEFAULT_DEVICE"):
    import jax  # noqa: E402

    jax.config.update("jax_default_device",
                      jax.devices("cpu")[int(os.environ["JTORCH_TESTS_DEFAULT_DEVICE"])])

torch.set_num_threads(2)
# Python's cyclic garbage collector less often: with torch, jax and jtorch loaded (and the
# kernels the tests compile) each full collection scans a few hundred thousand objects, about
# 5% of a parity file's time at the default thresholds (700, 10, 10), 2% at these. What a test
# needs collected it collects itself (gc.collect() in the tests that check for leaks); objects
# without cycles are freed by their reference counts as before.
gc.set_threshold(50_000, 20, 20)

# tests import the helpers as `helpers` or as `tests.helpers`: make both names one module, so
# their marker classes (NoGrad, NonContig) are the same objects everywhere
import sys  # noqa: E402

import helpers  # noqa: E402
import nn_helpers  # noqa: E402

sys.modules.setdefault("tests.helpers", helpers)
sys.modules.setdefault("tests.nn_helpers", nn_helpers)


@pytest.fixture(autouse=True)
def _seed_and_defaults():
    np.random.seed(0)
    torch.manual_seed(0)
    jtorch.manual_seed(0)
    torch.set_default_dtype(torch.float32)
    jtorch.set_default_dtype(jtorch.float32)
    yield
    torch.set_default_dtype(torch.float32)
    jtorch.set_default_dtype(jtorch.float32)


# glibc's malloc_trim, from the symbols already loaded (None where the C library has none)
_MALLOC_TRIM = getattr(ctypes.CDLL(None), "malloc_trim", None) if os.name == "posix" else None


# One MLIR context per thread for JAX's lowerings, not a new one for each: JAX makes a context
# for every program it lowers (jax._src.interpreters.mlir.make_ir_context), and loading its
# dialects into it took about 12 ms of each op kernel's 50-100 ms of tracing, lowering and
# compiling, about a tenth of a parity file's time (cProfile of test_ops_pointwise.py); the
# programs lowered are the same. The context keeps what it uniques (types, attributes) until
# the end of the test file, when it is dropped with the compiled programs (below). Where a JAX
# has moved the function, each lowering makes its own context as before.
try:
    from jax._src.interpreters import mlir as _jax_mlir
except ImportError:  # pragma: no cover
    _jax_mlir = None
_IR_CONTEXTS = threading.local()
if getattr(_jax_mlir, "make_ir_context", None) is not None:
    _new_ir_context = _jax_mlir.make_ir_context

    def _thread_ir_context():
        try:   # a lowering inside a lowering (a concrete value computed while tracing one)
            _jax_mlir.ir.InsertionPoint.current
        except ValueError:
            pass
        else:  # gets a context of its own: the shared one's insertion point is the outer's
            return _new_ir_context()
        ctx = getattr(_IR_CONTEXTS, "ctx", None)
        if ctx is None:
            ctx = _IR_CONTEXTS.ctx = _new_ir_context()
        return ctx

    _jax_mlir.make_ir_context = _thread_ir_context


@pytest.fixture(scope="module", autouse=True)
def _release_compiled_programs_after_each_file():
    """After each test file: JAX's compiled programs released (program_budget's release, as an
    eager loop over the map budget gets) and the freed heap returned to the system. A worker
    runs about 55 files; keeping every file's programs (each with its MLIR module) and the
    fragmented heap they leave made each new lowering slower as the worker aged: 9 ms at the
    start of a worker, 19-38 ms after three parity files (RSS 4.2 GB against 2.7 GB). A later
    file that needs a kernel again reads it from the run's compilation cache."""
    yield
    BUDGET.release()
    _IR_CONTEXTS.ctx = None
    gc.collect()
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)


@pytest.fixture(scope="session", autouse=True)
def _every_parity_op_is_jit_checked():
    """At the end of the session (this process's last test): every op that a parity case with
    ``jit=True`` dispatched was also traced by a jit re-run (helpers.check_jit's sample)."""
    yield
    missing = helpers.jit_coverage_gaps()
    assert not missing, f"ops never re-run under jax.jit by helpers.check_jit: {sorted(missing)}"


# With JTORCH_COMPILE_STATS=file, each process records the seconds JAX spends tracing,
# lowering and compiling (jax.monitoring's durations) per test file and writes them as JSON to
# file.<worker> at the end: `python scripts/compile_stats.py file` sums them. Where the suite's
# time goes (issue 8's 10-minute target): mostly XLA compiling small kernels.
COMPILE_STATS = {}
if os.environ.get("JTORCH_COMPILE_STATS"):
    import jax.monitoring  # noqa: E402

    def _record_compile(event, seconds, **kwargs):
        test_file = os.environ.get("PYTEST_CURRENT_TEST", "(outside tests)::").split("::")[0]
        entry = COMPILE_STATS.setdefault(test_file, {})
        name = event.rsplit("/", 1)[-1]
        entry[name] = entry.get(name, 0.0) + seconds
        entry[name + " count"] = entry.get(name + " count", 0) + 1

    jax.monitoring.register_event_duration_secs_listener(_record_compile)


def pytest_sessionfinish(session, exitstatus):
    """With JTORCH_RECORD_OPS=file, write the op names parity tests exercised (one a line);
    with JTORCH_COMPILE_STATS=file, this process's compile times per test file."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    path = os.environ.get("JTORCH_RECORD_OPS")
    if path:
        from helpers import PARITY_OPS

        with open(f"{path}.{worker}", "w") as f:
            f.write("\n".join(sorted(PARITY_OPS)))
    stats = os.environ.get("JTORCH_COMPILE_STATS")
    if stats:
        import json

        with open(f"{stats}.{worker}", "w") as f:
            json.dump(COMPILE_STATS, f)


def pytest_unconfigure(config):
    """The process that made the run's XLA compilation cache (the controller; the single
    process without xdist) removes it."""
    own = os.environ.get("JTORCH_TESTS_OWN_XLA_CACHE")
    if own and not hasattr(config, "workerinput"):
        shutil.rmtree(own, ignore_errors=True)


def pytest_collection_modifyitems(config, items):
    """Test files run largest first (a file's source size stands for its run time: the long
    parity files are the large ones), each file's tests in their own order. With ``--dist
    loadfile`` the two workers then finish close together, instead of one running a long file
    alone at the end: about 8 s of the run, simulated from per-file times."""
    size = {}

    def larger_first(item):
        if item.path not in size:
            size[item.path] = item.path.stat().st_size
        return -size[item.path]

    items.sort(key=larger_first)   # stable: a file's tests keep their order
