"""Driver of the optimizer libraries (docs/real-programs.md): torch-optimizer 0.3's thirty
optimizers, lion-pytorch's Lion, schedulefree's schedule-free AdamW/SGD/RAdam (and its
wrapper), ema-pytorch's EMA and PostHocEMA, and thop's MACs/parameter counting, all installed
packages run unchanged.

Each optimizer trains a tiny seeded MLP (6-6-6, tanh, MSE) for 10 steps on fixed data, in
float32 and in float64, printing the losses and checksums of the parameters and of the
optimizer state at full precision; then its ``state_dict`` goes through ``torch.save`` and
``torch.load`` into a fresh model and optimizer, and both take one more step, which must agree
exactly. The optimizers with per-layer logic (AdamP, SGDP, LARS, Lamb, NovoGrad, Shampoo,
Adahessian) also train a tiny conv net. Adahessian differentiates through the gradient
(``backward(create_graph=True)``, Hessian-vector products).

    python scripts/shared_rng_run.py drive_optimizers.py [VARIANT ... | all]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_optimizers.py [VARIANT ... | all]   # jtorch

Without arguments it runs every variant (``all`` too). Each variant reseeds
(``torch.manual_seed``), so a subset prints what the full run prints for it. float64 should
agree to about 1e-12 (which tells a real difference from float32 rounding).
"""

import io
import os
import shutil
import sys
import tempfile
import time

import torch
from torch import nn

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import ema_pytorch  # noqa: E402
import lion_pytorch  # noqa: E402
import schedulefree  # noqa: E402
import thop  # noqa: E402
import torch_optimizer as topt  # noqa: E402

STEPS = 10
DTYPES = (torch.float32, torch.float64)

VARIANTS = {}


def variant(name):
    def register(build):
        VARIANTS[name] = build
        return build
    return register


