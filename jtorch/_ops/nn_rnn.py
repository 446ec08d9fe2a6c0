"""Recurrent kernels: the whole multi-layer RNN / LSTM / GRU forward as ONE op, the cells
(``torch.rnn_tanh_cell``, ``rnn_relu_cell``, ``lstm_cell``, ``gru_cell``) and the gathers that
pack and unpack variable-length sequences.

Each layer x direction is one ``jax.lax.scan`` over time inside the kernel; the input-to-hidden
products of all time steps are one matmul before the scan, so the scan body only does the
hidden-to-hidden product and the gates. The backward is ``jax.vjp`` of the kernel.

Packed sequences run on padded, time-major data with a per-step mask: a finished sequence
keeps its last state (so ``h_n`` is PyTorch's), the reverse direction of a shorter sequence
starts from ``h0`` at its own last step, and the outputs of padded steps are dropped when
the output is gathered back into packed order. The index arrays come from ``batch_sizes``
(host values, as in PyTorch, where ``batch_sizes`` is always a CPU tensor).

Gate order is PyTorch's: LSTM (i, f, g, o), GRU (r, z, n) with ``b_hn`` inside ``r * (...)``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .._core.generator import keep_mask, next_key, wrap
from ._index_util import dtype_of, need_concrete
from ._registry import export, op

MODES = ("RNN_TANH", "RNN_RELU", "LSTM", "GRU")


# ------------------------------------------------------------------------------ math
def _lin(x, w, b):
    y = jnp.matmul(x, w.T)
    return y if b is None else y + b


def _dlin(h, w, b):
    """Per-direction ``h @ w.T + b``: h (D, B, K), w (D, G, K), b (D, G) or None."""
    y = jnp.einsum("dbk,dgk->dbg", h, w)
    return y if b is None else y + b[:, None]


def gates(mode, gi, gh, h, c):
    """The cell's nonlinearity from input gates ``gi`` and hidden gates ``gh``: (h', c')."""
    if mode == "LSTM":
        i, f, g, o = jnp.split(gi + gh, 4, axis=-1)
        c2 = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        return jax.nn.sigmoid(o) * jnp.tanh(c2), c2
    if mode == "GRU":
        ir, iz, in_ = jnp.split(gi, 3, axis=-1)
        hr, hz, hn = jnp.split(gh, 3, axis=-1)
        r = jax.nn.sigmoid(ir + hr)
        z = jax.nn.sigmoid(iz + hz)
        n = jnp.tanh(in_ + r * hn)
        return n + z * (h - n), None
    pre = gi + gh
    return (jnp.tanh(pre) if mode == "RNN_TANH" else jax.nn.relu(pre)), None


def _layer_params(params, has_biases, proj):
    p = list(params)
    w_ih, w_hh = p[0], p[1]
    b_ih, b_hh = (p[2], p[3]) if has_biases else (None, None)
    w_hr = p[-1] if proj else None
    return w_ih, w_hh, b_ih, b_hh, w_hr


def _stack(ps):
    return None if ps[0] is None else jnp.stack(ps)


def scan_layer(mode, x, h0, c0, dir_params, has_biases, proj, mask):
    """One layer, all directions in ONE scan over time-major ``x`` (T, B, F).

    ``dir_params``: per direction its parameter list; direction 1 runs on the time-reversed
    sequence (with its mask reversed too, so a short sequence starts from h0 at its own last
    step). h0/c0: (D, B, *). Returns (outputs (T, B, D * H), h_T (D, B, H), c_T or None).
    """
    D = len(dir_params)
    ps = [_layer_params(p, has_biases, proj) for p in dir_params]
    w_hh, b_hh, w_hr = (_stack([p[k] for p in ps]) for k in (1, 3, 4))
    gi = jnp.stack([_lin(x if d == 0 else x[::-1], ps[d][0], ps[d][2]) for d in range(D)],
                   axis=1)  # (T, D, B, G)
    if mask is not None:
        mask = jnp.stack([mask if d == 0 else mask[::-1] for d in range(D)], axis=1)

    def step(carry, inp):
        h, c = carry
        g, m = inp if mask is not None else (inp, None)
        h2, c2 = gates(mode, g, _dlin(h, w_hh, b_hh), h, c)
        if w_hr is not None:
            h2 = jnp.einsum("dbh,dph->dbp", h2, w_hr)
        if m is not None:
            keep = m[..., None]
            h2 = jnp.where(keep, h2, h)
            c2 = None if c2 is None else jnp.where(keep, c2, c)
        return (h2, c2), h2

    xs = (gi, mask) if mask is not None else gi
    (h, c), ys = jax.lax.scan(step, (h0, c0), xs)  # ys (T, D, B, H)
    outs = [ys[:, 0]] + ([ys[::-1, 1]] if D == 2 else [])
    return (outs[0] if D == 1 else jnp.concatenate(outs, axis=-1)), h, c


def cell_math(mode, gi, h, c, w_hh, b_hh):
    """One cell step from precomputed input gates ``gi``: (h', c')."""
    return gates(mode, gi, _lin(h, w_hh, b_hh), h, c)


