"""jtorch: PyTorch's API on JAX. ``import jtorch as torch``.

JAX's 64-bit mode is switched on at import (PyTorch has int64 and float64); every jtorch
creation path states its dtype, so float32 stays the default. See docs/differences.md.

This file is the top-level namespace: the hand-written imports below (dtypes, devices, Tensor,
grad modes, the subpackages) and, in the generated block, every op and function the op table
publishes as ``torch.<name>`` (scripts/gen_api.py writes it; see docs/layout.md).
"""

# ruff: noqa: I001 - the order of these imports is the order of the layers (docs/layout.md)
from __future__ import annotations

import numpy as _np

# importing JAX draws from NumPy's global random stream (jax._src.clusters.k8s_cluster's
# module-level ``np.random.rand(5)``); importing torch leaves it alone, so a program that
# seeds ``np.random`` before ``import torch`` must see the same stream: put it back after
_numpy_random_state = _np.random.get_state()
from ._core.errors import torch_name_fallback
import jax as _jax
import sys as _sys
import warnings as _warnings

_np.random.set_state(_numpy_random_state)
del _numpy_random_state

_jax.config.update("jax_enable_x64", True)

# the core and the op families, then the public Tensor and namespaces
from . import _ops, autograd, fft, linalg, random, special  # noqa: E402
from . import futures, signal  # noqa: E402
from ._core.device import device  # noqa: E402
from ._core.dtypes import (  # noqa: E402
    bfloat16,
    complex32,
    complex64,
    complex128,
    dtype,
    float16,
    float32,
    float64,
    float8_e4m3fn,
    float8_e4m3fnuz,
    float8_e5m2,
    float8_e5m2fnuz,
    float8_e8m0fnu,
    get_default_dtype,
    int8,
    int16,
    int32,
    int64,
    qint8,
    qint32,
    quint2x4,
    quint4x2,
    quint8,
    set_default_dtype,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ._core.dtypes import (  # noqa: E402 - PyTorch's dtype aliases
    bool_ as bool,  # noqa: A001
    complex32 as chalf,
    complex64 as cfloat,
    complex128 as cdouble,
    float16 as half,
    float32 as float,  # noqa: A001
    float64 as double,
    int16 as short,
    int32 as int,  # noqa: A001
    int64 as long,
)
from ._core.generator import (  # noqa: E402
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)
from ._core.kernel import return_types  # noqa: E402
from ._core.layout import (  # noqa: E402
    channels_last,
    channels_last_3d,
    contiguous_format,
    jagged,
    layout,
    legacy_contiguous_format,
    memory_format,
    preserve_format,
    sparse_bsc,
    sparse_bsr,
    sparse_coo,
    sparse_csc,
    sparse_csr,
    strided,
)
from ._core.tensor_base import Size  # noqa: E402
from ._tensor import Tensor  # noqa: E402
from ._tensor_str import set_printoptions  # noqa: E402
from .autograd import (  # noqa: E402
    enable_grad,
    inference_mode,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_anomaly_enabled,
    set_grad_enabled,
)

# the components built on them
from . import (  # noqa: E402
    amp, cpu, cuda, distributions, func, hub, nn, optim, serialization, testing, utils, vision,
)
from . import __config__, accelerator, backends, version  # noqa: E402
from . import quasirandom  # noqa: E402
from .testing._parity import register_namespace as _register_parity_namespace  # noqa: E402

# compare_with_torch calls model factories with this namespace; it sits a layer below it
_register_parity_namespace(_sys.modules[__name__])
from ._core.device import get_default_device, set_default_device  # noqa: E402
from .backends._determinism import (  # noqa: E402
    are_deterministic_algorithms_enabled,
    get_deterministic_debug_mode,
    is_deterministic_algorithms_warn_only_enabled,
    set_deterministic_debug_mode,
    use_deterministic_algorithms,
)
from .backends._matmul_precision import (  # noqa: E402
    get_float32_matmul_precision,
    set_float32_matmul_precision,
)
from .backends._build import (  # noqa: E402
    has_lapack,
    has_mkl,
    has_openmp,
    has_spectral,
    init_num_threads,
    is_distributed,
    set_flush_denormal,
)
from .backends._threads import (  # noqa: E402
    get_num_interop_threads,
    get_num_threads,
    set_num_interop_threads,
    set_num_threads,
)
from . import compiler  # noqa: E402
from . import jit  # noqa: E402
from ._core.torch_function import (  # noqa: E402
    DisableTorchFunction,
    DisableTorchFunctionSubclass,
)
from .futures import Future  # noqa: E402
from .jit import CompilationUnit, ScriptFunction, fork, wait  # noqa: E402
from .amp.autocast_mode import (  # noqa: E402
    autocast,
    autocast_decrement_nesting,
    autocast_increment_nesting,
    clear_autocast_cache,
    get_autocast_cpu_dtype,
    get_autocast_dtype,
    get_autocast_gpu_dtype,
    is_autocast_cache_enabled,
    is_autocast_cpu_enabled,
    is_autocast_enabled,
    set_autocast_cache_enabled,
    set_autocast_cpu_dtype,
    set_autocast_cpu_enabled,
    set_autocast_dtype,
    set_autocast_enabled,
    set_autocast_gpu_dtype,
)
from .amp.grad_scaler import GradScaler  # noqa: E402
from ._ops.tensor_storage import UntypedStorage  # noqa: E402
from .compiler import compile  # noqa: E402,A001
from ._higher_order_ops import cond, while_loop  # noqa: E402
from .func import vmap  # noqa: E402
from ._device_modules import get_device_module  # noqa: E402
from .serialization import load, save  # noqa: E402

from . import torch_version  # noqa: E402
from .torch_version import __version__  # noqa: E402

# PyTorch's constants: the math module's floats themselves, and None for indexing (x[newaxis])
from math import e, inf, nan, pi  # noqa: E402

newaxis = None

# every op and function the op table publishes as torch.<name>
# --- generated by scripts/gen_api.py from the op table: do not edit by hand ---
from ._ops.bitwise import (
    bitwise_and as bitwise_and,
    bitwise_left_shift as bitwise_left_shift,
    bitwise_not as bitwise_not,
    bitwise_or as bitwise_or,
    bitwise_right_shift as bitwise_right_shift,
    bitwise_xor as bitwise_xor,
    gcd as gcd,
    lcm as lcm,
    logical_and as logical_and,
    logical_not as logical_not,
    logical_or as logical_or,
    logical_xor as logical_xor,
)
from ._ops.cdist import (
    cdist as cdist,
)
from ._ops.compare import (
    allclose as allclose,
    clamp as clamp,
    clamp_max as clamp_max,
    clamp_min as clamp_min,
    clamp as clip,
    eq as eq,
    equal as equal,
    fmax as fmax,
    fmin as fmin,
    ge as ge,
    gt as greater,
    ge as greater_equal,
    gt as gt,
    isclose as isclose,
    isfinite as isfinite,
    isin as isin,
    isinf as isinf,
    isnan as isnan,
    isneginf as isneginf,
    isposinf as isposinf,
    isreal as isreal,
    le as le,
    lt as less,
    le as less_equal,
    lt as lt,
    maximum as maximum,
    minimum as minimum,
    nan_to_num as nan_to_num,
    ne as ne,
    ne as not_equal,
    relu as relu,
    where as where,
)
from ._ops.copy_variants import (
    alias_copy as alias_copy,
    as_strided_copy as as_strided_copy,
    detach_copy as detach_copy,
    diagonal_copy as diagonal_copy,
    expand_copy as expand_copy,
    permute_copy as permute_copy,
    select_copy as select_copy,
    slice_copy as slice_copy,
    split_copy as split_copy,
    split_with_sizes_copy as split_with_sizes_copy,
    squeeze_copy as squeeze_copy,
    t_copy as t_copy,
    transpose_copy as transpose_copy,
    unbind_copy as unbind_copy,
    unfold_copy as unfold_copy,
    unsqueeze_copy as unsqueeze_copy,
    view_as_complex_copy as view_as_complex_copy,
    view_as_real_copy as view_as_real_copy,
    view_copy as view_copy,
)
from ._ops.creation import (
    as_tensor as as_tensor,
    asarray as asarray,
    copy_ as copy_,
    empty as empty,
    empty_like as empty_like,
    empty_strided as empty_strided,
    fill as fill,
    fill_ as fill_,
    from_numpy as from_numpy,
    full as full,
    full_like as full_like,
    ones as ones,
    ones_like as ones_like,
    scalar_tensor as scalar_tensor,
    tensor as tensor,
    zero_ as zero_,
    zeros as zeros,
    zeros_like as zeros_like,
)
from ._ops.creation_math import (
    arange as arange,
    complex_ as complex,
    eye as eye,
    linspace as linspace,
    logspace as logspace,
    polar as polar,
    range_ as range,
)
from ._ops.cumulative import (
    cummax as cummax,
    cummin as cummin,
    cumprod as cumprod,
    cumsum as cumsum,
    logcumsumexp as logcumsumexp,
)
from ._ops.dlpack import (
    from_dlpack as from_dlpack,
)
from ._ops.foreach import (
    _foreach_abs as _foreach_abs,
    _foreach_abs_ as _foreach_abs_,
    _foreach_acos as _foreach_acos,
    _foreach_acos_ as _foreach_acos_,
    _foreach_add as _foreach_add,
    _foreach_add_ as _foreach_add_,
    _foreach_addcdiv as _foreach_addcdiv,
    _foreach_addcdiv_ as _foreach_addcdiv_,
    _foreach_addcmul as _foreach_addcmul,
    _foreach_addcmul_ as _foreach_addcmul_,
    _foreach_asin as _foreach_asin,
    _foreach_asin_ as _foreach_asin_,
    _foreach_atan as _foreach_atan,
    _foreach_atan_ as _foreach_atan_,
    _foreach_ceil as _foreach_ceil,
    _foreach_ceil_ as _foreach_ceil_,
    _foreach_clamp_max as _foreach_clamp_max,
    _foreach_clamp_max_ as _foreach_clamp_max_,
    _foreach_clamp_min as _foreach_clamp_min,
    _foreach_clamp_min_ as _foreach_clamp_min_,
    _foreach_clone as _foreach_clone,
    _foreach_copy_ as _foreach_copy_,
    _foreach_cos as _foreach_cos,
    _foreach_cos_ as _foreach_cos_,
    _foreach_cosh as _foreach_cosh,
    _foreach_cosh_ as _foreach_cosh_,
    _foreach_div as _foreach_div,
    _foreach_div_ as _foreach_div_,
    _foreach_erf as _foreach_erf,
    _foreach_erf_ as _foreach_erf_,
    _foreach_erfc as _foreach_erfc,
    _foreach_erfc_ as _foreach_erfc_,
    _foreach_exp as _foreach_exp,
    _foreach_exp_ as _foreach_exp_,
    _foreach_expm1 as _foreach_expm1,
    _foreach_expm1_ as _foreach_expm1_,
    _foreach_floor as _foreach_floor,
    _foreach_floor_ as _foreach_floor_,
    _foreach_frac as _foreach_frac,
    _foreach_frac_ as _foreach_frac_,
    _foreach_lerp as _foreach_lerp,
    _foreach_lerp_ as _foreach_lerp_,
    _foreach_lgamma as _foreach_lgamma,
    _foreach_lgamma_ as _foreach_lgamma_,
    _foreach_log as _foreach_log,
    _foreach_log10 as _foreach_log10,
    _foreach_log10_ as _foreach_log10_,
    _foreach_log1p as _foreach_log1p,
    _foreach_log1p_ as _foreach_log1p_,
    _foreach_log2 as _foreach_log2,
    _foreach_log2_ as _foreach_log2_,
    _foreach_log_ as _foreach_log_,
    _foreach_max as _foreach_max,
    _foreach_maximum as _foreach_maximum,
    _foreach_maximum_ as _foreach_maximum_,
    _foreach_minimum as _foreach_minimum,
    _foreach_minimum_ as _foreach_minimum_,
    _foreach_mm as _foreach_mm,
    _foreach_mul as _foreach_mul,
    _foreach_mul_ as _foreach_mul_,
    _foreach_neg as _foreach_neg,
    _foreach_neg_ as _foreach_neg_,
    _foreach_norm as _foreach_norm,
    _foreach_pow as _foreach_pow,
    _foreach_pow_ as _foreach_pow_,
    _foreach_powsum as _foreach_powsum,
    _foreach_reciprocal as _foreach_reciprocal,
    _foreach_reciprocal_ as _foreach_reciprocal_,
    _foreach_round as _foreach_round,
    _foreach_round_ as _foreach_round_,
    _foreach_rsqrt as _foreach_rsqrt,
    _foreach_rsqrt_ as _foreach_rsqrt_,
    _foreach_sigmoid as _foreach_sigmoid,
    _foreach_sigmoid_ as _foreach_sigmoid_,
    _foreach_sign as _foreach_sign,
    _foreach_sign_ as _foreach_sign_,
    _foreach_sin as _foreach_sin,
    _foreach_sin_ as _foreach_sin_,
    _foreach_sinh as _foreach_sinh,
    _foreach_sinh_ as _foreach_sinh_,
    _foreach_sqrt as _foreach_sqrt,
    _foreach_sqrt_ as _foreach_sqrt_,
    _foreach_sub as _foreach_sub,
    _foreach_sub_ as _foreach_sub_,
    _foreach_tan as _foreach_tan,
    _foreach_tan_ as _foreach_tan_,
    _foreach_tanh as _foreach_tanh,
    _foreach_tanh_ as _foreach_tanh_,
    _foreach_trunc as _foreach_trunc,
    _foreach_trunc_ as _foreach_trunc_,
    _foreach_zero_ as _foreach_zero_,
)
from ._ops.frombuffer import (
    frombuffer as frombuffer,
)
from ._ops.gradient import (
    gradient as gradient,
)
from ._ops.histogramdd import (
    histogramdd as histogramdd,
)
from ._ops.indexing import (
    argwhere as argwhere,
    masked_select as masked_select,
    nonzero as nonzero,
    nonzero_static as nonzero_static,
)
from ._ops.indexing_put import (
    index_put as index_put,
    index_put_ as index_put_,
)
from ._ops.inplace_functions import (
    abs_ as abs_,
    acos_ as acos_,
    acosh_ as acosh_,
    addmv_ as addmv_,
    arccos_ as arccos_,
    arccosh_ as arccosh_,
    arcsin_ as arcsin_,
    arcsinh_ as arcsinh_,
    arctan_ as arctan_,
    arctanh_ as arctanh_,
    asin_ as asin_,
    asinh_ as asinh_,
    atan_ as atan_,
    atanh_ as atanh_,
    ceil_ as ceil_,
    clamp_ as clamp_,
    clamp_max_ as clamp_max_,
    clamp_min_ as clamp_min_,
    clip_ as clip_,
    conj_physical_ as conj_physical_,
    cos_ as cos_,
    cosh_ as cosh_,
    deg2rad_ as deg2rad_,
    erf_ as erf_,
    erfc_ as erfc_,
    exp2_ as exp2_,
    exp_ as exp_,
    expm1_ as expm1_,
    fix_ as fix_,
    floor_ as floor_,
    frac_ as frac_,
    gcd_ as gcd_,
    i0_ as i0_,
    lcm_ as lcm_,
    ldexp_ as ldexp_,
    log10_ as log10_,
    log1p_ as log1p_,
    log2_ as log2_,
    log_ as log_,
    logit_ as logit_,
    nan_to_num_ as nan_to_num_,
    neg_ as neg_,
    negative_ as negative_,
    rad2deg_ as rad2deg_,
    reciprocal_ as reciprocal_,
    round_ as round_,
    rsqrt_ as rsqrt_,
    sigmoid_ as sigmoid_,
    sin_ as sin_,
    sinc_ as sinc_,
    sinh_ as sinh_,
    sqrt_ as sqrt_,
    square_ as square_,
    tan_ as tan_,
    tanh_ as tanh_,
    trunc_ as trunc_,
    xlogy_ as xlogy_,
)
from ._ops.legacy_types import (
    BFloat16Tensor as BFloat16Tensor,
    BoolTensor as BoolTensor,
    ByteTensor as ByteTensor,
    CharTensor as CharTensor,
    ComplexDoubleTensor as ComplexDoubleTensor,
    ComplexFloatTensor as ComplexFloatTensor,
    DoubleTensor as DoubleTensor,
    FloatTensor as FloatTensor,
    HalfTensor as HalfTensor,
    IntTensor as IntTensor,
    LongTensor as LongTensor,
    ShortTensor as ShortTensor,
    set_default_tensor_type as set_default_tensor_type,
)
from ._ops.linalg import (
    addbmm as addbmm,
    addmm as addmm,
    addmv as addmv,
    addr as addr,
    baddbmm as baddbmm,
    bmm as bmm,
    chain_matmul as chain_matmul,
    cross as cross,
    dot as dot,
    outer as ger,
    inner as inner,
    kron as kron,
    matmul as matmul,
    mm as mm,
    mv as mv,
    outer as outer,
    vdot as vdot,
)
from ._ops.linalg_decomp import (
    cholesky as cholesky,
    cholesky_inverse as cholesky_inverse,
    cholesky_solve as cholesky_solve,
    det as det,
    inv as inverse,
    logdet as logdet,
    pinverse as pinverse,
    qr as qr,
    slogdet as slogdet,
    svd as svd,
    triangular_solve as triangular_solve,
)
from ._ops.linalg_einsum import (
    einsum as einsum,
    tensordot as tensordot,
)
from ._ops.linalg_householder import (
    geqrf as geqrf,
    householder_product as orgqr,
    ormqr as ormqr,
)
from ._ops.linalg_lowrank import (
    pca_lowrank as pca_lowrank,
    svd_lowrank as svd_lowrank,
)
from ._ops.linalg_lu import (
    torch_lu as lu,
    lu_solve as lu_solve,
    lu_unpack as lu_unpack,
)
from ._ops.linalg_matfn import (
    matrix_exp as matrix_exp,
    matrix_power as matrix_power,
)
from ._ops.native_misc import (
    empty_permuted as empty_permuted,
    is_inference as is_inference,
)
from ._ops.native_norms import (
    frobenius_norm as frobenius_norm,
    is_warn_always_enabled as is_warn_always_enabled,
    native_batch_norm as native_batch_norm,
    native_dropout as native_dropout,
    native_group_norm as native_group_norm,
    native_layer_norm as native_layer_norm,
    native_norm as native_norm,
    norm_except_dim as norm_except_dim,
    nuclear_norm as nuclear_norm,
    set_warn_always as set_warn_always,
)
from ._ops.nn_activation import (
    celu as celu,
    celu_ as celu_,
    hardshrink as hardshrink,
    prelu as prelu,
    relu_ as relu_,
    _torch_rrelu as rrelu,
    _torch_rrelu_ as rrelu_,
    selu as selu,
    selu_ as selu_,
    threshold as threshold,
    threshold_ as threshold_,
)
from ._ops.nn_conv import (
    channel_shuffle as channel_shuffle,
    conv1d as conv1d,
    conv2d as conv2d,
    conv3d as conv3d,
    conv_transpose1d as conv_transpose1d,
    conv_transpose2d as conv_transpose2d,
    conv_transpose3d as conv_transpose3d,
    native_channel_shuffle as native_channel_shuffle,
    pixel_shuffle as pixel_shuffle,
    pixel_unshuffle as pixel_unshuffle,
)
from ._ops.nn_conv_tbc import (
    conv_tbc as conv_tbc,
)
from ._ops.nn_distance import (
    cosine_similarity as cosine_similarity,
    pairwise_distance as pairwise_distance,
    pdist as pdist,
)
from ._ops.nn_dropout import (
    torch_alpha_dropout as alpha_dropout,
    torch_alpha_dropout_ as alpha_dropout_,
    torch_dropout as dropout,
    torch_dropout_ as dropout_,
    torch_feature_alpha_dropout as feature_alpha_dropout,
    torch_feature_alpha_dropout_ as feature_alpha_dropout_,
    torch_feature_dropout as feature_dropout,
    torch_feature_dropout_ as feature_dropout_,
)
from ._ops.nn_embedding import (
    torch_embedding as embedding,
    embedding_renorm_ as embedding_renorm_,
)
from ._ops.nn_grouped_mm import (
    _grouped_mm as _grouped_mm,
)
from ._ops.nn_interp import (
    affine_grid_generator as affine_grid_generator,
    grid_sampler as grid_sampler,
    grid_sampler_2d as grid_sampler_2d,
    grid_sampler_3d as grid_sampler_3d,
)
from ._ops.nn_linear import (
    bilinear as bilinear,
)
from ._ops.nn_loss import (
    _torch_bce_with_logits as binary_cross_entropy_with_logits,
    _torch_kl_div as kl_div,
)
from ._ops.nn_loss_extra import (
    _torch_cosine_embedding_loss as cosine_embedding_loss,
    _torch_ctc_loss as ctc_loss,
    _torch_hinge_embedding_loss as hinge_embedding_loss,
    _torch_margin_ranking_loss as margin_ranking_loss,
    _torch_poisson_nll_loss as poisson_nll_loss,
    _torch_triplet_margin_loss as triplet_margin_loss,
)
from ._ops.nn_norm import (
    torch_batch_norm as batch_norm,
    group_norm as group_norm,
    torch_instance_norm as instance_norm,
    layer_norm as layer_norm,
    rms_norm as rms_norm,
)
from ._ops.nn_pad import (
    constant_pad_nd as constant_pad_nd,
)
from ._ops.nn_pool import (
    adaptive_avg_pool1d as adaptive_avg_pool1d,
    _torch_adaptive_max_pool1d as adaptive_max_pool1d,
    avg_pool1d as avg_pool1d,
    max_pool1d as max_pool1d,
    max_pool1d_with_indices as max_pool1d_with_indices,
    max_pool2d as max_pool2d,
    max_pool3d as max_pool3d,
)
from ._ops.nn_rnn import (
    gru as gru,
    gru_cell as gru_cell,
    lstm as lstm,
    lstm_cell as lstm_cell,
    rnn_relu as rnn_relu,
    rnn_relu_cell as rnn_relu_cell,
    rnn_tanh as rnn_tanh,
    rnn_tanh_cell as rnn_tanh_cell,
)
from ._ops.norms import (
    norm as norm,
)
from ._ops.numeric import (
    corrcoef as corrcoef,
    cov as cov,
    cumulative_trapezoid as cumulative_trapezoid,
    diff as diff,
    dist as dist,
    renorm as renorm,
    trapezoid as trapezoid,
    trapz as trapz,
    vander as vander,
)
from ._ops.pointwise import (
    abs as abs,
    abs as absolute,
    add as add,
    addcdiv as addcdiv,
    addcmul as addcmul,
    conj as conj,
    conj_physical as conj_physical,
    div as div,
    div as divide,
    float_power as float_power,
    floor_divide as floor_divide,
    fmod as fmod,
    imag as imag,
    lerp as lerp,
    mul as mul,
    mul as multiply,
    neg as neg,
    neg as negative,
    positive as positive,
    pow as pow,
    real as real,
    reciprocal as reciprocal,
    remainder as remainder,
    rsub as rsub,
    square as square,
    sub as sub,
    sub as subtract,
    div as true_divide,
)
from ._ops.pointwise_math import (
    acos as acos,
    acosh as acosh,
    angle as angle,
    acos as arccos,
    acosh as arccosh,
    asin as arcsin,
    asinh as arcsinh,
    atan as arctan,
    atan2 as arctan2,
    atanh as arctanh,
    asin as asin,
    asinh as asinh,
    atan as atan,
    atan2 as atan2,
    atanh as atanh,
    ceil as ceil,
    copysign as copysign,
    cos as cos,
    cosh as cosh,
    deg2rad as deg2rad,
    erf as erf,
    erfc as erfc,
    erfinv as erfinv,
    exp as exp,
    exp2 as exp2,
    expm1 as expm1,
    trunc as fix,
    floor as floor,
    frac as frac,
    frexp as frexp,
    heaviside as heaviside,
    hypot as hypot,
    ldexp as ldexp,
    log as log,
    log10 as log10,
    log1p as log1p,
    log2 as log2,
    logaddexp as logaddexp,
    logaddexp2 as logaddexp2,
    logit as logit,
    nextafter as nextafter,
    rad2deg as rad2deg,
    round as round,
    rsqrt as rsqrt,
    sgn as sgn,
    sigmoid as sigmoid,
    sign as sign,
    signbit as signbit,
    sin as sin,
    sinc as sinc,
    sinh as sinh,
    sqrt as sqrt,
    tan as tan,
    tanh as tanh,
    trunc as trunc,
    xlogy as xlogy,
)
from ._ops.random_ops import (
    bernoulli as bernoulli,
    multinomial as multinomial,
    normal as normal,
    poisson as poisson,
    rand as rand,
    rand_like as rand_like,
    randint as randint,
    randint_like as randint_like,
    randn as randn,
    randn_like as randn_like,
    randperm as randperm,
)
from ._ops.random_sampling import (
    _dirichlet_grad as _dirichlet_grad,
    _sample_dirichlet as _sample_dirichlet,
    _standard_gamma as _standard_gamma,
    _standard_gamma_grad as _standard_gamma_grad,
    binomial as binomial,
)
from ._ops.reduction import (
    _softmax_backward_data as _softmax_backward_data,
    all as all,
    amax as amax,
    amin as amin,
    aminmax as aminmax,
    any as any,
    argmax as argmax,
    argmin as argmin,
    count_nonzero as count_nonzero,
    log_softmax as log_softmax,
    logsumexp as logsumexp,
    max as max,
    mean as mean,
    min as min,
    nanmean as nanmean,
    nansum as nansum,
    prod as prod,
    softmax as softmax,
    std as std,
    std_mean as std_mean,
    sum as sum,
    var as var,
    var_mean as var_mean,
)
from ._ops.scatter import (
    gather as gather,
    index_add as index_add,
    index_copy as index_copy,
    index_fill as index_fill,
    index_reduce as index_reduce,
    index_select as index_select,
    masked_fill as masked_fill,
    masked_scatter as masked_scatter,
    put as put,
    scatter as scatter,
    scatter_add as scatter_add,
    scatter_reduce as scatter_reduce,
    take as take,
    take_along_dim as take_along_dim,
)
from ._ops.segment_reduce import (
    segment_reduce as _segment_reduce,
    segment_reduce as segment_reduce,
)
from ._ops.selection import (
    argsort as argsort,
    bincount as bincount,
    bucketize as bucketize,
    histc as histc,
    histogram as histogram,
    kthvalue as kthvalue,
    msort as msort,
    searchsorted as searchsorted,
    sort as sort,
    topk as topk,
    unique as unique,
    unique_consecutive as unique_consecutive,
)
from ._ops.shape import (
    adjoint as adjoint,
    flatten as flatten,
    movedim as moveaxis,
    movedim as movedim,
    permute as permute,
    ravel as ravel,
    reshape as reshape,
    squeeze as squeeze,
    swapaxes as swapaxes,
    transpose as swapdims,
    t as t,
    transpose as transpose,
    unflatten as unflatten,
    unsqueeze as unsqueeze,
)
from ._ops.shape_build import (
    block_diag as block_diag,
    combinations as combinations,
    diagflat as diagflat,
    tril_indices as tril_indices,
    triu_indices as triu_indices,
    unravel_index as unravel_index,
)
from ._ops.shape_complex import (
    view_as_complex as view_as_complex,
    view_as_real as view_as_real,
)
from ._ops.shape_copy import (
    cartesian_prod as cartesian_prod,
    cat as cat,
    clone as clone,
    column_stack as column_stack,
    cat as concat,
    cat as concatenate,
    diag as diag,
    diag_embed as diag_embed,
    dstack as dstack,
    flip as flip,
    fliplr as fliplr,
    flipud as flipud,
    hstack as hstack,
    meshgrid as meshgrid,
    repeat_interleave as repeat_interleave,
    roll as roll,
    rot90 as rot90,
    vstack as row_stack,
    stack as stack,
    tile as tile,
    trace as trace,
    tril as tril,
    triu as triu,
    vstack as vstack,
)
from ._ops.shape_expand import (
    atleast_1d as atleast_1d,
    atleast_2d as atleast_2d,
    atleast_3d as atleast_3d,
    broadcast_shapes as broadcast_shapes,
    broadcast_tensors as broadcast_tensors,
    broadcast_to as broadcast_to,
)
from ._ops.shape_slice import (
    as_strided as as_strided,
    as_strided_scatter as as_strided_scatter,
    chunk as chunk,
    diagonal as diagonal,
    diagonal_scatter as diagonal_scatter,
    dsplit as dsplit,
    hsplit as hsplit,
    narrow as narrow,
    narrow_copy as narrow_copy,
    select as select,
    select_scatter as select_scatter,
    slice_scatter as slice_scatter,
    split as split,
    split_with_sizes as split_with_sizes,
    tensor_split as tensor_split,
    unbind as unbind,
    vsplit as vsplit,
)
from ._ops.sparse import (
    sparse_coo_tensor as sparse_coo_tensor,
    spmm as spmm,
)
from ._ops.special_math import (
    digamma as digamma,
    i0 as i0,
    igamma as igamma,
    igammac as igammac,
    lgamma as lgamma,
    mvlgamma as mvlgamma,
    polygamma as polygamma,
)
from ._ops.spectral import (
    istft as istft,
    stft as stft,
)
from ._ops.statistics import (
    median as median,
    mode as mode,
    nanmedian as nanmedian,
    nanquantile as nanquantile,
    quantile as quantile,
)
from ._ops.symbolic import (
    _check as _check,
    _check_index as _check_index,
    _check_is_size as _check_is_size,
    _check_not_implemented as _check_not_implemented,
    _check_tensor_all as _check_tensor_all,
    _check_tensor_all_with as _check_tensor_all_with,
    _check_type as _check_type,
    _check_value as _check_value,
    _check_with as _check_with,
    sym_float as sym_float,
    sym_int as sym_int,
    sym_ite as sym_ite,
    sym_max as sym_max,
    sym_min as sym_min,
    sym_not as sym_not,
    sym_sqrt as sym_sqrt,
    sym_sum as sym_sum,
)
from ._ops.tensor_storage import (
    StorageBase as StorageBase,
    get_device as get_device,
    unsafe_chunk as unsafe_chunk,
    unsafe_split as unsafe_split,
    unsafe_split_with_sizes as unsafe_split_with_sizes,
)
from ._ops.typed_storage import (
    BFloat16Storage as BFloat16Storage,
    BoolStorage as BoolStorage,
    ByteStorage as ByteStorage,
    CharStorage as CharStorage,
    ComplexDoubleStorage as ComplexDoubleStorage,
    ComplexFloatStorage as ComplexFloatStorage,
    DoubleStorage as DoubleStorage,
    FloatStorage as FloatStorage,
    HalfStorage as HalfStorage,
    IntStorage as IntStorage,
    LongStorage as LongStorage,
    ShortStorage as ShortStorage,
    FloatStorage as Storage,
    TypedStorage as TypedStorage,
    is_storage as is_storage,
)
from ._ops.typeinfo import (
    _assert as _assert,
    _assert_async as _assert_async,
    can_cast as can_cast,
    detach as detach,
    detach_ as detach_,
    finfo as finfo,
    iinfo as iinfo,
    is_complex as is_complex,
    is_conj as is_conj,
    is_floating_point as is_floating_point,
    is_neg as is_neg,
    is_nonzero as is_nonzero,
    is_same_size as is_same_size,
    is_signed as is_signed,
    is_tensor as is_tensor,
    numel as numel,
    promote_types as promote_types,
    resolve_conj as resolve_conj,
    resolve_neg as resolve_neg,
    result_type as result_type,
    typename as typename,
)
from ._ops.windows import (
    bartlett_window as bartlett_window,
    blackman_window as blackman_window,
    hamming_window as hamming_window,
    hann_window as hann_window,
    kaiser_window as kaiser_window,
)
# --- end of generated code ---

# torch.functional, as torch/__init__ imports it: its names are the ones above
from . import functional  # noqa: E402

# torch.torch is torch itself (torch/__init__ imports its own package; kornia annotates with
# torch.torch.Tensor)
torch = _sys.modules[__name__]

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
_name_fallback = torch_name_fallback("torch")


def __getattr__(name):
    if name == "set_vital":  # PyTorch 2.13: deprecated, a warning and a no-op, as there
        _warnings.warn(f"'{name}' is deprecated, please do not call", stacklevel=2)
        return lambda *args: None
    return _name_fallback(name)
