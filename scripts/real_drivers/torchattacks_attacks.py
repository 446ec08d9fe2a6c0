"""Driver of torchattacks (docs/real-programs.md): the installed package (torchattacks 3.5.1),
unchanged, attacking a small seeded CNN classifier as a user checking a model's robustness
does: a 3-channel 15x15 "coloured MNIST" (the first 512 training and 64 test digits of MNIST,
average-pooled 2x, tinted with a random colour per image over a noisy background), a CNN
(Conv-BatchNorm-ReLU-MaxPool twice, Dropout, Linear, the input normalisation inside the
model) trained four epochs with Adam, its state_dict saved and loaded, then the attacks:
FGSM, BIM, RFGSM, PGD, PGDL2, EOTPGD, FFGSM, TPGD, UPGD, GN, MIFGSM, NIFGSM, DIFGSM, TIFGSM,
PIFGSM, PIFGSM++, VMIFGSM, VNIFGSM, SINIFGSM, Jitter, PGDRS, PGDRSL2, LGV (its SGD-collected
models), APGD (CE, DLR; Linf, L2), APGDT, FAB (Linf, L2, targeted), Square, AutoAttack
(standard and rand, reduced), CW, DeepFool, SparseFool, JSMA, OnePixel, Pixle, SPSA,
MultiAttack, the targeted modes
(``set_mode_targeted_by_function``/``_random``/``_least_likely``/``_by_label``),
``set_normalization_used`` (a model without its normalisation, fed normalised inputs),
``set_model_training_mode``, and ``Attack.save``/``Attack.load`` of adversarial examples
(float and int). Each attack prints the checksum of its adversarial batch and of the
perturbation (sum of magnitudes, weighted sum, largest magnitude, its L2 and Linf norms), the
predictions on it and the robust accuracy.

    python scripts/shared_rng_run.py drive_torchattacks.py [VARIANT ... | all]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_torchattacks.py [VARIANT ... | all]   # jtorch

Not run by default (``all`` adds them): ``ead`` (EADL1 and EADEN: they write through an
``nn.Parameter`` into the tensor it was made from, which jtorch's Parameter does not share;
docs/differences.md) and ``onepixel`` (the unchanged OnePixel: it writes into the read-only
array of ``Tensor.numpy()``; the default run uses a subclass that copies it). Predictions whose
two largest logits tie to rounding (DeepFool stops on a decision boundary) print as -1.

Every attack group runs in float32 (``gradient``) and in float64 (``gradient64``): the
float64 model is trained from the same initial weights in float64, so the float64 runs tell
float32 rounding (a gradient's sign flipped where it is nearly zero) from a bug. Each variant
reseeds ``torch`` and NumPy (Pixle and OnePixel's differential evolution draw from NumPy's
global generator), so a subset prints what the full run prints for it (the training lines
print once per dtype, in the first variant that needs the model). The MNIST gz IDX files
are read from ``MNIST_DIR`` (default /work/shared/data/mnist).
"""

import gzip
import os
import struct
import sys
import tempfile

import numpy as np
import torch
from torch import nn

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

# LGV's model collection shows a tqdm bar with timings on stderr; PyTorch imports tqdm
# (reading TQDM_DISABLE) before this line, so the comparison sets it in the environment
os.environ.setdefault("TQDM_DISABLE", "1")
import torchattacks  # noqa: E402

MNIST_DIR = os.environ.get("MNIST_DIR", "/work/shared/data/mnist")
N_TRAIN, N_TEST, BATCH = 512, 64, 32
MEAN, STD = (0.25, 0.3, 0.35), (0.3, 0.25, 0.2)

VARIANTS = {}


def variant(name):
    def register(build):
        for suffix, dtype in (("", torch.float32), ("64", torch.float64)):
            VARIANTS[name + suffix] = (build, dtype)
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


def _idx(name, n):
    with gzip.open(os.path.join(MNIST_DIR, name + ".gz")) as f:
        data = f.read()
    ndim = data[3]
    shape = list(struct.unpack(f">{ndim}i", data[4:4 + 4 * ndim]))
    shape[0] = n
    return np.frombuffer(data, np.uint8, int(np.prod(shape)), 4 + 4 * ndim).reshape(shape)


