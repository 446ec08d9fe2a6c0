"""Driver of e2cnn (docs/real-programs.md): the installed package (e2cnn 0.2.3), unchanged, used
as someone building rotation- and reflection-equivariant CNNs uses it: the gspaces
(``Rot2dOnR2`` with N=4 and 8, ``FlipRot2dOnR2``, continuous SO(2) with irreps), ``FieldType``
and ``GeometricTensor`` (transform, directsum, split, restrict), ``R2Conv`` (its steerable
basis expansion and the filters it generates, bias expansion, gradients through the basis),
``R2ConvTransposed``, the equivariant nonlinearities (``ReLU``, ``ELU``, ``NormNonLinearity``,
``GatedNonLinearity1/2``, ``PointwiseNonLinearity``), pointwise and norm pooling,
``GroupPooling``, ``NormPool``, ``InnerBatchNorm``/``NormBatchNorm``/``GNormBatchNorm``,
``R2Upsampling``, dropout, ``SequentialModule``, ``export()`` to plain torch modules, the
modules' ``check_equivariance``, a small C8-equivariant classifier trained a few steps with
Adam, and its state_dict through ``torch.save``/``torch.load``.

Each tensor is printed as a checksum (sum of magnitudes, weighted sum, largest magnitude) at
full precision; a difference that is zero up to rounding (equivariance errors, export round
trips) is printed as whether it is within a tolerance.

    python scripts/shared_rng_run.py drive_e2cnn.py [VARIANT ...]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_e2cnn.py [VARIANT ...]   # jtorch

Without arguments it runs every variant but ``compile`` (``all`` adds it); each reseeds, so a
subset prints what the full run prints for it. Variants ending in ``64`` run in float64.
"""

import contextlib
import io
import os
import sys
import tempfile
import warnings

import numpy as np
import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
warnings.filterwarnings("ignore")

from e2cnn import gspaces, nn as enn  # noqa: E402
from e2cnn.kernels import irreps_basis, utils as kernel_utils  # noqa: E402
from e2cnn.nn.modules.r2_conv import basisexpansion_singleblock  # noqa: E402


def _hash_with_tobytes(gamma_array):
    """e2cnn 0.2.3's reflection bases hash ``mu.tostring()``, which NumPy 2 removed (an
    AttributeError in both frameworks on every FlipRot2dOnR2 R2Conv): the same hash through
    ``tobytes()``, set on the library's classes as a user on NumPy 2 would."""
    def __hash__(self):
        gamma = self.gamma.tobytes() if gamma_array else self.gamma
        return hash(self.in_irrep) + hash(self.out_irrep) + hash(self.mu.tobytes()) + hash(gamma)
    return __hash__


for _cls, _gamma_array in ((irreps_basis.R2FlipsSolution, False),
                           (irreps_basis.R2FlipsDiscreteRotationsSolution, False),
                           (irreps_basis.R2FlipsContinuousRotationsSolution, False),
                           (irreps_basis.R2ContinuousRotationsSolution, True)):
    _cls.__hash__ = _hash_with_tobytes(_gamma_array)


class _NumPy1Copy:
    """e2cnn.kernels.utils calls ``np.array(x, copy=False)``, which NumPy 2 turns into an error
    where a copy is needed (a scalar; the reflection bases' ``psichi``): NumPy 1's meaning,
    ``np.asarray``, for that module's ``np``."""

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def array(obj, *args, copy=True, **kwargs):
        if copy is False:
            return np.asarray(obj, *args, **kwargs)
        return np.array(obj, *args, copy=copy, **kwargs)


kernel_utils.np = _NumPy1Copy()

VARIANTS = {}
DEFAULT = []


def variant(name, default=True):
    def register(build):
        VARIANTS[name] = build
        if default:
            DEFAULT.append(name)
        return build
    return register


def checksum(a):
    """The sum of the magnitudes, a weighted sum (weights 1 to 2 in a period of 7 elements) and
    the largest magnitude, in float64."""
    if isinstance(a, torch.Tensor):
        a = a.detach().double().numpy()
    a = np.asarray(a, dtype=np.float64).ravel()
    w = 1.0 + (np.arange(a.size) % 7) / 6
    return (f"abssum {float(np.abs(a).sum())!r} wsum {float((a * w).sum())!r} "
            f"absmax {float(np.abs(a).max()) if a.size else 0.0!r}")


