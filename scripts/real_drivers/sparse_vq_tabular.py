"""Driver of four libraries (docs/real-programs.md): entmax (1.3), vector-quantize-pytorch
(1.32), performer-pytorch (1.1.4) and pytorch-tabnet (4.1), installed and used unchanged, at
tiny sizes, printing every value and checksum at full precision.

Variants (each reseeds with ``torch.manual_seed`` and NumPy's global generator, so a subset
prints what the full run prints for it):

- ``entmax_activations``: sparsemax, entmax15 (full sort and the partial top-k sort), their
  modules, entmax_bisect (alpha 1.5, 1.25 and a per-row alpha with its gradient),
  sparsemax_bisect, normmax_bisect and budget_bisect, on rows with ties and on random rows,
  along the last and the first dimension: values, supports, and the gradients their
  ``autograd.Function`` backwards give.
- ``entmax_losses``: sparsemax_loss, entmax15_loss, entmax_bisect_loss, sparsemax_bisect_loss,
  normmax_bisect_loss and the loss modules (reductions, ignore_index), with gradients.
- ``vq_vectorquantize``: VectorQuantize with EMA codebook updates (train-mode buffer updates
  over steps, commitment loss, gradients), eval mode, cosine similarity, k-means
  initialisation, dead-code expiry, multi-head, codebook projection, orthogonal
  regularisation, image feature maps, a learnable codebook, the rotation trick, masks.
- ``vq_residual``: ResidualVQ (shared codebook, quantize dropout, all codes, codes from
  indices) and GroupedResidualVQ; ``vq_fsq_lfq``: FSQ, ResidualFSQ, LFQ, ResidualLFQ,
  LatentQuantize, SimVQ; ``vq_train``: an autoencoder around VectorQuantize, Adam steps.
- ``performer_attention``: FastAttention (softmax kernel, causal, generalized, no
  projection; feature redraws) and SelfAttention, forward and backward.
- ``performer_lm``: PerformerLM causal (with automatic feature redraws every 2 calls) and
  non-causal (reversible, scale norm, GLU, rotary, shifted tokens), Adam steps.
- ``tabnet_classifier``, ``tabnet_regressor``, ``tabnet_pretrainer``: TabNetClassifier
  (categorical embeddings, sparsemax masks) and TabNetRegressor (entmax masks) fitted for two
  epochs on a tiny synthetic table; predict, predict_proba, explain, feature importances,
  save_model/load_model in a temporary directory; TabNetPretrainer then a classifier from it.

    python scripts/shared_rng_run.py sparse_vq_tabular.py [VARIANT ... | all]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py sparse_vq_tabular.py [VARIANT ... | all]   # jtorch
"""

import contextlib
import io
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

import entmax  # noqa: E402
import vector_quantize_pytorch as vqp  # noqa: E402

with contextlib.redirect_stdout(io.StringIO()):  # performer prints about a missing CUDA kernel
    import performer_pytorch  # noqa: E402
from pytorch_tabnet.pretraining import TabNetPretrainer  # noqa: E402
from pytorch_tabnet.tab_model import TabNetClassifier, TabNetRegressor  # noqa: E402

VARIANTS = {}


def variant(name):
    def register(fn):
        VARIANTS[name] = fn
        return fn
    return register


