"""A worker for the launcher test (tests/test_distributed_launch.py), started by
``python -m jtorch.distributed.run --nproc_per_node 2``: writes the torchrun environment it got
and its pid to ``OUT_DIR/env<RANK>.json``; then rank 1 raises while rank 0 waits to be
stopped."""

import json
import os
import sys
import time

VARS = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
        "GROUP_RANK", "TORCHELASTIC_RUN_ID")

rank = int(os.environ["RANK"])
with open(os.path.join(sys.argv[1], f"env{rank}.json"), "w") as f:
    json.dump({"pid": os.getpid(), **{v: os.environ.get(v) for v in VARS}}, f)
if rank == 1:
    time.sleep(1.0)
    raise ValueError("boom from rank 1")
time.sleep(120)
