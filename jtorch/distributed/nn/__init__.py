"""torch.distributed.nn: collectives that record autograd history
(:mod:`jtorch.distributed.nn.functional`)."""

from .functional import (
    all_gather as all_gather,
    all_reduce as all_reduce,
    all_to_all as all_to_all,
    all_to_all_single as all_to_all_single,
    broadcast as broadcast,
    gather as gather,
    reduce as reduce,
    reduce_scatter as reduce_scatter,
    scatter as scatter,
)

__all__ = ["all_gather", "all_reduce", "all_to_all", "all_to_all_single", "broadcast",
           "gather", "reduce", "reduce_scatter", "scatter"]
