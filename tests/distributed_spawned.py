"""The tutorial pattern for tests/test_distributed_launch.py: the parent sets MASTER_ADDR and
MASTER_PORT and ``jtorch.multiprocessing.spawn``s two workers that join a gloo process group
(``env://``) and all-reduce; each writes its result to ``OUT_DIR/spawned<rank>.json``.

``python tests/distributed_spawned.py PORT OUT_DIR``
"""

import json
import os
import sys

import jtorch
import jtorch.distributed as dist
import jtorch.multiprocessing as mp


def worker(rank, world_size, out_dir):
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    t = jtorch.arange(3.0) * (rank + 1)
    dist.all_reduce(t)
    with open(os.path.join(out_dir, f"spawned{rank}.json"), "w") as f:
        json.dump({"rank": dist.get_rank(), "world_size": dist.get_world_size(),
                   "all_reduce": t.tolist()}, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = sys.argv[1]
    mp.spawn(worker, args=(2, sys.argv[2]), nprocs=2)
