"""jtorch.device: PyTorch's device names mapped onto JAX devices.

``cuda[:i]`` is the process's i-th GPU (``jax.local_devices()``: under ``jax.distributed``
another process's devices are not this process's ``cuda:i``). Two jtorch extensions:
``tpu[:i]`` is the i-th TPU, and ``cpu:i`` is JAX's i-th host device (PyTorch accepts and
ignores a CPU index; with
``XLA_FLAGS=--xla_force_host_platform_device_count=N`` JAX has N host devices, and jtorch
places tensors on them). Plain ``cpu`` is host device 0.
"""

from __future__ import annotations

import functools

import jax

from .state import STATE

_PLATFORM = {"cpu": "cpu", "cuda": "gpu", "tpu": "tpu"}

# c10's DeviceType numbering (it shows in hash(device)); "tpu" is jtorch's own
_TYPE_IDS = {"cpu": 0, "cuda": 1, "mkldnn": 2, "opengl": 3, "opencl": 4, "ideep": 5, "hip": 6,
             "fpga": 7, "maia": 8, "xla": 9, "vulkan": 10, "xpu": 12, "mps": 13, "meta": 14,
             "hpu": 15, "ve": 16, "lazy": 17, "ipu": 18, "mtia": 19, "privateuseone": 20,
             "tpu": 64}

_TYPE_ERROR = ("Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, "
               "fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type "
               "at start of device string: ")

_NO_ACCELERATOR = "Cannot access accelerator device when none is available."


class device:
    """A device: ``jtorch.device("cuda:0")``, ``jtorch.device("cuda", 0)``,
    ``jtorch.device(type="cpu")``; an int means the accelerator's device of that index."""

    __slots__ = ("type", "index")

    def __new__(cls, *args, **kwargs):
        if len(args) == 1 and not kwargs and isinstance(args[0], device):
            return args[0]
        if "device" in kwargs and not args and len(kwargs) == 1:
            return device(kwargs["device"])
        return _parse_args(args, kwargs)

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __hash__(self):
        idx = -1 if self.index is None else self.index
        return (_TYPE_IDS[self.type] << 16) | (idx & 0xFF)

    def __reduce__(self):
        return (device, (self.type,) if self.index is None else (self.type, self.index))

    def __enter__(self):
        """``with torch.device(d):`` factories without a ``device=`` put tensors on ``d``."""
        STATE.device_blocks = STATE.device_blocks + (self,)
        return self

    def __exit__(self, *exc):
        STATE.device_blocks = STATE.device_blocks[:-1]
        return False


def _invalid_args(args):
    got = ", ".join(type(a).__name__ for a in args)
    marks = ", ".join(f"!{type(a).__name__}!" for a in args)
    return TypeError(
        f"device() received an invalid combination of arguments - got ({got}), but expected "
        f"one of:\n * (torch.device device)\n      didn't match because some of the arguments "
        f"have invalid types: ({marks})\n * (str type, int index = -1)\n")


def _parse_args(args, kwargs):
    if len(args) > 2 or set(kwargs) - {"type", "index"}:
        raise _invalid_args(args)
    spec = args[0] if args else kwargs.get("type")
    index = args[1] if len(args) > 1 else kwargs.get("index")
    if type(spec) is int and index is None and "type" not in kwargs:
        return accelerator(spec)
    if not isinstance(spec, str):
        if index is None:
            raise _invalid_args(args or (spec,))
        raise TypeError(f"device(): argument 'type' (position 1) must be str, not "
                        f"{_type_name(spec)}")
    if index is not None and type(index) is not int:
        raise TypeError(f"device(): argument 'index' (position 2) must be int, not "
                        f"{type(index).__name__}")
    return _make(spec, index)


def _type_name(x):
    return "torch.device" if isinstance(x, device) else type(x).__name__


def _split(spec):
    """c10's device-string grammar: name ``[A-Za-z_]+``, then optionally ``:`` and an index
    of digits without a leading zero."""
    if not spec:
        raise RuntimeError("Device string must not be empty")
    name, sep, idx = spec.partition(":")
    ok = (bool(name) and all(c.isascii() and (c.isalpha() or c == "_") for c in name)
          and (not sep or (idx.isascii() and idx.isdigit() and (idx == "0" or idx[0] != "0"))))
    if not ok:
        raise RuntimeError(f"Invalid device string: '{spec}'")
    if sep and int(idx) > 2**31 - 1:
        raise RuntimeError(f"Could not parse device index '{idx}' in device string '{spec}'")
    return name, (int(idx) if sep else None)


