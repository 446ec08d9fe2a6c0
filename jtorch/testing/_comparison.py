"""torch.testing.assert_close (and the deprecated assert_allclose), ported from PyTorch 2.13's
torch/testing/_comparison.py: the same pairs (None, bool, number, tensor-like), the same
recursion through sequences and mappings, PyTorch's default tolerances per dtype and its
mismatch messages, computed with jtorch's ops so every number prints as PyTorch prints it.

Differences from PyTorch:
    - jtorch has only strided, non-quantized tensors, so the sparse, quantized, jagged, meta
      and float8 branches of PyTorch's comparison do not exist here (and complex32 and the
      unsigned 16/32/64-bit dtypes have no tolerances because jtorch has no such dtypes).
"""

from __future__ import annotations

import cmath
import collections.abc
import contextlib
import warnings
from collections.abc import Callable
from typing import Any, NoReturn

import numpy as np

from .._core import dtypes
from .._core.layout import strided
from .._ops.compare import isclose
from .._ops.creation import as_tensor, tensor as make_tensor_from_data
from .._ops.typeinfo import promote_types
from .._tensor import Tensor

__all__ = ["assert_close", "assert_allclose"]


class ErrorMeta(Exception):
    """A comparison failure: the exception type and message to raise, and where in the inputs
    (``id``, the path of indices and keys) it happened."""

    def __init__(self, type: type[Exception], msg: str, *, id: tuple = ()) -> None:  # noqa: A002
        super().__init__("raise ErrorMeta.to_error() for user facing errors")
        self.type = type
        self.msg = msg
        self.id = id

    def to_error(self, msg: str | Callable[[str], str] | None = None) -> Exception:
        if not isinstance(msg, str):
            generated = self.msg
            if self.id:
                generated += ("\n\nThe failure occurred for item "
                              f"{''.join(str([item]) for item in self.id)}")
            msg = msg(generated) if callable(msg) else generated
        return self.type(msg)


# {dtype: (rtol, atol)}, PyTorch's table
_DTYPE_PRECISIONS = {
    dtypes.float16: (0.001, 1e-5),
    dtypes.bfloat16: (0.016, 1e-5),
    dtypes.float32: (1.3e-6, 1e-5),
    dtypes.float64: (1e-7, 1e-7),
    dtypes.complex64: (1.3e-6, 1e-5),
    dtypes.complex128: (1e-7, 1e-7),
}


def default_tolerances(*inputs, dtype_precisions=None) -> tuple[float, float]:
    """The loosest (rtol, atol) of the inputs' dtypes (tensors or dtypes); 0 for exact
    dtypes."""
    found = []
    for x in inputs:
        if isinstance(x, Tensor):
            found.append(x.dtype)
        elif isinstance(x, dtypes.dtype):
            found.append(x)
        else:
            raise TypeError(f"Expected a torch.Tensor or a torch.dtype, but got {type(x)} "
                            "instead.")
    table = dtype_precisions or _DTYPE_PRECISIONS
    rtols, atols = zip(*[table.get(d, (0.0, 0.0)) for d in found])
    return max(rtols), max(atols)


def get_tolerances(*inputs, rtol, atol, id=()) -> tuple[float, float]:  # noqa: A002
    """``(rtol, atol)`` as given (both or neither), else the inputs' defaults."""
    if (rtol is None) ^ (atol is None):
        raise ErrorMeta(ValueError, "Both 'rtol' and 'atol' must be either specified or "
                        f"omitted, but got no {'rtol' if rtol is None else 'atol'}.", id=id)
    if rtol is not None:
        return rtol, atol
    return default_tolerances(*inputs)


