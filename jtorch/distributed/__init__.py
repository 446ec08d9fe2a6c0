"""torch.distributed on JAX's multi-process runtime: ``import jtorch.distributed as dist``.

A process group of N processes is JAX's multi-controller runtime (``jax.distributed``): rank r
is JAX process r, and each collective is one XLA program over a mesh with one device per rank
(gloo between CPUs, NCCL between GPUs). See docs/distributed.md.
"""

from .._core.errors import torch_name_fallback
from . import (
    constants as constants,
    rendezvous as rendezvous_module,  # noqa: F401 - registers the URL handlers
)
from ._errors import (
    DistBackendError as DistBackendError,
    DistError as DistError,
    DistNetworkError as DistNetworkError,
    DistStoreError as DistStoreError,
)
from .c10d import (
    destroy_process_group as destroy_process_group,
    get_backend as get_backend,
    get_backend_config as get_backend_config,
    get_default_backend_for_device as get_default_backend_for_device,
    get_global_rank as get_global_rank,
    get_group_rank as get_group_rank,
    get_node_local_rank as get_node_local_rank,
    get_pg_count as get_pg_count,
    get_process_group_ranks as get_process_group_ranks,
    get_rank as get_rank,
    get_world_size as get_world_size,
    init_process_group as init_process_group,
    is_available as is_available,
    is_backend_available as is_backend_available,
    is_gloo_available as is_gloo_available,
    is_initialized as is_initialized,
    is_mpi_available as is_mpi_available,
    is_nccl_available as is_nccl_available,
    is_torchelastic_launched as is_torchelastic_launched,
    is_ucc_available as is_ucc_available,
    is_xccl_available as is_xccl_available,
    new_group as new_group,
    new_subgroups as new_subgroups,
)
from .collectives import (
    all_gather as all_gather,
    all_gather_into_tensor as all_gather_into_tensor,
    all_reduce as all_reduce,
    all_reduce_coalesced as all_reduce_coalesced,
    all_to_all as all_to_all,
    all_to_all_single as all_to_all_single,
    barrier as barrier,
    broadcast as broadcast,
    gather as gather,
    monitored_barrier as monitored_barrier,
    reduce as reduce,
    reduce_scatter as reduce_scatter,
    reduce_scatter_tensor as reduce_scatter_tensor,
    scatter as scatter,
    supports_complex as supports_complex,
)
from .constants import default_pg_timeout as default_pg_timeout
from .device_mesh import DeviceMesh as DeviceMesh, init_device_mesh as init_device_mesh
from .object_collectives import (
    all_gather_object as all_gather_object,
    broadcast_object_list as broadcast_object_list,
    gather_object as gather_object,
    recv_object_list as recv_object_list,
    scatter_object_list as scatter_object_list,
    send_object_list as send_object_list,
)
from .p2p import (
    P2POp as P2POp,
    batch_isend_irecv as batch_isend_irecv,
    irecv as irecv,
    isend as isend,
    recv as recv,
    send as send,
)
from .process_group import (
    Backend as Backend,
    GroupMember as GroupMember,
    ProcessGroup as ProcessGroup,
    ReduceOp as ReduceOp,
    group as group,
)
from .rendezvous import (
    register_rendezvous_handler as register_rendezvous_handler,
    rendezvous as rendezvous,
)
from .store import (
    FileStore as FileStore,
    HashStore as HashStore,
    PrefixStore as PrefixStore,
    Store as Store,
    TCPStore as TCPStore,
)
from .work import Work as Work

__all__ = [
    "Backend", "DeviceMesh", "DistBackendError", "DistError", "DistNetworkError", "DistStoreError",
    "FileStore", "GroupMember", "HashStore", "P2POp", "PrefixStore", "ProcessGroup",
    "ReduceOp", "Store", "TCPStore", "Work", "all_gather", "all_gather_into_tensor",
    "all_gather_object", "all_reduce", "all_reduce_coalesced", "all_to_all",
    "all_to_all_single", "barrier", "batch_isend_irecv", "broadcast", "broadcast_object_list",
    "constants", "default_pg_timeout", "destroy_process_group", "gather", "gather_object",
    "get_backend", "get_backend_config", "get_default_backend_for_device", "get_global_rank",
    "get_group_rank", "get_node_local_rank", "get_pg_count", "get_process_group_ranks",
    "get_rank", "get_world_size", "group", "init_device_mesh", "init_process_group", "irecv",
    "is_available",
    "is_backend_available", "is_gloo_available", "is_initialized", "is_mpi_available",
    "is_nccl_available", "is_torchelastic_launched", "is_ucc_available", "is_xccl_available",
    "isend", "monitored_barrier", "new_group", "new_subgroups", "recv", "recv_object_list",
    "reduce", "reduce_scatter", "reduce_scatter_tensor", "register_rendezvous_handler",
    "rendezvous", "scatter", "scatter_object_list", "send", "send_object_list",
    "supports_complex",
]

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.distributed")
