"""torch.profiler: PyTorch's profiler recipe run in torch and in jtorch on the same model; the
op rows jtorch shows are rows of torch's table with the same call counts and input shapes, the
table's header and sort keys are torch's, Chrome traces load, schedules hand traces over on the
steps torch's do, and tensorboard_trace_handler writes the files torch's would."""

import gzip
import json
import os
import re
import threading
import warnings

import jax
import pytest
import torch

import jtorch
from jtorch._core import dispatch as jdispatch

RECIPE_LABEL = "model_inference"
# every sort key torch's EventList.table documents (its `sort_by` values)
SORT_KEYS = ["cpu_time", "cuda_time", "xpu_time", "cpu_time_total", "cuda_time_total",
             "xpu_time_total", "cpu_memory_usage", "cuda_memory_usage", "xpu_memory_usage",
             "self_cpu_memory_usage", "self_cuda_memory_usage", "self_xpu_memory_usage",
             "count", "self_cpu_time_total"]


def _model(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(8, 16), lib.nn.ReLU(), lib.nn.Linear(16, 4))


def _recipe(lib):
    """PyTorch's profiler recipe, verbatim but for ``lib``."""
    from_lib = lib.profiler
    model, inputs = _model(lib), lib.ones(5, 8)
    with from_lib.profile(activities=[from_lib.ProfilerActivity.CPU],
                          record_shapes=True) as prof:
        with from_lib.record_function(RECIPE_LABEL):
            model(inputs)
    return prof


@pytest.fixture(scope="module")
def recipes():
    return _recipe(torch), _recipe(jtorch)


def _rows(table):
    """{name: # of Calls} of a key_averages() table, and its header line."""
    lines = table.splitlines()
    rows = {}
    for line in lines[3:-2]:
        cells = re.split(r"\s{2,}", line.strip())
        rows[cells[0]] = int(cells[6])
    return rows, lines[1]


def test_recipe_rows_are_torchs(recipes):
    t_prof, j_prof = recipes
    t_rows, t_header = _rows(t_prof.key_averages().table(sort_by="cpu_time_total",
                                                          row_limit=10))
    j_rows, j_header = _rows(j_prof.key_averages().table(sort_by="cpu_time_total",
                                                          row_limit=10))
    assert j_header.strip() == t_header.strip()
    assert {"aten::linear", "aten::relu", RECIPE_LABEL} <= set(j_rows)
    for name, count in j_rows.items():
        assert t_rows.get(name) == count, (name, count, t_rows)
    assert jdispatch.OBSERVER is None   # the dispatcher is unobserved again


def _op_programs(lib):
    x, idx = lib.ones(4, 5), lib.tensor([0, 2])
    w = lib.ones(2, 1, 3, 3)
    return {"int index": lambda: x[0], "slice": lambda: x[1:], "column": lambda: x[:, 0],
            "tensor index": lambda: x[idx], "None index": lambda: x[None],
            "softmax": lambda: lib.softmax(x, 1), "det": lambda: lib.linalg.det(x[:4, :4]),
            "to": lambda: x.to(lib.float64), "matmul": lambda: x @ x.T,
            "cross_entropy": lambda: lib.nn.functional.cross_entropy(x, idx.repeat(2)),
            "conv2d": lambda: lib.nn.functional.conv2d(x[None, None], w),
            "sum": lambda: x.sum(1), "cat": lambda: lib.cat([x, x])}


def _event_names(lib, fn):
    with lib.profiler.profile() as prof:
        fn()
    return [e.name for e in prof.events()]


def test_op_names_are_torchs():
    """Each op a program calls is named as torch's profiler names an op of the same program."""
    t_progs, j_progs = _op_programs(torch), _op_programs(jtorch)
    for name in t_progs:
        j_names = _event_names(jtorch, j_progs[name])
        assert j_names and set(j_names) <= set(_event_names(torch, t_progs[name])), \
            (name, j_names)


def test_group_by_input_shape(recipes):
    def shapes(prof):
        rows = {}
        for evt in prof.key_averages(group_by_input_shape=True):
            rows.setdefault(evt.key, set()).add((str(evt.input_shapes), evt.count))
        return rows

    t_rows, j_rows = shapes(recipes[0]), shapes(recipes[1])
    for name in ("aten::linear", "aten::relu", RECIPE_LABEL):
        assert j_rows[name] == t_rows[name]
    t_table = recipes[0].key_averages(group_by_input_shape=True).table(row_limit=3)
    j_table = recipes[1].key_averages(group_by_input_shape=True).table(row_limit=3)
    # the shapes column is as wide as the longest shapes: compare the column names
    j_cols = re.split(r"\s{2,}", j_table.splitlines()[1].strip())
    assert j_cols == re.split(r"\s{2,}", t_table.splitlines()[1].strip())
    assert j_cols[-2:] == ["# of Calls", "Input Shapes"]


