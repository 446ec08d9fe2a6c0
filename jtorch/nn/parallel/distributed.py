"""``DistributedDataParallel``: one model replica per process, gradients averaged over the
process group after each backward.

At construction the ranks' parameter shapes are compared and rank 0's parameters and buffers
are copied to every rank. A post-accumulate-grad hook on every parameter counts the
gradients of a backward; when the last expected one arrived, all gradients are averaged over
the ranks in one program (``jtorch/distributed/_grad_sync.py``: divided by the world size,
bucketed per dtype, one ``psum`` per bucket), always in the same order, and written back to
``.grad``. Before each forward, rank 0's buffers (BatchNorm's running statistics) are copied
to every rank (``broadcast_buffers``/``forward_sync_buffers``).

Under ``jtorch.compile`` the same hooks run while the step is traced, and the module names its
process group (``_jtorch_spmd_group``), so the whole step (forward, backward, gradient
all-reduce, optimizer step) becomes one SPMD program per process
(``jtorch/distributed/_spmd.py``).

Differences from PyTorch: gradients are averaged once all of a backward's gradients exist (one
program), not bucket by bucket while backward still runs; ``register_comm_hook``, ``join`` and
``mixed_precision`` are not implemented; with ``find_unused_parameters=True`` inside a compiled
step, a parameter no rank used gets a zero gradient (eagerly its ``.grad`` is left untouched,
as in PyTorch); ``no_sync()`` is read when a compiled step is traced: compile the
accumulation step and the synchronizing step as two functions.
"""

from __future__ import annotations

import contextlib
import itertools
import warnings
from dataclasses import fields, is_dataclass

import jax.numpy as jnp

from ..._core import errors as _errors
from ..._core.state import STATE
from ..._ops.creation import place
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...distributed import _grad_sync
from ...distributed.c10d import default_group
from ...distributed.collectives import array
from ...distributed.object_collectives import all_gather_object
from ..modules.module import Module
from ..parameter import UninitializedParameter

__all__ = ["DistributedDataParallel"]

_UNUSED = (
    "Expected to have finished reduction in the prior iteration before starting a new one. "
    "This error indicates that your module has parameters that were not used in producing "
    "loss. You can enable unused parameter detection by passing the keyword argument "
    "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by \n"
    "making sure all `forward` function outputs participate in calculating loss. \n"
    "If you already have done the above, then the distributed data parallel module wasn't able "
    "to locate the output tensors in the return value of your module's `forward` function. "
    "Please include the loss function and the structure of the return value of `forward` of "
    "your module when reporting this issue (e.g. list, dict, iterable).\n"
    "Parameter indices which did not receive grad for rank {rank}: {indices}\n"
    " In addition, you can set the environment variable TORCH_DISTRIBUTED_DEBUG to either INFO "
    "or DETAIL to print out information about which particular parameters did not receive "
    "gradient on this rank as part of this error")


