"""Driver of DeepCTR-Torch (docs/real-programs.md): the installed package, unchanged, on a small
seeded synthetic click-through data set (sparse categorical ids, dense values, variable-length
id sequences with their lengths, a click label and a second "conversion" label): each model's
forward on a batch, three epochs of its own ``BaseModel.fit`` (its shuffling DataLoader,
Adam/Adagrad/RMSprop/SGD, L2 regularisation, validation split, per-batch metrics,
EarlyStopping and ModelCheckpoint callbacks), ``predict``, ``evaluate`` (logloss, AUC,
accuracy, MSE), and a ``torch.save``/``load`` of the state_dict (and of the whole model) into a
fresh model, printing losses, metrics and checksums at full precision.

    python scripts/shared_rng_run.py drive_deepctr.py [VARIANT ... | all]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_deepctr.py [VARIANT ... | all]   # jtorch

Each variant rebuilds its data from a NumPy generator of its own and the model reseeds torch
(``BaseModel.__init__`` calls ``torch.manual_seed(seed)``), so a subset prints what the full run
prints for it. DeepCTR's ``fit`` casts the inputs to float32: everything runs in float32.
"""

import contextlib
import io
import os
import re
import sys
import time
import types

import numpy as np
import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import requests  # noqa: E402

# deepctr_torch's import asks PyPI for its latest version in a thread (no network here: it
# would print "Please check the latest version manually" at a random point of the output)
_get, requests.get = requests.get, lambda *a, **k: types.SimpleNamespace(status_code=0)
import deepctr_torch  # noqa: E402
from deepctr_torch import models as M  # noqa: E402
from deepctr_torch.callbacks import EarlyStopping, ModelCheckpoint  # noqa: E402
from deepctr_torch.inputs import DenseFeat, SparseFeat, VarLenSparseFeat, get_feature_names  # noqa: E402

requests.get = _get

N, BATCH, EPOCHS, EMB = 256, 64, 3, 4
VOCAB = {"user_id": 20, "item_id": 30, "cate_id": 8, "gender": 2}
DENSE = ("d1", "d2", "d3")
SEQ_LEN = 6

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
    w = 1.0 + (np.arange(t.size) % 7) / 6
    return (f"abssum {float(np.abs(t).sum())!r} wsum {float((t * w).sum())!r} "
            f"absmax {float(np.abs(t).max())!r}")


def data(seed=0, n=N):
    """A dict of NumPy inputs (one array per feature name) and two labels, ``click`` driven by
    the ids, the dense values and whether the item's category is in the history, and
    ``convert`` (only for clicks)."""
    rng = np.random.default_rng(seed)
    x = {name: rng.integers(1, size, n) for name, size in VOCAB.items()}
    for name in DENSE:
        x[name] = rng.standard_normal(n).astype(np.float32)
    lengths = rng.integers(1, SEQ_LEN + 1, n)
    valid = np.arange(SEQ_LEN)[None, :] < lengths[:, None]
    x["hist_item_id"] = rng.integers(1, VOCAB["item_id"], (n, SEQ_LEN)) * valid
    x["hist_cate_id"] = rng.integers(1, VOCAB["cate_id"], (n, SEQ_LEN)) * valid
    x["neg_hist_item_id"] = rng.integers(1, VOCAB["item_id"], (n, SEQ_LEN)) * valid
    x["neg_hist_cate_id"] = rng.integers(1, VOCAB["cate_id"], (n, SEQ_LEN)) * valid
    x["seq_length"] = lengths
    genre_len = rng.integers(1, 5, n)
    x["genres"] = rng.integers(1, 10, (n, 4)) * (np.arange(4)[None, :] < genre_len[:, None])
    in_hist = (x["hist_cate_id"] == x["cate_id"][:, None]).any(1)
    logit = (0.8 * x["d1"] - 0.5 * x["d2"] + 1.2 * in_hist + 0.3 * (x["item_id"] % 3)
             - 0.4 * (x["gender"] == 1) - 0.6)
    click = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(np.float32)
    convert = (click * (rng.random(n) < 1 / (1 + np.exp(-x["d3"])))).astype(np.float32)
    return x, click, convert


