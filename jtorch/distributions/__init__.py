"""torch.distributions on jtorch: probability distributions, their sampling (with
reparameterised gradients), densities, moments and KL divergences, and the constraints and
transforms they are built from. See docs/distributions.md for what differs from PyTorch."""

# ruff: noqa: I001 - the KL rules register last, once every distribution is defined
from .._core.errors import torch_name_fallback
from . import constraint_registry, constraints, kl, transforms, utils
from .bernoulli import Bernoulli as Bernoulli
from .beta import Beta as Beta
from .binomial import Binomial as Binomial
from .categorical import Categorical as Categorical
from .cauchy import Cauchy as Cauchy
from .chi2 import Chi2 as Chi2
from .constraint_registry import biject_to as biject_to
from .constraint_registry import transform_to as transform_to
from .continuous_bernoulli import ContinuousBernoulli as ContinuousBernoulli
from .dirichlet import Dirichlet as Dirichlet
from .distribution import Distribution as Distribution
from .exp_family import ExponentialFamily as ExponentialFamily
from .exponential import Exponential as Exponential
from .fishersnedecor import FisherSnedecor as FisherSnedecor
from .gamma import Gamma as Gamma
from .generalized_pareto import GeneralizedPareto as GeneralizedPareto
from .geometric import Geometric as Geometric
from .gumbel import Gumbel as Gumbel
from .half_cauchy import HalfCauchy as HalfCauchy
from .half_normal import HalfNormal as HalfNormal
from .independent import Independent as Independent
from .inverse_gamma import InverseGamma as InverseGamma
from .kl import kl_divergence as kl_divergence
from .kl import register_kl as register_kl
from .kumaraswamy import Kumaraswamy as Kumaraswamy
from .laplace import Laplace as Laplace
from .lkj_cholesky import LKJCholesky as LKJCholesky
from .log_normal import LogNormal as LogNormal
from .logistic_normal import LogisticNormal as LogisticNormal
from .lowrank_multivariate_normal import LowRankMultivariateNormal as LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily as MixtureSameFamily
from .multinomial import Multinomial as Multinomial
from .multivariate_normal import MultivariateNormal as MultivariateNormal
from .negative_binomial import NegativeBinomial as NegativeBinomial
from .normal import Normal as Normal
from .one_hot_categorical import (
    OneHotCategorical as OneHotCategorical,
    OneHotCategoricalStraightThrough as OneHotCategoricalStraightThrough,
)
from .pareto import Pareto as Pareto
from .poisson import Poisson as Poisson
from .relaxed_bernoulli import RelaxedBernoulli as RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical as RelaxedOneHotCategorical
from .studentT import StudentT as StudentT
from .transformed_distribution import TransformedDistribution as TransformedDistribution
from .uniform import Uniform as Uniform
from .von_mises import VonMises as VonMises
from .weibull import Weibull as Weibull
from .wishart import Wishart as Wishart
from .transforms import (
    AbsTransform as AbsTransform,
    AffineTransform as AffineTransform,
    CatTransform as CatTransform,
    ComposeTransform as ComposeTransform,
    CorrCholeskyTransform as CorrCholeskyTransform,
    CumulativeDistributionTransform as CumulativeDistributionTransform,
    ExpTransform as ExpTransform,
    IndependentTransform as IndependentTransform,
    LowerCholeskyTransform as LowerCholeskyTransform,
    PositiveDefiniteTransform as PositiveDefiniteTransform,
    PowerTransform as PowerTransform,
    ReshapeTransform as ReshapeTransform,
    SigmoidTransform as SigmoidTransform,
    SoftplusTransform as SoftplusTransform,
    TanhTransform as TanhTransform,
    SoftmaxTransform as SoftmaxTransform,
    StackTransform as StackTransform,
    StickBreakingTransform as StickBreakingTransform,
    Transform as Transform,
    identity_transform as identity_transform,
)

from . import _kl_cross, _kl_same  # register the KL rules

__all__ = [
    "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "ContinuousBernoulli",
    "Dirichlet", "Distribution", "Exponential", "ExponentialFamily", "FisherSnedecor", "Gamma",
    "GeneralizedPareto", "Geometric", "Gumbel", "HalfCauchy", "HalfNormal", "Independent",
    "InverseGamma", "Kumaraswamy", "LKJCholesky", "Laplace", "LogNormal", "LogisticNormal",
    "LowRankMultivariateNormal", "MixtureSameFamily", "Multinomial", "MultivariateNormal",
    "NegativeBinomial", "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough",
    "Pareto", "RelaxedBernoulli", "RelaxedOneHotCategorical", "StudentT", "Poisson", "Uniform",
    "VonMises", "Weibull", "Wishart", "TransformedDistribution", "biject_to", "kl_divergence",
    "register_kl", "transform_to", "AbsTransform", "AffineTransform", "CatTransform",
    "ComposeTransform", "CorrCholeskyTransform", "CumulativeDistributionTransform", "ExpTransform",
    "IndependentTransform", "LowerCholeskyTransform", "PositiveDefiniteTransform",
    "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftplusTransform", "TanhTransform",
    "SoftmaxTransform", "StackTransform", "StickBreakingTransform", "Transform",
    "identity_transform",
]

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.distributions")