def _find_tensors(obj):
    """The tensors in a forward's output (tensors, lists, tuples, dicts, dataclasses)."""
    if isinstance(obj, Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return list(itertools.chain.from_iterable(map(_find_tensors, obj)))
    if isinstance(obj, dict):
        return list(itertools.chain.from_iterable(map(_find_tensors, obj.values())))
    if is_dataclass(obj) and not isinstance(obj, type):
        return list(itertools.chain.from_iterable(
            _find_tensors(getattr(obj, f.name)) for f in fields(obj)))
    return []


def _reachable_leaves(outputs):
    """The ids of the leaf tensors the autograd graph of ``outputs`` reaches."""
    seen, found = set(), set()
    stack = [t.grad_fn for t in outputs if t.grad_fn is not None]
    for t in outputs:
        if t.grad_fn is None and t.requires_grad:
            found.add(id(t))
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        variable = getattr(node, "variable", None)
        if variable is not None:
            found.add(id(variable))
        stack.extend(n for n, _ in node.next_functions if n is not None)
    return found


class DistributedDataParallel(Module):
    """Data parallelism over a process group: wraps ``module``; each rank runs it on its own
    part of the batch and gradients are averaged over the ranks during ``backward``.

    Args:
        module (Module): the model (on this rank's device).
        device_ids (list, optional): a single GPU index, for a GPU module (None on CPU).
        output_device: accepted for compatibility (outputs stay where the module puts them).
        broadcast_buffers (bool, optional, deprecated in PyTorch 2.13): copy rank 0's buffers
            to every rank before each forward (default True).
        init_sync (bool): copy rank 0's parameters and buffers to every rank at construction
            (default True).
        process_group (ProcessGroup, optional): the ranks to average over (the default group).
        bucket_cap_mb (float, optional): the largest gradient bucket (25).
        find_unused_parameters (bool): find the parameters a forward did not use (walking its
            output's graph), so that their gradients do not hold up the reduction.
        device_mesh (DeviceMesh, optional): a one-dimensional mesh whose group to use.
        forward_sync_buffers (bool, optional): ``broadcast_buffers``'s new name.

    Example::

        >>> dist.init_process_group("gloo")
        >>> model = DistributedDataParallel(nn.Linear(10, 1))
        >>> loss = model(x).sum(); loss.backward()   # gradients averaged over the ranks
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0,
                 broadcast_buffers=None, init_sync=True, process_group=None, bucket_cap_mb=None,
                 find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None,
                 mixed_precision=None, device_mesh=None, skip_all_reduce_unused_params=False,
                 bucket_cap_mb_list=None, batched_grad_copy=False, forward_sync_buffers=None):
        super().__init__()
        if (delay_all_reduce_named_params is None) != (param_to_hook_all_reduce is None):
            raise ValueError("delay_all_reduce_named_params and param_to_hook_all_reduce need "
                             "to be set at the same time.")
        if delay_all_reduce_named_params is not None:
            raise _errors.not_implemented(
                "torch.nn.parallel.DistributedDataParallel(delay_all_reduce_named_params=...)")
        if mixed_precision is not None:
            raise _errors.not_implemented(
                "torch.nn.parallel.DistributedDataParallel(mixed_precision=...)",
                "torch.autocast around the forward")
        if process_group and device_mesh is not None:
            raise RuntimeError("Cannot specify both process_group and device_mesh arguments.")
        if device_mesh is not None:
            if device_mesh.ndim != 1:
                raise RuntimeError(f"Only 1D device mesh is supported, but got {device_mesh}.")
            self.device_mesh = device_mesh
            process_group = device_mesh.get_group(mesh_dim=0)
        self.process_group = process_group if process_group is not None else default_group()
        self.parameters_to_ignore = set(getattr(module, "_ddp_params_and_buffers_to_ignore",
                                                ()))
        named = [(n, p) for n, p in module.named_parameters()
                 if n not in self.parameters_to_ignore]
        if not any(p.requires_grad for _, p in named):
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't "
                               "have any parameter that requires a gradient.")
        if device_ids is not None and len(device_ids) > 1:
            raise ValueError("device_ids can only be None or contain a single element.")
        device_types = {p.device.type for _, p in named}
        if len(device_types) != 1:
            raise ValueError(f"DistributedDataParallel's input module must be on the same type "
                             f"of devices, but input module parameters locate in "
                             f"{device_types}.")
        self.device_type = next(iter(device_types))
        if not device_ids or self.device_type == "cpu":
            if device_ids or output_device:
                raise ValueError(
                    f"DistributedDataParallel device_ids and output_device arguments only work "
                    f"with single-device/multiple-device GPU modules or CPU modules, but got "
                    f"device_ids {device_ids}, output_device {output_device}, and module "
                    f"parameters { {p.device for _, p in named} }.")
            self.device_ids = None
            self.output_device = None
        else:
            self.device_ids = [getattr(d, "index", d) for d in device_ids]
            self.output_device = getattr(output_device, "index", output_device) \
                if output_device is not None else self.device_ids[0]
        for _, p in named:
            if isinstance(p, UninitializedParameter):
                raise RuntimeError("Modules with uninitialized parameters can't be used with "
                                   "`DistributedDataParallel`. Run a dummy forward pass to "
                                   "correctly initialize the modules")
        if broadcast_buffers is not None and forward_sync_buffers is None:
            warnings.warn(
                "`broadcast_buffers` is deprecated. Use `forward_sync_buffers` instead. "
                "IMPORTANT: unlike `broadcast_buffers=False`, `forward_sync_buffers=False` "
                "still syncs buffers at init. If you rely on buffers NOT being synced at init "
                "(e.g. rank-local buffers), keep using `broadcast_buffers=False` until "
                "`init_sync_buffers` is available.", FutureWarning, stacklevel=2)
        if forward_sync_buffers is not None:
            self.forward_sync_buffers, init_sync_buffers = forward_sync_buffers, True
        else:
            effective = broadcast_buffers if broadcast_buffers is not None else True
            self.forward_sync_buffers = init_sync_buffers = effective
        if check_reduction:
            warnings.warn("The `check_reduction` argument in `DistributedDataParallel` module is "
                          "deprecated. Please avoid using it.", FutureWarning, stacklevel=2)
        self.module = module
        self.dim = dim
        self.device = named[0][1].device
        self.find_unused_parameters = find_unused_parameters
        self.static_graph = static_graph
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb)
                                    * 1024 * 1024)
        self._jtorch_spmd_group = self.process_group   # compiled steps run as SPMD over it
        self._params = [p for _, p in named]
        self._grad_params = [p for p in self._params if p.requires_grad]
        self._expected = ()          # the parameters this backward's reduction waits for
        self._ready = set()
        self._used = None            # with find_unused_parameters: this rank's used mask
        if init_sync:
            self._verify_shapes()
            self._sync(self._params + (self._buffers_list() if init_sync_buffers else []))
        for p in self._grad_params:
            p.register_post_accumulate_grad_hook(self._grad_ready)

    # ------------------------------------------------------------------ construction
    def _buffers_list(self):
        return [b for n, b in self.module.named_buffers()
                if b is not None and n not in self.parameters_to_ignore]

    def _verify_shapes(self):
        group = self.process_group
        mine = [tuple(p.shape) for p in self._params]
        every = [None] * group.size()
        all_gather_object(every, mine, group=group)
        me = group.rank()
        for r, theirs in enumerate(every):
            if theirs == every[0]:
                continue
            other = r if me == 0 else me
            diff = next((i for i, (a, b) in enumerate(zip(every[other], every[0])) if a != b),
                        None)
            if diff is None:
                raise RuntimeError(f"DDP expects same model across all ranks, but Rank {me} has "
                                   f"{len(every[0])} params, while rank {other} has "
                                   f"inconsistent {len(every[other])} params.")
            raise RuntimeError(f"[{other}]: params[{diff}] in this process with sizes "
                               f"{list(every[other][diff])} appears not to match sizes of the "
                               f"same param in process 0.")

    def _sync(self, tensors):
        """Copies rank 0's values of ``tensors`` to every rank."""
        values = _grad_sync.broadcast_arrays(self.process_group, [array(t) for t in tensors])
        with no_grad():
            for t, v in zip(tensors, values):
                t.copy_(place(v, t.device))

    # ------------------------------------------------------------------ forward
    def will_sync_module_buffers(self):
        return (self.require_forward_param_sync and self.forward_sync_buffers
                and bool(self._buffers_list()))

    @property
    def broadcast_buffers(self):
        return self.forward_sync_buffers

    @broadcast_buffers.setter
    def broadcast_buffers(self, value):
        self.forward_sync_buffers = value

    def _check_previous_reduction(self):
        if self._expected and self._ready:
            missing = [str(i) for i, p in enumerate(self._params)
                       if p.requires_grad and id(p) not in self._ready]
            self._expected, self._ready = (), set()
            raise RuntimeError(_UNUSED.format(rank=self.process_group.rank(),
                                              indices=" ".join(missing)))

    def forward(self, *inputs, **kwargs):
        self._check_previous_reduction()
        if self.will_sync_module_buffers():
            self._sync(self._buffers_list())
        if self.device_ids:
            target = f"{self.device_type}:{self.device_ids[0]}"
            inputs = tuple(x.to(target) if isinstance(x, Tensor) else x for x in inputs)
            kwargs = {k: v.to(target) if isinstance(v, Tensor) else v for k, v in kwargs.items()}
        output = self.module(*inputs, **kwargs)
        sync = STATE.grad_enabled and self.require_backward_grad_sync
        self.require_forward_param_sync = sync
        self._ready = set()
        self._used = None
        if not sync:
            self._expected = ()
            return output
        if self.find_unused_parameters and not self.static_graph:
            reached = _reachable_leaves(_find_tensors(output))
            self._used = [id(p) in reached for p in self._grad_params]
            self._expected = tuple(p for p, u in zip(self._grad_params, self._used) if u)
            if not self._expected:   # nothing to wait for: reduce now (zeros) as PyTorch does
                self._reduce()
        else:
            self._expected = tuple(self._grad_params)
        return output

    # ------------------------------------------------------------------ backward
    def _grad_ready(self, param):
        if not self._expected:
            return
        self._ready.add(id(param))
        if len(self._ready) == len(self._expected) and \
                all(id(p) in self._ready for p in self._expected):
            self._reduce()

    def _reduce(self):
        """Averages every expected gradient over the ranks (see the module docstring)."""
        params = list(reversed(self._grad_params))   # PyTorch's bucket order
        used = None if self._used is None else list(reversed(self._used))
        grads = [array(p.grad) if p.grad is not None else jnp.zeros_like(array(p))
                 for p in params]
        averaged, used_anywhere = _grad_sync.average_gradients(
            self.process_group, grads, used=used, bucket_bytes=self.bucket_bytes_cap)
        for i, (p, g) in enumerate(zip(params, averaged)):
            if used_anywhere is not None and not used_anywhere[i]:
                continue
            p.grad = place(g, p.device)
        self._expected, self._ready, self._used = (), set(), None

    @contextlib.contextmanager
    def no_sync(self):
        """Inside, forward/backward accumulate gradients locally without averaging them; the
        first synchronized backward after it averages the accumulated gradients."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    # ------------------------------------------------------------------ not implemented
    def register_comm_hook(self, state, hook):
        raise _errors.not_implemented(
            "torch.nn.parallel.DistributedDataParallel.register_comm_hook")

    def join(self, divide_by_initial_world_size=True, enable=True,
             throw_on_early_termination=False):
        raise _errors.not_implemented("torch.nn.parallel.DistributedDataParallel.join",
                                      "a DistributedSampler giving every rank as many batches")

    def _set_static_graph(self):
        self.static_graph = True

