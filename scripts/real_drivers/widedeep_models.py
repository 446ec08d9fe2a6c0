"""Driver of pytorch-widedeep (docs/real-programs.md): the installed package, unchanged, on a
small seeded synthetic tabular data set (categorical and continuous columns in a pandas
DataFrame, a binary label and a second one): WidePreprocessor (crossed columns) and
TabPreprocessor, the Wide component and the TabMlp, TabResnet, TabNet, TabTransformer,
FTTransformer, SAINT, TabFastFormer, TabPerceiver and ContextAttentionMLP deep tabular models,
each model's forward on a batch, a few epochs of its ``Trainer.fit`` (per-component optimizers,
StepLR/ReduceLROnPlateau/OneCycleLR schedulers, the LRHistory, EarlyStopping and
ModelCheckpoint callbacks, its own and torchmetrics' metrics, a shuffling DataLoader, a
validation split), ``predict``/``predict_proba``, logloss and AUC, and ``Trainer.save`` and a
``torch.save``/``load`` of the state_dict into a fresh model, printing losses, learning rates,
metrics and checksums at full precision.

    python scripts/shared_rng_run.py drive_widedeep.py [VARIANT ... | all]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_widedeep.py [VARIANT ... | all]   # jtorch

Each variant reseeds (``torch.manual_seed``) and rebuilds its data from a NumPy generator of its
own, so a subset prints what the full run prints for it. Float32 throughout (the Trainer casts
the inputs to float32).
"""

import os
import sys
import time
import warnings

import numpy as np
import pandas as pd
import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

warnings.filterwarnings("ignore")
import pytorch_widedeep  # noqa: E402
import torchmetrics  # noqa: E402
from pytorch_widedeep import Trainer  # noqa: E402
from pytorch_widedeep.callbacks import EarlyStopping, LRHistory, ModelCheckpoint  # noqa: E402
from pytorch_widedeep.initializers import KaimingNormal, XavierNormal  # noqa: E402
from pytorch_widedeep.losses_multitarget import MultiTargetClassificationLoss  # noqa: E402
from pytorch_widedeep.metrics import Accuracy, F1Score, Precision, R2Score  # noqa: E402
from pytorch_widedeep.models import (  # noqa: E402
    SAINT,
    ContextAttentionMLP,
    FTTransformer,
    TabFastFormer,
    TabMlp,
    TabNet,
    TabPerceiver,
    TabResnet,
    TabTransformer,
    Wide,
    WideDeep,
)
from pytorch_widedeep.preprocessing import TabPreprocessor, WidePreprocessor  # noqa: E402
from sklearn.metrics import log_loss, roc_auc_score  # noqa: E402

N, BATCH, EPOCHS = 240, 32, 3
CAT = {"color": 5, "shape": 4, "city": 7}
CONT = ["x1", "x2", "x3"]
COMPONENT = {"X_wide": "wide", "X_tab": "deeptabular"}

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


def frame(seed=0, n=N):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({name: [f"{name}{i}" for i in rng.integers(0, k, n)]
                       for name, k in CAT.items()})
    for name in CONT:
        df[name] = rng.standard_normal(n) * 2 + 1
    logit = (0.9 * (df["x1"] - 1) / 2 - 0.6 * (df["x2"] - 1) / 2 + 1.0 * (df["color"] == "color1")
             - 0.8 * (df["shape"] == "shape2") + 0.3)
    df["click"] = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(np.int64)
    df["convert"] = (df["click"] * (rng.random(n) < 1 / (1 + np.exp(-df["x3"] / 2))))
    df["y"] = df["x1"] * 0.5 - df["x3"] * 0.3 + (df["city"] == "city3") + rng.normal(0, 0.2, n)
    return df


def tab_preprocessor(df, attention=False, cls=False):
    # the attention models embed every column to one width: names only
    pre = TabPreprocessor(cat_embed_cols=list(CAT) if attention else [(c, 4) for c in CAT],
                          continuous_cols=CONT, cols_to_scale=CONT, with_attention=attention,
                          with_cls_token=cls, verbose=0)
    return pre, pre.fit_transform(df)


def params_line(model):
    flat = torch.cat([p.detach().reshape(-1).double() for p in model.parameters()])
    return f"params {sum(p.numel() for p in model.parameters())} {checksum(flat)}"


def show_history(name, trainer):
    for key, values in trainer.history.items():
        print(f"{name} history {key} {[float(v) for v in values]!r}")
    for key, values in getattr(trainer, "lr_history", {}).items():
        print(f"{name} lr_history {key} {[float(v) for v in values]!r}")


