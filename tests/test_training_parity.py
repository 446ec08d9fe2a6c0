"""End-to-end parity of whole training programs: torch vs jtorch.

Every program in tests/training_programs.py is written once, as a function of the library
module ``T``, in the style of the PyTorch tutorials. Each test runs it with ``T=torch``, then
with ``T=jtorch`` starting from torch's initial weights (loaded with ``load_state_dict``) on
the same data, and compares everything the program recorded: per-step losses, learning
rates, gradient norms, the final ``state_dict`` (parameters and BatchNorm buffers), the
optimizer's ``state_dict`` (state tensors, step counts, param_groups), the scheduler's
``state_dict`` and evaluation results. float64 runs are compared to ~1e-9; float32 runs to
tolerances measured over these runs (see TOL32).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import jtorch
from tests import training_programs as P

# float32 tolerances: losses / learning rates (relative) and parameters (absolute). Measured
# worst cases over these programs are ~1e-6 (losses) and ~6e-5 (conv biases ahead of
# BatchNorm, whose true gradient is zero, so Adam steps on rounding noise).
LOSS32 = {"rtol": 2e-5, "atol": 1e-6}
PARAM32 = {"rtol": 1e-4, "atol": 2e-4}
TIGHT = {"rtol": 1e-9, "atol": 1e-10}


def _data():
    x, y = P.make_classification(210, 20, 5, seed=0)
    return {"x": x[:160], "y": y[:160], "xt": x[160:], "yt": y[160:]}


DATA = _data()
_img = np.random.default_rng(3).normal(size=(48, 1, 12, 12)).astype(np.float32)
IMAGES = {"x": _img[:40], "y": (np.arange(40) % 4).astype(np.int64), "xt": _img[40:]}
_seq = np.random.default_rng(4).normal(size=(40, 7, 5)).astype(np.float32)
SEQS = {"x": _seq, "y": ((_seq[:, :, 0].sum(1) > 0).astype(np.int64) + (_seq[:, 0, 1] > 1))}
TOKENS = {"tokens": np.random.default_rng(5).integers(0, 17, (24, 12)).astype(np.int64)}


def assert_tree(actual, expected, rtol=0.0, atol=0.0, path="rec", skip=()):
    """Compare two records (nested dicts/lists of NumPy arrays, numbers, strings). Structure,
    keys, shapes, dtypes, integers, booleans and strings must be equal; floats close."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{path}: {type(actual)} is not a dict"
        assert sorted(map(str, actual)) == sorted(map(str, expected)), \
            f"{path}: keys {sorted(map(str, actual))} != {sorted(map(str, expected))}"
        for k in expected:
            if k not in skip:
                assert_tree(actual[k], expected[k], rtol, atol, f"{path}[{k!r}]", skip)
    elif isinstance(expected, (list, tuple)):
        assert isinstance(actual, (list, tuple)) and len(actual) == len(expected), \
            f"{path}: {actual!r} != {expected!r}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_tree(a, e, rtol, atol, f"{path}[{i}]", skip)
    elif isinstance(expected, np.ndarray):
        assert isinstance(actual, np.ndarray), f"{path}: {type(actual)} is not an array"
        assert actual.shape == expected.shape and actual.dtype == expected.dtype, \
            f"{path}: {actual.shape} {actual.dtype} != {expected.shape} {expected.dtype}"
        if expected.dtype.kind == "f":
            np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, err_msg=path)
        else:
            np.testing.assert_array_equal(actual, expected, err_msg=path)
    elif isinstance(expected, float):
        assert isinstance(actual, (float, int)) and not isinstance(actual, bool), \
            f"{path}: {actual!r} is not a number"
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, err_msg=path)
    else:
        assert type(actual) is type(expected) and actual == expected, \
            f"{path}: {actual!r} != {expected!r}"


def both(program, data, **kw):
    """Run ``program`` with torch, then jtorch from torch's initial weights."""
    torch.manual_seed(0)
    t = program(torch, data, **kw)
    jtorch.manual_seed(0)
    j = program(jtorch, data, init=t["init"], **kw)
    return t, j


def check(t, j, dtype, tol32=PARAM32, skip=()):
    """Losses and LRs closely, the whole record (state_dicts too) within ``tol32``."""
    tol = TIGHT if dtype == "float64" else tol32
    for key in ("loss", "lr", "norm"):
        if key in t:
            assert_tree(j[key], t[key], path=key, **(TIGHT if dtype == "float64" else LOSS32))
    assert_tree(j, t, path="rec", skip=skip, **tol)


