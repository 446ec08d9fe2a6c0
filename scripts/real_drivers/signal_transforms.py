"""Driver of four signal-transform libraries (docs/real-programs.md): kymatio's scattering
transforms, ptwt's wavelet transforms, torch-dct and torch-harmonics' spherical harmonic
transforms, the installed packages, unchanged, at tiny sizes, each variant in float32 and
float64: forward transforms and their inverses (the reconstruction error), the gradient of the
sum of squared coefficients to the input, complex paths (ptwt's cwt with complex Morlet
wavelets, kymatio's harmonic scattering, the SHT's complex coefficients), and a tiny
classifier on scattering coefficients trained a few Adam steps. Each result prints its shape,
dtype, sums and sums of magnitudes (real and imaginary parts), largest magnitude and three
entries, in float64.

    python scripts/shared_rng_run.py drive_signal.py [VARIANT ... | all]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_signal.py [VARIANT ... | all]   # jtorch

Each variant reseeds (``torch.manual_seed``), so a subset prints what the full run prints for
it. Two stand-ins, installed in both frameworks alike: scipy 1.17 dropped
``scipy.special.sph_harm`` (kymatio 0.3's 3-D filter bank imports it), so it is given back as
``sph_harm_y`` with its arguments reordered; torch-harmonics 0.9.3 needs its compiled helper
modules ``attention_helpers``/``disco_helpers`` at import and its package ``__init__``
imports the attention layers, which fail without the compiled kernels, so the driver puts in
helpers that report no optimized kernels (and a stand-in for the DISCO module that defines its
functions only when they load) and loads torch-harmonics' pure-PyTorch modules
(``sht``, ``spectral_convolution``, ``disco``, ``resample``, ``quadrature``) without the
package ``__init__``.
"""

import importlib.util
import os
import sys
import time
import types
import warnings

import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
warnings.filterwarnings("ignore")   # the libraries' deprecation and beta-sparse warnings

import scipy.special  # noqa: E402

if not hasattr(scipy.special, "sph_harm"):   # SciPy >= 1.17: sph_harm(m, n, azimuth, polar)
    scipy.special.sph_harm = lambda m, n, theta, phi: scipy.special.sph_harm_y(n, m, phi, theta)


