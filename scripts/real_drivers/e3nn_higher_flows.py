"""Driver of e3nn 0.6, higher 0.2.1 and normflows 1.7.3 (docs/real-programs.md): the installed
packages, unchanged, in float64, printing each result at full precision (checksums of tensors:
sum of magnitudes, a weighted sum and the largest magnitude) and gradients.

    python scripts/shared_rng_run.py e3nn_higher_flows.py [VARIANT ... | all]             # torch
    python -m jtorch scripts/shared_rng_run.py e3nn_higher_flows.py [VARIANT ... | all]   # jtorch

- ``e3nn``: Irreps arithmetic, spherical harmonics (normalize, the three normalizations) and
  their equivariance under ``wigner_D``/``D_from_matrix`` of seeded ``rand_matrix``,
  ``soft_one_hot_linspace`` (four bases), ``nn.BatchNorm`` (train/eval), ``FullyConnectedNet``,
  and a tiny equivariant point-cloud network (spherical harmonics of edges weighted by a
  radial MLP of a soft-one-hot embedding, invariant readout) with Adam steps and an
  equivariance test of its output.
- ``e3nn_tp``: ``o3.Linear``, ``FullyConnectedTensorProduct``, ``ElementwiseTensorProduct``,
  ``TensorSquare``, ``o3.Norm``, ``nn.Gate``, forward values (e3nn generates their code as
  ``torch.fx`` graphs, ``fx.Graph``, ``fx.Proxy``, ``fx.GraphModule``, and optimizes the einsums
  with opt_einsum_fx, whatever its optimization defaults).
- ``e3nn_layers``: values and gradients (weights and inputs, of a fixed weighted sum of the
  output) of ``o3.TensorProduct`` (uvw; uuu/uvu/uvv/uuw with norm/path normalization),
  ``FullyConnectedTensorProduct`` (internal and per-sample external weights, ``right``),
  ``ElementwiseTensorProduct``, ``TensorSquare`` (three settings), ``o3.Linear`` (biases,
  external weights, explicit instructions), ``spherical_harmonics`` (l <= 2, l <= 4),
  ``nn.Gate``, ``nn.FullyConnectedNet``, ``nn.BatchNorm`` (instance, norm/max, no affine), an
  equivariant message-passing block (edge harmonics, per-edge weights from a radial MLP, gate,
  linear) with its rotation equivariance, ``e3nn.util.jit.get_compile_mode`` and Irreps
  utilities.
- ``e3nn_script``: e3nn's default ``jit_mode="script"`` (the other variants run "eager"):
  scripted tensor products and Linear layers, their gradients, state_dict keys, deepcopy and
  ``torch.save``/``load``.
- ``higher``: ``innerloop_ctx`` with SGD and Adam, MAML second-order meta-gradients on tiny
  sine regression tasks, ``copy_initial_weights`` both ways, ``track_higher_grads=False``,
  ``higher.patch.monkeypatch``.
- ``flows``: normflows RealNVP, neural spline flows (coupled and autoregressive), Glow, and a
  residual flow: ``log_prob``, seeded ``sample``, ``forward_kld``/``reverse_kld``, Adam steps,
  ``save``/``load``.

Each variant reseeds (``torch.manual_seed``), so a subset prints what the full run prints.
"""

import copy
import io
import os
import sys
import tempfile
import time

import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import e3nn  # noqa: E402
import higher  # noqa: E402
import normflows as nf  # noqa: E402
import numpy as np  # noqa: E402
from e3nn import nn as enn, o3  # noqa: E402
from e3nn.math import soft_one_hot_linspace  # noqa: E402
from e3nn.util.jit import compile as e3nn_compile, get_compile_mode  # noqa: E402

torch.set_default_dtype(torch.float64)
VARIANTS = {}


def variant(name):
    def register(build):
        VARIANTS[name] = build
        return build
    return register


