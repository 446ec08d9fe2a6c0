"""Op families; importing this package registers every op in the op table."""

from . import cumulative, indexing, linalg, linalg_decomp, linalg_einsum, norms, pointwise, pointwise_math, compare, bitwise, reduction, shape, shape_copy, shape_expand, shape_slice, statistics  # noqa: F401
from . import random_ops  # noqa: F401,E402 - random sampling ops (rand, normal, uniform_...)
from . import scatter  # noqa: F401,E402 - gather/scatter/index_*/masked_*/take/put
from . import selection  # noqa: F401,E402 - sort/topk/unique/bincount/histc/searchsorted