def checksum(t):
    """The sum of the magnitudes, a weighted sum (weights 1 to 2 in a period of 13 elements, a
    period no row length here divides, so that gradients whose rows or columns sum to zero do
    not cancel in it) and the largest magnitude, in float64."""
    t = torch.as_tensor(t).detach().double().flatten()
    if t.numel() == 0:
        return "empty"
    w = 1.0 + (torch.arange(t.numel(), dtype=torch.float64) % 13) / 12
    return (f"abssum {t.abs().sum().item()!r} wsum {(t * w).sum().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def show(label, value):
    if isinstance(value, np.ndarray):
        value = torch.from_numpy(np.ascontiguousarray(value))
    if isinstance(value, torch.Tensor):
        print(f"  {label} {list(value.shape)} {str(value.dtype).replace('torch.', '')} "
              f"{checksum(value)}")
    else:
        print(f"  {label} {value!r}")


def grads(module):
    gs = [p.grad.flatten() for p in module.parameters() if p.grad is not None]
    return torch.cat(gs) if gs else torch.zeros(1)


def weights_like(t):
    """Fixed, non-uniform upstream gradient weights (so a backward is not the gradient of a
    constant sum)."""
    return torch.linspace(-1.0, 2.0, t.numel()).view(t.shape).to(t.dtype)


def tied_rows():
    """Rows with ties and exact zeros (sparsemax's kinks), from Python floats."""
    return torch.tensor([[0.5, 0.5, 0.1, -1.0, 0.0, 0.3, 0.5],
                         [2.0, 1.0, 0.0, -1.0, -2.0, 1.5, 0.25],
                         [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7],
                         [-3.0, 3.0, 0.0, 0.0, 1.0, 2.5, -0.5]])


# ------------------------------------------------------------------ entmax
def activation_lines(label, fn, x):
    x = x.clone().requires_grad_()
    y = fn(x)
    show(f"{label} value", y)
    print(f"  {label} support {int((y > 0).sum())} rowsum-1 < 1e-5 "
          f"{bool(((y.sum(-1) - 1).abs() < 1e-5).all()) if y.dim() else None}")
    (y * weights_like(y)).sum().backward()
    show(f"{label} grad", x.grad)


@variant("entmax_activations")
def _():
    for name, x in (("tied", tied_rows()), ("random", torch.randn(5, 9) * 2)):
        for dim in (-1, 0) if name == "tied" else (-1,):
            tag = f"{name} dim{dim}"
            activation_lines(f"sparsemax {tag}", lambda t, d=dim: entmax.sparsemax(t, dim=d), x)
            activation_lines(f"entmax15 {tag}", lambda t, d=dim: entmax.entmax15(t, dim=d), x)
            activation_lines(f"sparsemax k=3 {tag}",
                             lambda t, d=dim: entmax.sparsemax(t, dim=d, k=3), x)
            activation_lines(f"entmax15 k=2 {tag}",
                             lambda t, d=dim: entmax.entmax15(t, dim=d, k=2), x)
            activation_lines(f"entmax_bisect 1.5 {tag}",
                             lambda t, d=dim: entmax.entmax_bisect(t, 1.5, dim=d), x)
            activation_lines(f"entmax_bisect 1.25 {tag}",
                             lambda t, d=dim: entmax.entmax_bisect(t, 1.25, dim=d, n_iter=30), x)
            activation_lines(f"sparsemax_bisect {tag}",
                             lambda t, d=dim: entmax.sparsemax_bisect(t, dim=d), x)
        activation_lines(f"normmax_bisect {name}", lambda t: entmax.normmax_bisect(t, alpha=2), x)
        activation_lines(f"budget_bisect {name}", lambda t: entmax.budget_bisect(t, budget=2), x)
        for mod in (entmax.Sparsemax(dim=-1), entmax.Entmax15(dim=-1, k=4),
                    entmax.EntmaxBisect(alpha=1.75), entmax.SparsemaxBisect(n_iter=40)):
            activation_lines(f"{type(mod).__name__} {name}", mod, x)
        # a learnable alpha per row: the gradient with respect to alpha
        alpha = torch.linspace(1.1, 2.5, x.shape[0]).unsqueeze(-1).requires_grad_()
        xr = x.clone().requires_grad_()
        y = entmax.entmax_bisect(xr, alpha, dim=-1)
        show(f"entmax_bisect alpha-tensor {name} value", y)
        (y * weights_like(y)).sum().backward()
        show(f"entmax_bisect alpha-tensor {name} grad x", xr.grad)
        show(f"entmax_bisect alpha-tensor {name} grad alpha", alpha.grad)
    x3 = torch.randn(2, 3, 6)
    activation_lines("entmax15 3-d dim1", lambda t: entmax.entmax15(t, dim=1), x3)
    activation_lines("sparsemax 3-d dim1", lambda t: entmax.sparsemax(t, dim=1), x3)


@variant("entmax_losses")
def _():
    x = torch.randn(6, 5) * 2
    target = torch.tensor([0, 4, 2, 2, 1, 3])
    for label, fn in (("sparsemax_loss", lambda t, y: entmax.sparsemax_loss(t, y)),
                      ("sparsemax_loss k=2", lambda t, y: entmax.sparsemax_loss(t, y, k=2)),
                      ("entmax15_loss", lambda t, y: entmax.entmax15_loss(t, y)),
                      ("entmax15_loss k=3", lambda t, y: entmax.entmax15_loss(t, y, k=3)),
                      ("entmax_bisect_loss 1.3",
                       lambda t, y: entmax.entmax_bisect_loss(t, y, alpha=1.3)),
                      ("sparsemax_bisect_loss", lambda t, y: entmax.sparsemax_bisect_loss(t, y)),
                      ("normmax_bisect_loss", lambda t, y: entmax.normmax_bisect_loss(t, y))):
        xr = x.clone().requires_grad_()
        loss = fn(xr, target)
        show(f"{label} value", loss)
        (loss * weights_like(loss)).sum().backward()
        show(f"{label} grad", xr.grad)
    # ignore_index must be a valid class in entmax 1.3 (it masks the losses afterwards)
    for make in (entmax.SparsemaxLoss, lambda **kw: entmax.SparsemaxLoss(reduction="sum", **kw),
                 lambda **kw: entmax.Entmax15Loss(k=2, reduction="none", **kw),
                 entmax.Entmax15Loss, lambda **kw: entmax.EntmaxBisectLoss(alpha=1.6, **kw),
                 entmax.SparsemaxBisectLoss,
                 lambda **kw: entmax.NormmaxBisectLoss(alpha=3, reduction="sum", **kw)):
        for tag, kw in (("", {}), (" ignore", {"ignore_index": 2})):
            mod = make(**kw)
            xr = x.clone().requires_grad_()
            loss = mod(xr, target)
            label = f"{type(mod).__name__} {mod.reduction}{tag}"
            show(f"{label} value", loss)
            (loss * weights_like(loss)).sum().backward()
            show(f"{label} grad", xr.grad)


# ------------------------------------------------------------------ vector-quantize-pytorch
def buffers(label, module):
    for name, b in sorted(module.named_buffers()):
        if b.numel() and b.dtype.is_floating_point:
            show(f"{label} buffer {name}", b)


def vq_step(label, vq, x, **kwargs):
    """A train-mode forward (its EMA buffer updates) and a backward of a weighted output plus
    every loss."""
    x = x.clone().requires_grad_()
    out = vq(x, **kwargs)
    quantized, indices, loss = out[0], out[1], out[2]
    show(f"{label} quantized", quantized)
    show(f"{label} indices", indices)
    losses = loss if isinstance(loss, torch.Tensor) else torch.stack(list(loss))
    show(f"{label} loss", losses)
    total = (quantized * weights_like(quantized)).sum() + losses.sum()
    if total.requires_grad:
        total.backward()
        show(f"{label} grad x", x.grad)
        show(f"{label} grad params", grads(vq))
        vq.zero_grad()
    return out


@variant("vq_vectorquantize")
def _():
    x = torch.randn(2, 12, 8)
    vq = vqp.VectorQuantize(dim=8, codebook_size=16, decay=0.8, commitment_weight=1.0)
    for step in range(3):
        vq_step(f"ema step{step}", vq, x + 0.1 * step)
        buffers(f"ema step{step}", vq)
    vq.eval()
    q, ind, loss = vq(x)
    show("eval quantized", q)
    show("eval indices", ind)
    show("codes from indices", vq.get_codes_from_indices(ind))
    show("output from indices", vq.get_output_from_indices(ind))
    configs = (
        ("cosine", {"use_cosine_sim": True}),
        ("kmeans", {"kmeans_init": True, "kmeans_iters": 3}),
        ("dead code", {"threshold_ema_dead_code": 2}),
        ("heads", {"heads": 2, "separate_codebook_per_head": True, "codebook_dim": 4}),
        ("heads shared", {"heads": 2, "codebook_dim": 4}),
        ("projection", {"codebook_dim": 4}),
        ("orthogonal", {"orthogonal_reg_weight": 10.0, "orthogonal_reg_max_codes": 8}),
        ("learnable", {"learnable_codebook": True, "ema_update": False}),
        ("rotation", {"rotation_trick": True}),
        ("straight", {"rotation_trick": False, "straight_through": True}),
        # (its batch statistics are float32 whatever the default dtype: float64 runs fail in
        # einsum in both frameworks)
        *([] if torch.get_default_dtype() == torch.float64 else
          [("affine", {"affine_param": True})]),
        # these two losses backpropagate through the distances to the codebook, which the
        # EMA update then overwrites through ``embed.data.copy_`` in the same forward: PyTorch's
        # backward reads the updated codebook (the saved tensor shares its storage), jtorch's
        # the one the forward used; with the codebook frozen both compute the same gradient
        ("diversity", {"codebook_diversity_loss_weight": 0.5, "freeze_codebook": True}),
        ("cross-entropy commitment", {"commitment_use_cross_entropy_loss": True,
                                          "freeze_codebook": True}),
    )
    for label, kwargs in configs:
        torch.manual_seed(1)
        vq = vqp.VectorQuantize(dim=8, codebook_size=16, **kwargs)
        for step in range(2):
            vq_step(f"{label} step{step}", vq, x + 0.2 * step)
        buffers(label, vq)
    torch.manual_seed(2)
    image_vq = vqp.VectorQuantize(dim=8, codebook_size=16, accept_image_fmap=True)
    vq_step("image fmap", image_vq, torch.randn(2, 8, 4, 4))
    buffers("image fmap", image_vq)
    masked = vqp.VectorQuantize(dim=8, codebook_size=16)
    mask = torch.tensor([[True] * 12, [True] * 7 + [False] * 5])
    vq_step("mask", masked, x, mask=mask)
    buffers("mask", masked)


@variant("vq_residual")
def _():
    x = torch.randn(2, 10, 8)
    rvq = vqp.ResidualVQ(dim=8, num_quantizers=3, codebook_size=16, decay=0.9)
    for step in range(2):
        vq_step(f"residual step{step}", rvq, x + 0.1 * step)
    buffers("residual", rvq)
    rvq.eval()
    q, ind, _, all_codes = rvq(x, return_all_codes=True)
    show("residual eval indices", ind)
    show("residual all codes", all_codes)
    show("residual output from indices", rvq.get_output_from_indices(ind))
    show("residual codes from indices", rvq.get_codes_from_indices(ind))
    torch.manual_seed(1)
    shared = vqp.ResidualVQ(dim=8, num_quantizers=2, codebook_size=16, shared_codebook=True,
                            codebook_dim=4)
    vq_step("residual shared", shared, x)
    torch.manual_seed(2)
    drop = vqp.ResidualVQ(dim=8, num_quantizers=4, codebook_size=8, quantize_dropout=True,
                          quantize_dropout_cutoff_index=1)
    for step in range(2):
        vq_step(f"residual dropout step{step}", drop, x)
    torch.manual_seed(3)
    grouped = vqp.GroupedResidualVQ(dim=8, groups=2, num_quantizers=2, codebook_size=16)
    for step in range(2):
        vq_step(f"grouped step{step}", grouped, x + 0.1 * step)
    buffers("grouped", grouped)
    grouped.eval()
    q, ind, _ = grouped(x)
    show("grouped output from indices", grouped.get_output_from_indices(ind))


@variant("vq_fsq_lfq")
def _():
    x = torch.randn(2, 10, 4)
    fsq = vqp.FSQ(levels=[8, 5, 5, 5])
    xr = x.clone().requires_grad_()
    q, ind = fsq(xr)
    show("fsq quantized", q)
    show("fsq indices", ind)
    (q * weights_like(q)).sum().backward()
    show("fsq grad", xr.grad)
    show("fsq codes", fsq.indices_to_codes(ind))
    show("fsq implicit codebook", fsq.implicit_codebook)
    fsq2 = vqp.FSQ(levels=[5, 5, 3], dim=12, num_codebooks=2)
    x12 = torch.randn(2, 6, 12).requires_grad_()
    q, ind = fsq2(x12)
    show("fsq proj quantized", q)
    show("fsq proj indices", ind)
    (q * weights_like(q)).sum().backward()
    show("fsq proj grad", x12.grad)
    show("fsq proj grad params", grads(fsq2))
    rfsq = vqp.ResidualFSQ(dim=12, levels=[5, 5, 5], num_quantizers=3)
    xr = torch.randn(2, 6, 12).requires_grad_()
    q, ind = rfsq(xr)
    show("residual fsq quantized", q)
    show("residual fsq indices", ind)
    (q * weights_like(q)).sum().backward()
    show("residual fsq grad", xr.grad)
    show("residual fsq output from indices", rfsq.get_output_from_indices(ind))
    lfq = vqp.LFQ(dim=4, codebook_size=16, entropy_loss_weight=0.1, diversity_gamma=1.0,
                  commitment_loss_weight=0.25)
    for step in range(2):
        vq_step(f"lfq step{step}", lfq, x + 0.1 * step)
    lfq.eval()
    q, ind, aux = lfq(x)
    show("lfq eval indices", ind)
    show("lfq indices to codes", lfq.indices_to_codes(ind))
    lfq8 = vqp.LFQ(dim=12, codebook_size=64, num_codebooks=2, frac_per_sample_entropy=1.0)
    vq_step("lfq proj", lfq8, torch.randn(2, 5, 12))
    rlfq = vqp.ResidualLFQ(dim=8, codebook_size=16, num_quantizers=2)
    vq_step("residual lfq", rlfq, torch.randn(2, 5, 8))
    lq = vqp.LatentQuantize(levels=[5, 5, 8], dim=12, commitment_loss_weight=0.1,
                            quantization_loss_weight=0.1)
    vq_step("latent quantize", lq, torch.randn(2, 12, 5))  # channel first
    sim = vqp.SimVQ(dim=8, codebook_size=16)
    vq_step("simvq", sim, torch.randn(2, 5, 8))
    rpq = vqp.RandomProjectionQuantizer(dim=8, num_codebooks=2, codebook_size=16,
                                        codebook_dim=4)
    show("random projection indices", rpq(torch.randn(2, 5, 8)))


@variant("vq_train")
def _():
    data = torch.randn(16, 6, 8)
    enc, dec = torch.nn.Linear(8, 8), torch.nn.Linear(8, 8)
    vq = vqp.VectorQuantize(dim=8, codebook_size=12, decay=0.9, commitment_weight=0.5,
                            kmeans_init=True, kmeans_iters=2, threshold_ema_dead_code=1)
    params = list(enc.parameters()) + list(dec.parameters()) + list(vq.parameters())
    opt = torch.optim.Adam(params, lr=1e-2)
    for step in range(4):
        opt.zero_grad()
        q, ind, commit = vq(enc(data))
        recon = dec(q)
        loss = torch.nn.functional.mse_loss(recon, data) + commit.sum()
        loss.backward()
        opt.step()
        print(f"  vq_train step {step} loss {loss.item()!r} codes used {ind.unique().numel()}")
    show("vq_train params", torch.cat([p.detach().flatten() for p in params]))
    buffers("vq_train", vq)


# ------------------------------------------------------------------ performer
def attention_lines(label, module, *inputs):
    inputs = [t.clone().requires_grad_() for t in inputs]
    out = module(*inputs)
    show(f"{label} out", out)
    (out * weights_like(out)).sum().backward()
    for i, t in enumerate(inputs):
        show(f"{label} grad input{i}", t.grad)
    show(f"{label} grad params", grads(module))
    module.zero_grad()


@variant("performer_attention")
def _():
    q, k, v = (torch.randn(1, 2, 10, 16) for _ in range(3))
    for label, kwargs in (("softmax", {}), ("causal", {"causal": True}),
                          ("generalized", {"generalized_attention": True}),
                          ("generalized causal", {"generalized_attention": True, "causal": True}),
                          ("no projection", {"no_projection": True}),
                          ("ortho scaling", {"ortho_scaling": 1})):
        with contextlib.redirect_stdout(io.StringIO()):
            attn = performer_pytorch.FastAttention(dim_heads=16, nb_features=24, **kwargs)
        show(f"fast {label} projection", attn.projection_matrix)
        attention_lines(f"fast {label}", attn, q, k, v)
        attn.redraw_projection_matrix(q.device)
        show(f"fast {label} redrawn projection", attn.projection_matrix)
        attention_lines(f"fast {label} redrawn", attn, q, k, v)
    x = torch.randn(2, 10, 32)
    for label, kwargs in (("self", {}), ("self causal", {"causal": True}),
                          ("self local", {"local_heads": 2, "local_window_size": 4})):
        with contextlib.redirect_stdout(io.StringIO()):
            attn = performer_pytorch.SelfAttention(dim=32, heads=4, dim_head=8, nb_features=16,
                                                   **kwargs)
        attention_lines(label, attn, x)
    cross = performer_pytorch.CrossAttention(dim=32, heads=2, nb_features=16)
    context = torch.randn(2, 6, 32).requires_grad_()
    out = cross(x, context=context)
    show("cross out", out)
    (out * weights_like(out)).sum().backward()
    show("cross grad context", context.grad)


@variant("performer_lm")
def _():
    tokens = torch.randint(0, 20, (2, 16))
    configs = (
        ("causal", {"causal": True, "feature_redraw_interval": 2}),
        ("reversible", {"causal": False, "reversible": True, "use_scalenorm": True, "ff_glu": True,
                            "rotary_position_emb": True, "shift_tokens": True}),
        ("rezero generalized", {"causal": False, "use_rezero": True, "generalized_attention": True,
                                    "ff_chunks": 2, "tie_embed": True, "local_attn_heads": 1}),
    )
    for label, kwargs in configs:
        torch.manual_seed(1)
        with contextlib.redirect_stdout(io.StringIO()):
            lm = performer_pytorch.PerformerLM(num_tokens=20, max_seq_len=16, dim=32, depth=2,
                                               heads=4, dim_head=8, nb_features=16, **kwargs)
        print(f"  {label} parameters {sum(p.numel() for p in lm.parameters())}")
        opt = torch.optim.Adam(lm.parameters(), lr=3e-3)
        for step in range(3):
            opt.zero_grad()
            logits = lm(tokens[:, :-1])
            loss = torch.nn.functional.cross_entropy(logits.transpose(1, 2), tokens[:, 1:])
            loss.backward()
            show(f"{label} step{step} grads", grads(lm))
            opt.step()
            print(f"  {label} step {step} loss {loss.item()!r}")
        projections = [b for n, b in lm.named_buffers() if n.endswith("projection_matrix")]
        show(f"{label} projections", torch.cat([p.flatten() for p in projections]))
        lm.eval()
        with torch.no_grad():
            show(f"{label} eval logits", lm(tokens[:, :8]))
            show(f"{label} encodings", lm(tokens[:, :8], return_encodings=True))
        lm.fix_projection_matrices_()
    enc = performer_pytorch.Performer(dim=16, depth=1, heads=2, dim_head=8, causal=False,
                                      nb_features=8)
    attention_lines("performer body", enc, torch.randn(2, 5, 16))


# ------------------------------------------------------------------ pytorch-tabnet
def table(n=96, features=6, seed=0):
    """A seeded synthetic table: continuous features, a categorical column of 4 values and a
    class label (and a regression target) from a fixed rule."""
    g = np.random.default_rng(seed)
    x = g.normal(size=(n, features)).astype(np.float32)
    x[:, 2] = g.integers(0, 4, size=n)
    score = x[:, 0] + 0.5 * x[:, 1] * x[:, 3] - 0.7 * (x[:, 2] == 1)
    y_class = (score > 0).astype(np.int64) + (score > 1).astype(np.int64)
    y_reg = (score + 0.1 * x[:, 4]).astype(np.float32).reshape(-1, 1)
    return x, y_class, y_reg


def tabnet_lines(label, model, x_valid):
    hist = model.history
    for key in sorted(hist.history):
        if key not in ("lr",):
            print(f"  {label} history {key} {[float(v) for v in hist[key]]!r}")
    print(f"  {label} best_epoch {model.best_epoch} best_cost {float(model.best_cost)!r}")
    show(f"{label} feature_importances", model.feature_importances_)
    pred = model.predict(x_valid)
    show(f"{label} predict", pred)
    if hasattr(model, "predict_proba"):
        show(f"{label} predict_proba", model.predict_proba(x_valid))
    explain, masks = model.explain(x_valid)
    show(f"{label} explain", explain)
    for step in sorted(masks):
        show(f"{label} mask{step}", masks[step])
    explain_n, _ = model.explain(x_valid, normalize=True)
    show(f"{label} explain normalized", explain_n)
    show(f"{label} params", torch.cat([p.detach().flatten() for p in model.network.parameters()]))
    return pred


TABNET = {"seed": 0, "verbose": 0, "optimizer_params": {"lr": 2e-2}, "device_name": "cpu"}
CATEGORICAL = {"cat_idxs": [2], "cat_dims": [4], "cat_emb_dim": 2}  # the table's column 2
FIT = {"max_epochs": 2, "patience": 5, "batch_size": 32, "virtual_batch_size": 16,
       "drop_last": False}


def save_load(label, model, cls, x_valid, pred):
    with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()):
        path = model.save_model(os.path.join(tmp, "tabnet"))  # it prints the temporary path
        loaded = cls()
        loaded.load_model(path)
    print(f"  {label} saved {os.path.basename(path)}")
    again = loaded.predict(x_valid)
    print(f"  {label} reloaded predictions equal {bool(np.array_equal(again, pred))}")
    show(f"{label} reloaded predict", again)


