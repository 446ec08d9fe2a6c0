"""Whole training programs, written once as functions of the library module ``T``.

Each program is tutorial-style code that uses only PyTorch's public API; the tests in
test_training_parity.py call it with ``T=torch`` and ``T=jtorch`` on the same NumPy data and
the same initial weights, and compare what it records (per-step losses, learning rates,
gradient norms, final ``state_dict``s, optimizer state, evaluation results).

Initial weights: every program builds its model, then, when ``init`` (a dict of NumPy arrays,
the torch model's initial ``state_dict``) is given, loads it with ``load_state_dict``. The
torch run is called with ``init=None`` and records its initial state in ``rec["init"]``.
"""

from __future__ import annotations

import math

import numpy as np

# --------------------------------------------------------------------------------- utilities

def to_numpy(obj):
    """Nested containers of tensors (either library) -> the same containers of NumPy arrays."""
    if isinstance(obj, dict):
        return {k: to_numpy(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_numpy(v) for v in obj)
    if hasattr(obj, "detach") and hasattr(obj, "numpy"):
        return obj.detach().cpu().numpy().copy()
    return obj


def load_init(T, model, init):
    """Load a NumPy ``state_dict`` (from the torch run) into ``model``; return its state."""
    if init is not None:
        model.load_state_dict({k: T.tensor(v) for k, v in init.items()})
    return to_numpy(model.state_dict())


def finish(rec, model, optimizer=None, scheduler=None):
    rec["params"] = to_numpy(model.state_dict())
    if optimizer is not None:
        rec["optim"] = to_numpy(optimizer.state_dict())
    if scheduler is not None:
        rec["sched"] = {k: v for k, v in scheduler.state_dict().items()
                        if not callable(v) and k not in ("lr_lambdas", "_schedulers")}
    return rec


def make_classification(n, d, k, seed, spread=1.0, noise=2.0):
    """A separable-ish classification problem: Gaussian blobs, NumPy float32 and int64."""
    rng = np.random.default_rng(seed)
    centers = rng.normal(0, spread, (k, d))
    y = rng.integers(0, k, n)
    x = centers[y] + rng.normal(0, noise, (n, d))
    return x.astype(np.float32), y.astype(np.int64)


# ------------------------------------------------------- 1. MLP + SGD(nesterov) + StepLR

def mlp_sgd(T, data, init=None, steps=30, dtype="float32"):
    nn = T.nn
    from_np = T.tensor

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.flatten = nn.Flatten()
            self.layers = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 16),
                                        nn.Tanh(), nn.Linear(16, 5))

        def forward(self, x):
            return self.layers(self.flatten(x))

    dt = getattr(T, dtype)
    model = MLP().to(dt)
    rec = {"init": load_init(T, model, init), "loss": [], "lr": []}
    train = T.utils.data.TensorDataset(from_np(data["x"]).to(dt), from_np(data["y"]))
    test = T.utils.data.TensorDataset(from_np(data["xt"]).to(dt), from_np(data["yt"]))
    loader = T.utils.data.DataLoader(train, batch_size=16, shuffle=False)
    test_loader = T.utils.data.DataLoader(test, batch_size=32)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True,
                            weight_decay=1e-3)
    scheduler = T.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.5)
    step = 0
    while step < steps:
        model.train()
        for xb, yb in loader:
            pred = model(xb)
            loss = loss_fn(pred, yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            rec["loss"].append(loss.item())
            rec["lr"].append(scheduler.get_last_lr()[0])
            step += 1
            if step == steps:
                break
    model.eval()
    test_loss, correct = 0.0, 0
    with T.no_grad():
        for xb, yb in test_loader:
            pred = model(xb)
            test_loss += loss_fn(pred, yb).item()
            correct += (pred.argmax(1) == yb).type(T.float).sum().item()
    rec["test_loss"] = test_loss / len(test_loader)
    rec["accuracy"] = correct / len(test_loader.dataset)
    return finish(rec, model, optimizer, scheduler)


# ------------------------------------------------ 2. CNN + BatchNorm + Adam + Cosine

def cnn_adam(T, data, init=None, steps=16, dtype="float32"):
    nn = T.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 3, padding=1)
            self.bn1 = nn.BatchNorm2d(6)
            self.conv2 = nn.Conv2d(6, 8, 3)
            self.bn2 = nn.BatchNorm2d(8)
            self.pool = nn.MaxPool2d(2, 2)
            self.dropout = nn.Dropout(p=0.0)
            self.fc1 = nn.Linear(8 * 2 * 2, 16)
            self.fc2 = nn.Linear(16, 4)

        def forward(self, x):
            x = self.pool(T.relu(self.bn1(self.conv1(x))))
            x = self.pool(nn.functional.relu(self.bn2(self.conv2(x))))
            x = T.flatten(x, 1)
            x = self.dropout(nn.functional.relu(self.fc1(x)))
            return self.fc2(x)

    dt = getattr(T, dtype)
    model = Net().to(dt)
    rec = {"init": load_init(T, model, init), "loss": [], "lr": []}
    ds = T.utils.data.TensorDataset(T.tensor(data["x"]).to(dt), T.tensor(data["y"]))
    loader = T.utils.data.DataLoader(ds, batch_size=8)
    criterion = nn.CrossEntropyLoss()
    optimizer = T.optim.Adam(model.parameters(), lr=3e-3, betas=(0.9, 0.99), weight_decay=1e-4)
    scheduler = T.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=steps, eta_min=1e-4)
    step = 0
    while step < steps:
        for inputs, labels in loader:
            optimizer.zero_grad()
            outputs = model(inputs)
            loss = criterion(outputs, labels)
            loss.backward()
            optimizer.step()
            scheduler.step()
            rec["loss"].append(loss.item())
            rec["lr"].append(optimizer.param_groups[0]["lr"])
            step += 1
            if step == steps:
                break
    model.eval()
    with T.no_grad():
        out = model(T.tensor(data["xt"]).to(dt))
        rec["eval_out"] = out.numpy()
        rec["eval_pred"] = T.max(out.data, 1)[1].numpy()
    return finish(rec, model, optimizer, scheduler)