def test_sort_keys_and_totals(recipes):
    t_prof, j_prof = recipes
    for key in SORT_KEYS:
        t_prof.key_averages().table(sort_by=key)
        j_lines = j_prof.key_averages().table(sort_by=key).splitlines()
        assert j_lines[-1].startswith("Self CPU time total: ")
    with pytest.raises(AttributeError) as t_err:
        t_prof.key_averages().table(sort_by="cpu_time_totl")
    with pytest.raises(AttributeError) as j_err:
        j_prof.key_averages().table(sort_by="cpu_time_totl")
    assert str(j_err.value) == str(t_err.value)
    # the label's range holds both linears and the relu: its total is at least their sum
    avg = {e.key: e for e in j_prof.key_averages()}
    label = avg[RECIPE_LABEL]
    assert label.cpu_time_total >= avg["aten::linear"].cpu_time_total \
        + avg["aten::relu"].cpu_time_total
    assert abs(j_prof.key_averages().self_cpu_time_total - label.cpu_time_total) < 1e-3
    by_count = j_prof.key_averages().table(sort_by="count").splitlines()
    assert by_count[3].split()[0] == "aten::linear"   # 2 calls: the first row


def test_chrome_trace(recipes, tmp_path):
    path = str(tmp_path / "trace.json")
    recipes[1].export_chrome_trace(path)
    with open(path) as f:
        trace = json.load(f)
    events = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
    names = [e["name"] for e in events]
    assert names.count("aten::linear") == 2 and names.count("aten::relu") == 1
    label = events[names.index(RECIPE_LABEL)]
    assert label["cat"] == "user_annotation"
    for e in events:
        assert e["dur"] >= 0 and e["ts"] >= label["ts"] and \
            e["ts"] + e["dur"] <= label["ts"] + label["dur"] + 1e-3
    t_path = str(tmp_path / "torch_trace.json")
    recipes[0].export_chrome_trace(t_path)
    with open(t_path) as f:
        t_linear = next(e["args"] for e in json.load(f)["traceEvents"]
                        if e.get("name") == "aten::linear")
    linear = events[names.index("aten::linear")]["args"]
    for key in ("Input Dims", "Input type"):
        assert linear[key] == t_linear[key]
    gz = str(tmp_path / "trace.json.gz")
    recipes[1].export_chrome_trace(gz)
    with gzip.open(gz) as f:
        assert json.load(f)["traceEvents"]


def _scheduled(lib, sched, steps, **kw):
    """(step_num, # of aten::mul events, # of ProfilerStep* events) at each on_trace_ready."""
    ready = []

    def on_ready(prof):
        names = [e.name for e in prof.events()]
        ready.append((prof.step_num, names.count("aten::mul"), names.count("ProfilerStep*")))

    a = lib.ones(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU],
                                  schedule=lib.profiler.schedule(**sched),
                                  on_trace_ready=on_ready, **kw) as prof:
            for _ in range(steps):
                a * a
                prof.step()
    return ready


@pytest.mark.parametrize("sched", [
    {"wait": 1, "warmup": 1, "active": 3, "repeat": 1},
    {"wait": 1, "warmup": 1, "active": 2, "repeat": 2},
    {"wait": 0, "warmup": 0, "active": 2, "repeat": 0, "skip_first": 1}])
def test_schedule_steps(sched):
    assert _scheduled(jtorch, sched, 9) == _scheduled(torch, sched, 9)


def test_schedule_acc_events():
    sched = {"wait": 1, "warmup": 1, "active": 2, "repeat": 2}
    assert _scheduled(jtorch, sched, 9, acc_events=True) == \
        _scheduled(torch, sched, 9, acc_events=True)