# ------------------------------------------------------------------ messages
def _make_mismatch_msg(*, default_identifier, identifier=None, extra=None, abs_diff,
                       abs_diff_idx=None, atol, rel_diff, rel_diff_idx=None, rtol) -> str:
    equality = rtol == 0 and atol == 0

    def diff_msg(kind, diff, idx, tol):
        if idx is None:
            msg = f"{kind.title()} difference: {diff}"
        else:
            msg = f"Greatest {kind} difference: {diff} at index {idx}"
        if not equality:
            msg += f" (up to {tol} allowed)"
        return msg + "\n"

    if identifier is None:
        identifier = default_identifier
    elif callable(identifier):
        identifier = identifier(default_identifier)
    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += f"{extra.strip()}\n"
    msg += diff_msg("absolute", abs_diff, abs_diff_idx, atol)
    msg += diff_msg("relative", rel_diff, rel_diff_idx, rtol)
    return msg.strip()


def make_scalar_mismatch_msg(actual, expected, *, rtol, atol, identifier=None) -> str:
    """"Scalars are not close!" with the expected and actual values and their differences."""
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _make_mismatch_msg(default_identifier="Scalars", identifier=identifier,
                              extra=f"Expected {expected} but got {actual}.", abs_diff=abs_diff,
                              atol=atol, rel_diff=rel_diff, rtol=rtol)


def make_tensor_mismatch_msg(actual, expected, matches, *, rtol, atol, identifier=None):
    """"Tensor-likes are not close!" with the count of mismatches and the greatest absolute
    and relative differences among them, with their indices."""

    def unravel(flat_index):
        if not matches.shape:
            return ()
        index = []
        for size in matches.shape[::-1]:
            flat_index, mod = divmod(flat_index, size)
            index.append(mod)
        return tuple(index[::-1])

    total = matches.numel()
    mismatches = total - int(matches.sum())
    extra = f"Mismatched elements: {mismatches} / {total} ({mismatches / total:.1%})"
    actual_flat, expected_flat, matches_flat = actual.flatten(), expected.flatten(), \
        matches.flatten()
    if not actual.dtype.is_floating_point and not actual.dtype.is_complex:
        actual_flat, expected_flat = actual_flat.to(dtypes.int64), expected_flat.to(dtypes.int64)
    abs_diff = (actual_flat - expected_flat).abs()
    abs_diff[matches_flat] = 0
    max_abs, max_abs_idx = abs_diff.max(0)
    rel_diff = abs_diff / expected_flat.abs()
    rel_diff[matches_flat] = 0
    max_rel, max_rel_idx = rel_diff.max(0)
    return _make_mismatch_msg(default_identifier="Tensor-likes", identifier=identifier,
                              extra=extra, abs_diff=max_abs.item(),
                              abs_diff_idx=unravel(int(max_abs_idx)), atol=atol,
                              rel_diff=max_rel.item(), rel_diff_idx=unravel(int(max_rel_idx)),
                              rtol=rtol)


# ------------------------------------------------------------------ pairs
class UnsupportedInputs(Exception):
    """A pair type cannot handle the inputs: the next one is tried."""


class Pair:
    """A pair of leaves to compare; ``compare`` raises :class:`ErrorMeta` on a mismatch."""

    def __init__(self, actual, expected, *, id=(), **unknown_parameters) -> None:  # noqa: A002
        self.actual = actual
        self.expected = expected
        self.id = id
        self._unknown_parameters = unknown_parameters

    @staticmethod
    def _inputs_not_supported() -> NoReturn:
        raise UnsupportedInputs

    @staticmethod
    def _check_inputs_isinstance(*inputs, cls):
        if not all(isinstance(x, cls) for x in inputs):
            Pair._inputs_not_supported()

    def _fail(self, type: type[Exception], msg: str, *, id=()) -> NoReturn:  # noqa: A002
        raise ErrorMeta(type, msg, id=self.id if not id and hasattr(self, "id") else id)

    def compare(self) -> None:
        raise NotImplementedError


class ObjectPair(Pair):
    """Any inputs, compared with ``==`` (the fallback)."""

    def compare(self) -> None:
        try:
            equal = self.actual == self.expected
        except Exception as error:
            raise ErrorMeta(ValueError, f"{self.actual} == {self.expected} failed with:\n"
                            f"{error}.", id=self.id) from error
        if not equal:
            self._fail(AssertionError, f"{self.actual} != {self.expected}")


