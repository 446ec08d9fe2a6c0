"""Driver of torchcfm, torchode and denoising-diffusion-pytorch (docs/real-programs.md): the
installed packages (torchcfm 1.0.7 with POT, torchode 1.0.1, denoising-diffusion-pytorch 2.3),
unchanged, at tiny sizes. torchcfm: every conditional flow matcher (ConditionalFlowMatcher,
ExactOptimalTransport-, Target-, SchrodingerBridge- and VariancePreservingConditionalFlowMatcher)
on its 2-D toy data (8 Gaussians to moons), their probability paths, conditional flows, noise,
lambda and label-guided OT sampling, OTPlanSampler (exact, sinkhorn, unbalanced, partial; plans,
sampled pairs, OT trajectories) and ``wasserstein``; a few Adam steps of its ``models.MLP`` per
matcher (flow and score networks for the Schrodinger bridge), a state_dict round trip through
``torch.save``, and samples by integrating the trained field with torchode and with torchdyn's
NeuralODE (as its README does); its UNetModelWrapper (class-conditional, attention, gradient
checkpointing, float16 blocks) trained two steps and sampled. torchode: ``solve_ivp`` (dopri5,
tsit5, heun, fixed-step euler), AutoDiffAdjoint with IntegralController and PIDController,
batched problems with per-sample time spans and evaluation points, backwards in time, extra
args, float64 time with float32 data, statistics and status, gradients through the solve
(AutoDiffAdjoint, BacksolveAdjoint, JointBacksolveAdjoint), a neural ODE fitted by Adam.
denoising-diffusion-pytorch: a tiny Unet with GaussianDiffusion (8x8 images, 10 timesteps) and
Unet1D with GaussianDiffusion1D: losses, backward, Adam steps and seeded samples. Every value is
printed as a checksum at full precision.

    python scripts/shared_rng_run.py drive_torchcfm.py [VARIANT ... | all]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_torchcfm.py [VARIANT ... | all]   # jtorch

Without arguments it runs every variant (``all`` too). Each variant reseeds
(``torch.manual_seed`` and NumPy's global generator, which torchcfm's plan sampler draws from), so
a subset prints what the full run prints for it. ``CFM_FLOAT64=1`` runs torchcfm and torchode in
float64 (to tell float32 rounding from a bug); the UNets stay float32 (they cast their timestep
embeddings to float32).
"""

import io
import os
import sys
import warnings

import numpy as np
import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import torchcfm  # noqa: E402
import torchode as to  # noqa: E402
from torchcfm.models.models import MLP  # noqa: E402
from torchcfm.optimal_transport import OTPlanSampler, wasserstein  # noqa: E402
from torchcfm.utils import sample_8gaussians, sample_moons, torch_wrapper  # noqa: E402

warnings.filterwarnings("ignore")
DTYPE = torch.float64 if os.environ.get("CFM_FLOAT64") else torch.float32
N = 16  # batch of 2-D points

VARIANTS = {}


def variant(name):
    def register(build):
        VARIANTS[name] = build
        return build
    return register


def checksum(a):
    """The sum of the magnitudes, a weighted sum (weights 1 to 2 in a period of 7 elements) and
    the largest magnitude, in float64."""
    a = np.asarray(a.detach().double().numpy() if isinstance(a, torch.Tensor) else a,
                   dtype=np.float64).ravel()
    w = 1.0 + (np.arange(a.size) % 7) / 6
    top = np.abs(a).max(initial=0.0)
    return f"{float(np.abs(a).sum())!r} {float((a * w).sum())!r} {float(top)!r}"


def grad_norm(params):
    return sum(float(p.grad.double().pow(2).sum()) for p in params if p.grad is not None) ** 0.5


def seed(s=0):
    torch.manual_seed(s)
    np.random.seed(s)


def toy_batch(n=N):
    x0 = sample_8gaussians(n).to(DTYPE)
    x1 = sample_moons(n).to(DTYPE)
    return x0, x1


