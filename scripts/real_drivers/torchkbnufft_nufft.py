"""Driver of torchkbnufft (docs/real-programs.md): the installed package, unchanged, run at tiny
sizes (16x16 images, a few hundred k-space points, 2 coils, batch 2): KbNufft and
KbNufftAdjoint with table and sparse-matrix interpolation, multi-coil sensitivity maps, radial,
spiral and batched trajectories, 2-D and 3-D, complex and real-view (``view_as_real``) inputs,
KbInterp/KbInterpAdjoint, ToepNufft with ``calc_toeplitz_kernel``, the density compensation,
the functional API and the complex helpers, gradients to the image and the k-space data (and
what a trajectory that requires grad gets), ``KbModule.to``, and a few iterations of CG-SENSE
and of gradient-descent reconstructions. Each result is printed as its shape, dtype, the sums
and sums of magnitudes of its real and imaginary parts and a few entries, in float64.

    python scripts/shared_rng_run.py drive_tkbn.py [VARIANT ... | all]             # real PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_tkbn.py [VARIANT ... | all]   # jtorch

Without arguments it runs every variant. Each variant reseeds its ``torch.Generator``, so a
subset prints what the full run prints for it. ``TKBN_FLOAT64=1`` runs in float64/complex128
(to tell float32 rounding from a bug).
"""

import math
import os
import sys
import time

import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import torchkbnufft as tkbn  # noqa: E402
import torchkbnufft.functional as tkbnF  # noqa: E402

F64 = bool(os.environ.get("TKBN_FLOAT64"))
REAL = torch.float64 if F64 else torch.float32
CPLX = torch.complex128 if F64 else torch.complex64
B, C, N = 2, 2, 16
GEN = [torch.Generator()]

VARIANTS = {}


def variant(name):
    def register(build):
        VARIANTS[name] = build
        return build
    return register


def randn(*shape, dtype=None):
    return torch.randn(*shape, generator=GEN[0], dtype=dtype or REAL)


def crandn(*shape, dtype=None):
    """A complex Gaussian tensor made of two real draws (``torch.complex``)."""
    return torch.complex(randn(*shape, dtype=dtype), randn(*shape, dtype=dtype))


def radial(spokes=16, readout=24, dtype=None):
    """A 2-D radial trajectory (radians/voxel), ``(2, spokes * readout)``."""
    dtype = dtype or REAL
    angles = torch.arange(spokes, dtype=dtype) * (math.pi / spokes)
    kr = torch.linspace(-math.pi, math.pi * (readout - 2) / readout, readout, dtype=dtype)
    kx = kr.unsqueeze(0) * torch.cos(angles).unsqueeze(1)
    ky = kr.unsqueeze(0) * torch.sin(angles).unsqueeze(1)
    return torch.stack((kx.flatten(), ky.flatten()))


def spiral(points=300, turns=6, dtype=None):
    """A 2-D Archimedean spiral from the centre out (radians/voxel), ``(2, points)``."""
    t = torch.linspace(0, 1, points, dtype=dtype or REAL)
    r, th = math.pi * 0.95 * t, 2 * math.pi * turns * t
    return torch.stack((r * torch.cos(th), r * torch.sin(th)))


def smaps_for(size=(N, N), coils=C, dtype=None):
    """Smooth sensitivity maps: a Gaussian bump per coil, off centre, with a phase ramp."""
    dtype = dtype or REAL
    grids = torch.meshgrid(*[torch.linspace(-1, 1, s, dtype=dtype) for s in size],
                           indexing="ij")
    maps = []
    for c in range(coils):
        centre = [0.6 * math.cos(2 * math.pi * c / coils + d) for d in range(len(size))]
        d2 = sum((g - m) ** 2 for g, m in zip(grids, centre))
        mag = torch.exp(-d2)
        phase = (c + 1) * 0.5 * grids[0]
        maps.append(torch.polar(mag, phase))
    return torch.stack(maps).unsqueeze(0)