def checksum(t):
    """The sum of the magnitudes, a weighted sum (weights 1 to 2 in a period of 7 elements, so
    that values summing to zero give no cancellation noise) and the largest magnitude, in
    float64."""
    t = t.detach().double().flatten()
    if t.numel() == 0:
        return "empty"
    w = 1.0 + (torch.arange(t.numel(), dtype=torch.float64) % 7) / 6
    return (f"abssum {t.abs().sum().item()!r} wsum {(t * w).sum().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def flat(tensors):
    return torch.cat([t.detach().double().flatten() for t in tensors])


# few distinct parameter shapes (two in the MLP, three in the conv net): jtorch compiles each
# optimizer op once per shape and dtype


def mlp():
    return nn.Sequential(nn.Linear(6, 6), nn.Tanh(), nn.Linear(6, 6))


def convnet():
    return nn.Sequential(nn.Conv2d(4, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 4, 3, padding=1),
                         nn.ReLU(), nn.Flatten(), nn.Linear(4 * 8 * 8, 4))


class Task:
    """A model factory with its fixed data and loss."""

    def __init__(self, kind, dtype):
        self.kind, self.dtype = kind, dtype
        if kind == "mlp":
            self.x = torch.randn(16, 6).to(dtype)
            self.y = torch.randn(16, 6).to(dtype)
        else:
            self.x = torch.randn(8, 4, 8, 8).to(dtype)
            self.y = torch.randint(0, 4, (8,))

    def model(self):
        return (mlp() if self.kind == "mlp" else convnet()).to(self.dtype)

    def loss(self, model):
        out = model(self.x)
        if self.kind == "mlp":
            return nn.functional.mse_loss(out, self.y)
        return nn.functional.cross_entropy(out, self.y)


def state_lines(opt):
    """Each optimizer-state key over all parameters: a tensor's checksum, or the values."""
    per_key = {}
    for state in opt.state.values():
        for key, value in state.items():
            per_key.setdefault(key, []).append(value)
    lines = []
    for key in sorted(per_key, key=str):
        values = per_key[key]
        if all(isinstance(v, torch.Tensor) for v in values):
            lines.append(f"state {key} {checksum(flat(values))}")
        else:
            lines.append(f"state {key} {values!r}")
    return lines


def one_step(model, opt, task, create_graph):
    opt.zero_grad()
    loss = task.loss(model)
    loss.backward(create_graph=create_graph)
    opt.step()
    return loss.item()


def train(make_opt, kind="mlp", create_graph=False, steps=STEPS, modes=False):
    """Train a fresh model with ``make_opt(params)`` in each dtype; print the losses, the
    parameters, the optimizer state, and a step after a state_dict round trip. ``modes``:
    a schedule-free optimizer (``train()``/``eval()`` around the steps and the evaluation)."""
    out = []
    for dtype in DTYPES:
        torch.manual_seed(0)
        task = Task(kind, dtype)
        model = task.model()
        opt = make_opt(model.parameters())
        tag = f"{kind} {str(dtype)[6:]}"
        losses = []
        for _ in range(steps):
            if modes:
                opt.train()
            losses.append(one_step(model, opt, task, create_graph))
        out.append(f"{tag} losses {' '.join(repr(v) for v in losses)}")
        out.append(f"{tag} params {checksum(flat(model.parameters()))}")
        if modes:
            opt.eval()
            with torch.no_grad():
                out.append(f"{tag} eval loss {task.loss(model).item()!r} "
                           f"params {checksum(flat(model.parameters()))}")
        out += [f"{tag} {line}" for line in state_lines(opt)]
        # state_dict round trip through torch.save/torch.load into fresh objects
        buf = io.BytesIO()
        try:
            opt_state = opt.state_dict()
        except AttributeError as e:  # Lookahead: no Optimizer.__init__, PyTorch's fails too
            out.append(f"{tag} state_dict fails: {type(e).__name__}")
            continue
        torch.save({"model": model.state_dict(), "opt": opt_state}, buf)
        buf.seek(0)
        saved = torch.load(buf, weights_only=False)
        torch.manual_seed(1)
        model2 = task.model()
        opt2 = make_opt(model2.parameters())
        model2.load_state_dict(saved["model"])
        opt2.load_state_dict(saved["opt"])
        if modes:
            opt.train()
            opt2.train()
        for m, o in ((model, opt), (model2, opt2)):
            torch.manual_seed(2)  # Adahessian draws its probe vectors again
            one_step(m, o, task, create_graph)
        # (NovoGrad's float32 0-d state comes back in the parameters' float64: 1e-11 apart)
        diff = (flat(model.parameters()) - flat(model2.parameters())).abs().max().item()
        diff = "0" if diff == 0 else "below 1e-9" if diff < 1e-9 else repr(diff)
        out.append(f"{tag} reloaded step params {checksum(flat(model2.parameters()))} "
                   f"max diff from the original {diff}")
    return out


def train_both(make_opt, **kw):
    return train(make_opt, "mlp", **kw) + train(make_opt, "conv", **kw)


# torch-optimizer: every optimizer, the MLP; per-layer ones the conv net too

SIMPLE = {
    "a2gradexp": lambda p: topt.A2GradExp(p, lr=0.05, beta=5, lips=5, rho=0.5),
    "a2gradinc": lambda p: topt.A2GradInc(p, lr=0.05, beta=5, lips=5),
    "a2graduni": lambda p: topt.A2GradUni(p, lr=0.05, beta=5, lips=5),
    "accsgd": lambda p: topt.AccSGD(p, lr=0.05, weight_decay=1e-3),
    "adabelief": lambda p: topt.AdaBelief(p, lr=0.01, weight_decay=1e-2, weight_decouple=True),
    "adabelief_amsgrad_rectify": lambda p: topt.AdaBelief(p, lr=0.01, amsgrad=True,
                                                          rectify=True, weight_decay=1e-3),
    "adabound": lambda p: topt.AdaBound(p, lr=0.01, final_lr=0.1, weight_decay=1e-3),
    "adabound_amsbound": lambda p: topt.AdaBound(p, lr=0.01, amsbound=True),
    "adamod": lambda p: topt.AdaMod(p, lr=0.01, weight_decay=1e-3),
    "adafactor": lambda p: topt.Adafactor(p),
    "adafactor_lr_beta1": lambda p: topt.Adafactor(p, lr=0.01, beta1=0.9, relative_step=False,
                                                   scale_parameter=False, weight_decay=1e-3),
    "aggmo": lambda p: topt.AggMo(p, lr=0.02, weight_decay=1e-3),
    "apollo": lambda p: topt.Apollo(p, lr=0.01, warmup=3),
    "diffgrad": lambda p: topt.DiffGrad(p, lr=0.01, weight_decay=1e-3),
    "madgrad": lambda p: topt.MADGRAD(p, lr=0.01, weight_decay=1e-3),
    "madgrad_nomomentum": lambda p: topt.MADGRAD(p, lr=0.01, momentum=0.0),
    "pid": lambda p: topt.PID(p, lr=0.01, momentum=0.9, weight_decay=1e-3),
    "qhadam": lambda p: topt.QHAdam(p, lr=0.01, nus=(0.7, 1.0), weight_decay=1e-3,
                                    decouple_weight_decay=True),
    "qhm": lambda p: topt.QHM(p, lr=0.05, momentum=0.9, nu=0.7, weight_decay=1e-3),
    "radam": lambda p: topt.RAdam(p, lr=0.01, weight_decay=1e-3),
    "ranger": lambda p: topt.Ranger(p, lr=0.01, k=4, weight_decay=1e-3),
    "rangerqh": lambda p: topt.RangerQH(p, lr=0.01, k=4),
    "rangerva": lambda p: topt.RangerVA(p, lr=0.01, k=4),
    "sgdw": lambda p: topt.SGDW(p, lr=0.05, momentum=0.9, weight_decay=1e-2, nesterov=True),
    "swats": lambda p: topt.SWATS(p, lr=0.01, weight_decay=1e-3, nesterov=True),
    "yogi": lambda p: topt.Yogi(p, lr=0.01, weight_decay=1e-3),
    "lookahead_yogi": lambda p: topt.Lookahead(topt.Yogi(p, lr=0.01), k=3, alpha=0.5),
    "lookahead_sgdw": lambda p: topt.Lookahead(topt.SGDW(p, lr=0.05, momentum=0.9), k=4),
    "lion": lambda p: lion_pytorch.Lion(p, lr=1e-3, weight_decay=1e-2),
    "lion_decoupled": lambda p: lion_pytorch.Lion(p, lr=1e-3, weight_decay=1e-1,
                                                  decoupled_weight_decay=True),
}

PER_LAYER = {
    "adamp": lambda p: topt.AdamP(p, lr=0.01, weight_decay=1e-2, delta=0.1),
    "adamp_nesterov": lambda p: topt.AdamP(p, lr=0.01, nesterov=True, delta=1.0),
    "sgdp": lambda p: topt.SGDP(p, lr=0.05, momentum=0.9, weight_decay=1e-2, delta=1.0),
    "lars": lambda p: topt.LARS(p, lr=0.5, momentum=0.9, weight_decay=1e-3),
    "lars_nesterov": lambda p: topt.LARS(p, lr=0.2, momentum=0.9, nesterov=True),
    "lamb": lambda p: topt.Lamb(p, lr=0.01, weight_decay=1e-2),
    "lamb_adam_debias": lambda p: topt.Lamb(p, lr=0.01, adam=True, debias=True),
    "novograd": lambda p: topt.NovoGrad(p, lr=0.01, weight_decay=1e-3, grad_averaging=True),
    "novograd_amsgrad": lambda p: topt.NovoGrad(p, lr=0.01, amsgrad=True),
    "shampoo": lambda p: topt.Shampoo(p, lr=0.02, momentum=0.9, weight_decay=1e-3,
                                        epsilon=0.1),
    "shampoo_freq": lambda p: topt.Shampoo(p, lr=0.02, epsilon=0.1, update_freq=3),
}

for _name, _make in SIMPLE.items():
    variant(_name)(lambda make=_make: train(make))
for _name, _make in PER_LAYER.items():
    variant(_name)(lambda make=_make: train_both(make))


def _randint_like(input, low=0, high=None, **kw):
    """Adahessian draws its Rademacher vectors with ``torch.randint_like``, which the wrapper
    does not replace: take them from its ``torch.randint`` (the shared stream)."""
    if high is None:
        low, high = 0, low
    return torch.randint(low, high, tuple(input.shape), dtype=input.dtype)


@variant("adahessian")
def _():
    torch.randint_like = _randint_like
    return train_both(lambda p: topt.Adahessian(p, lr=0.05, weight_decay=1e-3),
                      create_graph=True)


@variant("adahessian_power")
def _():
    torch.randint_like = _randint_like
    return train(lambda p: topt.Adahessian(p, lr=0.02, hessian_power=0.7), create_graph=True)


# schedulefree: train()/eval() switching moves the parameters between y and x


@variant("sf_adamw")
def _():
    return train(lambda p: schedulefree.AdamWScheduleFree(p, lr=0.01, warmup_steps=3,
                                                          weight_decay=1e-2), modes=True)


@variant("sf_sgd")
def _():
    return train(lambda p: schedulefree.SGDScheduleFree(p, lr=0.1, warmup_steps=2,
                                                        weight_decay=1e-3), modes=True)


@variant("sf_radam")
def _():
    return train(lambda p: schedulefree.RAdamScheduleFree(p, lr=0.01, weight_decay=1e-3),
                 modes=True)


@variant("sf_adamw_noforeach")
def _():
    return train(lambda p: schedulefree.AdamWScheduleFree(p, lr=0.01, foreach=False, r=1.0),
                 modes=True)


@variant("sf_wrapper")
def _():
    return train(lambda p: schedulefree.ScheduleFreeWrapper(
        torch.optim.SGD(p, lr=0.05, momentum=0.0), momentum=0.9, weight_decay_at_y=1e-3),
        modes=True)


# ema-pytorch


def ema_run(dtype, **kw):
    torch.manual_seed(0)
    task = Task("mlp", dtype)
    model = task.model()
    ema = ema_pytorch.EMA(model, **kw)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    out = []
    tag = f"{str(dtype)[6:]}"
    for step in range(STEPS):
        one_step(model, opt, task, False)
        ema.update()
        out.append(f"{tag} step {step} decay {ema.get_current_decay()!r} "
                   f"ema params {checksum(flat(ema.ema_model.parameters()))}")
    with torch.no_grad():
        out.append(f"{tag} ema output {checksum(ema(task.x))}")
        out.append(f"{tag} online output {checksum(model(task.x))}")
    sd = ema.state_dict()
    out.append(f"{tag} state_dict keys {sorted(sd)}")
    out.append(f"{tag} state_dict {checksum(flat(v.double() for v in sd.values()))}")
    buf = io.BytesIO()
    torch.save(sd, buf)
    buf.seek(0)
    torch.manual_seed(1)
    ema2 = ema_pytorch.EMA(task.model(), **kw)
    ema2.load_state_dict(torch.load(buf))
    with torch.no_grad():
        diff = (ema2(task.x) - ema(task.x)).abs().max().item()
    out.append(f"{tag} reloaded step {int(ema2.step)} output max diff {diff!r}")
    ema.copy_params_from_ema_to_model()
    out.append(f"{tag} model after copy from ema {checksum(flat(model.parameters()))}")
    return out


@variant("ema")
def _():
    out = []
    for dtype in DTYPES:
        out += ema_run(dtype, beta=0.9, update_after_step=2, update_every=1)
    return out


@variant("ema_power")
def _():
    out = []
    for dtype in DTYPES:
        out += ema_run(dtype, beta=0.99, update_after_step=0, update_every=2, inv_gamma=1.0,
                       power=0.75, min_value=0.1, use_foreach=True, include_online_model=False,
                       param_or_buffer_names_no_ema={"2.bias"})
    return out


@variant("ema_bn")
def _():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2))
    x = torch.randn(10, 4)
    ema = ema_pytorch.EMA(model, beta=0.8, update_after_step=1, update_every=1,
                          update_model_with_ema_every=3, update_model_with_ema_beta=0.5)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    out = []
    for step in range(8):
        opt.zero_grad()
        loss = model(x).pow(2).mean()
        loss.backward()
        opt.step()
        ema.update()
        buffers = dict(ema.ema_model.named_buffers())
        out.append(f"step {step} loss {loss.item()!r} ema running_mean "
                   f"{checksum(buffers['1.running_mean'])} online params "
                   f"{checksum(flat(model.parameters()))}")
    ema.eval()
    with torch.no_grad():
        out.append(f"ema eval output {checksum(ema(x))}")
    return out


