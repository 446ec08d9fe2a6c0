"""torch.distributions.transforms: invertible maps with log-determinant Jacobians, used by
TransformedDistribution and by constraint_registry's ``biject_to`` / ``transform_to``.

Differences from PyTorch:
    - ``AffineTransform.log_abs_det_jacobian`` with ``event_dim > 0`` sums ``log|scale|``
      broadcast to the event (PyTorch sums the unbroadcast ``scale``, which undercounts
      when ``scale`` is smaller than the event).
"""

from ._transform import (
    ComposeTransform as ComposeTransform,
    Transform as Transform,
    _InverseTransform as _InverseTransform,
    identity_transform as identity_transform,
)
from ._transforms_elementwise import (
    AbsTransform as AbsTransform,
    AffineTransform as AffineTransform,
    CumulativeDistributionTransform as CumulativeDistributionTransform,
    ExpTransform as ExpTransform,
    PowerTransform as PowerTransform,
    SigmoidTransform as SigmoidTransform,
    SoftplusTransform as SoftplusTransform,
    TanhTransform as TanhTransform,
)
from ._transforms_shape import (
    CatTransform as CatTransform,
    IndependentTransform as IndependentTransform,
    ReshapeTransform as ReshapeTransform,
    StackTransform as StackTransform,
)
from ._transforms_vector import (
    CorrCholeskyTransform as CorrCholeskyTransform,
    LowerCholeskyTransform as LowerCholeskyTransform,
    PositiveDefiniteTransform as PositiveDefiniteTransform,
    SoftmaxTransform as SoftmaxTransform,
    StickBreakingTransform as StickBreakingTransform,
)

__all__ = ["AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform",
           "CorrCholeskyTransform", "CumulativeDistributionTransform", "ExpTransform",
           "IndependentTransform", "LowerCholeskyTransform", "PositiveDefiniteTransform",
           "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftplusTransform",
           "TanhTransform", "SoftmaxTransform", "StackTransform", "StickBreakingTransform",
           "Transform", "identity_transform"]