@variant("tabnet_classifier")
def _():
    x, y, _ = table()
    xt, yt, xv, yv = x[:64], y[:64], x[64:], y[64:]
    clf = TabNetClassifier(n_d=8, n_a=8, n_steps=3, gamma=1.3, n_independent=1, n_shared=1,
                           **CATEGORICAL, **TABNET)
    clf.fit(xt, yt, eval_set=[(xt, yt), (xv, yv)], eval_name=["train", "valid"],
            eval_metric=["accuracy", "logloss"], **FIT)
    pred = tabnet_lines("classifier", clf, xv)
    save_load("classifier", clf, TabNetClassifier, xv, pred)


@variant("tabnet_regressor")
def _():
    x, _, y = table()
    xt, yt, xv, yv = x[:64], y[:64], x[64:], y[64:]
    reg = TabNetRegressor(n_d=8, n_a=8, n_steps=2, mask_type="entmax", lambda_sparse=1e-3,
                          scheduler_fn=torch.optim.lr_scheduler.StepLR,
                          scheduler_params={"step_size": 1, "gamma": 0.5}, **TABNET)
    reg.fit(xt, yt, eval_set=[(xv, yv)], eval_metric=["mae", "rmse"], **FIT)
    pred = tabnet_lines("regressor", reg, xv)
    save_load("regressor", reg, TabNetRegressor, xv, pred)


