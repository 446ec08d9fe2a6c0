"""Driver of PyPose (docs/real-programs.md): the installed package, unchanged, run on tiny
random inputs: its LieTensor (SO3, so3, SE3, se3, Sim3, sim3, RxSO3, rxso3 in float32 and
float64) and the group operations on it (Exp, Log, Inv, Mul, Act, Adj, AdjT, Jinvp, Jr, Retr,
matrix, conversions), cumulative products, batched linear algebra, the camera and point-cloud
functions, splines, the gradients of losses through all of these, a
pose-graph optimization by Levenberg-Marquardt (and Gauss-Newton) with its solvers, kernels,
correctors, strategies and scheduler, IMU preintegration forward and backward, EKF/UKF,
LQR/MPC, ICP and EPnP, and the APE/RPE metrics, printing each result (small tensors value by
value, larger ones as checksums) at full precision.

    python scripts/shared_rng_run.py drive_pypose.py [VARIANT ... | all]             # real PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_pypose.py [VARIANT ... | all]   # jtorch

Without arguments it runs every variant (``all`` too). Each variant reseeds
(``torch.manual_seed``), so a subset prints what the full run prints for it; PyPose's
``randn_*`` draw from ``torch.randn``, which the wrapper routes to the shared stream.
"""

import os
import sys
import time

import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import pypose as pp  # noqa: E402
from torch import nn  # noqa: E402

VARIANTS = {}
DTYPES = (torch.float32, torch.float64)


def variant(name):
    def register(build):
        VARIANTS[name] = build
        return build
    return register


def plain(t):
    """A LieTensor's data as a plain tensor (what is printed and compared)."""
    return t.tensor() if isinstance(t, pp.LieTensor) else t


