"""Op families; importing this package registers every op in the op table."""

from . import (  # noqa: F401
    bitwise,
    compare,
    cumulative,
    indexing,
    linalg,
    linalg_decomp,
    linalg_einsum,
    linalg_matfn,
    norms,
    pointwise,
    pointwise_math,
    random_ops,
    reduction,
    scatter,
    selection,
    shape,
    shape_copy,
    shape_expand,
    shape_slice,
    statistics,
)