# ------------------------------------------------------------------------------ programs

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_mlp_sgd_nesterov_steplr(dtype):
    t, j = both(P.mlp_sgd, DATA, dtype=dtype)
    assert len(t["loss"]) == 30 and t["lr"][-1] == pytest.approx(0.1 * 0.5 ** 3)
    assert t["accuracy"] > 0.5  # it learned something: the comparison is meaningful
    check(t, j, dtype)
    assert j["accuracy"] == t["accuracy"]
    # optimizer state: one momentum buffer per parameter, the same param_groups
    assert len(j["optim"]["state"]) == 6
    assert j["optim"]["param_groups"][0]["nesterov"] is True


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cnn_batchnorm_adam_cosine(dtype):
    t, j = both(P.cnn_adam, IMAGES, dtype=dtype)
    # running stats and num_batches_tracked moved and are compared in the state_dict
    assert int(t["params"]["bn1.num_batches_tracked"]) == 16
    assert not np.allclose(t["params"]["bn2.running_var"], 1.0)
    check(t, j, dtype)
    np.testing.assert_array_equal(j["eval_pred"], t["eval_pred"])


@pytest.mark.parametrize("cell", ["LSTM", "GRU"])
def test_rnn_clip_adamw_warmup_sequentiallr(cell):
    t, j = both(P.rnn_adamw, SEQS, cell=cell)
    assert max(t["norm"]) > 0.5  # clipping was active
    assert t["lr"][0] < t["lr"][3]  # warm-up, then decay
    check(t, j, "float32")


def _split_key_bias(rec, d_model=16):
    """The key part of attention's in_proj_bias has an exactly-zero true gradient (softmax is
    shift invariant), so Adam steps on rounding noise: both libraries' values are noise (of
    size lr in float32, about 1e-10 in float64, where it depends on the CPU's BLAS kernels).
    Returns the record without it and the key biases by name."""
    key_bias = {}
    for k, v in list(rec["params"].items()):
        if k.endswith("in_proj_bias"):
            key_bias[k] = v[d_model:2 * d_model]
            rec["params"][k] = np.concatenate([v[:d_model], v[2 * d_model:]])
    return rec, key_bias


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_transformer_lm_adamw_lambdalr_clip(dtype):
    t, j = both(P.transformer_lm, TOKENS, dtype=dtype)
    assert t["loss"][-1] < t["loss"][0]
    (t, t_noise), (j, j_noise) = _split_key_bias(t), _split_key_bias(j)
    if dtype == "float32":   # (Adam's moments of that noise are noise too)
        t.pop("optim"), j.pop("optim")
        check(t, j, dtype, tol32={"rtol": 1e-4, "atol": 1e-5})
    else:
        check(t, j, dtype)
        # the noise itself stays at rounding size in both libraries
        assert_tree(j_noise, t_noise, path="key_bias", rtol=0, atol=1e-8)


@pytest.mark.parametrize("set_to_none", [True, False])
def test_gradient_accumulation(set_to_none):
    data = dict(DATA, order=[int(i) for i in np.random.default_rng(6).permutation(160)])
    t, j = both(P.grad_accumulation, data, set_to_none=set_to_none)
    assert all(all(g) is set_to_none for g in t["grad_none"])
    check(t, j, "float32")


def test_checkpoint_resume(tmp_path):
    """10 steps, save, fresh objects, load, 10 more == 20 uninterrupted steps (exactly in
    jtorch, within float32 tolerance of torch); torch continues jtorch's file identically."""
    ckpt = tmp_path / "ckpt.pt"
    torch.manual_seed(0)
    t20 = P.resumable_training(torch, DATA, stop_epoch=4)
    init = t20["init"]
    j20 = P.resumable_training(jtorch, DATA, init=init, stop_epoch=4)
    ja = P.resumable_training(jtorch, DATA, init=init, stop_epoch=2, save_to=str(ckpt))
    jb = P.resumable_training(jtorch, DATA, load_from=str(ckpt), stop_epoch=4)
    assert len(ja["loss"]) == len(jb["loss"]) == 10
    # jtorch resumed == jtorch uninterrupted, bit for bit
    assert ja["loss"] + jb["loss"] == j20["loss"]
    assert ja["lr"] + jb["lr"] == j20["lr"]
    for key in ("params", "optim", "sched", "eval_out"):
        assert_tree(jb[key], j20[key], path=key)
    # ... and equal to torch's uninterrupted run
    check(t20, j20, "float32")
    # torch reads jtorch's checkpoint (weights_only) and continues exactly like jtorch
    tb = P.resumable_training(torch, DATA, load_from=str(ckpt), stop_epoch=4,
                              load=lambda f: torch.load(f, weights_only=True))
    check(tb, jb, "float32", skip=("init",))
    # the checkpoint's content, as torch sees it
    c = torch.load(ckpt, weights_only=True)
    assert c["epoch"] == 2 and c["scheduler"]["last_epoch"] == 2
    assert c["optimizer"]["state"][0]["step"].dtype == torch.float32
    assert sorted(c["optimizer"]["state"][0]) == ["exp_avg", "exp_avg_sq", "max_exp_avg_sq",
                                                   "step"]


