"""torch.distributed.checkpoint: ``state_dict`` (full or sharded state dicts of DDP/FSDP
models by plain names). Distributed checkpoint files (``save``, ``load``, the planners and
storage readers/writers) are not implemented: gather a full state dict and ``jtorch.save`` it
on rank 0."""

from ..._core.errors import not_implemented
from . import state_dict as state_dict

__all__ = ["state_dict"]


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise not_implemented(f"torch.distributed.checkpoint.{name}",
                          "torch.distributed.checkpoint.state_dict.get_model_state_dict("
                          "model, options=StateDictOptions(full_state_dict=True)) and "
                          "jtorch.save on rank 0")