def show(name, t):
    if isinstance(t, enn.GeometricTensor):
        t = t.tensor
    if isinstance(t, (torch.Tensor, np.ndarray)):
        print(f"{name} shape {tuple(t.shape)} dtype {t.dtype} {checksum(t)}")
    else:
        print(f"{name} {t!r}")


def show_small(name, t, tol):
    """A difference that is zero up to rounding: whether its largest magnitude is within
    ``tol`` (its rounding-level value differs between any two implementations)."""
    if isinstance(t, enn.GeometricTensor):
        t = t.tensor
    if isinstance(t, torch.Tensor):
        t = t.detach().double().numpy()
    print(f"{name} within {tol:g}: {bool(float(np.abs(np.asarray(t)).max()) <= tol)}")


def check(name, module, tol, base=False):
    """The module's own ``check_equivariance`` (it prints rounding-level errors, so its output
    is swallowed): the tested group elements and whether every mean error is within ``tol``."""
    with contextlib.redirect_stdout(io.StringIO()):
        errors = (enn.EquivariantModule.check_equivariance(module, atol=1e-5) if base
                  else module.check_equivariance())
    els = [str(e) for e, _ in errors]
    ok = all(float(err) <= tol for _, err in errors)
    print(f"{name} check_equivariance elements {els} mean errors within {tol:g}: {ok}")


def grads(name, module):
    # sorted: GNormBatchNorm registers its parameters in the order of a set of
    # representations, which changes with the string hash seed
    for pname, p in sorted(module.named_parameters()):
        if p.grad is not None:
            show(f"{name} grad {pname}", p.grad)