class NonePair(Pair):
    def __init__(self, actual, expected, **other_parameters) -> None:
        if not (actual is None or expected is None):
            self._inputs_not_supported()
        super().__init__(actual, expected, **other_parameters)

    def compare(self) -> None:
        if not (self.actual is None and self.expected is None):
            self._fail(AssertionError, f"None mismatch: {self.actual} is not {self.expected}")


class BooleanPair(Pair):
    """Python and NumPy booleans."""

    def __init__(self, actual, expected, *, id, **other_parameters) -> None:  # noqa: A002
        self._check_inputs_isinstance(actual, expected, cls=(bool, np.bool_))
        actual, expected = (bool(x) for x in (actual, expected))
        super().__init__(actual, expected, **other_parameters)

    def compare(self) -> None:
        if self.actual is not self.expected:
            self._fail(AssertionError, f"Booleans mismatch: {self.actual} is not "
                       f"{self.expected}")


class NumberPair(Pair):
    """Python numbers (and NumPy scalars), with the tolerances of int64, float64, complex128."""

    _TYPE_TO_DTYPE = {int: dtypes.int64, float: dtypes.float64, complex: dtypes.complex128}

    def __init__(self, actual, expected, *, id=(), rtol=None, atol=None,  # noqa: A002
                 equal_nan=False, check_dtype=False, **other_parameters) -> None:
        self._check_inputs_isinstance(actual, expected, cls=(int, float, complex, np.number))
        actual, expected = (self._to_number(x, id=id) for x in (actual, expected))
        super().__init__(actual, expected, id=id, **other_parameters)
        self.rtol, self.atol = get_tolerances(
            *[self._TYPE_TO_DTYPE[type(x)] for x in (actual, expected)], rtol=rtol, atol=atol,
            id=id)
        self.equal_nan = equal_nan
        self.check_dtype = check_dtype

    def _to_number(self, number_like, *, id):  # noqa: A002
        if isinstance(number_like, np.number):
            return number_like.item()
        if isinstance(number_like, (int, float, complex)):
            return number_like
        raise ErrorMeta(TypeError, f"Unknown number type {type(number_like)}.", id=id)

    def compare(self) -> None:
        if self.check_dtype and type(self.actual) is not type(self.expected):
            self._fail(AssertionError, f"The (d)types do not match: {type(self.actual)} != "
                       f"{type(self.expected)}.")
        if self.actual == self.expected:
            return
        if self.equal_nan and cmath.isnan(self.actual) and cmath.isnan(self.expected):
            return
        abs_diff = abs(self.actual - self.expected)
        if cmath.isfinite(abs_diff) and abs_diff <= self.atol + self.rtol * abs(self.expected):
            return
        self._fail(AssertionError, make_scalar_mismatch_msg(self.actual, self.expected,
                                                            rtol=self.rtol, atol=self.atol))