def train(name, build, inputs, target, objective="binary", metrics=(Accuracy,),
          optimizers=None, schedulers=None, callbacks=None, initializers=None, epochs=EPOCHS,
          binary=True, fit_kwargs=None, **trainer_kwargs):
    """Build, forward a batch, fit, predict, score and save/reload: ``build(torch)`` returns a
    WideDeep model; ``inputs`` maps X_wide/X_tab to NumPy arrays (train rows first)."""
    torch.manual_seed(0)
    model = build()
    print(f"{name} {params_line(model)}")
    at = int(0.8 * len(target))
    train_x = {k: v[:at] for k, v in inputs.items()}
    test_x = {k: v[at:] for k, v in inputs.items()}
    batch = {COMPONENT[k]: torch.from_numpy(v[:BATCH]) for k, v in inputs.items()}
    out = model(batch)
    out = out[0] if isinstance(out, tuple) else out
    print(f"{name} forward {list(out.shape)} {checksum(out)}")
    opts = optimizers(model) if optimizers else None
    scheds = schedulers(opts) if schedulers else None
    trainer = Trainer(model, objective=objective, optimizers=opts, lr_schedulers=scheds,
                      callbacks=callbacks, metrics=[m() if isinstance(m, type) else m
                                                    for m in metrics],
                      initializers=initializers, verbose=0, seed=1, num_workers=0,
                      **trainer_kwargs)
    if initializers:
        print(f"{name} initialized {params_line(model)}")
    trainer.fit(**train_x, target=target[:at], n_epochs=epochs, batch_size=BATCH,
                val_split=0.25, shuffle=True, **(fit_kwargs or {}))
    show_history(name, trainer)
    print(f"{name} trained {params_line(model)}")
    # (multitarget classification has only predict_proba)
    predict = trainer.predict_proba if objective == "multitarget" else trainer.predict
    pred = predict(**test_x, batch_size=16)
    print(f"{name} predict {np.shape(pred)} {checksum(pred)}")
    if binary:
        # (multitarget's predict_proba gives the logits)
        proba = (1 / (1 + np.exp(-pred)) if objective == "multitarget"
                 else trainer.predict_proba(**test_x, batch_size=16))
        print(f"{name} predict_proba {list(proba.shape)} {proba.dtype} {checksum(proba)}")
        truth = target[at:]
        if objective != "multitarget":  # one task: columns 1-p, p
            print(f"{name} logloss {log_loss(truth, proba[:, 1])!r} "
                  f"auc {roc_auc_score(truth, proba[:, 1])!r}")
        else:
            for k in range(proba.shape[-1]):
                print(f"{name} task {k} logloss {log_loss(truth[:, k], proba[:, k])!r} "
                      f"auc {roc_auc_score(truth[:, k], proba[:, k])!r}")
    save_dir = f"{name}_saved"
    trainer.save(save_dir, save_state_dict=True, save_optimizer=True)
    torch.save(model.state_dict(), f"{name}.pt")
    torch.manual_seed(1)
    fresh = build()
    saved = torch.load(os.path.join(save_dir, "wd_model.pt"))
    fresh.load_state_dict(saved["model_state_dict"])
    print(f"{name} saved optimizer state {sorted(saved['optimizer_state_dict'])}")
    again = Trainer(fresh, objective=objective, verbose=0, num_workers=0, **trainer_kwargs)
    again = (again.predict_proba if objective == "multitarget" else again.predict)(
        **test_x, batch_size=16)
    print(f"{name} reloaded max diff {float(np.abs(np.asarray(again) - pred).max())!r}")
    return trainer


def wide_and_tab(df):
    wide_pre = WidePreprocessor(wide_cols=list(CAT), crossed_cols=[("color", "shape")])
    x_wide = wide_pre.fit_transform(df)
    pre, x_tab = tab_preprocessor(df)
    return wide_pre, x_wide, pre, x_tab


@variant("wide_tabmlp")
def _():
    df = frame(0)
    wide_pre, x_wide, pre, x_tab = wide_and_tab(df)
    print(f"wide_input_dim {wide_pre.wide_dim} column_idx {pre.column_idx}")

    def build():
        wide = Wide(input_dim=np.unique(x_wide).shape[0], pred_dim=1)
        deep = TabMlp(column_idx=pre.column_idx, cat_embed_input=pre.cat_embed_input,
                      continuous_cols=CONT, mlp_hidden_dims=[32, 16], mlp_dropout=0.2,
                      cont_norm_layer="batchnorm", mlp_batchnorm=True)
        return WideDeep(wide=wide, deeptabular=deep)

    def optimizers(model):
        return {"wide": torch.optim.Adam(model.wide.parameters(), lr=0.01),
                "deeptabular": torch.optim.AdamW(model.deeptabular.parameters(), lr=0.005)}

    def schedulers(opts):
        return {"wide": torch.optim.lr_scheduler.StepLR(opts["wide"], step_size=1, gamma=0.5),
                "deeptabular": torch.optim.lr_scheduler.CosineAnnealingLR(opts["deeptabular"],
                                                                          T_max=4)}

    train("wide_tabmlp", build, {"X_wide": x_wide, "X_tab": x_tab}, df["click"].values,
          metrics=(Accuracy, Precision, F1Score), optimizers=optimizers,
          schedulers=schedulers, callbacks=[LRHistory(n_epochs=EPOCHS)],
          initializers={"wide": XavierNormal, "deeptabular": KaimingNormal})