def rot90(gspace):
    """The group element of a 90-degree rotation (exact on the pixel grid)."""
    order = gspace.fibergroup.order()
    if order > 0:
        if gspace.fibergroup.name.startswith("D"):
            return (0, order // 8)
        return order // 4
    return np.pi / 2


def rotate90(t, gspace_type):
    """The 90-degree rotation of a GeometricTensor in its own dtype (``GeometricTensor.transform``
    goes through NumPy and returns float32): the fibers by the representation, the grid by
    ``torch.rot90`` (what e2cnn's ``rotate_array`` does with ``np.rot90`` at multiples of 90)."""
    g = rot90(gspace_type.gspace)
    rho = torch.tensor(gspace_type.representation(g), dtype=t.dtype)
    return torch.rot90(torch.einsum("oi,bihw->bohw", rho, t), 1, dims=(-2, -1))


def equivariance_90(name, module, x, tol):
    """module(g x) against g module(x) for the 90-degree rotation g."""
    with torch.no_grad():
        xg = enn.GeometricTensor(rotate90(x.tensor, x.type), x.type)
        y = module(x)
        a = module(xg).tensor
        b = rotate90(y.tensor, y.type)
    show_small(f"{name} rot90 equivariance", a - b, tol)


def gtensor(ftype, batch=2, size=11, dtype=torch.float32):
    return enn.GeometricTensor(torch.randn(batch, ftype.size, size, size, dtype=dtype), ftype)


@variant("gspaces")
def run_gspaces():
    """The gspaces, their fiber groups, irreps and regular representations, FieldTypes and
    GeometricTensor's operations (transform, directsum, split, restrict, arithmetic)."""
    torch.manual_seed(0)
    spaces = {"C4": gspaces.Rot2dOnR2(N=4), "C8": gspaces.Rot2dOnR2(N=8),
              "D4": gspaces.FlipRot2dOnR2(N=4),
              "SO2": gspaces.Rot2dOnR2(N=-1, maximum_frequency=3)}
    for name, gs in spaces.items():
        G = gs.fibergroup
        print(f"{name} group {G.name} order {G.order()} irreps {sorted(G.irreps)}")
        if G.order() > 0:
            reg = G.regular_representation
            show(f"{name} regular rep at {G.elements[1]!r}", reg(G.elements[1]))
            print(f"{name} regular rep irreps {reg.irreps}")
    gs = spaces["C8"]
    ft = enn.FieldType(gs, [gs.trivial_repr] * 2 + [gs.irrep(1), gs.irrep(2)] + [gs.regular_repr])
    print(f"C8 field type size {ft.size} fields {len(ft)} "
          f"representations {[r.name for r in ft.representations]}")
    x = gtensor(ft)
    show("C8 gtensor", x)
    for g in (1, 2, 3):
        show(f"C8 gtensor transform {g}", x.transform(g))
        show(f"C8 gtensor transform_fibers {g}", x.transform_fibers(g))
    parts = x.split([2, 3])
    for i, p in enumerate(parts):
        print(f"C8 split {i} type size {p.type.size}")
        show(f"C8 split {i}", p)
    y = enn.tensor_directsum([parts[1], parts[0]])
    show("C8 directsum", y)
    show("C8 sum", x + x * 0.5 - x * 0.25)
    r = x.restrict(2)
    print(f"C8 restrict to {r.type.gspace.fibergroup.name} type size {r.type.size}")
    show("C8 restrict", r)
    show("C8 restrict transform 1", r.transform(1))
    sorted_type = ft.sorted()
    print(f"C8 sorted reps {[rr.name for rr in sorted_type.representations]}")
    so2 = spaces["SO2"]
    ft2 = enn.FieldType(so2, [so2.irrep(k) for k in range(4)])
    x2 = gtensor(ft2)
    for ang in (np.pi / 2, np.pi):
        show(f"SO2 transform {ang:.4f}", x2.transform(ang))
    show("SO2 transform_fibers 0.3", x2.transform_fibers(0.3))
    d4 = spaces["D4"]
    ft3 = enn.FieldType(d4, [d4.regular_repr, d4.irrep(1, 1), d4.trivial_repr])
    x3 = gtensor(ft3)
    for el in ((0, 1), (1, 0), (1, 3)):
        show(f"D4 transform {el}", x3.transform(el))


def conv_case(name, gs, in_reps, out_reps, dtype, size=13, **kw):
    in_type = enn.FieldType(gs, in_reps)
    out_type = enn.FieldType(gs, out_reps)
    conv = enn.R2Conv(in_type, out_type, **kw).to(dtype)
    print(f"{name} basis dimension {conv.basisexpansion.dimension()} weights "
          f"{tuple(conv.weights.shape)}")
    show(f"{name} weights", conv.weights)
    filt, bias = conv.expand_parameters()
    show(f"{name} filter", filt)
    if bias is not None:
        show(f"{name} bias", bias)
    x = gtensor(in_type, size=size, dtype=dtype)
    x.tensor.requires_grad_(True)
    conv.train()
    y = conv(x)
    show(f"{name} out", y)
    loss = (y.tensor ** 2).mean() + y.tensor.sum() * 0.01
    loss.backward()
    print(f"{name} loss {loss.item()!r}")
    show(f"{name} grad weights", conv.weights.grad)
    if conv.bias is not None:
        show(f"{name} grad bias", conv.bias.grad)
    show(f"{name} grad input", x.tensor.grad)
    conv.eval()
    with torch.no_grad():
        y2 = conv(x)
    show_small(f"{name} eval vs train", y2.tensor - y.tensor,
               1e-5 if dtype == torch.float32 else 1e-12)
    show(f"{name} eval filter", conv.filter)
    equivariance_90(name, conv, enn.GeometricTensor(x.tensor.detach(), in_type),
                    1e-4 if dtype == torch.float32 else 1e-12)
    return conv


def run_r2conv(dtype, tag):
    torch.manual_seed(1)
    c4, c8 = gspaces.Rot2dOnR2(N=4), gspaces.Rot2dOnR2(N=8)
    d4 = gspaces.FlipRot2dOnR2(N=4)
    so2 = gspaces.Rot2dOnR2(N=-1, maximum_frequency=4)
    conv_case(f"{tag} C8 triv->reg k5", c8, [c8.trivial_repr] * 3, [c8.regular_repr] * 4,
              dtype, kernel_size=5, padding=2)
    conv_case(f"{tag} C8 reg->reg k3 s2", c8, [c8.regular_repr] * 2, [c8.regular_repr] * 3,
              dtype, kernel_size=3, stride=2, padding=1)
    conv_case(f"{tag} C4 mixed k5 d2", c4, [c4.trivial_repr, c4.irrep(1), c4.regular_repr],
              [c4.regular_repr, c4.irrep(2), c4.irrep(1)], dtype, kernel_size=5, dilation=2,
              padding=4, bias=True)
    conv_case(f"{tag} D4 reg->reg k3 circular", d4, [d4.regular_repr] * 2,
              [d4.regular_repr, d4.irrep(1, 1)], dtype, kernel_size=3, padding=1,
              padding_mode="circular")
    conv_case(f"{tag} SO2 irreps k7", so2, [so2.trivial_repr, so2.irrep(1)],
              [so2.irrep(k) for k in range(4)], dtype, kernel_size=7, padding=3,
              frequencies_cutoff=3.0)
    conv_case(f"{tag} C8 quotient k5 sigma", c8, [c8.quotient_repr(2)] * 2,
              [c8.regular_repr], dtype, kernel_size=5, padding=2, sigma=0.6,
              rings=[0.0, 1.0, 2.0], bias=False)
    conv_case(f"{tag} C8 groups k3", c8, [c8.regular_repr] * 4, [c8.regular_repr] * 2, dtype,
              kernel_size=3, padding=1, groups=2)
    in_type = enn.FieldType(c8, [c8.regular_repr] * 2)
    out_type = enn.FieldType(c8, [c8.regular_repr, c8.trivial_repr])
    up = enn.R2ConvTransposed(in_type, out_type, kernel_size=4, stride=2, padding=1).to(dtype)
    x = gtensor(in_type, size=7, dtype=dtype)
    y = up(x)
    show(f"{tag} C8 transposed out", y)
    y.tensor.abs().sum().backward()
    show(f"{tag} C8 transposed grad weights", up.weights.grad)


@variant("r2conv")
def run_r2conv32():
    """R2Conv on C4, C8, D4 and SO(2) field types (trivial, regular, quotient, irreps;
    stride, dilation, circular padding, groups, sigma/rings, frequency cutoff) and
    R2ConvTransposed in float32: the learnable basis weights, the generated filters and
    biases, outputs, gradients of weights, bias and input, eval mode's cached filter, and
    equivariance under a 90-degree rotation."""
    run_r2conv(torch.float32, "f32")


@variant("r2conv64")
def run_r2conv64():
    """The same in float64."""
    run_r2conv(torch.float64, "f64")


def run_layers(dtype, tag):
    torch.manual_seed(2)
    c8 = gspaces.Rot2dOnR2(N=8)
    so2 = gspaces.Rot2dOnR2(N=-1, maximum_frequency=3)
    d4 = gspaces.FlipRot2dOnR2(N=4)
    tol = 1e-5 if dtype == torch.float32 else 1e-12
    reg = enn.FieldType(c8, [c8.regular_repr] * 3)
    irr = enn.FieldType(c8, [c8.irrep(1)] * 2 + [c8.irrep(2)] + [c8.irrep(3)] * 2)
    xr = gtensor(reg, dtype=dtype)
    xi = gtensor(irr, dtype=dtype)
    mods = {
        "ReLU": (enn.ReLU(reg), xr),
        "ELU": (enn.ELU(reg, alpha=0.7), xr),
        "PointwiseNonLinearity sigmoid": (enn.PointwiseNonLinearity(reg, "p_sigmoid"), xr),
        "NormNonLinearity n_relu": (enn.NormNonLinearity(irr, "n_relu"), xi),
        "NormNonLinearity n_sigmoid": (enn.NormNonLinearity(irr, "n_sigmoid"), xi),
        "NormNonLinearity squash": (enn.NormNonLinearity(irr, "squash", bias=False), xi),
        "PointwiseMaxPool": (enn.PointwiseMaxPool(reg, 3, stride=2, padding=1), xr),
        "PointwiseAvgPool": (enn.PointwiseAvgPool(reg, 2), xr),
        "PointwiseAvgPoolAntialiased": (enn.PointwiseAvgPoolAntialiased(reg, 0.6, 2), xr),
        "PointwiseAdaptiveAvgPool": (enn.PointwiseAdaptiveAvgPool(reg, 3), xr),
        "PointwiseAdaptiveMaxPool": (enn.PointwiseAdaptiveMaxPool(reg, 4), xr),
        "NormMaxPool": (enn.NormMaxPool(irr, 2), xi),
        "GroupPooling": (enn.GroupPooling(reg), xr),
        "NormPool": (enn.NormPool(irr), xi),
        "R2Upsampling bilinear": (enn.R2Upsampling(irr, 2), xi),
        "R2Upsampling nearest": (enn.R2Upsampling(reg, 2, mode="nearest"), xr),
        "R2Upsampling size align": (enn.R2Upsampling(irr, size=17, align_corners=True), xi),
    }
    for name, (m, x) in mods.items():
        m = m.to(dtype)
        xin = enn.GeometricTensor(x.tensor.detach().clone().requires_grad_(True), x.type)
        y = m(xin)
        show(f"{tag} {name} out", y)
        (y.tensor * torch.linspace(-1, 1, y.tensor.numel(), dtype=dtype)
         .reshape(y.tensor.shape)).sum().backward()
        show(f"{tag} {name} grad input", xin.tensor.grad)
        grads(f"{tag} {name}", m)
        # not exact on the grid: even pooling windows over 11 pixels drop the last row and
        # column, interpolation and the antialiasing blur are not centred
        if name not in ("PointwiseAvgPool", "NormMaxPool", "PointwiseAvgPoolAntialiased",
                        "PointwiseAdaptiveMaxPool") and "Upsampling" not in name:
            equivariance_90(f"{tag} {name}", m, x, tol)
    # gated nonlinearities: gates are trivial fields
    gtype = enn.FieldType(c8, [c8.trivial_repr] * 3 + [c8.irrep(1), c8.irrep(2), c8.regular_repr])
    gate = enn.GatedNonLinearity1(gtype, gates=["gate"] * 3 + ["gated"] * 3)
    x = gtensor(gtype, dtype=dtype)
    x.tensor.requires_grad_(True)
    y = gate(x)
    print(f"{tag} GatedNonLinearity1 out type size {y.type.size}")
    show(f"{tag} GatedNonLinearity1 out", y)
    y.tensor.square().sum().backward()
    show(f"{tag} GatedNonLinearity1 grad input", x.tensor.grad)
    equivariance_90(f"{tag} GatedNonLinearity1", gate, x, tol)
    gates_t = enn.FieldType(c8, [c8.trivial_repr] * 2)
    gated_t = enn.FieldType(c8, [c8.irrep(1), c8.irrep(3)])
    gate2 = enn.GatedNonLinearity2((gates_t, gated_t))
    g = gtensor(gates_t, dtype=dtype)
    v = gtensor(gated_t, dtype=dtype)
    show(f"{tag} GatedNonLinearity2 out", gate2(g, v))
    # batch norms in training and eval mode
    bns = {
        "InnerBatchNorm": (enn.InnerBatchNorm(reg), xr),
        "NormBatchNorm": (enn.NormBatchNorm(irr), xi),
        "GNormBatchNorm": (enn.GNormBatchNorm(
            enn.FieldType(c8, [c8.regular_repr, c8.irrep(1), c8.trivial_repr])), None),
        "InnerBatchNorm D4": (enn.InnerBatchNorm(
            enn.FieldType(d4, [d4.regular_repr] * 2)), None),
        "NormBatchNorm SO2": (enn.NormBatchNorm(
            enn.FieldType(so2, [so2.irrep(1), so2.irrep(2)])), None),
    }
    for name, (m, x) in bns.items():
        m = m.to(dtype)
        if x is None:
            x = gtensor(m.in_type, batch=3, dtype=dtype)
        m.train()
        for step in range(2):
            xin = enn.GeometricTensor((x.tensor * (1 + step)).detach().requires_grad_(True),
                                      x.type)
            y = m(xin)
            show(f"{tag} {name} train {step} out", y)
            (y.tensor * torch.cos(torch.arange(y.tensor.numel(), dtype=dtype))
             .reshape(y.tensor.shape)).sum().backward()
            show(f"{tag} {name} train {step} grad input", xin.tensor.grad)
        grads(f"{tag} {name}", m)
        for bname, buf in sorted(m.named_buffers()):
            show(f"{tag} {name} buffer {bname}", buf)
        m.eval()
        with torch.no_grad():
            show(f"{tag} {name} eval out", m(x))
    # dropout (the shared random stream makes the masks equal)
    for name, m in (("FieldDropout", enn.FieldDropout(reg, p=0.3)),
                    ("PointwiseDropout", enn.PointwiseDropout(reg, p=0.3))):
        m.train()
        show(f"{tag} {name} train", m(xr))
        m.eval()
        show(f"{tag} {name} eval", m(xr))


@variant("layers")
def run_layers32():
    """The nonlinearities, pooling, upsampling, batch norms and dropouts on C8 regular and
    irrep fields (and D4/SO(2) batch norms) in float32: outputs, input and parameter
    gradients, running statistics, and equivariance under a 90-degree rotation."""
    run_layers(torch.float32, "f32")


@variant("layers64")
def run_layers64():
    """The same in float64."""
    run_layers(torch.float64, "f64")


@variant("check")
def run_check():
    """The modules' own ``check_equivariance`` (random inputs, every testing element of the
    group), on modules whose check does not need e2cnn's test image."""
    torch.manual_seed(3)
    c8 = gspaces.Rot2dOnR2(N=8)
    c4 = gspaces.Rot2dOnR2(N=4)
    d4 = gspaces.FlipRot2dOnR2(N=4)
    reg = enn.FieldType(c8, [c8.regular_repr] * 2)
    irr = enn.FieldType(c8, [c8.irrep(1), c8.irrep(2)])
    check("C8 ReLU", enn.ReLU(reg), 1e-6)
    check("C8 ELU", enn.ELU(reg), 1e-6)
    check("C8 NormNonLinearity", enn.NormNonLinearity(irr), 1e-6)
    check("C8 GatedNonLinearity1", enn.GatedNonLinearity1(
        enn.FieldType(c8, [c8.trivial_repr, c8.trivial_repr, c8.irrep(1), c8.regular_repr])),
        1e-6)
    check("C8 GroupPooling", enn.GroupPooling(reg), 1e-6)
    check("C8 NormPool", enn.NormPool(irr), 1e-6)
    check("C4 PointwiseNonLinearity", enn.PointwiseNonLinearity(
        enn.FieldType(c4, [c4.regular_repr]), "p_elu"), 1e-6)
    bn = enn.InnerBatchNorm(enn.FieldType(d4, [d4.regular_repr] * 2))
    bn.eval()
    check("D4 InnerBatchNorm eval (base check)", bn, 1e-6, base=True)
    reg4 = enn.FieldType(c4, [c4.regular_repr] * 2)
    seq = enn.SequentialModule(enn.ReLU(reg4), enn.GroupPooling(reg4))
    check("C4 SequentialModule", seq, 1e-6)
    # the base-class check on an R2Conv with 90-degree rotations only (C4: every element is
    # exact on the grid; R2Conv's own check needs e2cnn's test image and scikit-image)
    conv = enn.R2Conv(enn.FieldType(c4, [c4.regular_repr]), enn.FieldType(c4, [c4.regular_repr]),
                      kernel_size=3, padding=1)
    with contextlib.redirect_stdout(io.StringIO()):
        errors = enn.EquivariantModule.check_equivariance(conv, atol=1e-5, rtol=1e-4)
    print(f"C4 R2Conv base check elements {[str(e) for e, _ in errors]} within 1e-6: "
          f"{all(float(err) <= 1e-6 for _, err in errors)}")


@variant("more")
def run_more():
    """Less common modules: R2Diffop (partial differential operators), PointwiseMaxPoolAntialiased,
    VectorFieldNonLinearity, InducedNormNonLinearity on a D4 representation induced from C4,
    RestrictionModule, MaskModule, MultipleModule, ReshuffleModule, ModuleList, a D4
    R2ConvTransposed, and delta-orthonormal initialisation (scipy's ortho_group draws from
    NumPy's global stream, seeded here)."""
    torch.manual_seed(5)
    np.random.seed(5)
    c8 = gspaces.Rot2dOnR2(8)
    d4 = gspaces.FlipRot2dOnR2(4)
    reg1 = enn.FieldType(c8, [c8.regular_repr])
    reg = enn.FieldType(c8, [c8.regular_repr] * 2)
    x = gtensor(reg)
    x.tensor.requires_grad_(True)
    diffop = enn.R2Diffop(reg, reg, kernel_size=5, maximum_order=2, padding=2)
    print(f"R2Diffop basis dimension {diffop.basisexpansion.dimension()}")
    show("R2Diffop filter", diffop.expand_parameters()[0])
    y = diffop(x)
    show("R2Diffop out", y)
    y.tensor.square().mean().backward()
    show("R2Diffop grad weights", diffop.weights.grad)
    show("R2Diffop grad input", x.tensor.grad)
    equivariance_90("R2Diffop", diffop, x, 1e-4)
    x = gtensor(reg)
    induced_rep = d4.induced_repr((None, 4), d4.fibergroup.subgroup((None, 4))[0].irrep(1))
    induced = enn.FieldType(d4, [induced_rep])
    mods = {
        "PointwiseMaxPoolAntialiased": (enn.PointwiseMaxPoolAntialiased(reg, 3, stride=2), x),
        "VectorFieldNonLinearity": (enn.VectorFieldNonLinearity(reg), x),
        "RestrictionModule C4": (enn.RestrictionModule(reg, 2), x),
        "MaskModule": (enn.MaskModule(reg, 11, margin=1), x),
        "MultipleModule": (enn.MultipleModule(reg, ["a", "b"], [(enn.ReLU(reg1), "a"),
                                                               (enn.ELU(reg1), "b")]), x),
        "ReshuffleModule": (enn.ReshuffleModule(reg, [1, 0]), x),
        "InducedNormNonLinearity": (enn.InducedNormNonLinearity(induced), gtensor(induced)),
        "R2ConvTransposed D4": (enn.R2ConvTransposed(
            enn.FieldType(d4, [d4.regular_repr]), enn.FieldType(d4, [d4.regular_repr] * 2), 3),
            gtensor(enn.FieldType(d4, [d4.regular_repr]))),
    }
    for name, (m, xin) in mods.items():
        xin = enn.GeometricTensor(xin.tensor.detach().clone().requires_grad_(True), xin.type)
        y = m(xin)
        show(f"{name} out", y)
        (y.tensor * torch.linspace(-1, 1, y.tensor.numel()).reshape(y.tensor.shape)).sum() \
            .backward()
        show(f"{name} grad input", xin.tensor.grad)
        grads(name, m)
    mlist = enn.ModuleList([enn.ReLU(reg), enn.ELU(reg)])
    show("ModuleList[1] out", mlist[1](x))
    conv = enn.R2Conv(reg, reg, 3)
    enn.init.deltaorthonormal_init(conv.weights.data, conv.basisexpansion)
    show("deltaorthonormal weights", conv.weights)
    show("deltaorthonormal filter", conv.expand_parameters()[0])


def c8_net(dtype):
    """A small C8-equivariant, rotation-invariant classifier (e2cnn's README-style model)."""
    gs = gspaces.Rot2dOnR2(N=8)
    t0 = enn.FieldType(gs, [gs.trivial_repr])
    t1 = enn.FieldType(gs, [gs.regular_repr] * 4)
    t2 = enn.FieldType(gs, [gs.regular_repr] * 6)
    net = enn.SequentialModule(
        enn.R2Conv(t0, t1, kernel_size=5, padding=2, bias=False),
        enn.InnerBatchNorm(t1),
        enn.ReLU(t1, inplace=True),
        enn.PointwiseMaxPool(t1, 3, stride=2, padding=1),
        enn.R2Conv(t1, t2, kernel_size=3, padding=1, bias=False),
        enn.InnerBatchNorm(t2),
        enn.ELU(t2, inplace=True),
        enn.PointwiseDropout(t2, p=0.1),
        enn.PointwiseAdaptiveAvgPool(t2, 1),
        enn.GroupPooling(t2),
    ).to(dtype)

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.features = net
            self.head = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ELU(),
                                            torch.nn.Linear(16, 3)).to(dtype)

        def forward(self, x):
            # GroupPooling's output is float32 whatever its input (torch.empty with
            # dtype=torch.float), so a float64 model casts it back
            y = self.features(enn.GeometricTensor(x, net.in_type)).tensor.to(x.dtype)
            return self.head(y.mean(dim=(2, 3)))

    return Net()