class TensorLikePair(Pair):
    """Tensors, and what ``as_tensor`` makes one of (NumPy arrays...), of directly related
    types; checks shape, layout, stride, device and dtype as asked, then the values."""

    def __init__(self, actual, expected, *, id=(), allow_subclasses=True,  # noqa: A002
                 rtol=None, atol=None, equal_nan=False, check_device=True, check_dtype=True,
                 check_layout=True, check_stride=False, **other_parameters):
        related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
        if not related or (not allow_subclasses and type(actual) is not type(expected)):
            self._inputs_not_supported()
        actual, expected = (self._to_tensor(x) for x in (actual, expected))
        super().__init__(actual, expected, id=id, **other_parameters)
        self.rtol, self.atol = get_tolerances(actual, expected, rtol=rtol, atol=atol,
                                              id=self.id)
        self.equal_nan = equal_nan
        self.check_device = check_device
        self.check_dtype = check_dtype
        self.check_layout = check_layout
        self.check_stride = check_stride

    def _to_tensor(self, tensor_like):
        if isinstance(tensor_like, Tensor):
            return tensor_like
        try:
            return as_tensor(tensor_like)
        except Exception:
            self._inputs_not_supported()

    def compare(self) -> None:
        actual, expected = self.actual, self.expected
        self._compare_attributes(actual, expected)
        actual, expected = self._equalize_attributes(actual, expected)
        self._compare_values(actual, expected)

    def _compare_attributes(self, actual, expected) -> None:
        def mismatch(name, a, e):
            self._fail(AssertionError,
                       f"The values for attribute '{name}' do not match: {a} != {e}.")

        if actual.shape != expected.shape:
            mismatch("shape", actual.shape, expected.shape)
        if actual.layout != expected.layout:
            if self.check_layout:
                mismatch("layout", actual.layout, expected.layout)
        elif (actual.layout == strided and self.check_stride
              and actual.stride() != expected.stride()):
            mismatch("stride()", actual.stride(), expected.stride())
        if self.check_device and actual.device != expected.device:
            mismatch("device", actual.device, expected.device)
        if self.check_dtype and actual.dtype != expected.dtype:
            mismatch("dtype", actual.dtype, expected.dtype)

    def _equalize_attributes(self, actual, expected):
        """Different devices: both on the CPU; different dtypes: both in the promoted one."""
        if actual.device != expected.device:
            actual, expected = actual.cpu(), expected.cpu()
        if actual.dtype != expected.dtype:
            dt = promote_types(actual.dtype, expected.dtype)
            actual, expected = actual.to(dt), expected.to(dt)
        return actual, expected

    def _compare_values(self, actual, expected) -> None:
        self._compare_regular_values_close(actual, expected, rtol=self.rtol, atol=self.atol,
                                           equal_nan=self.equal_nan)

    def _compare_regular_values_close(self, actual, expected, *, rtol, atol, equal_nan,
                                      identifier=None) -> None:
        matches = isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan)
        if bool(matches.all()):
            return
        if actual.shape == ():
            msg = make_scalar_mismatch_msg(actual.item(), expected.item(), rtol=rtol, atol=atol,
                                           identifier=identifier)
        else:
            msg = make_tensor_mismatch_msg(actual, expected, matches, rtol=rtol, atol=atol,
                                           identifier=identifier)
        self._fail(AssertionError, msg)


# ------------------------------------------------------------------ recursion
def originate_pairs(actual, expected, *, pair_types, sequence_types=(collections.abc.Sequence,),
                    mapping_types=(collections.abc.Mapping,), id=(), **options):  # noqa: A002
    """The pairs of leaves of ``actual`` and ``expected`` (nested sequences and mappings are
    walked; their lengths and keys must match), each of the first type that takes it."""
    if (isinstance(actual, sequence_types) and not isinstance(actual, str)
            and isinstance(expected, sequence_types) and not isinstance(expected, str)):
        if len(actual) != len(expected):
            raise ErrorMeta(AssertionError, "The length of the sequences mismatch: "
                            f"{len(actual)} != {len(expected)}", id=id)
        pairs = []
        for i in range(len(actual)):
            pairs.extend(originate_pairs(actual[i], expected[i], pair_types=pair_types,
                                         sequence_types=sequence_types,
                                         mapping_types=mapping_types, id=(*id, i), **options))
        return pairs
    if isinstance(actual, mapping_types) and isinstance(expected, mapping_types):
        actual_keys, expected_keys = set(actual.keys()), set(expected.keys())
        if actual_keys != expected_keys:
            raise ErrorMeta(AssertionError, (
                "The keys of the mappings do not match:\n"
                f"Missing keys in the actual mapping: {sorted(expected_keys - actual_keys)}\n"
                f"Additional keys in the actual mapping: {sorted(actual_keys - expected_keys)}"),
                id=id)
        keys = actual_keys
        with contextlib.suppress(Exception):  # deterministic order where the keys sort
            keys = sorted(keys)
        pairs = []
        for key in keys:
            pairs.extend(originate_pairs(actual[key], expected[key], pair_types=pair_types,
                                         sequence_types=sequence_types,
                                         mapping_types=mapping_types, id=(*id, key), **options))
        return pairs
    for pair_type in pair_types:
        try:
            return [pair_type(actual, expected, id=id, **options)]
        except UnsupportedInputs:
            continue
    raise ErrorMeta(TypeError, "No comparison pair was able to handle inputs of type "
                    f"{type(actual)} and {type(expected)}.", id=id)


