"""Driver of snntorch (docs/real-programs.md): the installed package, unchanged, as its tutorials
use it: every spiking neuron (Leaky, Synaptic, Alpha, Lapicque, RLeaky, RSynaptic, SLSTM,
SConv2dLSTM, LeakyParallel) stepped through time with explicit and with instance states, every
surrogate gradient, the spike encoders of ``spikegen`` (rate, latency, delta, the target
encoders), a small convolutional SNN trained a few steps by backpropagation through time with
each loss of ``snntorch.functional`` and its accuracy functions, ``snntorch.backprop``'s
BPTT/TBPTT/RTRL, learnable decay rates, thresholds and recurrent weights, the init_hidden
mode with ``utils.reset`` and ``detach_hidden``, the reset mechanisms, state quantization,
the probes, a state_dict saved and loaded, and ``spikeplot`` on matplotlib's Agg backend;
spikes, membranes, losses and gradients printed as checksums at full precision.

    python scripts/shared_rng_run.py drive_snntorch.py [VARIANT ... | all]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_snntorch.py [VARIANT ... | all]   # jtorch

Each variant reseeds torch, so a subset prints what the full run prints for it. The ``*_f64``
variants run with float64 as the default dtype (snntorch's surrogates still return float32
spikes, ``(x > 0).float()``, which then promote).
"""

import os
import sys
import time
import warnings

import numpy as np
import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import snntorch as snn  # noqa: E402
import snntorch.functional as SF  # noqa: E402
import snntorch.spikeplot as splt  # noqa: E402
from snntorch import spikegen, surrogate, utils  # noqa: E402
from snntorch.functional import quant, stdp_learner  # noqa: E402
from torch import nn  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from snntorch import backprop  # noqa: E402

# snntorch warns once per inhibition neuron (UserWarning); the text is not compared
warnings.filterwarnings("ignore", message="Inhibition is an unstable feature")

T, B, N_IN, N_HID = 8, 4, 6, 5
VARIANTS = {}


def variant(name):
    def register(build):
        VARIANTS[name] = build
        return build
    return register


def checksum(x):
    """The sum of the magnitudes, a weighted sum (weights 1 to 2 in a period of 7 elements) and
    the largest magnitude, in float64."""
    t = np.asarray(x.detach().cpu().double().numpy() if isinstance(x, torch.Tensor) else x,
                   dtype=np.float64).ravel()
    if t.size == 0:
        return "empty"
    w = 1.0 + (np.arange(t.size) % 7) / 6
    return (f"abssum {float(np.abs(t).sum())!r} wsum {float((t * w).sum())!r} "
            f"absmax {float(np.abs(t).max())!r}")


def show(label, x):
    if isinstance(x, torch.Tensor):
        print(f"{label} {list(x.shape)} {str(x.dtype).replace('torch.', '')} {checksum(x)}")
    else:
        print(f"{label} {x!r}")


def grads(label, module):
    for name, p in module.named_parameters():
        if p.grad is not None:
            show(f"{label} grad {name}", p.grad)


def params(label, module):
    flat = [p.detach().reshape(-1).double() for p in module.parameters()]
    if flat:
        show(f"{label} params", torch.cat(flat))


class dtype_default:
    def __init__(self, dtype):
        self.dtype = dtype

    def __enter__(self):
        self.old = torch.get_default_dtype()
        torch.set_default_dtype(self.dtype)

    def __exit__(self, *exc):
        torch.set_default_dtype(self.old)


# ---------------------------------------------------------------------------------------------
# neurons


def neuron_zoo():
    """(name, builder of (input layer, neuron), input shape per step); each neuron is driven by
    a Linear (or Conv2d) layer so that weight gradients flow through its surrogate."""
    lin = lambda: nn.Linear(N_IN, N_HID)  # noqa: E731
    conv = lambda: nn.Conv2d(2, 3, 3, padding=1)  # noqa: E731
    flat = (B, N_IN)
    img = (B, 2, 6, 6)
    return [
        ("Leaky_subtract", lambda: (lin(), snn.Leaky(beta=0.8)), flat),
        ("Leaky_zero", lambda: (lin(), snn.Leaky(beta=0.8, reset_mechanism="zero")), flat),
        ("Leaky_none", lambda: (lin(), snn.Leaky(beta=0.8, reset_mechanism="none")), flat),
        ("Leaky_nodelay", lambda: (lin(), snn.Leaky(beta=0.7, reset_delay=False)), flat),
        ("Leaky_vector_beta", lambda: (lin(), snn.Leaky(beta=torch.rand(N_HID),
                                                         threshold=0.6)), flat),
        ("Leaky_inhibition", lambda: (lin(), snn.Leaky(beta=0.8, inhibition=True)), flat),
        ("Leaky_graded", lambda: (lin(), snn.Leaky(beta=0.8, graded_spikes_factor=0.5)), flat),
        ("Leaky_conv", lambda: (conv(), snn.Leaky(beta=0.9)), img),
        ("Synaptic", lambda: (lin(), snn.Synaptic(alpha=0.9, beta=0.8)), flat),
        ("Synaptic_zero", lambda: (lin(), snn.Synaptic(alpha=0.7, beta=0.85,
                                                        reset_mechanism="zero")), flat),
        ("Alpha", lambda: (lin(), snn.Alpha(alpha=0.9, beta=0.8)), flat),
        ("Alpha_subtract", lambda: (lin(), snn.Alpha(alpha=0.85, beta=0.6,
                                                      reset_mechanism="subtract")), flat),
        ("Lapicque_RC", lambda: (lin(), snn.Lapicque(R=5.1, C=5e-3, time_step=1e-3)), flat),
        ("Lapicque_beta", lambda: (lin(), snn.Lapicque(beta=0.9, reset_mechanism="zero")), flat),
        ("RLeaky_linear", lambda: (lin(), snn.RLeaky(beta=0.8, linear_features=N_HID)), flat),
        ("RLeaky_one_to_one", lambda: (lin(), snn.RLeaky(beta=0.8, all_to_all=False,
                                                          V=torch.rand(N_HID))), flat),
        ("RLeaky_conv", lambda: (conv(), snn.RLeaky(beta=0.8, conv2d_channels=3,
                                                     kernel_size=3)), img),
        ("RSynaptic_linear", lambda: (lin(), snn.RSynaptic(alpha=0.9, beta=0.8,
                                                            linear_features=N_HID)), flat),
        ("RSynaptic_one_to_one", lambda: (lin(), snn.RSynaptic(alpha=0.8, beta=0.7,
                                                                all_to_all=False, V=0.5)), flat),
        ("SLSTM", lambda: (lin(), snn.SLSTM(N_HID, 4, threshold=0.2)), flat),
        ("SLSTM_subtract", lambda: (lin(), snn.SLSTM(N_HID, 4, threshold=0.1,
                                                      reset_mechanism="subtract")), flat),
        ("SConv2dLSTM", lambda: (conv(), snn.SConv2dLSTM(3, 4, 3, threshold=0.1)), img),
        ("SConv2dLSTM_maxpool", lambda: (conv(), snn.SConv2dLSTM(3, 2, 3, max_pool=2,
                                                                 threshold=0.05)), img),
        ("SConv2dLSTM_avgpool", lambda: (conv(), snn.SConv2dLSTM(3, 2, 3, avg_pool=2,
                                                                 threshold=0.05)), img),
    ]


