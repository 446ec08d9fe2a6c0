"""torch.amp.GradScaler: dynamic loss scaling.

The state is arrays: the scale (float32, 0-d), the growth tracker (int32, 0-d) and, per
optimizer, a found-inf flag per device (float32, 0-d), held as jtorch Tensors so a compiled
step can lift them. ``unscale_`` is one jitted call per device over all of an optimizer's
gradients (divide by the scale, look for inf/NaN; no host sync), writing the unscaled
gradients back into ``p.grad``; ``update`` is one jitted call implementing PyTorch's
``_amp_update_scale_``.

``step`` must decide whether to run ``optimizer.step()``: eagerly that reads the found-inf
flag on the host (one sync per step, as PyTorch's ``step`` does with ``.item()``). When the
flag is a JAX tracer (inside a compiled step) the optimizer step runs anyway and every
parameter and pre-existing state tensor is then selected back with ``jnp.where(found_inf,
old, new)``, so nothing branches on a traced value.
"""

from __future__ import annotations

import warnings
from collections import abc, defaultdict
from enum import Enum

import jax
import jax.numpy as jnp

from .._core import dtypes
from .._core.device import jax_devices
from .._ops.creation import full
from .._tensor import Tensor
from ..optim._transforms import write

__all__ = ["OptState", "GradScaler"]


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


@jax.jit
def _unscale_kernel(grads, scale, found):
    """PyTorch's _amp_foreach_non_finite_check_and_unscale_: grads * (1/scale) (reciprocal
    taken in float64, rounded to float32), found set to 1 if any grad has an inf/NaN."""
    inv = (1.0 / scale.astype(jnp.float64)).astype(jnp.float32)
    bad = found != 0
    out = []
    for g in grads:
        ct = jnp.promote_types(g.dtype, jnp.float32)
        out.append((g.astype(ct) * inv.astype(ct)).astype(g.dtype))
        bad = bad | ~jnp.all(jnp.isfinite(g))
    return out, jnp.where(bad, jnp.float32(1), found).astype(jnp.float32)


@jax.jit
def _update_kernel(scale, tracker, found, growth_factor, backoff_factor, growth_interval):
    """PyTorch's _amp_update_scale_ (products in float64, stored as float32)."""
    s = scale.astype(jnp.float64)
    inf = found != 0
    successful = tracker + 1
    grow = successful == growth_interval
    grown = (s * growth_factor).astype(jnp.float32)
    backed = (s * backoff_factor).astype(jnp.float32)
    new_scale = jnp.where(inf, backed, jnp.where(grow & jnp.isfinite(grown), grown, scale))
    new_tracker = jnp.where(inf | grow, 0, successful).astype(jnp.int32)
    return new_scale, new_tracker


def _write(t, arr):
    write(t, arr)


def _is_traced(x):
    return isinstance(x, jax.core.Tracer)


