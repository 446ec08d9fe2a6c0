"""The drop-in runner: ``python -m jtorch script.py`` runs an unmodified PyTorch program with
``torch`` resolved to jtorch, in the script and in its DataLoader worker processes.

Each test runs the runner in a subprocess. The parity reference is the same script run by plain
``python`` with real torch 2.13 and real torchvision (the two modules of torchvision that
register its C++ operators are stood in for, as in tests/vision_helpers.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JTORCH_INIT = os.path.join(ROOT, "jtorch", "__init__.py")

TRAIN = """
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
        return self.norm(x).flatten(), i % 2


def main():
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.linspace(-0.6, 0.7, p.numel()).reshape(p.shape))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for x, y in DataLoader(Ramps(), batch_size=4):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        print("loss", repr(loss.item()))
    print("names", torch.__name__, type(model).__module__, F.__name__)
    print("torch file", sys.modules["torch"].__file__)


if __name__ == "__main__":
    main()
"""

WORKERS = """
import os
import sys

import torch
from torch.utils.data import DataLoader, Dataset


class Indexed(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.tensor(float(i)), sys.modules["torch"].__file__, os.getpid()


if __name__ == "__main__":
    values, files, pids = [], set(), set()
    for x, f, pid in DataLoader(Indexed(), batch_size=2, num_workers=2):
        values += x.tolist()
        files.update(f)
        pids.update(pid.tolist())
    print("values", values)
    print("worker files", sorted(files))
    print("worker pids differ", os.getpid() not in pids and len(pids) == 2)
    print("real torch imported", any(m == "torch" and not v.__name__.startswith("jtorch")
                                     for m, v in sys.modules.items()))
"""

# plain python with real torch and torchvision's pure-Python code (see tests/vision_helpers.py)
REFERENCE = """
import runpy, sys, types
for name in ("torchvision._meta_registrations", "torchvision._autograd_registrations"):
    sys.modules[name] = types.ModuleType(name)
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def _env():
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    env["PYTHONPATH"] = os.pathsep.join([ROOT] + [p for p in env.get("PYTHONPATH", "").split(
        os.pathsep) if p])
    env.pop("JTORCH_AS_TORCH", None)
    return env


def _run(args, cwd, timeout=120):
    return subprocess.run([sys.executable, *args], cwd=cwd, env=_env(), capture_output=True,
                          text=True, timeout=timeout)


def _script(tmp_path, name, body):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return str(path)


def _lines(out, key):
    return [line.split(" ", len(key.split()))[-1] for line in out.splitlines()
            if line.startswith(key + " ")]


def test_a_pytorch_script_runs_unchanged_with_the_losses_of_real_torch(tmp_path):
    script = _script(tmp_path, "train.py", TRAIN)
    got = _run(["-m", "jtorch", script], cwd=tmp_path)
    assert got.returncode == 0, got.stderr[-3000:]
    ref = _run(["-c", REFERENCE, script], cwd=tmp_path)
    assert ref.returncode == 0, ref.stderr[-3000:]

    assert _lines(got.stdout, "names") == ["jtorch jtorch.nn.modules.container "
                                           "jtorch.nn.functional"]
    assert _lines(ref.stdout, "names") == ["torch torch.nn.modules.container "
                                           "torch.nn.functional"]
    assert _lines(got.stdout, "torch file") == [JTORCH_INIT]
    losses = [float(v) for v in _lines(got.stdout, "loss")]
    expected = [float(v) for v in _lines(ref.stdout, "loss")]
    assert len(expected) == 3
    assert losses == pytest.approx(expected, rel=1e-5, abs=1e-6)


def test_dataloader_workers_resolve_torch_to_jtorch(tmp_path):
    script = _script(tmp_path, "workers.py", WORKERS)
    got = _run(["-m", "jtorch", script], cwd=tmp_path)
    assert got.returncode == 0, got.stderr[-3000:]
    assert _lines(got.stdout, "values") == [str([float(i) for i in range(8)])]
    assert _lines(got.stdout, "worker files") == [str([JTORCH_INIT])]
    assert _lines(got.stdout, "worker pids differ") == ["True"]
    assert _lines(got.stdout, "real torch imported") == ["False"]


ARGV = """
import sys
import torch
import torch.nn
print("argv", sys.argv)
print("main", __name__, __file__ if __name__ == "__main__" else "")
print("path0", sys.path[0])
print("alias", sys.modules["torch.nn"] is sys.modules["jtorch.nn"], torch.__name__)
"""


def test_script_gets_argv_main_and_path_as_python_gives(tmp_path):
    script = _script(tmp_path, "show.py", ARGV)
    got = _run(["-m", "jtorch", script, "--epochs", "3", "x y"], cwd=ROOT)
    assert got.returncode == 0, got.stderr[-3000:]
    assert _lines(got.stdout, "argv") == [str([script, "--epochs", "3", "x y"])]
    assert _lines(got.stdout, "main") == [f"__main__ {script}"]
    assert _lines(got.stdout, "path0") == [str(tmp_path)]
    assert _lines(got.stdout, "alias") == ["True jtorch"]


def test_dash_m_runs_a_module_as_python_dash_m(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    module = _script(tmp_path, "pkg/show.py", ARGV)
    got = _run(["-m", "jtorch", "-m", "pkg.show", "a", "b"], cwd=tmp_path)
    assert got.returncode == 0, got.stderr[-3000:]
    assert _lines(got.stdout, "argv") == [str([module, "a", "b"])]
    assert _lines(got.stdout, "main") == [f"__main__ {module}"]
    assert _lines(got.stdout, "alias") == ["True jtorch"]


def test_an_exception_in_the_script_exits_1_with_its_traceback(tmp_path):
    script = _script(tmp_path, "fails.py", """
        import torch

        def step():
            raise ValueError("bad batch " + torch.__name__)

        step()
        """)
    got = _run(["-m", "jtorch", script], cwd=tmp_path)
    assert got.returncode == 1
    # python's report, from the script's first frame on (no frames of the runner or runpy)
    assert got.stderr.startswith("Traceback (most recent call last):\n"
                                 f'  File "{script}", line 7, in <module>\n'), got.stderr
    assert f'File "{script}", line 5, in step' in got.stderr
    assert got.stderr.rstrip().endswith("ValueError: bad batch jtorch")


def test_a_torch_module_jtorch_lacks_is_a_clear_module_not_found_error(tmp_path):
    script = _script(tmp_path, "lacks.py", "import torch._C\n")
    got = _run(["-m", "jtorch", script], cwd=tmp_path)
    assert got.returncode == 1
    assert got.stderr.rstrip().splitlines()[-1] == (
        "ModuleNotFoundError: No module named 'torch._C' (jtorch's drop-in runner resolves it "
        "to 'jtorch._C', which jtorch does not have)")


CHILD = """
import subprocess
import sys

code = "import sys, torch; print(torch.__name__, torch is sys.modules['jtorch'], USER_SITE)"
print("child", subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              check=True).stdout.strip())
"""


def test_child_processes_alias_torch_and_chain_the_users_sitecustomize(tmp_path):
    script = _script(tmp_path, "child.py", CHILD)
    user_site = tmp_path / "user_site"
    user_site.mkdir()
    (user_site / "sitecustomize.py").write_text("import builtins\nbuiltins.USER_SITE = 'ran'\n")
    env = _env()
    env["PYTHONPATH"] += os.pathsep + str(user_site)
    got = subprocess.run([sys.executable, "-m", "jtorch", script], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120)
    assert got.returncode == 0, got.stderr[-3000:]
    assert _lines(got.stdout, "child") == ["jtorch True ran"]
