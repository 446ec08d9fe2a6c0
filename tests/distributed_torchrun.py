"""A script for PyTorch's own launcher (tests/test_distributed_launch.py runs
``python -m torch.distributed.run --nproc_per_node 2 ... distributed_torchrun.py OUT_DIR``),
written for torch with jtorch in its place: joins the gloo group from torchrun's environment
(whose agent holds MASTER_PORT: jtorch's coordinator takes MASTER_PORT + 1), all-reduces and
writes ``OUT_DIR/torchrun<rank>.json`` (and its pid to ``OUT_DIR/pid<rank>`` first). Before
joining it asks for the accelerator as pytorch/examples' FSDP2 example does, which starts JAX's
backend before its multi-process runtime."""

import json
import os
import sys

import jtorch as torch
import jtorch.distributed as dist

with open(os.path.join(sys.argv[1], f"pid{os.environ['RANK']}"), "w") as f:
    f.write(str(os.getpid()))   # torchrun starts each worker in its own session
accelerator = [torch.accelerator.is_available(), torch.accelerator.device_count()]
dist.init_process_group(dist.get_default_backend_for_device(torch.device("cpu")))
rank = dist.get_rank()
t = torch.arange(3.0) * (rank + 1)
dist.all_reduce(t)
with open(os.path.join(sys.argv[1], f"torchrun{rank}.json"), "w") as f:
    json.dump({"rank": rank, "world_size": dist.get_world_size(), "all_reduce": t.tolist(),
               "accelerator": accelerator,
               "agent_store": os.environ.get("TORCHELASTIC_USE_AGENT_STORE")}, f)
dist.destroy_process_group()
