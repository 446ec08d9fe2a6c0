"""Autocast's per-op policy and the state the dispatcher reads.

``ACTIVE[0]`` is None while no device type has autocast enabled (the dispatcher's whole cost
then is reading it), else ``{device_type: (policy, dtype)}`` for the enabled device types.
A policy maps an op's name (``OpDef.name``, the op table's name) to a kind:

- ``LOWER``: floating inputs run in the autocast dtype (PyTorch's "lower_precision_fp" list);
- ``FP32``: lower-precision floating inputs run in float32 ("fp32" list);
- ``PROMOTE``: floating inputs run in the widest floating dtype among them ("promote" list);
- ``LOWER_OUT``: the op runs as given and its floating outputs are cast to the autocast dtype
  (for a composite whose PyTorch decomposition autocasts only its later steps);
- ``BANNED``: the op raises (binary_cross_entropy under CUDA autocast, as in PyTorch);

or to a rule ``rule(arguments) -> kind or None``, called inside the trace with the op's bound
arguments (static values and tracers with static shapes), for ops whose PyTorch behaviour
depends on an argument (F.pad's mode, einsum's equation, matrix_power's n...).

float64 inputs, integer inputs and Python numbers are never cast, as in PyTorch. The casts
happen inside the op's traced kernel (``autocast_body``), so the backward (jax.vjp of the kernel)
returns gradients in the inputs' own dtypes and a compiled step sees the same kernels.

The tables below follow PyTorch's ``aten/src/ATen/autocast_mode.cpp`` for the ops jtorch has
(names jtorch does not have are harmless), plus the jtorch ops that are composites in PyTorch
whose decomposition hits a listed op (einsum, tensordot, inner, matrix_power, hstack...). The
CPU table is checked op by op against ``torch.autocast("cpu", torch.bfloat16)`` in
tests/test_amp.py.
"""

from __future__ import annotations

import jax.numpy as jnp

LOWER, FP32, PROMOTE, LOWER_OUT, BANNED = "lower", "fp32", "promote", "lower_out", "banned"

# None, or {device_type: (policy dict, numpy dtype)} for the device types with autocast on;
# one object per distinct state (autocast_mode._refresh), so its id() is a stable cache key
ACTIVE = [None]

_F32 = jnp.dtype(jnp.float32)
_F64 = jnp.dtype(jnp.float64)

_BCE_BANNED = (
    "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
    "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
    "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_"
    "logits\nor torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits "
    "are\nsafe to autocast.")


# ------------------------------------------------------------------ rules (run inside a trace)
def _einsum_rule(a):
    """PyTorch's einsum contracts operand pairs with bmm (autocast) only when a label shared
    by two operands is summed out; otherwise it multiplies (no autocast)."""
    eq = a["equation"].replace(" ", "")
    lhs, arrow, out = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) < 2:
        return None
    if not arrow:
        letters = lhs.replace(",", "").replace(".", "")
        out = "".join(c for c in letters if letters.count(c) == 1)
    seen = {}
    for t in terms:
        for c in set(t) - {"."}:
            seen[c] = seen.get(c, 0) + 1
    return LOWER if any(n >= 2 and c not in out for c, n in seen.items()) else None


def _tensordot_ndim(a, b, dims):
    k = dims if isinstance(dims, int) else len(dims[0])
    return a.ndim + b.ndim - 2 * k


def _tensordot_rule(a):
    """tensordot runs an mm (autocast) unless its result is 0-d (then a dot)."""
    return LOWER if _tensordot_ndim(a["a"], a["b"], a.get("dims", 2)) > 0 else None


def _inner_rule(a):
    x, y = a["input"], a["other"]
    if x.ndim == 0 or y.ndim == 0 or x.ndim + y.ndim == 2:
        return None   # a mul, or a dot
    return LOWER


def _matrix_power_rule(fp32_inverse):
    def rule(a):
        n = a["n"]
        if n in (0, 1):
            return None                      # identity / clone
        if n == -1:
            return FP32 if fp32_inverse else None   # one inverse
        return LOWER if n > 0 else LOWER_OUT      # matmuls (after an fp32 inverse)
    return rule


