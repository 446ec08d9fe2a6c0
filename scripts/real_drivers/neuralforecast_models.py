"""Driver for Nixtla's neuralforecast (3.3, used unchanged, on PyTorch Lightning 2.6): small
models fitted through ``NeuralForecast(models=[...], freq="D")`` on a seeded synthetic panel of
three daily series (trend, weekly and monthly seasonality, noise) with a future-known
exogenous column ``x``, a historical one ``z`` and a static one ``s``: ``fit`` (with a
validation split), ``predict`` and ``cross_validation``. Every forecast column, the training
and validation losses and each model's parameter checksums are printed at full precision.

    python neuralforecast_models.py                  # every variant
    python neuralforecast_models.py mlp deepar       # a subset (see VARIANTS)

Lightning runs on the CPU accelerator with no logger, progress bar, model summary or
checkpointing; the DataLoaders have neuralforecast's default ``num_workers=0``.
neuralforecast's ``core`` imports Ray Tune at import time (for its Auto* models, not run
here): a stand-in ``ray`` module is put in ``sys.modules`` first, so Ray need not be
installed.
"""

import logging
import sys
import types
import warnings


def _stub_ray():
    class _Any:
        def __init__(self, *args, **kwargs):
            pass

    for name in ("ray", "ray.air", "ray.tune", "ray.tune.integration",
                 "ray.tune.integration.pytorch_lightning", "ray.tune.search",
                 "ray.tune.search.basic_variant"):
        if name not in sys.modules:
            mod = types.ModuleType(name)
            mod.__getattr__ = lambda attr: _Any
            sys.modules[name] = mod
    for name in ("air", "tune"):
        setattr(sys.modules["ray"], name, sys.modules["ray." + name])


_stub_ray()
warnings.filterwarnings("ignore")
for _name in ("lightning", "pytorch_lightning", "lightning.pytorch", "lightning.fabric",
              "lightning_fabric", "lightning.pytorch.utilities.rank_zero",
              "pytorch_lightning.utilities.rank_zero", "neuralforecast"):
    logging.getLogger(_name).setLevel(logging.ERROR)

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import torch  # noqa: E402
from neuralforecast import NeuralForecast  # noqa: E402
from neuralforecast.losses.pytorch import MAE, MSE, DistributionLoss, MQLoss  # noqa: E402
from neuralforecast.models import (  # noqa: E402
    GRU,
    LSTM,
    MLP,
    NBEATS,
    NHITS,
    RNN,
    TCN,
    TFT,
    DeepAR,
    PatchTST,
    TimesNet,
    iTransformer,
)

TRAINER = {"accelerator": "cpu", "devices": 1, "logger": False, "enable_progress_bar": False,
           "enable_model_summary": False, "enable_checkpointing": False}
H = 6


def panel(lengths=(96, 84, 72)):
    """Three daily series ending on the same day, and the future values of ``x``."""
    rng = np.random.default_rng(0)
    end = pd.Timestamp("2021-04-10")
    frames, future, static = [], [], []
    for i, n in enumerate(lengths):
        ds = pd.date_range(end=end + pd.Timedelta(days=H), periods=n + H, freq="D")
        t = np.arange(n + H, dtype=np.float64)
        x = np.sin(2 * np.pi * ds.dayofweek.to_numpy() / 7) + 0.1 * i
        z = rng.normal(0, 1, n + H)
        y = (10 + 5 * i + (0.05 + 0.02 * i) * t + 2 * x
             + 1.5 * np.sin(2 * np.pi * t / 30 + i) + 0.5 * np.roll(z, 1)
             + rng.normal(0, 0.3, n + H))
        uid = f"s{i}"
        frames.append(pd.DataFrame({"unique_id": uid, "ds": ds[:n], "y": y[:n],
                                    "x": x[:n], "z": z[:n]}))
        future.append(pd.DataFrame({"unique_id": uid, "ds": ds[n:], "x": x[n:]}))
        static.append({"unique_id": uid, "s": float(i)})
    return (pd.concat(frames, ignore_index=True), pd.concat(future, ignore_index=True),
            pd.DataFrame(static))