def checksum(t):
    """The sum of the magnitudes, a weighted sum (weights 1 to 2 in a period of 7 elements) and
    the largest magnitude, in float64."""
    t = plain(t).detach().double().flatten()
    w = 1.0 + (torch.arange(t.numel(), dtype=torch.float64) % 7) / 6
    return (f"abssum {t.abs().sum().item()!r} wsum {(t * w).sum().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def values(t):
    """A small tensor value by value (floats at full precision), a larger one as a checksum."""
    t = plain(t).detach()
    if t.numel() > 24:
        return checksum(t)
    if t.dtype == torch.bool or not t.is_floating_point():
        return " ".join(str(int(v)) for v in t.flatten().tolist())
    return " ".join(repr(v) for v in t.double().flatten().tolist())


def close(a, b):
    """Whether a round trip came back (rounding residuals are not compared number by number)."""
    a, b = plain(a).detach(), plain(b).detach().to(plain(a).dtype)
    tol = 1e-5 if a.dtype == torch.float32 else 1e-12
    return f"close {torch.allclose(a, b, rtol=tol, atol=tol)}"


# each variant returns [(label, tensor or text)]; a tensor is printed with its shape and dtype


GROUP = {"so3": "SO3", "se3": "SE3", "sim3": "Sim3", "rxso3": "RxSO3"}
LTYPES = ["SO3", "so3", "SE3", "se3", "Sim3", "sim3", "RxSO3", "rxso3"]


def randn_of(name, *size, dtype=torch.float32, **kw):
    return getattr(pp, "randn_" + name)(*size, dtype=dtype, **kw)


@variant("lietensor")
def _():
    """Each group and algebra: random draws, Exp/Log, Inv, Mul, Act on points (3-D and
    homogeneous), matrix, Adj/AdjT, Jinvp, Jr, Retr, identity, the named parts, conversions."""
    out = []
    for dtype in DTYPES:
        d = str(dtype).split(".")[1]
        for name in LTYPES:
            x = randn_of(name, 2, dtype=dtype)
            out.append((f"{d} {name} randn ltype={type(x.ltype).__name__} "
                        f"lshape={list(x.lshape)}", x))
            if name[0].isupper():
                g, a = x, x.Log()
                out.append((f"{d} {name} Log", a))
                out.append((f"{d} {name} Log.Exp", a.Exp()))
                out.append((f"{d} {name} Log.Exp close", close(a.Exp(), g)))
            else:
                a, g = x, x.Exp()
                out.append((f"{d} {name} Exp", g))
                out.append((f"{d} {name} Exp.Log", g.Log()))
                out.append((f"{d} {name} Exp.Log close", close(g.Log(), a)))
                out.append((f"{d} {name} matrix (algebra)", a.matrix()))
            y = randn_of(GROUP.get(name, name), 2, dtype=dtype)
            out += [(f"{d} {name} Inv", g.Inv()),
                    (f"{d} {name} Mul", g * y),
                    (f"{d} {name} matmul", g @ y),
                    (f"{d} {name} Inv*self close", close(g.Inv() * g, pp.identity_like(g))),
                    (f"{d} {name} matrix", g.matrix()),
                    (f"{d} {name} Adj", g.Adj(a)),
                    (f"{d} {name} AdjT", g.AdjT(a)),
                    (f"{d} {name} Jinvp", g.Jinvp(a)),
                    (f"{d} {name} Retr", g.Retr(a)),
                    (f"{d} {name} identity_like", pp.identity_like(g)),
                    (f"{d} {name} translation", g.translation()),
                    (f"{d} {name} rotation", g.rotation()),
                    (f"{d} {name} scale", g.scale())]
            if name in ("so3", "SO3"):  # Jr is implemented for so3 only
                out.append((f"{d} {name} Jr", a.Jr()))
            p = torch.randn(2, 3, dtype=dtype)
            out.append((f"{d} {name} Act3", g.Act(p)))
            out.append((f"{d} {name} @points", g @ p))
            out.append((f"{d} {name} Act4", g.Act(pp.cart2homo(p))))
            if name in ("SO3", "SE3", "Sim3", "RxSO3"):
                out.append((f"{d} {name} euler", g.euler()))
                m = g.matrix()
                back = getattr(pp, "mat2" + name)(m)
                out.append((f"{d} {name} mat2{name}", back))
                out.append((f"{d} {name} mat2{name} close", close(back.matrix(), m)))
                out.append((f"{d} {name} from_matrix", pp.from_matrix(m, x.ltype)))
    # conversions, broadcasting, batched group shapes
    x = pp.randn_SE3(3, 1)
    y = pp.randn_SE3(1, 4)
    out += [("SE3 broadcast Mul", x * y),
            ("SE3 lview", x.lview(3)),
            ("SE3 cumprod dim0", pp.cumprod(pp.randn_SE3(4), dim=0)),
            ("SO3 euler2SO3", pp.euler2SO3(torch.randn(3, 3))),
            ("SO3 quat2unit", pp.quat2unit(torch.randn(2, 4))),
            ("vec2skew", pp.vec2skew(torch.randn(2, 3))),
            ("SO3 from so3 Exp of zero", pp.so3(torch.zeros(2, 3)).Exp()),
            ("SO3 Log of identity", pp.identity_SO3(2).Log()),
            ("SO3 Log near pi", pp.so3(torch.tensor([[3.1415, 0.0, 0.0]])).Exp().Log()),
            ("SO3 small angle Exp", pp.so3(torch.tensor([[1e-6, -2e-6, 3e-7]])).Exp()),
            ("SE3 small Exp", pp.se3(torch.tensor([[0.1, 0.2, 0.3, 1e-7, 0.0, 0.0]])).Exp()),
            ("SE3 indexing", pp.randn_SE3(4)[1:3]),
            ("SE3 cat", torch.cat([pp.randn_SE3(1), pp.randn_SE3(2)], dim=0)),
            ("SE3 stack", torch.stack([pp.randn_SE3(2), pp.randn_SE3(2)], dim=0)),
            ("SE3 geodesic", pp.geodesic_loss(pp.randn_SO3(3), pp.randn_SO3(3))
             if hasattr(pp, "geodesic_loss") else torch.zeros(1))]
    z = pp.randn_se3(2)
    out.append(("se3 add", pp.add(z, torch.randn(2, 6))))
    out.append(("se3 str", str(pp.SE3(torch.tensor([0.0, 0, 0, 0, 0, 0, 1])))))
    return out


@variant("lie_grad")
def _():
    """Gradients of losses through each group's operations, float32 and float64: Exp, Log,
    Inv, Mul, Act, matrix, Adj, Jinvp, Retr, and pp.Parameter in a module."""
    out = []
    for dtype in DTYPES:
        d = str(dtype).split(".")[1]
        for name in ("so3", "se3", "sim3", "rxso3"):
            a = randn_of(name, 3, dtype=dtype, sigma=0.5).requires_grad_()
            b = randn_of(name, 3, dtype=dtype, sigma=0.5).requires_grad_()
            p = torch.randn(3, 3, dtype=dtype, requires_grad=True)
            G, H = a.Exp(), b.Exp()
            q = (G * H.Inv()).Act(p)
            loss = (q ** 2).sum() + (G @ H).Log().tensor().pow(2).sum() \
                + G.matrix().sum() + G.Adj(b).tensor().sum() + G.Jinvp(b).tensor().sin().sum() \
                + G.Retr(b).Log().tensor().abs().sum()
            if name == "so3":
                loss = loss + a.Jr().tanh().sum()
            loss.backward()
            out += [(f"{d} {name} loss", loss), (f"{d} {name} grad a", a.grad),
                    (f"{d} {name} grad b", b.grad), (f"{d} {name} grad p", p.grad)]
        for name in ("SO3", "SE3", "Sim3", "RxSO3"):
            g = randn_of(name, 2, dtype=dtype).requires_grad_()
            loss = g.Log().tensor().pow(2).sum() + g.Inv().tensor().sum() \
                + g.Act(torch.ones(2, 3, dtype=dtype)).sum()
            loss.backward()
            out += [(f"{d} {name} loss", loss), (f"{d} {name} grad", g.grad)]
    # pp.Parameter in a module, optimised by SGD on the manifold representation
    torch.manual_seed(1)
    target = pp.randn_SE3(2)

    class Pose(nn.Module):
        def __init__(self):
            super().__init__()
            self.pose = pp.Parameter(pp.randn_SE3(2))

        def forward(self):
            return (self.pose.Inv() @ target).Log().tensor()

    model = Pose()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for i in range(3):
        opt.zero_grad()
        loss = model().pow(2).sum()
        loss.backward()
        out.append((f"Parameter step {i} loss", loss))
        out.append((f"Parameter step {i} grad", model.pose.grad))
        opt.step()
    out.append(("Parameter after SGD", model.pose))
    # torch.func through PyPose's autograd.Functions: their backward (the Lie-algebra Jacobian)
    x = pp.randn_SE3(1, dtype=torch.float64)
    pts = torch.randn(1, 3, dtype=torch.float64)
    out.append(("func.jacrev Act wrt SE3", pp.func.jacrev(lambda T: T.Act(pts))(x)))
    return out


@variant("cumops")
def _():
    out = []
    for dtype in DTYPES:
        d = str(dtype).split(".")[1]
        x = pp.randn_SE3(5, dtype=dtype, requires_grad=True)
        c = pp.cumprod(x, dim=0)
        cl = pp.cumprod(x, dim=0, left=False)
        m = pp.cummul(x, dim=0)
        o = pp.cumops(x, 0, lambda a, b: a @ b)
        loss = c.Log().tensor().sum() + cl.tensor().pow(2).sum() + m.tensor().sin().sum() \
            + o.tensor().sum()
        loss.backward()
        out += [(f"{d} cumprod", c), (f"{d} cumprod right", cl), (f"{d} cummul", m),
                (f"{d} cumops", o), (f"{d} cum loss", loss), (f"{d} cum grad", x.grad)]
        y = pp.randn_SO3(2, 3, dtype=dtype)
        out.append((f"{d} cumprod dim1", pp.cumprod(y, dim=1)))
        z = pp.randn_SO3(4, dtype=dtype)
        pp.cumprod_(z, dim=0)
        out.append((f"{d} cumprod_", z))
        # batched products
        v1 = torch.randn(2, 3, dtype=dtype, requires_grad=True)
        v2 = torch.randn(2, 3, dtype=dtype, requires_grad=True)
        M = torch.randn(2, 3, 3, dtype=dtype, requires_grad=True)
        r = [pp.bvv(v1, v2), pp.bmv(M, v1), pp.bvmv(v1, M, v2)]
        sum(t.sum() for t in r).backward()
        out += [(f"{d} bvv", r[0]), (f"{d} bmv", r[1]), (f"{d} bvmv", r[2]),
                (f"{d} bvv grad v1", v1.grad), (f"{d} bmv grad M", M.grad)]
        h = pp.cart2homo(v1.detach())
        out += [(f"{d} cart2homo", h), (f"{d} homo2cart", pp.homo2cart(h * 2.0))]
    return out


@variant("geometry")
def _():
    """Cameras and point clouds: point2pixel, pixel2point, reprojerr, knn, svdtf, svdstf,
    the filters, with gradients."""
    out = []
    for dtype in DTYPES:
        d = str(dtype).split(".")[1]
        K = torch.tensor([[40.0, 0, 16], [0, 42.0, 15], [0, 0, 1]], dtype=dtype)
        pts = (torch.randn(2, 5, 3, dtype=dtype) + torch.tensor([0, 0, 5.0], dtype=dtype))
        pts.requires_grad_()
        T = pp.randn_SE3(2, sigma=0.1, dtype=dtype, requires_grad=True)
        pix = pp.point2pixel(pts, K, T)
        pix0 = pp.point2pixel(pts, K)
        depth = pts[..., 2]
        back = pp.pixel2point(pix0, depth, K)
        target = pix.detach() + torch.randn(2, 5, 2, dtype=dtype)
        err = pp.reprojerr(pts, target, K, T)
        errn = pp.reprojerr(pts, target, K, T, reduction="norm")
        loss = pix.pow(2).mean() * 1e-3 + errn.sum() + back.sum()
        loss.backward()
        out += [(f"{d} point2pixel", pix), (f"{d} point2pixel noext", pix0),
                (f"{d} pixel2point", back), (f"{d} reprojerr", err),
                (f"{d} reprojerr norm", errn), (f"{d} grad points", pts.grad),
                (f"{d} grad pose", T.grad)]
        ref = torch.randn(2, 6, 3, dtype=dtype)
        nbr = torch.randn(2, 4, 3, dtype=dtype)
        dist, idx = pp.knn(ref, nbr, k=2)
        out += [(f"{d} knn dist", dist), (f"{d} knn idx", idx)]
        src = torch.randn(2, 6, 3, dtype=dtype)
        gt = pp.randn_SE3(2, dtype=dtype)
        tgt = gt.unsqueeze(-2).Act(src)
        out.append((f"{d} svdtf", pp.svdtf(src, tgt)))
        out.append((f"{d} svdtf recovers", close(pp.svdtf(src, tgt).matrix(), gt.matrix())))
        s = pp.svdstf(src, tgt * 1.0)
        out.append((f"{d} svdstf", s))
        cloud = torch.randn(30, 3, dtype=dtype)
        out.append((f"{d} nbr_filter", pp.nbr_filter(cloud, nbr=2, radius=1.0)))
        out.append((f"{d} nbr_filter mask", pp.nbr_filter(cloud, nbr=2, radius=1.0,
                                                          return_mask=True)))
        out.append((f"{d} knn_filter", pp.knn_filter(cloud, k=3)))
        out.append((f"{d} voxel_filter", pp.voxel_filter(cloud, [0.5, 0.5, 0.5])))
    # EPnP and ICP on small exact problems
    f, (H, W) = 2.0, (9, 9)
    intr = torch.tensor([[f, 0, H / 2], [0, f, W / 2], [0, 0, 1]], dtype=torch.float64)
    obj = torch.tensor([[2., 0., 2.], [1., 0., 2.], [0., 1., 1.], [0., 0., 1.], [1., 0., 1.],
                        [5., 5., 3.]], dtype=torch.float64)
    pixels = pp.point2pixel(obj, intr)
    pose = pp.SE3(torch.tensor([0., -8, 0., 0., -0.3827, 0., 0.9239], dtype=torch.float64))
    points = pose.Inv() @ obj
    epnp = pp.module.EPnP(intr)
    est = epnp(points, pixels)
    out.append(("EPnP pose", est))
    out.append(("EPnP reprojerr", pp.reprojerr(points, pixels, intr, est)))
    src = torch.randn(1, 20, 3)
    gt = pp.randn_SE3(1, sigma=0.2)
    tgt = gt.unsqueeze(-2).Act(src)
    icp = pp.module.ICP(stepper=pp.utils.ReduceToBason(steps=10))
    out.append(("ICP", icp(src, tgt)))
    return out


@variant("spline")
def _():
    out = []
    for dtype in DTYPES:
        d = str(dtype).split(".")[1]
        pts = torch.randn(2, 4, 3, dtype=dtype, requires_grad=True)
        c = pp.chspline(pts, interval=0.25)
        c.sum().backward()
        out += [(f"{d} chspline", c), (f"{d} chspline grad", pts.grad)]
        poses = pp.randn_SE3(1, 5, sigma=0.3, dtype=dtype, requires_grad=True)
        b = pp.bspline(poses, interval=0.25)
        be = pp.bspline(poses, interval=0.5, extrapolate=True)
        (b.Log().tensor().sum() + be.tensor().pow(2).sum()).backward()
        out += [(f"{d} bspline", b), (f"{d} bspline extrapolate", be),
                (f"{d} bspline grad", poses.grad)]
    return out


class PoseGraph(nn.Module):
    """PyPose's pose-graph example: the nodes a pp.Parameter, the residual the Log of each
    edge's error."""

    def __init__(self, nodes):
        super().__init__()
        self.nodes = pp.Parameter(nodes)

    def forward(self, edges, poses):
        node1 = self.nodes[edges[..., 0]]
        node2 = self.nodes[edges[..., 1]]
        error = poses.Inv() @ node1.Inv() @ node2
        return error.Log().tensor()


def pose_graph(dtype, n=5):
    gt = pp.randn_SE3(n, sigma=0.5, dtype=dtype)
    edges = torch.tensor([[i, i + 1] for i in range(n - 1)] + [[0, n - 1], [1, 3]])
    poses = gt[edges[:, 0]].Inv() @ gt[edges[:, 1]]
    poses = poses * pp.randn_SE3(len(edges), sigma=0.01, dtype=dtype)
    init = gt * pp.randn_SE3(n, sigma=0.2, dtype=dtype)
    return PoseGraph(init), edges, poses


@variant("pgo")
def _():
    """A small pose graph (5 nodes, 6 edges) solved by LM with each solver, strategy, kernel
    and corrector, then Gauss-Newton, with the StopOnPlateau scheduler."""
    O = pp.optim
    configs = [
        ("LM cholesky adaptive", {"solver": O.solver.Cholesky(), "strategy": O.strategy.Adaptive(
            damping=1e-4)}),
        ("LM pinv constant", {"solver": O.solver.PINV(), "strategy": O.strategy.Constant(
            damping=1e-4)}),
        ("LM lstsq trustregion", {"solver": O.solver.LSTSQ(), "strategy": O.strategy.TrustRegion(
            radius=1e4)}),
        ("LM cg huber fasttriggs", {"solver": O.solver.CG(), "kernel": O.kernel.Huber(0.5),
                                        "corrector": O.corrector.FastTriggs(O.kernel.Huber(0.5))}),
        ("LM cauchy triggs", {"kernel": O.kernel.Cauchy(), "corrector": O.corrector.Triggs(
            O.kernel.Cauchy())}),
        ("LM nonvectorized", {"vectorize": False}),
    ]
    out = []
    for dtype in DTYPES:
        d = str(dtype).split(".")[1]
        # float32: one configuration (the damped normal equations are ill-conditioned: an
        # SE3 parameter's 7th column of the Jacobian is zero, its diagonal clamped to 1e-6)
        for label, kw in configs if dtype == torch.float64 else configs[:1]:
            torch.manual_seed(2)
            graph, edges, poses = pose_graph(dtype)
            opt = O.LM(graph, **kw)
            for i in range(4):
                loss = opt.step(input=(edges, poses))
                out.append((f"{d} {label} step {i} loss", loss))
            out.append((f"{d} {label} nodes", graph.nodes))
        torch.manual_seed(2)
        graph, edges, poses = pose_graph(dtype)
        gn = O.GN(graph)
        for i in range(3):
            out.append((f"{d} GN step {i} loss", gn.step(input=(edges, poses))))
        torch.manual_seed(2)
        graph, edges, poses = pose_graph(dtype)
        lm = O.LM(graph)
        sched = O.scheduler.StopOnPlateau(lm, steps=10, patience=2, decreasing=1e-6)
        sched.optimize(input=(edges, poses))
        out.append((f"{d} StopOnPlateau steps {sched.steps}", lm.loss))
    # kernels alone, with gradients
    r = torch.linspace(0.0, 4.0, 9, dtype=torch.float64, requires_grad=True)
    for k in ("Huber", "PseudoHuber", "Cauchy", "SoftLOne", "Arctan", "Tolerant", "Scale"):
        kern = getattr(O.kernel, k)()
        v = kern(r)
        (g,) = torch.autograd.grad(v.sum(), r)
        out += [(f"kernel {k}", v), (f"kernel {k} grad", g)]
    return out


@variant("imu")
def _():
    """IMUPreintegrator: forward over 8 frames in a batch of 2 with covariance propagation,
    the integrated state's gradient to the measurements, with a known rotation, and a reset
    integrator stepped frame by frame."""
    out = []
    for dtype in DTYPES:
        d = str(dtype).split(".")[1]
        B, F = 2, 8
        dt = torch.full((B, F, 1), 0.01, dtype=dtype)
        gyro = (0.5 * torch.randn(B, F, 3, dtype=dtype)).requires_grad_()
        acc = (torch.randn(B, F, 3, dtype=dtype) + torch.tensor([0, 0, 9.81],
                                                                 dtype=dtype)).requires_grad_()
        integ = pp.module.IMUPreintegrator(pos=torch.zeros(3, dtype=dtype),
                                           rot=pp.identity_SO3(dtype=dtype),
                                           vel=torch.zeros(3, dtype=dtype),
                                           gravity=9.81007).to(dtype)
        state = integ(dt, gyro, acc)
        for key in ("pos", "rot", "vel", "cov"):
            out.append((f"{d} {key}", state[key]))
        loss = state["pos"][:, -1].pow(2).sum() + state["rot"][:, -1].Log().tensor().sum() \
            + state["vel"].sum() + 1e3 * state["cov"].diagonal(dim1=-2, dim2=-1).sum()
        loss.backward()
        out += [(f"{d} loss", loss), (f"{d} grad gyro", gyro.grad), (f"{d} grad acc", acc.grad)]
        rot = pp.randn_SO3(B, F, sigma=0.1, dtype=dtype)
        known = integ(dt, gyro.detach(), acc.detach(), rot=rot,
                      init_state={"pos": torch.zeros(B, 1, 3, dtype=dtype),
                                  "rot": pp.identity_SO3(B, 1, dtype=dtype),
                                  "vel": torch.ones(B, 1, 3, dtype=dtype)})
        out += [(f"{d} known rot pos", known["pos"]), (f"{d} known rot vel", known["vel"])]
        reset = pp.module.IMUPreintegrator(reset=True, prop_cov=False).to(dtype)
        for i in range(3):
            s = reset(dt[0, i:i + 1], gyro.detach()[0, i:i + 1], acc.detach()[0, i:i + 1])
            out.append((f"{d} reset step {i} pos", s["pos"]))
            out.append((f"{d} reset step {i} rot", s["rot"]))
    return out


class NLS(pp.module.NLS):
    """PyPose's EKF/UKF example system."""

    def state_transition(self, state, input, t=None):
        return state.cos() + input

    def observation(self, state, input, t=None):
        return state.sin() + input


@variant("filters")
def _():
    out = []
    for kind in ("EKF", "UKF"):
        torch.manual_seed(3)
        model = NLS()
        filt = getattr(pp.module, kind)(model)
        T, N = 5, 2
        states = torch.zeros(T, N)
        inputs = torch.randn(T, N)
        observ = torch.zeros(T, N)
        q, r, p = 0.1, 0.1, 10
        Q = torch.eye(N) * q ** 2
        R = torch.eye(N) * r ** 2
        P = torch.eye(N).repeat(T, 1, 1) * p ** 2
        estim = torch.randn(T, N) * p
        for i in range(T - 1):
            w = q * torch.randn(N)
            v = r * torch.randn(N)
            states[i + 1], observ[i] = model(states[i] + w, inputs[i])
            estim[i + 1], P[i + 1] = filt(estim[i], observ[i] + v, inputs[i], P[i], Q, R)
        out += [(f"{kind} estimates", estim), (f"{kind} covariance", P),
                (f"{kind} error", (states - estim).norm(dim=-1))]
    return out


class CartPole(pp.module.NLS):
    """PyPose's MPC example system."""

    def __init__(self, dt, length, cartmass, polemass, gravity):
        super().__init__()
        self.tau, self.length, self.cartmass = dt, length, cartmass
        self.polemass, self.gravity = polemass, gravity
        self.poleml = polemass * length
        self.totalMass = cartmass + polemass

    def state_transition(self, state, input, t=None):
        x, xDot, theta, thetaDot = state.squeeze()
        force = input.squeeze()
        costheta, sintheta = torch.cos(theta), torch.sin(theta)
        temp = (force + self.poleml * thetaDot ** 2 * sintheta) / self.totalMass
        thetaAcc = (self.gravity * sintheta - costheta * temp) / (
            self.length * (4.0 / 3.0 - self.polemass * costheta ** 2 / self.totalMass))
        xAcc = temp - self.poleml * thetaAcc * costheta / self.totalMass
        _dstate = torch.stack((xDot, xAcc, thetaDot, thetaAcc))
        return (state.squeeze() + torch.mul(_dstate, self.tau)).unsqueeze(0)

    def observation(self, state, input, t=None):
        return state


@variant("control")
def _():
    """LQR on a batch of linear time-invariant systems (with the gradient of the cost to the
    cost matrices), and MPC on the cart-pole."""
    out = []
    for dtype in DTYPES:
        d = str(dtype).split(".")[1]
        n_batch, T, n_state, n_ctrl = 2, 5, 4, 3
        n_sc = n_state + n_ctrl
        Q = torch.randn(n_batch, T, n_sc, n_sc, dtype=dtype)
        Q = torch.matmul(Q.mT, Q) + 0.1 * torch.eye(n_sc, dtype=dtype)
        Q.requires_grad_()
        p = torch.randn(n_batch, T, n_sc, dtype=dtype, requires_grad=True)
        r = 0.2 * torch.randn(n_state, n_state, dtype=dtype)
        A = torch.tile(torch.eye(n_state, dtype=dtype) + r, (n_batch, 1, 1))
        B = torch.randn(n_batch, n_state, n_ctrl, dtype=dtype)
        C = torch.tile(torch.eye(n_state, dtype=dtype), (n_batch, 1, 1))
        D = torch.tile(torch.zeros(n_state, n_ctrl, dtype=dtype), (n_batch, 1, 1))
        c1 = torch.tile(torch.randn(n_state, dtype=dtype), (n_batch, 1))
        c2 = torch.tile(torch.zeros(n_state, dtype=dtype), (n_batch, 1))
        x_init = torch.randn(n_batch, n_state, dtype=dtype)
        lti = pp.module.LTI(A, B, C, D, c1, c2)
        lqr = pp.module.LQR(lti, Q, p, T)
        x, u, cost = lqr(x_init, 1)
        cost.sum().backward()
        out += [(f"{d} LQR x", x), (f"{d} LQR u", u), (f"{d} LQR cost", cost),
                (f"{d} LQR grad Q", Q.grad), (f"{d} LQR grad p", p.grad)]
    dt, length, m_cart, m_pole, g = 0.01, 1.5, 20, 10, 9.81
    n_batch, T, n_state, n_ctrl = 1, 5, 4, 1
    n_sc = n_state + n_ctrl
    Q = torch.tile(torch.eye(n_sc), (n_batch, T, 1, 1))
    p = torch.randn(n_batch, T, n_sc)
    time_ = torch.arange(0, T) * dt
    current_u = torch.sin(time_).unsqueeze(1).unsqueeze(0)
    x_init = torch.tensor([[0, 0, torch.pi, 0]])
    stepper = pp.utils.ReduceToBason(steps=5)
    mpc = pp.module.MPC(CartPole(dt, length, m_cart, m_pole, g), Q, p, T, stepper=stepper)
    x, u, cost = mpc(dt, x_init, u_init=current_u)
    out += [("MPC x", x), ("MPC u", u), ("MPC cost", cost)]
    return out


@variant("metric")
def _():
    """APE and RPE between a random trajectory and a perturbed copy, with and without
    alignment."""
    out = []
    n = 10
    stamp = torch.arange(n, dtype=torch.float64) * 0.1
    ref = pp.cumprod(pp.randn_SE3(n, sigma=0.2, dtype=torch.float64), dim=0)
    est = ref * pp.randn_SE3(n, sigma=0.05, dtype=torch.float64)
    for etype in ("translation", "rotation", "pose", "radian", "degree"):
        r = pp.metric.ape(stamp, ref, stamp, est, etype=etype)
        out += [(f"ape {etype} {k}", v) for k, v in sorted(r.items())]
    r = pp.metric.ape(stamp, ref, stamp, est, align=True, scale=True)
    out += [(f"ape aligned {k}", v) for k, v in sorted(r.items())]
    r = pp.metric.rpe(stamp, ref, stamp, est, etype="translation", delta=1.0)
    out += [(f"rpe {k}", v) for k, v in sorted(r.items())]
    return out


def show(name, label, value):
    if isinstance(value, torch.Tensor):
        kind = f" {type(value.ltype).__name__}" if isinstance(value, pp.LieTensor) else ""
        print(f"{name} {label} {list(value.shape)} {value.dtype}{kind} {values(value)}")
    elif isinstance(value, float):
        print(f"{name} {label} {value!r}")
    else:
        print(f"{name} {label} {value}")


def run(name):
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