def matchers():
    return [
        ("CFM", torchcfm.ConditionalFlowMatcher(sigma=0.0)),
        ("CFM0.1", torchcfm.ConditionalFlowMatcher(sigma=0.1)),
        ("OT-CFM", torchcfm.ExactOptimalTransportConditionalFlowMatcher(sigma=0.1)),
        ("Target", torchcfm.TargetConditionalFlowMatcher(sigma=0.05)),
        ("SB-exact", torchcfm.SchrodingerBridgeConditionalFlowMatcher(sigma=0.5)),
        ("SB-sinkhorn", torchcfm.SchrodingerBridgeConditionalFlowMatcher(
            sigma=0.5, ot_method="sinkhorn")),
        ("VP", torchcfm.VariancePreservingConditionalFlowMatcher(sigma=0.1)),
    ]


@variant("paths")
def paths():
    """Each matcher's sample_location_and_conditional_flow, at given and at drawn times."""
    seed(0)
    x0, x1 = toy_batch()
    print(f"data x0 {checksum(x0)} x1 {checksum(x1)} dtype {x0.dtype}")
    t_given = torch.linspace(0.05, 0.95, N, dtype=DTYPE)
    for name, fm in matchers():
        seed(1)
        t, xt, ut, eps = fm.sample_location_and_conditional_flow(x0, x1, return_noise=True)
        print(f"{name} drawn t {checksum(t)} xt {checksum(xt)} ut {checksum(ut)} "
              f"eps {checksum(eps)} {xt.dtype}")
        seed(2)
        t, xt, ut = fm.sample_location_and_conditional_flow(x0, x1, t=t_given)
        print(f"{name} given xt {checksum(xt)} ut {checksum(ut)}")
        print(f"{name} mu_t {checksum(fm.compute_mu_t(x0, x1, t_given[:, None]))} "
              f"sigma_t {checksum(fm.compute_sigma_t(t_given))} "
              f"lambda {checksum(fm.compute_lambda(t_given))}")
    # label-guided OT sampling
    y0 = torch.arange(N) % 3
    y1 = torch.arange(N) % 4
    for name, fm in matchers()[2:5:2]:
        seed(3)
        t, xt, ut, g0, g1 = fm.guided_sample_location_and_conditional_flow(x0, x1, y0, y1)
        print(f"{name} guided t {checksum(t)} xt {checksum(xt)} ut {checksum(ut)} "
              f"y0 {g0.tolist()} y1 {g1.tolist()}")
    # images-shaped data: the matchers reshape t to the data's rank
    seed(4)
    img0, img1 = torch.randn(3, 2, 4, 4, dtype=DTYPE), torch.rand(3, 2, 4, 4, dtype=DTYPE)
    for name, fm in matchers():
        seed(5)
        t, xt, ut = fm.sample_location_and_conditional_flow(img0, img1)
        print(f"{name} images xt {checksum(xt)} ut {checksum(ut)} shape {tuple(xt.shape)}")


@variant("ot")
def ot():
    """OTPlanSampler's solvers, sampled pairs, labels, trajectories, and wasserstein."""
    seed(0)
    x0, x1 = toy_batch(12)
    for method in ("exact", "sinkhorn", "unbalanced", "partial"):
        sampler = OTPlanSampler(method=method, reg=0.5, normalize_cost=method != "exact")
        pi = sampler.get_map(x0, x1)
        np.random.seed(7)
        a, b = sampler.sample_plan(x0, x1)
        np.random.seed(8)
        i, j = sampler.sample_map(pi, 12, replace=False)
        print(f"ot {method} plan {checksum(pi)} pairs {checksum(a)} {checksum(b)} "
              f"idx {i.tolist()} {j.tolist()}")
    sampler = OTPlanSampler(method="exact")
    np.random.seed(9)
    a, b, la, lb = sampler.sample_plan_with_labels(x0, x1, torch.arange(12), torch.arange(12) + 1)
    print(f"ot labels {checksum(a)} {checksum(b)} {la.tolist()} {lb.tolist()}")
    seed(10)
    traj = torch.randn(6, 4, 2, dtype=DTYPE).cumsum(1)
    np.random.seed(11)
    print(f"ot trajectory {checksum(sampler.sample_trajectory(traj))}")
    for method, power in (("exact", 2), ("exact", 1), ("sinkhorn", 2)):
        print(f"wasserstein {method} p{power} "
              f"{wasserstein(x0, x1, method=method, reg=0.5, power=power)!r}")