def coloured(images, seed):
    """MNIST digits (n, 28, 28) uint8 -> (n, 3, 15, 15) float64 in [0, 1]: 2x2 average pooled,
    padded by a row and a column (Square's L2 initialisation tiles the image with squares of
    a fifth of its height: 14 rows index past the end, an error in PyTorch too), tinted with a
    random colour over a uniform background noise of up to 0.2."""
    rng = np.random.default_rng(seed)
    x = images.astype(np.float64).reshape(-1, 14, 2, 14, 2).mean((2, 4)) / 255.0
    x = np.pad(x, ((0, 0), (1, 0), (1, 0)))
    colour = rng.uniform(0.4, 1.0, (len(x), 3, 1, 1))
    background = rng.uniform(0.0, 0.2, (len(x), 3, 15, 15))
    return np.clip(background + x[:, None] * colour, 0.0, 1.0)


def dataset():
    if os.path.exists(os.path.join(MNIST_DIR, "train-images-idx3-ubyte.gz")):
        xs, ys = _idx("train-images-idx3-ubyte", N_TRAIN), _idx("train-labels-idx1-ubyte", N_TRAIN)
        xt, yt = _idx("t10k-images-idx3-ubyte", N_TEST), _idx("t10k-labels-idx1-ubyte", N_TEST)
    else:  # random digits: the attacks still run, the accuracies mean nothing
        rng = np.random.default_rng(1)
        xs, xt = (rng.integers(0, 256, (n, 28, 28), dtype=np.uint8) for n in (N_TRAIN, N_TEST))
        ys, yt = (rng.integers(0, 10, n) for n in (N_TRAIN, N_TEST))
    return ((coloured(xs, 0), ys.astype(np.int64)), (coloured(xt, 1), yt.astype(np.int64)))


class Normalize(nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.register_buffer("mean", torch.tensor(mean).reshape(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor(std).reshape(1, 3, 1, 1))

    def forward(self, x):
        return (x - self.mean) / self.std


class Net(nn.Module):
    """A small CNN on (n, 3, 15, 15) inputs in [0, 1] (``normalize=True``) or already
    normalised ones."""

    def __init__(self, normalize=True):
        super().__init__()
        self.norm = Normalize(MEAN, STD) if normalize else nn.Identity()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(),
            nn.MaxPool2d(2))
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(32 * 3 * 3, 10))

    def forward(self, x):
        return self.head(self.features(self.norm(x)))


_MODELS = {}


def trained(dtype):
    """The CNN trained for four epochs (Adam, shuffled batches of 64) from seed 0, in ``dtype``
    (the float64 model starts from the same initial weights), its state_dict saved with
    torch.save and loaded into a fresh model; built once per dtype in a run, in eval mode."""
    if dtype in _MODELS:
        return _MODELS[dtype]
    (xs, ys), (xt, yt) = dataset()
    torch.manual_seed(0)
    model = Net().to(dtype)
    x, y = torch.from_numpy(xs).to(dtype), torch.from_numpy(ys)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=64,
                                         shuffle=True)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    model.train()
    for epoch in range(4):
        total = 0.0
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            total += loss.item()
        print(f"  train {dtype} epoch {epoch} mean loss {total / len(loader)!r}")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "cnn.pt")
        torch.save(model.state_dict(), path)
        fresh = Net().to(dtype)
        fresh.load_state_dict(torch.load(path))
    fresh.eval()
    images, labels = torch.from_numpy(xt).to(dtype), torch.from_numpy(yt)
    with torch.no_grad():
        pred = fresh(images).argmax(1)
    print(f"  train {dtype} params {checksum(torch.cat([p.flatten() for p in fresh.parameters()]))}"
          f" clean accuracy {int((pred == labels).sum())}/{len(labels)}")
    _MODELS[dtype] = (fresh, images, labels)
    return _MODELS[dtype]


