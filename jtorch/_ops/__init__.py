"""Op families; importing this package registers every op in the op table."""

from . import indexing, linalg, pointwise, reduction, shape  # noqa: F401
