"""Driver of Opacus 1.6 (differentially private training) and torch-ema 0.3
(docs/real-programs.md), both installed packages run unchanged.

Opacus: ``PrivacyEngine.make_private`` and ``make_private_with_epsilon`` on a tiny MLP and a
tiny CNN with a DataLoader (fixed batches and Poisson sampling), flat, per-layer and ghost
(fast gradient) clipping; ``GradSampleModule`` with its hooks, its functorch samplers and
expanded weights ("ew") over Linear, Conv1d/Conv2d, LayerNorm, GroupNorm, InstanceNorm,
Embedding and ``opacus.layers.DPLSTM`` / ``DPMultiheadAttention``, whose per-sample gradients
(``grad_sample``) are printed and checked against a loop over the samples; DPOptimizer's
clipping and noise (the noise drawn through ``torch.normal``, which the wrapper shares); the
RDP, PRV and GDP accountants and ``get_noise_multiplier``; ``ModuleValidator.fix`` of a
BatchNorm model; ``save_checkpoint``/``load_checkpoint``. torch-ema: ``ExponentialMovingAverage``
``update`` (with and without ``num_updates``), ``store``/``restore``/``copy_to``,
``average_parameters``, ``state_dict`` through ``torch.save``, ``to``.

    python scripts/shared_rng_run.py drive_opacus.py [VARIANT ... | all]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_opacus.py [VARIANT ... | all]   # jtorch

Each variant reseeds (``torch.manual_seed``), so a subset prints what the full run prints for
it. ``OPACUS_FLOAT64=1`` runs the models in float64.
"""

import io
import os
import sys
import warnings

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import opacus  # noqa: E402
import torch_ema  # noqa: E402
from opacus import GradSampleModule, PrivacyEngine  # noqa: E402
from opacus.accountants import GaussianAccountant, PRVAccountant, RDPAccountant  # noqa: E402
from opacus.accountants.utils import get_noise_multiplier  # noqa: E402
from opacus.grad_sample import GradSampleModuleExpandedWeights  # noqa: E402
from opacus.layers import DPLSTM, DPMultiheadAttention  # noqa: E402
from opacus.validators import ModuleValidator  # noqa: E402

warnings.filterwarnings("ignore")

DTYPE = torch.float64 if os.environ.get("OPACUS_FLOAT64") else torch.float32
VARIANTS = {}


def variant(name):
    def register(build):
        VARIANTS[name] = build
        return build
    return register


def checksum(t):
    """The sum of the magnitudes, a weighted sum (weights 1 to 2 over a period of 7 elements)
    and the largest magnitude, in float64."""
    t = t.detach().double().flatten()
    if t.numel() == 0:
        return "empty"
    w = 1.0 + (torch.arange(t.numel(), dtype=torch.float64) % 7) / 6
    return (f"abssum {t.abs().sum().item()!r} wsum {(t * w).sum().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def show_grad_samples(tag, model):
    for name, p in model.named_parameters():
        gs = getattr(p, "grad_sample", None)
        if gs is None:
            print(f"{tag} {name} grad_sample None")
            continue
        norms = gs.detach().double().flatten(1).norm(dim=1)
        print(f"{tag} {name} grad_sample {tuple(gs.shape)} {checksum(gs)} "
              f"norms {[round(v, 6) for v in norms.tolist()]}")


def show_params(tag, model):
    for name, p in model.named_parameters():
        print(f"{tag} {name} {checksum(p)}")


def show_grads(tag, model):
    for name, p in model.named_parameters():
        print(f"{tag} {name} grad {checksum(p.grad) if p.grad is not None else None}")


def classification_data(n=64, features=8, classes=4):
    x = torch.randn(n, features).to(DTYPE)
    y = torch.randint(0, classes, (n,))
    return TensorDataset(x, y)


def image_data(n=32, classes=3):
    x = torch.randn(n, 1, 8, 8).to(DTYPE)
    y = torch.randint(0, classes, (n,))
    return TensorDataset(x, y)


def mlp():
    return nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 4)).to(DTYPE)