def run_train(dtype, tag):
    torch.manual_seed(4)
    model = c8_net(dtype)
    print(f"{tag} params {sum(p.numel() for p in model.parameters())}")
    show(f"{tag} initial params", torch.cat([p.detach().reshape(-1) for p in model.parameters()]))
    x = torch.randn(24, 1, 21, 21, dtype=dtype)
    labels = torch.randint(0, 3, (24,))
    opt = torch.optim.Adam(model.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    lossf = torch.nn.CrossEntropyLoss()
    model.train()
    for step in range(6):
        idx = torch.randperm(24)[:8]
        opt.zero_grad()
        loss = lossf(model(x[idx]), labels[idx])
        loss.backward()
        if step == 0:
            for name, p in model.named_parameters():
                show(f"{tag} step0 grad {name}", p.grad)
        opt.step()
        sched.step()
        print(f"{tag} step {step} loss {loss.item()!r} lr {sched.get_last_lr()[0]!r}")
    show(f"{tag} trained params", torch.cat([p.detach().reshape(-1) for p in model.parameters()]))
    for name, buf in sorted(model.named_buffers()):
        show(f"{tag} buffer {name}", buf)
    model.eval()
    tol = 1e-4 if dtype == torch.float32 else 1e-10
    with torch.no_grad():
        logits = model(x)
        show(f"{tag} eval logits", logits)
        print(f"{tag} eval predictions {logits.argmax(1).tolist()}")
        rot = model(torch.rot90(x, 1, dims=(2, 3)))
        show_small(f"{tag} rot90 invariance", rot - logits, tol)
        flip = model(torch.flip(x, dims=(3,)))
        show(f"{tag} flipped logits (C8 is not flip-invariant)", flip)
    return model, x, logits


@variant("train")
def run_train32():
    """A C8-equivariant classifier (R2Conv, InnerBatchNorm, ReLU/ELU, max pooling, dropout,
    adaptive average pooling, GroupPooling, then a torch head) trained six Adam steps with StepLR on
    random 21x21 images: gradients at step 0, losses, trained parameters and running
    statistics, eval logits and their rotation invariance; then export() to plain torch
    modules and a state_dict round trip through torch.save/torch.load."""
    model, x, logits = run_train(torch.float32, "f32")
    finish_train(model, x, logits, torch.float32, "f32")


@variant("train64")
def run_train64():
    """The same in float64."""
    model, x, logits = run_train(torch.float64, "f64")
    finish_train(model, x, logits, torch.float64, "f64")


def finish_train(model, x, logits, dtype, tag):
    # 1e-6 in float64 too: the equivariant GroupPooling rounds to float32, the exported
    # MaxPoolChannels keeps float64
    tol = 1e-5 if dtype == torch.float32 else 1e-6
    exported = model.features.export()
    print(f"{tag} exported {[type(m).__name__ for m in exported.children()]}")
    exported.eval()
    with torch.no_grad():
        feats = exported(x)
        ref = model.features(enn.GeometricTensor(x, model.features.in_type)).tensor
    show(f"{tag} exported features", feats)
    show_small(f"{tag} exported vs equivariant", feats - ref, tol)
    sd = exported.state_dict()
    print(f"{tag} exported state_dict keys {sorted(sd)}")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "c8.pt")
        torch.save(model.state_dict(), path)
        loaded = torch.load(path)
        print(f"{tag} state_dict keys {sorted(loaded)}")
        torch.manual_seed(99)
        fresh = c8_net(dtype)
        fresh.load_state_dict(loaded)
        fresh.eval()
        with torch.no_grad():
            show_small(f"{tag} loaded logits", fresh(x) - logits, 0.0)
        path2 = os.path.join(d, "exported.pt")
        torch.save(sd, path2)
        sd2 = torch.load(path2)
        show(f"{tag} exported reloaded weight 0", sd2["0.weight"])