def not_close_error_metas(actual, expected, *, pair_types=(ObjectPair,),
                          sequence_types=(collections.abc.Sequence,),
                          mapping_types=(collections.abc.Mapping,), **options):
    """The :class:`ErrorMeta` of each pair that does not match (a structural mismatch raises
    at once)."""
    __tracebackhide__ = True
    try:
        pairs = originate_pairs(actual, expected, pair_types=pair_types,
                                sequence_types=sequence_types, mapping_types=mapping_types,
                                **options)
    except ErrorMeta as error_meta:
        raise error_meta.to_error() from None
    metas = []
    for pair in pairs:
        try:
            pair.compare()
        except ErrorMeta as error_meta:
            metas.append(error_meta)
    return metas


def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True,
                 rtol: float | None = None, atol: float | None = None, equal_nan: bool = False,
                 check_device: bool = True, check_dtype: bool = True, check_layout: bool = True,
                 check_stride: bool = False, msg: str | Callable[[str], str] | None = None):
    r"""Assert that ``actual`` and ``expected`` are close:
    ``|actual - expected| <= atol + rtol * |expected|`` elementwise (infinities only equal to
    themselves, NaNs equal only with ``equal_nan``), with the same shape and, as asked, the
    same device, dtype, layout and stride.

    Args:
        actual, expected: tensors, tensor-likes (NumPy arrays...), Python numbers, or sequences
            and mappings of them (compared leaf by leaf; structures must match).
        allow_subclasses: inputs of directly related types (a Parameter and a Tensor) compare;
            False: the types must be equal.
        rtol, atol: the tolerances (both or neither); default, per dtype, the loosest of the
            two: float16 (1e-3, 1e-5), bfloat16 (1.6e-2, 1e-5), float32 and complex64
            (1.3e-6, 1e-5), float64 and complex128 (1e-7, 1e-7), others (0, 0).
        equal_nan: NaNs compare equal.
        check_device, check_dtype, check_layout, check_stride: check these attributes;
            unchecked, different devices compare on the CPU and different dtypes in their
            promoted dtype.
        msg: the message of the error, or a function of the generated message.

    Raises:
        AssertionError: "Tensor-likes are not close!\n\nMismatched elements: ..." and the other
            mismatches of PyTorch.
        ValueError: only one of rtol/atol given. TypeError: inputs that cannot be compared.

    Example:
        >>> torch.testing.assert_close(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0]))
    """
    __tracebackhide__ = True
    metas = not_close_error_metas(
        actual, expected, pair_types=(NonePair, BooleanPair, NumberPair, TensorLikePair),
        allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
        check_device=check_device, check_dtype=check_dtype, check_layout=check_layout,
        check_stride=check_stride, msg=msg)
    if metas:
        raise metas[0].to_error(msg)


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated since PyTorch 1.12: :func:`assert_close` with ``check_dtype=False`` and the
    older default tolerances."""
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be "
                  "removed in a future release. Please use `torch.testing.assert_close()` "
                  "instead. You can find detailed upgrade instructions in "
                  "https://github.com/pytorch/pytorch/issues/61844.", FutureWarning,
                  stacklevel=2)
    if not isinstance(actual, Tensor):
        actual = make_tensor_from_data(actual)
    if not isinstance(expected, Tensor):
        expected = make_tensor_from_data(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = default_tolerances(actual, expected, dtype_precisions={
            dtypes.float16: (1e-3, 1e-3), dtypes.float32: (1e-4, 1e-5),
            dtypes.float64: (1e-5, 1e-8)})
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan,
                 check_device=True, check_dtype=False, check_stride=False, msg=msg or None)
