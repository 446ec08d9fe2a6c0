"""Driver of skorch (docs/real-programs.md): the ``skorch`` package (1.4, with scikit-learn),
installed and used unchanged, fits small PyTorch modules as scikit-learn estimators on seeded
``make_classification``/``make_regression`` data and prints every epoch's history (losses,
scores, callback flags and learning rates; not the timing column ``dur``), predictions and
probabilities at full precision.

Variants (each reseeds with ``torch.manual_seed``, so a subset prints what the full run prints
for it):

- ``classifier``: NeuralNetClassifier (SGD with momentum, a shuffling train DataLoader,
  skorch's stratified ValidSplit) with EpochScoring (train accuracy, validation F1),
  EarlyStopping, Checkpoint into a temporary directory and LRScheduler (StepLR, stepped per
  epoch), then predict/predict_proba/score and the best checkpoint loaded back.
- ``regressor``: NeuralNetRegressor (Adam) with EpochScoring (r2), LRScheduler
  (ReduceLROnPlateau on the validation loss; CyclicLR stepped per batch), GradientNormClipping
  and predictions; ``partial_fit`` for two more epochs; CyclicLR stepped per batch; LBFGS
  (skorch's closure); AdamW with ``optimizer__param_groups`` and BatchScoring.
- ``pipeline``: a Pipeline of StandardScaler and NeuralNetClassifier (no validation split),
  ``set_params`` through the pipeline, predict_proba and score.
- ``gridsearch``: GridSearchCV (2 folds, two learning rates, accuracy), its cv_results_ and the
  refit best estimator's predictions.
- ``persist``: save_params/load_params of the module, optimizer, criterion and history into a
  fresh net, ``pickle`` of a fitted net, ``sklearn.base.clone``, ``warm_start`` and
  ``net.forward``/``infer`` outputs.
- ``extras``: NeuralNetBinaryClassifier (BCEWithLogitsLoss, a threshold) on a SliceDict of two
  inputs with a predefined validation split, roc_auc scoring and skorch's WarmRestartLR;
  TrainEndCheckpoint, then LoadInitState with a Freezer.

    python scripts/shared_rng_run.py scripts/real_drivers/skorch_nets.py [VARIANT ... | all]
    python -m jtorch scripts/shared_rng_run.py scripts/real_drivers/skorch_nets.py [...]
"""

import os
import pickle
import sys
import tempfile
import time
import warnings

import numpy as np
import torch
from torch import nn

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import skorch  # noqa: E402
from sklearn.base import clone  # noqa: E402
from sklearn.datasets import make_classification, make_regression  # noqa: E402
from sklearn.model_selection import GridSearchCV  # noqa: E402
from sklearn.pipeline import Pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from skorch import NeuralNetClassifier, NeuralNetRegressor  # noqa: E402
from skorch.callbacks import (  # noqa: E402
    Checkpoint,
    EarlyStopping,
    EpochScoring,
    GradientNormClipping,
    LRScheduler,
)

warnings.filterwarnings("ignore")

VARIANTS = {}


def variant(name):
    def register(fn):
        VARIANTS[name] = fn
        return fn
    return register


def checksum(a):
    """Sum of magnitudes, a weighted sum (weights 1 to 2) and the largest magnitude, in
    float64."""
    a = np.asarray(a, dtype=np.float64).reshape(-1)
    w = np.linspace(1, 2, a.size)
    return (f"abssum {float(np.abs(a).sum())!r} wsum {float((a * w).sum())!r} "
            f"absmax {float(np.abs(a).max())!r}")


def show_history(tag, net):
    """Every epoch's row without its timing (``dur``), batch losses as a checksum."""
    for row in net.history:
        items = []
        for key, value in row.items():
            if key == "dur":
                continue
            if key == "batches":
                losses = [b["train_loss"] for b in value if "train_loss" in b]
                sizes = [b.get("train_batch_size", b.get("valid_batch_size")) for b in value]
                items.append(f"batches {len(value)} sizes {sizes} train_loss {checksum(losses)}"
                             if losses else f"batches {len(value)}")
            else:
                items.append(f"{key} {value!r}")
        print(f"{tag} history " + " ".join(items))


