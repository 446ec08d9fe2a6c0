"""Driver of two normalizing-flow libraries (docs/real-programs.md): zuko (1.6) and nflows
(0.14), installed and used unchanged, at tiny sizes (2 or 3 features, hidden width 8), printing
every value and checksum at full precision.

Variants (each reseeds with ``torch.manual_seed``, so a subset prints what the full run prints
for it):

- ``zuko_<flow>``: one of zuko's flows (MAF, NSF, NCSF, NAF, UNAF, RealNVP, NICE with random
  masks, SOSPF, BPF, GF, GMM, CNF with its ODE solver, exact and Hutchinson, and a Flow assembled
  by hand), unconditional and, for the ``_ctx`` forms, conditioned on a
  context: ``log_prob`` of fixed points, ``rsample`` and ``rsample_and_log_prob`` under the
  shared seed, the transform's forward, inverse round trip and log-abs-det-Jacobian, then a few
  Adam steps of maximum likelihood on fixed 2-D data (losses and gradient checksums).
- ``zuko_mixtures``: zuko.mixtures.GMM with full (MultivariateNormal ``scale_tril``),
  diagonal and spherical covariances, tied or not, initialised by k-means, k-means++ or random
  centres, and with a context; ``zuko_bayesian``: zuko.bayesian.BayesianModel around an MLP
  (sampled parameters and model, reparameterised forward with and without the local trick,
  KL to the prior, ELBO steps).
- ``zuko_torch_interop``: zuko's transforms and distributions inside torch.distributions
  (TransformedDistribution, expand, kl_divergence, entropy, transform caching, shapes).
- ``zuko_distributions``: BoxUniform, DiagNormal, Joint, Mixture, GeneralizedNormal,
  Truncated, Sort, TopK, Minimum, Maximum: ``log_prob``, ``sample``, ``rsample`` and ``cdf``
  where zuko defines them (GeneralizedNormal's draws come from ``torch._standard_gamma``, which
  the wrapper does not share: only their shape is printed).
- ``zuko_transforms``: zuko.transforms on their own (rational-quadratic and circular splines,
  monotonic affine, SOS polynomials, Bernstein, unconstrained monotonic networks' bisection
  inverse, free-form Jacobian), round trip and ``call_and_ladj``.
- ``nflows_<flow>``: nflows' MaskedAffineAutoregressiveTransform,
  MaskedPiecewiseRationalQuadraticAutoregressiveTransform,
  PiecewiseRationalQuadraticCouplingTransform, RandomPermutation/ReversePermutation, LULinear,
  BatchNorm and ActNorm composed into a ``Flow`` with a StandardNormal base (``_ctx``: with a
  context): ``log_prob``, ``sample``, ``sample_and_log_prob``, ``transform_to_noise``, the
  inverse round trip, then a few Adam steps.
- ``nflows_transforms``: nflows' elementwise (Sigmoid, Logit, Tanh, LogTanh, LeakyReLU),
  spline CDFs, SVD/QR linear, piecewise quadratic/cubic autoregressive and coupling transforms
  and the 1x1 convolution, with gradients; ``nflows_distributions``: ConditionalDiagonalNormal,
  DiagonalNormal, BoxUniform, MADEMoG, MaskedAutoregressiveFlow, SimpleRealNVP and a Flow with
  an ``embedding_net``.

Inverse round trips (zero up to rounding) are printed as whether they are below a tolerance.

    python scripts/shared_rng_run.py flow_libs.py [VARIANT ... | all]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py flow_libs.py [VARIANT ... | all]   # jtorch

``FLOWS_FLOAT64=1`` runs everything in float64 (to tell float32 rounding from a bug).
"""

import math
import os
import sys
import time

import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import zuko  # noqa: E402
import zuko.bayesian  # noqa: E402
import zuko.mixtures  # noqa: E402
from nflows import distributions as ndist, flows as nflows_flows, transforms as T  # noqa: E402
from nflows.nn import nets  # noqa: E402

VARIANTS = {}


def variant(name):
    def register(fn):
        VARIANTS[name] = fn
        return fn
    return register