def test_tensorboard_trace_handler(tmp_path):
    def written(lib, sub, **kw):
        d = str(tmp_path / sub)
        with lib.profiler.profile(schedule=lib.profiler.schedule(wait=0, warmup=1, active=1),
                                  on_trace_ready=lib.profiler.tensorboard_trace_handler(
                                      d, **kw)) as prof:
            for _ in range(2):
                lib.ones(2) * 2
                prof.step()
        return sorted(re.sub(r"\.\d+\.", ".N.", n) for n in os.listdir(d) if ".pt." in n)

    assert written(jtorch, "j") == written(torch, "t")   # hostname_pid.N.pt.trace.json
    assert written(jtorch, "jw", worker_name="w0", use_gzip=True) == \
        written(torch, "tw", worker_name="w0", use_gzip=True) == ["w0.N.pt.trace.json.gz"]
    (name,) = [n for n in os.listdir(tmp_path / "j") if ".pt." in n]
    with open(tmp_path / "j" / name) as f:
        assert "aten::mul" in {e.get("name") for e in json.load(f)["traceEvents"]}
    # and JAX's own trace of the cycle, where TensorBoard's profile plugin looks
    (run,) = os.listdir(tmp_path / "j" / "plugins" / "profile")
    assert any(n.endswith(".xplane.pb")
               for n in os.listdir(tmp_path / "j" / "plugins" / "profile" / run))


def _start_stop(lib):
    prof = lib.profiler.profile()
    prof.start()
    lib.ones(2) * 2
    prof.stop()
    return [e.key for e in prof.key_averages()]


def test_start_stop():
    assert "aten::mul" in _start_stop(jtorch) and "aten::mul" in _start_stop(torch)


def test_cuda_activity_without_gpu():
    if jtorch.cuda.is_available():
        pytest.skip("the machine has a GPU: ProfilerActivity.CUDA is kept")
    for lib in (torch, jtorch):
        acts = lib.profiler.ProfilerActivity
        with pytest.warns(UserWarning, match="CUDA is not available, disabling CUDA"):
            with lib.profiler.profile(activities=[acts.CPU, acts.CUDA]) as prof:
                lib.ones(2) * 2
        assert "aten::mul" in [e.key for e in prof.key_averages()]
        with pytest.warns(UserWarning, match="CUDA is not available"):
            with pytest.raises(AssertionError, match="No activities specified"):
                with lib.profiler.profile(activities=[acts.CUDA]):
                    pass


def _legacy(lib):
    model, inputs = _model(lib), lib.ones(5, 8)

    @lib.autograd.profiler.record_function("forward")
    def forward():
        return model(inputs)

    with lib.autograd.profiler.profile(record_shapes=True) as prof:
        forward()
    return {e.key: e.count for e in prof.key_averages()}


def test_autograd_profiler_aliases():
    assert jtorch.autograd.profiler.record_function is jtorch.profiler.record_function
    t_rows, j_rows = _legacy(torch), _legacy(jtorch)
    assert {"forward", "aten::linear", "aten::relu"} <= set(j_rows)
    assert all(t_rows[k] == v for k, v in j_rows.items())


def test_compiled_step_is_one_range():
    """Ops jtorch.compile traces are not rows (the compiled program runs them), nor are
    record_function ranges inside it (named scopes there); the range around the compiled
    call is a row, and the compiled results are unchanged."""
    model, x = _model(jtorch), jtorch.ones(5, 8)

    def forward(x):
        with jtorch.profiler.record_function("inside"):
            return model(x)

    step = jtorch.compile(forward)
    with jtorch.profiler.profile() as prof:
        for _ in range(3):
            with jtorch.profiler.record_function("compiled_step"):
                y = step(x)
    assert {e.key: e.count for e in prof.key_averages()} == {"compiled_step": 3}
    torch.testing.assert_close(torch.from_numpy(y.detach().numpy()),
                               torch.from_numpy(model(x).detach().numpy()))


def test_every_thread_is_recorded():
    def work():
        jtorch.ones(3) * 2

    with jtorch.profiler.profile() as prof:
        thread = threading.Thread(target=work)
        thread.start()
        work()
        thread.join()
    muls = [e for e in prof.events() if e.name == "aten::mul"]
    assert len({e.thread for e in muls}) == 2


def test_failing_op_leaves_dispatch_unobserved():
    with jtorch.profiler.profile() as prof:
        with pytest.raises(RuntimeError):
            jtorch.mm(jtorch.ones(2, 3), jtorch.ones(2, 3))
        jtorch.ones(2) * 2
    assert [e.key for e in prof.key_averages()] == ["aten::mul"]
    assert jdispatch.OBSERVER is None


def test_names_reach_jax_traces():
    """Under jax.jit the op names and record_function labels are named scopes of the
    compiled program (its HLO's op names), and no event is recorded for traced ops."""
    def f(a):
        with jtorch.profiler.record_function("block"):
            return jtorch.as_tensor(a).relu().__jax_array__()

    with jtorch.profiler.profile() as prof:
        text = jax.jit(f).lower(jax.numpy.ones(3)).as_text(debug_info=True)
    assert "block/aten::relu" in text
    assert "aten::relu" not in [e.key for e in prof.key_averages()]