@variant("compile", default=False)
def run_compile():
    """``torch.compile`` (PyTorch's ``eager`` backend; its inductor fails on the exported
    convolutions' ``get_attr`` tensor constants) of the exported features of a trained C8
    classifier, then the trained model's own state_dict: e2cnn's export shares the trained
    tensors with the exported modules (``batchnorm.num_batches_tracked.data =
    bn.num_batches_tracked.data``, ``conv.weight.data = _filter.data``)."""
    model, x, logits = run_train(torch.float32, "f32")
    exported = model.features.export()
    exported.eval()
    with torch.no_grad():
        feats = exported(x)
    compiled = torch.compile(exported, backend="eager")
    with torch.no_grad():
        show_small("compiled exported vs eager", compiled(x) - feats, 1e-5)
    for name, t in sorted(model.state_dict().items()):
        show(f"after compile {name}", t)


def main(argv):
    names = DEFAULT if not argv else list(VARIANTS) if argv == ["all"] else argv
    for name in names:
        print(f"== {name}")
        # e2cnn allocates some tensors in the default dtype (the filter of an R2Conv with
        # several field pairs, torch.zeros without a dtype), so float64 runs set it
        torch.set_default_dtype(torch.float64 if name.endswith("64") else torch.float32)
        # R2Conv caches its sampled bases across instances (a module shared by every R2Conv
        # of the same basis); clear it so a float64 variant does not reuse (and cast) the
        # float32 basis an earlier variant built, and each variant prints what it prints alone
        basisexpansion_singleblock._stored_filters.clear()
        VARIANTS[name]()


if __name__ == "__main__":
    main(sys.argv[1:])