@variant("posthoc_ema")
def _():
    torch.manual_seed(0)
    task = Task("mlp", torch.float64)
    model = task.model()
    folder = tempfile.mkdtemp()
    try:
        ema = ema_pytorch.PostHocEMA(model, sigma_rels=(0.05, 0.28), checkpoint_every_num_steps=3,
                                     checkpoint_folder=folder, checkpoint_dtype=torch.float64)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        out = []
        for _ in range(12):
            one_step(model, opt, task, False)
            ema.update()
        out.append(f"checkpoints {len(os.listdir(folder))}")
        for sigma_rel in (0.1, 0.15):
            synth = ema.synthesize_ema_model(sigma_rel=sigma_rel)
            with torch.no_grad():
                out.append(f"sigma_rel {sigma_rel} output {checksum(synth(task.x))}")
        synth = ema.synthesize_ema_model(sigma_rel=0.1, step=6)
        with torch.no_grad():
            out.append(f"sigma_rel 0.1 step 6 output {checksum(synth(task.x))}")
    finally:
        shutil.rmtree(folder)
    return out


# thop


class Mixed(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(2)
        self.up = nn.Upsample(scale_factor=2, mode="bilinear")
        self.deconv = nn.ConvTranspose2d(8, 4, 2, stride=2)
        self.avg = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(4, 5)

    def forward(self, x):
        x = self.pool(torch.relu(self.bn(self.conv(x))))
        x = self.deconv(self.up(x))
        return self.fc(self.avg(x).flatten(1))


class Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(4, 6, num_layers=2)
        self.lstm = nn.LSTM(6, 5, bidirectional=True, batch_first=False)
        self.gru = nn.GRU(10, 3)
        self.cell = nn.LSTMCell(3, 3)

    def forward(self, x):
        x, _ = self.rnn(x)
        x, _ = self.lstm(x)
        x, h = self.gru(x)
        return self.cell(h[0])[0]


@variant("thop")
def _():
    torch.manual_seed(0)
    cases = [
        ("linear", nn.Linear(10, 20), torch.randn(4, 10)),
        ("mlp", mlp(), torch.randn(16, 6)),
        ("convnet", convnet(), torch.randn(8, 4, 8, 8)),
        ("conv1d_groups", nn.Conv1d(4, 8, 3, groups=2, stride=2), torch.randn(2, 4, 16)),
        ("conv3d", nn.Conv3d(2, 3, 2), torch.randn(1, 2, 4, 4, 4)),
        ("mixed", Mixed(), torch.randn(2, 3, 16, 16)),
        ("bn_eval", nn.BatchNorm1d(7).eval(), torch.randn(5, 7)),
        ("layernorm_act", nn.Sequential(nn.LayerNorm(8), nn.GELU(), nn.Softmax(-1),
                                        nn.Dropout(0.0)), torch.randn(3, 8)),
        ("pools", nn.Sequential(nn.AvgPool2d(2), nn.AdaptiveMaxPool2d(3), nn.LeakyReLU()),
         torch.randn(1, 2, 12, 12)),
        ("recurrent", Recurrent(), torch.randn(5, 2, 4)),
    ]
    out = []
    for name, model, x in cases:
        macs, params = thop.profile(model, inputs=(x,), verbose=False)
        out.append(f"{name} macs {macs!r} params {params!r} {thop.clever_format([macs, params])}")
    macs, params, layers = thop.profile(Mixed(), inputs=(torch.randn(1, 3, 8, 8),),
                                        verbose=False, ret_layer_info=True)
    out.append(f"mixed layers {macs!r} {params!r} "
               f"{sorted((k, v[0], v[1]) for k, v in layers.items())}")
    return out


def run(name):
    torch.manual_seed(0)
    print(f"== {name}")
    for line in VARIANTS[name]():
        print(f"{name} {line}")


def main(argv):
    names = list(VARIANTS) if argv in ([], ["all"]) else argv
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"unknown variants {unknown}; known: {' '.join(VARIANTS)}")
    for name in names:
        start = time.time()
        run(name)
        print(f"[{name}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
