"""torch.optim: optimizers whose arithmetic is optax transformations (one jitted program per
parameter group and step), and learning-rate schedulers."""

import sys
import types

from .._core.errors import missing_function, torch_name_fallback
from . import lr_scheduler, swa_utils  # noqa: F401
from .adafactor import Adafactor
from .adam import Adam, Adamax, AdamW, NAdam, RAdam, SparseAdam
from .adaptive import Adadelta, Adagrad, RMSprop, Rprop
from .lbfgs import LBFGS
from .muon import Muon
from .optimizer import (
    Optimizer,
    register_optimizer_step_post_hook,
    register_optimizer_step_pre_hook,
)
from .sgd import ASGD, SGD

__all__ = ["ASGD", "LBFGS", "SGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax",
           "Muon", "NAdam", "Optimizer", "RAdam", "RMSprop", "Rprop", "SparseAdam", "lr_scheduler",
           "register_optimizer_step_post_hook", "register_optimizer_step_pre_hook", "swa_utils"]

# PyTorch's one-file-per-optimizer submodules (``from torch.optim.adadelta import Adadelta``,
# as sbi imports them) where jtorch groups several classes in one file: each holds its class
# (the same object as ``torch.optim.<Class>``) and ``Optimizer``; its functional form
# (``torch.optim.adadelta.adadelta``) raises NotImplementedError naming it
for _sub, _cls in (("adadelta", Adadelta), ("adagrad", Adagrad), ("adamax", Adamax),
                   ("adamw", AdamW), ("asgd", ASGD), ("nadam", NAdam), ("radam", RAdam),
                   ("rmsprop", RMSprop), ("rprop", Rprop), ("sparse_adam", SparseAdam)):
    _module = types.ModuleType(f"{__name__}.{_sub}", f"torch.optim.{_sub}: {_cls.__name__}.")
    _module.__dict__.update({_cls.__name__: _cls, "Optimizer": Optimizer,
                             _sub: missing_function(f"torch.optim.{_sub}.{_sub}")})
    globals()[_sub] = sys.modules.setdefault(_module.__name__, _module)
del _sub, _cls, _module

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.optim")