@variant("tabnet_pretrainer")
def _():
    x, y, _ = table()
    xt, yt, xv, yv = x[:64], y[:64], x[64:], y[64:]
    pre = TabNetPretrainer(n_d=8, n_a=8, n_steps=2, mask_type="sparsemax", **CATEGORICAL,
                           **TABNET)
    pre.fit(xt, eval_set=[xv], pretraining_ratio=0.5, **FIT)
    for key in sorted(pre.history.history):
        if key != "lr":
            print(f"  pretrainer history {key} {[float(v) for v in pre.history[key]]!r}")
    reconstruction, embedded = pre.predict(xv)
    show("pretrainer reconstruction", reconstruction)
    show("pretrainer embedded", embedded)
    clf = TabNetClassifier(n_d=8, n_a=8, n_steps=2, **CATEGORICAL, **TABNET)
    clf.fit(xt, yt, eval_set=[(xv, yv)], from_unsupervised=pre, **FIT)
    tabnet_lines("from_unsupervised", clf, xv)


def main(argv):
    if os.environ.get("SVQ_FLOAT64"):  # to tell float32 rounding from a bug (not TabNet's
        torch.set_default_dtype(torch.float64)  # fit, which casts its batches to float32)
    names = list(VARIANTS) if argv in ([], ["all"]) else argv
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"unknown variants {unknown}; known: {' '.join(VARIANTS)}")
    for name in names:
        start = time.time()
        torch.manual_seed(0)
        np.random.seed(0)
        print(f"== {name}")
        VARIANTS[name]()
        print(f"[{name}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
