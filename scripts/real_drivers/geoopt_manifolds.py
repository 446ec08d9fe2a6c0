"""Driver of geoopt (docs/real-programs.md): the installed package, unchanged, at tiny sizes in
float32 and float64: its manifolds (Euclidean, Sphere and SphereExact, the Stiefel family,
PoincareBall, Stereographic and SphereProjection with a learnable curvature, Lorentz, Scaled,
ProductManifold and StereographicProductManifold, BirkhoffPolytope, SymmetricPositiveDefinite
under its three metrics, the Siegel UpperHalf and BoundedDomain), their operations (projx,
proju, egrad2rgrad, inner, norm, retr, expmap, logmap, transp, dist, the gyrovector and
Mobius operations, geodesics, random samplers, origins) with the gradients of losses through
them, ManifoldTensor and ManifoldParameter (deepcopy, pickling through ``torch.save``),
``geoopt.linalg``, ``geoopt.utils``, ``geoopt.layers.Distance2StereographicHyperplanes``,
the tree dataset, the samplers (RSGLD, RHMC, SGRHMC) and small optimizations with every
optimizer (Poincare embeddings of a tree by RiemannianAdam with amsgrad and stabilize, PCA on
the Stiefel manifold by RiemannianSGD with Nesterov momentum and weight decay, a Karcher mean
on SPD matrices, a Rayleigh quotient by RiemannianLineSearch (Armijo and Wolfe), the sparse
optimizers on hand-made sparse gradients) and a state_dict save/load that resumes a run.

    python scripts/shared_rng_run.py drive_geoopt.py [VARIANT ... | all]             # real PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_geoopt.py [VARIANT ... | all]   # jtorch

Without arguments it runs every variant (``all`` too), each in float32 and float64 unless its
name ends in ``32`` or ``64`` (then only that one). Each run reseeds (``torch.manual_seed``).
"""

import copy
import io
import os
import sys
import time
import warnings

import numpy as np
import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import geoopt  # noqa: E402
from geoopt.datasets.stereographic import StereographicTreeDataset  # noqa: E402
from geoopt.layers.stereographic import Distance2StereographicHyperplanes  # noqa: E402

VARIANTS = {}
DT = [torch.float32]  # the dtype of the current run


def variant(name):
    def register(build):
        VARIANTS[name] = build
        return build
    return register


def fmt(t):
    """A tensor's shape, dtype and values (up to 16 of them), else its checksum."""
    if not isinstance(t, torch.Tensor):
        return repr(t)
    t = t.detach()
    if t.is_complex():
        return f"complex real {fmt(t.real)} imag {fmt(t.imag)}"
    head = f"{list(t.shape)} {str(t.dtype).replace('torch.', '')}"
    flat = t.double().flatten()
    if flat.numel() <= 16:
        return f"{head} {[float(v) for v in flat.tolist()]}"
    w = 1.0 + (torch.arange(flat.numel(), dtype=torch.float64) % 7) / 6
    return (f"{head} abssum {flat.abs().sum().item()!r} wsum {(flat * w).sum().item()!r} "
            f"absmax {flat.abs().max().item()!r}")


def show(label, value):
    if isinstance(value, (tuple, list)) and value and isinstance(value[0], torch.Tensor):
        for i, v in enumerate(value):
            print(f"  {label}[{i}] {fmt(v)}")
    else:
        print(f"  {label} {fmt(value)}")