@variant("tabresnet")
def _():
    df = frame(1)
    pre, x_tab = tab_preprocessor(df)

    def build():
        deep = TabResnet(column_idx=pre.column_idx, cat_embed_input=pre.cat_embed_input,
                         continuous_cols=CONT, blocks_dims=[16, 16, 8], blocks_dropout=0.1,
                         mlp_hidden_dims=[8])
        return WideDeep(deeptabular=deep)

    train("tabresnet", build, {"X_tab": x_tab}, df["click"].values,
          metrics=[torchmetrics.AUROC(task="binary"), torchmetrics.Accuracy(task="binary")],
          optimizers=lambda m: torch.optim.Adam(m.parameters(), lr=0.01),
          schedulers=lambda o: torch.optim.lr_scheduler.ReduceLROnPlateau(o, patience=0,
                                                                        factor=0.5),
          callbacks=[LRHistory(n_epochs=4)], epochs=4)


@variant("tabnet")
def _():
    df = frame(2)
    pre, x_tab = tab_preprocessor(df)

    def build():
        deep = TabNet(column_idx=pre.column_idx, cat_embed_input=pre.cat_embed_input,
                      continuous_cols=CONT, n_steps=2, step_dim=4, attn_dim=4,
                      ghost_bn=True, virtual_batch_size=8)
        return WideDeep(deeptabular=deep)

    trainer = train("tabnet", build, {"X_tab": x_tab}, df["click"].values,
                    optimizers=lambda m: torch.optim.Adam(m.parameters(), lr=0.02),
                    lambda_sparse=1e-3,
                    fit_kwargs={"feature_importance_sample_size": 64})
    if hasattr(trainer, "feature_importance"):
        print(f"tabnet feature_importance {trainer.feature_importance!r}")
    masks, steps = trainer.explain(x_tab[-16:], save_step_masks=True)
    print(f"tabnet explain {list(masks.shape)} {checksum(masks)}")
    for k, step in steps.items():
        print(f"tabnet step mask {k} {checksum(step)}")


@variant("transformers")
def _():
    df = frame(3)
    pre, x_tab = tab_preprocessor(df, attention=True)
    cls_pre, x_cls = tab_preprocessor(df, attention=True, cls=True)
    common = {"cat_embed_input": pre.cat_embed_input, "continuous_cols": CONT}
    onecycle = {"optimizers": lambda m: torch.optim.AdamW(m.parameters(), lr=0.003),
                "schedulers": lambda o: torch.optim.lr_scheduler.OneCycleLR(
                    o, max_lr=0.01, total_steps=EPOCHS * 5),
                "callbacks": [LRHistory(n_epochs=EPOCHS)]}
    models = {
        "tabtransformer": (pre, x_tab, lambda: TabTransformer(
            column_idx=pre.column_idx, input_dim=8, n_heads=2, n_blocks=2,
            embed_continuous=True, embed_continuous_method="standard", mlp_hidden_dims=[16],
            **common)),
        "fttransformer": (pre, x_tab, lambda: FTTransformer(
            column_idx=pre.column_idx, input_dim=8, n_heads=2, n_blocks=2,
            kv_compression_factor=0.5, **common)),
        "saint": (cls_pre, x_cls, lambda: SAINT(
            column_idx=cls_pre.column_idx, input_dim=8, n_heads=2, n_blocks=1,
            **{**common, "cat_embed_input": cls_pre.cat_embed_input})),
        "fastformer": (pre, x_tab, lambda: TabFastFormer(
            column_idx=pre.column_idx, input_dim=8, n_heads=2, n_blocks=1, **common)),
        "perceiver": (pre, x_tab, lambda: TabPerceiver(
            column_idx=pre.column_idx, input_dim=8, n_cross_attn_heads=1, n_latents=4,
            latent_dim=8, n_latent_heads=2, n_latent_blocks=1, n_perceiver_blocks=1,
            **common)),
        "context_attention_mlp": (pre, x_tab, lambda: ContextAttentionMLP(
            column_idx=pre.column_idx, input_dim=8, n_blocks=2, **common)),
    }
    for name, (_, x, deep) in models.items():
        train(name, lambda deep=deep: WideDeep(deeptabular=deep()), {"X_tab": x},
              df["click"].values, **onecycle)