def train(fm, steps=3, score=False, w=16):
    """torchcfm's training loop from its examples: MLP(time_varying=True), MSE to the flow (plus
    the score matching loss weighted by lambda for the Schrodinger bridge), Adam."""
    seed(20)
    model = MLP(dim=2, w=w, time_varying=True).to(DTYPE)
    score_model = MLP(dim=2, w=w, time_varying=True).to(DTYPE) if score else None
    params = list(model.parameters()) + (list(score_model.parameters()) if score else [])
    opt = torch.optim.Adam(params, lr=1e-2)
    for step in range(steps):
        opt.zero_grad()
        x0, x1 = toy_batch()
        t, xt, ut, eps = fm.sample_location_and_conditional_flow(x0, x1, return_noise=True)
        inp = torch.cat([xt, t[:, None]], dim=-1)
        loss = torch.mean((model(inp) - ut) ** 2)
        if score:
            lam = fm.compute_lambda(t)
            loss = loss + torch.mean((lam[:, None] * score_model(inp) + eps) ** 2)
        loss.backward()
        gn = grad_norm(params)
        opt.step()
        print(f"  step {step} loss {loss.item()!r} grad norm {gn!r}")
    return model, score_model


@variant("train")
def train_all():
    """Three Adam steps of the MLP per matcher, a state_dict round trip, torchode samples."""
    trained = None
    for name, fm in matchers():
        print(f"train {name}")
        model, score_model = train(fm, score=name.startswith("SB"))
        if score_model is not None:
            weights = torch.cat([p.flatten() for p in score_model.parameters()])
            print(f"  score weights {checksum(weights)}")
        if name == "OT-CFM":
            trained = model
    buf = io.BytesIO()
    torch.save(trained.state_dict(), buf)
    buf.seek(0)
    fresh = MLP(dim=2, w=16, time_varying=True).to(DTYPE)
    fresh.load_state_dict(torch.load(buf))
    seed(30)
    x = torch.randn(5, 3, dtype=DTYPE)
    print(f"state_dict round trip equal {bool(torch.equal(fresh(x), trained(x)))} "
          f"keys {list(fresh.state_dict())}")
    # sample: integrate dx/dt = v(t, x) from the Gaussians with torchode (dopri5), and the
    # torchdyn-style wrapper torchcfm ships
    seed(31)
    x0 = sample_8gaussians(8).to(DTYPE)
    wrapper = torch_wrapper(trained)
    with torch.no_grad():
        print(f"torch_wrapper field {checksum(wrapper(torch.tensor(0.5, dtype=DTYPE), x0))}")
        t_eval = torch.linspace(0, 1, 5, dtype=DTYPE).repeat(8, 1)
        sol = to.solve_ivp(lambda t, y: trained(torch.cat([y, t[:, None]], -1)), x0, t_eval,
                           method="dopri5",
                           controller=to.IntegralController(atol=1e-5, rtol=1e-5))
        print(f"samples dopri5 ys {checksum(sol.ys)} status {sol.status.tolist()} "
              f"steps {sol.stats['n_steps'].tolist()}")
        # the sampling of torchcfm's README and notebooks: torchdyn's NeuralODE over the wrapper
        from torchdyn.core import NeuralODE
        node = NeuralODE(wrapper, solver="dopri5", sensitivity="adjoint", atol=1e-4, rtol=1e-4)
        traj = node.trajectory(x0, t_span=torch.linspace(0, 1, 10, dtype=DTYPE))
        print(f"samples torchdyn trajectory {checksum(traj)} shape {tuple(traj.shape)}")


