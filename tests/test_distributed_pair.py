"""torch.distributed and DistributedDataParallel over two real processes on 127.0.0.1,
against real torch 2.13's gloo.

One launch of two workers (tests/distributed_worker.py) runs every check with both libraries
in the same processes, from the same inputs: collectives compare bit for bit, DDP training to
1e-6. Then rank 1 dies and rank 0's next collective must raise (not hang).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from distributed_launch import free_ports, run_workers, worker_env
from distributed_worker import DDP_CHECKS, REINIT_MODES, collective_checks

pytestmark = pytest.mark.distributed

TIMEOUT_S = 240
RANKS = (0, 1)


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist_pair")
    torch_port, jtorch_port, torch_port2 = free_ports(3)
    codes, outputs = run_workers(
        [("distributed_worker.py", r, torch_port, jtorch_port, out, torch_port2) for r in RANKS],
        worker_env(cpu_devices=1), TIMEOUT_S, out)
    logs = "\n".join(f"--- rank {r} (exit {c}) ---\n{o[-4000:]}"
                     for r, c, o in zip(RANKS, codes, outputs))
    results = {}
    for r in RANKS:
        path = out / f"rank{r}.json"
        assert path.exists(), f"rank {r} wrote no results:\n{logs}"
        results[r] = json.loads(path.read_text())
    dead = out / "dead_peer.json"
    return {"results": results, "codes": codes, "logs": logs, "out": out,
            "dead_peer": json.loads(dead.read_text()) if dead.exists() else None}


def _both(pair, name):
    """(torch's, jtorch's) result of check ``name`` on each rank."""
    return [(pair["results"][r][name]["torch"], pair["results"][r][name]["jtorch"])
            for r in RANKS]


def test_error_before_init_process_group(pair):
    for ref, got in _both(pair, "before_init"):
        assert "err" in ref
        assert got == ref


@pytest.mark.parametrize("name", list(collective_checks()))
def test_collective_equals_torch_gloo(pair, name):
    """Values bit for bit (floats survive JSON exactly), or the same error type and text."""
    for rank, (ref, got) in zip(RANKS, _both(pair, name)):
        assert got == ref, f"rank {rank}: torch {ref} jtorch {got}"


def _close(ref, got, path="result"):
    if isinstance(ref, list) and ref and isinstance(ref[0], (list, float, int)) and \
            not isinstance(ref[0], bool):
        try:
            a, b = np.asarray(ref, dtype=np.float64), np.asarray(got, dtype=np.float64)
        except ValueError:  # ragged: compare element by element
            assert len(ref) == len(got), path
            for i, (r, g) in enumerate(zip(ref, got)):
                _close(r, g, f"{path}[{i}]")
            return
        np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-6, err_msg=path)
    elif isinstance(ref, list):
        assert isinstance(got, list) and len(got) == len(ref), path
        for i, (r, g) in enumerate(zip(ref, got)):
            _close(r, g, f"{path}[{i}]")
    else:
        assert got == ref, path


@pytest.mark.parametrize("name", list(DDP_CHECKS))
def test_ddp_equals_torch_ddp(pair, name):
    """Losses, parameters and gradients within 1e-6 of torch DDP's (rank 1 starts from other
    weights than rank 0; each rank trains on its own batches)."""
    for rank, (ref, got) in zip(RANKS, _both(pair, name)):
        assert "ok" in ref, f"torch failed on rank {rank}: {ref}"
        assert "ok" in got, f"jtorch failed on rank {rank}: {got}"
        _close(ref["ok"], got["ok"], f"rank {rank} {name}")


@pytest.mark.parametrize("lib", ["torch", "jtorch"])
@pytest.mark.parametrize("fsdp_check, ddp_check", [("fsdp1_sgd", "ddp_sgd_momentum"),
                                                   ("fsdp1_adam", "ddp_adam")])
def test_fsdp1_equals_ddp(pair, lib, fsdp_check, ddp_check):
    """FSDP1 from rank 0's weights trains as DDP (which broadcasts rank 0's weights), each rank
    on its own batches: the first 10 losses agree (in each library)."""
    for r in RANKS:
        fsdp_losses = pair["results"][r][fsdp_check][lib]["ok"][0]
        ddp_losses = pair["results"][r][ddp_check][lib]["ok"][0][:10]
        np.testing.assert_allclose(fsdp_losses, ddp_losses, rtol=1e-6, atol=1e-6)


def test_fsdp1_state_dict_keys_and_flat_parameters(pair):
    """The full state dict has the wrapped module's keys; with rank0_only rank 1 gets {};
    parameters() are the flat chunks (the results equal torch's in test_ddp_equals_torch_ddp;
    here what they are, so that equality is not vacuous)."""
    keys = ["0.weight", "0.bias", "2.weight", "2.bias"]
    for r in RANKS:
        got = pair["results"][r]["fsdp1_adam"]["jtorch"]["ok"]
        assert got[1] == keys
        assert got[3] == (keys if r == 0 else [])
        assert got[5] == [["_fsdp_wrapped_module._flat_param", [14]],   # 8 * 3 + 3 over 2
                          ["_fsdp_wrapped_module.0._fsdp_wrapped_module._flat_param", [28]]]
        assert got[6] == "Sequential"


@pytest.mark.parametrize("mode", REINIT_MODES)
def test_init_method_file_and_store(pair, mode):
    """init_process_group again with init_method="file://...", store=FileStore(...) and
    store=TCPStore(...): all_reduce, barrier, rank, world size and backend equal torch's."""
    for rank, (ref, got) in zip(RANKS, _both(pair, mode)):
        assert "ok" in ref, f"torch failed on rank {rank}: {ref}"
        assert got == ref, f"rank {rank}: torch {ref} jtorch {got}"