# snntorch's spikes are float32 whatever the default dtype ((x > 0).float() times a 0-dim
# graded_spikes_factor keeps float32), so under float64 a layer fed spikes (RLeaky's and
# RSynaptic's recurrent Linear/Conv2d) fails in PyTorch too: the float64 runs leave them out
RECURRENT_LAYERS = ("RLeaky_linear", "RLeaky_conv", "RSynaptic_linear", "RLeaky", "RSynaptic")


def run_neurons(tag, skip=()):
    for name, build, shape in neuron_zoo():
        if name in skip:
            continue
        torch.manual_seed(1)
        layer, neuron = build()
        x = (torch.rand(T, *shape) * 2.5).requires_grad_()
        spk_rec, mem_rec = [], []
        for step in range(T):
            out = neuron(layer(x[step]))  # instance states (init_hidden=False)
            spk_rec.append(out[0])
            mem_rec.append(out[-1])
        spk, mem = torch.stack(spk_rec), torch.stack(mem_rec)
        loss = (mem ** 2).mean() + 0.3 * spk.sum()
        if spk.shape == mem.shape:  # SConv2dLSTM's pooling shrinks its spikes only
            loss = loss + 0.1 * (spk * mem).sum()
        loss.backward()
        show(f"{tag} {name} spk", spk)
        show(f"{tag} {name} mem", mem)
        show(f"{tag} {name} loss", loss)
        show(f"{tag} {name} x.grad", x.grad)
        grads(f"{tag} {name}", layer)
        grads(f"{tag} {name}", neuron)


def run_explicit_states(tag, skip=()):
    """The tutorials' explicit-state loops: init_leaky/init_synaptic/init_alpha/init_rleaky/
    init_rsynaptic/init_slstm/init_lapicque, states passed in and out at every step."""
    torch.manual_seed(2)
    fc1, fc2 = nn.Linear(N_IN, N_HID), nn.Linear(N_HID, 3)
    x = torch.rand(T, B, N_IN) * 2
    cases = {
        "Leaky": (snn.Leaky(beta=0.9), lambda n: (n.init_leaky(),),
                  lambda n, c, s: n(c, s[0]), lambda o: (o[0], o[1:])),
        "Synaptic": (snn.Synaptic(alpha=0.8, beta=0.9), lambda n: n.init_synaptic(),
                     lambda n, c, s: n(c, *s), lambda o: (o[0], o[1:])),
        "Alpha": (snn.Alpha(alpha=0.9, beta=0.85), lambda n: n.init_alpha(),
                  lambda n, c, s: n(c, *s), lambda o: (o[0], o[1:])),
        "Lapicque": (snn.Lapicque(beta=0.8), lambda n: (n.init_lapicque(),),
                     lambda n, c, s: n(c, s[0]), lambda o: (o[0], o[1:])),
        "RLeaky": (snn.RLeaky(beta=0.8, linear_features=3), lambda n: n.init_rleaky(),
                   lambda n, c, s: n(c, *s), lambda o: (o[0], o)),
        "RSynaptic": (snn.RSynaptic(alpha=0.8, beta=0.7, linear_features=3),
                      lambda n: n.init_rsynaptic(), lambda n, c, s: n(c, *s),
                      lambda o: (o[0], o)),
        "SLSTM": (snn.SLSTM(3, 3, threshold=0.1), lambda n: n.init_slstm(),
                  lambda n, c, s: n(c, *s), lambda o: (o[0], o[1:])),
    }
    lif1 = snn.Leaky(beta=0.9)
    for name, (neuron, init, step, split) in cases.items():
        if name in skip:
            continue
        fc1.zero_grad()
        fc2.zero_grad()
        mem1 = lif1.init_leaky()
        state = init(neuron)
        spks, mems = [], []
        for t in range(T):
            spk1, mem1 = lif1(fc1(x[t]), mem1)
            out = step(neuron, fc2(spk1.to(x.dtype)), state)
            spk, state = split(out)
            spks.append(spk)
            mems.append(out[-1])
        spk, mem = torch.stack(spks), torch.stack(mems)
        loss = SF.mse_membrane_loss(on_target=1.0, off_target=0.1)(mem, torch.arange(B) % 3)
        loss.backward()
        show(f"{tag} explicit {name} spk", spk)
        show(f"{tag} explicit {name} mem", mem)
        show(f"{tag} explicit {name} loss", loss)
        grads(f"{tag} explicit {name} fc1", fc1)
        grads(f"{tag} explicit {name} fc2", fc2)
        grads(f"{tag} explicit {name}", neuron)