def cnn(classes=3):
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.GroupNorm(2, 4), nn.ReLU(),
                         nn.Conv2d(4, 4, 3, stride=2), nn.Tanh(), nn.Flatten(),
                         nn.Linear(4 * 3 * 3, classes)).to(DTYPE)


def train(tag, model, optimizer, loader, engine=None, criterion=None, epochs=1, delta=1e-3,
          show_first=True):
    criterion = criterion or nn.CrossEntropyLoss()
    step = 0
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            if show_first and step == 0:
                show_grad_samples(f"{tag} step0", model)
            optimizer.step()
            if show_first and step == 0:
                show_grads(f"{tag} step0 noised", model)
            print(f"{tag} epoch {epoch} step {step} batch {len(y)} loss {loss.item()!r}")
            step += 1
        if engine is not None:
            print(f"{tag} epoch {epoch} epsilon {engine.get_epsilon(delta)!r}")
    show_params(f"{tag} final", model)


def private(data, batch_size, build, optimizer, accountant="rdp", with_epsilon=False,
            **kwargs):
    """A model built by ``build``, its ``optimizer(parameters)`` and a DataLoader of ``data``
    made private by a PrivacyEngine with ``accountant``: the engine, then what its
    ``make_private`` (or ``make_private_with_epsilon``) returns."""
    model = build()
    engine = PrivacyEngine(accountant=accountant)
    make = engine.make_private_with_epsilon if with_epsilon else engine.make_private
    return (engine, *make(module=model, optimizer=optimizer(model.parameters()),
                          data_loader=DataLoader(data, batch_size=batch_size), **kwargs))


@variant("mlp_hooks")
def mlp_hooks():
    engine, model, optimizer, loader = private(
        classification_data(), 16, mlp, lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9),
        noise_multiplier=1.1, max_grad_norm=1.0, poisson_sampling=False)
    print("mlp_hooks", type(model).__name__, type(optimizer).__name__,
          type(loader).__name__, optimizer.noise_multiplier, optimizer.max_grad_norm)
    train("mlp_hooks", model, optimizer, loader, engine, epochs=2)


@variant("mlp_poisson")
def mlp_poisson():
    engine, model, optimizer, loader = private(
        classification_data(n=48), 12, mlp, lambda ps: torch.optim.Adam(ps, lr=0.01),
        accountant="prv", noise_multiplier=0.8, max_grad_norm=0.5)
    print("mlp_poisson", type(loader).__name__, type(loader.batch_sampler).__name__,
          loader.sample_rate)
    train("mlp_poisson", model, optimizer, loader, engine, epochs=1, delta=1e-4)


@variant("cnn_epsilon")
def cnn_epsilon():
    engine, model, optimizer, loader = private(
        image_data(), 8, cnn, lambda ps: torch.optim.SGD(ps, lr=0.05),
        with_epsilon=True, target_epsilon=4.0, target_delta=1e-3, epochs=2, max_grad_norm=1.0,
        poisson_sampling=False)
    print(f"cnn_epsilon noise_multiplier {optimizer.noise_multiplier!r}")
    train("cnn_epsilon", model, optimizer, loader, engine, epochs=2)


@variant("per_layer")
def per_layer():
    engine, model, optimizer, loader = private(
        classification_data(n=32), 8, mlp, lambda ps: torch.optim.SGD(ps, lr=0.1),
        accountant="gdp", noise_multiplier=1.0, max_grad_norm=[0.5, 0.2, 0.4, 0.1],
        poisson_sampling=False, clipping="per_layer")
    print("per_layer", type(optimizer).__name__)
    train("per_layer", model, optimizer, loader, engine, epochs=1)


