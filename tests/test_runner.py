"""The drop-in runner: ``python -m jtorch script.py`` runs an unmodified PyTorch program with
``torch`` resolved to jtorch, in the script and in its DataLoader worker processes.

Each test runs the runner in a subprocess of a torch-free environment: a venv holding this
environment's distributions except torch, torchvision, functorch and torchgen (symlinked), where
``import torch`` fails without the runner. The parity reference is the same script run by plain
``python`` here, with real torch 2.13 and real torchvision (the two modules of torchvision that
register its C++ operators are stood in for, as in tests/vision_helpers.py).
"""

from __future__ import annotations

import os
import re
import signal
import site
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JTORCH_INIT = os.path.join(ROOT, "jtorch", "__init__.py")

TRAIN = """
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset
from torchvision import transforms


class Ramps(Dataset):
    def __init__(self):
        self.norm = transforms.Normalize((0.5,), (0.25,))

    def __len__(self):
        return 12

    def __getitem__(self, i):
        x = torch.arange(4, dtype=torch.float32).reshape(1, 2, 2) * (i + 1) / 12
        return self.norm(x).flatten(), i % 2, sys.modules["torch"].__file__, os.getpid()


def main():
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.linspace(-0.6, 0.7, p.numel()).reshape(p.shape))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    files, pids = set(), set()
    for x, y, file, pid in DataLoader(Ramps(), batch_size=4, num_workers=2):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        print("loss", repr(loss.item()))
        files.update(file)
        pids.update(pid.tolist())
    print("names", torch.__name__, type(model).__module__, F.__name__)
    print("torch file", sys.modules["torch"].__file__)
    print("worker torch files", sorted(files))
    print("two other worker processes", os.getpid() not in pids and len(pids) == 2)


if __name__ == "__main__":
    main()
"""