def show_frame(title, frame):
    print(f"[{title}] columns {list(frame.columns)} rows {len(frame)}")
    for row in frame.itertuples(index=False):
        cells = []
        for v in row:
            if isinstance(v, (float, np.floating)):
                cells.append(repr(float(v)))
            elif isinstance(v, pd.Timestamp):
                cells.append(v.strftime("%Y-%m-%d"))
            else:
                cells.append(str(v))
        print("  " + " ".join(cells))


def show_model(model):
    name = type(model).__name__
    print(f"[{name}] train_loss", [(s, repr(v)) for s, v in model.train_trajectories])
    if model.valid_trajectories:
        print(f"[{name}] valid_loss",
              [(s, repr(float(v))) for s, v in model.valid_trajectories])
    total = 0.0
    for k, v in model.state_dict().items():
        if isinstance(v, torch.Tensor) and v.is_floating_point():
            d = v.detach().double()
            finite = torch.isfinite(d)
            d = torch.where(finite, d, torch.zeros_like(d))  # TFT's causal mask holds -inf
            total += d.abs().sum().item()
            print(f"  {k} {tuple(v.shape)} sum {d.sum().item()!r} abs {d.abs().sum().item()!r}"
                  + ("" if bool(finite.all()) else f" nonfinite {int((~finite).sum())}"))
        elif isinstance(v, torch.Tensor):
            print(f"  {k} {tuple(v.shape)} {v.dtype} {v.sum().item()}")
    print(f"[{name}] parameters abs total {total!r}")


def run(title, make, df, futr_df=None, static_df=None, val_size=0, n_windows=2,
        step_size=H, cv=True):
    """Fit the models ``make()`` builds and predict; then cross-validate fresh ones."""
    torch.manual_seed(0)
    nf = NeuralForecast(models=make(), freq="D")
    nf.fit(df=df, static_df=static_df, val_size=val_size)
    for model in nf.models:
        show_model(model)
    show_frame(f"{title} predict", nf.predict(futr_df=futr_df))
    if cv:
        torch.manual_seed(0)
        nf2 = NeuralForecast(models=make(), freq="D")
        out = nf2.cross_validation(df=df, static_df=static_df, n_windows=n_windows,
                                   step_size=step_size)
        for model in nf2.models:
            print(f"[{type(model).__name__} cv] train_loss",
                  [(s, repr(v)) for s, v in model.train_trajectories])
        show_frame(f"{title} cross_validation", out)


def variant_mlp():
    df, _, _ = panel()

    def models():
        return [MLP(h=H, input_size=24, hidden_size=32, num_layers=2, loss=MAE(),
                    scaler_type="standard", max_steps=12, val_check_steps=6,
                    learning_rate=1e-2, **TRAINER)]

    run("mlp", models, df[["unique_id", "ds", "y"]], val_size=12)


def variant_nbeats_nhits():
    df, _, _ = panel()

    def models():
        return [NBEATS(h=H, input_size=18, mlp_units=[[16, 16]] * 3, loss=MSE(),
                       scaler_type="robust", max_steps=10, learning_rate=5e-3, **TRAINER),
                NHITS(h=H, input_size=18, mlp_units=[[16, 16]] * 3,
                      n_pool_kernel_size=[2, 2, 1], n_freq_downsample=[3, 2, 1],
                      loss=MQLoss(level=[80]), scaler_type="standard", max_steps=10,
                      learning_rate=5e-3, **TRAINER)]

    run("nbeats_nhits", models, df[["unique_id", "ds", "y"]])


def variant_rnn():
    df, futr, _ = panel()
    kw = {"h": H, "input_size": 18, "encoder_hidden_size": 16, "decoder_hidden_size": 16,
          "futr_exog_list": ["x"], "hist_exog_list": ["z"], "max_steps": 8,
          "learning_rate": 5e-3, **TRAINER}

    def models():
        return [RNN(loss=MAE(), scaler_type="robust", **kw),
                LSTM(loss=MQLoss(level=[80]), scaler_type="standard", **kw),
                GRU(loss=MSE(), scaler_type="standard", recurrent=True, **kw)]

    run("rnn", models, df, futr_df=futr, n_windows=1)


