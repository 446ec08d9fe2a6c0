"""``torch.save`` / ``torch.load`` in PyTorch's own checkpoint format.

Format (what ``torch.save`` writes since 1.6): an uncompressed zip archive with one folder,
holding ``data.pkl`` (the object, pickled with protocol 2, each tensor written as
``torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks)`` and
each storage as a persistent id ``('storage', torch.FloatStorage, key, location, numel)``),
``data/<key>`` (the raw little-endian bytes of each storage, 64-byte aligned), ``byteorder``,
``version``, ``.format_version``, ``.storage_alignment`` and ``.data/serialization_id``.

Tensors that share memory in jtorch (a view and its base, or several views of one base) are
written with ONE storage, as PyTorch does, and load back sharing it (views of one base).
``save`` writes to a temporary file in the target's directory and renames it over the target,
so a crash never leaves a truncated checkpoint in place of a good one. ``load`` also reads
PyTorch's legacy (pre-1.6, non-zip) format.
"""

from __future__ import annotations

import collections
import contextlib
import copyreg
import io
import mmap as _mmap
import os
import pickle
import struct
import sys
import tempfile
import warnings
import zipfile
from collections.abc import Callable
from typing import IO

import numpy as np

from . import cuda
from ._core import dtypes
from ._core.device import device, to_host
from ._core.state import STATE, swapped
from ._core.tensor_base import Size
from ._ops.tensor_storage import UntypedStorage
from ._ops.typed_storage import TypedStorage
from ._tensor import Tensor, rebuilt_from_type, set_obj_state
from ._weights_only import (
    STORAGE_NAMES,
    StorageType,
    TorchUnpickler,
    WeightsOnlyUnpickler,
    add_safe_globals,  # noqa: F401 - re-exported as torch.serialization.add_safe_globals
    clear_safe_globals,  # noqa: F401
    get_safe_globals,  # noqa: F401
    register_rebuilders,
    safe_globals,  # noqa: F401
    weights_only_error,
)
from .autograd import no_grad
from .nn.parameter import Parameter

DEFAULT_PROTOCOL = 2
# PyTorch's type aliases of the arguments of save/load (pyro's param store annotates with them)
FileLike = str | os.PathLike | IO[bytes]
MAP_LOCATION = (Callable[[UntypedStorage, str], UntypedStorage] | device | str | dict[str, str]
                | None)
_ALIGN = 64
_LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
_LEGACY_PROTOCOL = 1001


# ============================================================================ save
class _Global:
    """A name in PyTorch's namespace, pickled as ``GLOBAL 'module name'``."""

    _cache: dict = {}

    def __new__(cls, module, name):
        key = (module, name)
        g = cls._cache.get(key)
        if g is None:
            g = cls._cache[key] = object.__new__(cls)
            g.module, g.name = module, name
        return g


class _StorageRef:
    def __init__(self, key, array, location):
        self.key, self.array, self.location = key, array, location
        self.dtype = None   # the dtype it is saved as (tensors: the owner's)