def report(name, model, images, labels, adv, normalized=None):
    """One line per attack: the adversarial batch, its perturbation (checksum, largest L2 and
    Linf norms per image), the predictions and the robust accuracy. ``normalized``: the
    (mean, std) the inputs carry (set_normalization_used)."""
    with torch.no_grad():
        logits = model(adv)
        pred = logits.argmax(1)
        top = logits.topk(2, dim=1).values
        # DeepFool stops on a decision boundary: its two largest logits can tie to rounding
        # (2e-16 in float64), and which one wins is rounding's choice; such rows print as -1
        tie = (top[:, 0] - top[:, 1]) < (1e-4 if adv.dtype == torch.float32 else 1e-10)
        decided = torch.where(tie, torch.full_like(pred, -1), pred)
        if normalized is not None:
            mean = torch.tensor(normalized[0], dtype=adv.dtype).reshape(1, 3, 1, 1)
            std = torch.tensor(normalized[1], dtype=adv.dtype).reshape(1, 3, 1, 1)
            adv, images = adv * std + mean, images * std + mean
        delta = (adv - images).flatten(1)
    print(f"  {name}: dtype {adv.dtype} shape {tuple(adv.shape)} adv {checksum(adv)}")
    print(f"  {name}: delta {checksum(delta)} l2max {float(delta.norm(dim=1).max())!r} "
          f"linf {float(delta.abs().max())!r}")
    print(f"  {name}: pred {decided.tolist()} robust {int((decided == labels).sum())}/"
          f"{len(labels)} ties {int(tie.sum())}")


def run(name, attack, model, images, labels, *args):
    """The attack on the batch and its report; a RuntimeError (torchattacks' FAB and the
    kernels of TIFGSM/PIFGSM are float32 only: PyTorch raises on float64 inputs) is printed
    as one line."""
    try:
        adv = attack(images, labels, *args)
    except RuntimeError as e:
        print(f"  {name}: RuntimeError {str(e).splitlines()[0]}")
        return None
    report(name, model, images, labels, adv)
    return adv


def batch(dtype, n=BATCH):
    model, images, labels = trained(dtype)
    return model, images[:n], labels[:n]


class _Float64Kernels:
    """PIFGSM/PIFGSM++ with their projection (and Gaussian) kernels in float64."""

    def project_kern(self, kern_size):
        kern, pad = super().project_kern(kern_size)
        return kern.double(), pad

    def gaussian_kern(self, kernlen=21, nsig=3):
        return super().gaussian_kern(kernlen, nsig).double()


class PIFGSM64(_Float64Kernels, torchattacks.PIFGSM):
    pass


class PIFGSMPP64(_Float64Kernels, torchattacks.PIFGSMPP):
    pass


@variant("gradient")
def gradient(dtype):
    """The sign-gradient (Linf) family and PGDL2, default settings but fewer steps."""
    model, x, y = batch(dtype)
    eps, alpha = 8 / 255, 2 / 255
    A = torchattacks
    attacks = [
        ("VANILA", A.VANILA(model)),
        ("GN", A.GN(model, std=0.1)),
        ("FGSM", A.FGSM(model, eps=eps)),
        ("BIM", A.BIM(model, eps=eps, alpha=alpha, steps=5)),
        ("RFGSM", A.RFGSM(model, eps=eps, alpha=alpha, steps=5)),
        ("PGD", A.PGD(model, eps=eps, alpha=alpha, steps=5, random_start=True)),
        ("PGD_norand", A.PGD(model, eps=eps, alpha=alpha, steps=5, random_start=False)),
        ("PGDL2", A.PGDL2(model, eps=0.5, alpha=0.1, steps=5)),
        ("EOTPGD", A.EOTPGD(model, eps=eps, alpha=alpha, steps=4, eot_iter=2)),
        ("FFGSM", A.FFGSM(model, eps=eps, alpha=10 / 255)),
        ("TPGD", A.TPGD(model, eps=eps, alpha=alpha, steps=5)),
        ("UPGD", A.UPGD(model, eps=eps, alpha=alpha, steps=5, random_start=True, loss="dlr")),
        ("MIFGSM", A.MIFGSM(model, eps=eps, alpha=alpha, steps=5, decay=1.0)),
        ("NIFGSM", A.NIFGSM(model, eps=eps, alpha=alpha, steps=5)),
        ("DIFGSM", A.DIFGSM(model, eps=eps, alpha=alpha, steps=5, diversity_prob=0.7,
                            random_start=True)),
        ("VMIFGSM", A.VMIFGSM(model, eps=eps, alpha=alpha, steps=4, N=3)),
        ("VNIFGSM", A.VNIFGSM(model, eps=eps, alpha=alpha, steps=4, N=3)),
        ("SINIFGSM", A.SINIFGSM(model, eps=eps, alpha=alpha, steps=4, m=3)),
        ("Jitter", A.Jitter(model, eps=eps, alpha=alpha, steps=5)),
        ("PGDRS", A.PGDRS(model, eps=eps, alpha=alpha, steps=3, noise_sd=0.1,
                          noise_batch_size=4)),
        ("PGDRSL2", A.PGDRSL2(model, eps=0.5, alpha=0.1, steps=3, noise_sd=0.1,
                              noise_batch_size=4)),
    ]
    for name, attack in attacks:
        run(name, attack, model, x, y)
    # TIFGSM's, PIFGSM's and PIFGSM++'s kernels are float32 (their depthwise convs need 3
    # channels): with float64 inputs they raise in PyTorch, so the float64 run also casts
    # the kernels to float64 (PIFGSM takes the sign of a convolution that cancels exactly in
    # exact arithmetic: float32 rounding picks the sign)
    tifgsm = A.TIFGSM(model, eps=eps, alpha=alpha, steps=4, len_kernel=5, nsig=3,
                      diversity_prob=0.5)
    attacks = [("TIFGSM", tifgsm), ("PIFGSM", A.PIFGSM(model, max_epsilon=eps, num_iter_set=4)),
               ("PIFGSMPP", A.PIFGSMPP(model, max_epsilon=eps, num_iter_set=4))]
    if dtype == torch.float64:
        cast_tifgsm = A.TIFGSM(model, eps=eps, alpha=alpha, steps=4, len_kernel=5, nsig=3,
                               diversity_prob=0.5)
        cast_tifgsm.stacked_kernel = cast_tifgsm.stacked_kernel.to(dtype)
        attacks += [("TIFGSM_cast", cast_tifgsm),
                    ("PIFGSM_cast", PIFGSM64(model, max_epsilon=eps, num_iter_set=4)),
                    ("PIFGSMPP_cast", PIFGSMPP64(model, max_epsilon=eps, num_iter_set=4))]
    for name, attack in attacks:
        run(name, attack, model, x, y)


