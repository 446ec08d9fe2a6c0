"""RNN, LSTM, GRU and their cells (``torch.nn.modules.rnn``).

The forward of RNN/LSTM/GRU checks shapes as PyTorch does, then runs ONE kernel
(``jtorch._ops.nn_rnn._rnn``: every layer and direction, a ``lax.scan`` each). PackedSequence
inputs are run with per-step masks (see ``nn_rnn``) and come back as a PackedSequence.
"""

from __future__ import annotations

import math
import numbers
import warnings

from ..._core.dtypes import float32
from ..._core.generator import next_key
from ..._ops import nn_rnn as rnn_kernels
from ..._ops.creation import empty, zeros
from ...autograd import no_grad
from ...backends import mkldnn as _mkldnn
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence, batch_sizes_np
from ._generated import changed_options
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}

# RNNBase's options that its repr names when they differ from these defaults
_RNN_OPTIONS = {"proj_size": 0, "num_layers": 1, "bias": True, "batch_first": False,
                "dropout": 0, "bidirectional": False}


def _mkldnn_enabled():
    return bool(_mkldnn.enabled)


def _reset_uniform(module):
    """PyTorch's initialisation of the recurrent layers and cells: every parameter
    U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
    stdv = 1.0 / math.sqrt(module.hidden_size) if module.hidden_size > 0 else 0
    for weight in module.parameters():
        init.uniform_(weight, -stdv, stdv)


def _check_type(name, value, typ):
    """RNNBase's TypeError for a constructor argument ``name`` that is not a ``typ``."""
    if not isinstance(value, typ):
        raise TypeError(f"{name} should be of type {typ.__name__}, got: {type(value).__name__}")


