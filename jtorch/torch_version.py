"""torch.torch_version: ``TorchVersion``, the type of ``torch.__version__``.

A ``str`` that compares as a version: against another version string ("2.0", "1.12.0a0"), a
``packaging.version.Version``, or a tuple of numbers ((2, 0) means "2.0"), so the usual gates
(``version.parse(torch.__version__) >= version.parse("2.0")``, ``torch.__version__ >= "2.1"``,
``torch.__version__ >= (2, 0)``) read jtorch as the PyTorch release whose API it follows. As in
PyTorch, something that is not a valid version compares as a plain string.

Differences from PyTorch: the comparison uses the installed ``packaging`` (PyTorch vendors its
own copy, so its TorchVersion compares with that copy's ``Version`` and raises TypeError for the
installed one's, which jtorch's compares with); without ``packaging``, version strings and
tuples compare by their release numbers only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .version import __version__ as _internal_version

try:  # optional: PyTorch vendors packaging, jtorch does not depend on it
    from packaging.version import InvalidVersion, Version
except ImportError:  # pragma: no cover - packaging ships with pip's environments
    InvalidVersion, Version = ValueError, None

__all__ = ["TorchVersion"]

_RELEASE = re.compile(r"^\s*v?(\d+(?:\.\d+)*)")


class _Release:
    """A version reduced to its release numbers (when ``packaging`` is missing)."""

    def __init__(self, text):
        m = _RELEASE.match(text)
        if m is None:
            raise InvalidVersion(text)
        numbers = [int(x) for x in m.group(1).split(".")]
        while len(numbers) > 1 and numbers[-1] == 0:
            numbers.pop()
        self.key = tuple(numbers)

    def __gt__(self, other):
        return self.key > other.key

    def __lt__(self, other):
        return self.key < other.key

    def __eq__(self, other):
        return self.key == other.key

    def __ge__(self, other):
        return self.key >= other.key

    def __le__(self, other):
        return self.key <= other.key


def _parse(text):
    return Version(text) if Version is not None else _Release(text)


class TorchVersion(str):
    """A version string that also compares with ``packaging`` versions and tuples:
    ``TorchVersion("2.13.0") > (2, 0)``, ``> "1.12.1"``, ``> Version("2.0")``."""

    __slots__ = ()

    def _convert_to_version(self, inp):
        if Version is not None and isinstance(inp, Version):
            return inp
        if isinstance(inp, str):
            return _parse(inp)
        if isinstance(inp, Iterable):  # (2, 1) -> "2.1"
            return _parse(".".join(str(item) for item in inp))
        raise InvalidVersion(inp)

    def _cmp_wrapper(self, cmp, method):
        try:
            return getattr(_parse(str(self)), method)(self._convert_to_version(cmp))
        except InvalidVersion:  # not a version: compare as strings, as PyTorch does
            return getattr(super(), method)(cmp)


def _comparison(method):
    def compare(self, other):
        return self._cmp_wrapper(other, method)
    compare.__name__ = method
    return compare


for _method in ("__gt__", "__lt__", "__eq__", "__ge__", "__le__"):
    setattr(TorchVersion, _method, _comparison(_method))
del _method

__version__ = TorchVersion(_internal_version)