def test_ddp_unused_parameter_raises_torchs_error(pair):
    for ref, got in _both(pair, "ddp_unused_parameter"):
        assert ref["ok"][0] == "RuntimeError"
        assert got == ref


def test_mismatched_shapes_raise_on_every_rank(pair):
    """Rank 0 all-reduces 2 elements, rank 1 3: both raise (gloo would abort the process, so
    torch is not run); the group still works afterwards."""
    for r in RANKS:
        got = pair["results"][r]["mismatched_shapes"]
        assert got["err"][0] == "RuntimeError"
        assert got["err"][1].startswith("Detected mismatch between collectives on ranks.")
        assert "TensorShape=[2]" in got["err"][1] and "TensorShape=[3]" in got["err"][1]
        after = pair["results"][r]["after_mismatch"]
        assert after == pair["results"][r]["all_reduce_SUM_float32"]["torch"]


def test_checkpoint_saved_by_jtorch_loads_in_torch(pair):
    """ddp_checkpoint: rank 0 saved the DDP module's state dict with each library (both ranks
    then loaded it and trained on: compared in test_ddp_equals_torch_ddp); jtorch's file is
    PyTorch's format and holds what torch's holds."""
    ref = torch.load(pair["out"] / "checkpoint_torch.pt")
    got = torch.load(pair["out"] / "checkpoint_jtorch.pt")
    assert list(got) == list(ref)
    for k in ref:
        torch.testing.assert_close(got[k], ref[k], rtol=0, atol=1e-6)


def test_dead_peer_makes_survivor_raise(pair):
    """Rank 1 exits without a word after the checks; rank 0's next all_reduce raises instead
    of hanging, and rank 0 then leaves normally at once: status 1 (a failed collective skips
    JAX's shutdown barrier, which would wait for the dead peer), not a hang or an abort."""
    dead = pair["dead_peer"]
    assert dead is not None, pair["logs"]
    assert "err" in dead, dead
    assert dead["err"][0] == "DistBackendError"
    assert dead["seconds"] < 30, dead
    assert pair["codes"] == [1, 0], pair["logs"]
