"""torch.optim.swa_utils: not implemented yet (the names exist and say so)."""

from __future__ import annotations

__all__ = ["AveragedModel", "SWALR", "update_bn", "get_ema_multi_avg_fn",
           "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]


def _missing(name):
    def fail(*args, **kwargs):
        raise NotImplementedError(f"jtorch does not implement torch.optim.swa_utils.{name} yet")

    fail.__name__ = name
    return fail


AveragedModel = _missing("AveragedModel")
SWALR = _missing("SWALR")
update_bn = _missing("update_bn")
get_ema_multi_avg_fn = _missing("get_ema_multi_avg_fn")
get_swa_multi_avg_fn = _missing("get_swa_multi_avg_fn")
get_ema_avg_fn = _missing("get_ema_avg_fn")
get_swa_avg_fn = _missing("get_swa_avg_fn")
