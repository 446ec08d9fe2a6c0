"""Real torchvision 0.28 for the vision parity tests, and the weight/tensor plumbing.

torchvision's wheel is built against the CUDA torch and its C extension (``_C.so``) does not
load next to the CPU torch 2.13 the tests use; torchvision then still imports, except for two
modules that register fake/autograd kernels for the C++ operators (``nms``, ``roi_align``...)
and fail with "operator torchvision::nms does not exist". ``torchvision()`` stands empty
modules in for those two before the first import: the pure-Python models, transforms, utils and
datasets are then torchvision's own code running on torch 2.13 CPU (the C++ detection operators
stay unavailable, and no test uses them). Where the extension does load, the stand-ins only skip
registrations that no test needs.
"""

from __future__ import annotations

import importlib
import sys
import types

import numpy as np
import torch

import jtorch

_C_OP_REGISTRATIONS = ("torchvision._meta_registrations", "torchvision._autograd_registrations")


def torchvision():
    """The ``torchvision`` module (pure-Python parts; see the module docstring)."""
    if "torchvision" not in sys.modules:
        for name in _C_OP_REGISTRATIONS:
            sys.modules.setdefault(name, types.ModuleType(name))
    return importlib.import_module("torchvision")


def to_jtorch(t, requires_grad=False):
    """A torch tensor's values as a jtorch tensor."""
    out = jtorch.tensor(t.detach().cpu().numpy())
    return out.requires_grad_() if requires_grad else out


def to_np(t):
    return t.detach().cpu().numpy() if isinstance(t, torch.Tensor) else t.detach().numpy()


def copy_weights(tv_model, jt_model):
    """torchvision's state_dict into the jtorch model with ``strict=True`` (the keys match)."""
    result = jt_model.load_state_dict({k: to_jtorch(v) for k, v in tv_model.state_dict().items()},
                                      strict=True)
    assert not result.missing_keys and not result.unexpected_keys
    return jt_model


def dropouts_off(model, dropout_types):
    """Train mode with the random layers (dropout, stochastic depth) in eval mode: the
    batch-norm statistics still follow the batch, and the outputs are deterministic."""
    model.train()
    for m in model.modules():
        if isinstance(m, dropout_types):
            m.eval()
    return model


def assert_close(jt, ref, rtol=1e-4, atol=1e-5):
    """Close values; ``atol`` is relative to the reference's largest magnitude (at least 1): a
    deep float32 network's rounding scales with its outputs."""
    ref = to_np(ref)
    scale = max(1.0, float(np.abs(ref).max())) if ref.size else 1.0
    np.testing.assert_allclose(to_np(jt), ref, rtol=rtol, atol=atol * scale)