def sparse_columns(dim=EMB):
    return [SparseFeat(name, size, embedding_dim=dim) for name, size in VOCAB.items()]


def dense_columns():
    return [DenseFeat(name, 1) for name in DENSE]


def genres_column(combiner, dim=EMB):
    return VarLenSparseFeat(SparseFeat("genres", 10, embedding_dim=dim), maxlen=4,
                            combiner=combiner)


def ctr_columns(combiner="mean", dense=True):
    columns = sparse_columns() + [genres_column(combiner)]
    return columns + dense_columns() if dense else columns


def history_columns(neg=False):
    """DIN's/DIEN's: the target item and category, their histories (sharing the embeddings),
    ``seq_length``, and optionally negative-sampled histories (DIEN's auxiliary loss)."""
    columns = sparse_columns(8) + dense_columns()
    prefixes = ("hist_", "neg_hist_") if neg else ("hist_",)
    for prefix in prefixes:
        for name in ("item_id", "cate_id"):
            columns.append(VarLenSparseFeat(
                SparseFeat(prefix + name, VOCAB[name], embedding_dim=8, embedding_name=name),
                maxlen=SEQ_LEN, length_name="seq_length"))
    return columns


def inputs(x, columns):
    return {name: x[name] for name in get_feature_names(columns)}


def split(x, y, at=200):
    head = {k: v[:at] for k, v in x.items()}
    tail = {k: v[at:] for k, v in x.items()}
    return head, y[:at], tail, y[at:]


TIME = re.compile(r"^\d+s - ")