def variant_tcn():
    df, futr, _ = panel()

    def models():
        return [TCN(h=H, input_size=24, encoder_hidden_size=16, decoder_hidden_size=16,
                    dilations=[1, 2, 4], kernel_size=3, futr_exog_list=["x"], loss=MAE(),
                    scaler_type="robust", max_steps=10, learning_rate=5e-3, **TRAINER)]

    run("tcn", models, df, futr_df=futr)


def variant_deepar():
    df, _, _ = panel()

    def models():
        return [DeepAR(h=H, input_size=18, lstm_n_layers=2, lstm_hidden_size=16,
                       lstm_dropout=0.0, trajectory_samples=20,
                       loss=DistributionLoss(distribution="Normal", level=[80]),
                       valid_loss=MQLoss(level=[80]), scaler_type="standard", max_steps=8,
                       val_check_steps=4, learning_rate=5e-3, **TRAINER)]

    run("deepar", models, df[["unique_id", "ds", "y"]], val_size=12, n_windows=1)


def variant_distribution():
    df, _, _ = panel()

    def models():
        return [MLP(h=H, input_size=18, hidden_size=16, num_layers=2,
                    loss=DistributionLoss(distribution="Normal", level=[80, 90]),
                    scaler_type="robust", max_steps=8, learning_rate=5e-3, **TRAINER)]

    run("distribution", models, df[["unique_id", "ds", "y"]], n_windows=1)


def variant_patchtst():
    df, _, _ = panel()

    def models():
        return [PatchTST(h=H, input_size=24, encoder_layers=2, n_heads=4, hidden_size=16,
                         linear_hidden_size=32, patch_len=8, stride=4, loss=MAE(),
                         scaler_type="standard", max_steps=10, learning_rate=5e-3, **TRAINER)]

    run("patchtst", models, df[["unique_id", "ds", "y"]])


def variant_tft():
    df, futr, static = panel()

    def models():
        return [TFT(h=H, input_size=18, hidden_size=16, n_head=2, futr_exog_list=["x"],
                    hist_exog_list=["z"], stat_exog_list=["s"], loss=MQLoss(level=[80]),
                    scaler_type="robust", max_steps=8, learning_rate=5e-3, **TRAINER)]

    run("tft", models, df, futr_df=futr, static_df=static, n_windows=1)


def variant_timesnet():
    df, _, _ = panel()

    def models():
        return [TimesNet(h=H, input_size=24, hidden_size=16, conv_hidden_size=16, top_k=3,
                         num_kernels=2, encoder_layers=1, loss=MAE(), scaler_type="standard",
                         max_steps=6, learning_rate=5e-3, **TRAINER)]

    run("timesnet", models, df[["unique_id", "ds", "y"]], n_windows=1)


def variant_itransformer():
    df, _, _ = panel(lengths=(90, 90, 90))

    def models():
        return [iTransformer(h=H, input_size=24, n_series=3, hidden_size=16, n_heads=2,
                             e_layers=2, d_ff=32, dropout=0.0, loss=MSE(),
                             scaler_type="robust",
                             max_steps=10, learning_rate=5e-3, **TRAINER)]

    run("itransformer", models, df[["unique_id", "ds", "y"]])


VARIANTS = {"mlp": variant_mlp, "nbeats_nhits": variant_nbeats_nhits, "rnn": variant_rnn,
            "tcn": variant_tcn, "deepar": variant_deepar, "distribution": variant_distribution,
            "patchtst": variant_patchtst, "tft": variant_tft, "timesnet": variant_timesnet,
            "itransformer": variant_itransformer}

if __name__ == "__main__":
    for name in sys.argv[1:] or VARIANTS:
        print(f"===== {name}")
        VARIANTS[name]()
