"""``torch.utils.data.graph_settings``: settings applied across a DataPipe graph. jtorch has no
DataPipes (PyTorch deprecated them), so each raises NotImplementedError naming it when called
(the names exist: DataLoader re-implementations import them up front)."""

from ..._core.errors import not_implemented

__all__ = ["apply_random_seed", "apply_sharding", "apply_shuffle_seed", "apply_shuffle_settings",
           "get_all_graph_pipes"]


def _missing(name):
    def fn(*args, **kwargs):
        raise not_implemented(f"torch.utils.data.graph_settings.{name}")
    fn.__name__ = fn.__qualname__ = name
    return fn


apply_random_seed = _missing("apply_random_seed")
apply_sharding = _missing("apply_sharding")
apply_shuffle_seed = _missing("apply_shuffle_seed")
apply_shuffle_settings = _missing("apply_shuffle_settings")
get_all_graph_pipes = _missing("get_all_graph_pipes")