# ------------------------------ 3. LSTM / GRU classifier + clipping + AdamW + warmup

def rnn_adamw(T, data, init=None, cell="LSTM", steps=12, dtype="float32"):
    nn = T.nn

    class SeqClassifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = getattr(nn, cell)(input_size=5, hidden_size=12, num_layers=2,
                                         batch_first=True)
            self.head = nn.Linear(12, 3)

        def forward(self, x):
            out, _ = self.rnn(x)
            return self.head(out[:, -1, :])

    dt = getattr(T, dtype)
    model = SeqClassifier().to(dt)
    rec = {"init": load_init(T, model, init), "loss": [], "lr": [], "norm": []}
    loader = T.utils.data.DataLoader(
        T.utils.data.TensorDataset(T.tensor(data["x"]).to(dt), T.tensor(data["y"])),
        batch_size=8)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = T.optim.AdamW(model.parameters(), lr=5e-3, weight_decay=0.05)
    warmup = T.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.2, total_iters=4)
    decay = T.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=steps - 4)
    scheduler = T.optim.lr_scheduler.SequentialLR(optimizer, [warmup, decay], milestones=[4])
    step = 0
    while step < steps:
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)
            optimizer.step()
            scheduler.step()
            rec["loss"].append(loss.item())
            rec["norm"].append(float(norm))
            rec["lr"].append(scheduler.get_last_lr()[0])
            step += 1
            if step == steps:
                break
    return finish(rec, model, optimizer)


# --------------------------------------- 4. Transformer LM + AdamW + LambdaLR + clipping

