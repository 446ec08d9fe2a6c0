"""Driver of lightly (self-supervised learning), mambapy (pure-PyTorch Mamba), reformer-pytorch
and jaxtyping's torch annotations (docs/real-programs.md): the installed packages, unchanged,
on tiny models in float64 (``torch.set_default_dtype``): losses and their gradients,
projection heads, memory banks, momentum encoders, Adam steps, save/load through
``state_dict``, printing each result's checksum (sums and largest magnitude) at full precision.

    python scripts/shared_rng_run.py drive_lightly.py [VARIANT ... | all]
    python -m jtorch scripts/shared_rng_run.py drive_lightly.py [VARIANT ...]

Without arguments it runs every variant (``all`` too). Each variant reseeds
(``torch.manual_seed``), so a subset prints what the full run prints for it.
"""

import copy
import io
import os
import sys
import time

import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

from torch import nn  # noqa: E402

torch.set_default_dtype(torch.float64)

VARIANTS = {}


def variant(name):
    def register(build):
        VARIANTS[name] = build
        return build
    return register


def checksum(t):
    """The sum of the magnitudes, a weighted sum (weights 1 to 2 in a period of 7 elements)
    and the largest magnitude, in float64."""
    t = t.detach().double().flatten()
    if t.numel() == 0:
        return "empty"
    w = 1.0 + (torch.arange(t.numel(), dtype=torch.float64) % 7) / 6
    return (f"abssum {t.abs().sum().item()!r} wsum {(t * w).sum().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def grads(model):
    return torch.cat([p.grad.flatten() for p in model.parameters() if p.grad is not None])


def params(model):
    return torch.cat([p.detach().flatten() for p in model.parameters()])


def roundtrip(model, fresh):
    """state_dict through torch.save/torch.load into a fresh model."""
    buf = io.BytesIO()
    torch.save(model.state_dict(), buf)
    buf.seek(0)
    fresh.load_state_dict(torch.load(buf))
    return fresh


def loss_and_grads(name, loss_fn, *inputs):
    xs = [x.clone().requires_grad_() for x in inputs]
    loss = loss_fn(*xs)
    loss.backward()
    return [(f"{name} loss", repr(loss.item()))] + [(f"{name} grad{i}", x.grad)
                                                    for i, x in enumerate(xs)]


# ---------------------------------------------------------------- lightly
@variant("lightly_losses")
def _():
    from lightly import loss as L
    from lightly.loss.hypersphere_loss import HypersphereLoss
    out = []
    a, b = torch.randn(8, 16), torch.randn(8, 16)
    out += loss_and_grads("ntxent", L.NTXentLoss(temperature=0.2), a, b)
    bank = L.NTXentLoss(temperature=0.5, memory_bank_size=(32, 16))
    for i in range(3):  # the bank (float32, as lightly makes it) fills with the detached out1
        out += loss_and_grads(f"ntxent_bank{i}", bank, (a + i).float(), (b - i).float())
    out += loss_and_grads("barlow", L.BarlowTwinsLoss(lambda_param=5e-3), a, b)
    out += loss_and_grads("negcos", L.NegativeCosineSimilarity(), a, b)
    out += loss_and_grads("vicreg", L.VICRegLoss(), a, b)
    out += loss_and_grads("dcl", L.DCLLoss(temperature=0.2), a, b)
    out += loss_and_grads("dclw", L.DCLWLoss(temperature=0.2, sigma=0.5), a, b)
    tico = L.TiCoLoss()
    out += loss_and_grads("tico", tico, a, b)
    out += loss_and_grads("tico2", tico, b, a)
    out += loss_and_grads("koleo", L.KoLeoLoss(), a)
    out += loss_and_grads("mmcr", L.MMCRLoss(), torch.randn(4, 3, 8), torch.randn(4, 3, 8))
    out += loss_and_grads("hypersphere", HypersphereLoss(), a, b)
    prototypes = torch.randn(6, 16)
    out += loss_and_grads("msn", L.MSNLoss(), torch.randn(16, 16), a, prototypes)
    out += loss_and_grads("pmsn", L.PMSNLoss(), torch.randn(16, 16), a, prototypes)
    wmse = L.WMSELoss(embedding_dim=4, num_samples=2, w_size=8)
    out += loss_and_grads("wmse", wmse, torch.randn(16, 4))
    frossl = L.FroSSLLoss()
    out += loss_and_grads("frossl", lambda *zs: frossl(list(zs)), a, b, a.flip(0))
    out += loss_and_grads("directclr", L.DirectCLRLoss(loss_dim=4), a, b)
    return out


@variant("lightly_dino_swav")
def _():
    from lightly import loss as L
    out = []
    dino = L.DINOLoss(output_dim=12, warmup_teacher_temp_epochs=3)
    t = [torch.randn(4, 12) for _ in range(2)]
    s = [torch.randn(4, 12) for _ in range(3)]
    for epoch in range(2):
        out += loss_and_grads(f"dino epoch{epoch}",
                              lambda *xs, e=epoch: dino(list(xs[:2]), list(xs[2:]), epoch=e),
                              *t, *s)
        out.append((f"dino center{epoch}", dino.center if torch.is_tensor(dino.center)
                    else dino.center.value))
    swav = L.SwaVLoss(temperature=0.1, sinkhorn_iterations=3)
    high = [torch.randn(6, 5) for _ in range(2)]
    low = [torch.randn(6, 5) for _ in range(2)]
    out += loss_and_grads("swav", lambda *xs: swav(list(xs[:2]), list(xs[2:])), *high, *low)
    queue = [torch.randn(12, 5) for _ in range(2)]
    out += loss_and_grads("swav queue", lambda *xs: swav(list(xs[:2]), list(xs[2:4]),
                                                         list(xs[4:])), *high, *low, *queue)
    from lightly.loss.swav_loss import sinkhorn
    out.append(("sinkhorn", sinkhorn(torch.randn(6, 5), iterations=4, epsilon=0.05)))
    return out


@variant("lightly_heads")
def _():
    from lightly.models.modules import heads as H
    out = []
    x = torch.randn(6, 16)
    for name, head in (
            ("simclr", H.SimCLRProjectionHead(16, 12, 8, num_layers=3)),
            ("barlow", H.BarlowTwinsProjectionHead(16, 12, 8)),
            ("byol_proj", H.BYOLProjectionHead(16, 12, 8)),
            ("moco", H.MoCoProjectionHead(16, 12, 8, num_layers=2, batch_norm=True)),
            ("simsiam", H.SimSiamProjectionHead(16, 12, 8)),
            ("swav", H.SwaVProjectionHead(16, 12, 8)),
            ("dino", H.DINOProjectionHead(16, 12, 6, 10, batch_norm=True,
                                          freeze_last_layer=1, norm_last_layer=True)),
            ("msn", H.MSNProjectionHead(16, 12, 8)),
            ("vicreg", H.VICRegProjectionHead(16, 12, 8, num_layers=3)),
            ("mmcr", H.MMCRProjectionHead(16, 12, 8, num_layers=2))):
        head.train()
        xg = x.clone().requires_grad_()
        y = head(xg)
        y.pow(2).sum().backward()
        if name == "dino":
            head.cancel_last_layer_gradients(current_epoch=0)
        out += [(f"{name} out", y), (f"{name} x grad", xg.grad), (f"{name} grads", grads(head))]
        head.eval()
        with torch.no_grad():
            out.append((f"{name} eval", head(x)))
        fresh = roundtrip(head, copy.deepcopy(head))
        out.append((f"{name} reloaded", fresh(x) - head(x)))
    protos = H.SwaVPrototypes(8, n_prototypes=[5, 3], n_steps_frozen_prototypes=1)
    z = torch.randn(4, 8, requires_grad=True)
    p = protos(z, step=0)
    sum(q.pow(2).sum() for q in p).backward()
    protos.normalize()
    out += [("swav protos", torch.cat([q.flatten() for q in p])), ("swav protos z grad", z.grad),
            ("swav protos normalized", params(protos))]
    smog = H.SMoGPrototypes(torch.randn(3, 8), beta=0.9)
    zz = torch.randn(6, 8)
    assign = smog.assign_groups(zz)
    out += [("smog assign", repr(assign.tolist())),
            ("smog update", smog.get_updated_group_features(zz)),
            ("smog logits", smog(zz, smog.group_features))]
    return out


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                                 nn.AdaptiveAvgPool2d(1), nn.Flatten())

    def forward(self, x):
        return self.net(x)