@functools.cache
def _make(spec, index=None):
    name, idx = _split(spec)
    if name not in _TYPE_IDS:
        raise RuntimeError(_TYPE_ERROR + name)
    if idx is not None:
        if index is not None:
            raise RuntimeError(f"type (string) must not include an index because index was "
                               f"passed explicitly: {spec}")
        index = idx
    if index is not None and index < 0:
        raise RuntimeError("Device index must not be negative")
    d = object.__new__(device)
    d.type, d.index = name, index
    return d


def accelerator(index):
    """``device(i)``: the i-th device of the machine's accelerator (GPU, else TPU)."""
    if index < 0:
        raise RuntimeError("Device index must not be negative")
    for kind in ("cuda", "tpu"):
        if jax_devices(kind):
            return _make(kind, index)
    raise RuntimeError(_NO_ACCELERATOR)


def jax_devices(kind: str):
    """This process's JAX devices of ``kind`` (its local devices: in a multi-process run
    ``jax.devices()`` also lists the other processes' devices)."""
    platform = _PLATFORM.get(kind)
    if platform is None:
        return []
    try:
        return jax.local_devices(backend=platform)
    except RuntimeError:
        return []


# the current CUDA device index (torch.cuda.set_device / torch.cuda.device set it)
CURRENT_CUDA = [0]


def to_jax(dev: device):
    """The jax.Device a jtorch device names (raising PyTorch's errors when there is none);
    ``cuda`` without an index is the current CUDA device."""
    if dev.type == "cuda" and dev.index is None:
        dev = _make("cuda", CURRENT_CUDA[0])
    return _to_jax(dev)


@functools.cache
def _to_jax(dev: device):
    devs = jax_devices(dev.type)
    if not devs:
        if dev.type == "cuda":
            raise AssertionError("Torch not compiled with CUDA enabled")
        if dev.type == "xpu":
            raise AssertionError("Torch not compiled with XPU enabled")
        if dev.type == "lazy":
            raise NotImplementedError(f"jtorch does not implement the '{dev.type}' device yet")
        if dev.type == "meta":   # (what reaches here wanted data on it: not implemented)
            raise NotImplementedError("jtorch does not implement putting data on the 'meta' "
                                      "device (it holds shapes and dtypes only)")
        if dev.type == "tpu":
            raise RuntimeError("jtorch: no TPU device on this machine")
        raise RuntimeError(f"PyTorch is not linked with support for {dev.type} devices")
    i = 0 if dev.index is None else dev.index
    if i >= len(devs):
        if dev.type == "cuda":
            raise RuntimeError("CUDA error: invalid device ordinal")
        raise RuntimeError(f"jtorch: device '{dev}' does not exist (this machine has "
                           f"{len(devs)} {dev.type} devices)")
    return devs[i]


def forget_jax_devices():
    """Drops the jax.Devices cached above, after JAX's backends were restarted (a query of the
    accelerator, then jtorch.distributed.init_process_group)."""
    _to_jax.cache_clear()
    _local_index.cache_clear()
    host_commit.cache_clear()


@functools.cache
def host_commit():
    """The host's jax.Device (cpu:0) when JAX's default device is another one (a GPU or TPU
    machine, or ``jax_default_device`` set), else None: there an array made without a device
    is already on the host."""
    host = _to_jax(_make("cpu"))
    default = jax.config.jax_default_device or jax.local_devices()[0]
    if isinstance(default, str):   # (the option also takes a platform name)
        default = jax.local_devices(backend=default)[0]
    return None if default == host else host


def to_host(arr):
    """``arr`` (a NumPy or concrete JAX array) as the array of a tensor that reports plain
    ``cpu``. On a machine whose default JAX device is the host, NumPy data is put there
    uncommitted (as ``jax.device_put(arr)``; a JAX array is returned as it is). Where the
    default is a GPU or TPU, the array is committed to the host instead: made without a
    device, it would live on the accelerator while its tensor reports ``cpu``, and the ops on
    it would run there. Tracers, and arrays spread over several devices (a sharded tensor's),
    are returned as they are."""
    host = host_commit()
    if host is None:
        return arr if isinstance(arr, jax.Array) else jax.device_put(arr)
    if isinstance(arr, jax.Array):
        if isinstance(arr, jax.core.Tracer):
            return arr
        devices = arr.devices()
        if len(devices) > 1 or (arr.committed and host in devices):   # (spread over several
            return arr   # devices: a sharded tensor's, placed on purpose)
    with jax.ensure_compile_time_eval():   # (concrete data stays concrete under a trace)
        return jax.device_put(arr, host)