def test_early_stopping_reduce_lr_on_plateau():
    t, j = both(P.early_stopping, DATA)
    assert t["stopped_at"] < 39 and t["lr"][-1] < t["lr"][0]  # stopped early, LR was cut
    check(t, j, "float32")
    assert j["stopped_at"] == t["stopped_at"]


def test_utils_checkpoint_in_forward():
    t, j = both(P.checkpointed_forward, DATA, use_checkpoint=True)
    check(t, j, "float32")
    jtorch.manual_seed(0)
    plain = P.checkpointed_forward(jtorch, DATA, init=t["init"], use_checkpoint=False)
    assert_tree(j["loss"], plain["loss"], rtol=1e-6, atol=1e-7)
    assert_tree(j["params"], plain["params"], rtol=1e-6, atol=1e-7)


def _to_jtorch(obj):
    if isinstance(obj, dict):
        return {k: _to_jtorch(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_jtorch(v) for v in obj)
    if isinstance(obj, torch.Tensor):
        return jtorch.tensor(obj.detach().numpy())
    return obj


@pytest.mark.parametrize("via", ["state_dict", "file"])
def test_torch_state_dicts_continue_in_jtorch(via, tmp_path):
    """A model and optimizer trained 5 steps in torch; their state_dicts (converted, or saved
    with torch.save and read with jtorch.load) continue in jtorch exactly as in torch."""
    torch.manual_seed(0)
    first = P.continue_from_state(torch, DATA, steps=5)
    ms, os_ = first["model_state"], first["optim_state"]
    if via == "file":
        torch.save({"model": ms, "optimizer": os_}, tmp_path / "torch.pt")
        c = jtorch.load(tmp_path / "torch.pt")
        jm, jo = c["model"], c["optimizer"]
    else:
        jm, jo = _to_jtorch(ms), _to_jtorch(os_)
    # (converted first: torch's optimizer.load_state_dict keeps the very tensors it is given)
    t = P.continue_from_state(torch, DATA, ms, os_, start=5, steps=3)
    j = P.continue_from_state(jtorch, DATA, jm, jo, start=5, steps=3)
    assert_tree(j["init"], t["init"], path="loaded")
    check(t, j, "float32", skip=("model_state", "optim_state"))


def test_full_object_checkpoint(tmp_path):
    """torch.save(model) / torch.load(weights_only=False) of whole module and optimizer
    objects: the reloaded pair continues exactly like the original, in both libraries."""
    torch.manual_seed(0)
    t = P.full_object_checkpoint(torch, DATA, path=tmp_path / "t.pt")
    jtorch.manual_seed(0)
    j = P.full_object_checkpoint(jtorch, DATA, init=t["init"], path=tmp_path / "j.pt")
    for rec in (t, j):
        assert rec["resumed_loss"] == rec["loss"][6:]
        assert_tree(rec["resumed_params"], rec["params"], path="resumed_params")
        assert_tree(rec["resumed_optim"], rec["optim"], path="resumed_optim")
    check(t, j, "float32")


def test_tied_weights_onecycle_clip_value():
    """Embedding/output weight tying (one Parameter, two state_dict keys), OneCycleLR's
    LR and momentum cycle, clip_grad_value_."""
    t, j = both(P.tied_embedding_onecycle, TOKENS)
    assert t["tied"] and t["n_params"] == 5
    assert max(t["lr"]) > 4 * t["lr"][-1] and min(t["momentum"]) < 0.9
    check(t, j, "float32")