def run_leaky_parallel(tag):
    """LeakyParallel: a whole sequence through nn.RNN (weight_hh masked to a diagonal by a grad
    hook), with its own ATan."""
    torch.manual_seed(3)
    for name, kw in (("default", {}), ("learn_beta", {"beta": 0.8, "learn_beta": True}),
                     ("beta_vector", {"beta": torch.rand(N_HID), "learn_beta": True,
                                      "threshold": 0.5})):
        lif = snn.LeakyParallel(input_size=N_IN, hidden_size=N_HID, **kw)
        x = torch.rand(T, B, N_IN) * 2
        spk = lif(x)
        loss = (spk * torch.linspace(0.5, 1.5, N_HID)).sum()
        loss.backward()
        show(f"{tag} LeakyParallel {name} spk", spk)
        show(f"{tag} LeakyParallel {name} weight_hh", lif.rnn.weight_hh_l0)
        grads(f"{tag} LeakyParallel {name}", lif)


@variant("neurons")
def _():
    run_neurons("f32")
    run_explicit_states("f32")
    run_leaky_parallel("f32")


@variant("neurons_f64")
def _():
    with dtype_default(torch.float64):
        run_neurons("f64", skip=RECURRENT_LAYERS)
        run_explicit_states("f64", skip=RECURRENT_LAYERS)


@variant("more_neurons")
def _():
    """snntorch 1.0's whole-sequence neurons (StateLeaky, LinearLeaky: a depthwise causal conv1d
    with an exponential kernel; AssociativeLeaky: an outer-product state through cumsum/einsum/
    bmm), DeltaLeaky, GradedSpikes and STDPLearner's weight updates on a Linear and a Conv2d."""
    torch.manual_seed(21)
    x = (torch.randn(T, B, N_HID) * 1.5).requires_grad_()
    for name, make in (
            ("StateLeaky", lambda: snn.StateLeaky(beta=0.8, channels=N_HID, threshold=0.7)),
            ("StateLeaky_vector", lambda: snn.StateLeaky(beta=torch.rand(N_HID) * 0.9,
                                                         channels=N_HID, learn_beta=True,
                                                         learn_threshold=True,
                                                         kernel_truncation_steps=3)),
            ("StateLeaky_mem", lambda: snn.StateLeaky(beta=0.9, channels=N_HID,
                                                      output=False)),
            ("LinearLeaky", lambda: snn.LinearLeaky(beta=0.85, in_features=N_HID,
                                                    out_features=3, learn_beta=True,
                                                    kernel_truncation_steps=5))):
        x.grad = None
        neuron = make()
        out = neuron(x)
        spk, mem = out if isinstance(out, tuple) else (None, out)
        loss = (mem ** 2).mean() + (spk.sum() * 0.2 if spk is not None else 0)
        loss.backward()
        if spk is not None:
            show(f"{name} spk", spk)
        show(f"{name} mem", mem)
        show(f"{name} x.grad", x.grad)
        grads(name, neuron)
    for name, kw in (("q", {}), ("noq", {"use_q_projection": False})):
        torch.manual_seed(22)
        assoc = snn.AssociativeLeaky.from_num_spiking_neurons(in_dim=N_HID,
                                                              num_spiking_neurons=9, **kw)
        x.grad = None
        y = assoc(x)
        (y * torch.linspace(-1, 1, y.shape[-1])).sum().backward()
        show(f"AssociativeLeaky {name} y", y)
        show(f"AssociativeLeaky {name} x.grad", x.grad)
        grads(f"AssociativeLeaky {name}", assoc)
    delta = snn.DeltaLeaky(delta_threshold=0.5, beta=0.8)
    state = (None, None)
    spks = []
    for t in range(T):
        spk, state = delta(x[t].detach(), state)
        spks.append(spk)
    show("DeltaLeaky spk", torch.stack(spks))
    show("DeltaLeaky mem", state[0])
    torch.manual_seed(23)
    graded = snn.GradedSpikes(size=N_HID, constant_factor=False)
    g = graded(torch.rand(N_HID, 3))
    g.sum().backward()
    show("GradedSpikes out", g)
    show("GradedSpikes grad", graded.weights.grad)
    # STDP on a Linear and a Conv2d (the neurons with init_hidden=True, so their forward hook
    # sees the spikes alone)
    for name, synapse, lif, shape in (
            ("linear", nn.Linear(N_IN, 4, bias=False), snn.Leaky(beta=0.8, init_hidden=True,
                                                                 threshold=0.3), (B, N_IN)),
            ("conv2d", nn.Conv2d(2, 3, 3, padding=1, bias=False),
             snn.Leaky(beta=0.8, init_hidden=True, threshold=0.2), (B, 2, 5, 5))):
        torch.manual_seed(24)
        synapse.reset_parameters()
        net = nn.Sequential(synapse, lif)
        learner = stdp_learner.STDPLearner(synapse, lif, tau_pre=2.0, tau_post=3.0,
                                              f_pre=lambda w: torch.clamp(w, -1, 1),
                                              f_post=lambda w: torch.clamp(w, -1, 1))
        opt = torch.optim.SGD(net.parameters(), lr=0.05)
        utils.reset(net)
        for _ in range(6):
            with torch.no_grad():
                net((torch.rand(*shape) < 0.5).float())
            opt.zero_grad()
            learner.step(on_grad=True)
            opt.step()
        show(f"STDP {name} trace_pre", learner.trace_pre)
        show(f"STDP {name} trace_post", learner.trace_post)
        show(f"STDP {name} weight", synapse.weight)


# ---------------------------------------------------------------------------------------------
# surrogate gradients


def custom_fast_sigmoid(input_, grad_input, spikes):
    slope = 25
    return grad_input / (slope * torch.abs(input_) + 1.0) ** 2


def surrogates():
    return {
        "atan": surrogate.atan(),
        "atan_alpha4": surrogate.atan(alpha=4.0),
        "fast_sigmoid": surrogate.fast_sigmoid(),
        "fast_sigmoid_slope5": surrogate.fast_sigmoid(slope=5),
        "sigmoid": surrogate.sigmoid(),
        "sigmoid_slope10": surrogate.sigmoid(slope=10),
        "straight_through": surrogate.straight_through_estimator(),
        "triangular": surrogate.triangular(),
        "spike_rate_escape": surrogate.spike_rate_escape(beta=2, slope=10),
        "heaviside": surrogate.heaviside(),
        "SFS": surrogate.SFS(slope=10, B=1),
        "custom": surrogate.custom_surrogate(custom_fast_sigmoid),
    }