class _Pickler(pickle._Pickler):
    """A pickler that writes jtorch tensors, dtypes, sizes and devices under PyTorch's names."""

    dispatch = pickle._Pickler.dispatch.copy()

    def __init__(self, file, protocol):
        super().__init__(file, protocol)
        self.storages = {}  # id(root tensor) -> _StorageRef

    def _save_global_ref(self, g):
        if id(g) in self.memo:
            self.write(self.get(self.memo[id(g)][0]))
            return
        self.write(pickle.GLOBAL + f"{g.module}\n{g.name}\n".encode())
        self.memoize(g)

    def _save_dtype(self, d):
        self._save_global_ref(_Global("torch", d.name))

    dispatch[_Global] = _save_global_ref
    dispatch[dtypes.dtype] = _save_dtype
    dispatch[type(dtypes.complex32)] = _save_dtype   # a dtype jtorch names but cannot hold

    def persistent_id(self, obj):
        if isinstance(obj, _StorageRef):
            name = STORAGE_NAMES.get(str(obj.array.dtype) if obj.array.dtype != np.bool_
                                     else "bool")
            self._check_one_dtype(obj, dtypes.from_np(obj.array.dtype))
            if name is None:   # bytes, as PyTorch saves the dtypes without a storage class
                return ("storage", _Global("torch.storage", "UntypedStorage"), obj.key,
                        obj.location, obj.array.nbytes)
            return ("storage", _Global("torch", name), obj.key, obj.location, obj.array.size)
        if isinstance(obj, (TypedStorage, UntypedStorage)):
            return self._storage_id(obj)
        return None

    def _storage_id(self, obj):
        """A storage saved by itself (``torch.save(t.storage())``): its owner's bytes, named
        by its legacy class (a TypedStorage) or as ``UntypedStorage``, as PyTorch writes it."""
        typed = isinstance(obj, TypedStorage)
        untyped = obj._untyped_storage if typed else obj
        ref = self._storage(untyped._owner)
        if typed:
            stype = _Global("torch", obj._pickle_storage_type())
            numel, dt = obj._size(), obj.dtype
        else:
            stype = _Global("torch.storage", "UntypedStorage")
            numel, dt = untyped.nbytes(), dtypes.uint8
        self._check_one_dtype(ref, dt)
        return ("storage", stype, ref.key, ref.location, numel)

    @staticmethod
    def _check_one_dtype(ref, dt):
        if ref.dtype is None:
            ref.dtype = dt
        elif ref.dtype is not dt:
            raise RuntimeError("Cannot save multiple tensors or storages that view the same "
                               "data as different types")

    def _storage(self, t):
        if t._sparse is not None:
            raise NotImplementedError("jtorch does not implement saving sparse tensors yet; "
                                      "save .to_dense() or the indices and values")
        root = t if t._base is None else t._base
        ref = self.storages.get(id(root))
        if ref is None:
            arr = np.asarray(root._value).reshape(-1)
            dev = root._device
            loc = "cpu" if dev.type == "cpu" else str(dev)
            ref = self.storages[id(root)] = _StorageRef(str(len(self.storages)), arr, loc)
            ref.root = root  # keep it alive so ids stay unique
        return ref

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            if not getattr(type(obj).__reduce_ex__, "__module__", "").startswith("jtorch."):
                # a subclass's own __reduce_ex__ (geoopt's ManifoldTensor), as PyTorch calls
                # it; the tensor's __reduce_ex__ it calls in turn comes back to reduce_tensor.
                # Only there: a plain pickle.dumps run inside torch.save (e3nn's
                # CodeGenMixin.__getstate__) pickles its tensors as plain pickle does.
                with swapped(STATE, "saving", self):
                    return obj.__reduce_ex__(self.proto)
            return self.reduce_tensor(obj)
        if isinstance(obj, Size):
            return _Global("torch", "Size"), (tuple(obj),)
        if isinstance(obj, device):
            args = (obj.type,) if obj.index is None else (obj.type, obj.index)
            return _Global("torch", "device"), args
        return NotImplemented

    def reduce_tensor(self, obj):
        """PyTorch's ``__reduce_ex__`` of a tensor or Parameter inside ``torch.save``: its
        rebuild function and arguments, the storage by reference."""
        if obj.dtype.is_complex and obj._base is not None:
            obj = obj.detach().clone()  # complex views are copies in jtorch
        state = obj.__getstate__()
        if isinstance(obj, Parameter):
            args = (obj.detach(), obj.requires_grad, collections.OrderedDict())
            if state:
                return _Global("torch._utils", "_rebuild_parameter_with_state"), (
                    *args, state)
            return _Global("torch._utils", "_rebuild_parameter"), args
        ref = self._storage(obj)
        args = (ref, obj.storage_offset(), tuple(obj.shape), tuple(obj.stride()),
                obj.requires_grad, collections.OrderedDict())
        if obj.dtype.name not in STORAGE_NAMES:
            func, args = _Global("torch._utils", "_rebuild_tensor_v3"), args + (obj.dtype,)
        else:
            func = _Global("torch._utils", "_rebuild_tensor_v2")
        if type(obj) is Tensor and not state:
            return func, args
        # a subclass instance or a tensor with attributes, as PyTorch's __reduce_ex__
        cls = _Global("torch", "Tensor") if type(obj) is Tensor else type(obj)
        return _Global("torch._tensor", "_rebuild_from_type_v2"), (func, cls, args, state)

    def save_reduce(self, func, args, *a, obj=None, **kw):
        # a reduce whose callable is a _Global: write it, then the args and REDUCE
        if isinstance(func, _Global):
            self.save(func)
            self.save(args)
            self.write(pickle.REDUCE)
            if obj is not None:
                self.memoize(obj)
            return
        super().save_reduce(func, args, *a, obj=obj, **kw)