class MLP(nn.Module):
    def __init__(self, in_features=10, hidden=16, out=2, dropout=0.0):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_features, hidden), nn.ReLU(), nn.Dropout(dropout),
                                 nn.Linear(hidden, out))

    def forward(self, X):
        return self.net(X)


class Classifier(MLP):
    def forward(self, X):
        return torch.softmax(self.net(X), dim=-1)


def classification_data(n=120, features=10, classes=2):
    X, y = make_classification(n_samples=n, n_features=features, n_informative=5,
                               n_classes=classes, random_state=0)
    return X.astype(np.float32), y.astype(np.int64)


def regression_data(n=100, features=8):
    X, y = make_regression(n_samples=n, n_features=features, noise=5.0, random_state=0)
    X = X.astype(np.float32)
    y = (y / np.abs(y).max()).astype(np.float32).reshape(-1, 1)
    return X, y


@variant("classifier")
def _():
    X, y = classification_data()
    with tempfile.TemporaryDirectory() as tmp:
        cp = Checkpoint(dirname=tmp, monitor="valid_loss_best")
        net = NeuralNetClassifier(
            Classifier, module__in_features=10, module__out=2, module__dropout=0.1,
            max_epochs=8, lr=0.1, batch_size=32, optimizer=torch.optim.SGD,
            optimizer__momentum=0.9, iterator_train__shuffle=True, verbose=0,
            callbacks=[
                EpochScoring("accuracy", lower_is_better=False, on_train=True, name="train_acc"),
                EpochScoring("f1", lower_is_better=False, name="valid_f1"),
                EarlyStopping(patience=3, monitor="valid_loss"),
                cp,
                LRScheduler(policy=torch.optim.lr_scheduler.StepLR, step_size=2, gamma=0.5),
            ])
        net.fit(X, y)
        show_history("classifier", net)
        proba = net.predict_proba(X[:20])
        print(f"classifier proba {checksum(proba)}")
        print(f"classifier predict {net.predict(X[:20]).tolist()}")
        print(f"classifier score {net.score(X, y)!r}")
        print(f"classifier lr now {net.optimizer_.param_groups[0]['lr']!r}")
        print(f"classifier checkpoint files {sorted(os.listdir(tmp))}")
        net.load_params(checkpoint=cp)
        print(f"classifier best checkpoint proba {checksum(net.predict_proba(X[:20]))}")