@variant("unet")
def unet():
    """torchcfm's UNetModelWrapper (its CIFAR example's model) at 8x8: class-conditional, with
    attention, scale-shift norm, up/down-sampling resblocks, dropout and gradient checkpointing
    (its CheckpointFunction); two OT-CFM Adam steps, then an Euler sample by torchode. Always
    float32: the model casts its timestep embedding to float32 (float16 with use_fp16)."""
    from torchcfm.models.unet.unet import UNetModelWrapper
    seed(0)
    model = UNetModelWrapper(dim=(1, 8, 8), num_channels=32, num_res_blocks=1,
                             channel_mult=(1, 2), class_cond=True, num_classes=3,
                             use_checkpoint=True, attention_resolutions="4", num_heads=2,
                             use_scale_shift_norm=True, dropout=0.1, resblock_updown=True)
    print(f"unet parameters {sum(p.numel() for p in model.parameters())}")
    fm = torchcfm.ExactOptimalTransportConditionalFlowMatcher(sigma=0.0)
    opt = torch.optim.Adam(model.parameters(), lr=2e-4)
    for step in range(2):
        opt.zero_grad()
        x1 = torch.rand(4, 1, 8, 8) * 2 - 1
        x0 = torch.randn_like(x1)
        labels = torch.tensor([0, 1, 2, 1])
        t, xt, ut, y0, y1 = fm.guided_sample_location_and_conditional_flow(x0, x1, None, labels)
        vt = model(t, xt, y1)
        loss = torch.mean((vt - ut) ** 2)
        loss.backward()
        gn = grad_norm(model.parameters())
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        print(f"unet step {step} loss {loss.item()!r} grad norm {gn!r} labels {y1.tolist()}")
    model.eval()
    labels = torch.tensor([0, 2])

    def field(t, y):
        return model(t, y.view(-1, 1, 8, 8), labels).flatten(1)

    with torch.no_grad():
        y0 = torch.randn(2, 64)
        solver = to.AutoDiffAdjoint(to.Euler(term=to.ODETerm(field)), to.FixedStepController())
        t_eval = torch.linspace(0, 1, 3).repeat(2, 1)
        sol = solver.solve(to.InitialValueProblem(y0=y0, t_eval=t_eval),
                           dt0=torch.full((2,), 0.25))
    print(f"unet euler samples {checksum(sol.ys)} n_steps {sol.stats['n_steps'].tolist()}")
    # the other attention (QKVAttention, heads by channel count), float16 blocks
    # (convert_to_fp16), learned sigma: one forward and backward
    seed(1)
    model = UNetModelWrapper(dim=(1, 8, 8), num_channels=32, num_res_blocks=1,
                             channel_mult=(1, 2), attention_resolutions="2,4",
                             num_head_channels=16, use_new_attention_order=True, use_fp16=True,
                             learn_sigma=True)
    model.convert_to_fp16()
    x = torch.randn(2, 1, 8, 8, requires_grad=True)
    out = model(torch.tensor([0.3, 0.9]), x)
    (out[:, :1] - x.detach()).pow(2).sum().backward()
    grads = torch.cat([p.grad.double().flatten() for p in model.parameters() if p.grad is not None])
    print(f"unet fp16 out {out.dtype} {tuple(out.shape)} grads {checksum(grads)} "
          f"dtypes {sorted({str(p.dtype) for p in model.parameters()})}")


def vdp(t, y):  # van der Pol, mu = 1
    return torch.stack([y[:, 1], (1 - y[:, 0] ** 2) * y[:, 1] - y[:, 0]], dim=-1)