@variant("surrogates")
def _():
    torch.manual_seed(4)
    u = torch.cat([torch.linspace(-2, 2, 41), torch.randn(60) * 0.8])
    w = torch.linspace(0.5, 2.0, u.numel())
    for name, fn in surrogates().items():
        x = u.clone().requires_grad_()
        spk = fn(x)
        (spk * w).sum().backward()
        show(f"surrogate {name} spk", spk)
        show(f"surrogate {name} grad", x.grad)
    # each surrogate inside a two-layer SNN, one backward pass
    data = torch.rand(T, B, N_IN) * 1.5
    target = torch.tensor([0, 1, 2, 1])
    for name, fn in surrogates().items():
        torch.manual_seed(5)
        net = nn.Sequential(nn.Linear(N_IN, N_HID), snn.Leaky(beta=0.9, spike_grad=fn,
                                                              init_hidden=True),
                            nn.Linear(N_HID, 3), snn.Leaky(beta=0.9, spike_grad=fn,
                                                           init_hidden=True, output=True))
        utils.reset(net)
        spk_rec = torch.stack([net(data[t])[0] for t in range(T)])
        loss = SF.ce_rate_loss()(spk_rec, target)
        loss.backward()
        show(f"surrogate {name} net loss", loss)
        show(f"surrogate {name} net grad", torch.cat([p.grad.reshape(-1)
                                                      for p in net.parameters()]))
    # surrogate_disable: a plain (x > 0) step, no gradient through the spike
    torch.manual_seed(6)
    lif = snn.Leaky(beta=0.9, surrogate_disable=True)
    x = (torch.rand(T, B, 3) * 1.5).requires_grad_()
    out = [lif(x[t]) for t in range(T)]
    loss = torch.stack([o[1] for o in out]).sum() + torch.stack([o[0] for o in out]).sum()
    loss.backward()
    show("surrogate_disable spk", torch.stack([o[0] for o in out]))
    show("surrogate_disable x.grad", x.grad)


# ---------------------------------------------------------------------------------------------
# spikegen


@variant("spikegen")
def _():
    torch.manual_seed(7)
    data = torch.rand(B, 1, 5, 5)
    show("rate", spikegen.rate(data, num_steps=T))
    show("rate gain offset", spikegen.rate(data, num_steps=T, gain=0.5, offset=0.2))
    show("rate first_spike_time", spikegen.rate(data, num_steps=T, first_spike_time=3))
    show("rate time_var_input", spikegen.rate(torch.rand(T, B, 3), time_var_input=True))
    show("rate_conv", spikegen.rate_conv(torch.rand(B, 7) * 1.4 - 0.2))
    lat = data * 0.9 + 0.1  # away from the threshold: first spikes within num_steps
    show("latency", spikegen.latency(lat, num_steps=T))
    show("latency tau5", spikegen.latency(lat, num_steps=T, tau=5, threshold=0.05))
    show("latency linear normalize clip", spikegen.latency(data, num_steps=T, tau=5,
                                                           threshold=0.01, linear=True,
                                                           normalize=True, clip=True))
    show("latency normalize", spikegen.latency(data, num_steps=T, tau=3, normalize=True))
    show("latency first_spike_time", spikegen.latency(data, num_steps=12, first_spike_time=2,
                                                      normalize=True, on_target=2,
                                                      off_target=0.5))
    show("latency bypass", spikegen.latency(data, num_steps=T, tau=5, bypass=True))
    show("latency_code times", spikegen.latency_code(data.flatten(), tau=5,
                                                     threshold=0.01)[0])
    series = torch.cumsum(torch.randn(12, B, 3) * 0.3, 0)
    show("delta", spikegen.delta(series, threshold=0.2))
    show("delta padding off_spike", spikegen.delta(series, threshold=0.2, padding=True,
                                                   off_spike=True))
    targets = torch.tensor([0, 2, 1, 3])
    show("targets_convert", spikegen.targets_convert(targets, num_classes=4, on_target=0.9,
                                                     off_target=0.1))
    show("to_one_hot", spikegen.to_one_hot(targets, 4))
    show("from_one_hot", spikegen.from_one_hot(spikegen.to_one_hot(targets, 4)))
    # (targets_rate with correct_rate < 1 or incorrect_rate > 0 fails in snntorch 1.0.0 itself:
    # its (T, B, C) inverse one-hot times a (T,) rate code does not broadcast)
    show("targets_rate", spikegen.targets_rate(targets, num_classes=4, on_target=0.8,
                                               off_target=0.1))
    show("targets_rate first_spike", spikegen.targets_rate(targets, num_classes=4,
                                                           num_steps=T, first_spike_time=2,
                                                           correct_rate=1))
    show("targets_latency", spikegen.targets_latency(targets, num_classes=4, num_steps=T,
                                                     normalize=True))
    show("targets_latency interpolate", spikegen.targets_latency(
        targets, num_classes=4, num_steps=T, interpolate=True, tau=3, normalize=True))


# ---------------------------------------------------------------------------------------------
# a convolutional SNN trained with BPTT


def images(seed=0, n=16, classes=4):
    """16x16 single-channel images whose bright 4x4 patch sits in one of four quadrants (the
    class), with uniform noise; NumPy-drawn, so both frameworks see the same data."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % classes
    x = rng.random((n, 1, 16, 16)) * 0.3
    for i, c in enumerate(y):
        r, s = 2 + 8 * (c // 2), 2 + 8 * (c % 2)
        x[i, 0, r:r + 4, s:s + 4] += 0.6
    return (torch.tensor(np.clip(x, 0, 1), dtype=torch.get_default_dtype()),
            torch.tensor(y, dtype=torch.long))


def csnn(spike_grad, beta=0.8, threshold=0.4):
    return nn.Sequential(
        nn.Conv2d(1, 4, 5), nn.MaxPool2d(2),
        snn.Leaky(beta=beta, threshold=threshold, spike_grad=spike_grad, init_hidden=True),
        nn.Conv2d(4, 8, 3), nn.MaxPool2d(2),
        snn.Leaky(beta=beta, threshold=threshold, spike_grad=spike_grad, init_hidden=True),
        nn.Flatten(), nn.Linear(8 * 2 * 2, 4),
        snn.Leaky(beta=beta, threshold=threshold, spike_grad=spike_grad, init_hidden=True,
                  output=True))


def forward_pass(net, data):
    """The tutorials' loop: reset the hidden states, one step per time step."""
    spk_rec, mem_rec = [], []
    utils.reset(net)
    for step in range(data.size(0)):
        spk_out, mem_out = net(data[step])
        spk_rec.append(spk_out)
        mem_rec.append(mem_out)
    return torch.stack(spk_rec), torch.stack(mem_rec)