@variant("regressor")
def _():
    X, y = regression_data()
    net = NeuralNetRegressor(
        MLP, module__in_features=8, module__out=1, max_epochs=6, lr=0.01, batch_size=25,
        optimizer=torch.optim.Adam, iterator_train__shuffle=True, verbose=0,
        callbacks=[
            EpochScoring("r2", lower_is_better=False),
            LRScheduler(policy=torch.optim.lr_scheduler.ReduceLROnPlateau,
                        monitor="valid_loss", patience=1, factor=0.5),
            GradientNormClipping(gradient_clip_value=1.0),
        ])
    net.fit(X, y)
    show_history("regressor", net)
    pred = net.predict(X[:20])
    print(f"regressor predict {pred.dtype} {pred.shape} {checksum(pred)}")
    print(f"regressor score {net.score(X, y)!r}")
    net.partial_fit(X, y, epochs=2)
    print(f"regressor partial_fit epochs {len(net.history)} last train_loss "
          f"{net.history[-1, 'train_loss']!r} valid_loss {net.history[-1, 'valid_loss']!r}")
    # a per-batch scheduler (CyclicLR) with SGD, no validation split
    net = NeuralNetRegressor(
        MLP, module__in_features=8, module__out=1, max_epochs=3, lr=0.01, batch_size=25,
        optimizer=torch.optim.SGD, optimizer__momentum=0.9, train_split=None, verbose=0,
        callbacks=[LRScheduler(policy=torch.optim.lr_scheduler.CyclicLR, base_lr=0.001,
                               max_lr=0.05, step_size_up=3, step_every="batch")])
    net.fit(X, y)
    show_history("regressor cyclic", net)
    print(f"regressor cyclic lr now {net.optimizer_.param_groups[0]['lr']!r}")
    print(f"regressor cyclic predict {checksum(net.predict(X[:20]))}")
    # LBFGS (skorch passes its train step as the closure), full batch
    net = NeuralNetRegressor(
        MLP, module__in_features=8, module__out=1, max_epochs=3, lr=0.5, batch_size=-1,
        optimizer=torch.optim.LBFGS, optimizer__max_iter=5, train_split=None, verbose=0)
    net.fit(X, y)
    show_history("regressor lbfgs", net)
    print(f"regressor lbfgs predict {checksum(net.predict(X[:20]))}")
    # AdamW with skorch's per-parameter-group syntax and BatchScoring
    from skorch.callbacks import BatchScoring
    net = NeuralNetRegressor(
        MLP, module__in_features=8, module__out=1, max_epochs=3, lr=0.01, batch_size=25,
        optimizer=torch.optim.AdamW, optimizer__weight_decay=0.1,
        optimizer__param_groups=[("net.0.*", {"lr": 0.03, "weight_decay": 0.0})],
        verbose=0,
        callbacks=[BatchScoring("neg_mean_absolute_error", lower_is_better=False,
                                name="valid_nmae")])
    net.fit(X, y)
    show_history("regressor adamw", net)
    groups = [(len(g["params"]), g["lr"], g["weight_decay"]) for g in net.optimizer_.param_groups]
    print(f"regressor adamw groups {groups}")


@variant("pipeline")
def _():
    X, y = classification_data(classes=3, n=150)
    X = X * 10 + 3  # something for the scaler to undo
    pipe = Pipeline([
        ("scale", StandardScaler()),
        ("net", NeuralNetClassifier(MLP, module__in_features=10, module__out=3,
                                    criterion=nn.CrossEntropyLoss, max_epochs=5, lr=0.05,
                                    batch_size=32, train_split=None, verbose=0,
                                    iterator_train__shuffle=True)),
    ])
    pipe.set_params(net__optimizer__momentum=0.5, net__module__hidden=12)
    pipe.fit(X, y)
    show_history("pipeline", pipe.named_steps["net"])
    proba = pipe.predict_proba(X[:30])
    print(f"pipeline proba {proba.shape} {checksum(proba)} rows sum to 1 "
          f"{bool(np.allclose(proba.sum(1), 1, atol=1e-6))}")
    print(f"pipeline predict {pipe.predict(X[:30]).tolist()}")
    print(f"pipeline score {pipe.score(X, y)!r}")


@variant("gridsearch")
def _():
    X, y = classification_data(n=80)
    net = NeuralNetClassifier(Classifier, module__in_features=10, module__out=2, max_epochs=4,
                              batch_size=20, train_split=False, verbose=0,
                              iterator_train__shuffle=True)
    gs = GridSearchCV(net, {"lr": [0.05, 0.2]}, cv=2, scoring="accuracy", refit=True,
                      n_jobs=1)
    gs.fit(X, y)
    for key in ("params", "split0_test_score", "split1_test_score", "mean_test_score",
                "rank_test_score"):
        value = gs.cv_results_[key]
        print(f"gridsearch {key} {list(value) if key == 'params' else value.tolist()!r}")
    print(f"gridsearch best_params {gs.best_params_} best_score {gs.best_score_!r}")
    show_history("gridsearch best", gs.best_estimator_)
    print(f"gridsearch best proba {checksum(gs.predict_proba(X[:20]))}")


