"""torch.optim.swa_utils: not implemented yet (the names exist and say so)."""

from __future__ import annotations

from .._core.errors import missing_class, missing_function

__all__ = ["AveragedModel", "SWALR", "update_bn", "get_ema_multi_avg_fn",
           "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]


AveragedModel = missing_class("torch.optim.swa_utils.AveragedModel")
SWALR = missing_class("torch.optim.swa_utils.SWALR")
update_bn = missing_function("torch.optim.swa_utils.update_bn")
get_ema_multi_avg_fn = missing_function("torch.optim.swa_utils.get_ema_multi_avg_fn")
get_swa_multi_avg_fn = missing_function("torch.optim.swa_utils.get_swa_multi_avg_fn")
get_ema_avg_fn = missing_function("torch.optim.swa_utils.get_ema_avg_fn")
get_swa_avg_fn = missing_function("torch.optim.swa_utils.get_swa_avg_fn")