@variant("ghost")
def ghost():
    engine, model, optimizer, criterion, loader = private(
        classification_data(n=32), 8, mlp, lambda ps: torch.optim.SGD(ps, lr=0.1),
        criterion=nn.CrossEntropyLoss(), noise_multiplier=1.0, max_grad_norm=1.0,
        poisson_sampling=False, grad_sample_mode="ghost")
    print("ghost", type(model).__name__, type(optimizer).__name__, type(criterion).__name__)
    for step, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        if step == 0:
            print("ghost per_sample_gradient_norms",
                  [round(v, 6) for v in model.per_sample_gradient_norms.double().tolist()])
        optimizer.step()
        if step == 0:
            show_grads("ghost step0 noised", model)
        print(f"ghost step {step} loss {loss.item()!r}")
    show_params("ghost final", model)


class Mixed(nn.Module):
    """Every layer type Opacus has a grad sampler for, on a token sequence."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 6)
        self.conv = nn.Conv1d(6, 6, 3, padding=1, bias=False)  # (InstanceNorm follows)
        self.ln = nn.LayerNorm(6)
        self.gn = nn.GroupNorm(3, 6)
        self.inorm = nn.InstanceNorm1d(6, affine=True)
        self.fc = nn.Linear(6, 3)

    def forward(self, tokens):
        h = self.emb(tokens)                       # (B, T, 6)
        h = self.conv(h.transpose(1, 2))           # (B, 6, T)
        h = self.gn(torch.tanh(self.inorm(h))).transpose(1, 2)
        h = self.ln(h)
        return self.fc(h).mean(1)


class Conv2dNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, stride=1, padding=1, groups=1)
        self.dw = nn.Conv2d(3, 3, 3, padding=1, groups=3, bias=False)
        self.ln = nn.LayerNorm([3, 5, 5])
        self.fc = nn.Linear(75, 2)

    def forward(self, x):
        h = torch.tanh(self.conv(x))
        h = self.ln(self.dw(h))
        return self.fc(h.flatten(1))


class LSTMNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 5)
        self.lstm = DPLSTM(5, 6, num_layers=2, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(12, 3)

    def forward(self, tokens):
        out, (h, c) = self.lstm(self.emb(tokens))
        return self.fc(out[:, -1])


class AttentionNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 8)
        self.attn = DPMultiheadAttention(8, 2, batch_first=True)
        self.fc = nn.Linear(8, 3)

    def forward(self, tokens):
        h = self.emb(tokens)
        out, weights = self.attn(h, h, h)
        return self.fc(out.mean(1))


def loop_grads(model, x, y):
    """Each sample's gradient by a backward of its own loss (sum reduction, as the samplers'
    per-sample gradients of a summed loss)."""
    grads = []
    for i in range(x.shape[0]):
        model.zero_grad()
        nn.functional.cross_entropy(model(x[i:i + 1]), y[i:i + 1], reduction="sum").backward()
        grads.append([p.grad.detach().clone() for p in model.parameters()])
    return [torch.stack(gs) for gs in zip(*grads)]


def check_sampler(tag, build, x, y, modes=("hooks", "functorch", "ew")):
    torch.manual_seed(1)
    base = build().to(DTYPE)
    expected = loop_grads(base, x, y)
    for mode in modes:
        model = build().to(DTYPE)
        model.load_state_dict(base.state_dict())
        try:
            if mode == "ew":
                gsm = GradSampleModuleExpandedWeights(model, batch_first=True,
                                                      loss_reduction="sum")
            else:
                gsm = GradSampleModule(model, batch_first=True, loss_reduction="sum",
                                       force_functorch=(mode == "functorch"))
            out = gsm(x)
            nn.functional.cross_entropy(out, y, reduction="sum").backward()
        except Exception as e:  # noqa: BLE001 - printed: the same in both frameworks
            print(f"{tag} {mode} {type(e).__name__}: {str(e).splitlines()[0][:120]}")
            continue
        worst = max((p.grad_sample.double() - want.double()).abs().max().item()
                    for p, want in zip(model.parameters(), expected))
        worst /= max(want.double().abs().max().item() for want in expected)
        print(f"{tag} {mode} grad_sample vs loop below 1e-5: {worst < 1e-5}")
        show_grad_samples(f"{tag} {mode}", model)
        if hasattr(gsm, "_close"):
            gsm._close()


@variant("samplers")
def samplers():
    tokens = torch.randint(0, 10, (5, 7))
    y = torch.randint(0, 3, (5,))
    check_sampler("mixed", Mixed, tokens, y)
    x = torch.randn(4, 2, 5, 5).to(DTYPE)
    y2 = torch.randint(0, 2, (4,))
    check_sampler("conv2d", Conv2dNet, x, y2)


@variant("dplstm")
def dplstm():
    tokens = torch.randint(0, 10, (4, 6))
    y = torch.randint(0, 3, (4,))
    check_sampler("dplstm", LSTMNet, tokens, y, modes=("hooks",))
    check_sampler("dpmha", AttentionNet, tokens, y, modes=("hooks",))
    # a DPLSTM trained privately on token sequences
    data = TensorDataset(torch.randint(0, 10, (24, 6)), torch.randint(0, 3, (24,)))
    engine, model, optimizer, loader = private(
        data, 6, lambda: LSTMNet().to(DTYPE), lambda ps: torch.optim.RMSprop(ps, lr=0.01),
        noise_multiplier=0.7, max_grad_norm=1.0, poisson_sampling=False)
    train("dplstm_train", model, optimizer, loader, engine, show_first=False)


class BNNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(4)
        self.pool = nn.AdaptiveAvgPool2d(2)
        self.fc = nn.Linear(16, 3)

    def forward(self, x):
        return self.fc(self.pool(torch.relu(self.bn(self.conv(x)))).flatten(1))


@variant("validator")
def validator():
    model = BNNet().to(DTYPE)
    errors = ModuleValidator.validate(model, strict=False)
    print("validator errors", [type(e).__name__ + ": " + str(e)[:60] for e in errors])
    fixed = ModuleValidator.fix(model).to(DTYPE)   # (its new GroupNorm is float32)
    print("validator fixed", fixed.bn, ModuleValidator.is_valid(fixed))
    show_params("validator fixed", fixed)
    data = image_data(n=16)
    engine, model, optimizer, loader = private(
        data, 8, lambda: fixed, lambda ps: torch.optim.SGD(ps, lr=0.1), noise_multiplier=1.0,
        max_grad_norm=1.0, poisson_sampling=False)
    train("validator", model, optimizer, loader, engine)
    unfixed = BNNet()
    try:
        PrivacyEngine().make_private(
            module=unfixed, optimizer=torch.optim.SGD(unfixed.parameters(), lr=0.1),
            data_loader=DataLoader(data, batch_size=8), noise_multiplier=1.0,
            max_grad_norm=1.0)
    except Exception as e:  # noqa: BLE001 - printed: the same in both frameworks
        print("validator unfixed", type(e).__name__, str(e).splitlines()[0][:100])


@variant("accountants")
def accountants():
    for cls in (RDPAccountant, PRVAccountant, GaussianAccountant):
        acc = cls()
        for _ in range(20):
            acc.step(noise_multiplier=1.2, sample_rate=0.05)
        if cls is not GaussianAccountant:  # it requires a constant noise and sample rate
            acc.step(noise_multiplier=0.9, sample_rate=0.1)
        print(f"accountant {acc.mechanism()} epsilon {acc.get_epsilon(1e-5)!r} "
              f"history {acc.history[-2:]}")
        state = acc.state_dict()
        acc2 = cls()
        acc2.load_state_dict(state)
        print(f"accountant {acc.mechanism()} reloaded epsilon {acc2.get_epsilon(1e-5)!r}")
    rdp = RDPAccountant()
    rdp.step(noise_multiplier=1.0, sample_rate=0.01)
    eps, alpha = rdp.get_privacy_spent(delta=1e-5)
    print(f"accountant rdp privacy_spent {eps!r} alpha {alpha!r}")
    for acc in ("rdp", "prv", "gdp"):
        sigma = get_noise_multiplier(target_epsilon=2.0, target_delta=1e-5, sample_rate=0.02,
                                     epochs=3, accountant=acc)
        print(f"noise multiplier {acc} {sigma!r}")


@variant("checkpoint")
def checkpoint():
    data = classification_data(n=32)

    def adam_private():
        return private(data, 8, mlp, lambda ps: torch.optim.Adam(ps, lr=0.01),
                       noise_multiplier=1.0, max_grad_norm=1.0, poisson_sampling=False)

    engine, model, optimizer, loader = adam_private()
    train("checkpoint", model, optimizer, loader, engine, show_first=False)
    buf = io.BytesIO()
    engine.save_checkpoint(path=buf, module=model, optimizer=optimizer)
    buf.seek(0)
    engine2, model2, optimizer2, _ = adam_private()
    engine2.load_checkpoint(path=buf, module=model2, optimizer=optimizer2)
    same = all(torch.equal(a, b) for a, b in zip(model.parameters(), model2.parameters()))
    print("checkpoint reloaded parameters equal", same,
          sorted(optimizer2.original_optimizer.state_dict()["state"][0]))
    print("checkpoint exp_avg", checksum(optimizer2.original_optimizer.state_dict()
                                         ["state"][0]["exp_avg"]))


@variant("ema")
def ema():
    data = classification_data(n=32)
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.2)
    averager = torch_ema.ExponentialMovingAverage(model.parameters(), decay=0.9)
    warm = torch_ema.ExponentialMovingAverage(model.parameters(), decay=0.99,
                                              use_num_updates=True)
    x, y = data.tensors
    for step in range(6):
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        averager.update()
        warm.update()
        print(f"ema step {step} loss {loss.item()!r} num_updates {warm.num_updates}")
    show_params("ema model", model)
    for i, p in enumerate(averager.shadow_params):
        print(f"ema shadow {i} {checksum(p)}")
    for i, p in enumerate(warm.shadow_params):
        print(f"ema warm shadow {i} {checksum(p)}")
    with averager.average_parameters():
        print(f"ema averaged loss {nn.functional.cross_entropy(model(x), y).item()!r}")
    print(f"ema restored loss {nn.functional.cross_entropy(model(x), y).item()!r}")
    averager.store()
    averager.copy_to()
    print(f"ema copied loss {nn.functional.cross_entropy(model(x), y).item()!r}")
    averager.restore()
    print(f"ema restored again loss {nn.functional.cross_entropy(model(x), y).item()!r}")
    buf = io.BytesIO()
    torch.save(warm.state_dict(), buf)
    buf.seek(0)
    again = torch_ema.ExponentialMovingAverage(model.parameters(), decay=0.5)
    again.load_state_dict(torch.load(buf))
    print("ema reloaded", again.decay, again.num_updates,
          all(torch.equal(a, b) for a, b in zip(again.shadow_params, warm.shadow_params)))
    again.to(dtype=torch.float64)
    print("ema to float64", [p.dtype for p in again.shadow_params][:1])
    # EMA of a privately trained model
    engine, model, optimizer, loader = private(
        image_data(n=16), 8, cnn, lambda ps: torch.optim.SGD(ps, lr=0.1), noise_multiplier=0.5,
        max_grad_norm=1.0, poisson_sampling=False)
    averager = torch_ema.ExponentialMovingAverage(model.parameters(), decay=0.8)
    for x, y in loader:
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
        averager.update()
    for i, p in enumerate(averager.shadow_params):
        print(f"ema dp shadow {i} {checksum(p)}")


def main(argv):
    names = list(VARIANTS) if not argv or argv == ["all"] else argv
    print(f"opacus {opacus.__version__} dtype {DTYPE}")
    for name in names:
        torch.manual_seed(0)
        VARIANTS[name]()


if __name__ == "__main__":
    main(sys.argv[1:])