def transformer_lm(T, data, init=None, steps=10, dtype="float32"):
    nn = T.nn
    vocab, d_model = 17, 16

    class TinyLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(vocab, d_model)
            self.pos = nn.Parameter(T.randn(1, 12, d_model) * 0.02)
            layer = nn.TransformerEncoderLayer(d_model, nhead=2, dim_feedforward=32,
                                               dropout=0.0, batch_first=True)
            self.encoder = nn.TransformerEncoder(layer, num_layers=2)
            self.norm = nn.LayerNorm(d_model)
            self.head = nn.Linear(d_model, vocab)

        def forward(self, src):
            seq_len = src.size(1)
            mask = nn.Transformer.generate_square_subsequent_mask(seq_len)
            h = self.embed(src) * math.sqrt(d_model) + self.pos[:, :seq_len]
            h = self.encoder(h, mask=mask, is_causal=True)
            return self.head(self.norm(h))

    dt = getattr(T, dtype)
    model = TinyLM().to(dt)
    rec = {"init": load_init(T, model, init), "loss": [], "lr": [], "norm": []}
    tokens = T.tensor(data["tokens"])
    criterion = nn.CrossEntropyLoss()
    optimizer = T.optim.AdamW(model.parameters(), lr=1e-2, betas=(0.9, 0.98), eps=1e-9)
    warmup = 4
    scheduler = T.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min(1.0, (s + 1) / warmup) * (warmup / max(s + 1, warmup)) ** 0.5)
    model.train()
    for step in range(steps):
        batch = tokens[(step * 4) % len(tokens):(step * 4) % len(tokens) + 4]
        inp, target = batch[:, :-1], batch[:, 1:]
        logits = model(inp)
        loss = criterion(logits.reshape(-1, vocab), target.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        rec["norm"].append(nn.utils.clip_grad_norm_(model.parameters(), 0.5).item())
        optimizer.step()
        scheduler.step()
        rec["loss"].append(loss.item())
        rec["lr"].append(scheduler.get_last_lr()[0])
    model.eval()
    with T.no_grad():
        logits = model(tokens[:4, :-1])
        rec["eval_loss"] = criterion(logits.reshape(-1, vocab), tokens[:4, 1:].reshape(-1)).item()
    return finish(rec, model, optimizer)


# ---------------------------------------------------------- 5. gradient accumulation

def grad_accumulation(T, data, init=None, set_to_none=True, accum=4, steps=6):
    nn = T.nn
    model = nn.Sequential(nn.Linear(20, 24), nn.GELU(), nn.LayerNorm(24), nn.Linear(24, 5))
    rec = {"init": load_init(T, model, init), "loss": [], "grad_none": [], "grad_sum": []}
    loader = T.utils.data.DataLoader(
        T.utils.data.TensorDataset(T.tensor(data["x"]), T.tensor(data["y"])), batch_size=4,
        sampler=data["order"], drop_last=True)  # a fixed shuffled order
    loss_fn = nn.CrossEntropyLoss()
    optimizer = T.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    optimizer.zero_grad(set_to_none=set_to_none)
    running, step = 0.0, 0
    for i, (x, y) in enumerate(loader):
        loss = loss_fn(model(x), y) / accum
        loss.backward()
        running += loss.item()
        if (i + 1) % accum == 0:
            rec["grad_sum"].append(sum(p.grad.abs().sum().item() for p in model.parameters()))
            optimizer.step()
            optimizer.zero_grad(set_to_none=set_to_none)
            rec["grad_none"].append([p.grad is None for p in model.parameters()])
            rec["loss"].append(running)
            running, step = 0.0, step + 1
            if step == steps:
                break
    return finish(rec, model, optimizer)


# ----------------------------------------------------------- 6. checkpoint / resume

def _resume_model(T):
    nn = T.nn
    return nn.Sequential(nn.Linear(20, 24, bias=False), nn.BatchNorm1d(24), nn.ReLU(),
                         nn.Linear(24, 5))


def resumable_training(T, data, init=None, start_epoch=0, stop_epoch=4, load_from=None,
                       save_to=None, load=None):
    """Train epochs [start_epoch, stop_epoch) (5 batches each); optionally resume from the
    checkpoint ``load_from`` (read with ``load`` = T.load or a wrapper) and save the
    checkpoint ``save_to`` at the end."""
    nn = T.nn
    model = _resume_model(T)
    rec = {"init": load_init(T, model, init), "loss": [], "lr": []}
    optimizer = T.optim.Adam(model.parameters(), lr=1e-2, amsgrad=True)
    scheduler = T.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.8)
    loss_fn = nn.CrossEntropyLoss()
    epoch = start_epoch
    if load_from is not None:
        checkpoint = (load or T.load)(load_from)
        model.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        scheduler.load_state_dict(checkpoint["scheduler"])
        epoch = checkpoint["epoch"]
    loader = T.utils.data.DataLoader(
        T.utils.data.TensorDataset(T.tensor(data["x"][:40]), T.tensor(data["y"][:40])),
        batch_size=8, shuffle=False)
    while epoch < stop_epoch:
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            rec["loss"].append(loss.item())
        scheduler.step()
        rec["lr"].append(scheduler.get_last_lr()[0])
        epoch += 1
    if save_to is not None:
        T.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(), "epoch": epoch}, save_to)
    model.eval()
    with T.no_grad():
        rec["eval_out"] = model(T.tensor(data["xt"])).numpy()
    return finish(rec, model, optimizer, scheduler)