def _dropout(x, key, p, salt):
    if p >= 1.0:
        return jnp.zeros_like(x)
    keep = keep_mask(jax.random.fold_in(wrap(key), salt), 1.0 - p, x.shape, x.dtype)
    return jnp.where(keep, x / jnp.asarray(1.0 - p, x.dtype), jnp.zeros((), x.dtype))


# ------------------------------------------------------------------------------ the RNN op
@op("_rnn", method=False, out=False, tensors=("input", "hx", "cx", "params"),
    grad_name="StackBackward0")
def _rnn(input, hx, cx, params, packing, rng, mode, has_biases, num_layers, dropout, train,
         bidirectional, batch_first, batched, hidden_size, proj_size):
    """Multi-layer (bi)directional recurrence. ``packing`` is None or (pad_idx, mask, out_idx,
    perm, unperm) built by :func:`packing_arrays` for a PackedSequence's ``input.data``."""
    lstm = mode == "LSTM"
    if packing is not None:
        pad_idx, mask, out_idx, perm, unperm = packing
        x = jnp.where(mask[..., None], input[pad_idx], jnp.zeros((), input.dtype))
    else:
        mask = perm = unperm = None
        x = input if batched else input[:, None]
        if batched and batch_first:
            x = jnp.swapaxes(x, 0, 1)
    T, B = x.shape[0], x.shape[1]
    D = 2 if bidirectional else 1
    hr = proj_size if proj_size else hidden_size
    dt = x.dtype

    def initial(s, size):
        if s is None:
            return jnp.zeros((num_layers * D, B, size), dt)
        s = s if packing is not None or batched else s[:, None]
        return s if perm is None else s[:, perm]

    h0 = initial(hx, hr)
    c0 = initial(cx, hidden_size) if lstm else None
    per = 2 + 2 * has_biases + (1 if proj_size else 0)
    hs, cs = [], []
    layer_in = x
    for layer in range(num_layers):
        sl = slice(layer * D, (layer + 1) * D)
        ys, h, c = scan_layer(mode, layer_in, h0[sl], None if c0 is None else c0[sl],
                              [params[i * per:(i + 1) * per] for i in range(layer * D,
                                                                            (layer + 1) * D)],
                              has_biases, proj_size, mask)
        hs.append(h)
        cs.append(c)
        layer_in = ys
        if train and dropout > 0.0 and layer < num_layers - 1:
            layer_in = _dropout(layer_in, rng, dropout, layer)
    out = layer_in
    hn = jnp.concatenate(hs)
    cn = jnp.concatenate(cs) if lstm else None
    if packing is not None:
        out = out.reshape(T * B, -1)[out_idx]
        if unperm is not None:
            hn = hn[:, unperm]
            cn = None if cn is None else cn[:, unperm]
    elif not batched:
        out, hn = out[:, 0], hn[:, 0]
        cn = None if cn is None else cn[:, 0]
    elif batch_first:
        out = jnp.swapaxes(out, 0, 1)
    return (out, hn, cn) if lstm else (out, hn)


def packing_arrays(batch_sizes, sorted_indices, unsorted_indices):
    """Host index arrays for the ``_rnn`` kernel from a PackedSequence's ``batch_sizes``."""
    bs = np.asarray(batch_sizes, np.int64)
    B = int(bs[0])
    offsets = np.concatenate([[0], np.cumsum(bs)[:-1]])
    b = np.arange(B)
    mask = b[None, :] < bs[:, None]
    pad_idx = np.where(mask, offsets[:, None] + b[None, :], 0)
    out_idx = np.flatnonzero(mask.reshape(-1))
    return (pad_idx, mask, out_idx, sorted_indices, unsorted_indices)


# ------------------------------------------------------------------------------ cells
def _check_cell(input, hx_list, w_ih, w_hh, name):
    if input.ndim == 1 or any(h.ndim == 1 for h in hx_list):
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got "
                         "1)")
    if input.shape[1] != w_ih.shape[1]:
        raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected "
                           f"{w_ih.shape[1]}")
    for i, h in enumerate(hx_list):
        if h.shape[0] != input.shape[0]:
            raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{i} "
                               f"batch size {h.shape[0]}")
        if h.shape[1] != w_hh.shape[1]:
            raise RuntimeError(f"hidden{i} has inconsistent hidden_size: got {h.shape[1]}, "
                               f"expected {w_hh.shape[1]}")
    for t in (*hx_list, w_ih, w_hh):
        if t.dtype != input.dtype:
            a, b = dtype_of(input).scalar_name, dtype_of(t).scalar_name
            raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                               f"{_cap(a)} and {_cap(b)}")


def _cap(name):
    return {"double": "Double", "float": "Float", "c10::Half": "Half",
            "c10::BFloat16": "BFloat16"}.get(name, name)