def _aligned_extra(offset, name):
    """A zip 'FB' extra field padding the record so its data starts on a 64-byte boundary."""
    start = offset + 30 + len(name) + 4
    pad = (-start) % _ALIGN
    return struct.pack("<HH", 0x4246, pad) + b"Z" * pad


def _write_zip(fileobj, prefix, pkl, storages):
    with zipfile.ZipFile(fileobj, "w", zipfile.ZIP_STORED, allowZip64=True) as z:
        def record(name, data):
            full = f"{prefix}/{name}"
            info = zipfile.ZipInfo(full, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED
            # zipfile's own position: a write-only stream (a member of another zip archive,
            # as stable-baselines3 saves into) cannot tell, and zipfile counts for it
            info.extra = _aligned_extra(z.fp.tell(), full.encode())
            z.writestr(info, data)

        record("data.pkl", pkl)
        record(".format_version", b"1")
        record(".storage_alignment", str(_ALIGN).encode())
        record("byteorder", sys.byteorder.encode())
        for ref in storages:
            a = ref.array
            record(f"data/{ref.key}", a.astype(a.dtype.newbyteorder("<")).tobytes())
        record("version", b"3\n")
        record(".data/serialization_id", str(abs(hash(pkl)) % 10**40).zfill(40).encode())


class _ModulePickler(_Pickler):
    """:class:`_Pickler` for ``save(..., pickle_module=m)``: what it does not write itself
    (tensors, sizes, devices, dtypes) it reduces as ``m.Pickler`` would, through that
    pickler's ``reducer_override`` and ``dispatch_table`` (cloudpickle's functions and classes
    by value, as fastai's ``Learner.export`` saves), PyTorch's ``m.Pickler`` pickling."""

    def __init__(self, file, protocol, pickle_module):
        super().__init__(file, protocol)
        self._helper = pickle_module.Pickler(io.BytesIO(), protocol)
        self.dispatch_table = getattr(self._helper, "dispatch_table", copyreg.dispatch_table)
        self._helper_reduce = getattr(self._helper, "reducer_override", None)

    def reducer_override(self, obj):
        rv = super().reducer_override(obj)
        if rv is NotImplemented and self._helper_reduce is not None:
            rv = self._helper_reduce(obj)
        return rv


def save(obj, f, pickle_module=None, pickle_protocol=DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization=True, _disable_byteorder_record=False):
    """Save ``obj`` to ``f`` (a path or a writable binary file) in PyTorch's format."""
    custom = pickle_module is not None and pickle_module is not pickle
    if custom and not hasattr(pickle_module, "Pickler"):
        raise NotImplementedError("jtorch.save supports a pickle_module with a Pickler class "
                                  "(pickle, cloudpickle, dill) only")
    if not _use_new_zipfile_serialization:
        raise NotImplementedError(
            "jtorch.save writes only the zip format (_use_new_zipfile_serialization=True); "
            "the legacy format can be loaded but not written")
    buf = io.BytesIO()
    p = (_ModulePickler(buf, pickle_protocol, pickle_module) if custom
         else _Pickler(buf, pickle_protocol))
    p.dump(obj)
    pkl = buf.getvalue()
    storages = list(p.storages.values())
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        prefix = os.path.splitext(os.path.basename(path))[0] or "archive"
        with atomic_file(path) as out:
            _write_zip(out, prefix, pkl, storages)
    else:
        _write_zip(_FromHere.wrap(f), "archive", pkl, storages)


class _FromHere:
    """A seekable file seen from its current position, as PyTorch's writer sees it: the
    archive's offsets count from where it starts, so that one written mid-stream loads from
    there. A stream that cannot tell (a member of another zip archive, as stable-baselines3
    saves into) is left to zipfile, which counts its bytes itself."""

    def __init__(self, f, start):
        self.f, self.start = f, start

    @classmethod
    def wrap(cls, f):
        try:
            start = f.tell()
        except (AttributeError, OSError):
            return f
        return cls(f, start) if start else f

    def tell(self):
        return self.f.tell() - self.start

    def seek(self, offset, whence=os.SEEK_SET):
        return self.f.seek(offset + self.start if whence == os.SEEK_SET else offset,
                           whence) - self.start

    def __getattr__(self, name):
        return getattr(self.f, name)


@contextlib.contextmanager
def atomic_file(path):
    """A new binary file that takes the place of ``path`` only once it is fully written and
    synced: written in the same directory under a temporary name, then renamed over ``path``
    (removed instead if the writing fails)."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tmp-" + os.path.basename(path), dir=directory)
    try:
        with os.fdopen(fd, "wb") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


# ============================================================================ load rebuilders
class _Loaded:
    """One storage read from a checkpoint: a flat NumPy array and its target device."""

    def __init__(self, array, device):
        self.array, self.device = array, device
        self.owner = None  # the jtorch tensor holding the whole storage, once one exists


def _loading_storage(loaded, dtype):
    """What a checkpoint's storage id loads as: PyTorch's TypedStorage of ``dtype`` (the
    dtype its id names), over ``loaded`` until the load ends (the rebuilders read
    ``_loading``), then over its owner's storage (``_finish_storages``)."""
    ts = TypedStorage.__new__(TypedStorage, _internal=True)
    ts.dtype, ts._loading = dtype, loaded
    return ts


def _finish_storages(storages):
    """At the end of a load: each storage a checkpoint named becomes a TypedStorage over the
    storage of its owner (the tensor rebuilt over all of it, else a new 1-d tensor)."""
    for ts in storages:
        loaded = ts.__dict__.pop("_loading")
        if loaded.owner is None:
            loaded.owner = _to_jtorch(loaded.array, loaded.device)
        ts._untyped_storage = loaded.owner.untyped_storage()


def _loaded(storage):
    """The ``_Loaded`` behind a rebuilder's storage argument."""
    return storage._loading if isinstance(storage, TypedStorage) else storage


def _to_jtorch(arr, target):
    t = Tensor._make(to_host(arr))   # (not through a GPU on a GPU machine)
    return t if target is None or str(target) == "cpu" else t.to(target)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False,
                       backward_hooks=None, metadata=None):
    storage = _loaded(storage)
    size, stride = tuple(size), tuple(stride)
    n = int(np.prod(size)) if size else 1
    contiguous = stride == tuple(int(np.prod(size[i + 1:])) for i in range(len(size)))
    if storage.owner is None and storage_offset == 0 and contiguous \
            and n == storage.array.size:
        t = storage.owner = _to_jtorch(storage.array.reshape(size), storage.device)
    else:
        if storage.owner is None:
            storage.owner = _to_jtorch(storage.array, storage.device)
        with no_grad():
            t = storage.owner.as_strided(size, stride, storage_offset)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       dtype, metadata=None):
    """A tensor of ``dtype`` over an untyped (byte) storage; offset and strides count elements
    of ``dtype``."""
    storage = _loaded(storage)
    if storage.array.dtype != dtype.np:
        if storage.owner is not None:   # the bytes already back a tensor of another dtype
            storage = _Loaded(storage.array, storage.device)
        storage.array = storage.array.view(dtype.np)
    return _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad)