def _rnn_rule(a):
    """CPU LSTM/RNN run oneDNN's (or the linear-based) kernels, which autocast; GRU does not."""
    return None if a["mode"] == "GRU" else LOWER


def _pad_rule(a):
    """F.pad: reflection_pad1d/2d and replication_pad1d/2d/3d are on the CPU fp32 list."""
    k = len(a["pad"]) // 2
    mode = a["mode"]
    if (mode == "reflect" and k in (1, 2)) or (mode == "replicate" and k in (1, 2, 3)):
        return FP32
    return None


def _max_pool3d_rule(a):
    """F.max_pool3d is on the CPU fp32 list; with return_indices PyTorch calls
    max_pool3d_with_indices, which is not."""
    return None if a.get("return_indices") else FP32


def _fp32_unless_dtype(a):
    """PyTorch's fp32_set_opt_dtype: an explicit ``dtype=`` wins, else the op runs in fp32."""
    return FP32 if a.get("dtype") is None else None


def _tensordot_cuda(a):
    return LOWER if _tensordot_ndim(a["a"], a["b"], a.get("dims", 2)) > 0 else PROMOTE


def _table(**kinds):
    out = {}
    for kind, names in kinds.items():
        for n in names.split():
            out[n] = kind
    return out


_CPU = {
    **_table(
        lower="conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d conv_tbc "
              "bmm mm matmul baddbmm addmm addbmm linear prelu linalg.vecdot linalg.multi_dot "
              "chain_matmul _scaled_dot_product_attention _multi_head_attention "
              "rnn_tanh_cell rnn_relu_cell",
        fp32="avg_pool3d binary_cross_entropy grid_sampler_2d grid_sampler_3d polar prod "
             "quantile nanquantile stft cdist trace view_as_complex cholesky cholesky_inverse "
             "cholesky_solve inverse lu_solve orgqr ormqr pinverse linalg.pinv "
             "max_unpool2d max_unpool3d adaptive_avg_pool3d adaptive_max_pool3d "
             "fractional_max_pool2d fractional_max_pool3d "
             "mse_loss cosine_embedding_loss nll_loss hinge_embedding_loss poisson_nll_loss "
             "smooth_l1_loss cross_entropy l1_loss huber_loss margin_ranking_loss "
             "soft_margin_loss triplet_margin_loss multi_margin_loss ctc_loss kl_div "
             "multilabel_margin_loss binary_cross_entropy_with_logits "
             "fft.fft fft.ifft fft.fft2 fft.ifft2 fft.fftn fft.ifftn fft.rfft fft.irfft "
             "fft.rfft2 fft.irfft2 fft.rfftn fft.irfftn fft.hfft fft.ihfft "
             "linalg.cond linalg.matrix_rank linalg.solve linalg.cholesky linalg.svdvals "
             "linalg.eigvals linalg.eigvalsh linalg.inv linalg.householder_product "
             "linalg.tensorinv linalg.tensorsolve geqrf qr svd triangular_solve linalg.qr "
             "linalg.cholesky_ex linalg.svd linalg.eig linalg.eigh linalg.lstsq linalg.inv_ex",
        promote="cat stack index_copy hstack vstack dstack column_stack row_stack"),
    "einsum": _einsum_rule,
    "tensordot": _tensordot_rule,
    "inner": _inner_rule,
    "linalg.matrix_power": _matrix_power_rule(True),
    "_rnn": _rnn_rule,
    "pad": _pad_rule,
    "max_pool3d": _max_pool3d_rule,
}