class RNNBase(Module):
    """Base of RNN, LSTM and GRU: PyTorch's parameters (``weight_ih_l{k}[_reverse]`` ...)."""

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first",
                     "dropout", "bidirectional", "proj_size"]

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        if (not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1
                or isinstance(dropout, bool)):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=2)
        for name, val, typ in (("bias", bias, bool), ("batch_first", batch_first, bool),
                               ("input_size", input_size, int)):
            _check_type(name, val, typ)
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        _check_type("hidden_size", hidden_size, int)
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        factory_kwargs = {"device": device, "dtype": dtype}
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_in = input_size if layer == 0 else real_hidden * num_directions
                sfx = "_reverse" if direction == 1 else ""
                shapes = [(f"weight_ih_l{layer}{sfx}", (gate_size, layer_in)),
                          (f"weight_hh_l{layer}{sfx}", (gate_size, real_hidden))]
                if bias:
                    shapes += [(f"bias_ih_l{layer}{sfx}", (gate_size,)),
                               (f"bias_hh_l{layer}{sfx}", (gate_size,))]
                if proj_size > 0:
                    shapes += [(f"weight_hr_l{layer}{sfx}", (proj_size, hidden_size))]
                for name, shape in shapes:
                    setattr(self, name, Parameter(empty(shape, **factory_kwargs)))
                names = [n for n, _ in shapes]
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, w) for w in ws] for ws in self._all_weights]

    def flatten_parameters(self):
        """A no-op, as in PyTorch on the CPU (cuDNN weight flattening does not apply)."""

    def reset_parameters(self):
        _reset_uniform(self)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}" + changed_options(self, _RNN_OPTIONS)
        return s.format(**self.__dict__)

    # ------------------------------------------------------------ checks (PyTorch's texts)
    def check_input(self, input, batch_sizes):
        w = self._flat_weights[0]
        if input.dtype != w.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({w.dtype}). Convert input: input.to({w.dtype}), or convert "
                             f"model: model.to({input.dtype})")
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError("input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def _expected_state_size(self, input, batch_sizes, size):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        return (self.num_layers * (2 if self.bidirectional else 1), mini_batch, size)

    def get_expected_hidden_size(self, input, batch_sizes):
        return self._expected_state_size(
            input, batch_sizes, self.proj_size if self.proj_size > 0 else self.hidden_size)

    def check_hidden_size(self, hx, expected, msg="Expected hidden size {}, got {}"):
        if tuple(hx.size()) != tuple(expected):
            raise RuntimeError(msg.format(tuple(expected), list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    # ------------------------------------------------------------ forward
    def _run(self, input, hx, cx):
        """Shared forward: PackedSequence or tensor input -> (output, h_n[, c_n])."""
        lstm = self.mode == "LSTM"
        name = {"RNN_TANH": "RNN", "RNN_RELU": "RNN"}.get(self.mode, self.mode)
        packed = isinstance(input, PackedSequence)
        if packed:
            data, batch_sizes, sorted_indices, unsorted_indices = input
            bs = batch_sizes_np(batch_sizes)
            packing = rnn_kernels.packing_arrays(bs, sorted_indices, unsorted_indices)
            x, batched = data, True
            if hx is not None:  # (the kernel applies sorted_indices to hx itself)
                self._check_args(x, hx, cx, bs)
            else:
                self.check_input(x, bs)
        else:
            packing = bs = None
            if input.dim() not in (2, 3):
                tensor = " tensor" if name == "RNN" else ""
                raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D"
                                 f"{tensor} instead")
            batched = input.dim() == 3
            x = input
            if hx is not None:
                want = 3 if batched else 2
                if lstm and (hx.dim() != want or cx.dim() != want):
                    kind = "batched 3-D" if batched else "unbatched 2-D"
                    raise RuntimeError(f"For {kind} input, hx and cx should also be {want}-D "
                                       f"but got ({hx.dim()}-D, {cx.dim()}-D) tensors")
                if not lstm and hx.dim() != want:
                    kind = "batched 3-D" if batched else "unbatched 2-D"
                    raise RuntimeError(f"For {kind} input, hx should also be {want}-D but got "
                                       f"{hx.dim()}-D tensor")
            xs = x if batched else x.unsqueeze(0 if self.batch_first else 1)
            if hx is not None:
                h3 = hx if batched else hx.unsqueeze(1)
                c3 = None if cx is None else (cx if batched else cx.unsqueeze(1))
                self._check_args(xs, h3, c3, None)
            else:
                self.check_input(xs, None)
        train = self.training and self.dropout > 0 and self.num_layers > 1
        rng = next_key() if train else None
        res = rnn_kernels._rnn(x, hx, cx, self._flat_weights, packing, rng, self.mode,
                               self.bias, self.num_layers, self.dropout, train,
                               self.bidirectional, self.batch_first, batched, self.hidden_size,
                               self.proj_size)
        if packed:
            res = (PackedSequence(res[0], batch_sizes, sorted_indices, unsorted_indices),
                   *res[1:])
        elif res[0].grad_fn is not None and res[0].device.type == "cpu":
            res = self._cpu_grad_names(res, batched, lstm)
        return res

    def _cpu_grad_names(self, res, batched, lstm):
        """The grad_fn names PyTorch's CPU RNN gives its outputs (its last op on each):
        unbatched, all are squeezed; else the hidden states are stacked and the output is
        transposed (batch_first), concatenated (bidirectional), oneDNN's (a float32 LSTM
        without projections) or stacked (jtorch's ``_rnn`` node, StackBackward0)."""
        named = rnn_kernels._rnn_grad_named
        if not batched:
            return tuple(named(t, "SqueezeBackward1") for t in res)
        if self.batch_first:
            name = "TransposeBackward0" if lstm else "TransposeBackward1"
        elif self.bidirectional:
            name = "CatBackward0"
        elif lstm and not self.proj_size and res[0].dtype == float32 and _mkldnn_enabled():
            name = "MkldnnRnnLayerBackward0"
        else:
            return res
        return (named(res[0], name), *res[1:])

    def _check_args(self, x, h, c, bs):
        self.check_forward_args(x, h, bs)


class RNN(RNNBase):
    """Elman RNN with tanh or ReLU: ``h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)``."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' "
                             "or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        return self._run(input, hx, None)


class GRU(RNNBase):
    """Gated recurrent unit (gate order r, z, n; ``b_hn`` inside ``r * (...)``)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._run(input, hx, None)


class LSTM(RNNBase):
    """Long short-term memory (gate order i, f, g, o), optional projection ``proj_size``."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        return self._expected_state_size(input, batch_sizes, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def _check_args(self, x, h, c, bs):
        self.check_forward_args(x, (h, c), bs)

    def forward(self, input, hx=None):
        h, c = (None, None) if hx is None else hx
        out, hn, cn = self._run(input, h, c)
        return out, (hn, cn)


# ------------------------------------------------------------------------------ cells
class RNNCellBase(Module):
    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        factory_kwargs = {"device": device, "dtype": dtype}
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), **factory_kwargs))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), **factory_kwargs))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, **factory_kwargs))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, **factory_kwargs))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self):
        _reset_uniform(self)

    def _prepare(self, name, input, states):
        """PyTorch's dim checks; unbatched inputs get a batch dim of 1."""
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D "
                             "instead")
        for i, s in enumerate(states):
            if s is not None and s.dim() not in (1, 2):
                what = f"hx[{i}]" if name == "LSTMCell" else "hidden"
                raise ValueError(f"{name}: Expected {what} to be 1D or 2D, got {s.dim()}D "
                                 "instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        out = []
        for s in states:
            if s is None:
                with no_grad():
                    s = zeros(input.size(0), self.hidden_size, dtype=input.dtype,
                              device=input.device)
            elif not batched:
                s = s.unsqueeze(0)
            out.append(s)
        return batched, input, out


class RNNCell(RNNCellBase):
    """``h' = act(W_ih x + b_ih + W_hh h + b_hh)`` with tanh or ReLU."""

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device,
                         dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        batched, input, (hx,) = self._prepare("RNNCell", input, [hx])
        if self.nonlinearity == "tanh":
            fn = rnn_kernels.rnn_tanh_cell
        elif self.nonlinearity == "relu":
            fn = rnn_kernels.rnn_relu_cell
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        ret = fn(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return ret if batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step; returns ``(h', c')``."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        states = [None, None] if hx is None else list(hx)
        batched, input, (h, c) = self._prepare("LSTMCell", input, states)
        h2, c2 = rnn_kernels.lstm_cell(input, (h, c), self.weight_ih, self.weight_hh,
                                       self.bias_ih, self.bias_hh)
        return (h2, c2) if batched else (h2.squeeze(0), c2.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        batched, input, (hx,) = self._prepare("GRUCell", input, [hx])
        ret = rnn_kernels.gru_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih,
                                   self.bias_hh)
        return ret if batched else ret.squeeze(0)