LOSSES = {
    "ce_rate_loss": (lambda: SF.ce_rate_loss(), "spk"),
    "ce_count_loss": (lambda: SF.ce_count_loss(), "spk"),
    "mse_membrane_loss": (lambda: SF.mse_membrane_loss(on_target=1.0, off_target=0.0), "mem"),
    "mse_count_loss": (lambda: SF.mse_count_loss(correct_rate=0.8, incorrect_rate=0.2), "spk"),
    "ce_max_membrane_loss": (lambda: SF.ce_max_membrane_loss(), "mem"),
    "mse_temporal_loss": (lambda: SF.mse_temporal_loss(on_target=1, off_target=6), "spk"),
    "mse_temporal_loss_tolerance": (lambda: SF.mse_temporal_loss(on_target=0, off_target=7,
                                                                 tolerance=1), "spk"),
    "ce_temporal_loss": (lambda: SF.ce_temporal_loss(), "spk"),
    "ce_temporal_loss_reciprocal": (lambda: SF.ce_temporal_loss(inverse="reciprocal"), "spk"),
    "ce_rate_loss_weighted": (lambda: SF.ce_rate_loss(weight=torch.tensor([1.0, 2.0, 0.5, 1.0])),
                              "spk"),
    "ce_count_loss_population": (lambda: SF.ce_count_loss(population_code=True, num_classes=2),
                                 "spk"),
}


def train_csnn(tag, loss_name, steps=3, num_steps=T):
    make_loss, which = LOSSES[loss_name]
    torch.manual_seed(8)
    net = csnn(surrogate.fast_sigmoid(slope=25))
    optimizer = torch.optim.Adam(net.parameters(), lr=2e-2, betas=(0.9, 0.999))
    loss_fn = make_loss()
    reg_fn = SF.l1_rate_sparsity(Lambda=1e-4)
    x, y = images()
    if loss_name == "ce_count_loss_population":
        y = y % 2
    for it in range(steps):
        data = spikegen.rate(x, num_steps=num_steps)
        spk, mem = forward_pass(net, data)
        loss = loss_fn(spk if which == "spk" else mem, y)
        if loss_name == "ce_rate_loss":
            loss = loss + reg_fn(spk)
        optimizer.zero_grad()
        loss.backward()
        if it == 0:
            show(f"{tag} {loss_name} step0 spk", spk)
            show(f"{tag} {loss_name} step0 mem", mem)
            grads(f"{tag} {loss_name} step0", net)
        optimizer.step()
        show(f"{tag} {loss_name} loss {it}", loss)
        acc = SF.accuracy_rate(spk, y)
        acc_t = SF.accuracy_temporal(spk, y)
        print(f"{tag} {loss_name} acc {it} rate {float(acc)!r} temporal {float(acc_t)!r}")
    if loss_name == "ce_count_loss_population":
        acc = SF.accuracy_rate(spk, y, population_code=True, num_classes=2)
        print(f"{tag} {loss_name} population acc {float(acc)!r}")
    params(f"{tag} {loss_name} trained", net)


@variant("csnn_train")
def _():
    for loss_name in LOSSES:
        train_csnn("f32", loss_name)


