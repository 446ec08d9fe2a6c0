"""``jtorchrun`` / ``python -m jtorch.distributed.run``: torchrun's command line for jtorch.

Usage::

    jtorchrun --nproc_per_node 2 train.py --epochs 3
    jtorchrun --nnodes 2 --node_rank 0 --master_addr 10.0.0.1 --master_port 29500 \\
        --nproc_per_node 4 train.py            # on each node, with its --node_rank

Each worker gets torchrun's environment (``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``,
``LOCAL_WORLD_SIZE``, ``MASTER_ADDR``, ``MASTER_PORT``...) and its ``init_process_group()``
starts JAX's multi-process runtime from it, with rank 0 hosting JAX's coordinator at
``MASTER_ADDR:MASTER_PORT``. When a worker fails the others are stopped (SIGTERM, SIGKILL after
a grace period) and the launcher exits with status 1 after printing the failed rank's
traceback. Flags take torchrun's spellings (``--nproc-per-node`` and ``--nproc_per_node``),
and, as in torchrun, default to ``PET_<FLAG>`` environment variables.

Differences from torchrun: rendezvous is static (``--nnodes`` a number, or ``N:N``; elastic
ranges raise an error); ``--rdzv-endpoint host:port`` is used as the master address;
``--start-method``, ``--redirects`` and ``--tee`` are accepted and ignored (workers are
separate processes, their output goes to the launcher's stdout/stderr; ``--log-dir`` is
ignored too).
"""

from __future__ import annotations

import argparse
import os
import sys
import uuid

import jax

from .elastic.multiprocessing.errors import ChildFailedError
from .launcher.api import LaunchConfig, launch_agent
from .rendezvous import free_port

__all__ = ["get_args_parser", "main", "parse_args", "run"]


class _Env(argparse.Action):
    """A flag whose default comes from ``PET_<FLAG>`` (torchrun's convention)."""

    def __init__(self, dest, default=None, required=False, **kwargs):
        env_name = "PET_" + dest.upper()
        default = os.environ.get(env_name, default)
        if default:
            required = False
        super().__init__(dest=dest, default=default, required=required, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)


def get_args_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description="jtorch's distributed training launcher "
                                            "(torchrun's flags)")
    p.add_argument("--nnodes", action=_Env, type=str, default="1:1")
    p.add_argument("--nproc-per-node", "--nproc_per_node", action=_Env, type=str, default="1")
    p.add_argument("--rdzv-backend", "--rdzv_backend", action=_Env, type=str, default="static")
    p.add_argument("--rdzv-endpoint", "--rdzv_endpoint", action=_Env, type=str, default="")
    p.add_argument("--rdzv-id", "--rdzv_id", action=_Env, type=str, default="none")
    p.add_argument("--rdzv-conf", "--rdzv_conf", action=_Env, type=str, default="")
    p.add_argument("--standalone", action="store_true")
    p.add_argument("--max-restarts", "--max_restarts", action=_Env, type=int, default=0)
    p.add_argument("--monitor-interval", "--monitor_interval", action=_Env, type=float,
                   default=0.1)
    p.add_argument("--start-method", "--start_method", action=_Env, type=str, default="spawn",
                   choices=["spawn", "fork", "forkserver"])
    p.add_argument("--role", action=_Env, type=str, default="default")
    p.add_argument("-m", "--module", action="store_true")
    p.add_argument("--no-python", "--no_python", action="store_true")
    p.add_argument("--run-path", "--run_path", action="store_true")
    p.add_argument("--log-dir", "--log_dir", action=_Env, type=str, default=None)
    p.add_argument("-r", "--redirects", action=_Env, type=str, default="0")
    p.add_argument("-t", "--tee", action=_Env, type=str, default="0")
    p.add_argument("--local-ranks-filter", "--local_ranks_filter", action=_Env, type=str,
                   default="")
    p.add_argument("--node-rank", "--node_rank", action=_Env, type=int, default=0)
    p.add_argument("--master-addr", "--master_addr", action=_Env, type=str,
                   default="127.0.0.1")
    p.add_argument("--master-port", "--master_port", action=_Env, type=int, default=29500)
    p.add_argument("--local-addr", "--local_addr", action=_Env, type=str, default=None)
    p.add_argument("--stop-grace", "--stop_grace", action=_Env, type=float, default=30.0,
                   help="jtorch: seconds between SIGTERM and SIGKILL when stopping workers")
    p.add_argument("training_script", type=str)
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return p


def parse_args(args):
    return get_args_parser().parse_args(args)


def _nnodes(text):
    lo, _, hi = str(text).partition(":")
    lo, hi = int(lo), int(hi or lo)
    if lo != hi:
        raise ValueError(f"jtorchrun: elastic node ranges (--nnodes {text}) are not supported; "
                         f"give a fixed number of nodes")
    return lo


def _nproc(text):
    if text in ("cpu", "auto", "gpu", "xpu"):
        if text == "cpu":
            return os.cpu_count() or 1
        try:
            gpus = len(jax.devices("gpu"))
        except RuntimeError:
            gpus = 0
        if text == "gpu" and gpus == 0:
            raise ValueError("Cuda is not available.")
        return gpus or os.cpu_count() or 1
    return int(text)


def config_from_args(args):
    """The launch configuration, the command and its arguments."""
    nnodes = _nnodes(args.nnodes)
    nproc = _nproc(args.nproc_per_node)
    addr, port = args.master_addr, args.master_port
    if args.standalone:
        addr, port = "127.0.0.1", free_port()
    elif args.rdzv_endpoint:
        host, _, p = args.rdzv_endpoint.rpartition(":")
        addr, port = host or args.rdzv_endpoint, int(p) if host else 29400
    if nproc > 1 and "OMP_NUM_THREADS" not in os.environ:
        print("*" * 41 + "\nSetting OMP_NUM_THREADS environment variable for each process to be "
              "1 in default, to avoid your system being overloaded, please further tune the "
              "variable for optimal performance in your application as needed. \n" + "*" * 41,
              file=sys.stderr)
    ranks_filter = tuple(int(r) for r in args.local_ranks_filter.split(",") if r.strip())
    config = LaunchConfig(
        min_nodes=nnodes, max_nodes=nnodes, nproc_per_node=nproc, node_rank=args.node_rank,
        master_addr=addr, master_port=port,
        run_id=args.rdzv_id if args.rdzv_id != "none" else str(uuid.uuid4()),
        role=args.role, max_restarts=args.max_restarts,
        monitor_interval=args.monitor_interval, stop_grace=args.stop_grace,
        log_dir=args.log_dir, local_ranks_filter=ranks_filter)
    if args.no_python and not args.run_path:
        if args.module:
            raise ValueError("Don't use both the '--no-python' flag and the '--module' flag at "
                             "the same time.")
        cmd = [args.training_script]
    elif args.module:
        cmd = [sys.executable, "-u", "-m", args.training_script]
    else:
        cmd = [sys.executable, "-u", args.training_script]
    return config, cmd, list(args.training_script_args)


def run(args) -> None:
    config, cmd, cmd_args = config_from_args(args)
    launch_agent(config, cmd, cmd_args)


def main(args=None) -> None:
    """The console script: exits 0 when every worker succeeded, 1 with the failure summary
    otherwise."""
    try:
        run(parse_args(args))
    except ChildFailedError as e:
        print(e.format_msg(), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