@variant("lgv")
def lgv(dtype):
    """LGV: models collected along an SGD trajectory (a deep copy of the CNN trained in
    training mode, two models in one epoch), saved, then BIM against one model at a time and
    FGSM against the mean of all of them."""
    model, x, y = batch(dtype)
    (xs, ys), _ = dataset()
    loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(torch.from_numpy(xs).to(dtype), torch.from_numpy(ys)),
        batch_size=64, shuffle=True)
    A = torchattacks
    attack = A.LGV(model, loader, lr=0.05, epochs=1, nb_models_epoch=2, wd=1e-4, n_grad=1,
                   verbose=False, attack_class=A.BIM, eps=8 / 255, alpha=2 / 255, steps=5)
    attack.collect_models()
    for i, m in enumerate(attack.list_models):
        print(f"  LGV model {i} training {m.training} "
              f"{checksum(torch.cat([p.flatten() for p in m.state_dict().values()]).double())}")
    with tempfile.TemporaryDirectory() as tmp:
        attack.save_models(tmp)
        state = torch.load(os.path.join(tmp, "lgv_model_00001.pt"))["state_dict"]
        print(f"  LGV saved {sorted(os.listdir(tmp))} "
              f"{checksum(torch.cat([v.flatten().double() for v in state.values()]))}")
    run("LGV_BIM", attack, model, x, y)
    fused = A.LGV(model, loader, n_grad=-1, verbose=False, attack_class=A.FGSM, eps=8 / 255)
    fused.load_models(attack.list_models)
    run("LGV_FGSM_all", fused, model, x, y)


