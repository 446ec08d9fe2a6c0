"""One process over 4 CPU devices: DataParallel and fully_shard over a local mesh train like one
device and like real torch (tests/distributed_local_worker.py, run in a fresh process so that
JAX starts with 4 CPU devices whatever this process has)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from distributed_launch import run_workers, worker_env

pytestmark = pytest.mark.distributed


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist_local")
    codes, outputs = run_workers([("distributed_local_worker.py", out / "local.json")],
                                 worker_env(cpu_devices=4), 180, out)
    assert codes == [0], outputs[0][-4000:]
    return json.loads((out / "local.json").read_text())


def _assert_trains_like(got, ref, atol):
    np.testing.assert_allclose(got["losses"], ref["losses"], rtol=0, atol=atol)
    for g, r in zip(got["params"], ref["params"], strict=True):
        np.testing.assert_allclose(g, r, rtol=0, atol=atol)


@pytest.mark.parametrize("run", ["data_parallel", "fsdp", "fsdp_reshard_after_forward_False",
                                 "fsdp_reshard_after_forward_4"])
def test_local_mesh_equals_one_device(local, run):
    assert local["devices"] == 4
    _assert_trains_like(local[run], local["one_device"], 1e-6)
    _assert_trains_like(local[run], local["torch"], 1e-6)


def test_data_parallel_splits_over_all_devices(local):
    assert local["data_parallel"]["device_ids"] == [0, 1, 2, 3]


def test_fully_shard_shards_parameters_and_gathers_full_state_dict(local):
    # every parameter (first dims 8, 8, 4, 4) split over the 4 devices
    assert local["fsdp_shardings"] == [[4, True]] * 4
    assert local["fsdp"]["state_dict_keys"] == local["torch_state_dict_keys"]
    for g, r in zip(local["fsdp"]["state_dict"], local["fsdp"]["params"], strict=True):
        np.testing.assert_array_equal(g, r)


def test_fully_shard_reshard_after_forward_to_fewer_devices(local):
    """An int between 1 and the mesh size (4) is PyTorch's resharding to a smaller world:
    not implemented, and said so; one that does not divide 4 is PyTorch's ValueError."""
    kind, msg = local["fsdp_reshard_after_forward_2"]
    assert kind == "NotImplementedError"
    assert "torch.distributed.fsdp.fully_shard(reshard_after_forward=2)" in msg
    assert local["fsdp_reshard_after_forward_3"] == [
        "ValueError", "If passing reshard_after_forward as an int, it should be a factor of 4, "
        "not 3"]
