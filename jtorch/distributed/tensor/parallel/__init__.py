"""torch.distributed.tensor.parallel (tensor parallel styles): not implemented; every name
raises NotImplementedError naming it."""

from ...._core.errors import not_implemented


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise not_implemented(f"torch.distributed.tensor.parallel.{name}",
                          "fully_shard / DistributedDataParallel, or jax.sharding directly")