_KIND = {"cpu": "cpu", "gpu": "cuda", "tpu": "tpu"}


def from_jax(jdev) -> device:
    """The jtorch device of a jax.Device. Host device 0 is plain ``cpu`` as in PyTorch."""
    kind = _KIND.get(jdev.platform, jdev.platform)
    index = _local_index(jdev)
    if kind == "cpu":
        return _make("cpu") if index == 0 else _make("cpu", index)
    return _make(kind, index)


def of_array(arr, default=None):
    """The jtorch device holding a concrete single-device jax.Array; ``default`` for a tracer
    (no device yet) or an array spread over several devices."""
    if is_concrete_array(arr):
        devs = arr.devices()
        if len(devs) == 1:
            return from_jax(next(iter(devs)))
    return default


def committed_device(*parts):
    """The jax.Device of the first array in ``parts`` committed to one device, or None: where
    a jitted program runs, and where its outputs are committed (when any argument is)."""
    return next((next(iter(a.devices())) for part in parts
                 for a in jax.tree_util.tree_leaves(part)
                 if is_concrete_array(a) and a.committed and len(a.devices()) == 1), None)


def commit_to(device, *parts):
    """``parts`` (lists of arrays a jitted program takes and gives back for its next call:
    state, gradients) placed as the program's outputs will be. Outputs are committed to the
    program's device when any argument is (``device``: :func:`committed_device` of them all),
    and JAX compiles again for committed arguments that were uncommitted (made without a
    device: a fresh optimizer's step count, zeros). So the uncommitted arrays of ``parts`` are
    committed to ``device`` (where JAX would move them anyway): the second call runs the
    first call's program. Parts with nothing uncommitted (every call after the first) are
    returned as they are."""
    if device is None:
        return parts
    out = []
    for part in parts:
        leaves, tree = jax.tree_util.tree_flatten(part)
        if any(is_concrete_array(a) and not a.committed for a in leaves):
            part = jax.tree_util.tree_unflatten(tree, [
                jax.device_put(a, device) if is_concrete_array(a) and not a.committed else a
                for a in leaves])
        out.append(part)
    return tuple(out)


def placed_on(a, target):
    """``a`` moved onto the jax.Device ``target`` when it is a concrete array committed to
    another device (a generator key that a program elsewhere gave back), else ``a`` itself."""
    if is_concrete_array(a) and a.committed and a.devices() != {target}:
        return jax.device_put(a, target)
    return a


def is_concrete_array(a):
    """Whether ``a`` is a jax.Array with values (not a tracer)."""
    return isinstance(a, jax.Array) and not isinstance(a, jax.core.Tracer)


@functools.cache
def _local_index(jdev):
    """``jdev``'s index among this process's devices of its platform (its id in a single
    process; another process's device keeps its global id)."""
    local = jax_devices(_KIND.get(jdev.platform, jdev.platform))
    return local.index(jdev) if jdev in local else jdev.id


def canonical(dev: device) -> device:
    """The device a tensor placed on ``dev`` reports: ``cpu:0`` is ``cpu``, ``cuda`` is
    ``cuda:<index>``; ``meta`` (no JAX device: shapes only) is itself."""
    if dev.type == "meta":
        return dev
    return from_jax(to_jax(dev))


def host_cpu() -> device:
    """Plain ``cpu``: the device of a tensor made without one (not the factories' default)."""
    return _make("cpu")


def default_device() -> device:
    """Where factories put a tensor without ``device=``: the innermost ``with torch.device``
    block, else ``torch.set_default_device``'s device, else the CPU."""
    blocks = STATE.device_blocks
    if blocks:
        return blocks[-1]
    dev = STATE.default_device
    return _make("cpu") if dev is None else dev


def set_default_device(dev):
    """``torch.set_default_device``: the device factories use when none is given, for this
    thread (as PyTorch's); None restores the CPU.

    Args:
        dev (device or str or int): the new default device, or None.
    """
    STATE.default_device = None if dev is None else device(dev)


def get_default_device() -> device:
    """``torch.get_default_device``: the factories' device, with its index (the current one
    where none was given, as PyTorch's)."""
    dev = default_device()
    return dev if dev.index is not None else canonical(dev)


def device_of(arr) -> device:
    """The jtorch device holding a concrete jax array (the CPU for a tracer)."""
    try:
        return from_jax(next(iter(arr.devices())))
    except (AttributeError, jax.errors.ConcretizationTypeError):
        return _make("cpu")