# plain python with real torch and torchvision's pure-Python code (see tests/vision_helpers.py)
REFERENCE = """
import runpy, sys, types
for name in ("torchvision._meta_registrations", "torchvision._autograd_registrations"):
    sys.modules[name] = types.ModuleType(name)
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


TORCH_DISTRIBUTIONS = {"torch", "torchvision", "functorch", "torchgen"}


def _env():
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    env["PYTHONPATH"] = os.pathsep.join([ROOT] + [p for p in env.get("PYTHONPATH", "").split(
        os.pathsep) if p])
    env.pop("JTORCH_AS_TORCH", None)
    return env


@pytest.fixture(scope="module")
def torch_free(tmp_path_factory):
    """The python of a venv that has every distribution of this environment but torch,
    torchvision, functorch and torchgen (their packages, .libs and .dist-info left out; the
    rest symlinked, .pth files included, so an editable jtorch install carries over)."""
    venv = tmp_path_factory.mktemp("torch_free") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=60)
    python = str(venv / "bin" / "python")
    target = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path("
                             "'purelib'))"], check=True, capture_output=True, text=True,
                            timeout=60).stdout.strip()
    user_site = [site.getusersitepackages()] if site.ENABLE_USER_SITE else []
    sources = dict.fromkeys(os.path.realpath(p) for p in site.getsitepackages() + user_site)
    for source in sources:
        for entry in sorted(os.listdir(source)) if os.path.isdir(source) else ():
            top = re.split(r"[-.]", entry)[0].lower()
            link = os.path.join(target, entry)
            if top not in TORCH_DISTRIBUTIONS and not os.path.lexists(link):
                os.symlink(os.path.join(source, entry), link)
    return python


def _run(args, cwd, python=sys.executable, env=None, timeout=120):
    """Runs ``python args`` in its own process group; on timeout kills the group (workers
    included) and fails."""
    proc = subprocess.Popen([python, *args], cwd=cwd, env=env or _env(), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"{args} ran past {timeout} s")
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _console_script(bin_dir):
    """The installed ``jtorch`` console script (``pip install -e .``), else one written into
    ``bin_dir`` as pip writes it for the entry point that pyproject.toml declares."""
    installed = os.path.join(os.path.dirname(sys.executable), "jtorch")
    if os.path.isfile(installed):
        return installed
    with open(os.path.join(ROOT, "pyproject.toml")) as f:
        module, func = re.search(r'^jtorch = "([\w.]+):(\w+)"$', f.read(), re.M).groups()
    path = os.path.join(bin_dir, "jtorch")
    with open(path, "w") as f:
        f.write(f"import re\nimport sys\nfrom {module} import {func}\n"
                "if __name__ == '__main__':\n"
                "    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n"
                f"    sys.exit({func}())\n")
    return path


def _script(tmp_path, name, body):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return str(path)


def _lines(out, key):
    return [line.split(" ", len(key.split()))[-1] for line in out.splitlines()
            if line.startswith(key + " ")]


def test_the_torch_free_environment_has_no_torch(torch_free, tmp_path):
    for name in ("torch", "torchvision"):
        got = _run(["-c", f"import {name}"], cwd=tmp_path, python=torch_free)
        assert got.returncode == 1
        assert got.stderr.rstrip().splitlines()[-1] == (
            f"ModuleNotFoundError: No module named '{name}'")


def test_a_pytorch_script_runs_unchanged_with_the_losses_of_real_torch(torch_free, tmp_path):
    script = _script(tmp_path, "train.py", TRAIN)
    got = _run(["-m", "jtorch", script], cwd=tmp_path, python=torch_free)
    assert got.returncode == 0, got.stderr[-3000:]
    ref = _run(["-c", REFERENCE, script], cwd=tmp_path)
    assert ref.returncode == 0, ref.stderr[-3000:]

    # torch.__name__ is PyTorch's; submodules and classes keep jtorch's names
    assert _lines(got.stdout, "names") == ["torch jtorch.nn.modules.container "
                                           "jtorch.nn.functional"]
    assert _lines(ref.stdout, "names") == ["torch torch.nn.modules.container "
                                           "torch.nn.functional"]
    assert _lines(got.stdout, "torch file") == [JTORCH_INIT]
    # the DataLoader's two spawned workers resolved torch to jtorch too
    assert _lines(got.stdout, "worker torch files") == [str([JTORCH_INIT])]
    assert _lines(got.stdout, "two other worker processes") == ["True"]
    assert _lines(ref.stdout, "two other worker processes") == ["True"]
    losses = [float(v) for v in _lines(got.stdout, "loss")]
    expected = [float(v) for v in _lines(ref.stdout, "loss")]
    assert len(expected) == 3
    assert losses == pytest.approx(expected, rel=1e-5, abs=1e-6)


ARGV = """
import sys
import torch
import torch.nn
print("argv", sys.argv)
print("main", __name__, __file__ if __name__ == "__main__" else "")
print("path0", sys.path[0])
print("alias", sys.modules["torch.nn"] is sys.modules["jtorch.nn"], torch.__name__)
"""


def test_script_gets_argv_main_and_path_as_python_gives(torch_free, tmp_path):
    script = _script(tmp_path, "show.py", ARGV)
    got = _run(["-m", "jtorch", script, "--epochs", "3", "x y"], cwd=ROOT, python=torch_free)
    assert got.returncode == 0, got.stderr[-3000:]
    assert _lines(got.stdout, "argv") == [str([script, "--epochs", "3", "x y"])]
    assert _lines(got.stdout, "main") == [f"__main__ {script}"]
    assert _lines(got.stdout, "path0") == [str(tmp_path)]
    assert _lines(got.stdout, "alias") == ["True torch"]


@pytest.mark.parametrize("runner", ["python -m jtorch", "jtorch console script"])
def test_dash_m_runs_a_module_as_python_dash_m(torch_free, tmp_path, runner):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    module = _script(tmp_path, "pkg/show.py", ARGV)
    command = (["-m", "jtorch"] if runner == "python -m jtorch"
               else [_console_script(os.path.dirname(torch_free))])
    got = _run([*command, "-m", "pkg.show", "a", "b"], cwd=tmp_path, python=torch_free)
    assert got.returncode == 0, got.stderr[-3000:]
    assert _lines(got.stdout, "argv") == [str([module, "a", "b"])]
    assert _lines(got.stdout, "main") == [f"__main__ {module}"]
    assert _lines(got.stdout, "alias") == ["True torch"]


def test_dash_c_runs_a_command_as_python_dash_c(torch_free, tmp_path):
    command = ARGV.replace('__file__ if __name__ == "__main__" else ""', '"<string>"')
    got = _run(["-m", "jtorch", "-c", command, "a", "b"], cwd=tmp_path, python=torch_free)
    assert got.returncode == 0, got.stderr[-3000:]
    assert _lines(got.stdout, "argv") == [str(["-c", "a", "b"])]
    assert _lines(got.stdout, "main") == ["__main__ <string>"]
    assert _lines(got.stdout, "path0") == [""]
    assert _lines(got.stdout, "alias") == ["True torch"]
    failed = _run(["-m", "jtorch", "-c", "import torch\nraise ValueError(torch.__name__)"],
                  cwd=tmp_path, python=torch_free)
    assert failed.returncode == 1
    assert failed.stderr.startswith("Traceback (most recent call last):\n"
                                    '  File "<string>", line 2, in <module>\n'), failed.stderr
    assert failed.stderr.rstrip().endswith("ValueError: torch")


def test_an_exception_in_the_script_exits_1_with_its_traceback(torch_free, tmp_path):
    script = _script(tmp_path, "fails.py", """
        import torch

        def step():
            raise ValueError("bad batch " + torch.__name__)

        step()
        """)
    got = _run(["-m", "jtorch", script], cwd=tmp_path, python=torch_free)
    assert got.returncode == 1
    # python's report, from the script's first frame on (no frames of the runner or runpy)
    assert got.stderr.startswith("Traceback (most recent call last):\n"
                                 f'  File "{script}", line 7, in <module>\n'), got.stderr
    assert f'File "{script}", line 5, in step' in got.stderr
    assert got.stderr.rstrip().endswith("ValueError: bad batch torch")


def test_a_torch_module_jtorch_lacks_is_a_clear_module_not_found_error(torch_free, tmp_path):
    script = _script(tmp_path, "lacks.py", "import torch._inductor\n")
    got = _run(["-m", "jtorch", script], cwd=tmp_path, python=torch_free)
    assert got.returncode == 1
    assert got.stderr.rstrip().splitlines()[-1] == (
        "ModuleNotFoundError: No module named 'torch._inductor' (jtorch's drop-in runner "
        "resolves it to 'jtorch._inductor', which jtorch does not have)")


CHILD = """
import subprocess
import sys