@variant("auto")
def auto(dtype):
    """APGD (CE and DLR losses, Linf and L2), APGDT, FAB (Linf, L2, multi-targeted), Square
    and a reduced AutoAttack; MultiAttack of PGD then CW."""
    model, x, y = batch(dtype)
    A = torchattacks
    eps = 8 / 255
    attacks = [
        ("APGD_ce", A.APGD(model, eps=eps, steps=10, loss="ce", seed=0)),
        ("APGD_dlr", A.APGD(model, eps=eps, steps=10, loss="dlr", seed=0)),
        ("APGD_L2", A.APGD(model, norm="L2", eps=0.5, steps=10, n_restarts=2, seed=0)),
        ("APGDT", A.APGDT(model, eps=eps, steps=10, n_classes=10, seed=0)),
        ("FAB", A.FAB(model, eps=eps, steps=10, n_classes=10, seed=0)),
        ("FAB_L2", A.FAB(model, norm="L2", eps=0.5, steps=10, n_restarts=2, n_classes=10,
                         seed=0)),
        ("FAB_targeted", A.FAB(model, eps=eps, steps=10, n_classes=4, multi_targeted=True,
                               seed=0)),
        ("Square", A.Square(model, eps=eps, n_queries=200, seed=0)),
        ("Square_L2", A.Square(model, norm="L2", eps=0.5, n_queries=200, seed=0)),
    ]
    for name, attack in attacks:
        run(name, attack, model, x, y)
    aa = A.AutoAttack(model, norm="Linf", eps=eps, version="standard", n_classes=10, seed=0)
    # smaller than the standard settings (100 steps, 5000 queries), same attack objects
    for sub in aa._autoattack.attacks:
        if isinstance(sub, (A.APGD, A.APGDT, A.FAB)):
            sub.steps = 10
        if isinstance(sub, A.APGDT):
            sub.n_target_classes = 3
        if isinstance(sub, A.FAB):
            sub.n_target_classes = 3
        if isinstance(sub, A.Square):
            sub.n_queries = 100
    run("AutoAttack", aa, model, x, y)
    rand = A.AutoAttack(model, norm="L2", eps=0.5, version="rand", n_classes=10, seed=0)
    for sub in rand._autoattack.attacks:
        sub.steps, sub.eot_iter = 5, 2
    run("AutoAttack_rand_L2", rand, model, x, y)
    multi = A.MultiAttack([A.FGSM(model, eps=2 / 255), A.PGD(model, eps=eps, alpha=2 / 255,
                                                            steps=5),
                           A.CW(model, c=1, steps=10, lr=0.05)])
    run("MultiAttack", multi, model, x, y)
    print(f"  MultiAttack records {multi._return_sr_record([len(y), 10, 5, 3])}")


@variant("minimal")
def minimal(dtype):
    """The minimal-perturbation attacks: CW, DeepFool, SparseFool, JSMA (EAD: the variant
    ``ead``)."""
    model, x, y = batch(dtype, 16)
    A = torchattacks
    attacks = [
        ("CW", A.CW(model, c=1, kappa=0, steps=20, lr=0.05)),
        ("CW_kappa", A.CW(model, c=5, kappa=2, steps=20, lr=0.05)),
        ("DeepFool", A.DeepFool(model, steps=10, overshoot=0.02)),
        ("SparseFool", A.SparseFool(model, steps=3, lam=3, overshoot=0.02)),
        ("JSMA", A.JSMA(model, theta=1.0, gamma=0.05)),
    ]
    for name, attack in attacks:
        run(name, attack, model, x, y)
    deepfool = A.DeepFool(model, steps=10, overshoot=0.02)
    adv, target = deepfool.forward_return_target_labels(x, y)
    print(f"  DeepFool targets {target.tolist()}")


class WritableOnePixel(torchattacks.OnePixel):
    """OnePixel whose probabilities are a NumPy array of their own: its differential evolution
    swaps the population's energies in place in the array ``prob.detach().cpu().numpy()``
    returns, which jtorch makes read-only (docs/differences.md: JAX buffers share no memory
    with NumPy); ``np.array`` copies it (what a user of jtorch would write). The variant
    ``onepixel`` runs the unchanged class."""

    def _get_prob(self, images):
        return np.array(super()._get_prob(images))


@variant("query")
def query(dtype):
    """Black-box attacks: SPSA, OnePixel (scipy-style differential evolution), Pixle."""
    model, x, y = batch(dtype, 8)
    A = torchattacks
    np.random.seed(0)
    attacks = [
        ("SPSA", A.SPSA(model, eps=0.1, delta=0.01, lr=0.05, nb_iter=3, nb_sample=32,
                        max_batch_size=16)),
        ("OnePixel", WritableOnePixel(model, pixels=2, steps=5, popsize=20, inf_batch=64)),
        ("Pixle", A.Pixle(model, x_dimensions=(2, 4), y_dimensions=(2, 4), restarts=4,
                          max_iterations=5)),
        ("Pixle_dist", A.Pixle(model, pixel_mapping="distance_random", restarts=3,
                               max_iterations=3)),
    ]
    for name, attack in attacks:
        run(name, attack, model, x, y)
    # update_each_iteration=True takes one image at a time
    pixle = A.Pixle(model, x_dimensions=(0.1, 0.2), y_dimensions=(0.1, 0.2),
                    pixel_mapping="similarity", restarts=3, max_iterations=4,
                    update_each_iteration=True)
    adv = torch.cat([pixle(x[i:i + 1], y[i:i + 1]) for i in range(len(y))])
    report("Pixle_iter", model, x, y, adv)