@variant("persist")
def _():
    X, y = classification_data()
    net = NeuralNetClassifier(Classifier, module__in_features=10, module__out=2, max_epochs=3,
                              lr=0.1, batch_size=32, optimizer=torch.optim.Adam,
                              optimizer__lr=0.01, iterator_train__shuffle=True, verbose=0)
    net.fit(X, y)
    proba = net.predict_proba(X[:20])
    print(f"persist proba {checksum(proba)}")
    with tempfile.TemporaryDirectory() as tmp:
        paths = {k: os.path.join(tmp, f"{k}.pt") for k in ("params", "optimizer", "criterion")}
        hist = os.path.join(tmp, "history.json")
        net.save_params(f_params=paths["params"], f_optimizer=paths["optimizer"],
                        f_criterion=paths["criterion"], f_history=hist)
        print(f"persist saved {sorted(os.listdir(tmp))}")
        fresh = NeuralNetClassifier(Classifier, module__in_features=10, module__out=2,
                                    max_epochs=3, optimizer=torch.optim.Adam, verbose=0)
        fresh.initialize()
        fresh.load_params(f_params=paths["params"], f_optimizer=paths["optimizer"],
                          f_criterion=paths["criterion"], f_history=hist)
        again = fresh.predict_proba(X[:20])
        print(f"persist reloaded equal {bool(np.array_equal(proba, again))} "
              f"history epochs {len(fresh.history)} "
              f"train_loss {fresh.history[:, 'train_loss']!r}")
        state = fresh.optimizer_.state_dict()
        steps = sorted({float(s["step"]) for s in state["state"].values()})
        print(f"persist optimizer state steps {steps} lr {state['param_groups'][0]['lr']!r}")
        # continue training from the reloaded optimizer state (warm start)
        fresh.set_params(warm_start=True, max_epochs=2)
        fresh.fit(X, y)
        print(f"persist warm_start epochs {len(fresh.history)} "
              f"train_loss {fresh.history[:, 'train_loss']!r}")
    blob = pickle.dumps(net)
    back = pickle.loads(blob)
    print(f"persist pickled equal {bool(np.array_equal(proba, back.predict_proba(X[:20])))} "
          f"history epochs {len(back.history)}")
    cloned = clone(net)
    print(f"persist clone initialized {getattr(cloned, 'initialized_', False)} "
          f"lr {cloned.lr!r} optimizer__lr {cloned.get_params()['optimizer__lr']!r}")
    out = net.forward(X[:7])
    print(f"persist forward {type(out).__name__} {list(out.shape)} {out.dtype} "
          f"{checksum(out.numpy())}")
    with torch.no_grad():
        inferred = net.infer(torch.as_tensor(X[:5]))
    print(f"persist infer {list(inferred.shape)} {checksum(inferred.numpy())}")
    print(f"persist get_loss {net.get_loss(out, torch.as_tensor(y[:7])).item()!r}")