def _rebuild_tensor(storage, storage_offset, size, stride):
    return _rebuild_tensor_v2(storage, storage_offset, size, stride)


def _rebuild_parameter(data, requires_grad, backward_hooks=None):
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    return set_obj_state(_rebuild_parameter(data, requires_grad), state)


def _rebuild_from_type_v2(func, new_type, args, state):
    return rebuilt_from_type(func(*args), new_type, state)


register_rebuilders({
    "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
    "torch._utils._rebuild_tensor_v3": _rebuild_tensor_v3,
    "torch._utils._rebuild_tensor": _rebuild_tensor,
    "torch._utils._rebuild_parameter": _rebuild_parameter,
    "torch._utils._rebuild_parameter_with_state": _rebuild_parameter_with_state,
    "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2,
})


# ============================================================================ load
def _location_device(location, map_location):
    """Where a storage saved at ``location`` goes (``None``: the CPU)."""
    if isinstance(map_location, dict):
        location = map_location.get(location, location)
    elif map_location is not None and not callable(map_location):
        return device(map_location) if isinstance(map_location, str) else map_location
    if location.startswith("cuda") and not cuda.is_available():
        raise RuntimeError(
            "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() "
            "is False. If you are running on a CPU-only machine, please use torch.load with "
            "map_location=torch.device('cpu') to map your storages to the CPU.")
    return None if location == "cpu" else device(location)