def attempt(label, fn):
    """Print ``fn()``, or the exception it raised (geoopt raises on purpose for operations a
    manifold lacks; the text must then agree too)."""
    try:
        value = fn()
    except Exception as e:  # noqa: BLE001 - printed, so a difference shows
        print(f"  {label} raised {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
        return None
    show(label, value)
    return value


def randn(*size):
    return torch.randn(*size, dtype=DT[0])


def leaf(t):
    return t.detach().clone().requires_grad_()


def mnorm(m, x, u):
    """The tangent norm: Lorentz's ``norm`` takes the vector alone."""
    return m.norm(u) if isinstance(m, geoopt.Lorentz) else m.norm(x, u)


def exercise(name, m, x, y, u, v, dist=True, log=True, exp=True, projx_grad=True):
    """The common manifold interface on points ``x, y`` and ambient vectors ``u, v``, then the
    gradient of a loss through projx, retr, expmap, logmap and dist."""
    print(f" {name}: {m!r}")
    show("x_on", m.check_point_on_manifold(x))
    u = m.proju(x, u)
    v = m.proju(x, v)
    show("proju", u)
    show("tangent", m.check_vector_on_tangent(x, u, atol=1e-4, rtol=1e-4))
    show("egrad2rgrad", m.egrad2rgrad(x, v))
    show("inner", m.inner(x, u, v))
    show("inner_self", m.inner(x, u))
    attempt("component_inner", lambda: m.component_inner(x, u, v))
    show("norm", mnorm(m, x, u))
    show("retr", m.retr(x, 0.3 * u))
    show("retr_transp", m.retr_transp(x, 0.3 * u, v))
    show("transp_follow_retr", m.transp_follow_retr(x, 0.3 * u, v))
    if exp:
        attempt("expmap", lambda: m.expmap(x, 0.3 * u))
        attempt("expmap_transp", lambda: m.expmap_transp(x, 0.3 * u, v))
        attempt("transp_follow_expmap", lambda: m.transp_follow_expmap(x, 0.3 * u, v))
    y2 = m.retr(x, 0.3 * u)
    attempt("transp", lambda: m.transp(x, y2, v))
    if log:
        attempt("logmap", lambda: m.logmap(x, y))
    if dist:
        attempt("dist", lambda: m.dist(x, y))
        attempt("dist_keepdim", lambda: m.dist(x, y, keepdim=True))
    xs, us, ys = leaf(x), leaf(u), leaf(y)
    loss = mnorm(m, xs, m.proju(xs, us)).pow(2).sum()
    if projx_grad:  # the Stiefel projx (and retr) fix the QR's signs in place
        loss = loss + m.retr(xs, 0.2 * us).pow(3).sum() + m.projx(xs).cos().sum()
    if exp:
        try:
            loss = loss + m.expmap(xs, 0.1 * us).sin().sum()
        except NotImplementedError:
            pass
    if dist:
        try:
            loss = loss + m.dist(xs, ys).pow(2).sum()
        except NotImplementedError:
            pass
    if log:
        try:
            loss = loss + m.logmap(xs, ys).pow(2).sum()
        except NotImplementedError:
            pass
    loss.backward()
    show("loss", loss)
    show("grad_x", xs.grad)
    show("grad_u", us.grad)
    if ys.grad is not None:
        show("grad_y", ys.grad)


@variant("euclidean_sphere")
def _():
    m = geoopt.Euclidean(ndim=1)
    x, y, u, v = randn(3, 4), randn(3, 4), randn(3, 4), randn(3, 4)
    exercise("euclidean", m, x, y, u, v)
    show("euclidean_random_normal", m.random_normal(2, 3, mean=1.0, std=0.5, dtype=DT[0]))
    show("euclidean_origin", m.origin(2, 3, dtype=DT[0]))
    for m in (geoopt.Sphere(), geoopt.SphereExact()):
        x = m.random_uniform(3, 4, dtype=DT[0])
        y = m.projx(randn(3, 4))
        exercise(type(m).__name__, m, x, y, randn(3, 4), randn(3, 4))
    span = randn(5, 2)
    m = geoopt.Sphere(intersection=span)
    x = m.random_uniform(2, 5, dtype=DT[0])
    show("sphere_intersection_x", x)
    exercise("sphere_intersection", m, x, m.projx(randn(2, 5)), randn(2, 5), randn(2, 5))
    m = geoopt.SphereExact(complement=randn(5, 1))
    exercise("sphere_complement", m, m.projx(randn(2, 5)), m.projx(randn(2, 5)), randn(2, 5),
             randn(2, 5))
    m = geoopt.Scaled(geoopt.Sphere(), scale=2.0, learnable=True)
    x, y = m.random(3, 4, dtype=DT[0]), m.projx(randn(3, 4))
    exercise("scaled_sphere", m, x, y, randn(3, 4), randn(3, 4))
    xs, ys = leaf(x), leaf(y)
    d = m.dist(xs, ys).sum()
    d.backward()
    show("scaled_dist", d)
    show("scaled_grad_scale", m.log_scale.grad)


@variant("stiefel")
def _():
    for m in (geoopt.Stiefel(), geoopt.Stiefel(canonical=False), geoopt.CanonicalStiefel(),
              geoopt.EuclideanStiefel(), geoopt.EuclideanStiefelExact()):
        x = m.random_naive(2, 5, 3, dtype=DT[0])
        y = m.projx(randn(2, 5, 3))
        show("origin", m.origin(5, 3, dtype=DT[0]))
        exercise(type(m).__name__, m, x, y, randn(2, 5, 3), randn(2, 5, 3), log=False,
                 dist=False, exp=isinstance(m, geoopt.EuclideanStiefelExact), projx_grad=False)


@variant("stereographic")
def _():
    for k in (-1.0, 0.0, 0.7):
        m = geoopt.Stereographic(k=k, learnable=True)
        x = m.random_normal(3, 4, std=0.3, dtype=DT[0])
        y = m.wrapped_normal(3, 4, mean=m.origin(4, dtype=DT[0]), std=0.3)
        u, v = randn(3, 4), randn(3, 4)
        exercise(f"stereographic k={k}", m, x, y, u, v)
        show("radius", m.radius)
        show("mobius_add", m.mobius_add(x, y))
        show("mobius_sub", m.mobius_sub(x, y))
        show("mobius_coadd", m.mobius_coadd(x, y))
        show("mobius_cosub", m.mobius_cosub(x, y))
        show("mobius_scalar_mul", m.mobius_scalar_mul(torch.tensor(1.7, dtype=DT[0]), x))
        show("mobius_pointwise_mul", m.mobius_pointwise_mul(randn(4), x))
        mat = randn(3, 4)
        show("mobius_matvec", m.mobius_matvec(mat, x))
        show("mobius_fn_apply", m.mobius_fn_apply(torch.tanh, x))
        show("mobius_fn_apply_chain", m.mobius_fn_apply_chain(x, torch.tanh, torch.sigmoid))
        t = torch.linspace(0, 1, 3, dtype=DT[0])[:, None]
        show("geodesic", m.geodesic(t, x, y))
        show("geodesic_unit", m.geodesic_unit(t, x, m.proju(x, u)))
        show("lambda_x", m.lambda_x(x))
        show("dist0", m.dist0(x))
        show("dist2", m.dist2(x, y))
        show("expmap0", m.expmap0(0.5 * u))
        show("logmap0", m.logmap0(x))
        show("transp0", m.transp0(x, v))
        show("transp0back", m.transp0back(x, v))
        show("gyration", m.gyration(x, y, v))
        show("antipode", m.antipode(x))
        show("dist2plane", m.dist2plane(x, y, u))
        show("dist2plane_unsigned", m.dist2plane(x, y, u, signed=False, scaled=True))
        w = torch.rand(3, dtype=DT[0])
        show("weighted_midpoint", m.weighted_midpoint(x, w, reducedim=[0]))
        show("weighted_midpoint_lincomb", m.weighted_midpoint(x, w, reducedim=[0],
                                                              lincomb=True))
        show("sproj", m.sproj(x))
        show("inv_sproj", m.inv_sproj(m.sproj(x)))
        # gradients through the operations and the learnable curvature
        xs, ys, ms = leaf(x), leaf(y), leaf(mat)
        loss = (m.dist(xs, ys).pow(2).sum() + m.mobius_matvec(ms, xs).pow(2).sum()
                + m.mobius_add(xs, ys).sum() + m.dist2plane(xs, ys, u).sum()
                + m.logmap0(m.expmap0(xs)).pow(2).sum()
                + m.weighted_midpoint(xs, w, reducedim=[0]).sum())
        loss.backward()
        show("op_loss", loss)
        show("op_grad_x", xs.grad)
        show("op_grad_y", ys.grad)
        show("op_grad_mat", ms.grad)
        show("op_grad_isp_k", m.isp_k.grad if hasattr(m, "isp_k") else m.k.grad)
    for m in (geoopt.PoincareBall(c=1.3), geoopt.PoincareBallExact(),
              geoopt.SphereProjection(k=0.5), geoopt.SphereProjectionExact(),
              geoopt.StereographicExact(k=-0.4)):
        x = m.random_normal(2, 3, std=0.4, dtype=DT[0])
        y = m.projx(0.5 * randn(2, 3))
        exercise(type(m).__name__, m, x, y, randn(2, 3), randn(2, 3))
        attempt("c", lambda m=m: m.c)
        show("k", m.k)


@variant("lorentz")
def _():
    m = geoopt.Lorentz(k=1.5, learnable=True)
    x = m.random_normal(3, 4, std=0.5, dtype=DT[0])
    y = m.projx(randn(3, 4))
    u, v = randn(3, 4), randn(3, 4)
    exercise("lorentz", m, x, y, u, v)
    show("origin", m.origin(2, 4, dtype=DT[0]))
    show("dist0", m.dist0(x))
    show("expmap0", m.expmap0(m.proju(m.origin(3, 4, dtype=DT[0]), 0.4 * u)))
    show("logmap0", m.logmap0(x))
    show("logmap0back", m.logmap0back(x))
    show("inner0", m.inner0(m.proju(x, u)))
    show("transp0", m.transp0(x, m.proju(m.origin(3, 4, dtype=DT[0]), v)))
    show("transp0back", m.transp0back(x, m.proju(x, v)))
    show("geodesic_unit", m.geodesic_unit(torch.tensor(0.7, dtype=DT[0]), x, m.proju(x, u)))
    from geoopt.manifolds.lorentz import math as lmath
    ball = lmath.lorentz_to_poincare(x, m.k)
    show("lorentz_to_poincare", ball)
    show("poincare_to_lorentz", lmath.poincare_to_lorentz(ball, m.k))
    xs, ys = leaf(x), leaf(y)
    loss = m.dist(xs, ys).sum() + m.logmap0(xs).pow(2).sum()
    loss.backward()
    show("k_loss", loss)
    show("k_grad", m.k.grad)
    show("k_grad_x", xs.grad)


@variant("product")
def _():
    m = geoopt.ProductManifold((geoopt.Sphere(), 3), (geoopt.PoincareBall(), 2),
                               (geoopt.Euclidean(ndim=2), (2, 2)))
    x = m.random_combined(3, m.n_elements, dtype=DT[0])
    y = m.projx(0.3 * randn(3, m.n_elements))
    exercise("product", m, x, y, randn(3, m.n_elements), randn(3, m.n_elements))
    show("unpack", m.unpack_tensor(x))
    parts = m.unpack_tensor(x)
    show("pack", m.pack_point(*parts))
    show("take_submanifold_value", m.take_submanifold_value(x, 1))
    pt = geoopt.ProductManifold.from_point(geoopt.ManifoldTensor(parts[0], manifold=m.manifolds[0]),
                                           geoopt.ManifoldTensor(parts[1], manifold=m.manifolds[1]))
    print(f"  from_point {pt!r}")
    show("origin", m.origin(3, m.n_elements, dtype=DT[0]))
    s = geoopt.StereographicProductManifold((geoopt.PoincareBall(), 2),
                                            (geoopt.SphereProjection(), 3))
    x = s.projx(0.3 * s.random_combined(3, 5, dtype=DT[0]))
    y = s.wrapped_normal(3, 5, mean=s.origin(5, dtype=DT[0]), std=0.3, dtype=DT[0])
    exercise("stereographic_product", s, x, y, randn(3, 5), randn(3, 5))
    show("sp_mobius_add", s.mobius_add(x, y))
    show("sp_mobius_scalar_mul", s.mobius_scalar_mul(torch.tensor(0.6, dtype=DT[0]), x))
    show("sp_mobius_matvec", s.mobius_matvec(randn(5, 5), x))
    show("sp_geodesic", s.geodesic(torch.tensor(0.4, dtype=DT[0]), x, y))
    show("sp_dist0", s.dist0(x))
    show("sp_expmap0", s.expmap0(0.3 * randn(3, 5)))
    show("sp_logmap0", s.logmap0(x))
    show("sp_dist2plane", s.dist2plane(x, y, randn(3, 5)))
    show("sp_antipode", s.antipode(x))
    show("sp_mobius_fn_apply", s.mobius_fn_apply(torch.tanh, x))


@variant("birkhoff_spd")
def _():
    m = geoopt.BirkhoffPolytope()
    x = m.random_naive(2, 4, 4, dtype=DT[0])
    y = m.projx(randn(2, 4, 4).abs())
    exercise("birkhoff", m, x, y, randn(2, 4, 4), randn(2, 4, 4), dist=False, log=False,
             exp=False)
    show("birkhoff_rowsum", x.sum(-1))
    show("birkhoff_origin", m.origin(4, 4, dtype=DT[0]))
    for metric in ("AIM", "SM", "LEM"):
        m = geoopt.SymmetricPositiveDefinite(default_metric=metric)
        x = m.random(2, 3, 3, dtype=DT[0])
        y = m.random(2, 3, 3, dtype=DT[0])
        u, v = geoopt.linalg.sym(randn(2, 3, 3)), geoopt.linalg.sym(randn(2, 3, 3))
        exercise(f"spd {metric}", m, x, y, u, v)
        show("spd_origin", m.origin(3, 3, dtype=DT[0]))
    a = SPD_SAMPLE(3)
    for fn in ("sym_expm", "sym_logm", "sym_sqrtm", "sym_invm", "sym_inv_sqrtm1",
               "sym_inv_sqrtm2"):
        attempt(f"linalg.{fn}", lambda fn=fn: getattr(geoopt.linalg, fn)(a))
    show("linalg.expm", geoopt.linalg.expm(0.3 * randn(2, 3, 3)))
    show("linalg.trace", geoopt.linalg.trace(a))
    show("linalg.trace_keepdim", geoopt.linalg.trace(a, keepdim=True))
    show("linalg.extract_diag", geoopt.linalg.extract_diag(a))
    show("linalg.block_matrix", geoopt.linalg.block_matrix([[a[0], a[1]], [a[1], a[0]]]))
    show("linalg.matrix_rank", geoopt.linalg.matrix_rank(a))
    show("linalg.sym_funcm", geoopt.linalg.sym_funcm(a, torch.sin))
    al = leaf(a)
    loss = (geoopt.linalg.sym_logm(al).pow(2).sum() + geoopt.linalg.sym_sqrtm(al).sum()
            + geoopt.linalg.expm(0.1 * al).sum())
    loss.backward()
    show("linalg_loss", loss)
    show("linalg_grad", al.grad)


def SPD_SAMPLE(n):
    q = randn(2, n, n)
    return q @ q.transpose(-1, -2) + 0.5 * torch.eye(n, dtype=DT[0])


@variant("siegel")
def _():
    from geoopt.manifolds.siegel.vvd_metrics import SiegelMetricType
    for metric in (SiegelMetricType.RIEMANNIAN, SiegelMetricType.FINSLER_ONE,
                   SiegelMetricType.FINSLER_INFINITY, SiegelMetricType.FINSLER_MINIMUM,
                   SiegelMetricType.WEIGHTED_SUM):
        for cls in (geoopt.UpperHalf, geoopt.BoundedDomain):
            m = cls(metric=metric, rank=3)
            ctype = torch.complex64 if DT[0] == torch.float32 else torch.complex128
            z = m.random(2, 3, 3, dtype=ctype)
            w = m.random(2, 3, 3, dtype=ctype)
            print(f" {cls.__name__} {metric.value}")
            attempt("z", lambda z=z: z)
            attempt("dist", lambda m=m, z=z, w=w: m.dist(z, w))
            if metric == SiegelMetricType.RIEMANNIAN:
                u = torch.complex(randn(2, 3, 3), randn(2, 3, 3))
                u = u + u.transpose(-1, -2)
                attempt("projx", lambda m=m, z=z: m.projx(z))
                attempt("egrad2rgrad", lambda m=m, z=z, u=u: m.egrad2rgrad(z, u))
                attempt("inner", lambda m=m, z=z, u=u: m.inner(z, u))
                attempt("retr", lambda m=m, z=z, u=u: m.retr(z, 0.01 * u))
                attempt("origin", lambda m=m, c=ctype: m.origin(2, 3, 3, dtype=c))


@variant("tensors")
def _():
    ball = geoopt.PoincareBall(c=0.8)
    t = geoopt.ManifoldTensor(ball.random_normal(2, 3, std=0.3, dtype=DT[0]), manifold=ball)
    print(f"  repr {t!r}")
    other = ball.random_normal(2, 3, std=0.3, dtype=DT[0])
    show("dist_g", t.dist(other, p="g"))
    show("dist_2", t.dist(other))
    u = randn(2, 3)
    show("t.proju", t.proju(u))
    show("t.retr", t.retr(t.proju(u)))
    show("t.expmap", t.expmap(0.2 * u))
    show("t.logmap", t.logmap(other))
    show("t.inner", t.inner(u))
    show("t.transp", t.transp(other, u))
    show("t.retr_transp", t.retr_transp(0.2 * u, u))
    print(f"  type_after_add {type(t + 1).__name__} {type(t.detach()).__name__}")
    big = geoopt.ManifoldTensor(3 * torch.ones(2, 3, dtype=DT[0]), manifold=geoopt.Euclidean())
    big.manifold = ball
    big.proj_()
    show("proj_", big)
    try:
        geoopt.ManifoldTensor(torch.ones(2, 3, dtype=DT[0]), manifold=geoopt.Sphere())
    except ValueError as e:
        print(f"  off_manifold ValueError {str(e).splitlines()[0]}")
    p = geoopt.ManifoldParameter(t, manifold=ball)
    print(f"  param repr {p!r}")
    print(f"  param {type(p).__name__} requires_grad {p.requires_grad} is_leaf {p.is_leaf} "
          f"manifold {p.manifold!r} isinstance_param {isinstance(p, torch.nn.Parameter)}")
    q = copy.deepcopy(p)
    print(f"  deepcopy {type(q).__name__} {q.manifold!r} same {q.manifold is p.manifold} "
          f"{torch.equal(q.data, p.data)} requires_grad {q.requires_grad}")
    show("deepcopy_k", q.manifold.k)
    buf = io.BytesIO()
    torch.save({"p": p, "t": t}, buf)
    buf.seek(0)
    loaded = torch.load(buf, weights_only=False)
    lp, lt = loaded["p"], loaded["t"]
    print(f"  loaded {type(lp).__name__} {lp.manifold!r} {type(lt).__name__} {lt.manifold!r} "
          f"requires_grad {lp.requires_grad} {lt.requires_grad}")
    show("loaded_p", lp)
    print(f"  utils.ismanifold {geoopt.utils.ismanifold(geoopt.Scaled(ball), geoopt.PoincareBall)}"
          f" canonical {geoopt.utils.canonical_manifold(geoopt.Scaled(ball))!r}")
    print(f"  utils.size2shape {geoopt.utils.size2shape(3)} {geoopt.utils.size2shape((2, 3))} "
          f"broadcast {geoopt.utils.broadcast_shapes((2, 1), (1, 3))} "
          f"list_range {geoopt.utils.list_range(3)} "
          f"canonical_dims {geoopt.utils.canonical_dims([-1, 1], 3)}")
    show("utils.drop_dims", geoopt.utils.drop_dims(torch.ones(2, 1, 3, 1, dtype=DT[0]), [1, 3]))
    show("utils.sign", geoopt.utils.sign(torch.tensor([-2.0, 0.0, 3.0], dtype=DT[0])))
    show("utils.clamp_abs", geoopt.utils.clamp_abs(torch.tensor([-1e-20, 0.0, 3.0],
                                                                dtype=DT[0]), 1e-5))
    show("utils.sabs", geoopt.utils.sabs(torch.tensor([-2.0, 0.0], dtype=DT[0])))


@variant("layers_dataset")
def _():
    ball = geoopt.Stereographic(-1.0)
    layer = torch.nn.Sequential(
        Distance2StereographicHyperplanes(2, 4, ball=ball, init_std=0.5),
        torch.nn.Linear(4, 3)).to(DT[0])
    print(f"  {layer!r}")
    for name, p in layer.named_parameters():
        print(f"  param {name} {type(p).__name__}")
        show(name, p)
    x = ball.random_normal(5, 2, std=0.5, dtype=DT[0])
    show("out", layer(x))
    conv = Distance2StereographicHyperplanes(2, 3, ball=ball, ndim=2,
                                                           squared=True).to(DT[0])
    img = ball.random_normal(1, 4, 4, 2, std=0.5, dtype=DT[0]).permute(0, 3, 1, 2)
    show("conv_out", conv(img))
    unsigned = Distance2StereographicHyperplanes(2, 3, ball=ball, signed=False,
                                                               squared=True).to(DT[0])
    show("unsigned_out", unsigned(x))
    opt = geoopt.optim.RiemannianAdam(layer.parameters(), lr=0.05)
    target = randn(5, 3)
    for step in range(4):
        opt.zero_grad()
        loss = (layer(x) - target).pow(2).mean()
        loss.backward()
        if step == 0:
            show("grad_points", layer[0].points.grad)
        opt.step()
        show(f"layer_step{step}", loss)
    show("points", layer[0].points)
    data = StereographicTreeDataset(geoopt.PoincareBall(), dim=2, depth=3, numberOfChildren=2,
                                    numberOfsiblings=2)
    print(f"  dataset len {len(data)}")
    xs, ys, top = zip(*[data[i] for i in range(len(data))])
    show("dataset_x", torch.stack(xs))
    show("dataset_labels", torch.stack(ys))
    show("dataset_top", torch.stack(top))
    show("dataset_nodes", data.origin_data)
    print(f"  dataset num_classes {data.num_classes}")


def tree_edges(depth=3):
    edges, frontier, nxt = [], [0], 1
    for _ in range(depth):
        new = []
        for parent in frontier:
            for _ in range(2):
                edges.append((parent, nxt))
                new.append(nxt)
                nxt += 1
        frontier = new
    return edges, nxt


@variant("poincare_embedding")
def _():
    edges, n = tree_edges(3)
    ball = geoopt.PoincareBall(c=1.0, learnable=True)
    emb = geoopt.ManifoldParameter(ball.random_normal(n, 2, std=0.05, dtype=DT[0]),
                                   manifold=ball)
    adj = torch.zeros(n, n, dtype=torch.bool)
    for a, b in edges:
        adj[a, b] = adj[b, a] = True
    pos = torch.tensor(edges)
    opt = geoopt.optim.RiemannianAdam([{"params": [emb]},
                                       {"params": ball.parameters(), "lr": 0.01}],
                                      lr=0.1, amsgrad=True, stabilize=3)
    for step in range(12):
        opt.zero_grad()
        d = ball.dist(emb[:, None, :], emb[None, :, :])
        # Nickel and Kiela's loss: each edge against every other pair from its first node
        logits = -d
        neg = logits.masked_fill(adj | torch.eye(n, dtype=torch.bool), -1e9)
        loss = (-(logits[pos[:, 0], pos[:, 1]])
                + torch.logsumexp(torch.cat([logits[pos[:, 0], pos[:, 1]][:, None],
                                             neg[pos[:, 0]]], 1), 1)).mean()
        loss.backward()
        opt.step()
        print(f"  step {step} loss {loss.item()!r} c {ball.c.item()!r} "
              f"max_norm {emb.detach().norm(dim=-1).max().item()!r}")
    show("embedding", emb)
    show("state_exp_avg", opt.state[emb]["exp_avg"])
    show("state_max_exp_avg_sq", opt.state[emb]["max_exp_avg_sq"])


@variant("stiefel_pca")
def _():
    data = randn(20, 5) * torch.tensor([3.0, 2.0, 1.0, 0.5, 0.2], dtype=DT[0])
    cov = data.T @ data / 20
    top = torch.linalg.eigh(cov.double()).eigenvectors[:, -2:].to(DT[0])
    for label, manifold, kw in (
            ("sgd_nesterov_wd", geoopt.EuclideanStiefel(),
             {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 1e-3, "stabilize": 4}),
            ("sgd_momentum_canonical", geoopt.CanonicalStiefel(),
             {"lr": 0.05, "momentum": 0.5, "dampening": 0.1}),
            ("sgd_plain_exact", geoopt.EuclideanStiefelExact(), {"lr": 0.05})):
        w = geoopt.ManifoldParameter(manifold.random(5, 2, dtype=DT[0]), manifold=manifold)
        opt = geoopt.optim.RiemannianSGD([w], **kw)
        for step in range(15):
            opt.zero_grad()
            loss = -torch.trace(w.T @ cov @ w)
            loss.backward()
            opt.step()
            if step % 3 == 2:
                print(f"  {label} step {step} loss {loss.item()!r}")
        show(f"{label}_orth", w.T @ w)
        show(f"{label}_overlap", (top.T @ w).abs())
    stiefel = geoopt.Stiefel()
    adam = geoopt.ManifoldParameter(stiefel.random(5, 2, dtype=DT[0]), manifold=stiefel)
    opt = geoopt.optim.RiemannianAdam([adam], lr=0.1, weight_decay=1e-3)
    for _ in range(10):
        opt.zero_grad()
        loss = -torch.trace(adam.T @ cov @ adam)
        loss.backward()
        opt.step()
    print(f"  adam loss {loss.item()!r}")
    show("adam_w", adam)


@variant("spd_karcher")
def _():
    spd = geoopt.SymmetricPositiveDefinite()
    points = spd.random(4, 3, 3, dtype=DT[0])
    # not from the identity: eigh's gradient there divides by zero eigengaps
    mean = geoopt.ManifoldParameter(points[0].clone(), manifold=spd)
    opt = geoopt.optim.RiemannianSGD([mean], lr=0.2, momentum=0.3)
    for step in range(10):
        opt.zero_grad()
        loss = spd.dist(mean[None], points).pow(2).mean()
        loss.backward()
        opt.step()
        print(f"  karcher step {step} loss {loss.item()!r}")
    show("karcher_mean", mean)
    show("karcher_rgrad", spd.egrad2rgrad(mean, mean.grad))
    # the sphere's Rayleigh quotient by line search
    a = SPD_SAMPLE(4)[0]
    for condition in ("armijo", "wolfe"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x = geoopt.ManifoldParameter(geoopt.Sphere().projx(torch.ones(4, dtype=DT[0])),
                                         manifold=geoopt.Sphere())
            opt = geoopt.optim.RiemannianLineSearch([x], line_search_method=condition,
                                                    line_search_params={}, cg_method="fr")

            def closure(x=x, opt=opt):
                opt.zero_grad()
                loss = x @ a @ x
                loss.backward()
                return loss.item()  # a number: SciPy's Wolfe search does arithmetic on it

            for step in range(5):
                loss = opt.step(closure)
                print(f"  linesearch {condition} step {step} loss {float(loss)!r} "
                      f"step_size {opt.step_size_history[-1]!r}")
        show(f"linesearch_{condition}_x", x)
    print(f"  smallest eigenvalue {torch.linalg.eigvalsh(a.double())[0].item()!r}")


@variant("sparse")
def _():
    for cls, kw in ((geoopt.optim.SparseRiemannianAdam, {"lr": 0.1, "amsgrad": True}),
                    (geoopt.optim.SparseRiemannianSGD, {"lr": 0.1, "momentum": 0.5,
                                                            "nesterov": True, "dampening": 0.0})):
        ball = geoopt.PoincareBall()
        p = geoopt.ManifoldParameter(ball.random_normal(5, 2, std=0.2, dtype=DT[0]),
                                     manifold=ball)
        opt = cls([p], **kw)
        for step in range(3):
            rows = torch.tensor([[step, 3]])
            values = randn(2, 2)
            p.grad = torch.sparse_coo_tensor(rows, values, (5, 2))
            opt.step()
            show(f"{cls.__name__}_step{step}", p)
        try:
            p.grad = randn(5, 2)
            opt.step()
        except RuntimeError as e:
            print(f"  dense grad RuntimeError {e}")


def make_run():
    ball = geoopt.PoincareBall(c=0.5)
    sphere = geoopt.Sphere()
    a = geoopt.ManifoldParameter(ball.random_normal(4, 2, std=0.2, dtype=DT[0]),
                                 manifold=ball)
    b = geoopt.ManifoldParameter(sphere.random_uniform(3, dtype=DT[0]), manifold=sphere)
    c = torch.nn.Parameter(randn(2))
    target = randn(4, 2) * 0.3
    return [a, b, c], target, ball


def run_steps(params, opt, target, ball, steps):
    a, b, c = params
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = (ball.dist(a, target).pow(2).sum() + (b[:2] - c).pow(2).sum()
                + b[2].pow(2))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


@variant("state_dict")
def _():
    for cls, kw in ((geoopt.optim.RiemannianAdam, {"lr": 0.05, "amsgrad": True}),
                    (geoopt.optim.RiemannianSGD, {"lr": 0.05, "momentum": 0.9, "nesterov": True,
                                                      "weight_decay": 1e-2})):
        params, target, ball = make_run()
        start = [p.detach().clone() for p in params]
        opt = cls(params, **kw)
        first = run_steps(params, opt, target, ball, 3)
        buf = io.BytesIO()
        torch.save({"opt": opt.state_dict(), "params": params}, buf)
        rest = run_steps(params, opt, target, ball, 3)
        buf.seek(0)
        saved = torch.load(buf, weights_only=False)
        fresh = saved["params"]
        print(f"  {cls.__name__} saved types {[type(p).__name__ for p in fresh]} "
              f"manifolds {[repr(getattr(p, 'manifold', None)) for p in fresh]}")
        sd = saved["opt"]
        print(f"  state keys {sorted(sd['state'])} "
              f"{[sorted(sd['state'][k]) for k in sorted(sd['state'])]} "
              f"groups {[sorted(k for k in g if k != 'params') for g in sd['param_groups']]}")
        for k in sorted(sd["state"]):
            for name, value in sorted(sd["state"][k].items()):
                show(f"state[{k}].{name}", value)
        opt2 = cls(fresh, **kw)
        opt2.load_state_dict(sd)
        resumed = run_steps(fresh, opt2, target, ball, 3)
        print(f"  losses {first!r} {rest!r} resumed {resumed!r}")
        same = [torch.equal(p.detach(), q.detach()) for p, q in zip(params, fresh)]
        print(f"  resumed_equal {same}")
        show("final_a", fresh[0])
        show("moved_from_start", [p.detach() - s for p, s in zip(fresh, start)])


@variant("samplers")
def _():
    np.random.seed(0)  # RHMC's accept/reject draws from NumPy's global generator
    ball = geoopt.PoincareBallExact()  # a reversible retraction, as the samplers need
    mu = torch.tensor([0.3, 0.2, -0.1], dtype=DT[0])
    for cls, kw in ((geoopt.samplers.RSGLD, {"epsilon": 1e-2}),
                    (geoopt.samplers.RHMC, {"epsilon": 5e-2, "n_steps": 3}),
                    (geoopt.samplers.SGRHMC, {"epsilon": 5e-2, "n_steps": 3, "alpha": 0.5})):
        x = geoopt.ManifoldParameter(ball.random_normal(3, std=0.2, dtype=DT[0]), manifold=ball)
        sampler = cls([x], **kw)
        sampler.burnin = False  # record log-probabilities and rejections from the start

        def closure(x=x):
            return -2.0 * ball.dist(x, mu).pow(2)  # log density of a Riemannian normal

        for step in range(4):
            sampler.step(closure)
            print(f"  {cls.__name__} step {step} log_prob {float(sampler.log_probs[-1])!r} "
                  f"rejected {sampler.n_rejected}/{sampler.steps}")
        show(f"{cls.__name__}_x", x)


def main(argv):
    names = list(VARIANTS) if argv in ([], ["all"]) else argv
    runs = []
    for name in names:
        base = name[:-2] if name[-2:] in ("32", "64") else name
        if base not in VARIANTS:
            sys.exit(f"unknown variant {name}; known: {' '.join(VARIANTS)}")
        dtypes = {"32": [torch.float32], "64": [torch.float64]}.get(
            name[-2:], [torch.float32, torch.float64])
        runs += [(base, dt) for dt in dtypes]
    for name, dt in runs:
        start = time.time()
        torch.manual_seed(0)
        DT[0] = dt
        torch.set_default_dtype(dt)
        print(f"== {name} {str(dt).replace('torch.', '')}")
        VARIANTS[name]()
        torch.set_default_dtype(torch.float32)
        print(f"[{name} {dt}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