code = "import sys, torch; print(torch.__name__, torch is sys.modules['jtorch'], USER_SITE)"
print("child", subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              check=True).stdout.strip())
"""


def test_child_processes_alias_torch_and_chain_the_users_sitecustomize(torch_free, tmp_path):
    script = _script(tmp_path, "child.py", CHILD)
    user_site = tmp_path / "user_site"
    user_site.mkdir()
    (user_site / "sitecustomize.py").write_text("import builtins\nbuiltins.USER_SITE = 'ran'\n")
    env = _env()
    env["PYTHONPATH"] += os.pathsep + str(user_site)
    got = _run(["-m", "jtorch", script], cwd=tmp_path, python=torch_free, env=env)
    assert got.returncode == 0, got.stderr[-3000:]
    assert _lines(got.stdout, "child") == ["torch True ran"]


UNGUARDED = """
import torch
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.tensor(float(i * i))


print("top level")
{loop}
"""
LOOP = """for x in DataLoader(Squares(), batch_size=2, num_workers={workers}):
    print("batch", x.tolist())"""
WHAT_TO_CHANGE = (
    "RuntimeError: DataLoader workers cannot be started from the top level of the main "
    "script{where}: jtorch starts them with 'spawn' (JAX hangs in forked processes), and each "
    "worker re-runs the script's top level. Put the code that iterates the DataLoader under "
    '`if __name__ == "__main__":` (or pass num_workers=0).')


def _assert_one_short_error(got, where):
    assert got.returncode == 1
    assert got.stderr.count("Traceback") == 1, got.stderr
    assert len(got.stderr.splitlines()) < 20, got.stderr
    assert got.stderr.rstrip().splitlines()[-1] == WHAT_TO_CHANGE.format(where=where)


def test_workers_from_an_unguarded_script_fail_fast_with_what_to_change(torch_free, tmp_path):
    # PyTorch on Linux forks its workers and runs this script; jtorch's spawn workers cannot
    script = _script(tmp_path, "unguarded.py", UNGUARDED.format(loop=LOOP.format(workers=2)))
    got = _run(["-m", "jtorch", script], cwd=tmp_path, python=torch_free, timeout=60)
    _assert_one_short_error(got, " (unguarded.py, line 15)")
    assert got.stdout == "top level\n"  # no worker started, so none re-ran the script


def test_a_worker_that_reaches_the_loop_anyway_exits_silently(torch_free, tmp_path):
    # a guard that spawned workers pass (they run as __mp_main__): the main process cannot tell
    loop = 'if __name__ in ("__main__", "__mp_main__"):\n' + textwrap.indent(
        LOOP.format(workers=1), "    ")
    script = _script(tmp_path, "odd_guard.py", UNGUARDED.format(loop=loop))
    got = _run(["-m", "jtorch", script], cwd=tmp_path, python=torch_free, timeout=60)
    _assert_one_short_error(got, "")
    assert "bootstrapping" not in got.stderr
    assert "batch" not in got.stdout


def test_safetensors_saves_and_loads_through_the_alias(torch_free, tmp_path):
    """safetensors.torch, imported by a script run with ``python -m jtorch``, sees jtorch as
    torch: its import-time ``getattr(torch, "float8_e4m3fn", None)`` checks find those dtypes
    absent (jtorch's missing-name error is also an AttributeError), save_file reads each
    tensor's bytes through ctypes at ``data_ptr()`` and refuses tied weights, found by their
    ``untyped_storage()``."""
    script = _script(tmp_path, "st.py", """
        import torch
        from safetensors.torch import load_file, save_file

        torch.manual_seed(0)
        m = torch.nn.Linear(3, 2)
        state = {"w": m.weight.detach(), "b": m.bias.detach(), "row": m.weight.detach()[1] * 2}
        save_file(state, "m.safetensors")
        back = load_file("m.safetensors")
        print("same", all(torch.equal(back[k], v) for k, v in state.items()), sorted(back))
        try:   # tied weights: found by untyped_storage()'s data_ptr and nbytes, refused
            save_file({"a": state["w"], "b": state["w"]}, "tied.safetensors")
        except RuntimeError as e:
            print("tied", "share memory" in str(e))
        """)
    got = _run(["-m", "jtorch", script], cwd=tmp_path, python=torch_free)
    assert got.returncode == 0, got.stderr[-2000:]
    assert _lines(got.stdout, "same") == ["True ['b', 'row', 'w']"]
    assert _lines(got.stdout, "tied") == ["True"]   # as safetensors with PyTorch