def _make_storage(array, location, map_location):
    if callable(map_location) and not isinstance(map_location, dict):
        # PyTorch's rule: the callable gets the storage on the CPU and its location tag;
        # returning None means the default placement
        res = map_location(_to_jtorch(array, None), location)
        if res is not None:
            return _Loaded(np.asarray(res.detach().cpu()._value), res.device)
        map_location = None
    return _Loaded(array, _location_device(location, map_location))


def _unpickler(weights_only, pickle_module):
    if weights_only:
        return WeightsOnlyUnpickler
    if pickle_module is not None and pickle_module is not pickle:
        base = pickle_module.Unpickler

        class _Custom(TorchUnpickler, base):  # type: ignore[misc, valid-type]
            pass

        return _Custom
    return TorchUnpickler


def _load_zip(zf, raw, map_location, unpickler_cls, load_args):
    names = zf.namelist()
    pkl_name = next((n for n in names if n.endswith("data.pkl")), None)
    if pkl_name is None:
        if any(n.endswith("constants.pkl") for n in names):
            raise RuntimeError("jtorch.load cannot read TorchScript archives (torch.jit.save)")
        raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not found")
    prefix = pkl_name[: -len("data.pkl")]
    order = zf.read(prefix + "byteorder").decode() if prefix + "byteorder" in names else "little"
    cache = {}

    def record(name):
        info = zf.getinfo(prefix + name)
        if raw is not None and info.compress_type == zipfile.ZIP_STORED:
            off = info.header_offset
            n, m = struct.unpack("<HH", raw[off + 26: off + 30])
            start = off + 30 + n + m
            return raw[start: start + info.file_size]
        return zf.read(info)

    def pload(pid):
        kind, stype, key, location, numel = pid[:5]
        if kind != "storage":
            raise pickle.UnpicklingError(f"unknown persistent id {kind!r}")
        if key not in cache:
            dt = _storage_dtype(stype)
            npdt = np.dtype(dt.np).newbyteorder("<" if order == "little" else ">")
            arr = np.frombuffer(record(f"data/{key}"), dtype=npdt, count=numel)
            cache[key] = _loading_storage(_make_storage(arr.astype(arr.dtype.newbyteorder("=")),
                                                        location, map_location), dt)
        return cache[key]

    result = unpickler_cls(io.BytesIO(zf.read(pkl_name)), pload, **load_args).load()
    _finish_storages(cache.values())
    return result


def _storage_dtype(stype):
    return stype.dtype if isinstance(stype, StorageType) else stype


class _Any:
    """Stands in for every callable while the legacy scan walks the pickle: nothing runs."""

    def __call__(self, *a, **k):
        return self

    def __setstate__(self, state):
        pass

    def __setitem__(self, k, v):
        pass

    def append(self, v):
        pass

    def extend(self, v):
        pass