@variant("targeted")
def targeted(dtype):
    """The targeted modes: by a label map, random, least likely (k-th), by label."""
    model, x, y = batch(dtype)
    A = torchattacks
    eps = 16 / 255
    target_map = lambda images, labels: (labels + 1) % 10  # noqa: E731
    pgd = A.PGD(model, eps=eps, alpha=2 / 255, steps=10)
    pgd.set_mode_targeted_by_function(target_map)
    run("PGD_map", pgd, model, x, y)
    print(f"  PGD_map hits {int((model(pgd(x, y)).argmax(1) == (y + 1) % 10).sum())}")
    pgd.set_mode_targeted_random(quiet=True)
    print(f"  random targets {pgd.get_target_label(x, y).tolist()}")
    run("PGD_random", pgd, model, x, y)
    pgd.set_mode_targeted_least_likely(kth_min=2)
    print(f"  least-likely targets {pgd.get_target_label(x, y).tolist()}")
    run("PGD_least_likely", pgd, model, x, y)
    pgd.set_mode_targeted_by_label(quiet=True)
    run("PGD_by_label", pgd, model, x, (y + 3) % 10)
    pgd.set_mode_default()
    run("PGD_default", pgd, model, x, y)
    for name, attack in [("MIFGSM", A.MIFGSM(model, eps=eps, steps=5)),
                         ("APGDT", A.APGDT(model, eps=eps, steps=10, n_classes=10, seed=0)),
                         ("CW", A.CW(model, c=2, steps=20, lr=0.05)),
                         ("Square", A.Square(model, eps=eps, n_queries=100, seed=0)),
                         ("SPSA", A.SPSA(model, eps=0.1, nb_iter=2, nb_sample=16,
                                         max_batch_size=16)),
                         ("TPGD_unsupported", A.TPGD(model, eps=eps))]:
        try:
            attack.set_mode_targeted_least_likely(quiet=True)
        except ValueError as e:
            print(f"  {name}: ValueError {e}")
            continue
        run(f"{name}_least_likely", attack, model, x, y)


@variant("normalization")
def normalization(dtype):
    """``set_normalization_used``: the same trained weights in a model without its Normalize
    layer, fed normalised inputs; the attack works in [0, 1] and returns normalised
    adversarial inputs (compared, un-normalised, with the inputs). Also
    ``set_model_training_mode`` (BatchNorm in eval, Dropout in training)."""
    model, x, y = batch(dtype)
    raw = Net(normalize=False).to(dtype)
    raw.load_state_dict({k: v for k, v in model.state_dict().items() if not k.startswith("norm.")})
    raw.eval()
    mean = torch.tensor(MEAN, dtype=dtype).reshape(1, 3, 1, 1)
    std = torch.tensor(STD, dtype=dtype).reshape(1, 3, 1, 1)
    xn = (x - mean) / std
    A = torchattacks
    for name, attack in [("PGD", A.PGD(raw, eps=8 / 255, alpha=2 / 255, steps=5)),
                         ("APGD", A.APGD(raw, eps=8 / 255, steps=5, seed=0)),
                         ("CW", A.CW(raw, c=1, steps=10, lr=0.05)),
                         ("DeepFool", A.DeepFool(raw, steps=5))]:
        attack.set_normalization_used(mean=list(MEAN), std=list(STD))
        adv = attack(xn, y)
        report(f"{name}_normalized", raw, xn, y, adv, normalized=(MEAN, STD))
    pgd = A.PGD(model, eps=8 / 255, alpha=2 / 255, steps=5)
    pgd.set_model_training_mode(model_training=True, batchnorm_training=False,
                                dropout_training=True)
    run("PGD_dropout_training", pgd, model, x, y)
    print(f"  model.training after the attack: {model.training}")
    print(f"  repr {A.FGSM(model, eps=8 / 255)!r}")