class GradScaler:
    """``GradScaler(device="cuda", init_scale=2.**16, growth_factor=2.0, backoff_factor=0.5,
    growth_interval=2000, enabled=True)``: scales the loss, unscales the gradients, skips
    steps whose gradients have infs/NaNs and adapts the scale, as PyTorch's."""

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if self._device == "cuda":
            if enabled and not jax_devices("cuda"):
                warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not "
                              "available.  Disabling.", stacklevel=2)
                self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _check_scale_growth_tracker(self, funcname):
        fix = ("This may indicate your script did not use scaler.scale(loss or outputs) "
               "earlier in the iteration.")
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self, dev):
        if self._growth_tracker is not None:
            raise AssertionError("_growth_tracker initialized before _scale")
        self._scale = full((), self._init_scale, dtype=dtypes.float32, device=dev)
        self._growth_tracker = full((), self._init_growth_tracker, dtype=dtypes.int32, device=dev)

    def scale(self, outputs):
        """Multiplies a tensor or (nested) iterable of tensors by the scale factor."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            if self._scale is None:
                self._lazy_init_scale_growth_tracker(outputs.device)
            return outputs * self._scale.to(device=outputs.device)

        def apply_scale(val):
            if isinstance(val, Tensor):
                if self._scale is None:
                    self._lazy_init_scale_growth_tracker(val.device)
                return val * self._scale.to(device=val.device)
            if isinstance(val, abc.Iterable):
                it = map(apply_scale, val)
                return type(val)(it) if isinstance(val, (list, tuple)) else it
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply_scale(outputs)

    def _unscale_grads_(self, optimizer, inv_scale_of, allow_fp16):
        """Unscales the optimizer's grads (one jitted call per device); returns the found-inf
        flag per device. ``inv_scale_of`` is the scale tensor (None: check only)."""
        per_device = defaultdict(list)
        for group in optimizer.param_groups:
            for param in group["params"]:
                if not isinstance(param, Tensor):
                    raise AssertionError(f"expected param to be torch.Tensor, got "
                                         f"{type(param).__name__}")
                g = param.grad
                if g is None:
                    continue
                if not allow_fp16 and g.dtype == dtypes.float16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                per_device[g.device].append(g)
        found_per_device = {}
        for dev, grads in per_device.items():
            scale = jnp.float32(1) if inv_scale_of is None else inv_scale_of.to(device=dev)._value
            new, found = _unscale_kernel([g._value for g in grads], scale, jnp.float32(0))
            if inv_scale_of is not None:
                for g, v in zip(grads, new):
                    _write(g, v)
            found_per_device[dev] = Tensor._make(found, dev)
        return found_per_device

    def unscale_(self, optimizer):
        """Divides the optimizer's gradients by the scale (in place), recording whether any
        is inf/NaN. No host sync."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the "
                               "last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, self._scale, False)
        state["stage"] = OptState.UNSCALED

    def _maybe_opt_step(self, optimizer, state, *args, **kwargs):
        found = [f._value for f in state["found_inf_per_device"].values()]
        if any(_is_traced(f) for f in found):
            skip = found[0] != 0
            for f in found[1:]:
                skip = skip | (f != 0)
            return _masked_step(optimizer, skip, args, kwargs)
        if not sum(float(f) for f in found):   # the one host sync of an eager step
            return optimizer.step(*args, **kwargs)
        return None

    def step(self, optimizer, *args, **kwargs):
        """Unscales (unless ``unscale_`` ran) and runs ``optimizer.step()`` unless a gradient
        had an inf/NaN. Returns ``optimizer.step``'s return value (None when skipped)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is "
                               "enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = self._maybe_opt_step(optimizer, state, *args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None):
        """Backs the scale off if any step this iteration saw inf/NaN, grows it after
        ``growth_interval`` clean steps in a row, or sets it to ``new_scale``."""
        if not self._enabled:
            return
        _scale, _tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                _write(_scale, jnp.full((), new_scale, jnp.float32))
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                          "torch.FloatTensor with requires_grad=False.")
                if new_scale.device.type != self._device:
                    raise AssertionError(reason)
                if new_scale.numel() != 1:
                    raise AssertionError(reason)
                if new_scale.requires_grad is True:
                    raise AssertionError(reason)
                _write(_scale, jnp.reshape(new_scale._value, ()).astype(jnp.float32))
        else:
            found = [f for st in self._per_optimizer_states.values()
                     for f in st["found_inf_per_device"].values()]
            if len(found) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            total = found[0].to(device=_scale.device)._value
            for f in found[1:]:
                total = total + f.to(device=_scale.device)._value
            s, t = _update_kernel(_scale._value, _tracker._value, total,
                                  jnp.float64(self._growth_factor),
                                  jnp.float64(self._backoff_factor),
                                  jnp.int64(self._growth_interval))
            _write(_scale, s)
            _write(_tracker, t)
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _get_scale_async(self):
        return self._scale

    def get_scale(self):
        """The current scale as a Python float (1.0 when disabled). Syncs with the device."""
        if self._enabled:
            scale = self._get_scale_async()
            return self._init_scale if scale is None else float(scale.item())
        return 1.0

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if self._enabled:
            t = self._growth_tracker
            return self._init_growth_tracker if t is None else int(t.item())
        return 0

    def is_enabled(self):
        return self._enabled

    def state_dict(self):
        """scale, growth_factor, backoff_factor, growth_interval, _growth_tracker (empty when
        disabled), as PyTorch's."""
        if self._enabled:
            return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                    "backoff_factor": self._backoff_factor,
                    "growth_interval": self._growth_interval,
                    "_growth_tracker": self._get_growth_tracker()}
        return {}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            _write(self._scale, jnp.full((), state_dict["scale"], jnp.float32))
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            _write(self._growth_tracker, jnp.full((), state_dict["_growth_tracker"], jnp.int32))

    def __getstate__(self):
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise AssertionError("A GradScaler instance may only be pickled at the "
                                     "beginning of an iteration, or at the end after "
                                     "scaler.update().")
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)

    def _check_inf_per_device(self, optimizer):
        self._check_scale_growth_tracker("_check_inf_per_device")
        found = self._unscale_grads_(optimizer, None, True)
        self._per_optimizer_states[id(optimizer)]["found_inf_per_device"] = found
        return found

    def _found_inf_per_device(self, optimizer):
        return self._per_optimizer_states[id(optimizer)]["found_inf_per_device"]


def _masked_step(optimizer, skip, args, kwargs):
    """``optimizer.step()`` under a trace with a traced skip flag: run it, then select every
    parameter and pre-existing state tensor back to its old value where ``skip``."""
    params = [p for g in optimizer.param_groups for p in g["params"]]
    old_p = [p._value for p in params]
    old_s = [(t, t._value) for p in params for t in optimizer.state.get(p, {}).values()
             if isinstance(t, Tensor)]
    ret = optimizer.step(*args, **kwargs)
    for p, v in zip(params, old_p):
        _write(p, jnp.where(skip, v, p._value))
    for t, v in old_s:
        _write(t, jnp.where(skip, v, t._value))
    return ret