# ------------------------------------------- 7. early stopping with ReduceLROnPlateau

def early_stopping(T, data, init=None, max_epochs=40, patience=3):
    nn = T.nn
    model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5))
    rec = {"init": load_init(T, model, init), "loss": [], "val": [], "lr": []}
    train_loader = T.utils.data.DataLoader(
        T.utils.data.TensorDataset(T.tensor(data["x"][:32]), T.tensor(data["y"][:32])),
        batch_size=16)
    val_loader = T.utils.data.DataLoader(
        T.utils.data.TensorDataset(T.tensor(data["xt"]), T.tensor(data["yt"])), batch_size=50)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = T.optim.Adam(model.parameters(), lr=2e-2)
    scheduler = T.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=0.5,
                                                       patience=1, threshold=1e-3)
    best, bad_epochs, best_state = float("inf"), 0, None
    for epoch in range(max_epochs):
        rec["stopped_at"] = epoch
        model.train()
        for x, y in train_loader:
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            rec["loss"].append(loss.item())
        model.eval()
        val_loss = 0.0
        with T.no_grad():
            for x, y in val_loader:
                val_loss += loss_fn(model(x), y).item() * len(x)
        val_loss /= len(val_loader.dataset)
        scheduler.step(val_loss)
        rec["val"].append(val_loss)
        rec["lr"].append(optimizer.param_groups[0]["lr"])
        if val_loss < best - 1e-4:
            best, bad_epochs = val_loss, 0
            best_state = {k: v.clone() for k, v in model.state_dict().items()}
        else:
            bad_epochs += 1
            if bad_epochs >= patience:
                break
    rec["best"] = best
    model.load_state_dict(best_state)
    return finish(rec, model, optimizer, scheduler)


# ---------------------------------------- 8. utils.checkpoint inside forward()

def checkpointed_forward(T, data, init=None, use_checkpoint=True, steps=5):
    nn = T.nn
    from_checkpoint = T.utils.checkpoint.checkpoint

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(24, 48)
            self.fc2 = nn.Linear(48, 24)
            self.norm = nn.LayerNorm(24)

        def forward(self, x):
            return self.norm(x + self.fc2(T.nn.functional.silu(self.fc1(x))))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.inp = nn.Linear(20, 24)
            self.blocks = nn.ModuleList([Block() for _ in range(2)])
            self.out = nn.Linear(24, 5)

        def forward(self, x):
            x = self.inp(x)
            for block in self.blocks:
                if use_checkpoint:
                    x = from_checkpoint(block, x, use_reentrant=False)
                else:
                    x = block(x)
            return self.out(x)

    model = Net()
    rec = {"init": load_init(T, model, init), "loss": []}
    x, y = T.tensor(data["x"][:16]), T.tensor(data["y"][:16])
    optimizer = T.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(steps):
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        rec["loss"].append(loss.item())
        optimizer.step()
    return finish(rec, model, optimizer)


# ----------------------------------- 9. continue a run from another run's state_dicts

