"""jtorch.device: PyTorch's device names mapped onto JAX devices.

``cpu[:i]`` is JAX's i-th CPU device (PyTorch ignores a CPU index; with
``XLA_FLAGS=--xla_force_host_platform_device_count=N`` JAX has N of them), ``cuda[:i]`` the
i-th GPU and ``tpu[:i]`` the i-th TPU.
"""

from __future__ import annotations

import functools

import jax

_PLATFORM = {"cpu": "cpu", "cuda": "gpu", "tpu": "tpu"}
_TYPES = ("cpu", "cuda", "tpu", "mps", "xla", "meta")


class device:
    """A device, as ``jtorch.device("cuda:0")`` or ``jtorch.device("cuda", 0)``."""

    __slots__ = ("type", "index")

    def __new__(cls, type_or_str, index=None):
        if isinstance(type_or_str, device):
            return type_or_str
        if isinstance(type_or_str, int):
            type_or_str, index = "cuda", type_or_str
        return _make(str(type_or_str), index)

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (str(self),))


@functools.cache
def _make(spec, index):
    name, _, idx = spec.partition(":")
    if name not in _TYPES:
        raise RuntimeError(
            "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, "
            f"maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start "
            f"of device string: {spec}")
    if idx:
        if index is not None:
            raise RuntimeError(f"type (string) must not include an index because index was "
                               f"passed explicitly: {spec}")
        if not idx.isdigit():
            raise RuntimeError(f"Invalid device string: '{spec}'")
        index = int(idx)
    if index is not None and index < 0:
        raise RuntimeError("Device index must not be negative")
    d = object.__new__(device)
    d.type, d.index = name, index
    return d


def jax_devices(kind: str):
    platform = _PLATFORM.get(kind)
    if platform is None:
        return []
    try:
        return jax.devices(platform)
    except RuntimeError:
        return []


@functools.cache
def to_jax(dev: device):
    """The jax.Device a jtorch device names (raising PyTorch's errors when there is none)."""
    devs = jax_devices(dev.type)
    if not devs:
        if dev.type == "cuda":
            raise AssertionError("Torch not compiled with CUDA enabled")
        raise RuntimeError(f"jtorch: no JAX device for '{dev}' on this machine")
    i = 0 if dev.index is None else dev.index
    if i >= len(devs):
        raise RuntimeError(
            "CUDA error: invalid device ordinal" if dev.type == "cuda"
            else f"jtorch: device '{dev}' does not exist ({len(devs)} {dev.type} devices)")
    return devs[i]


_KIND = {"cpu": "cpu", "gpu": "cuda", "tpu": "tpu"}


def from_jax(jdev) -> device:
    """The jtorch device of a jax.Device. CPU device 0 is plain ``cpu`` as in PyTorch."""
    kind = _KIND.get(jdev.platform, jdev.platform)
    if kind == "cpu":
        return _make("cpu", None) if jdev.id == 0 else _make("cpu", jdev.id)
    return _make(kind, jdev.id)


def default_device() -> device:
    return _make("cpu", None)
