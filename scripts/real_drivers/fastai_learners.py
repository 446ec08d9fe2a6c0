"""Driver of fastai (docs/real-programs.md): the installed package, unchanged, on tiny synthetic
data written to a temporary directory (seeded 20x20 PNG images of two classes, a 48-row pandas
DataFrame): ``DataBlock``/``DataLoaders`` with item and batch transforms (Resize, seeded
``aug_transforms``, Normalize), a small CNN ``Learner`` and a ``vision_learner`` (resnet18,
no pretrained weights) trained with ``fit``/``fit_one_cycle``, ``lr_find``, callbacks
(Recorder, SaveModelCallback, EarlyStopping, GradientAccumulation, MixUp), metrics (accuracy,
error_rate, sklearn's F1Score), ``get_preds``/``predict``, ``save``/``load`` and
``export``/``load_learner``, ``TabularDataLoaders`` + ``tabular_learner`` (Categorify,
FillMissing, Normalize), and the TensorBase subclass ops (types kept through arithmetic and
indexing). Progress bars and timing columns are off; the numbers printed are the Recorder's.

    python scripts/shared_rng_run.py drive_fastai.py [VARIANT ... | all]             # real PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_fastai.py [VARIANT ... | all]   # jtorch

Each variant reseeds (fastai's ``set_seed``: Python's ``random``, NumPy and torch).
"""

import os
import sys
import tempfile
import time
import warnings

import numpy as np
import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

warnings.filterwarnings("ignore")

from fastai.callback.progress import ProgressCallback  # noqa: E402
from fastai.callback.tracker import EarlyStoppingCallback as EarlyStopping  # noqa: E402
from fastai.tabular.all import (  # noqa: E402
    Categorify,
    FillMissing,
    Normalize,
    TabularDataLoaders,
    tabular_learner,
)
from fastai.vision.all import (  # noqa: E402
    CategoryBlock,
    ConvLayer,
    DataBlock,
    F1Score,
    Flatten,
    FuncSplitter,
    GradientAccumulation,
    ImageBlock,
    Learner,
    MixUp,
    Normalize as ImNormalize,  # noqa: E402
    Resize,
    SaveModelCallback,
    TensorBase,
    TensorCategory,
    TensorFlowField,
    TensorImage,
    TensorMask,
    accuracy,
    aug_transforms,
    error_rate,
    get_image_files,
    imagenet_stats,
    load_learner,
    nn,
    parent_label,
    resnet18,
    set_seed,
    vision_learner,
)
from fastcore.basics import noop  # noqa: E402
from PIL import Image  # noqa: E402

VARIANTS = {}
TMP = tempfile.mkdtemp(prefix="fastai_drv_")


def variant(name):
    def register(build):
        VARIANTS[name] = build
        return build
    return register