def continue_from_state(T, data, model_state=None, optim_state=None, start=0, steps=5):
    """SGD+Adam-style continuation: optionally load model and optimizer state, then train
    ``steps`` more steps on batches ``start..start+steps``."""
    nn = T.nn
    model = nn.Sequential(nn.Linear(20, 16), nn.ReLU(), nn.Linear(16, 5))
    optimizer = T.optim.Adam(model.parameters(), lr=5e-3, weight_decay=1e-2)
    if model_state is not None:
        model.load_state_dict(model_state)
        optimizer.load_state_dict(optim_state)
    rec = {"init": to_numpy(model.state_dict()), "loss": []}
    x, y = T.tensor(data["x"]), T.tensor(data["y"])
    for i in range(start, start + steps):
        xb, yb = x[8 * i:8 * i + 8], y[8 * i:8 * i + 8]
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()
        rec["loss"].append(loss.item())
    rec["model_state"], rec["optim_state"] = model.state_dict(), optimizer.state_dict()
    return finish(rec, model, optimizer)


# ------------------------------- 10. full-object checkpoint (pickled model and optimizer)

def full_object_checkpoint(T, data, init=None, path=None):
    """Train 6 steps, ``T.save`` the model and optimizer OBJECTS, train 6 more; then
    ``T.load(weights_only=False)`` the objects and train the same 6 steps from there."""
    nn = T.nn
    model = nn.Sequential(nn.Linear(20, 16), nn.ReLU(), nn.Dropout(0.0), nn.Linear(16, 5))
    rec = {"init": load_init(T, model, init), "loss": [], "resumed_loss": []}
    optimizer = T.optim.RMSprop(model.parameters(), lr=1e-2, momentum=0.5)
    x, y = T.tensor(data["x"]), T.tensor(data["y"])

    def train(model, optimizer, first, last, losses):
        model.train()
        for i in range(first, last):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x[8 * i:8 * i + 8]), y[8 * i:8 * i + 8])
            loss.backward()
            optimizer.step()
            losses.append(loss.item())

    train(model, optimizer, 0, 6, rec["loss"])
    T.save({"model": model, "optimizer": optimizer, "step": 6}, path)
    train(model, optimizer, 6, 12, rec["loss"])
    checkpoint = T.load(path, weights_only=False)
    resumed = checkpoint["model"]
    train(resumed, checkpoint["optimizer"], checkpoint["step"], 12, rec["resumed_loss"])
    rec["resumed_params"] = to_numpy(resumed.state_dict())
    rec["resumed_optim"] = to_numpy(checkpoint["optimizer"].state_dict())
    return finish(rec, model, optimizer)


# -------------------- 11. tied embedding / output weights + OneCycleLR + clip_grad_value_

def tied_embedding_onecycle(T, data, init=None, steps=12):
    nn = T.nn
    vocab, dim = 17, 12

    class BigramLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(vocab, dim)
            self.gru = nn.GRU(dim, dim, batch_first=True)
            self.head = nn.Linear(dim, vocab, bias=False)
            self.head.weight = self.embed.weight  # weight tying

        def forward(self, tokens):
            out, _ = self.gru(self.embed(tokens))
            return self.head(out)

    model = BigramLM()
    rec = {"init": load_init(T, model, init), "loss": [], "lr": [], "momentum": [],
           "n_params": len(list(model.parameters())),
           "tied": model.head.weight is model.embed.weight}
    tokens = T.tensor(data["tokens"])
    optimizer = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = T.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.5, total_steps=steps)
    for step in range(steps):
        batch = tokens[2 * step % len(tokens):2 * step % len(tokens) + 2]
        logits = model(batch[:, :-1])
        loss = nn.functional.cross_entropy(logits.transpose(1, 2), batch[:, 1:])
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_value_(model.parameters(), clip_value=0.05)
        optimizer.step()
        scheduler.step()
        rec["loss"].append(loss.item())
        rec["lr"].append(scheduler.get_last_lr()[0])
        rec["momentum"].append(optimizer.param_groups[0]["momentum"])
    return finish(rec, model, optimizer, scheduler)