def checksum(t):
    t = t.detach().double().flatten()
    w = 1.0 + (torch.arange(t.numel(), dtype=torch.float64) % 7) / 6
    return (f"abssum {t.abs().sum().item()!r} wsum {(t * w).sum().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def show(label, value):
    if isinstance(value, torch.Tensor):
        print(f"{label} {tuple(value.shape)} {checksum(value)}")
    else:
        print(f"{label} {value!r}")


def grads(label, params):
    for i, p in enumerate(params):
        show(f"{label} grad {i}", p.grad if p.grad is not None else "None")


# ------------------------------------------------------------------------------------ e3nn
@variant("e3nn")
def _():
    irreps = o3.Irreps("2x0e + 1x1o + 3x2e")
    show("irreps", str(irreps))
    show("dim lmax num_irreps", (irreps.dim, irreps.lmax, irreps.num_irreps))
    show("simplify", str((irreps + o3.Irreps("1o + 0e")).simplify()))
    show("sort", str(o3.Irreps("1o + 0e + 2e + 0e").sort().irreps))
    show("mul", str(2 * o3.Irreps("1e")))
    show("irrep product", [str(ir) for ir in o3.Irrep("1o") * o3.Irrep("2e")])
    show("spherical_harmonics irreps", str(o3.Irreps.spherical_harmonics(3)))
    show("slices", [(s.start, s.stop) for s in irreps.slices()])
    torch.manual_seed(0)
    x = torch.randn(7, 3)
    R = o3.rand_matrix()
    show("rand_matrix", R)
    show("det R", torch.det(R))
    angles = o3.matrix_to_angles(R)
    show("angles", torch.stack(angles))
    show("angles_to_matrix", o3.angles_to_matrix(*angles) - R)
    for l in range(4):
        show(f"wigner_D {l}", o3.wigner_D(l, *angles))
    show("wigner_3j 1 1 2", o3.wigner_3j(1, 1, 2))
    show("D_from_matrix", irreps.D_from_matrix(R))
    sh_irreps = o3.Irreps.spherical_harmonics(3)
    D = sh_irreps.D_from_matrix(R)
    for norm in ("integral", "component", "norm"):
        for normalize in (True, False):
            xr = x.clone().requires_grad_(True)
            y = o3.spherical_harmonics(sh_irreps, xr, normalize=normalize, normalization=norm)
            show(f"sh {norm} {normalize}", y)
            y.pow(2).sum().backward()
            show(f"sh {norm} {normalize} grad", xr.grad)
            y_rot = o3.spherical_harmonics(sh_irreps, x @ R.T, normalize, norm)
            show(f"sh {norm} {normalize} equivariance err below 1e-12",
                 bool((y_rot - y.detach() @ D.T).abs().max() < 1e-12))
    show("SphericalHarmonics module", o3.SphericalHarmonics("1o + 2e", True, "norm")(x))
    r = torch.linspace(0.0, 1.0, 9)
    for basis in ("gaussian", "cosine", "smooth_finite", "fourier", "bessel"):
        for cutoff in (True, False):
            show(f"soft_one_hot {basis} {cutoff}", soft_one_hot_linspace(r, 0.0, 1.0, 5, basis,
                                                                         cutoff))
    bn = enn.BatchNorm("2x0e + 1x1o + 1x2e", momentum=0.3)
    feats = torch.randn(6, o3.Irreps("2x0e + 1x1o + 1x2e").dim)
    for i in range(2):
        show(f"batchnorm train {i}", bn(feats + i))
    show("batchnorm running_mean", bn.running_mean)
    show("batchnorm running_var", bn.running_var)
    bn.eval()
    show("batchnorm eval", bn(feats))
    fc = enn.FullyConnectedNet([3, 8, 2], torch.nn.functional.silu)
    show("fcnet", fc(x))

    # a tiny equivariant point-cloud network: edge spherical harmonics weighted per l by a
    # radial MLP, summed over neighbours; invariant readout from the per-l norms
    class PointNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.sh = o3.Irreps.spherical_harmonics(2)
            self.radial = enn.FullyConnectedNet([6, 16, 3], torch.nn.functional.silu)
            self.head = enn.FullyConnectedNet([3, 8, 1], torch.tanh)

        def forward(self, pos):
            vec = pos[:, None, :] - pos[None, :, :]
            n = pos.shape[0]
            mask = ~torch.eye(n, dtype=torch.bool)
            vec = vec[mask]                                       # [E, 3]
            length = vec.norm(dim=1)
            emb = soft_one_hot_linspace(length, 0.0, 3.0, 6, "smooth_finite", True)
            w = self.radial(emb.mul(6 ** 0.5))                     # [E, 3] one per l
            y = o3.spherical_harmonics(self.sh, vec, True, "component")  # [E, 9]
            per_l = torch.cat([w[:, l:l + 1].expand(-1, 2 * l + 1) for l in range(3)], dim=1)
            node = (y * per_l).reshape(n, n - 1, 9).sum(1)         # [N, 9]
            norms = torch.stack([node[:, l * l:(l + 1) ** 2].norm(dim=1) for l in range(3)], 1)
            return self.head(norms).sum()

    torch.manual_seed(1)
    net = PointNet()
    pos = torch.randn(5, 3)
    opt = torch.optim.Adam(net.parameters(), lr=0.01)
    for step in range(3):
        opt.zero_grad()
        loss = (net(pos) - 1.0) ** 2
        loss.backward()
        show(f"pointnet step {step} loss", loss)
        grads(f"pointnet step {step}", list(net.parameters())[:2])
        opt.step()
    out = net(pos)
    out_rot = net(pos @ R.T + torch.tensor([0.3, -0.2, 0.5]))
    show("pointnet output", out)
    show("pointnet invariance err below 1e-10", bool((out - out_rot).abs() < 1e-10))
    from e3nn.util.test import assert_equivariant
    sh_mod = o3.SphericalHarmonics("1o + 2e", True, "norm")
    errs = assert_equivariant(sh_mod, irreps_in=["1o"],
                              irreps_out=[sh_mod.irreps_out])
    show("assert_equivariant max err below 1e-9",
         all(float(v) < 1e-9 for v in errs.values()))


@variant("e3nn_tp")
def _():
    torch.manual_seed(2)
    a, b = o3.Irreps("2x0e + 1x1o"), o3.Irreps("1x0e + 1x1o")
    x1, x2 = torch.randn(4, a.dim), torch.randn(4, b.dim)
    builds = {
        "Linear": lambda: o3.Linear(a, "3x1o + 1x0e")(x1),
        "FullyConnectedTensorProduct": lambda: o3.FullyConnectedTensorProduct(a, b, "0e + 1o")(
            x1, x2),
        "ElementwiseTensorProduct": lambda: o3.ElementwiseTensorProduct(
            "1x0e + 1x1o", "1x1o + 1x0e")(x2, x2),
        "TensorSquare": lambda: o3.TensorSquare("1o")(x2[:, 1:]),
        "Norm": lambda: o3.Norm(a)(x1),
        "Gate": lambda: enn.Gate("1x0e", [torch.relu], "1x0e", [torch.sigmoid], "1x1o")(
            torch.randn(4, 5)),
    }
    for name, build in builds.items():
        show(name, build())


def layer_grads(label, module, out, *inputs):
    """The output's checksum, and the gradients of a fixed weighted sum of it with respect to
    the module's parameters and ``inputs``."""
    show(label, out)
    w = torch.cos(torch.arange(out.numel(), dtype=out.dtype)).reshape(out.shape)
    params = [p for p in module.parameters() if p.requires_grad]
    gs = torch.autograd.grad((out * w).sum(), [*params, *inputs], allow_unused=True)
    for i, g in enumerate(gs):
        show(f"{label} grad {'param' if i < len(params) else 'input'} {i}",
             g if g is not None else "None")


@variant("e3nn_script")
def _():
    """e3nn's default jit_mode, "script": its generated modules are ``torch.jit.script``-ed
    (TorchScript in PyTorch, jtorch.compile's scripted modules in jtorch), deep-copied and
    saved as e3nn does (its CodeGenMixin pickles or ``jit.save``s them)."""
    e3nn.set_optimization_defaults(jit_mode="script")
    try:
        torch.manual_seed(13)
        a, b = o3.Irreps("2x0e + 1x1o"), o3.Irreps("1x0e + 1x1o")
        x1 = torch.randn(4, a.dim, requires_grad=True)
        x2 = torch.randn(4, b.dim, requires_grad=True)
        tp = o3.FullyConnectedTensorProduct(a, b, "2x0e + 1x1o + 1x1e")
        show("script submodules are ScriptModules",
             [isinstance(getattr(tp, n), torch.jit.ScriptModule) for n in tp.__codegen__])
        layer_grads("scripted FullyConnectedTensorProduct", tp, tp(x1, x2), x1, x2)
        lin = o3.Linear(a, "1x0e + 2x1o")
        layer_grads("scripted Linear", lin, lin(x1), x1)
        show("scripted state_dict keys", sorted(tp.state_dict()) + sorted(lin.state_dict()))
        tp2 = copy.deepcopy(tp)
        show("deepcopy of a scripted TensorProduct", tp2(x1, x2))
        buf = io.BytesIO()
        torch.save(lin, buf)
        buf.seek(0)
        show("torch.save/load of a scripted Linear", torch.load(buf, weights_only=False)(x1))
    finally:
        e3nn.set_optimization_defaults(jit_mode="eager")


@variant("e3nn_layers")
def _():
    torch.manual_seed(12)
    a, b = o3.Irreps("2x0e + 1x1o + 1x2e"), o3.Irreps("1x0e + 2x1o")
    x1 = torch.randn(5, a.dim, requires_grad=True)
    x2 = torch.randn(5, b.dim, requires_grad=True)
    instr = [(0, 0, 0, "uvw", True), (1, 1, 0, "uvw", True), (0, 1, 1, "uvw", True),
             (2, 1, 1, "uvw", True), (2, 0, 2, "uvw", True)]
    tp = o3.TensorProduct(a, b, "3x0e + 2x1o + 1x2e", instr)
    layer_grads("TensorProduct uvw", tp, tp(x1, x2), x1, x2)
    tp = o3.TensorProduct("2x0e + 2x1o", "2x0e + 2x1o", "2x0e + 2x1o + 2x1e",
                          [(0, 0, 0, "uuu", True), (1, 1, 0, "uvu", True),
                           (1, 1, 2, "uvv", True), (0, 1, 1, "uuw", True)],
                          irrep_normalization="norm", path_normalization="path")
    y1 = torch.randn(5, 8, requires_grad=True)
    y2 = torch.randn(5, 8, requires_grad=True)
    layer_grads("TensorProduct uuu/uvu/uvv/uuw", tp, tp(y1, y2), y1, y2)
    tp = o3.FullyConnectedTensorProduct(a, b, "2x0e + 1x1o + 1x1e + 1x2e",
                                        shared_weights=False, internal_weights=False,
                                        compile_right=True)
    w = torch.randn(5, tp.weight_numel, requires_grad=True)
    layer_grads("FullyConnectedTensorProduct external weights", tp, tp(x1, x2, w), x1, x2, w)
    show("FullyConnectedTensorProduct right", tp.right(x2, w))
    tp = o3.FullyConnectedTensorProduct(a, b, "2x0e + 1x1o + 1x2e")
    layer_grads("FullyConnectedTensorProduct", tp, tp(x1, x2), x1, x2)
    tp = o3.ElementwiseTensorProduct("2x0e + 2x1o", "2x1o + 2x0e", ["1e", "1o"])
    layer_grads("ElementwiseTensorProduct", tp, tp(y1, y2), y1, y2)
    for kw in ({}, {"irreps_out": "2x0e + 1x2e"}, {"irreps_out": "1x0e + 1x1e",
                                                   "irrep_normalization": "norm"}):
        sq = o3.TensorSquare("2x0e + 1x1o", **kw)
        z = torch.randn(5, 5, requires_grad=True)
        layer_grads(f"TensorSquare {kw}", sq, sq(z), z)
    lin = o3.Linear(a, "3x0e + 2x1o + 1x2e", biases=True)
    layer_grads("Linear biases", lin, lin(x1), x1)
    lin = o3.Linear(a, "1x0e + 1x1o", shared_weights=False, internal_weights=False)
    w = torch.randn(5, lin.weight_numel, requires_grad=True)
    layer_grads("Linear external weights", lin, lin(x1, w), x1, w)
    lin = o3.Linear(a, "2x1o + 1x0e", instructions=[(1, 0), (0, 1)], path_normalization="element")
    layer_grads("Linear instructions", lin, lin(x1), x1)
    pos = torch.randn(6, 3, requires_grad=True)
    for lmax, norm in ((2, "component"), (4, "integral")):
        sh = o3.spherical_harmonics(list(range(lmax + 1)), pos, True, norm)
        layer_grads(f"spherical_harmonics {lmax} {norm}", torch.nn.Module(), sh, pos)
    gate = enn.Gate("2x0e", [torch.tanh], "1x0e + 1x0o", [torch.sigmoid, torch.tanh],
                    "1x1o + 1x1e")
    g_in = torch.randn(5, gate.irreps_in.dim, requires_grad=True)
    layer_grads("Gate", gate, gate(g_in), g_in)
    show("Gate irreps", (str(gate.irreps_in), str(gate.irreps_out)))
    fc = enn.FullyConnectedNet([4, 16, 16, 3], torch.nn.functional.silu, variance_in=2.0)
    f_in = torch.randn(5, 4, requires_grad=True)
    layer_grads("FullyConnectedNet", fc, fc(f_in), f_in)
    for kw in ({"instance": True}, {"normalization": "norm", "reduce": "max"}, {"affine": False}):
        bn = enn.BatchNorm(a, **kw)
        b_in = torch.randn(5, a.dim, requires_grad=True)
        layer_grads(f"BatchNorm {kw}", bn, bn(b_in), b_in)
    # an equivariant block: sh of edges, a tensor product weighted per edge by a radial MLP,
    # gate, linear; its gradients and rotation equivariance
    torch.manual_seed(13)
    irreps_sh = o3.Irreps.spherical_harmonics(2)
    gate = enn.Gate("4x0e", [torch.nn.functional.silu], "2x0e", [torch.sigmoid], "2x1o")
    tp = o3.FullyConnectedTensorProduct("3x0e", irreps_sh, gate.irreps_in,
                                        shared_weights=False)
    radial = enn.FullyConnectedNet([4, 16, tp.weight_numel], torch.nn.functional.silu)
    lin = o3.Linear(gate.irreps_out, "1x0e + 1x1o")

    def block(p, feats):
        vec = p[:, None] - p[None]
        mask = ~torch.eye(p.shape[0], dtype=torch.bool)
        vec = vec[mask]
        src = torch.arange(p.shape[0])[:, None].expand(-1, p.shape[0])[mask]
        e = soft_one_hot_linspace(vec.norm(dim=1), 0.0, 3.0, 4, "smooth_finite", True)
        msg = tp(feats[src], o3.spherical_harmonics(irreps_sh, vec, True), radial(e))
        return lin(gate(msg.reshape(p.shape[0], p.shape[0] - 1, -1).mean(1)))

    p = torch.randn(4, 3, requires_grad=True)
    feats = torch.randn(4, 3)
    out = block(p, feats)
    modules = torch.nn.ModuleList([tp, radial, lin])
    layer_grads("block", modules, out, p)
    R = o3.rand_matrix()
    D = lin.irreps_out.D_from_matrix(R)
    err = (block(p.detach() @ R.T, feats) - out.detach() @ D.T).abs().max()
    show("block equivariance err below 1e-12", bool(err < 1e-12))
    show("compile_mode Linear", (get_compile_mode(lin), get_compile_mode(lin._compiled_main)))
    # e3nn.util.jit.compile: torch.jit.script of each submodule marked "script" (in jtorch a
    # whole-program compile)
    lin = o3.Linear(a, "2x0e + 1x1o")
    eager = lin(x1)
    compiled = e3nn_compile(lin)
    show("jit.compile Linear", compiled(x1))
    show("jit.compile Linear err", (compiled(x1) - eager).abs().max())
    # deepcopy and torch.save pickle the generated GraphModules (e3nn's CodeGenMixin)
    sq = o3.TensorSquare("2x0e + 1x1o", "1x0e + 1x1e")
    z = torch.randn(3, 5)
    buf = io.BytesIO()
    torch.save(sq, buf)
    buf.seek(0)
    for how, clone in (("deepcopy", copy.deepcopy(sq)), ("save/load", torch.load(
            buf, weights_only=False))):
        show(f"TensorSquare {how}", clone(z))
        show(f"TensorSquare {how} err", (clone(z) - sq(z)).abs().max())
    show("irreps utilities", (str(a.simplify()), a.count("1o"), a.num_irreps,
                              str(a.filter(keep=["0e", "2e"])), str(o3.Irreps("1o + 0e").sort())))


# ---------------------------------------------------------------------------------- higher
def sine_task(seed, n=10):
    g = torch.Generator().manual_seed(seed)
    amp = 0.5 + torch.rand(1, generator=g) * 2
    phase = torch.rand(1, generator=g) * 3
    x = torch.rand(n, 1, generator=g) * 6 - 3
    return x, amp * torch.sin(x + phase)


def small_net():
    return torch.nn.Sequential(torch.nn.Linear(1, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))


@variant("higher")
def _():
    torch.manual_seed(3)
    model = small_net()
    meta_opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    mse = torch.nn.functional.mse_loss
    for inner_name, inner_cls, kw in (("sgd", torch.optim.SGD, {"lr": 0.1, "momentum": 0.5}),
                                      ("adam", torch.optim.Adam, {"lr": 0.05})):
        inner_opt = inner_cls(model.parameters(), **kw)
        for it in range(2):
            meta_opt.zero_grad()
            total = 0.0
            for task in range(2):
                xs, ys = sine_task(10 * it + task)
                xq, yq = sine_task(100 + 10 * it + task)
                with higher.innerloop_ctx(model, inner_opt, copy_initial_weights=False) as (
                        fmodel, diffopt):
                    for _ in range(3):
                        diffopt.step(mse(fmodel(xs), ys))
                    q = mse(fmodel(xq), yq)
                    q.backward()
                    total += q.item()
            show(f"maml {inner_name} iter {it} query loss", total)
            grads(f"maml {inner_name} iter {it}", model.parameters())
            meta_opt.step()
    show("meta params", torch.cat([p.flatten() for p in model.parameters()]))

    # copy_initial_weights=True: the meta-gradient lands on fmodel.parameters(time=0)
    xs, ys = sine_task(7)
    inner_opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model.zero_grad()
    with higher.innerloop_ctx(model, inner_opt, copy_initial_weights=True) as (fmodel, diffopt):
        for _ in range(2):
            diffopt.step(mse(fmodel(xs), ys))
        loss = mse(fmodel(xs), ys)
        init = list(fmodel.parameters(time=0))
        g = torch.autograd.grad(loss, init)
        show("copy_initial_weights loss", loss)
        for i, gi in enumerate(g):
            show(f"copy_initial_weights grad time0 {i}", gi)
        show("model grads stay None", [p.grad is None for p in model.parameters()])

    # first-order: track_higher_grads=False
    with higher.innerloop_ctx(model, inner_opt, track_higher_grads=False) as (fmodel, diffopt):
        for step in range(3):
            loss = mse(fmodel(xs), ys)
            diffopt.step(loss)
            show(f"no-track step {step} loss", loss)
        show("no-track fast weights", torch.cat([p.flatten() for p in fmodel.parameters()]))

    # functional module with explicit params
    fmod = higher.patch.monkeypatch(model, copy_initial_weights=True)
    params = [p.detach().clone().requires_grad_(True) for p in model.parameters()]
    out = fmod(xs, params=params)
    l2 = mse(out, ys)
    gp = torch.autograd.grad(l2, params, create_graph=True)
    new = [p - 0.1 * gi for p, gi in zip(params, gp)]
    l3 = mse(fmod(xs, params=new), ys)
    hg = torch.autograd.grad(l3, params)
    show("monkeypatch loss", l2)
    show("monkeypatch second-order loss", l3)
    for i, h in enumerate(hg):
        show(f"monkeypatch meta grad {i}", h)


# -------------------------------------------------------------------------------- normflows
def two_moons(n):
    t = torch.rand(n) * 3.14159
    up = torch.rand(n) < 0.5
    x = torch.where(up, torch.cos(t), 1 - torch.cos(t))
    y = torch.where(up, torch.sin(t), 0.5 - torch.sin(t))
    return torch.stack([x, y], 1) + 0.05 * torch.randn(n, 2)


def flow_run(name, model, data, reverse=True, steps=3):
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(steps):
        opt.zero_grad()
        loss = model.forward_kld(data)
        if reverse:
            loss = loss + 0.1 * model.reverse_kld(16)
        loss.backward()
        show(f"{name} step {step} loss", loss)
        show(f"{name} step {step} grad", torch.cat([p.grad.flatten() for p in model.parameters()
                                                    if p.grad is not None]))
        opt.step()
    model.eval()
    show(f"{name} log_prob", model.log_prob(data[:8]))
    torch.manual_seed(11)
    z, logq = model.sample(8)
    show(f"{name} sample", z)
    show(f"{name} sample log_q", logq)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "flow.pt")
        model.save(path)
        before = model.log_prob(data[:8])
        for p in model.parameters():
            p.data.add_(0.1)
        model.load(path)
        show(f"{name} load roundtrip err", (model.log_prob(data[:8]) - before).abs().max())