def checksum(t):
    """Sums and sums of magnitudes of the real and imaginary parts, and the largest
    magnitude, in float64."""
    t = t.detach()
    if t.is_complex():
        t = t.to(torch.complex128)
        re, im = t.real.flatten(), t.imag.flatten()
        return (f"re sum {re.sum().item()!r} abssum {re.abs().sum().item()!r} "
                f"im sum {im.sum().item()!r} abssum {im.abs().sum().item()!r} "
                f"absmax {t.abs().max().item()!r}")
    t = t.double().flatten()
    return (f"sum {t.sum().item()!r} abssum {t.abs().sum().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def entries(t, k=3):
    t = t.detach().flatten()
    idx = [0, t.numel() // 2, t.numel() - 1][:k]
    if t.is_complex():
        t = t.to(torch.complex128)
        return " ".join(f"({t[i].real.item():.10g},{t[i].imag.item():.10g})" for i in idx)
    return " ".join(f"{t[i].double().item():.10g}" for i in idx)


def show(name, label, value):
    if isinstance(value, torch.Tensor):
        # a difference of two results ("a - b") is rounding-sized: no entries, only its sums
        at = "" if " - " in label else f" at {entries(value)}"
        print(f"{name} {label} {list(value.shape)} {str(value.dtype).replace('torch.', '')} "
              f"{checksum(value)}{at}")
    else:
        print(f"{name} {label} {value}")


def l2(t):
    """A real loss of a complex or real tensor: the sum of squared magnitudes."""
    return (t.abs() ** 2).sum() if t.is_complex() else (t ** 2).sum()


def grads(out, loss, *tensors):
    """[(label, value)] of the loss and each tensor's gradient (None printed as such)."""
    loss.backward()
    rows = [("loss", f"{loss.item()!r}")]
    for label, t in tensors:
        rows.append((f"grad {label}", t.grad if t.grad is not None else "None"))
    return rows


# each variant returns [(label, tensor or text)]


@variant("radial2d")
def _():
    om = radial()
    image = crandn(B, 1, N, N).requires_grad_()
    smaps = smaps_for()
    nufft = tkbn.KbNufft(im_size=(N, N), dtype=CPLX)
    adj = tkbn.KbNufftAdjoint(im_size=(N, N), dtype=CPLX)
    k = nufft(image, om, smaps=smaps)
    out = [("omega", om), ("kdata", k)]
    out += grads(k, l2(k) * 1e-3, ("image", image))
    data = crandn(B, C, om.shape[1]).requires_grad_()
    x = adj(data, om, smaps=smaps)
    out += [("adjoint", x)] + grads(x, l2(x) * 1e-3, ("kdata", data))
    # norm="ortho" and no smaps: coil-wise images
    img2 = crandn(B, C, N, N)
    out += [("ortho forward", nufft(img2, om, norm="ortho")),
            ("ortho adjoint", adj(data.detach(), om, norm="ortho"))]
    # adjoint test <A x, y> == <x, A^H y>
    ax = nufft(img2, om, norm="ortho")
    ahy = adj(data.detach(), om, norm="ortho")
    out += [("dot Ax.y", torch.vdot(ax.flatten(), data.detach().flatten())),
            ("dot x.AHy", torch.vdot(img2.flatten(), ahy.flatten()))]
    return out


@variant("spiral_real")
def _():
    om = spiral()
    image = randn(B, 1, N, N, 2).requires_grad_()       # real view of a complex image
    smaps = torch.view_as_real(smaps_for())
    nufft = tkbn.KbNufft(im_size=(N, N), grid_size=(24, 24), numpoints=4, dtype=REAL)
    adj = tkbn.KbNufftAdjoint(im_size=(N, N), grid_size=(24, 24), numpoints=4, dtype=REAL)
    k = nufft(image, om, smaps=smaps)
    out = [("omega", om), ("kdata", k)]
    out += grads(k, (k ** 2).sum() * 1e-3, ("image", image))
    data = randn(B, C, om.shape[1], 2).requires_grad_()
    x = adj(data, om, smaps=smaps)
    out += [("adjoint", x)] + grads(x, (x ** 2).sum() * 1e-3, ("kdata", data))
    return out


@variant("ktraj_grad")
def _():
    """A trajectory that requires grad: torchkbnufft 1.5's interpolation Functions return
    None for it, so its grad stays None; the image's is still computed."""
    om = radial(8, 20).requires_grad_()
    image = crandn(1, 1, N, N).requires_grad_()
    nufft = tkbn.KbNufft(im_size=(N, N), dtype=CPLX)
    k = nufft(image, om)
    out = [("kdata requires_grad", k.requires_grad), ("kdata", k)]
    out += grads(k, l2(k) * 1e-3, ("image", image), ("omega", om))
    data = crandn(1, 1, om.shape[1]).requires_grad_()
    om.grad = None
    x = tkbn.KbNufftAdjoint(im_size=(N, N), dtype=CPLX)(data, om)
    out += [("adjoint", x)] + grads(x, l2(x) * 1e-3, ("kdata", data), ("omega", om))
    return out


@variant("spmat")
def _():
    om = radial(12, 20)
    spm = tkbn.calc_tensor_spmatrix(om, im_size=(N, N))
    out = [("spmat real", spm[0].to_dense()), ("spmat imag", spm[1].to_dense()),
           ("spmat nnz", spm[0]._nnz()), ("spmat layout", str(spm[0].layout))]
    image = crandn(B, C, N, N).requires_grad_()
    nufft = tkbn.KbNufft(im_size=(N, N), dtype=CPLX)
    adj = tkbn.KbNufftAdjoint(im_size=(N, N), dtype=CPLX)
    k_sp = nufft(image, om, interp_mats=spm)
    k_tb = nufft(image.detach(), om)
    out += [("kdata spmat", k_sp), ("kdata spmat - table", k_sp.detach() - k_tb)]
    out += grads(k_sp, l2(k_sp) * 1e-3, ("image", image))
    data = crandn(B, C, om.shape[1]).requires_grad_()
    x_sp = adj(data, om, interp_mats=spm)
    out += [("adjoint spmat", x_sp), ("adjoint spmat - table",
                                      x_sp.detach() - adj(data.detach(), om))]
    out += grads(x_sp, l2(x_sp) * 1e-3, ("kdata", data))
    # real-view input through the sparse path
    out.append(("kdata spmat real view",
                nufft(torch.view_as_real(image.detach()), om, interp_mats=spm)))
    return out


@variant("interp")
def _():
    om = radial(10, 16)
    grid = crandn(B, C, 2 * N, 2 * N).requires_grad_()
    kbi = tkbn.KbInterp(im_size=(N, N), grid_size=(2 * N, 2 * N), dtype=CPLX)
    kba = tkbn.KbInterpAdjoint(im_size=(N, N), grid_size=(2 * N, 2 * N), dtype=CPLX)
    y = kbi(grid, om)
    out = [("interp", y)] + grads(y, l2(y) * 1e-3, ("grid", grid))
    data = crandn(B, C, om.shape[1]).requires_grad_()
    g = kba(data, om)
    out += [("interp adjoint", g)] + grads(g, l2(g) * 1e-3, ("kdata", data))
    spm = tkbn.calc_tensor_spmatrix(om, im_size=(N, N))
    out += [("interp spmat", kbi(grid.detach(), om, interp_mats=spm)),
            ("interp adjoint spmat", kba(data.detach(), om, interp_mats=spm)),
            ("interp real view", kbi(torch.view_as_real(grid.detach()), om))]
    return out


@variant("batched_traj")
def _():
    """A trajectory per batch element, ``(N, 2, K)``: the Functions loop over the batch."""
    om = torch.stack((radial(8, 20), spiral(160)))
    image = crandn(B, C, N, N).requires_grad_()
    nufft = tkbn.KbNufft(im_size=(N, N), dtype=CPLX)
    adj = tkbn.KbNufftAdjoint(im_size=(N, N), dtype=CPLX)
    k = nufft(image, om)
    out = [("kdata", k)] + grads(k, l2(k) * 1e-3, ("image", image))
    data = crandn(B, C, om.shape[-1]).requires_grad_()
    x = adj(data, om)
    out += [("adjoint", x)] + grads(x, l2(x) * 1e-3, ("kdata", data))
    return out


@variant("toeplitz")
def _():
    om = radial()
    dcomp = tkbn.calc_density_compensation_function(om, im_size=(N, N))
    out = [("dcomp", dcomp)]
    kern = tkbn.calc_toeplitz_kernel(om, im_size=(N, N))
    kern_w = tkbn.calc_toeplitz_kernel(om, im_size=(N, N), weights=dcomp.squeeze(0).real,
                                       norm="ortho")
    out += [("kernel", kern), ("kernel weighted ortho", kern_w)]
    toep = tkbn.ToepNufft()
    smaps1 = smaps_for()
    smaps = smaps1.repeat(B, 1, 1, 1)     # ToepNufft zips the batch with the maps' batch
    image = crandn(B, 1, N, N).requires_grad_()
    y = toep(image, kern.to(CPLX), smaps=smaps)
    nufft = tkbn.KbNufft(im_size=(N, N), dtype=CPLX)
    adj = tkbn.KbNufftAdjoint(im_size=(N, N), dtype=CPLX)
    ref = adj(nufft(image.detach(), om, smaps=smaps), om, smaps=smaps)
    kern_o = tkbn.calc_toeplitz_kernel(om, im_size=(N, N), norm="ortho").to(CPLX)
    y_o = toep(image.detach(), kern_o, smaps=smaps, norm="ortho")
    ref_o = adj(nufft(image.detach(), om, smaps=smaps, norm="ortho"), om, smaps=smaps,
                norm="ortho")
    out += [("toep ortho", y_o), ("toep ortho - adj(fwd)", y_o - ref_o)]
    out += [("toep", y), ("toep - adj(fwd)", y.detach() - ref)]
    out += grads(y, l2(y) * 1e-6, ("image", image))
    out += [("toep no smaps", toep(crandn(B, C, N, N), kern.to(CPLX))),
            ("toep real view", toep(torch.view_as_real(image.detach()),
                                    torch.view_as_real(kern.to(CPLX)),
                                    smaps=torch.view_as_real(smaps)))]
    # batched kernels (a trajectory per batch element) and per-batch smaps
    om_b = torch.stack((radial(8, 20), radial(10, 16)))
    kern_b = tkbn.calc_toeplitz_kernel(om_b, im_size=(N, N))
    smaps_b = torch.cat((smaps1, smaps1.conj()))
    out += [("kernel batched", kern_b),
            ("toep batched", toep(image.detach(), kern_b.to(CPLX), smaps=smaps_b)),
            ("toep batched shared smaps", toep(image.detach(), kern_b.to(CPLX),
                                               smaps=smaps1))]
    return out


@variant("functional")
def _():
    om = spiral(200)
    (tables, im_size, grid_size, n_shift, numpoints, offsets, table_oversamp, _, _) = \
        tkbn.nufft_utils.init_fn(im_size=(N, N), dtype=CPLX)
    scaling = tkbn.nufft_utils.compute_scaling_coefs(
        im_size=(N, N), grid_size=(2 * N, 2 * N), numpoints=(6, 6),
        alpha=(2.34 * 6, 2.34 * 6), order=(0.0, 0.0)).to(CPLX)
    out = [("table0", tables[0]), ("scaling", scaling), ("offsets", offsets)]
    image = crandn(1, C, N, N)
    k = tkbnF.kb_table_nufft(image, scaling, im_size, grid_size, om, tables, n_shift,
                             numpoints, table_oversamp, offsets)
    x = tkbnF.kb_table_nufft_adjoint(k, scaling, im_size, grid_size, om, tables, n_shift,
                                     numpoints, table_oversamp, offsets, norm="ortho")
    spm = tkbn.calc_tensor_spmatrix(om, im_size=(N, N))
    k2 = tkbnF.kb_spmat_nufft(image, scaling, im_size, grid_size, spm)
    x2 = tkbnF.kb_spmat_nufft_adjoint(k2, scaling, im_size, grid_size, spm, norm="ortho")
    g = tkbnF.kb_table_interp_adjoint(k, om, tables, n_shift, numpoints, table_oversamp,
                                      offsets, grid_size)
    out += [("kb_table_nufft", k), ("kb_table_nufft_adjoint", x), ("kb_spmat_nufft", k2),
            ("kb_spmat_nufft_adjoint", x2), ("kb_table_interp_adjoint", g),
            ("kb_spmat_interp", tkbnF.kb_spmat_interp(g, spm)),
            ("kb_spmat_interp_adjoint", tkbnF.kb_spmat_interp_adjoint(k, spm, grid_size)),
            ("fft_filter", tkbnF.fft_filter(image, crandn(2 * N, 2 * N))),
            ("fft_filter no norm", tkbnF.fft_filter(image, crandn(2 * N, 2 * N), norm=None))]
    a, b = crandn(3, 5), crandn(3, 5)
    ar, br = torch.view_as_real(a), torch.view_as_real(b)
    out += [("absolute", tkbn.absolute(a)), ("absolute real", tkbn.absolute(ar)),
            ("complex_mult", tkbn.complex_mult(a, b)),
            ("complex_mult real", tkbn.complex_mult(ar, br)),
            ("conj_complex_mult", tkbn.conj_complex_mult(a, b)),
            ("conj_complex_mult real", tkbn.conj_complex_mult(ar, br)),
            ("complex_sign", tkbn.complex_sign(a)),
            ("complex_sign real", tkbn.complex_sign(ar)),
            ("imag_exp", tkbn.imag_exp(a.real)),
            ("imag_exp real", tkbn.imag_exp(a.real, return_complex=False)),
            ("inner_product", tkbn.inner_product(a, b)),
            ("inner_product real", tkbn.inner_product(ar, br))]
    return out


@variant("nufft3d")
def _():
    """3-D: an 8x8x8 image, a stack of radial spokes (kz planes), numpoints 4."""
    s = 8
    om2 = radial(6, 12)
    kz = torch.linspace(-math.pi, math.pi * 0.75, 5, dtype=REAL)
    om = torch.cat([torch.cat((om2, torch.full((1, om2.shape[1]), float(z), dtype=REAL)))
                    for z in kz], dim=1)
    image = crandn(1, C, s, s, s).requires_grad_()
    nufft = tkbn.KbNufft(im_size=(s, s, s), numpoints=4, dtype=CPLX)
    adj = tkbn.KbNufftAdjoint(im_size=(s, s, s), numpoints=4, dtype=CPLX)
    k = nufft(image, om)
    out = [("omega", om), ("kdata", k)] + grads(k, l2(k) * 1e-3, ("image", image))
    data = crandn(1, C, om.shape[1]).requires_grad_()
    x = adj(data, om)
    out += [("adjoint", x)] + grads(x, l2(x) * 1e-3, ("kdata", data))
    kern = tkbn.calc_toeplitz_kernel(om, im_size=(s, s, s), numpoints=4)
    out += [("toeplitz kernel", kern),
            ("toep", tkbn.ToepNufft()(image.detach(), kern.to(CPLX)))]
    return out


@variant("module_to")
def _():
    """KbModule.to (torch._C._nn._parse_to), buffers and repr."""
    nufft = tkbn.KbNufft(im_size=(N, N), grid_size=(20, 20), numpoints=(4, 5))
    out = [("buffers", " ".join(f"{n}:{tuple(b.shape)}:{str(b.dtype).replace('torch.', '')}"
                               for n, b in nufft.named_buffers()))]
    nufft = nufft.to(torch.complex128)
    out.append(("to complex128", " ".join(f"{n}:{str(b.dtype).replace('torch.', '')}"
                                           for n, b in nufft.named_buffers())))
    nufft = nufft.to(torch.float32)
    out.append(("to float32", " ".join(f"{n}:{str(b.dtype).replace('torch.', '')}"
                                       for n, b in nufft.named_buffers())))
    out.append(("repr", repr(nufft).replace("\n", " | ")))
    out.append(("scaling_coef", nufft.scaling_coef))
    om = radial(8, 16)
    out.append(("kdata", nufft(crandn(1, 1, N, N, dtype=torch.float32).to(torch.complex64),
                               om.float())))
    return out


@variant("cg_sense")
def _():
    """CG-SENSE on the normal equations A^H A x = A^H y with a Toeplitz kernel (ToepNufft),
    and with the NUFFTs themselves, 6 iterations each."""
    om = radial(20, 24)
    smaps = smaps_for()
    nufft = tkbn.KbNufft(im_size=(N, N), dtype=CPLX)
    adj = tkbn.KbNufftAdjoint(im_size=(N, N), dtype=CPLX)
    yy, xx = torch.meshgrid(torch.arange(N, dtype=REAL), torch.arange(N, dtype=REAL),
                            indexing="ij")
    truth = ((xx - 7.5) ** 2 + (yy - 7.5) ** 2 < 36).to(REAL) * (1 + 0.05 * xx)
    truth = truth.to(CPLX).reshape(1, 1, N, N)
    y = nufft(truth, om, smaps=smaps, norm="ortho") + 0.01 * crandn(1, C, om.shape[1])
    kern = tkbn.calc_toeplitz_kernel(om, im_size=(N, N), norm="ortho").to(CPLX)
    toep = tkbn.ToepNufft()
    ops = {"toeplitz": lambda v: toep(v, kern, smaps=smaps, norm="ortho"),
           "nufft": lambda v: adj(nufft(v, om, smaps=smaps, norm="ortho"), om, smaps=smaps,
                                  norm="ortho")}
    out = []
    for name, normal_op in ops.items():
        b = adj(y, om, smaps=smaps, norm="ortho")
        x = torch.zeros_like(b)
        r, p = b.clone(), b.clone()
        rs = torch.vdot(r.flatten(), r.flatten()).real
        for it in range(6):
            ap = normal_op(p)
            alpha = rs / torch.vdot(p.flatten(), ap.flatten()).real
            x = x + alpha * p
            r = r - alpha * ap
            rs_new = torch.vdot(r.flatten(), r.flatten()).real
            out.append((f"{name} it {it} residual", f"{rs_new.sqrt().item():.10g}"))
            p = r + (rs_new / rs) * p
            rs = rs_new
        out += [(f"{name} x", x), (f"{name} error", f"{(x - truth).abs().norm().item():.10g}")]
    return out


@variant("gd_recon")
def _():
    """Gradient descent on ||A x - y||^2 through autograd (KbNufft's backward is the
    adjoint), with SGD on a complex parameter and with Adam on a real-view one."""
    om = spiral(320, turns=8)
    smaps = smaps_for()
    nufft = tkbn.KbNufft(im_size=(N, N), dtype=CPLX)
    truth = crandn(1, 1, N, N) * 0.5
    y = nufft(truth, om, smaps=smaps, norm="ortho")
    out = []
    x = torch.nn.Parameter(torch.zeros(1, 1, N, N, dtype=CPLX))
    opt = torch.optim.SGD([x], lr=0.5)
    for it in range(5):
        opt.zero_grad()
        loss = l2(nufft(x, om, smaps=smaps, norm="ortho") - y)
        loss.backward()
        opt.step()
        out.append((f"sgd it {it} loss", f"{loss.item():.10g}"))
    out += [("sgd x", x), ("sgd grad", x.grad)]
    xr = torch.nn.Parameter(torch.zeros(1, 1, N, N, 2, dtype=REAL))
    opt = torch.optim.Adam([xr], lr=0.05)
    smaps_r = torch.view_as_real(smaps)
    y_r = torch.view_as_real(y)
    for it in range(5):
        opt.zero_grad()
        loss = ((nufft(xr, om, smaps=smaps_r, norm="ortho") - y_r) ** 2).sum()
        loss.backward()
        opt.step()
        out.append((f"adam it {it} loss", f"{loss.item():.10g}"))
    out += [("adam x", xr), ("adam grad", xr.grad)]
    return out


def run(name):
    GEN[0] = torch.Generator().manual_seed(0)
    torch.manual_seed(0)
    print(f"== {name}")
    for label, value in VARIANTS[name]():
        show(name, label, value)


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