@variant("bntt")
def _():
    """Batch normalisation through time: a BatchNorm2d per time step (BatchNormTT2d) between a
    convolution and a Leaky neuron, explicit states, trained two steps with SGD."""
    torch.manual_seed(9)
    conv = nn.Conv2d(1, 3, 3)
    bn = snn.BatchNormTT2d(3, time_steps=T)
    lif = snn.Leaky(beta=0.85)
    fc = nn.Linear(3 * 14 * 14, 4)
    bn1d = snn.BatchNormTT1d(4, time_steps=T)
    lif_out = snn.Leaky(beta=0.85)
    modules = nn.ModuleList([conv, bn, lif, fc, bn1d, lif_out])
    opt = torch.optim.SGD(modules.parameters(), lr=0.1, momentum=0.9)
    x, y = images(seed=1)
    for it in range(2):
        mem1, mem2 = lif.init_leaky(), lif_out.init_leaky()
        data = spikegen.rate(x, num_steps=T)
        spks = []
        for t in range(T):
            spk1, mem1 = lif(bn[t](conv(data[t])), mem1)
            spk2, mem2 = lif_out(bn1d[t](fc(spk1.flatten(1))), mem2)
            spks.append(spk2)
        spk = torch.stack(spks)
        loss = SF.ce_count_loss()(spk, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        show(f"bntt loss {it}", loss)
        show(f"bntt spk {it}", spk)
    show("bntt running_mean", torch.cat([b.running_mean for b in bn]))
    show("bntt running_var", torch.cat([b.running_var for b in bn1d]))
    params("bntt trained", modules)


# ---------------------------------------------------------------------------------------------
# snntorch.backprop


def loader(seed, time_var):
    x, y = images(seed=seed, n=12)
    if time_var:
        torch.manual_seed(seed)
        x = spikegen.rate(x, num_steps=6)  # T x N x ...
        dataset = torch.utils.data.TensorDataset(x.transpose(0, 1), y)
    else:
        dataset = torch.utils.data.TensorDataset(x, y)
    return torch.utils.data.DataLoader(dataset, batch_size=4, shuffle=False)


class TimeFirst:
    """Batches of a time-first loader: [B, T, ...] -> [T, B, ...]."""

    def __init__(self, dl):
        self.dl = dl

    def __iter__(self):
        for x, y in self.dl:
            yield x.transpose(0, 1), y


@variant("backprop")
def _():
    # (TBPTT/RTRL with time_var=True and an integer K fail in snntorch 1.0.0 itself:
    # UnboundLocalError on its K_flag; time-varying data goes through BPTT here)
    cases = [
        ("BPTT mse_count", lambda n, o, dl: backprop.BPTT(
            n, dl, o, SF.mse_count_loss(correct_rate=0.75, incorrect_rate=0.25), num_steps=5,
            time_var=False, regularization=SF.l1_rate_sparsity()), False),
        ("BPTT ce_rate time_var", lambda n, o, dl: backprop.BPTT(
            n, TimeFirst(dl), o, SF.ce_rate_loss(), time_var=True), True),
        ("BPTT mse_membrane batch_first", lambda n, o, dl: backprop.BPTT(
            n, dl, o, SF.mse_membrane_loss(), time_var=True, time_first=False), True),
        ("TBPTT ce_count K2", lambda n, o, dl: backprop.TBPTT(
            n, dl, o, SF.ce_count_loss(), num_steps=5, time_var=False, K=2), False),
        ("RTRL ce_count", lambda n, o, dl: backprop.RTRL(
            n, dl, o, SF.ce_count_loss(), num_steps=4, time_var=False), False),
    ]
    for name, run, time_var in cases:
        torch.manual_seed(10)
        net = csnn(surrogate.atan(), beta=0.9)
        opt = torch.optim.Adam(net.parameters(), lr=1e-2)
        for epoch in range(2):
            loss = run(net, opt, loader(11, time_var))
            show(f"backprop {name} epoch {epoch} loss", loss)
        params(f"backprop {name} trained", net)
    # Synaptic and Alpha output layers (3 and 4 outputs)
    for name, out_layer in (("Synaptic", lambda: snn.Synaptic(alpha=0.8, beta=0.9,
                                                             init_hidden=True, output=True)),
                            ("Alpha", lambda: snn.Alpha(alpha=0.9, beta=0.8, init_hidden=True,
                                                        output=True))):
        torch.manual_seed(12)
        net = nn.Sequential(nn.Flatten(), nn.Linear(256, 16),
                            snn.Leaky(beta=0.9, init_hidden=True), nn.Linear(16, 4),
                            out_layer())
        opt = torch.optim.SGD(net.parameters(), lr=0.05)
        loss = backprop.BPTT(net, loader(13, False), opt, SF.ce_max_membrane_loss(),
                             num_steps=5, time_var=False)
        show(f"backprop BPTT {name} loss", loss)
        params(f"backprop BPTT {name} trained", net)


# ---------------------------------------------------------------------------------------------
# learnable parameters


@variant("learnable")
def _():
    torch.manual_seed(14)
    fc1 = nn.Linear(N_IN, N_HID)
    lif1 = snn.Leaky(beta=torch.rand(N_HID), learn_beta=True, threshold=torch.ones(N_HID) * 0.8,
                     learn_threshold=True, learn_graded_spikes_factor=True)
    fc2 = nn.Linear(N_HID, N_HID)
    syn = snn.Synaptic(alpha=0.9, beta=0.8, learn_alpha=True, learn_beta=True,
                       learn_threshold=True)
    rl = snn.RLeaky(beta=0.7, all_to_all=False, V=torch.rand(N_HID), learn_recurrent=True,
                    learn_beta=True)
    # (Lapicque's learn_beta=True has no effect on its forward but a graph in its C buffer,
    # computed from beta once: a second backward fails in PyTorch)
    lap = snn.Lapicque(beta=0.9, learn_threshold=True, threshold=0.9)
    # (Alpha's learn_alpha=True fails in snntorch 1.0.0: it assigns alpha.clamp(0, 1), a plain
    # tensor, over the Parameter)
    alpha = snn.Alpha(alpha=0.9, beta=0.7, learn_beta=True)
    rsyn = snn.RSynaptic(alpha=0.8, beta=0.7, linear_features=N_HID, learn_alpha=True,
                         learn_beta=True, learn_threshold=True)
    fc3 = nn.Linear(N_HID, 3)
    lif_out = snn.Leaky(beta=0.9, learn_beta=True, learn_threshold=True)
    model = nn.ModuleList([fc1, lif1, fc2, syn, rl, lap, alpha, rsyn, fc3, lif_out])
    for name, p in model.named_parameters():
        print(f"learnable param {name} {list(p.shape)}")
    opt = torch.optim.Adam(model.parameters(), lr=5e-2)
    x = torch.rand(T, B, N_IN) * 2
    y = torch.tensor([0, 1, 2, 0])
    for it in range(4):
        for n in (lif1, syn, rl, lap, alpha, rsyn, lif_out):
            n.reset_mem() if hasattr(n, "reset_mem") else None
        spks, mems = [], []
        for t in range(T):
            s1, _ = lif1(fc1(x[t]))
            s2, _, _ = syn(fc2(s1))
            s3, _ = rl(s2)
            s4, _ = lap(s3 + s2)
            s5, _, _, _ = alpha(s4 + s1)
            s6, _, _ = rsyn(s5 + s2)
            s7, m7 = lif_out(fc3(s6 + s1))
            spks.append(s7)
            mems.append(m7)
        spk, mem = torch.stack(spks), torch.stack(mems)
        loss = SF.ce_rate_loss()(spk, y) + SF.mse_membrane_loss()(mem, y)
        opt.zero_grad()
        loss.backward()
        show(f"learnable loss {it}", loss)
        show(f"learnable spk {it}", spk)
        if it == 0:
            grads("learnable step0", model)
        opt.step()
    for name, p in model.named_parameters():
        if p.numel() <= N_HID:
            print(f"learnable trained {name} {[float(v) for v in p.detach().reshape(-1)]!r}")
    params("learnable trained", model)


# ---------------------------------------------------------------------------------------------
# init_hidden, utils.reset, detach_hidden/reset_hidden


@variant("init_hidden")
def _():
    torch.manual_seed(15)
    outs = {
        "Leaky": lambda: snn.Leaky(beta=0.8, init_hidden=True, output=True),
        "Synaptic": lambda: snn.Synaptic(alpha=0.9, beta=0.8, init_hidden=True, output=True),
        "Alpha": lambda: snn.Alpha(alpha=0.9, beta=0.8, init_hidden=True, output=True),
        "Lapicque": lambda: snn.Lapicque(beta=0.9, init_hidden=True, output=True),
        "RLeaky": lambda: snn.RLeaky(beta=0.8, linear_features=3, init_hidden=True,
                                     output=True),
        "RSynaptic": lambda: snn.RSynaptic(alpha=0.9, beta=0.8, linear_features=3,
                                           init_hidden=True, output=True),
        "SLSTM": lambda: snn.SLSTM(3, 3, init_hidden=True, output=True, threshold=0.1),
    }
    hidden = {
        "Leaky": lambda: snn.Leaky(beta=0.8, init_hidden=True),
        "Synaptic": lambda: snn.Synaptic(alpha=0.9, beta=0.8, init_hidden=True),
        "RLeaky": lambda: snn.RLeaky(beta=0.8, linear_features=N_HID, init_hidden=True),
        "SLSTM": lambda: snn.SLSTM(N_HID, N_HID, init_hidden=True, threshold=0.1),
    }
    x = torch.rand(T, B, N_IN) * 2
    for hname, hmake in hidden.items():
        for oname, omake in outs.items():
            torch.manual_seed(16)
            net = nn.Sequential(nn.Linear(N_IN, N_HID), hmake(),
                                nn.Linear(N_HID if hname != "SLSTM" else N_HID, 3), omake())
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            n_out = utils._final_layer_check(net)
            # truncated BPTT by hand: backward every 4 steps, then detach the hidden states
            utils.reset(net)
            losses = []
            spks = []
            for start in range(0, T, 4):
                chunk = []
                for t in range(start, start + 4):
                    out = net(x[t])
                    chunk.append(out[-1])
                    spks.append(out[0].detach())
                loss = torch.stack(chunk).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                losses.append(float(loss))
                for layer in net:
                    if isinstance(layer, snn.SpikingNeuron):
                        type(layer).detach_hidden()
                    if isinstance(layer, snn.RSynaptic):
                        layer.spk.detach_()  # RSynaptic.detach_hidden leaves spk attached
            print(f"init_hidden {hname}->{oname} outputs {n_out} losses {losses!r}")
            show(f"init_hidden {hname}->{oname} spk", torch.stack(spks))
            params(f"init_hidden {hname}->{oname} trained", net)
    # reset_hidden zeroes every instance's states
    net = nn.Sequential(nn.Linear(N_IN, 3), snn.Leaky(beta=0.8, init_hidden=True))
    for t in range(3):
        net(x[t])
    before = float(net[1].mem.abs().sum())
    snn.Leaky.reset_hidden()
    print(f"reset_hidden before {before!r} after {float(net[1].mem.abs().sum())!r}")
    try:
        net[1](x[0, :, :3], torch.zeros(B, 3))
    except TypeError as e:
        print(f"init_hidden with mem: TypeError {e}")


# ---------------------------------------------------------------------------------------------
# reset mechanisms, state quantization, graded spikes


@variant("reset")
def _():
    torch.manual_seed(17)
    cur = torch.rand(12, B, 3) * 1.2
    for cls, kw in ((snn.Leaky, {"beta": 0.8}), (snn.Synaptic, {"alpha": 0.8, "beta": 0.7}),
                    (snn.Lapicque, {"beta": 0.85}), (snn.Alpha, {"alpha": 0.9, "beta": 0.8}),
                    (snn.RLeaky, {"beta": 0.8, "all_to_all": False, "V": 0.3})):
        for mech in ("subtract", "zero", "none"):
            for delay in ((True, False) if cls in (snn.Leaky, snn.Synaptic) else (True,)):
                extra = {"reset_delay": delay} if not delay else {}
                neuron = cls(reset_mechanism=mech, threshold=0.9, **kw, **extra)
                out = [neuron(cur[t]) for t in range(12)]
                spk = torch.stack([o[0] for o in out])
                mem = torch.stack([o[-1] for o in out])
                label = f"reset {cls.__name__} {mech}{'' if delay else ' nodelay'}"
                show(f"{label} spk", spk)
                show(f"{label} mem", mem)
    # changing reset_mechanism after construction updates reset_mechanism_val
    lif = snn.Leaky(beta=0.8)
    lif.reset_mechanism = "zero"
    print(f"reset_mechanism {lif.reset_mechanism} val {int(lif.reset_mechanism_val)}")
    try:
        snn.Leaky(beta=0.8, reset_mechanism="bogus")
    except ValueError as e:
        print(f"bad reset_mechanism: ValueError {e}")
    # state quantization (uniform and not), graded spikes
    for name, q in (("uniform4", quant.state_quant(num_bits=4, uniform=True)),
                    ("uniform3_thr", quant.state_quant(num_bits=3, uniform=True,
                                                       thr_centered=False, threshold=1.5)),
                    ("nonuniform4", quant.state_quant(num_bits=4, uniform=False))):
        x = (torch.rand(T, B, 3) * 1.5).requires_grad_()
        lif = snn.Leaky(beta=0.9, state_quant=q)
        out = [lif(x[t]) for t in range(T)]
        mem = torch.stack([o[1] for o in out])
        spk = torch.stack([o[0] for o in out])
        (mem.sum() + spk.sum()).backward()
        show(f"state_quant {name} mem", mem)
        show(f"state_quant {name} spk", spk)
        show(f"state_quant {name} x.grad", x.grad)
    lif = snn.Synaptic(alpha=0.8, beta=0.9, state_quant=quant.state_quant(num_bits=5))
    out = [lif(cur[t]) for t in range(12)]
    show("state_quant Synaptic syn", torch.stack([o[1] for o in out]))


# ---------------------------------------------------------------------------------------------
# probes


@variant("probe")
def _():
    torch.manual_seed(18)
    net = nn.Sequential(nn.Linear(N_IN, N_HID), snn.Leaky(beta=0.8, init_hidden=True),
                        nn.Linear(N_HID, 3), snn.Leaky(beta=0.8, init_hidden=True,
                                                       output=True))
    spikes = SF.probe.OutputMonitor(net, instance=snn.Leaky,
                                    function_on_output=lambda y: y[0] if isinstance(y, tuple)
                                    else y)
    mems = SF.probe.AttributeMonitor("mem", pre_forward=False, net=net, instance=snn.Leaky)
    inputs = SF.probe.InputMonitor(net, instance=nn.Linear)
    grad_out = SF.probe.GradOutputMonitor(net, instance=nn.Linear)
    utils.reset(net)
    x = torch.rand(4, B, N_IN) * 2
    total = 0
    for t in range(4):
        spk, mem = net(x[t])
        total = total + mem.sum() + spk.sum()
    total.backward()
    print(f"probe layers {spikes.monitored_layers} {mems.monitored_layers} "
          f"{inputs.monitored_layers} {grad_out.monitored_layers}")
    show("probe output spikes", torch.stack(spikes["1"]))
    show("probe output spikes last", torch.stack(spikes["3"]))
    show("probe mem", torch.stack(mems["1"]))
    show("probe inputs", torch.stack(inputs["2"]))
    show("probe grad outputs", torch.stack(grad_out["2"]))
    print(f"probe records {len(spikes.records)} {len(mems.records)} {len(inputs.records)} "
          f"{len(grad_out.records)}")
    for m in (spikes, mems, inputs, grad_out):
        m.remove_hooks()


# ---------------------------------------------------------------------------------------------
# state_dict save/load


@variant("state_dict")
def _():
    torch.manual_seed(19)
    net = csnn(surrogate.atan(), beta=0.9)
    net[2] = snn.Leaky(beta=torch.rand(4, 1, 1), learn_beta=True, threshold=0.4,
                       learn_threshold=True, init_hidden=True, reset_mechanism="zero")
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    x, y = images(seed=2)
    for it in range(2):
        spk, mem = forward_pass(net, spikegen.rate(x, num_steps=6))
        loss = SF.ce_rate_loss()(spk, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        show(f"state_dict train loss {it}", loss)
    sd = net.state_dict()
    for k, v in sd.items():
        print(f"state_dict {k} {list(v.shape)} {str(v.dtype).replace('torch.', '')}")
    torch.save(sd, "snn_csnn.pt")
    torch.save(opt.state_dict(), "snn_adam.pt")
    data = spikegen.rate(x, num_steps=6)
    net.eval()
    with torch.no_grad():
        spk_a, mem_a = forward_pass(net, data)
    fresh = csnn(surrogate.atan(), beta=0.5)
    fresh[2] = snn.Leaky(beta=torch.zeros(4, 1, 1), learn_beta=True, learn_threshold=True,
                         init_hidden=True, reset_mechanism="zero")
    missing = fresh.load_state_dict(torch.load("snn_csnn.pt"))
    print(f"state_dict load {missing}")
    print(f"state_dict reset_mechanism_val {int(fresh[2].reset_mechanism_val)} "
          f"mechanism {fresh[2].reset_mechanism} threshold {float(fresh[2].threshold)!r}")
    fresh.eval()
    with torch.no_grad():
        spk_b, mem_b = forward_pass(fresh, data)
    show("state_dict original spk", spk_a)
    show("state_dict original mem", mem_a)
    print(f"state_dict reloaded spk diff {float((spk_a - spk_b).abs().max())!r} "
          f"mem diff {float((mem_a - mem_b).abs().max())!r}")
    opt2 = torch.optim.Adam(fresh.parameters(), lr=1e-2)
    opt2.load_state_dict(torch.load("snn_adam.pt"))
    print(f"state_dict adam steps {[float(s['step']) for s in opt2.state.values()]!r}")


# ---------------------------------------------------------------------------------------------
# spikeplot (Agg)


@variant("spikeplot")
def _():
    torch.manual_seed(20)
    spk = spikegen.rate(torch.rand(20) * 0.5, num_steps=30)
    fig = plt.figure(facecolor="w", figsize=(5, 3))
    ax = fig.add_subplot(111)
    sc = splt.raster(spk, ax, s=4, c="black")
    show("spikeplot raster offsets", torch.tensor(np.asarray(sc.get_offsets(), dtype=float)))
    fig.savefig("raster.png", dpi=50)
    plt.close(fig)
    fig, ax = plt.subplots(facecolor="w", figsize=(5, 3))
    splt.spike_count(spk[:, :10], fig, ax, labels=[str(i) for i in range(10)], num_steps=30)
    heights = [float(p.get_width()) for p in ax.patches]
    print(f"spikeplot spike_count bars {heights!r}")
    fig.savefig("spike_count.png", dpi=50)
    plt.close(fig)
    lif = snn.Leaky(beta=0.9)
    cur = torch.rand(40, 9) * 0.5
    out = [lif(cur[t]) for t in range(40)]
    mem = torch.stack([o[1] for o in out])
    s = torch.stack([o[0] for o in out])
    plt.figure(figsize=(4, 4))
    splt.traces(mem, spk=s)
    ys = [float(np.abs(line.get_ydata()).sum()) for a in plt.gcf().axes for line in a.lines]
    print(f"spikeplot traces line abssums {ys!r}")
    plt.savefig("traces.png", dpi=40)
    plt.close("all")


def main(argv):
    names = list(VARIANTS) if argv in ([], ["all"]) else argv
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"unknown variants {unknown}; known: {' '.join(VARIANTS)}")
    print(f"snntorch {snn.__version__}")
    for name in names:
        start = time.time()
        torch.manual_seed(0)
        # every neuron built appends itself to SpikingNeuron.instances, which utils.reset and
        # reset_hidden walk: start each variant with an empty list (a failed constructor, the
        # bad reset_mechanism of "reset", leaves an instance without states there)
        snn.SpikingNeuron.init()
        print(f"== {name}")
        VARIANTS[name]()
        print(f"[{name}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
