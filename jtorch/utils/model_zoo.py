"""torch.utils.model_zoo: PyTorch's old home of the checkpoint download, ``load_url``, which is
``torch.hub.load_state_dict_from_url`` (pytorch-fid and older torchvision code import it from
here); ``tqdm`` too, as PyTorch re-exports it, when tqdm is installed."""

from ..hub import load_state_dict_from_url as load_url

try:  # optional: PyTorch re-exports torch.hub's tqdm here
    from tqdm import tqdm  # noqa: F401
except ImportError:  # pragma: no cover
    pass

__all__ = ["load_url"]