@variant("flows")
def _():
    torch.manual_seed(4)
    data = two_moons(64)
    target = nf.distributions.TwoMoons()
    show("TwoMoons log_prob", target.log_prob(data[:8]))

    flows = []
    for _ in range(4):
        flows += [nf.flows.AffineCouplingBlock(nf.nets.MLP([1, 16, 2], init_zeros=True)),
                  nf.flows.Permute(2, mode="swap")]
    flows.append(nf.flows.ActNorm(2))
    flow_run("realnvp", nf.NormalizingFlow(nf.distributions.DiagGaussian(2), flows, target),
             data)

    torch.manual_seed(5)
    flows = []
    for _ in range(2):
        flows += [nf.flows.CoupledRationalQuadraticSpline(2, 1, 16),
                  nf.flows.LULinearPermute(2)]
    flow_run("nsf coupled", nf.NormalizingFlow(nf.distributions.DiagGaussian(2), flows, target),
             data)
    torch.manual_seed(6)
    flows = [nf.flows.AutoregressiveRationalQuadraticSpline(2, 1, 16),
             nf.flows.Permute(2, mode="swap"),
             nf.flows.AutoregressiveRationalQuadraticSpline(2, 1, 16)]
    # its default means come from NumPy's global (unseeded) generator: pass them
    base = nf.distributions.GaussianMixture(3, 2, loc=torch.randn(3, 2).tolist(), trainable=True)
    flow_run("nsf autoregressive", nf.NormalizingFlow(base, flows, target), data)

    torch.manual_seed(7)
    np.random.seed(7)   # the residual flow draws its series lengths from NumPy's generator
    lipschitz = nf.nets.LipschitzMLP([2, 16, 2], init_zeros=False, lipschitz_const=0.9)
    flows = [nf.flows.Residual(lipschitz, n_exact_terms=2, n_samples=1, reduce_memory=True),
             nf.flows.ActNorm(2)]
    flow_run("residual", nf.NormalizingFlow(nf.distributions.DiagGaussian(2), flows, target),
             data, reverse=False, steps=2)

    # Glow on 2x4x4 "images"
    torch.manual_seed(8)
    shape = (2, 4, 4)
    flows = [nf.flows.GlowBlock(2, 8, split_mode="channel", scale=True, use_lu=True),
             nf.flows.GlowBlock(2, 8, split_mode="checkerboard", scale=True, use_lu=False)]
    glow = nf.NormalizingFlow(nf.distributions.DiagGaussian(shape), flows)
    imgs = torch.randn(6, *shape) * 0.5
    flow_run("glow", glow, imgs, reverse=False, steps=2)
    buf = io.BytesIO()
    torch.save(glow.state_dict(), buf)
    show("glow state_dict keys", len(glow.state_dict()))


def main(argv):
    names = list(VARIANTS) if argv in ([], ["all"]) else argv
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"unknown variants {unknown}; known: {' '.join(VARIANTS)}")
    e3nn.set_optimization_defaults(jit_mode="eager")
    for name in names:
        start = time.time()
        print(f"== {name}")
        VARIANTS[name]()
        print(f"[{name}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