def views(b=4):
    x = torch.rand(b, 3, 8, 8)
    return x, x.flip(-1) * 0.9 + 0.05


@variant("lightly_simclr_byol")
def _():
    from lightly.loss import NegativeCosineSimilarity, NTXentLoss
    from lightly.models.modules.heads import (
        BYOLPredictionHead,
        BYOLProjectionHead,
        SimCLRProjectionHead,
    )
    from lightly.models.utils import deactivate_requires_grad, update_momentum
    from lightly.utils.scheduler import cosine_schedule
    out = []
    model = nn.Sequential(Backbone(), SimCLRProjectionHead(4, 8, 6))
    crit = NTXentLoss(temperature=0.3)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x0, x1 = views()
    for i in range(2):
        loss = crit(model(x0), model(x1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append((f"simclr step{i}", repr(loss.item())))
    out.append(("simclr params", params(model)))
    fresh = roundtrip(model, nn.Sequential(Backbone(), SimCLRProjectionHead(4, 8, 6)))
    out.append(("simclr reloaded", repr(torch.equal(params(fresh), params(model)))))

    class BYOL(nn.Module):
        def __init__(self):
            super().__init__()
            self.backbone = Backbone()
            self.projection_head = BYOLProjectionHead(4, 8, 6)
            self.prediction_head = BYOLPredictionHead(6, 8, 6)
            self.backbone_momentum = copy.deepcopy(self.backbone)
            self.projection_head_momentum = copy.deepcopy(self.projection_head)
            deactivate_requires_grad(self.backbone_momentum)
            deactivate_requires_grad(self.projection_head_momentum)

        def forward(self, x):
            return self.prediction_head(self.projection_head(self.backbone(x)))

        def forward_momentum(self, x):
            return self.projection_head_momentum(self.backbone_momentum(x)).detach()

    byol = BYOL()
    crit = NegativeCosineSimilarity()
    opt = torch.optim.Adam(byol.parameters(), lr=1e-2)
    for i in range(2):
        m = cosine_schedule(i, 2, 0.99, 1)
        update_momentum(byol.backbone, byol.backbone_momentum, m=m)
        update_momentum(byol.projection_head, byol.projection_head_momentum, m=m)
        loss = 0.5 * (crit(byol(x0), byol.forward_momentum(x1))
                      + crit(byol(x1), byol.forward_momentum(x0)))
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append((f"byol step{i} m {m!r}", repr(loss.item())))
    out += [("byol params", params(byol)),
            ("byol momentum buffers", torch.cat([b.flatten() for b in byol.buffers()]))]
    return out


@variant("lightly_memory_nnclr_float32")
def _():
    # lightly's memory banks are float32 buffers: a float32 model
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float32)
    try:
        return _memory_nnclr()
    finally:
        torch.set_default_dtype(old)


def _memory_nnclr():
    from lightly.loss import NTXentLoss
    from lightly.models.modules import NNMemoryBankModule
    from lightly.models.modules.heads import NNCLRPredictionHead, NNCLRProjectionHead
    from lightly.models.modules.memory_bank import MemoryBankModule
    out = []
    bank = MemoryBankModule(size=(10, 4))
    for i in range(4):
        o, bank_o = bank(torch.randn(3, 4), update=True)
        out += [(f"bank out{i}", o), (f"bank{i}", bank_o)]
    out.append(("bank ptr", repr(int(bank.bank_ptr))))
    proj, pred = NNCLRProjectionHead(4, 8, 6), NNCLRPredictionHead(6, 8, 6)
    backbone = Backbone()
    nn_bank = NNMemoryBankModule(size=(8, 6))
    params_all = [*backbone.parameters(), *proj.parameters(), *pred.parameters()]
    opt = torch.optim.SGD(params_all, lr=0.05)
    crit = NTXentLoss()
    x0, x1 = views()
    for i in range(3):
        z0, z1 = proj(backbone(x0)), proj(backbone(x1))
        p0, p1 = pred(z0), pred(z1)
        z0n = nn_bank(z0.detach(), update=False)
        z1n = nn_bank(z1.detach(), update=True)
        loss = 0.5 * (crit(z0n, p1) + crit(z1n, p0))
        opt.zero_grad()
        loss.backward()
        opt.step()
        out += [(f"nnclr step{i}", repr(loss.item())), (f"nnclr nn{i}", z0n)]
    out.append(("nnclr params", torch.cat([p.detach().flatten() for p in params_all])))
    return out


@variant("lightly_resnet_lars")
def _():
    from lightly.models import ResNetGenerator
    from lightly.utils.benchmarking import knn_predict
    from lightly.utils.benchmarking.topk import mean_topk_accuracy
    from lightly.utils.lars import LARS
    from lightly.utils.scheduler import CosineWarmupScheduler
    out = []
    # split batch norm (num_splits=2: each half of the batch normalised on its own)
    net = ResNetGenerator("resnet-9", width=0.125, num_classes=4, num_splits=2)
    opt = LARS(net.parameters(), lr=0.5, momentum=0.9, weight_decay=1e-4)
    sched = CosineWarmupScheduler(opt, warmup_epochs=1, max_epochs=3)
    x, y = torch.rand(4, 3, 32, 32), torch.tensor([0, 1, 2, 1])  # (CIFAR-sized)
    for i in range(2):
        loss = nn.functional.cross_entropy(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        out.append((f"step{i} loss lr", f"{loss.item()!r} {sched.get_last_lr()[0]!r}"))
    out.append(("grads", grads(net)))
    out.append(("params", params(net)))
    out.append(("buffers", torch.cat([b.double().flatten() for b in net.buffers()])))
    net.eval()
    fresh = roundtrip(net, ResNetGenerator("resnet-9", width=0.125, num_classes=4, num_splits=2))
    fresh.eval()
    with torch.no_grad():
        logits = net(x)
        out += [("eval logits", logits), ("reloaded", fresh(x) - logits)]
    opt2 = LARS(fresh.parameters(), lr=0.5)
    opt2.load_state_dict(opt.state_dict())
    out.append(("lars momentum", torch.cat([v["momentum_buffer"].flatten()
                                            for v in opt2.state.values()])))
    bank = nn.functional.normalize(torch.randn(8, 12), dim=0)
    labels = torch.arange(12) % 3
    feats = nn.functional.normalize(torch.randn(5, 8), dim=1)
    pred = knn_predict(feats, bank, labels, num_classes=3, knn_k=4, knn_t=0.1)
    acc = mean_topk_accuracy(pred, torch.tensor([0, 1, 2, 2, 1]), k=(1, 2))
    out += [("knn classes", repr(pred.tolist())),
            ("topk", repr({k: v.item() for k, v in acc.items()}))]
    return out


@variant("lightly_utils")
def _():
    from lightly.models import utils as U
    out = []
    x = torch.randn(6, 5)
    shuffled, idx = U.batch_shuffle(x)
    out += [("batch_shuffle", shuffled), ("batch_unshuffle", U.batch_unshuffle(shuffled, idx))]
    imgs = torch.randn(2, 3, 8, 8)
    patches = U.patchify(imgs, 4)
    out += [("patchify", patches),
            ("unpatchify", U.unpatchify(patches, 4, 3) - imgs)]
    idx_keep, idx_mask = U.random_token_mask((2, 5), mask_ratio=0.6)
    out += [("token mask keep", repr(idx_keep.tolist())), ("token mask", repr(idx_mask.tolist()))]
    tokens = torch.randn(2, 5, 3, requires_grad=True)
    got = U.get_at_index(tokens, idx_keep)
    set_ = U.set_at_index(tokens, idx_mask, torch.zeros(2, idx_mask.shape[1], 3))
    masked = U.mask_at_index(tokens, idx_mask, torch.ones(3))
    (got.pow(2).sum() + set_.sum() + masked.pow(3).sum()).backward()
    out += [("get_at_index", got), ("set_at_index", set_), ("mask_at_index", masked),
            ("index grads", tokens.grad)]
    out.append(("prepend_class_token", U.prepend_class_token(tokens.detach(), torch.ones(1, 1, 3))))
    out.append(("pos 2d", torch.from_numpy(U.get_2d_sine_cosine_positional_embedding(4, 8, True))))
    out.append(("repeat_token", U.repeat_token(torch.arange(3.0).view(1, 1, 3), (2, 2))))
    out.append(("block mask", repr(U.random_block_mask((2, 4, 4), min_image_mask_ratio=0.2,
                                                        max_image_mask_ratio=0.5).tolist())))
    maps, cands = torch.randn(2, 5, 4), torch.randn(2, 6, 4)
    nn_in, nn_cand = U.nearest_neighbors(maps, cands, torch.cdist(maps, cands), num_matches=3)
    out += [("nearest input", nn_in), ("nearest candidates", nn_cand)]
    model = nn.Sequential(nn.Linear(4, 4), nn.LayerNorm(4), nn.Linear(4, 2))
    decay, no_decay = U.get_weight_decay_parameters([model])
    out.append(("weight decay split", repr((len(decay), len(no_decay)))))
    out.append(("normalize_mean_var", U.normalize_mean_var(torch.randn(3, 6))))
    return out


@variant("lightly_collate")
def _():
    from lightly.data import multi_view_collate
    from lightly.transforms import utils as TU  # noqa: F401  (imported as users do)
    out = []
    batch = [([torch.rand(3, 4, 4), torch.rand(3, 4, 4)], i, f"f{i}") for i in range(3)]
    views_, labels, names = multi_view_collate.MultiViewCollate()(batch)
    out += [("collate views", torch.stack(views_)), ("collate labels", labels),
            ("collate names", repr(names))]
    return out


@variant("lightly_transforms")
def _():
    import numpy as np
    from lightly.transforms import (
        AmplitudeRescaleTransform,
        GaussianMixtureMask,
        IRFFT2DTransform,
        PhaseShiftTransform,
        RandomFrequencyMaskTransform,
        RFFT2DTransform,
    )
    np.random.seed(0)  # RandomFrequencyMaskTransform draws its ratio from NumPy's global stream
    out = []
    img = torch.rand(3, 8, 8)
    freq = RFFT2DTransform()(img)
    out += [("rfft real", freq.real), ("rfft imag", freq.imag)]
    for name, t in (("phase_shift", PhaseShiftTransform(include_negatives=True)),
                    ("amplitude_rescale", AmplitudeRescaleTransform()),
                    ("frequency_mask", RandomFrequencyMaskTransform()),
                    ("gaussian_mixture", GaussianMixtureMask(num_gaussians=3,
                                                             std_range=(1, 2)))):
        f = t(freq)
        out += [(f"{name} real", f.real), (f"{name} imag", f.imag),
                (f"{name} irfft", IRFFT2DTransform((8, 8))(f))]
    return out


@variant("lightly_image_transforms")
def _():
    # lightly's augmentation pipelines on a PIL image (torchvision's random draws are shared
    # by the harness; lightly's GaussianBlur and RandomSolarization draw from NumPy)
    import numpy as np
    from lightly.transforms import (
        BYOLTransform,
        BYOLView1Transform,
        BYOLView2Transform,
        DINOTransform,
        SimCLRTransform,
        VICRegTransform,
    )
    from PIL import Image
    np.random.seed(0)
    img = Image.fromarray((np.random.default_rng(0).random((24, 24, 3)) * 255).astype(np.uint8))
    out = []
    for name, t in (("simclr", SimCLRTransform(input_size=16)),
                    ("byol", BYOLTransform(BYOLView1Transform(input_size=16),
                                           BYOLView2Transform(input_size=16))),
                    ("dino", DINOTransform(global_crop_size=16, local_crop_size=8,
                                           n_local_views=2)),
                    ("vicreg", VICRegTransform(input_size=16))):
        for i, v in enumerate(t(img)):
            out.append((f"{name} view{i} {tuple(v.shape)}", v))
    return out


@variant("lightly_mae_vit")
def _():
    # a masked-autoencoder step on lightly's MaskedVisionTransformerTorchvision (a tiny
    # torchvision ViT): encode the kept tokens, predict the masked patches with a linear
    # decoder, MSE on them
    from lightly.models import utils as U
    from lightly.models.modules import MaskedVisionTransformerTorchvision
    from torchvision.models import VisionTransformer
    vit = VisionTransformer(image_size=8, patch_size=4, num_layers=1, num_heads=2, hidden_dim=8,
                            mlp_dim=16)
    mvit = MaskedVisionTransformerTorchvision(vit=vit)
    decoder = nn.Linear(8, 48)
    opt = torch.optim.AdamW([*mvit.parameters(), *decoder.parameters()], lr=1e-2)
    x = torch.rand(2, 3, 8, 8)
    out = []
    for i in range(2):
        idx_keep, idx_mask = U.random_token_mask((2, 5), mask_ratio=0.5)
        tokens = mvit.encode(x, idx_keep=idx_keep)
        pred = U.get_at_index(decoder(mvit.encode(x)), idx_mask)
        target = U.get_at_index(U.patchify(x, 4), idx_mask - 1)
        loss = nn.functional.mse_loss(pred, target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out += [(f"step{i} keep {idx_keep.tolist()}", tokens), (f"step{i} loss", repr(loss.item()))]
    out.append(("params", params(mvit)))
    return out


# ---------------------------------------------------------------- mambapy
class MambaLM(nn.Module):
    """mambapy.lm.LM's layout (its module imports mamba2, which needs mamba_ssm's kernels)."""

    def __init__(self, vocab=11, d_model=8):
        from mambapy.mamba import Mamba, MambaConfig, RMSNorm
        super().__init__()
        self.embedding = nn.Embedding(vocab, d_model, padding_idx=0)
        self.mamba = Mamba(MambaConfig(d_model=d_model, n_layers=2, d_state=4))
        self.norm_f = RMSNorm(d_model)
        self.lm_head = nn.Linear(d_model, vocab, bias=False)
        self.lm_head.weight = self.embedding.weight

    def forward(self, tokens):
        return self.lm_head(self.norm_f(self.mamba(self.embedding(tokens))))


@variant("mamba")
def _():
    from mambapy.mamba import Mamba, MambaConfig
    from mambapy.pscan import pscan
    out = []
    A = torch.rand(2, 8, 4, 3, requires_grad=True)
    X = torch.randn(2, 8, 4, 3, requires_grad=True)
    H = pscan(A, X)
    (H * torch.linspace(-1, 1, 3)).sum().backward()
    out += [("pscan", H), ("pscan A grad", A.grad), ("pscan X grad", X.grad)]
    for name, kw in (("pscan", {}), ("sequential", {"pscan": False}),
                     ("inner_ln", {"inner_layernorms": True, "bias": True})):
        recurrent = name == "pscan"  # the recurrent step form once
        torch.manual_seed(0)
        model = Mamba(MambaConfig(d_model=8, n_layers=2, d_state=4, **kw))
        x = torch.randn(2, 8, 8, requires_grad=True)
        y = model(x)
        y.pow(2).mean().backward()
        out += [(f"{name} out", y), (f"{name} x grad", x.grad), (f"{name} grads", grads(model))]
        if not recurrent:
            continue
        with torch.no_grad():  # the recurrent step form gives the same outputs
            # per layer: (h (B, ED, N), the last d_conv-1 inputs (B, ED, d_conv-1))
            caches = [(torch.zeros(2, 16, 4), torch.zeros(2, 16, 3)) for _ in range(2)]
            steps = []
            for t in range(8):
                yt, caches = model.step(x[:, t], caches)
                steps.append(yt)
            out.append((f"{name} step - forward", torch.stack(steps, 1) - y))
    lm = MambaLM()
    opt = torch.optim.AdamW(lm.parameters(), lr=1e-2)
    tok = torch.randint(1, 11, (2, 9))
    for i in range(2):
        logits = lm(tok[:, :-1])
        loss = nn.functional.cross_entropy(logits.reshape(-1, 11), tok[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append((f"lm step{i}", repr(loss.item())))
    out.append(("lm params", params(lm)))
    fresh = roundtrip(lm, MambaLM())
    out.append(("lm reloaded logits", fresh(tok) - lm(tok)))
    return out


@variant("mamba_vim_jamba")
def _():
    from mambapy.jamba import JambaLM, JambaLMConfig
    from mambapy.vim import MambaConfig as VimConfig, VMamba
    out = []
    vm = VMamba(VimConfig(d_model=8, n_layers=2, d_state=4))
    x = torch.randn(2, 6, 8, requires_grad=True)
    y = vm(x)
    y.pow(2).mean().backward()
    out += [("vim out", y), ("vim x grad", x.grad), ("vim grads", grads(vm))]
    cfg = JambaLMConfig(d_model=8, n_layers=4, mlp_size=16, num_attention_heads=2,
                        num_key_value_heads=1, num_experts=2, num_experts_per_tok=1,
                        attn_layer_offset=1, attn_layer_period=2, expert_layer_offset=1,
                        expert_layer_period=2, vocab_size=13, d_state=4)
    jamba = JambaLM(cfg)
    tok = torch.randint(0, 13, (2, 6))
    logits = jamba(tok)
    if isinstance(logits, tuple):
        logits = logits[0]
    loss = nn.functional.cross_entropy(logits.reshape(-1, 13), tok.roll(-1, 1).reshape(-1))
    loss.backward()
    out += [("jamba logits", logits), ("jamba loss", repr(loss.item())),
            ("jamba grads", grads(jamba))]
    return out


# ---------------------------------------------------------------- reformer
@variant("reformer")
def _():
    from reformer_pytorch import LSHAttention, LSHSelfAttention, ReformerLM
    from reformer_pytorch.generative_tools import TrainingWrapper
    out = []
    attn = LSHAttention(bucket_size=4, n_hashes=2, causal=True, random_rotations_per_head=False)
    qk = torch.randn(2, 16, 8, requires_grad=True)
    v = torch.randn(2, 16, 8, requires_grad=True)
    o, attn_matrix, buckets = attn(qk, v, query_len=16, input_mask=None)
    o.pow(2).sum().backward()
    out += [("lsh out", o), ("lsh buckets", buckets.double()), ("lsh qk grad", qk.grad),
            ("lsh v grad", v.grad)]
    sa = LSHSelfAttention(dim=16, heads=2, bucket_size=4, n_hashes=2, causal=False,
                          attn_chunks=2, n_local_attn_heads=1)
    x = torch.randn(2, 16, 16, requires_grad=True)
    mask = torch.ones(2, 16, dtype=torch.bool)
    mask[1, 12:] = False
    y = sa(x, input_mask=mask)
    y.pow(2).sum().backward()
    out += [("selfattn out", y), ("selfattn x grad", x.grad), ("selfattn grads", grads(sa))]
    for name, kw in (("lm", {}),
                     ("lm_axial_ff_chunks", {"axial_position_emb": True,
                                             "axial_position_shape": (4, 4), "ff_chunks": 2,
                                             "ff_glu": True, "weight_tie": True}),
                     ("lm_full_attn_causal", {"use_full_attn": True, "causal": True})):
        torch.manual_seed(0)
        model = ReformerLM(num_tokens=20, dim=16, depth=2, max_seq_len=16, heads=2,
                           bucket_size=4, n_hashes=1, lsh_dropout=0.0, **kw)
        wrapped = TrainingWrapper(model)
        opt = torch.optim.Adam(model.parameters(), lr=1e-2)
        tok = torch.randint(0, 20, (2, 17))
        for i in range(2 if name == "lm" else 1):
            loss = wrapped(tok, return_loss=True)
            opt.zero_grad()
            loss.backward()
            if i == 0:
                out.append((f"{name} grads", grads(model)))
            opt.step()
            out.append((f"{name} step{i}", repr(loss.item())))
        model.eval()
        fresh = roundtrip(model, copy.deepcopy(model))
        with torch.no_grad():  # LSH draws random rotations per call: the same seed for both
            torch.manual_seed(1)
            logits = model(tok[:, :16])
            torch.manual_seed(1)
            out += [(f"{name} eval logits", logits),
                    (f"{name} reloaded", fresh(tok[:, :16]) - logits)]
    return out


@variant("reformer_encdec")
def _():
    from reformer_pytorch import Reformer, ReformerEncDec
    out = []
    enc_dec = ReformerEncDec(dim=16, enc_num_tokens=12, enc_depth=1, enc_max_seq_len=16,
                             dec_num_tokens=12, dec_depth=1, dec_max_seq_len=16, heads=2,
                             bucket_size=4, n_hashes=1)
    src = torch.randint(0, 12, (2, 16))
    tgt = torch.randint(0, 12, (2, 16))
    mask = torch.ones(2, 16, dtype=torch.bool)
    enc_keys = enc_dec.enc(src, input_mask=mask)
    loss = enc_dec.dec(tgt, return_loss=True, keys=enc_keys)
    loss.backward()
    out += [("encdec keys", enc_keys), ("encdec loss", repr(loss.item())),
            ("encdec grads", grads(enc_dec))]
    reformer = Reformer(dim=16, depth=2, heads=2, bucket_size=4, lsh_dropout=0.0, causal=True)
    x = torch.randn(2, 16, 16, requires_grad=True)
    y = reformer(x)
    y.pow(2).sum().backward()
    out += [("reformer out", y), ("reformer x grad", x.grad), ("reformer grads", grads(reformer))]
    with torch.no_grad():  # its Autopadder pads 11 tokens to a multiple of bucket_size * 2
        out.append(("autopadded", enc_dec.enc(torch.randint(0, 12, (2, 11)))))
    from reformer_pytorch import Recorder
    torch.manual_seed(1)
    out.append(("generate", repr(enc_dec.dec.generate(tgt[:, :4], 4, keys=enc_keys).tolist())))
    rec = Recorder(reformer)
    with torch.no_grad():
        rec(x)
    out += [("recorded attn", rec.recordings[0][0]["attn"]),
            ("recorded buckets", rec.recordings[0][0]["buckets"].double())]
    rec.eject()
    return out


# ---------------------------------------------------------------- jaxtyping
@variant("jaxtyping")
def _():
    from beartype import beartype
    from jaxtyping import Float, Int, Shaped, jaxtyped
    out = []

    @jaxtyped(typechecker=beartype)
    def matmul(a: Float[torch.Tensor, "b n k"], b: Float[torch.Tensor, "k m"]  # noqa: F722
               ) -> Float[torch.Tensor, "b n m"]:  # noqa: F722
        return a @ b

    @jaxtyped(typechecker=beartype)
    def count(t: Int[torch.Tensor, " n"]) -> Shaped[torch.Tensor, ""]:  # noqa: F722
        return t.sum()

    a, b = torch.randn(2, 3, 4), torch.randn(4, 5)
    out.append(("matmul", matmul(a, b)))
    out.append(("count", count(torch.arange(5))))
    for label, call in (("bad shape", lambda: matmul(a, torch.randn(3, 5))),
                        ("bad dtype", lambda: count(torch.ones(3))),
                        ("bad rank", lambda: count(torch.ones(2, 2, dtype=torch.long)))):
        try:
            call()
            out.append((label, "accepted"))
        except Exception as e:  # noqa: BLE001
            out.append((label, type(e).__name__))
    out.append(("isinstance float", repr(isinstance(a, Float[torch.Tensor, "2 3 4"]))))
    out.append(("isinstance int", repr(isinstance(a, Int[torch.Tensor, "..."]))))
    out.append(("isinstance long", repr(isinstance(torch.arange(3), Int[torch.Tensor, "3"]))))
    from jaxtyping import BFloat16, Bool, Float32, Float64, Int64, UInt8
    samples = {"float32": torch.ones(2, dtype=torch.float32), "float64": torch.ones(2),
               "bfloat16": torch.ones(2, dtype=torch.bfloat16),
               "bool": torch.ones(2, dtype=torch.bool), "int64": torch.arange(2),
               "uint8": torch.arange(2, dtype=torch.uint8)}
    for kind in (Float, Float32, Float64, BFloat16, Bool, Int, Int64, UInt8, Shaped):
        accepted = [n for n, t in samples.items() if isinstance(t, kind[torch.Tensor, "2"])]
        out.append((f"isinstance {kind.__name__}", repr(accepted)))
    return out


def main(argv):
    names = [a for a in argv if a != "all"] or list(VARIANTS)
    for name in names:
        torch.manual_seed(0)
        t0 = time.time()
        for label, value in VARIANTS[name]():
            text = checksum(value) if torch.is_tensor(value) else value
            print(f"{name} {label} {text}", flush=True)
        print(f"# {name} {time.time() - t0:.1f}s", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