class TwoInputs(nn.Module):
    """A module taking two named inputs (skorch passes a dict's keys as keyword arguments)."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(6, 8)
        self.b = nn.Linear(4, 8)
        self.head = nn.Linear(8, 1)

    def forward(self, xa, xb):
        return self.head(torch.tanh(self.a(xa) + self.b(xb))).squeeze(-1)


@variant("extras")
def _():
    X, y = classification_data(n=100)
    Xv, yv = classification_data(n=40)
    # NeuralNetBinaryClassifier (BCEWithLogitsLoss, threshold), a predefined validation set,
    # a SliceDict of two inputs, roc_auc scoring, skorch's WarmRestartLR, Freezer, and
    # TrainEndCheckpoint + LoadInitState
    from skorch import NeuralNetBinaryClassifier
    from skorch.callbacks import Freezer, LoadInitState, TrainEndCheckpoint, WarmRestartLR
    from skorch.dataset import Dataset
    from skorch.helper import SliceDict, predefined_split
    Xd = SliceDict(xa=X[:, :6], xb=X[:, 6:])
    Xdv = SliceDict(xa=Xv[:, :6], xb=Xv[:, 6:])
    with tempfile.TemporaryDirectory() as tmp:
        end = TrainEndCheckpoint(dirname=tmp)
        net = NeuralNetBinaryClassifier(
            TwoInputs, max_epochs=4, lr=0.05, batch_size=16, optimizer=torch.optim.SGD,
            optimizer__momentum=0.9, iterator_train__shuffle=True, verbose=0,
            train_split=predefined_split(Dataset(Xdv, yv.astype(np.float32))),
            callbacks=[EpochScoring("roc_auc", lower_is_better=False),
                       LRScheduler(policy=WarmRestartLR, min_lr=0.001, max_lr=0.05,
                                   base_period=2),
                       end],
            threshold=0.4)
        net.fit(Xd, y.astype(np.float32))
        show_history("extras binary", net)
        proba = net.predict_proba(Xd[:20])
        print(f"extras binary proba {proba.shape} {checksum(proba)}")
        print(f"extras binary predict {net.predict(Xd[:20]).tolist()}")
        print(f"extras binary files {sorted(os.listdir(tmp))}")
        # resume from the end checkpoint with one head layer frozen
        net2 = NeuralNetBinaryClassifier(
            TwoInputs, max_epochs=2, lr=0.05, batch_size=16, verbose=0, train_split=None,
            iterator_train__shuffle=True,
            callbacks=[LoadInitState(end), Freezer("a.*", at=lambda net: len(net.history) == 5)])
        net2.fit(Xd, y.astype(np.float32))
        frozen = {n: bool(p.requires_grad) for n, p in net2.module_.named_parameters()}
        print(f"extras resumed epochs {len(net2.history)} requires_grad {frozen}")
        print(f"extras resumed train_loss {net2.history[:, 'train_loss']!r}")
        same_a = bool(torch.equal(net2.module_.a.weight, net.module_.a.weight))
        print(f"extras frozen layer unchanged {same_a} head changed "
              f"{not torch.equal(net2.module_.head.weight, net.module_.head.weight)}")
    # class weights, EarlyStopping(load_best=True), Checkpoint(load_best=True),
    # a whole-net pickle file, trim_for_prediction
    with tempfile.TemporaryDirectory() as tmp:
        net = NeuralNetClassifier(
            MLP, module__in_features=10, module__out=2, criterion=nn.CrossEntropyLoss,
            criterion__weight=torch.tensor([1.0, 2.0]), max_epochs=6, lr=0.2, batch_size=32,
            iterator_train__shuffle=True, verbose=0,
            callbacks=[EarlyStopping(patience=2, load_best=True),
                       Checkpoint(dirname=tmp, load_best=True, f_pickle="net.pkl")])
        net.fit(X, y)
        show_history("extras weighted", net)
        print(f"extras weighted proba {checksum(net.predict_proba(X[:20]))}")
        print(f"extras weighted files {sorted(os.listdir(tmp))}")
        with open(os.path.join(tmp, "net.pkl"), "rb") as f:
            back = pickle.load(f)
        print(f"extras weighted pickle proba {checksum(back.predict_proba(X[:20]))}")
        net.trim_for_prediction()
        print(f"extras trimmed proba {checksum(net.predict_proba(X[:20]))} "
              f"has optimizer {hasattr(net, 'optimizer_')}")


def main(argv):
    names = list(VARIANTS) if argv in ([], ["all"]) else argv
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"unknown variants {unknown}; known: {' '.join(VARIANTS)}")
    print(f"skorch {skorch.__version__}")
    for name in names:
        start = time.time()
        torch.manual_seed(0)
        print(f"== {name}")
        VARIANTS[name]()
        print(f"[{name}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