_CUDA = {
    **_table(
        lower="conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d conv_tbc "
              "prelu addmm addmv addr matmul einsum mm mv linalg.vecdot linear addbmm baddbmm "
              "bmm chain_matmul linalg.multi_dot lstm_cell gru_cell rnn_tanh_cell "
              "rnn_relu_cell _scaled_dot_product_attention _multi_head_attention _rnn",
        fp32="acos asin cosh erfinv exp expm1 log log10 log2 log1p reciprocal rsqrt sinh tan "
             "pow softplus layer_norm group_norm frobenius_norm nuclear_norm cosine_similarity "
             "poisson_nll_loss cosine_embedding_loss nll_loss hinge_embedding_loss kl_div "
             "l1_loss smooth_l1_loss huber_loss mse_loss margin_ranking_loss "
             "multilabel_margin_loss soft_margin_loss triplet_margin_loss multi_margin_loss "
             "binary_cross_entropy_with_logits dist pdist cdist renorm logsumexp _upsample "
             "cross_entropy normalize",
        promote="addcdiv addcmul atan2 bilinear cross linalg.cross dot grid_sampler_2d "
                "grid_sampler_3d index_put scatter_add cat stack index_copy hstack vstack "
                "dstack column_stack row_stack",
        banned="binary_cross_entropy"),
    **dict.fromkeys(("prod", "softmax", "log_softmax", "softmin", "cumprod", "cumsum",
                     "linalg.vector_norm", "linalg.matrix_norm", "linalg.norm", "sum", "norm"),
                    _fp32_unless_dtype),
    "tensordot": _tensordot_cuda,
    "inner": _inner_rule,
    "linalg.matrix_power": _matrix_power_rule(False),
}

POLICIES = {"cpu": _CPU, "cuda": _CUDA}


# ------------------------------------------------------------------ the kernel layer's side
def autocast_key(opdef, key, device):
    """The key of a call of ``opdef`` on ``device`` under the active autocast state: ``key``
    with its autocast part set to ``(kind or rule, dtype)`` when the op is in the policy of the
    device's type, else ``key`` unchanged."""
    st = ACTIVE[0]
    if st is None or device is None:
        return key
    cur = st.get(device.type)
    if cur is None:
        return key
    rule = cur[0].get(opdef.name)
    if rule is None:
        return key
    if rule == BANNED:
        raise RuntimeError(_BCE_BANNED)
    return (key[0], key[1], (rule, cur[1]))


def runs_in_float32(name, device):
    """Whether autocast is on for ``device``'s type and runs op ``name``'s lower-precision
    floating inputs in float32 (its ``FP32`` kind): for ops whose Python side checks dtypes
    before the kernel casts them."""
    st = ACTIVE[0]
    cur = None if st is None or device is None else st.get(device.type)
    return cur is not None and cur[0].get(name) == FP32


def autocast_body(opdef, spec, body):
    """``body`` (a kernel's traced function of its dynamic values) with autocast's casts
    (``spec.autocast``) applied to the floating tensor slots first (or, for LOWER_OUT, to the
    outputs after)."""
    rule, low = spec.autocast
    slots = spec.tensor_slots()
    params = opdef.params

    def run(*vals):
        kind = rule(spec.bind_by_name(params, vals)) if callable(rule) else rule
        if kind is None:
            return body(*vals)
        if kind == LOWER_OUT:
            return _cast_outputs(body(*vals), low)
        if kind == LOWER:
            target = low
        elif kind == FP32:
            target = _F32
        else:
            target = _promote_type(vals, slots, low)
        vals = list(vals)
        for i in slots:
            v = vals[i]
            dt = v.dtype
            if dt != target and dt != _F64 and jnp.issubdtype(dt, jnp.floating):
                vals[i] = v.astype(target)
        return body(*vals)

    return run


def _promote_type(vals, slots, low):
    """at::autocast::promote_type: start from the autocast dtype; float32 wins over it,
    float64 inputs are ignored, any other floating dtype is PyTorch's error."""
    cur = low
    for i in slots:
        dt = vals[i].dtype
        if dt == _F64 or not jnp.issubdtype(dt, jnp.floating):
            continue
        if cur == _F32 or dt == _F32:
            cur = _F32
        elif not (cur == low and dt == low):
            raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
    return cur


def _cast_outputs(out, low):
    if isinstance(out, (tuple, list)):
        return tuple(_cast_outputs(o, low) for o in out)
    if jnp.issubdtype(out.dtype, jnp.floating) and out.dtype != _F64:
        return out.astype(low)
    return out


def without_autocast(fn, *args):
    """``fn(*args)`` with autocast off (the out= and in-place forms, which PyTorch does not
    autocast)."""
    prev = ACTIVE[0]
    if prev is None:
        return fn(*args)
    ACTIVE[0] = None
    try:
        return fn(*args)
    finally:
        ACTIVE[0] = prev