def fit(model, x, y, **kwargs):
    """``model.fit`` with its printed epoch lines (timings removed) and its History at full
    precision."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        history = model.fit(x, y, batch_size=BATCH, epochs=EPOCHS, verbose=2, **kwargs)
    for line in out.getvalue().splitlines():
        print("  | " + TIME.sub("", line))
    for key, values in history.history.items():
        print(f"  history {key} {[float(v) for v in values]!r}")


def params_line(model):
    flat = torch.cat([p.detach().reshape(-1).double() for p in model.parameters()])
    return f"params {sum(p.numel() for p in model.parameters())} {checksum(flat)}"


def run_model(name, build, columns, optimizer="adam", loss="binary_crossentropy",
              metrics=("binary_crossentropy", "auc", "acc"), labels=("click",), seed=0,
              callbacks=None, whole=False):
    x, click, convert = data(seed)
    y = {"click": click, "convert": convert}
    target = np.stack([y[k] for k in labels], 1) if len(labels) > 1 else y[labels[0]]
    feats = inputs(x, columns)
    model = build()
    if optimizer == "adam_lr":
        optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    model.compile(optimizer, loss, metrics=list(metrics))
    print(f"{name} {params_line(model)}")
    # forward on one batch, in training mode (dropout on)
    batch = np.concatenate([np.asarray(feats[k])[:BATCH].reshape(BATCH, -1)
                            for k in model.feature_index], -1)
    out = model(torch.from_numpy(batch).float())
    print(f"{name} forward {list(out.shape)} {checksum(out)}")
    train_x, train_y, test_x, test_y = split(feats, target)
    fit(model, train_x, train_y, validation_split=0.2, callbacks=callbacks)
    print(f"{name} trained {params_line(model)}")
    pred = model.predict(test_x, batch_size=32)
    print(f"{name} predict {list(pred.shape)} {pred.dtype} {checksum(pred)}")
    for key, value in model.evaluate(test_x, test_y, batch_size=32).items():
        print(f"{name} evaluate {key} {float(value)!r}")
    path = f"{name}.pth"
    torch.save(model.state_dict(), path)
    fresh = build()
    fresh.load_state_dict(torch.load(path))
    again = fresh.predict(test_x, batch_size=32)
    print(f"{name} reloaded state_dict max diff {float(np.abs(again - pred).max())!r}")
    if whole:
        torch.save(model, f"{name}_model.pth")
        loaded = torch.load(f"{name}_model.pth", weights_only=False)
        print(f"{name} reloaded model {type(loaded).__name__} max diff "
              f"{float(np.abs(loaded.predict(test_x, 32) - pred).max())!r}")


@variant("wdl_deepfm")
def _():
    cols = ctr_columns("mean")
    run_model("WDL", lambda: M.WDL(cols, cols, dnn_hidden_units=(32, 16), dnn_dropout=0.2), cols,
              whole=True)
    run_model("DeepFM", lambda: M.DeepFM(cols, cols, dnn_hidden_units=(32, 16),
                                         dnn_use_bn=True), cols, optimizer="adagrad")


@variant("xdeepfm_dcn")
def _():
    cols = ctr_columns("sum")
    run_model("xDeepFM", lambda: M.xDeepFM(cols, cols, dnn_hidden_units=(32, 16),
                                           cin_layer_size=(8, 8)), cols)
    run_model("DCN", lambda: M.DCN(cols, cols, cross_num=2, dnn_hidden_units=(32, 16)), cols,
              optimizer="rmsprop")
    run_model("DCN_matrix", lambda: M.DCN(cols, cols, cross_num=2,
                                          cross_parameterization="matrix",
                                          dnn_hidden_units=(16,)), cols, optimizer="adam_lr")
    run_model("DCNMix", lambda: M.DCNMix(cols, cols, cross_num=2, dnn_hidden_units=(32, 16),
                                         low_rank=4, num_experts=2), cols)


@variant("autoint_fibinet")
def _():
    cols = ctr_columns("max")
    run_model("AutoInt", lambda: M.AutoInt(cols, cols, att_layer_num=2, att_head_num=2,
                                           dnn_hidden_units=(16,)), cols)
    run_model("FiBiNET", lambda: M.FiBiNET(cols, cols, dnn_hidden_units=(32, 16),
                                           bilinear_type="each"), cols, optimizer="adagrad")
    run_model("FiBiNET_all", lambda: M.FiBiNET(cols, cols, dnn_hidden_units=(16,),
                                               bilinear_type="all"), cols)


@variant("nfm_afm_pnn")
def _():
    cols = ctr_columns("mean")
    sparse = ctr_columns("mean", dense=False)
    run_model("NFM", lambda: M.NFM(cols, cols, dnn_hidden_units=(32, 16), bi_dropout=0.3), cols)
    run_model("AFM", lambda: M.AFM(sparse, sparse, attention_factor=4, afm_dropout=0.2), sparse,
              optimizer="sgd")
    run_model("PNN_inner", lambda: M.PNN(cols, dnn_hidden_units=(32, 16)), cols)
    run_model("PNN_outer", lambda: M.PNN(cols, dnn_hidden_units=(16,), use_inner=False,
                                         use_outter=True), cols)


@variant("more_ctr")
def _():
    cols = ctr_columns("mean")
    sparse = ctr_columns("mean", dense=False)
    run_model("ONN", lambda: M.ONN(cols, cols, dnn_hidden_units=(16,)), cols)
    run_model("CCPM", lambda: M.CCPM(sparse, sparse, conv_kernel_width=(3, 2),
                                     conv_filters=(4, 4), dnn_hidden_units=(16,)), sparse)
    run_model("IFM", lambda: M.IFM(cols, cols, dnn_hidden_units=(16,)), cols)
    run_model("DIFM", lambda: M.DIFM(cols, cols, att_head_num=2, dnn_hidden_units=(16,)), cols)
    run_model("AFN", lambda: M.AFN(cols, cols, ltl_hidden_size=16,
                                   afn_dnn_hidden_units=(16,)), cols)
    run_model("MLR", lambda: M.MLR(cols, region_num=3), cols)


@variant("regression")
def _():
    cols = ctr_columns("sum")
    run_model("DeepFM_regression", lambda: M.DeepFM(cols, cols, dnn_hidden_units=(16,),
                                                    task="regression"), cols, loss="mse",
              metrics=("mse",))


@variant("callbacks")
def _():
    cols = ctr_columns("mean")
    stop = EarlyStopping(monitor="val_binary_crossentropy", patience=0, verbose=1,
                         restore_best_weights=True)
    save = ModelCheckpoint(filepath="deepfm_best.ckpt", monitor="val_auc", mode="max",
                           save_best_only=True, save_weights_only=True)
    run_model("DeepFM_callbacks", lambda: M.DeepFM(cols, cols, dnn_hidden_units=(32, 16),
                                                   l2_reg_dnn=1e-3, dnn_dropout=0.5), cols,
              optimizer="adam_lr", callbacks=[stop, save])
    state = torch.load("deepfm_best.ckpt")
    flat = torch.cat([v.reshape(-1).double() for v in state.values()])
    print(f"checkpoint {len(state)} tensors {checksum(flat)}")


@variant("din")
def _():
    cols = history_columns()
    run_model("DIN", lambda: M.DIN(cols, ["item_id", "cate_id"], dnn_hidden_units=(32, 16),
                                   att_hidden_size=(16, 8), dnn_dropout=0.1), cols)
    run_model("DIN_weight_norm", lambda: M.DIN(cols, ["item_id", "cate_id"],
                                               dnn_hidden_units=(16,), att_activation="relu",
                                               att_weight_normalization=True), cols,
              optimizer="adagrad")


@variant("dien")
def _():
    cols = history_columns()
    neg = history_columns(neg=True)
    for gru in ("GRU", "AIGRU", "AGRU", "AUGRU"):
        run_model(f"DIEN_{gru}", lambda gru=gru: M.DIEN(cols, ["item_id", "cate_id"],
                                                       gru_type=gru, dnn_hidden_units=(16,),
                                                       att_hidden_units=(8,)), cols)
    run_model("DIEN_neg", lambda: M.DIEN(neg, ["item_id", "cate_id"], gru_type="AUGRU",
                                         use_negsampling=True, dnn_hidden_units=(16,),
                                         att_hidden_units=(8,)), neg)


@variant("multitask")
def _():
    cols = ctr_columns("mean")
    two = {"loss": ["binary_crossentropy", "binary_crossentropy"],
           "metrics": ("binary_crossentropy", "auc"), "labels": ("click", "convert")}
    run_model("MMOE", lambda: M.MMOE(cols, num_experts=3, expert_dnn_hidden_units=(16,),
                                     gate_dnn_hidden_units=(8,), tower_dnn_hidden_units=(8,)),
              cols, **two)
    run_model("PLE", lambda: M.PLE(cols, shared_expert_num=1, specific_expert_num=1,
                                   num_levels=2, expert_dnn_hidden_units=(16,),
                                   gate_dnn_hidden_units=(8,), tower_dnn_hidden_units=(8,)),
              cols, **two)
    run_model("SharedBottom", lambda: M.SharedBottom(cols, bottom_dnn_hidden_units=(16,),
                                                     tower_dnn_hidden_units=(8,)), cols, **two)
    run_model("ESMM", lambda: M.ESMM(cols, tower_dnn_hidden_units=(16,)), cols,
              **{**two, "metrics": ("binary_crossentropy",)})


def main(argv):
    names = list(VARIANTS) if argv in ([], ["all"]) else argv
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"unknown variants {unknown}; known: {' '.join(VARIANTS)}")
    print(f"deepctr_torch {deepctr_torch.__version__}")
    for name in names:
        start = time.time()
        torch.manual_seed(0)
        print(f"== {name}")
        VARIANTS[name]()
        print(f"[{name}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