def _no_kernels(name, answer):
    """A stand-in module whose every function returns ``answer()``."""
    mod = types.ModuleType(name)

    def attribute(attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return lambda *a, **k: answer()

    mod.__getattr__ = attribute
    return mod


def _compiled_only():
    raise NotImplementedError("torch-harmonics' compiled kernels are not installed")


for _name in ("attention_helpers", "disco_helpers"):   # *_is_available() -> False
    sys.modules[_name] = _no_kernels(_name, lambda: False)
# defines its names only when the compiled kernels load
_name = "torch_harmonics.disco.optimized.disco_optimized"
sys.modules[_name] = _no_kernels(_name, _compiled_only)
_pkg = types.ModuleType("torch_harmonics")
_pkg.__path__ = list(importlib.util.find_spec("torch_harmonics").submodule_search_locations)
sys.modules["torch_harmonics"] = _pkg

import torch_harmonics.sht as th_sht  # noqa: E402

_pkg.RealSHT, _pkg.InverseRealSHT = th_sht.RealSHT, th_sht.InverseRealSHT
import kymatio.torch as kt  # noqa: E402
import ptwt  # noqa: E402
import torch_dct  # noqa: E402
import torch_harmonics.disco as th_disco  # noqa: E402
import torch_harmonics.quadrature as th_quad  # noqa: E402
import torch_harmonics.resample as th_resample  # noqa: E402
import torch_harmonics.spectral_convolution as th_spec  # noqa: E402

DTYPES = (torch.float32, torch.float64)
VARIANTS = {}


def variant(name):
    def register(build):
        VARIANTS[name] = build
        return build
    return register


def checksum(t):
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


def entries(t):
    t = t.detach().flatten()
    idx = [0, t.numel() // 2, t.numel() - 1]
    if t.is_complex():
        t = t.to(torch.complex128)
        return " ".join(f"({t[i].real.item():.10g},{t[i].imag.item():.10g})" for i in idx)
    return " ".join(f"{t[i].double().item():.10g}" for i in idx)


def show(label, value):
    if isinstance(value, torch.Tensor):
        # a reconstruction error ("err") is rounding-sized: its sums only
        at = "" if label.endswith("err") else f" at {entries(value)}"
        print(f"{label} {list(value.shape)} {str(value.dtype).replace('torch.', '')} "
              f"{checksum(value)}{at}")
    else:
        print(f"{label} {value}")


def sq(t):
    """The sum of squared magnitudes of a tensor or a nest of tensors (a real loss)."""
    if isinstance(t, torch.Tensor):
        return (t.abs() ** 2).sum() if t.is_complex() else (t ** 2).sum()
    if isinstance(t, dict):
        return sum(sq(v) for v in t.values())
    return sum(sq(v) for v in t)


def flat(coeffs, prefix):
    """[(label, tensor)] of a nest of coefficient tensors (ptwt's lists, tuples, dicts)."""
    if isinstance(coeffs, torch.Tensor):
        return [(prefix, coeffs)]
    items = coeffs.items() if isinstance(coeffs, dict) else enumerate(coeffs)
    return [row for k, v in items for row in flat(v, f"{prefix}.{k}")]


def forward_backward(fn, x, label):
    """Rows of ``fn(x)``'s outputs, then the gradient of their summed squares to ``x``."""
    x = x.detach().requires_grad_()
    out = fn(x)
    loss = sq(out)
    loss.backward()
    return flat(out, label) + [(f"{label} loss", f"{loss.item()!r}"), (f"{label} grad", x.grad)]


def err(label, a, b):
    return (f"{label} err", (a.detach() - b.detach()).abs())


def round_trip(label, fwd, inv, x):
    """:func:`forward_backward` of ``fwd``, then the error of ``inv(fwd(x))`` (cropped to
    ``x``'s shape: a padded transform's inverse is longer)."""
    rec = inv(fwd(x))
    return forward_backward(fwd, x, label) + [
        err(label, rec[tuple(slice(0, n) for n in x.shape)], x)]


def built_in(dtype, make):
    """``make()`` with ``dtype`` the default (complex parameters become complex128 under
    float64; ``Module.to(float64)`` would drop their imaginary parts)."""
    saved = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        return make()
    finally:
        torch.set_default_dtype(saved)


def tag(dtype):
    return "f64" if dtype == torch.float64 else "f32"


# ------------------------------------------------------------------ kymatio
@variant("scattering1d")
def _():
    rows = []
    for dt in DTYPES:
        x = torch.randn(2, 256, dtype=dt)
        s = kt.Scattering1D(J=3, shape=256, Q=(4, 1)).to(dt)
        rows += forward_backward(s, x, f"{tag(dt)} scat1d")
        s1 = kt.Scattering1D(J=4, shape=256, Q=2, max_order=1, T=8).to(dt)
        rows += forward_backward(s1, x, f"{tag(dt)} scat1d order1 T8")
        rows.append((f"{tag(dt)} meta order", s.meta()["order"].tolist()))
    return rows


@variant("scattering2d")
def _():
    rows = []
    for dt in DTYPES:
        x = torch.randn(2, 1, 32, 32, dtype=dt)
        s = kt.Scattering2D(J=2, shape=(32, 32), L=4).to(dt)
        rows += forward_backward(s, x, f"{tag(dt)} scat2d")
        s1 = kt.Scattering2D(J=3, shape=(32, 32), L=6, max_order=1).to(dt)
        rows += forward_backward(s1, x[:, 0], f"{tag(dt)} scat2d order1")
    return rows


@variant("harmonic3d")
def _():
    rows = []
    for dt in DTYPES:
        x = torch.rand(1, 16, 16, 16, dtype=dt)
        s = kt.HarmonicScattering3D(J=2, shape=(16, 16, 16), L=2).to(dt)
        rows += forward_backward(s, x, f"{tag(dt)} harm3d integral")
        s2 = kt.HarmonicScattering3D(J=2, shape=(16, 16, 16), L=1, max_order=1,
                                     integral_powers=(1.0, 2.0)).to(dt)
        rows += forward_backward(s2, x, f"{tag(dt)} harm3d order1")
    return rows


@variant("classifier")
def _():
    """A linear classifier on the log-scattering coefficients of stripes (vertical or
    horizontal, random phase, noisy), 6 Adam steps, then its accuracy."""
    rows = []
    for dt in DTYPES:
        n = 16
        labels = torch.arange(n) % 2
        grid = torch.arange(16, dtype=dt)
        phase = torch.rand(n, 1, 1, dtype=dt) * 6.28
        vert = torch.sin(grid[None, None, :] * 1.2 + phase).expand(n, 16, 16)
        horiz = vert.transpose(1, 2)
        imgs = torch.where(labels[:, None, None].bool(), vert, horiz)
        imgs = imgs + 0.3 * torch.randn(n, 16, 16, dtype=dt)
        scat = kt.Scattering2D(J=2, shape=(16, 16), L=4).to(dt)
        feats = torch.log1p(scat(imgs)).flatten(1)
        model = torch.nn.Sequential(torch.nn.BatchNorm1d(feats.shape[1]),
                                    torch.nn.Linear(feats.shape[1], 2)).to(dt)
        opt = torch.optim.Adam(model.parameters(), lr=0.05)
        for step in range(6):
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(feats), labels)
            loss.backward()
            opt.step()
            rows.append((f"{tag(dt)} step {step} loss", f"{loss.item():.8g}"))
        model.eval()
        with torch.no_grad():
            acc = (model(feats).argmax(1) == labels).float().mean().item()
        rows += [(f"{tag(dt)} accuracy", acc), (f"{tag(dt)} weight", model[1].weight)]
    return rows


# ------------------------------------------------------------------ ptwt
@variant("wavedec")
def _():
    rows = []
    for dt in DTYPES:
        x = torch.randn(2, 67, dtype=dt)
        for wav, mode in (("db4", "reflect"), ("sym3", "zero"), ("haar", "periodic"),
                          ("db2", "symmetric"), ("coif1", "constant")):
            rows += round_trip(f"{tag(dt)} wavedec {wav} {mode}",
                               lambda v, w=wav, m=mode: ptwt.wavedec(v, w, mode=m, level=2),
                               lambda c, w=wav: ptwt.waverec(c, w), x)
        x2 = torch.randn(2, 20, 18, dtype=dt)
        for wav, mode in (("db2", "reflect"), ("haar", "zero")):
            rows += round_trip(f"{tag(dt)} wavedec2 {wav} {mode}",
                               lambda v, w=wav, m=mode: ptwt.wavedec2(v, w, mode=m, level=2),
                               lambda c, w=wav: ptwt.waverec2(c, w), x2)
        rows += round_trip(f"{tag(dt)} fswavedec2", lambda v: ptwt.fswavedec2(v, "db2", level=1),
                           lambda c: ptwt.fswaverec2(c, "db2"), x2)
        rows += round_trip(f"{tag(dt)} wavedec3", lambda v: ptwt.wavedec3(v, "db2", level=1),
                           lambda c: ptwt.waverec3(c, "db2"), torch.randn(1, 8, 10, 8, dtype=dt))
    return rows


@variant("swt_cwt")
def _():
    rows = []
    for dt in DTYPES:
        x = torch.randn(2, 64, dtype=dt)
        rows += round_trip(f"{tag(dt)} swt", lambda v: ptwt.swt(v, "db2", level=2),
                           lambda c: ptwt.iswt(c, "db2"), x)
        scales = torch.arange(1, 9, dtype=dt)
        for wav in ("cmor1.5-1.0", "mexh", "shan1-1", "gaus1"):
            label = f"{tag(dt)} cwt {wav}"
            rows += forward_backward(lambda v, w=wav, s=scales: ptwt.cwt(v, s, w)[0], x, label)
            rows.append((f"{label} freqs", torch.as_tensor(ptwt.cwt(x, scales, wav)[1])))
        # differentiable complex Morlet and Shannon wavelets (float64 bandwidth and centre
        # frequency parameters)
        for cls, name in ((ptwt.continuous_transform._ComplexMorletWavelet, "cmor1.5-1.0"),
                          (ptwt.continuous_transform._ShannonWavelet, "shan1-1")):
            wav = cls(name)
            c, _ = ptwt.cwt(x, scales, wav)
            sq(c).backward()
            label = f"{tag(dt)} diffcwt {name}"
            rows += [(label, c), (f"{label} grad bandwidth", wav.bandwidth_par.grad),
                     (f"{label} grad center", wav.center_par.grad)]
    return rows


@variant("matrix")
def _():
    rows = []
    for dt in DTYPES:
        x = torch.randn(2, 64, dtype=dt)
        for orth in ("qr", "gramschmidt"):
            rows += round_trip(f"{tag(dt)} matrixwavedec db2 {orth}",
                               ptwt.MatrixWavedec("db2", level=2, orthogonalization=orth),
                               ptwt.MatrixWaverec("db2", orthogonalization=orth), x)
        x2 = torch.randn(2, 16, 16, dtype=dt)
        for sep in (True, False):
            rows += round_trip(f"{tag(dt)} matrixwavedec2 sep={sep}",
                               ptwt.MatrixWavedec2("haar", level=2, separable=sep),
                               ptwt.MatrixWaverec2("haar", separable=sep), x2)
        rows += round_trip(f"{tag(dt)} matrixwavedec3", ptwt.MatrixWavedec3("db2", level=1),
                           ptwt.MatrixWaverec3("db2"), torch.randn(1, 8, 8, 8, dtype=dt))
    return rows


@variant("packets")
def _():
    rows = []
    for dt in DTYPES:
        x = torch.randn(2, 64, dtype=dt)
        for mode in ("reflect", "boundary"):
            wp = ptwt.WaveletPacket(x, "db2", mode=mode, maxlevel=2)
            for node in ("a", "d", "aa", "ad", "da", "dd"):
                rows.append((f"{tag(dt)} wp {mode} {node}", wp[node]))
            wp.reconstruct()
            rows.append(err(f"{tag(dt)} wp {mode}", wp[""][..., :64], x))
        x2 = torch.randn(2, 16, 16, dtype=dt)
        wp2 = ptwt.WaveletPacket2D(x2, "haar", mode="reflect", maxlevel=2)
        for node in ("a", "h", "v", "d", "ah", "dv"):
            rows.append((f"{tag(dt)} wp2 {node}", wp2[node]))
        xg = x.clone().requires_grad_()
        sq(ptwt.WaveletPacket(xg, "db2", mode="reflect", maxlevel=2)["ad"]).backward()
        rows.append((f"{tag(dt)} wp ad grad", xg.grad))
    return rows


# ------------------------------------------------------------------ torch-dct
@variant("dct")
def _():
    rows = []
    for dt in DTYPES:
        x = torch.randn(3, 10, dtype=dt)
        for norm in (None, "ortho"):
            rows += round_trip(f"{tag(dt)} dct norm={norm}",
                               lambda v, n=norm: torch_dct.dct(v, norm=n),
                               lambda c, n=norm: torch_dct.idct(c, norm=n), x)
            rows += forward_backward(lambda v, n=norm: torch_dct.idct(v, norm=n), x,
                                     f"{tag(dt)} idct norm={norm}")
        rows += round_trip(f"{tag(dt)} dct1", torch_dct.dct1, torch_dct.idct1, x)
        x2 = torch.randn(2, 6, 8, dtype=dt)
        rows += round_trip(f"{tag(dt)} dct_2d", lambda v: torch_dct.dct_2d(v, norm="ortho"),
                           lambda c: torch_dct.idct_2d(c, norm="ortho"), x2)
        rows += round_trip(f"{tag(dt)} dct_3d", torch_dct.dct_3d, torch_dct.idct_3d,
                           torch.randn(2, 4, 6, 5, dtype=dt))
        lin = torch_dct.LinearDCT(8, "dct", norm="ortho").to(dt)
        ilin = torch_dct.LinearDCT(8, "idct", norm="ortho").to(dt)
        rows += [(f"{tag(dt)} LinearDCT weight", lin.weight),
                 err(f"{tag(dt)} LinearDCT vs dct", lin(x2), torch_dct.dct(x2, norm="ortho"))]
        y = torch.randn(2, 8, 8, dtype=dt)
        rows += [(f"{tag(dt)} apply_linear_2d", torch_dct.apply_linear_2d(y, lin)),
                 err(f"{tag(dt)} apply_linear_2d inverse",
                     torch_dct.apply_linear_2d(torch_dct.apply_linear_2d(y, lin), ilin), y)]
        z = torch.randn(1, 8, 8, 8, dtype=dt)
        rows.append((f"{tag(dt)} apply_linear_3d", torch_dct.apply_linear_3d(z, lin)))
    return rows


# ------------------------------------------------------------------ torch-harmonics
@variant("sht")
def _():
    rows = []
    for dt in DTYPES:
        for grid, (nlat, nlon) in (("equiangular", (16, 32)), ("legendre-gauss", (12, 24)),
                                   ("lobatto", (13, 24))):
            sht = th_sht.RealSHT(nlat, nlon, grid=grid).to(dt)
            isht = th_sht.InverseRealSHT(nlat, nlon, grid=grid).to(dt)
            label = f"{tag(dt)} sht {grid}"
            x = torch.randn(2, nlat, nlon, dtype=dt)
            rows += forward_backward(sht, x, label)
            # a band-limited field (the synthesis of random coefficients) comes back exactly
            coeffs = sht(torch.randn(2, nlat, nlon, dtype=dt))
            field = isht(coeffs)
            rows += [(f"{label} field", field), err(label, isht(sht(field)), field)]
            rows += forward_backward(isht, coeffs, f"{tag(dt)} isht {grid}")
        vsht = th_sht.RealVectorSHT(12, 24, grid="legendre-gauss").to(dt)
        ivsht = th_sht.InverseRealVectorSHT(12, 24, grid="legendre-gauss").to(dt)
        u = torch.randn(1, 2, 12, 24, dtype=dt)
        rows += forward_backward(vsht, u, f"{tag(dt)} vector sht")
        v = ivsht(vsht(u))
        rows += [(f"{tag(dt)} vector field", v), err(f"{tag(dt)} vector", ivsht(vsht(v)), v)]
    return rows


@variant("s2_layers")
def _():
    rows = []
    for dt in DTYPES:
        x = torch.randn(2, 3, 12, 24, dtype=dt)
        spec = built_in(dt, lambda: th_spec.SpectralConvS2(
            (12, 24), (12, 24), 3, 4, grid_in="legendre-gauss", grid_out="legendre-gauss",
            bias=True))
        rows += forward_backward(lambda v, m=spec: m(v)[0], x, f"{tag(dt)} spectral conv")
        rows.append((f"{tag(dt)} spectral conv weight grad", spec.weight.grad))
        disco = th_disco.DiscreteContinuousConvS2(3, 4, in_shape=(12, 24), out_shape=(6, 12),
                                                  kernel_shape=(3,), grid_in="equiangular",
                                                  grid_out="equiangular",
                                                  optimized_kernel=False).to(dt)
        rows += forward_backward(disco, x, f"{tag(dt)} disco conv")
        rows.append((f"{tag(dt)} disco weight grad", disco.weight.grad))
        tdisco = th_disco.DiscreteContinuousConvTransposeS2(
            4, 2, in_shape=(6, 12), out_shape=(12, 24), kernel_shape=(2, 2),
            basis_type="piecewise linear", optimized_kernel=False).to(dt)
        rows += forward_backward(tdisco, torch.randn(2, 4, 6, 12, dtype=dt),
                                 f"{tag(dt)} disco transpose")
        res = th_resample.ResampleS2(12, 24, 16, 32, grid_in="legendre-gauss",
                                     grid_out="equiangular").to(dt)
        rows += forward_backward(res, x, f"{tag(dt)} resample")
        quad = th_quad.QuadratureS2((12, 24), grid="legendre-gauss").to(dt)
        rows += forward_backward(quad, x, f"{tag(dt)} quadrature")
    return rows


def run(name):
    torch.manual_seed(0)
    for label, value in VARIANTS[name]():
        show(f"{name} {label}", value)


def main(argv):
    names = list(VARIANTS) if argv in ([], ["all"]) else argv
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"unknown variants {unknown}; known: {' '.join(VARIANTS)}")
    for name in names:
        start = time.time()
        try:
            run(name)
        except Exception as e:   # noqa: BLE001 - printed, so both runs show the same failure
            print(f"{name} FAILED {type(e).__name__}: {e}")
        print(f"[{name}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