@variant("save")
def save(dtype):
    """``Attack.save`` over a DataLoader (float and int, with predictions and clean inputs)
    and ``Attack.load`` (with normalisation), and MultiAttack.save's success rates."""
    model, images, labels = trained(dtype)
    loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(images, labels), batch_size=BATCH)
    A = torchattacks
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "adv.pt")
        pgd = A.PGD(model, eps=8 / 255, alpha=2 / 255, steps=5)
        rob, l2, _ = pgd.save(loader, save_path=path, verbose=False, return_verbose=True,
                              save_predictions=True, save_clean_inputs=True)
        print(f"  PGD.save robust {rob!r} l2 {l2!r}")
        saved = torch.load(path)
        for key in ("adv_inputs", "labels", "preds", "clean_inputs"):
            print(f"  saved {key} {saved[key].dtype} {tuple(saved[key].shape)} "
                  f"{checksum(saved[key])}")
        adv_loader = pgd.load(path, batch_size=16, load_predictions=True,
                                   load_clean_inputs=True)
        correct = same = 0
        clean_sum = 0.0
        for adv, lab, pred, clean in adv_loader:
            with torch.no_grad():
                now = model(adv).argmax(1)
            correct += int((now == lab).sum())
            same += int((now == pred).sum())
            clean_sum += float(clean.double().sum())
        print(f"  loaded batches {len(adv_loader)} robust {correct}/{len(images)} "
              f"same predictions {same} clean sum {clean_sum!r}")
        int_path = os.path.join(tmp, "adv_int.pt")
        fgsm = A.FGSM(model, eps=8 / 255)
        rob, l2, _ = fgsm.save(loader, save_path=int_path, verbose=False,
                               return_verbose=True, save_type="int")
        print(f"  FGSM.save int robust {rob!r} l2 {l2!r}")
        saved = torch.load(int_path)
        print(f"  saved int {saved['adv_inputs'].dtype} {checksum(saved['adv_inputs'])}")
        normalize = {"mean": list(MEAN), "std": list(STD)}
        for adv, _ in fgsm.load(int_path, batch_size=64, normalize=normalize):
            print(f"  loaded int normalized {adv.dtype} {checksum(adv)}")
        multi = A.MultiAttack([A.FGSM(model, eps=4 / 255), A.PGD(model, eps=8 / 255, steps=5)])
        rob, sr, l2, _ = multi.save(loader, save_path=os.path.join(tmp, "multi.pt"),
                                    verbose=False, return_verbose=True)
        print(f"  MultiAttack.save robust {rob!r} success rates {sr!r} l2 {l2!r}")


def onepixel(dtype):
    """The unchanged OnePixel (not run by default: under jtorch its differential evolution
    writes into the read-only array of ``Tensor.numpy()``, ValueError)."""
    model, x, y = batch(dtype, 4)
    np.random.seed(0)
    run("OnePixel_unchanged", torchattacks.OnePixel(model, pixels=1, steps=3, popsize=10),
        model, x, y)


def ead(dtype):
    """EADL1 and EADEN (not run by default). Their ``forward`` makes ``y_k =
    nn.Parameter(images)``, which in PyTorch shares ``images``' storage, and the first
    ``y_k -= lr * grad`` (in place, before FISTA rebinds ``y_k.data``) moves ``images``, the
    reference point of every later distance and projection, too; jtorch's Parameter holds a
    copy (docs/differences.md), so the reference stays put and the result differs (PyTorch's
    adversarial images even leave [0, 1]). PyTorch with a copying Parameter gives jtorch's
    numbers to 1e-8. Float32 only: their best-distance records are float32 tensors that
    float64 results cannot be written into (RuntimeError in PyTorch)."""
    model, x, y = batch(dtype, 16)
    for name, cls in (("EADL1", torchattacks.EADL1), ("EADEN", torchattacks.EADEN)):
        run(name, cls(model, kappa=0, lr=0.05, binary_search_steps=3, max_iterations=10,
                      initial_const=1.0), model, x, y)


OPTIONAL = {"onepixel": (onepixel, torch.float32), "ead": (ead, torch.float32)}


def main(argv):
    everything = {**VARIANTS, **OPTIONAL}
    names = [a for a in argv if a != "all"] or list(VARIANTS)
    if "all" in argv:
        names += list(OPTIONAL)
    for name in names:
        build, dtype = everything[name]
        print(f"== {name}")
        trained(dtype)
        torch.manual_seed(1)
        np.random.seed(1)
        build(dtype)


if __name__ == "__main__":
    main(sys.argv[1:])