def _load_legacy(f, map_location, unpickler_cls, load_args):
    """PyTorch's pre-1.6 format: magic, protocol, sys info, the object's pickle, the storage
    keys, then each storage's element count and raw bytes. The storages' dtypes are named in
    the object's pickle, so it is first scanned with every callable replaced by a stand-in."""
    if pickle.load(f) != _LEGACY_MAGIC:
        raise RuntimeError("Invalid magic number; corrupt file?")
    if pickle.load(f) != _LEGACY_PROTOCOL:
        raise RuntimeError("Invalid protocol version")
    pickle.load(f)  # sys info
    start = f.tell()
    pids = {}

    class _Scan(unpickler_cls):
        def find_class(self, module, name):
            obj = super().find_class(module, name)  # refuses what a real load would refuse
            return obj if isinstance(obj, (StorageType, dtypes.dtype)) else _Any()

    def record(pid):
        pids[pid[2]] = pid

    _Scan(f, record, **load_args).load()
    arrays = {}
    for key in pickle.load(f):
        (numel,) = struct.unpack("<q", f.read(8))
        dt = np.dtype(_storage_dtype(pids[key][1]).np)
        data = f.read(numel * dt.itemsize)
        arrays[key] = np.frombuffer(data, dtype=dt, count=numel).copy()
    loaded = {}

    def pload(pid):
        if pid[0] != "storage":
            raise pickle.UnpicklingError(f"unknown persistent id {pid[0]!r}")
        if len(pid) > 5 and pid[5] is not None:
            raise NotImplementedError("jtorch.load: legacy storage views are not supported")
        key = pid[2]
        if key not in loaded:
            loaded[key] = _loading_storage(_make_storage(arrays[key], pid[3], map_location),
                                           _storage_dtype(pid[1]))
        return loaded[key]

    f.seek(start)
    result = unpickler_cls(f, pload, **load_args).load()
    _finish_storages(loaded.values())
    return result


_TRUE_VALUES = ("1", "y", "yes", "true")


def _weights_only_from_environment(weights_only, pickle_module):
    """``load``'s effective ``weights_only``: the default (True unless a ``pickle_module`` is
    given), overridden as in PyTorch by ``TORCH_FORCE_WEIGHTS_ONLY_LOAD=1`` (always True) or
    ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1`` (False where the call did not pass it, with
    PyTorch's warning)."""
    not_set = weights_only is None
    if not_set:
        weights_only = pickle_module is None
    force = os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in _TRUE_VALUES
    force_no = os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in _TRUE_VALUES
    if force and force_no:
        raise RuntimeError("Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or "
                           "`TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` should be set, but both were set.")
    if force:
        return True
    if force_no and not_set:
        warnings.warn("Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since "
                      "the`weights_only` argument was not explicitly passed to `torch.load`, "
                      "forcing weights_only=False.", UserWarning, stacklevel=3)
        return False
    return weights_only


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Load an object saved by ``torch.save`` or ``jtorch.save``.

    ``weights_only`` defaults to True: only tensors, containers, numbers, strings and the
    allow-listed types load, and a pickle that names anything else raises
    ``pickle.UnpicklingError`` without running it. The environment variables
    ``TORCH_FORCE_WEIGHTS_ONLY_LOAD`` and ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD`` override it as in
    PyTorch.
    """
    weights_only = _weights_only_from_environment(weights_only, pickle_module)
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is "
                           "specified")
    pickle_load_args.setdefault("encoding", "utf-8")
    cls = _unpickler(weights_only, pickle_module)
    close = None
    if isinstance(f, (str, os.PathLike)):
        f = close = open(f, "rb")
    try:
        raw = None
        if mmap and close is not None:
            raw = memoryview(_mmap.mmap(f.fileno(), 0, access=_mmap.ACCESS_READ))
        start = f.tell()
        head = f.read(4)
        f.seek(start)
        try:
            if head == b"PK\x03\x04":
                try:
                    zf = zipfile.ZipFile(f)
                except zipfile.BadZipFile:
                    raise RuntimeError("PytorchStreamReader failed reading zip archive: failed "
                                       "finding central directory") from None
                return _load_zip(zf, raw, map_location, cls, pickle_load_args)
            if mmap:
                raise RuntimeError("mmap can only be used with files saved with "
                                   "`torch.save(_use_new_zipfile_serialization=True), "
                                   "please torch.save your checkpoint with this option in order "
                                   "to use mmap.")
            return _load_legacy(f, map_location, cls, pickle_load_args)
        except pickle.UnpicklingError as e:
            if weights_only:
                raise weights_only_error(e) from None
            raise
        except (EOFError, struct.error, zipfile.BadZipFile) as e:
            raise RuntimeError(f"jtorch.load: the checkpoint is truncated or corrupt ({e})") \
                from None
    finally:
        if close is not None:
            close.close()