@variant("callbacks")
def _():
    df = frame(4)
    wide_pre, x_wide, pre, x_tab = wide_and_tab(df)

    def build():
        deep = TabMlp(column_idx=pre.column_idx, cat_embed_input=pre.cat_embed_input,
                      continuous_cols=CONT, mlp_hidden_dims=[64, 32], mlp_dropout=0.5)
        return WideDeep(wide=Wide(np.unique(x_wide).shape[0], 1), deeptabular=deep,
                        head_hidden_dims=[8])

    os.makedirs("checkpoints", exist_ok=True)
    stop = EarlyStopping(monitor="val_loss", patience=1, restore_best_weights=True, verbose=1)
    save = ModelCheckpoint(filepath="checkpoints/wd", monitor="val_loss", save_best_only=True,
                           verbose=1, max_save=2)
    train("callbacks", build, {"X_wide": x_wide, "X_tab": x_tab}, df["click"].values,
          optimizers=lambda m: torch.optim.Adam(m.parameters(), lr=0.05),
          callbacks=[stop, save], epochs=8)
    print(f"early stopping best {float(stop.best)!r} stopped_epoch {stop.stopped_epoch} "
          f"checkpoint best_epoch {save.best_epoch} best {float(save.best)!r}")
    print(f"checkpoints {sorted(os.listdir('checkpoints'))}")


@variant("multitarget")
def _():
    df = frame(5)
    pre, x_tab = tab_preprocessor(df)
    target = df[["click", "convert"]].values

    def build():
        deep = TabMlp(column_idx=pre.column_idx, cat_embed_input=pre.cat_embed_input,
                      continuous_cols=CONT, mlp_hidden_dims=[16, 8])
        return WideDeep(deeptabular=deep, pred_dim=2)

    train("multitarget", build, {"X_tab": x_tab}, target, objective="multitarget",
          metrics=(), custom_loss_function=MultiTargetClassificationLoss(
              binary_config=[0, 1], weights=[1.0, 0.5]),
          optimizers=lambda m: torch.optim.Adagrad(m.parameters(), lr=0.05))


@variant("regression")
def _():
    df = frame(6)
    pre, x_tab = tab_preprocessor(df)

    def build():
        deep = TabMlp(column_idx=pre.column_idx, cat_embed_input=pre.cat_embed_input,
                      continuous_cols=CONT, mlp_hidden_dims=[16], embed_continuous=True,
                      embed_continuous_method="periodic", cont_embed_dim=4, n_frequencies=4,
                      sigma=0.5,
                      share_last_layer=False)
        return WideDeep(deeptabular=deep)

    train("regression", build, {"X_tab": x_tab}, df["y"].values, objective="regression",
          metrics=(R2Score,), optimizers=lambda m: torch.optim.RMSprop(m.parameters(), lr=0.01),
          binary=False)


@variant("warmup_workers")
def _():
    # the fine-tuning (warm-up) routines (AdamW + CyclicLR per component, Felbo's gradual
    # unfreezing for the deep part), a DataLoader with 2 worker processes, and Tab2Vec
    from pytorch_widedeep import Tab2Vec
    df = frame(7)
    wide_pre, x_wide, pre, x_tab = wide_and_tab(df)

    def build():
        deep = TabMlp(column_idx=pre.column_idx, cat_embed_input=pre.cat_embed_input,
                      continuous_cols=CONT, mlp_hidden_dims=[16, 8])
        return WideDeep(wide=Wide(np.unique(x_wide).shape[0], 1), deeptabular=deep)

    torch.manual_seed(0)
    model = build()
    trainer = Trainer(model, objective="binary", metrics=[Accuracy()], verbose=0, seed=1,
                      num_workers=2)
    trainer.fit(X_wide=x_wide, X_tab=x_tab, target=df["click"].values, n_epochs=2,
                batch_size=BATCH, val_split=0.25, finetune=True, finetune_epochs=2,
                routine="felbo", deeptabular_gradual=True,
                deeptabular_layers=[model.deeptabular[0].encoder.mlp.dense_layer_1,
                                    model.deeptabular[0].encoder.mlp.dense_layer_0],
                deeptabular_max_lr=0.01)
    show_history("warmup", trainer)
    print(f"warmup trained {params_line(model)}")
    proba = trainer.predict_proba(X_wide=x_wide, X_tab=x_tab, batch_size=64)
    print(f"warmup predict_proba {checksum(proba)}")
    vectors = Tab2Vec(pre, model, device="cpu").transform(df.iloc[:20])
    print(f"tab2vec {list(vectors.shape)} {checksum(vectors)}")


def main(argv):
    names = list(VARIANTS) if argv in ([], ["all"]) else argv
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"unknown variants {unknown}; known: {' '.join(VARIANTS)}")
    print(f"pytorch_widedeep {pytorch_widedeep.__version__}")
    for name in names:
        start = time.time()
        torch.manual_seed(0)
        print(f"== {name}")
        VARIANTS[name]()
        print(f"[{name}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