def checksum(t):
    """The sum of the magnitudes, a weighted sum (weights 1 to 2 in a period of 7 elements, so
    that values summing to zero give no cancellation noise) and the largest magnitude, in
    float64."""
    t = t.detach().double().flatten()
    w = 1.0 + (torch.arange(t.numel(), dtype=torch.float64) % 7) / 6
    return (f"abssum {t.abs().sum().item()!r} wsum {(t * w).sum().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def show(label, value):
    if isinstance(value, torch.Tensor):
        print(f"  {label} {list(value.shape)} {checksum(value)}")
    else:
        print(f"  {label} {value!r}")


def residual(label, r, tol=1e-4):
    """What is zero up to rounding (an inverse's round trip, ladj + inverse ladj), as whether it
    is below ``tol``: its float32 noise differs between the frameworks."""
    print(f"  {label} absmax < {tol:g} {bool(r.detach().abs().max() < tol)}")


def points(n=6, features=2):
    """Fixed points (not drawn): a deterministic spiral in ``features`` dimensions, computed by
    Python's math so that both frameworks start from the same bits."""
    size = n * features
    return torch.tensor([math.sin(i * 0.7 + 0.3) * (1.0 + i / size) for i in range(size)]
                        ).view(n, features)


def two_moons(n=32):
    """Fixed 2-D training data (no draws): two interleaved half circles, slightly perturbed (no
    two points exactly equidistant from a third, so k-means assignments have no ties)."""
    ts = [math.pi * i / (n // 2 - 1) for i in range(n // 2)]
    xy = [(math.cos(t), math.sin(t)) for t in ts] + [(1 - math.cos(t), 0.5 - math.sin(t))
                                                     for t in ts]
    return torch.tensor([[(u + 0.01 * math.sin(7.3 * i)) * 0.8 - 0.2,
                          (v + 0.01 * math.cos(5.1 * i)) * 0.8 - 0.2]
                         for i, (u, v) in enumerate(xy)])


def grads(module):
    gs = [p.grad.flatten() for p in module.parameters() if p.grad is not None]
    return torch.cat(gs) if gs else torch.zeros(1)


def train(module, loss_fn, steps=3, lr=1e-2):
    opt = torch.optim.Adam(module.parameters(), lr=lr)
    for step in range(steps):
        opt.zero_grad()
        loss = loss_fn()
        loss.backward()
        show(f"train step {step} loss", loss.item())
        show(f"train step {step} grads", grads(module))
        opt.step()
    show("trained params", torch.cat([p.detach().flatten() for p in module.parameters()]))


# ---------------------------------------------------------------------------------- zuko flows

def zuko_flow(flow, features=2, context=0, samples=True, steps=3, tol=1e-4):
    c = points(6, context) if context else None
    x = points(6, features)
    show("parameters", sum(p.numel() for p in flow.parameters()))
    dist = flow(c)
    show("log_prob", dist.log_prob(x))
    if samples:
        with torch.no_grad():
            show("sample", dist.sample() if context else dist.sample((4,)))
        y, lp = (dist.rsample_and_log_prob() if context else dist.rsample_and_log_prob((4,)))
        show("rsample_and_log_prob x", y)
        show("rsample_and_log_prob log_prob", lp)
    f = dist.transform
    z, ladj = f.call_and_ladj(x)
    show("transform", z)
    show("ladj", ladj)
    show("log_abs_det_jacobian", f.log_abs_det_jacobian(x, z))
    residual("inverse round trip", f.inv(z) - x, tol)
    data = two_moons()
    ctx = torch.cat([data[:, :1], data[:, :1] ** 2, -data[:, 1:]], -1)[:, :context] \
        if context else None
    train(flow, lambda: -flow(ctx).log_prob(data).mean(), steps=steps)


def zuko_variant(name, build, **kwargs):
    for context in (0, 3):
        suffix = "_ctx" if context else ""

        def run(build=build, context=context):
            zuko_flow(build(context), context=context, **kwargs)
        variant(f"zuko_{name}{suffix}")(run)


zuko_variant("maf", lambda c: zuko.flows.MAF(2, c, transforms=2, hidden_features=(8, 8)))
zuko_variant("maf_passes", lambda c: zuko.flows.MAF(2, c, transforms=2, passes=2,
                                                    hidden_features=(8,)))
zuko_variant("nsf", lambda c: zuko.flows.NSF(2, c, transforms=2, bins=4, hidden_features=(8,)))
zuko_variant("ncsf", lambda c: zuko.flows.NCSF(2, c, transforms=2, bins=4,
                                               hidden_features=(8,)))
zuko_variant("realnvp", lambda c: zuko.flows.RealNVP(2, c, transforms=2, hidden_features=(8,)))
zuko_variant("nice_randmask", lambda c: zuko.flows.NICE(2, c, transforms=3, randmask=True,
                                                        hidden_features=(8,)))
zuko_variant("sospf", lambda c: zuko.flows.SOSPF(2, c, degree=2, polynomials=2, transforms=2,
                                                 hidden_features=(8,)))
zuko_variant("bpf", lambda c: zuko.flows.BPF(2, c, degree=4, transforms=2,
                                             hidden_features=(8,)))
zuko_variant("gf", lambda c: zuko.flows.GF(2, c, transforms=2, components=3,
                                           hidden_features=(8,)))
zuko_variant("naf", lambda c: zuko.flows.NAF(2, c, transforms=1, signal=4,
                                             hidden_features=(8,), network={"hidden_features":
                                                                            (8,)}), steps=2)
zuko_variant("unaf", lambda c: zuko.flows.UNAF(2, c, transforms=1, signal=4,
                                               hidden_features=(8,), network={"hidden_features":
                                                                              (8,)}), steps=2)
zuko_variant("cnf", lambda c: zuko.flows.CNF(2, c, hidden_features=(8,), atol=1e-4,
                                             rtol=1e-3), steps=2, tol=0.02)


@variant("zuko_cnf_hutchinson")
def _():
    flow = zuko.flows.CNF(2, hidden_features=(8,), exact=False, atol=1e-4, rtol=1e-3)
    zuko_flow(flow, steps=1, tol=0.02)


@variant("zuko_gmm")
def _():
    flow = zuko.flows.GMM(2, components=3)
    x = points()
    dist = flow()
    show("log_prob", dist.log_prob(x))
    show("sample", dist.sample((5,)))
    train(flow, lambda: -flow().log_prob(two_moons()).mean())


@variant("zuko_mixtures")
def _():
    """zuko.mixtures.GMM's covariance forms (MultivariateNormal scale_tril for "full"), tied or
    not, each initialised by a clustering strategy, then trained."""
    data = two_moons()
    for covariance, tied, strategy in (("full", False, "kmeans"), ("full", True, "random"),
                                       ("diagonal", False, "kmeans++"),
                                       ("spherical", True, "kmeans")):
        print(f"  -- {covariance} tied={tied} {strategy}")
        gmm = zuko.mixtures.GMM(2, components=3, covariance_type=covariance, tied=tied)
        gmm.initialize(data, strategy)
        show("initialized params", torch.cat([p.detach().flatten() for p in gmm.parameters()]))
        show("log_prob", gmm().log_prob(points()))
        show("sample", gmm().sample((4,)))
        train(gmm, lambda gmm=gmm: -gmm().log_prob(data).mean(), steps=2)
    ctx = zuko.mixtures.GMM(2, context=3, components=2, hidden_features=(8,))
    ctx.initialize(data, "kmeans")
    show("context GMM log_prob", ctx(points(6, 3)).log_prob(points()))


@variant("zuko_bayesian")
def _():
    """zuko.bayesian.BayesianModel around an MLP: sampled parameters, a sampled model, the
    reparameterised forward (and the local reparameterisation trick), the KL to the prior,
    and a few steps of an ELBO."""
    net = zuko.nn.MLP(2, 1, hidden_features=(8,))
    bayes = zuko.bayesian.BayesianModel(net, init_logvar=-4.0, exclude_params=["2.bias"])
    x, y = two_moons(), torch.cat([torch.ones(16, 1), -torch.ones(16, 1)])
    params = bayes.sample_params()
    show("sample_params", torch.cat([params[k].flatten() for k in sorted(params)]))
    show("sample_model", bayes.sample_model()(x))
    for local in (False, True):
        with bayes.reparameterize(local_trick=local) as model:
            show(f"reparameterize local={local}", model(x))
    show("kl_divergence", bayes.kl_divergence(prior_var=0.5))

    def elbo():
        with bayes.reparameterize() as model:
            return (model(x) - y).square().mean() + 1e-3 * bayes.kl_divergence()
    train(bayes, elbo, steps=2)


@variant("zuko_custom")
def _():
    """A Flow assembled by hand: lazy transforms, an inverse, a fixed transform and a lazy
    DiagNormal base, as zuko's tutorial builds one."""
    flow = zuko.flows.Flow(
        transform=[  # the rotation first: last, before an isotropic base, it has no gradient
            zuko.flows.UnconditionalTransform(zuko.transforms.RotationTransform,
                                              torch.randn(2, 2)),
            zuko.flows.UnconditionalTransform(zuko.transforms.SoftclipTransform, bound=5.0),
            zuko.flows.MaskedAutoregressiveTransform(2, 3, hidden_features=(8,)),
            zuko.flows.LazyInverse(zuko.flows.MaskedAutoregressiveTransform(2, 3,
                                                                            hidden_features=(8,))),
        ],
        base=zuko.flows.UnconditionalDistribution(zuko.distributions.DiagNormal,
                                                  torch.zeros(2), torch.ones(2), buffer=True),
    )
    zuko_flow(flow, context=3)


# --------------------------------------------------------------------------- zuko distributions

def dist_lines(label, d, x, rsample=True, cdf=False, shared=True):
    """``shared=False``: the draws come from ``torch._standard_gamma``, which the wrapper does
    not share (each framework's own gamma sampler): only their shape is printed."""
    show(f"{label} batch/event", (list(d.batch_shape), list(d.event_shape)))
    show(f"{label} log_prob", d.log_prob(x))
    draws = d.sample((3,))
    show(f"{label} sample", draws if shared else (list(draws.shape), bool(draws.isfinite().all())))
    if rsample and d.has_rsample:
        show(f"{label} rsample", d.rsample((3,)))
    if cdf:
        show(f"{label} cdf", d.cdf(x))


@variant("zuko_distributions")
def _():
    D = zuko.distributions
    x = points(4, 2) * 0.8
    dist_lines("BoxUniform", D.BoxUniform(-torch.ones(2), torch.ones(2)), x)
    loc = torch.tensor([0.1, -0.2], requires_grad=True)
    scale = torch.tensor([0.7, 1.3], requires_grad=True)
    normal = D.DiagNormal(loc, scale)
    dist_lines("DiagNormal", normal, x)
    normal.log_prob(x).sum().backward()
    show("DiagNormal grad loc", loc.grad)
    show("DiagNormal grad scale", scale.grad)
    joint = D.Joint(torch.distributions.Uniform(-1.0, 1.0), D.DiagNormal(torch.zeros(2),
                                                                          torch.ones(2)))
    dist_lines("Joint", joint, points(4, 3) * 0.5)
    logits = torch.tensor([0.2, -0.4, 1.0], requires_grad=True)
    base = D.DiagNormal(torch.tensor([[0.0, 0.0], [1.0, -1.0], [-1.0, 0.5]]),
                        torch.tensor([[1.0, 0.5], [0.3, 0.8], [1.2, 1.0]]))
    mixture = D.Mixture(base, logits)
    dist_lines("Mixture", mixture, x, rsample=False)
    mixture.log_prob(x).sum().backward()
    show("Mixture grad logits", logits.grad)
    beta = torch.tensor([0.5, 1.0, 2.0, 8.0])
    dist_lines("GeneralizedNormal", D.GeneralizedNormal(beta), points(3, 4), rsample=False,
               shared=False)
    trunc = D.Truncated(torch.distributions.Normal(0.0, 1.0), -0.5, 1.5)
    dist_lines("Truncated", trunc, torch.tensor([-0.4, 0.0, 0.3, 1.4]), cdf=True)
    srt = D.Sort(torch.distributions.Normal(0.0, 1.0), 3)
    dist_lines("Sort", srt, torch.tensor([[-0.5, 0.1, 0.9], [-1.0, -0.2, 0.4]]))
    srt_desc = D.Sort(torch.distributions.Normal(0.0, 1.0), 3, descending=True)
    dist_lines("Sort descending", srt_desc, torch.tensor([[0.9, 0.1, -0.5]]))
    topk = D.TopK(torch.distributions.Normal(0.0, 1.0), 2, 4)
    dist_lines("TopK", topk, torch.tensor([[-0.5, 0.1], [-1.0, 0.4]]))
    dist_lines("Minimum", D.Minimum(torch.distributions.Normal(0.0, 1.0), 3),
               torch.tensor([-0.5, 0.1, 1.0]))
    dist_lines("Maximum", D.Maximum(torch.distributions.Normal(0.0, 1.0), 3),
               torch.tensor([-0.5, 0.1, 1.0]))
    box = D.BoxUniform(torch.zeros(2), torch.ones(2))
    tu = D.TransformedUniform(zuko.transforms.SoftclipTransform(), box.base_dist.low,
                              box.base_dist.high)
    dist_lines("TransformedUniform", tu, torch.tensor([[0.1, 0.3], [0.6, 0.9]]))


@variant("zuko_torch_interop")
def _():
    """zuko's transforms and distributions inside torch.distributions' own machinery."""
    D, Z, TD = zuko.distributions, zuko.transforms, torch.distributions
    x = points(4, 2)
    loc = torch.tensor([0.3, -0.1], requires_grad=True)
    affine = Z.MonotonicAffineTransform(loc, torch.tensor([0.2, -0.3]))
    base = D.DiagNormal(torch.zeros(2), torch.ones(2))
    td = TD.TransformedDistribution(base, [affine, Z.SoftclipTransform(3.0)])
    dist_lines("TransformedDistribution", td, x)
    td.log_prob(x).sum().backward()
    show("TransformedDistribution grad loc", loc.grad)
    show("expand", list(td.expand((3,)).log_prob(x[:, None]).shape))
    other = D.DiagNormal(torch.tensor([0.5, -0.5]), torch.tensor([2.0, 0.5]))
    show("kl_divergence DiagNormal", TD.kl_divergence(base, other))
    show("entropy DiagNormal", other.entropy())
    show("mean/stddev DiagNormal", torch.stack([other.mean, other.stddev]))
    cached = Z.MonotonicAffineTransform(torch.ones(2), torch.zeros(2), cache_size=1)
    y = cached(x)
    show("cache_size=1 inverse is input", cached.inv(y) is x)
    show("sign/bijective", (affine.sign, affine.bijective, affine.event_dim,
                            affine.inv.event_dim))
    show("inv.inv is transform", affine.inv.inv is affine)
    dep = Z.DependentTransform(Z.SoftclipTransform(), 1)
    show("forward_shape", (list(dep.forward_shape((4, 2))), list(dep.inverse_shape((4, 2)))))
    indep = TD.Independent(TD.Normal(torch.zeros(2), torch.ones(2)), 1)
    flow = D.NormalizingFlow(Z.ComposedTransform(affine, dep), indep)
    show("NormalizingFlow log_prob", flow.log_prob(x))
    show("NormalizingFlow rsample", flow.rsample((3,)))
    show("NormalizingFlow batch/event", (list(flow.batch_shape), list(flow.event_shape)))


# ---------------------------------------------------------------------------- zuko transforms

def transform_lines(label, t, x, tol=1e-4):
    y, ladj = t.call_and_ladj(x)
    show(f"{label} y", y)
    show(f"{label} ladj", ladj)
    residual(f"{label} inverse round trip", t.inv(y) - x, tol)
    show(f"{label} inv ladj", t.inv.log_abs_det_jacobian(y, x))


@variant("zuko_transforms")
def _():
    Z = zuko.transforms
    x = points(5, 3)
    transform_lines("MonotonicAffine", Z.MonotonicAffineTransform(torch.randn(3),
                                                                  torch.randn(3)), x)
    widths, heights, derivs = torch.randn(3, 5), torch.randn(3, 5), torch.randn(3, 4)
    transform_lines("MonotonicRQS", Z.MonotonicRQSTransform(widths, heights, derivs,
                                                            bound=3.0), x)
    transform_lines("CircularShift", Z.CircularShiftTransform(bound=math.pi),
                    x.clamp(-3.0, 3.0))
    transform_lines("SOSPolynomial", Z.SOSPolynomialTransform(torch.randn(3, 2, 3),
                                                              torch.randn(3)), x)
    transform_lines("BernsteinPolynomial", Z.BernsteinTransform(torch.randn(3, 6)), x * 0.5)
    transform_lines("SoftclipTransform", Z.SoftclipTransform(4.0), x)
    transform_lines("CircularShift", Z.CircularShiftTransform(2.0), x)
    transform_lines("SignedPower", Z.SignedPowerTransform(torch.tensor([0.5, 1.0, 2.0])), x)
    transform_lines("LULinear", Z.LULinearTransform(torch.randn(3, 3) * 0.3 + torch.eye(3)), x)
    transform_lines("GaussianizationTransform",
                    Z.GaussianizationTransform(torch.randn(3, 4), torch.randn(3, 4)), x)
    transform_lines("Rotation", Z.RotationTransform(torch.randn(3, 3)), x)
    transform_lines("Permutation", Z.PermutationTransform(torch.tensor([2, 0, 1])), x)
    transform_lines("Composed", Z.ComposedTransform(
        Z.MonotonicAffineTransform(torch.randn(3), torch.randn(3)),
        Z.SignedPowerTransform(torch.tensor([0.3, -0.2, 0.1])), Z.SoftclipTransform()), x)
    dep = Z.DependentTransform(Z.MonotonicAffineTransform(torch.randn(3), torch.randn(3)), 1)
    transform_lines("Dependent", dep, x)
    lin = torch.nn.Linear(1, 3)
    umnn = Z.UnconstrainedMonotonicTransform(
        lambda t: torch.nn.functional.softplus(lin(t.unsqueeze(-1))).sum(-1) + 0.1,
        phi=(), bound=10.0)
    transform_lines("UnconstrainedMonotonic", umnn, x)
    net = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3))
    ffj = Z.FreeFormJacobianTransform(lambda t, y: net(torch.cat([y, t.expand(y.shape[:-1]
                                                                              ).unsqueeze(-1)],
                                                                 -1)),
                                      0.0, 1.0, phi=list(net.parameters()), atol=1e-5,
                                      rtol=1e-4, exact=True)
    transform_lines("FreeFormJacobian", ffj, x)
    y, ladj = ffj.call_and_ladj(x)
    (y.square().sum() + ladj.sum()).backward()
    show("FreeFormJacobian adjoint grads", grads(net))


# ---------------------------------------------------------------------------------------- nflows

def resnet(context):
    def create(in_features, out_features):
        return nets.ResidualNet(in_features, out_features, hidden_features=8,
                                context_features=context or None, num_blocks=1)
    return create


def nflows_flow(build, features=2, context=0, steps=3, batch_norm=False):
    transform = T.CompositeTransform(build(features, context))
    flow = nflows_flows.Flow(transform, ndist.StandardNormal([features]))
    c = points(6, context) if context else None
    x = points(6, features)
    show("parameters", sum(p.numel() for p in flow.parameters()))
    flow.train()
    show("log_prob", flow.log_prob(x, context=c))
    flow.eval()
    show("eval log_prob", flow.log_prob(x, context=c))
    noise = flow.transform_to_noise(x, context=c)
    show("transform_to_noise", noise)
    z, ladj = flow._transform(x, context=c)
    show("ladj", ladj)
    back, inv_ladj = flow._transform.inverse(z, context=c)
    residual("inverse round trip", back - x)
    residual("inverse ladj + ladj", inv_ladj + ladj)
    with torch.no_grad():
        show("sample", flow.sample(3, context=c[:2] if context else None))
        s, lp = flow.sample_and_log_prob(3, context=c[:2] if context else None)
        show("sample_and_log_prob x", s)
        show("sample_and_log_prob log_prob", lp)
    flow.train()
    data = two_moons()
    if features > 2:
        data = torch.cat([data, data[:, :1] * data[:, 1:]], -1)
    ctx = torch.cat([data[:, :1], -data[:, 1:2], data[:, :1] ** 2], -1)[:, :context] \
        if context else None
    train(flow, lambda: -flow.log_prob(data, context=ctx).mean(), steps=steps)


def nflows_variant(name, build, **kwargs):
    for context in (0, 3):
        suffix = "_ctx" if context else ""

        def run(build=build, context=context):
            nflows_flow(build, context=context, **kwargs)
        variant(f"nflows_{name}{suffix}")(run)


nflows_variant("maf", lambda f, c: [
    T.MaskedAffineAutoregressiveTransform(f, 8, context_features=c or None, num_blocks=1),
    T.ReversePermutation(f),
    T.MaskedAffineAutoregressiveTransform(f, 8, context_features=c or None, num_blocks=1,
                                          use_residual_blocks=False, random_mask=False),
])
nflows_variant("rqs_autoregressive", lambda f, c: [
    T.MaskedPiecewiseRationalQuadraticAutoregressiveTransform(
        f, 8, context_features=c or None, num_bins=4, tails="linear", tail_bound=3.0,
        num_blocks=1),
    T.RandomPermutation(f),
    T.MaskedPiecewiseRationalQuadraticAutoregressiveTransform(
        f, 8, context_features=c or None, num_bins=3, tails="linear", tail_bound=2.0,
        num_blocks=1, use_residual_blocks=False),
])
nflows_variant("rqs_coupling", lambda f, c: [
    T.PiecewiseRationalQuadraticCouplingTransform(
        torch.tensor([1, 0]), resnet(c), num_bins=4, tails="linear", tail_bound=3.0),
    T.ReversePermutation(f),
    T.PiecewiseRationalQuadraticCouplingTransform(
        torch.tensor([1, 0]), resnet(c), num_bins=3, tails="linear", tail_bound=3.0,
        apply_unconditional_transform=True),
])
nflows_variant("linear_norm", lambda f, c: [  # BatchNorm first: nothing it makes shift-free
    T.BatchNorm(f),
    T.ActNorm(f),
    T.LULinear(f, identity_init=False),
    T.AffineCouplingTransform(torch.tensor([0, 1]), resnet(c)),
    T.RandomPermutation(f),
    T.LULinear(f, identity_init=True),
    T.AdditiveCouplingTransform(torch.tensor([1, 0]), resnet(c)),
])


@variant("nflows_maf3")
def _():
    nflows_flow(lambda f, c: [
        T.MaskedAffineAutoregressiveTransform(f, 8, num_blocks=1, random_mask=True,
                                              use_residual_blocks=False),
        T.RandomPermutation(f),
        T.MaskedPiecewiseRationalQuadraticAutoregressiveTransform(
            f, 8, num_bins=4, tails="linear", tail_bound=3.0, num_blocks=1),
        T.LULinear(f, identity_init=False),
        T.ActNorm(f),
    ], features=3)


def nflows_transform_lines(label, t, x, context=None):
    x = x.clone().requires_grad_()
    y, ladj = t(x, context=context)
    show(f"{label} y", y)
    show(f"{label} ladj", ladj)
    back, inv_ladj = t.inverse(y, context=context)
    residual(f"{label} inverse round trip", back - x)
    residual(f"{label} inverse ladj + ladj", inv_ladj + ladj)
    (y.square().sum() + ladj.sum()).backward()
    show(f"{label} grad x", x.grad)
    if any(p.grad is not None for p in t.parameters()):
        show(f"{label} grad params", grads(t))


@variant("nflows_transforms")
def _():
    x = points(5, 3)
    unit = torch.sigmoid(x)
    for label, t, inputs in (
            ("Sigmoid", T.Sigmoid(), x), ("Logit", T.Logit(), unit), ("Tanh", T.Tanh(), x),
            ("LogTanh", T.LogTanh(cut_point=1), x), ("LeakyReLU", T.LeakyReLU(0.1), x),
            ("AffineScalar", T.AffineScalarTransform(shift=0.3, scale=1.5), x),
            ("RQS CDF", T.PiecewiseRationalQuadraticCDF([3], num_bins=4, tails="linear",
                                                        tail_bound=3.0), x),
            ("cubic CDF", T.PiecewiseCubicCDF([3], num_bins=4), unit),
            ("CompositeCDF", T.CompositeCDFTransform(T.Sigmoid(),
                                                     T.PiecewiseRationalQuadraticCDF(
                                                         [3], num_bins=4)), x),
            ("SVDLinear", T.SVDLinear(3, num_householder=2), x),
            ("QRLinear", T.QRLinear(3, num_householder=2), x),
            ("masked quadratic AR", T.MaskedPiecewiseQuadraticAutoregressiveTransform(
                3, 8, num_bins=3, tails="linear", num_blocks=1), x * 0.5),
            ("masked cubic AR", T.MaskedPiecewiseCubicAutoregressiveTransform(
                num_bins=3, features=3, hidden_features=8, num_blocks=1), unit),
            ("cubic coupling", T.PiecewiseCubicCouplingTransform(
                torch.tensor([0, 1, 1]), resnet(0), num_bins=3), unit)):
        nflows_transform_lines(label, t, inputs)
    images = points(2 * 4 * 4 * 4 // 3 + 1, 3).flatten()[:2 * 4 * 4 * 4].view(2, 4, 4, 4)
    nflows_transform_lines("OneByOneConvolution", T.OneByOneConvolution(4), images)


@variant("nflows_distributions")
def _():
    x = points(6, 2)
    ctx = points(6, 4)
    cond = ndist.ConditionalDiagonalNormal([2])
    show("ConditionalDiagonalNormal log_prob", cond.log_prob(x, context=ctx))
    show("ConditionalDiagonalNormal sample", cond.sample(3, context=ctx[:2]))
    show("ConditionalDiagonalNormal mean", cond.mean(context=ctx[:2]))
    diag = ndist.DiagonalNormal([2])
    show("DiagonalNormal log_prob", diag.log_prob(x))
    show("StandardNormal mean", ndist.StandardNormal([2]).mean())
    box = ndist.uniform.BoxUniform(-torch.ones(2), torch.ones(2))
    show("BoxUniform log_prob", box.log_prob(x * 0.3))
    mog = ndist.MADEMoG(2, 8, 3, num_blocks=1, num_mixture_components=3)
    show("MADEMoG log_prob", mog.log_prob(x, context=ctx[:, :3]))
    with torch.no_grad():
        show("MADEMoG sample", mog.sample(2, context=ctx[:2, :3]))
    maf = nflows_flows.MaskedAutoregressiveFlow(2, 8, num_layers=2, num_blocks_per_layer=1,
                                                batch_norm_between_layers=False)
    nvp = nflows_flows.SimpleRealNVP(2, 8, num_layers=2, num_blocks_per_layer=1)
    embedded = nflows_flows.Flow(
        T.MaskedAffineAutoregressiveTransform(2, 8, context_features=3, num_blocks=1),
        ndist.ConditionalDiagonalNormal([2], context_encoder=torch.nn.Linear(3, 4)),
        embedding_net=torch.nn.Linear(4, 3))
    for label, flow, c in (("MaskedAutoregressiveFlow", maf, None),
                           ("SimpleRealNVP", nvp, None), ("embedding_net", embedded, ctx)):
        show(f"{label} log_prob", flow.log_prob(x, context=c))
        flow.eval()  # MaskedAutoregressiveFlow's BatchNorm inverts only in eval mode
        with torch.no_grad():
            show(f"{label} sample", flow.sample(2, context=None if c is None else c[:2]))
        flow.train()
        train(flow, lambda flow=flow, c=c: -flow.log_prob(x, context=c).mean(), steps=2)


def main(argv):
    if os.environ.get("FLOWS_FLOAT64"):  # to tell float32 rounding from a bug
        torch.set_default_dtype(torch.float64)
    names = list(VARIANTS) if argv in ([], ["all"]) else argv
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"unknown variants {unknown}; known: {' '.join(VARIANTS)}")
    for name in names:
        start = time.time()
        torch.manual_seed(0)
        print(f"== {name}")
        VARIANTS[name]()
        print(f"[{name}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
