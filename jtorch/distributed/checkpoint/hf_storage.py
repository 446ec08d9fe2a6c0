"""torch.distributed.checkpoint.hf_storage: the Hugging Face safetensors reader and writer of
distributed checkpoints. jtorch does not implement distributed checkpoint files, so these are
stand-ins (importable, and making one raises NotImplementedError): gather a full state dict
(``torch.distributed.checkpoint.state_dict``) and save it on rank 0."""

from ..._core.errors import missing_class

__all__ = ["HuggingFaceStorageReader", "HuggingFaceStorageWriter"]

_INSTEAD = "a full state dict (torch.distributed.checkpoint.state_dict) saved on rank 0"
HuggingFaceStorageReader = missing_class(
    "torch.distributed.checkpoint.hf_storage.HuggingFaceStorageReader", _INSTEAD)
HuggingFaceStorageWriter = missing_class(
    "torch.distributed.checkpoint.hf_storage.HuggingFaceStorageWriter", _INSTEAD)