def checksum(t):
    t = torch.as_tensor(t).detach().double().flatten()
    w = 1.0 + (torch.arange(t.numel(), dtype=torch.float64) % 7) / 6
    return (f"abssum {t.abs().sum().item()!r} wsum {(t * w).sum().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def make_images():
    """16 images per class: class a brighter in the top half, b in the bottom, plus noise."""
    root = os.path.join(TMP, "imgs")
    if os.path.isdir(root):
        return root
    rng = np.random.RandomState(0)
    for cls in ("a", "b"):
        os.makedirs(os.path.join(root, cls))
        for i in range(16):
            arr = rng.randint(0, 120, (20, 20, 3))
            half = slice(0, 10) if cls == "a" else slice(10, 20)
            arr[half] += 120
            Image.fromarray(arr.astype(np.uint8)).save(os.path.join(root, cls, f"{i:02d}.png"))
    return root


def image_dls(aug=True, bs=8):
    root = make_images()
    batch_tfms = [ImNormalize.from_stats(*imagenet_stats)]
    if aug:
        batch_tfms = [*aug_transforms(size=16, max_rotate=10.0, max_warp=0.0,
                                      min_scale=0.9), *batch_tfms]
    block = DataBlock(blocks=(ImageBlock, CategoryBlock), get_items=get_image_files,
                      get_y=parent_label,
                      splitter=FuncSplitter(lambda p: int(p.stem) % 4 == 0),
                      item_tfms=Resize(16), batch_tfms=batch_tfms)
    return block.dataloaders(root, bs=bs, num_workers=0)


def quiet(learn):
    learn.remove_cb(ProgressCallback)
    learn.logger = noop
    return learn


def small_cnn():
    return nn.Sequential(ConvLayer(3, 8, ks=3, stride=2), ConvLayer(8, 16, ks=3, stride=2),
                         ConvLayer(16, 16, ks=3, stride=2), nn.AdaptiveAvgPool2d(1),
                         Flatten(), nn.Linear(16, 2))


def rec_lines(tag, learn):
    out = []
    for i, vals in enumerate(learn.recorder.values):
        out.append(f"{tag} epoch {i} " + " ".join(repr(float(v)) for v in vals))
    out.append(f"{tag} metric_names {list(learn.recorder.metric_names)}")
    return out


@variant("data")
def _():
    dls = image_dls()
    xb, yb = dls.one_batch()
    out = [f"vocab {list(dls.vocab)} train {len(dls.train_ds)} valid {len(dls.valid_ds)}",
           f"xb {type(xb).__name__} {list(xb.shape)} {xb.dtype} {checksum(xb)}",
           f"yb {type(yb).__name__} {yb.tolist()}"]
    vx, vy = dls.valid.one_batch()
    out.append(f"valid xb {type(vx).__name__} {checksum(vx)} yb {vy.tolist()}")
    dec = dls.decode_batch((xb, yb), max_n=2)
    out.append(f"decoded {[(type(a).__name__, list(a.shape), str(b)) for a, b in dec]}")
    out.append(f"decoded img0 {checksum(dec[0][0].float())}")
    return out


@variant("cnn_fit")
def _():
    dls = image_dls()
    learn = quiet(Learner(dls, small_cnn(), metrics=[accuracy, error_rate, F1Score()]))
    learn.fit(2, lr=1e-2)
    out = rec_lines("fit", learn)
    learn.fit_one_cycle(2, lr_max=5e-3)
    out += rec_lines("one_cycle", learn)
    out.append(f"lrs {[round(float(x), 8) for x in learn.recorder.lrs[:4]]}")
    out.append(f"losses {[float(x) for x in learn.recorder.losses]}")
    preds, targs = learn.get_preds()
    out.append(f"get_preds {type(preds).__name__} {list(preds.shape)} {checksum(preds)} "
               f"targs {targs.tolist()}")
    img = os.path.join(make_images(), "a", "03.png")
    cls, idx, probs = learn.predict(img)
    out.append(f"predict {cls} {int(idx)} {checksum(probs)}")
    p = learn.save(os.path.join(TMP, "cnn"))
    learn2 = quiet(Learner(dls, small_cnn(), metrics=accuracy))
    learn2.load(os.path.join(TMP, "cnn"))
    same = all(torch.equal(a, b) for a, b in zip(learn.model.state_dict().values(),
                                                 learn2.model.state_dict().values()))
    out.append(f"saved {p.name} reloaded equal {same}")
    learn.export(os.path.join(TMP, "cnn_export.pkl"))
    learn3 = load_learner(os.path.join(TMP, "cnn_export.pkl"))
    cls3, idx3, probs3 = learn3.predict(img)
    out.append(f"load_learner predict {cls3} {int(idx3)} {checksum(probs3)}")
    return out


@variant("lr_find")
def _():
    dls = image_dls(aug=False)
    learn = quiet(Learner(dls, small_cnn()))
    with learn.no_bar():
        sug = learn.lr_find(num_it=20, show_plot=False)
    return [f"lr_find valley {float(sug.valley)!r}",
            f"lr_find losses {[float(x) for x in learn.recorder.losses]}"]


@variant("callbacks")
def _():
    dls = image_dls()
    learn = quiet(Learner(dls, small_cnn(), metrics=accuracy, path=TMP, model_dir="models",
                          cbs=[SaveModelCallback(monitor="valid_loss", fname="best"),
                               EarlyStopping(monitor="valid_loss", patience=1)]))
    learn.fit(4, lr=3e-2)
    out = rec_lines("save_early", learn)
    out.append(f"best file exists {os.path.exists(os.path.join(TMP, 'models', 'best.pth'))}")
    learn = quiet(Learner(dls, small_cnn(), metrics=accuracy,
                          cbs=GradientAccumulation(n_acc=16)))
    learn.fit(1, lr=1e-2)
    out += rec_lines("grad_acc", learn)
    learn = quiet(Learner(dls, small_cnn(), metrics=accuracy, cbs=SharedMixUp(0.4)))
    learn.fit(2, lr=1e-2)
    out += rec_lines("mixup", learn)
    # MixUp's own Beta draws (torch.distributions.Beta.sample: a stream of each framework's
    # own, not the wrapper's shared one): only that it trains is compared
    learn = quiet(Learner(dls, small_cnn(), metrics=accuracy, cbs=MixUp(0.4)))
    learn.fit(1, lr=1e-2)
    out.append(f"mixup_beta epochs {len(learn.recorder.values)} finite "
               f"{all(np.isfinite(v) for vals in learn.recorder.values for v in vals)}")
    return out


class SharedMixUp(MixUp):
    """MixUp with its mixing weights drawn from ``Uniform(0.3, 0.7)``, whose ``sample`` the
    wrapper routes to the shared stream, so both frameworks mix the same batches."""

    def __init__(self, alpha):
        super().__init__(alpha)
        self.distrib = torch.distributions.Uniform(torch.tensor(0.3), torch.tensor(0.7))


@variant("vision_learner")
def _():
    dls = image_dls(bs=16)
    learn = quiet(vision_learner(dls, resnet18, pretrained=False, metrics=error_rate))
    learn.fit_one_cycle(1, lr_max=1e-3)
    out = rec_lines("resnet18", learn)
    learn.unfreeze()
    learn.fit(1, lr=slice(1e-5, 1e-3))
    out += rec_lines("resnet18_unfrozen", learn)
    preds, targs = learn.get_preds()
    out.append(f"get_preds {checksum(preds)}")
    return out


@variant("tabular")
def _():
    import pandas as pd
    rng = np.random.RandomState(1)
    n = 48
    df = pd.DataFrame({"cat": rng.choice(["x", "y", "z"], n),
                       "num": rng.randn(n).round(3),
                       "num2": rng.rand(n).round(3)})
    df.loc[rng.choice(n, 6, replace=False), "num2"] = np.nan
    df["label"] = np.where(df["num"] + (df["cat"] == "x") > 0.3, "hi", "lo")
    dls = TabularDataLoaders.from_df(df, path=TMP, procs=[Categorify, FillMissing, Normalize],
                                     cat_names=["cat"], cont_names=["num", "num2"],
                                     y_names="label", valid_idx=list(range(36, 48)), bs=12)
    xc, xn, y = dls.one_batch()
    out = [f"tab batch {type(xc).__name__} {xc.tolist()} {checksum(xn)} {y.flatten().tolist()}",
           f"tab classes { {k: list(v) for k, v in dls.classes.items()} }"]
    learn = quiet(tabular_learner(dls, layers=[16, 8], metrics=accuracy))
    learn.fit_one_cycle(3, lr_max=1e-2)
    out += rec_lines("tabular", learn)
    row, cls, probs = learn.predict(df.iloc[0])
    out.append(f"tab predict {int(cls)} {checksum(probs)}")
    preds, _ = learn.get_preds()
    out.append(f"tab get_preds {checksum(preds)}")
    return out


@variant("tensorbase")
def _():
    x = TensorImage(torch.arange(24.0).reshape(2, 3, 2, 2))
    c = TensorCategory(torch.tensor([1, 0]))
    b = TensorBase(torch.ones(3), meta="m")
    out = []
    for label, v in [("img+1", x + 1), ("img*img", x * x), ("img[0]", x[0]),
                     ("img[:,1]", x[:, 1]), ("img.mean", x.mean((2, 3))),
                     ("img.float", x.float()), ("img.view", x.view(2, -1)),
                     ("torch.cat", torch.cat([x, x])), ("img@T", x.flatten(1) @ x.flatten(1).T),
                     ("cat+0", c + 0), ("cat[1]", c[1]), ("base*2", b * 2),
                     ("neg", -x), ("clone", x.clone()), ("sum", x.sum())]:
        out.append(f"{label} {type(v).__name__} {list(v.shape)} {checksum(v)}")
    out.append(f"meta kept {getattr(b * 2, 'meta', None)!r} {getattr(b[0:2], 'meta', None)!r}")
    # the functions fastai registers for pairs of subclasses (TensorBase.register_func)
    m = TensorMask(torch.tensor([[0.0, 1.0], [1.0, 0.0]]))
    i = TensorImage(torch.tensor([[0.0, 2.0], [1.0, 1.0]]))
    for label, v in [("mask==img", m == i), ("mask+img", m + i), ("img-mask", i - m),
                     ("mask*img", m * i), ("1-mask", 1 - m), ("img@mask", i @ m),
                     ("einsum", torch.einsum("ij,jk->ik", i, m)), ("mask[img>0]", m[i > 0])]:
        out.append(f"{label} {type(v).__name__} {v.tolist()}")
    out.append(f"img!=mask {type(i != m).__name__} {i != m}")
    img = TensorImage(torch.rand(1, 2, 5, 5)).requires_grad_()
    flow = TensorFlowField(torch.rand(1, 4, 4, 2) * 2 - 1)
    g = torch.nn.functional.grid_sample(img, flow, align_corners=True)
    g.sum().backward()
    out.append(f"grid_sample {type(g).__name__} {checksum(g)} grad {checksum(img.grad)}")
    out.append(f"as_subclass {type(torch.ones(2).as_subclass(TensorImage)).__name__}")
    y = TensorImage(torch.randn(2, 3)).requires_grad_()
    (y * y).sum().backward()
    out.append(f"grad {type(y.grad).__name__} {checksum(y.grad)}")
    lin = nn.Linear(3, 2)
    o = lin(TensorImage(torch.randn(4, 3)))
    out.append(f"linear out {type(o).__name__} {checksum(o)}")
    return out


def run(name):
    set_seed(0)
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