def _cell_body(mode):
    def body(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
        if mode == "LSTM":
            if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                raise RuntimeError("lstm_cell expects two hidden states")
            h, c = hx
            _check_cell(input, [h, c], w_ih, w_hh, mode)
            return cell_math(mode, _lin(input, w_ih, b_ih), h, c, w_hh, b_hh)
        _check_cell(input, [hx], w_ih, w_hh, mode)
        return cell_math(mode, _lin(input, w_ih, b_ih), hx, None, w_hh, b_hh)[0]

    return body


_CELL_TENSORS = ("input", "hx", "w_ih", "w_hh", "b_ih", "b_hh")
rnn_tanh_cell = op("rnn_tanh_cell", method=False, out=False, tensors=_CELL_TENSORS,
                   grad_name="TanhBackward0")(_cell_body("RNN_TANH"))
rnn_relu_cell = op("rnn_relu_cell", method=False, out=False, tensors=_CELL_TENSORS,
                   grad_name="ReluBackward0")(_cell_body("RNN_RELU"))
lstm_cell = op("lstm_cell", method=False, out=False, tensors=_CELL_TENSORS,
               grad_name="MulBackward0")(_cell_body("LSTM"))
gru_cell = op("gru_cell", method=False, out=False, tensors=_CELL_TENSORS,
              grad_name="AddBackward0")(_cell_body("GRU"))


# ------------------------------------------------------------------------------ grad_fn names
@op("_rnn_grad_named", method=False, out=False, saves=False,
    grad_name=lambda input, name: name)
def _rnn_grad_named(input, name):
    """``input`` itself, recorded as a node named ``name``: the name of the op PyTorch's RNN
    ends an output with (``MkldnnRnnLayerBackward0``, ``CatBackward0``...), where jtorch's
    single ``_rnn`` node produced it."""
    return input


# ------------------------------------------------------------------------------ packing gathers
@op("_pack_gather", method=False, out=False, saves=False, grad_name="PackPaddedSequenceBackward0")
def _pack_gather(input, idx, batch_first):
    """Rows of the (time-major) padded ``input`` at flat (t * B + b) indices ``idx``."""
    x = jnp.swapaxes(input, 0, 1) if batch_first else input
    return x.reshape(x.shape[0] * x.shape[1], *x.shape[2:])[idx]


@op("_pad_scatter", method=False, out=False, saves=False, tensors=("data", "padding_value"),
    grad_name="PadPackedSequenceBackward0")
def _pad_scatter(data, padding_value, pad_idx, mask, perm, batch_first):
    """Padded (T, B, *) tensor from packed rows: ``data[pad_idx]`` where ``mask``, else the
    padding value; batch reordered by ``perm`` (unsorted_indices) when given."""
    m = mask.reshape(mask.shape + (1,) * (data.ndim - 1))
    out = jnp.where(m, data[pad_idx], jnp.asarray(padding_value).astype(data.dtype))
    if perm is not None:
        out = out[:, perm]
    return jnp.swapaxes(out, 0, 1) if batch_first else out


@op("_pad_sequence", method=False, out=False, saves=False, tensors=("sequences",),
    grad_name="CopySlices")
def _pad_sequence(sequences, batch_first, padding_value, padding_side):
    T = max(s.shape[0] for s in sequences)
    dt = sequences[0].dtype
    pv = jnp.asarray(padding_value).astype(dt)
    outs = []
    for s in sequences:
        n = T - s.shape[0]
        pad = [(0, n) if padding_side == "right" else (n, 0)] + [(0, 0)] * (s.ndim - 1)
        outs.append(jnp.pad(s.astype(dt), pad, constant_values=pv))
    return jnp.stack(outs, axis=0 if batch_first else 1)


# ------------------------------------------------------------------------------ torch.lstm & co
def _functional(mode, name):
    """``torch.<name>``: PyTorch's two overloads (padded input, or packed data + batch_sizes)."""

    def fn(input, *args):
        if not isinstance(args[2], (list, tuple)):  # (input, hx, params, has_biases..)
            hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first = \
                args
            packing, batched = None, True
        else:  # (data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidir)
            batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional = \
                args
            bs = need_concrete(batch_sizes, f"torch.{name}'s batch_sizes")
            packing, batched, batch_first = packing_arrays(bs, None, None), True, False
        if mode == "LSTM":
            if len(hx) != 2:
                raise RuntimeError("lstm expects two hidden states")
            h, c = hx
        else:
            h, c = hx, None
        params = list(params)
        gates = {"LSTM": 4, "GRU": 3}.get(mode, 1)
        d = 2 if bidirectional else 1
        per = len(params) // (num_layers * d)
        proj = per in (3, 5)
        hidden = params[0].shape[0] // gates
        proj_size = params[per - 1].shape[0] if proj else 0
        use = train and dropout > 0 and num_layers > 1
        out = _rnn(input, h, c, params, packing, next_key() if use else None, mode,
                   bool(has_biases), int(num_layers), float(dropout), bool(train),
                   bool(bidirectional), bool(batch_first), batched, hidden, proj_size)
        return tuple(out)

    fn.__name__ = fn.__qualname__ = name
    return fn


rnn_tanh = export("rnn_tanh")(_functional("RNN_TANH", "rnn_tanh"))
rnn_relu = export("rnn_relu")(_functional("RNN_RELU", "rnn_relu"))
lstm = export("lstm")(_functional("LSTM", "lstm"))
gru = export("gru")(_functional("GRU", "gru"))