@variant("ode")
def ode():
    """torchode's solvers and controllers on batched problems with per-sample time spans."""
    seed(0)
    y0 = torch.tensor([[2.0, 0.0], [1.0, 1.0], [0.1, -0.5]], dtype=DTYPE)
    t_eval = torch.stack([torch.linspace(0, 2, 6), torch.linspace(0, 3, 6),
                          torch.linspace(0.5, 1.5, 6)]).to(DTYPE)
    for method in ("dopri5", "tsit5", "heun"):
        # solve_ivp's default PID controller has atol = rtol = 1e-7, under float32's epsilon:
        # its accepted steps would follow rounding; float64 runs keep the default
        controller = None if DTYPE == torch.float64 else to.IntegralController(
            atol=1e-5, rtol=1e-4)
        sol = to.solve_ivp(vdp, y0, t_eval, method=method, controller=controller)
        print(f"solve_ivp {method} ts {checksum(sol.ts)} ys {checksum(sol.ys)} "
              f"status {sol.status.tolist()} n_steps {sol.stats['n_steps'].tolist()} "
              f"n_accepted {sol.stats['n_accepted'].tolist()} "
              f"n_f_evals {sol.stats['n_f_evals'].tolist()}")
    term = to.ODETerm(vdp)
    for cname, controller in (
            ("integral", to.IntegralController(atol=1e-6, rtol=1e-4, term=term)),
            ("pid", to.PIDController(atol=1e-6, rtol=1e-4, pcoeff=0.3, icoeff=0.3, dcoeff=0.1,
                                     term=term))):
        for sname, step in (("dopri5", to.Dopri5(term=term)), ("tsit5", to.Tsit5(term=term))):
            solver = to.AutoDiffAdjoint(step, controller)
            sol = solver.solve(to.InitialValueProblem(y0=y0, t_eval=t_eval))
            print(f"{cname} {sname} ys {checksum(sol.ys)} status {sol.status.tolist()} "
                  f"n_steps {sol.stats['n_steps'].tolist()}")
    # fixed-step Euler with a per-sample dt0; backwards in time; t_span without t_eval
    solver = to.AutoDiffAdjoint(to.Euler(term=term), to.FixedStepController())
    sol = solver.solve(to.InitialValueProblem(y0=y0, t_eval=t_eval),
                       dt0=torch.tensor([0.1, 0.05, 0.02], dtype=DTYPE))
    print(f"euler fixed ys {checksum(sol.ys)} n_steps {sol.stats['n_steps'].tolist()}")
    back = torch.flip(t_eval, dims=(1,))
    sol = to.solve_ivp(vdp, y0, back, method="tsit5")
    print(f"backwards ys {checksum(sol.ys)} status {sol.status.tolist()}")
    sol = solver.solve(to.InitialValueProblem(
        y0=y0, t_start=torch.zeros(3, dtype=DTYPE), t_end=torch.tensor([1.0, 2.0, 0.5],
                                                                       dtype=DTYPE)),
        dt0=torch.full((3,), 0.1, dtype=DTYPE))
    print(f"t_span only ts {checksum(sol.ts)} ys {checksum(sol.ys)} shape {tuple(sol.ys.shape)}")
    # max_steps reached
    sol = to.solve_ivp(vdp, y0, t_eval, method="dopri5", max_steps=4)
    names = [to.Status(s).name for s in sol.status.tolist()]
    print(f"max_steps status {sol.status.tolist()} {names}")
    # args passed to the term
    sol = to.solve_ivp(lambda t, y, k: -k[:, None] * y, y0, t_eval, method="tsit5",
                       args=torch.tensor([0.5, 1.0, 2.0], dtype=DTYPE))
    exact = y0[:, None, :] * torch.exp(-torch.tensor([0.5, 1.0, 2.0], dtype=DTYPE)[:, None, None]
                                       * (t_eval - t_eval[:, :1])[..., None])
    err = float((sol.ys - exact).abs().max())
    print(f"args ys {checksum(sol.ys)} error below 1e-5 {err < 1e-5}")


class Field(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(),
                                       torch.nn.Linear(8, 2))

    def forward(self, t, y):
        # t is (batch,), or () per sample under BacksolveAdjoint's vmap
        return self.net(torch.cat([y, t.unsqueeze(-1).to(y.dtype)], -1))


@variant("grad")
def grad():
    """Gradients through the solve: AutoDiffAdjoint (through the step-size control or not),
    fixed steps, and BacksolveAdjoint; a few Adam steps fitting a neural ODE."""
    seed(0)
    field = Field().to(DTYPE)
    y0 = torch.randn(4, 2, dtype=DTYPE, requires_grad=True)
    t_eval = torch.linspace(0, 1, 4, dtype=DTYPE).repeat(4, 1)
    target = torch.randn(4, 4, 2, dtype=DTYPE)
    term = to.ODETerm(field)
    for label, solver, dt0 in (
            ("autodiff", to.AutoDiffAdjoint(to.Dopri5(term=term), to.IntegralController(
                atol=1e-6, rtol=1e-5, term=term)), None),
            ("autodiff no-dt-grad", to.AutoDiffAdjoint(
                to.Tsit5(term=term), to.PIDController(atol=1e-6, rtol=1e-5, pcoeff=0.2,
                                                      icoeff=0.5, dcoeff=0.0, term=term),
                backprop_through_step_size_control=False), None),
            ("fixed heun", to.AutoDiffAdjoint(to.Heun(term=term), to.FixedStepController()),
             torch.full((4,), 0.1, dtype=DTYPE)),
            ("backsolve", to.BacksolveAdjoint(term, to.Dopri5(term=term), to.IntegralController(
                atol=1e-8, rtol=1e-8, term=term)), None),
            ("joint backsolve", to.JointBacksolveAdjoint(
                term, to.Tsit5(term=term), to.IntegralController(atol=1e-8, rtol=1e-8, term=term)),
             None)):
        field.zero_grad()
        y0.grad = None
        sol = solver.solve(to.InitialValueProblem(y0=y0, t_eval=t_eval), dt0=dt0)
        loss = ((sol.ys - target) ** 2).mean()
        loss.backward()
        print(f"{label} loss {loss.item()!r} dy0 {checksum(y0.grad)} "
              f"dparams {checksum(torch.cat([p.grad.flatten() for p in field.parameters()]))}")
    # float64 time with float32 data (InitialValueProblem's mixed precision)
    sol = to.solve_ivp(lambda t, y: field(t, y.to(DTYPE)).to(y.dtype), y0.detach().float(),
                       t_eval.double(), method="tsit5",
                       controller=to.IntegralController(atol=1e-5, rtol=1e-4))
    print(f"mixed precision ys {checksum(sol.ys)} {sol.ys.dtype} ts {sol.ts.dtype} "
          f"n_steps {sol.stats['n_steps'].tolist()}")
    opt = torch.optim.Adam(field.parameters(), lr=0.05)
    solver = to.AutoDiffAdjoint(to.Tsit5(term=term), to.IntegralController(
        atol=1e-6, rtol=1e-5, term=term))
    y0 = y0.detach()
    for step in range(3):
        opt.zero_grad()
        sol = solver.solve(to.InitialValueProblem(y0=y0, t_eval=t_eval))
        loss = ((sol.ys - target) ** 2).mean()
        loss.backward()
        opt.step()
        print(f"  neural ode step {step} loss {loss.item()!r} "
              f"grad norm {grad_norm(field.parameters())!r}")


def fit_and_sample(label, diffusion, shape):
    """Two Adam steps of a diffusion model on uniform data of ``shape``, then two samples."""
    opt = torch.optim.Adam(diffusion.parameters(), lr=1e-3)
    data = torch.rand(*shape)
    for step in range(2):
        opt.zero_grad()
        loss = diffusion(data)
        loss.backward()
        gn = grad_norm(diffusion.parameters())
        opt.step()
        print(f"{label} step {step} loss {loss.item()!r} grad norm {gn!r}")
    seed(1)
    samples = diffusion.sample(batch_size=2)
    print(f"{label} samples {checksum(samples)} shape {tuple(samples.shape)}")


@variant("ddpm")
def ddpm():
    """denoising-diffusion-pytorch: Unet + GaussianDiffusion (8x8, 10 steps) and Unet1D +
    GaussianDiffusion1D: loss, backward, Adam steps, seeded samples (float32: the package keeps
    its schedules in float32)."""
    from denoising_diffusion_pytorch import GaussianDiffusion, GaussianDiffusion1D, Unet, Unet1D
    for objective in ("pred_noise", "pred_v"):
        seed(0)
        model = Unet(dim=8, dim_mults=(1, 2), flash_attn=False)
        fit_and_sample(f"ddpm {objective}", GaussianDiffusion(
            model, image_size=8, timesteps=10, objective=objective, sampling_timesteps=10),
            (2, 3, 8, 8))
    seed(0)
    model = Unet1D(dim=8, dim_mults=(1, 2), channels=2)
    fit_and_sample("ddpm1d", GaussianDiffusion1D(model, seq_length=16, timesteps=10,
                                                 objective="pred_v"), (2, 2, 16))


def main(argv):
    names = [a for a in argv if a != "all"] or list(VARIANTS)
    for name in names:
        print(f"== {name}")
        VARIANTS[name]()


if __name__ == "__main__":
    main(sys.argv[1:])
