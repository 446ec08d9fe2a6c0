"""Driver of tensordict and TorchRL (docs/real-programs.md): the installed packages, unchanged,
on tiny MLP actors and critics and synthetic TensorDict batches: TensorDict operations
(nested keys, indexing, stacking, apply, memmap and torch.save round trips, tensorclass),
TensorDictModule/TensorDictSequential/probabilistic modules, functional parameter swapping
(``from_module``/``to_module``, ``from_modules`` ensembles under vmap), TorchRL's value
estimators (TD(0), TD(lambda), GAE), losses (DQN/double DQN, ClipPPO, KL-PPO, A2C, REINFORCE,
SAC, discrete SAC, DDPG, TD3, IQL, CQL) trained a few Adam steps with target-network updaters,
an LSTMModule, replay buffers (storages, samplers, slices, state_dict) and the Pendulum env with
transforms, specs and a collector, printing each result's checksum at full precision.

    python scripts/shared_rng_run.py drive_torchrl.py [VARIANT ... | all]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_torchrl.py [VARIANT ... | all]   # jtorch

Without arguments it runs every variant. Each variant reseeds (``torch.manual_seed``), so a
subset prints what the full run prints for it. Computations are float64 where the libraries
allow (``torch.set_default_dtype``), so that a difference is a bug and not rounding.
"""

import logging
import os
import sys
import tempfile
import time
import warnings

import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
warnings.filterwarnings("ignore")

import tensordict  # noqa: E402
import torchrl  # noqa: E402,F401
from tensordict import TensorDict  # noqa: E402
from tensordict.nn import (  # noqa: E402
    NormalParamExtractor,
    ProbabilisticTensorDictModule,
    ProbabilisticTensorDictSequential,
    TensorDictModule,
    TensorDictSequential,
)
from torch import nn  # noqa: E402

logging.getLogger("torchrl").setLevel(logging.WARNING)   # its INFO lines carry timestamps
from torchrl.data import (  # noqa: E402
    LazyTensorStorage,
    ListStorage,
    ReplayBuffer,
    TensorDictReplayBuffer,
)
from torchrl.data.replay_buffers import (  # noqa: E402
    RandomSampler,
    SamplerWithoutReplacement,
    SliceSampler,
)
from torchrl.modules import (  # noqa: E402
    MLP,
    ProbabilisticActor,
    QValueActor,
    TanhNormal,
    ValueOperator,
)
from torchrl.objectives import (  # noqa: E402
    ClipPPOLoss,
    DDPGLoss,
    DQNLoss,
    HardUpdate,
    SACLoss,
    SoftUpdate,
    TD3Loss,
)
from torchrl.objectives.value import GAE, TD0Estimator, TDLambdaEstimator  # noqa: E402
from torchrl.objectives.value.functional import (  # noqa: E402
    generalized_advantage_estimate,
    td0_return_estimate,
    vec_generalized_advantage_estimate,
    vec_td_lambda_return_estimate,
)

OBS, ACT, N, T = 3, 2, 8, 6

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


def td_lines(td, prefix=""):
    """One line per leaf of a TensorDict (sorted nested keys)."""
    out = [(f"{prefix}batch_size", list(td.batch_size))]
    for key in sorted(td.keys(True, True), key=str):
        value = td.get(key)
        out.append((f"{prefix}{key}", value if isinstance(value, torch.Tensor) else repr(value)))
    return out


def batch(n=N, obs=OBS, act=ACT, discrete=False):
    """A synthetic transition batch in TorchRL's layout (root and ``next``)."""
    action = (torch.nn.functional.one_hot(torch.randint(0, act, (n,)), act) if discrete
              else torch.rand(n, act) * 2 - 1)
    return TensorDict({
        "observation": torch.randn(n, obs),
        "action": action,
        "next": {"observation": torch.randn(n, obs), "reward": torch.randn(n, 1),
                 "done": torch.rand(n, 1) < 0.2, "terminated": torch.rand(n, 1) < 0.2},
    }, batch_size=[n])


def trajectory(b=2, t=T):
    td = TensorDict({
        "observation": torch.randn(b, t, OBS),
        "next": {"observation": torch.randn(b, t, OBS), "reward": torch.randn(b, t, 1),
                 "done": torch.zeros(b, t, 1, dtype=torch.bool),
                 "terminated": torch.zeros(b, t, 1, dtype=torch.bool)},
    }, batch_size=[b, t])
    td["next", "done"][:, -1] = True
    td["next", "terminated"][0, 3] = True
    td["next", "done"][0, 3] = True
    return td


def params_lines(name, module):
    out = []
    for pname, p in module.named_parameters():
        out.append((f"{name}.{pname}", p))
    return out


def train(loss_module, make_batch, steps=3, updater=None, lr=1e-2, keys=None):
    """A few Adam steps on the sum of the loss terms; their values at each step."""
    opt = torch.optim.Adam(loss_module.parameters(), lr=lr)
    out = []
    for step in range(steps):
        losses = loss_module(make_batch())
        names = keys or sorted(k for k in losses.keys() if k.startswith("loss_"))
        total = sum(losses[k] for k in names)
        opt.zero_grad()
        total.backward()
        gnorm = torch.nn.utils.clip_grad_norm_(loss_module.parameters(), 100.0)
        opt.step()
        if updater is not None:
            updater.step()
        out.append((f"step{step} total", total))
        out.append((f"step{step} grad_norm", gnorm))
        for k in names:
            out.append((f"step{step} {k}", losses[k]))
    return out


@variant("tensordict")
def _():
    td = TensorDict({"a": torch.randn(4, 3), "b": {"c": torch.arange(8.0).reshape(4, 2),
                                                   "d": torch.ones(4, dtype=torch.bool)}},
                    batch_size=[4])
    out = td_lines(td)
    out.append(("repr shape", str(td[1:3].batch_size)))
    out += td_lines(td[torch.tensor([0, 2])], "index ")
    out += td_lines(td[td["b", "d"]], "mask ")
    stacked = torch.stack([td, td.apply(lambda x: x * 2)], 0)
    out += td_lines(stacked, "stack ")
    out += td_lines(torch.cat([td, td], 0), "cat ")
    out += td_lines(td.reshape(2, 2), "reshape ")
    out += td_lines(td.apply(lambda x: x.float() + 1), "apply ")
    out += td_lines(td.exclude(("b", "d")).apply(torch.sin), "sin ")
    out += td_lines(td.flatten_keys("."), "flat ")
    out += td_lines(td.select("a").update({"e": torch.zeros(4, 5)}), "update ")
    out.append(("sum a", td.sum(dim=0)["a"]))
    out.append(("mean c", td["b"].select("c").mean(dim=0)["c"]))
    out.append(("unbind", torch.stack([t["a"] for t in td.unbind(0)])))
    out.append(("split", td.split(2, 0)[1]["a"]))
    out.append(("to float32", str(td.to(torch.float32)["a"].dtype)))
    out.append(("clone equal", str((td.clone() == td).all())))
    out.append(("lazy stack", torch.stack([td[0], td[1]], 0)["b", "c"]))
    with tempfile.TemporaryDirectory() as d:   # (memmap/td.save need torch.from_file)
        torch.save(td.to_dict(), os.path.join(d, "td.pt"))
        back = TensorDict(torch.load(os.path.join(d, "td.pt")), batch_size=[4])
        out += td_lines(back, "saved ")
        torch.save(td, os.path.join(d, "td_pickle.pt"))
        out += td_lines(torch.load(os.path.join(d, "td_pickle.pt"), weights_only=False),
                        "pickled ")

    @tensordict.tensorclass
    class Pair:
        x: torch.Tensor
        y: torch.Tensor

    p = Pair(x=torch.randn(3, 2), y=torch.randn(3), batch_size=[3])
    out.append(("tensorclass x", p[1:].x))
    out.append(("tensorclass stack", torch.stack([p, p], 0).y))
    out.append(("tensorclass apply", p.apply(torch.exp).y))
    return out


def mlp(inp, outp, cells=(16, 16)):
    return MLP(in_features=inp, out_features=outp, num_cells=list(cells), activation_class=nn.Tanh)


@variant("modules")
def _():
    net = TensorDictModule(mlp(OBS, 2 * ACT), in_keys=["observation"], out_keys=["param"])
    ext = TensorDictModule(NormalParamExtractor(), in_keys=["param"], out_keys=["loc", "scale"])
    dist = ProbabilisticTensorDictModule(in_keys=["loc", "scale"], out_keys=["action"],
                                         distribution_class=TanhNormal, return_log_prob=True,
                                         default_interaction_type="random")
    policy = ProbabilisticTensorDictSequential(net, ext, dist)
    td = TensorDict({"observation": torch.randn(N, OBS)}, [N])
    out = td_lines(policy(td.clone()), "policy ")
    with tensordict.nn.set_interaction_type("deterministic"):
        out += td_lines(policy(td.clone()), "deterministic ")
    d = policy.get_dist(td.clone())
    a = torch.rand(N, ACT) * 1.8 - 0.9
    out.append(("log_prob", d.log_prob(a)))
    seq = TensorDictSequential(
        TensorDictModule(nn.Linear(OBS, 4), in_keys=["observation"], out_keys=["h"]),
        TensorDictModule(lambda h: (h.relu(), h.sum(-1, keepdim=True)), in_keys=["h"],
                         out_keys=["r", "s"]))
    out += td_lines(seq(td.clone()), "seq ")
    params = TensorDict.from_module(seq)
    out += td_lines(params, "params ")
    zeros = params.apply(torch.zeros_like)
    with zeros.to_module(seq):
        out += td_lines(seq(td.clone()), "zeroed ")
    out += td_lines(seq(td.clone()).select("s"), "restored ")
    tp = tensordict.nn.TensorDictParams(params.clone())
    out.append(("tdparams n", str(len(list(tp.parameters())))))
    # a loss through the policy's reparameterised sample, and its gradients
    policy.zero_grad()
    loss = policy(td.clone())["action"].pow(2).sum() + d.log_prob(a).sum()
    loss.backward()
    out.append(("rsample loss", loss))
    out += [(f"grad {n}", p.grad) for n, p in policy.named_parameters()]
    sd = policy.state_dict()
    with tempfile.TemporaryDirectory() as tmp:
        torch.save(sd, os.path.join(tmp, "p.pt"))
        policy2 = ProbabilisticTensorDictSequential(
            TensorDictModule(mlp(OBS, 2 * ACT), in_keys=["observation"], out_keys=["param"]),
            ext, dist)
        policy2.load_state_dict(torch.load(os.path.join(tmp, "p.pt")))
    with tensordict.nn.set_interaction_type("deterministic"):
        out += td_lines(policy2(td.clone()).select("action"), "loaded ")
    return out


@variant("value")
def _():
    traj = trajectory()
    value_net = ValueOperator(mlp(OBS, 1), in_keys=["observation"])
    out = []
    for name, est in (("td0", TD0Estimator(gamma=0.9, value_network=value_net)),
                      ("tdlambda", TDLambdaEstimator(gamma=0.9, lmbda=0.8,
                                                     value_network=value_net)),
                      ("gae", GAE(gamma=0.9, lmbda=0.8, value_network=value_net)),
                      ("gae_vec", GAE(gamma=0.9, lmbda=0.8, value_network=value_net,
                                      vectorized=True))):
        res = est(traj.clone())
        out.append((f"{name} advantage", res["advantage"]))
        out.append((f"{name} value_target", res["value_target"]))
    r = traj["next", "reward"]
    v = torch.randn(2, T, 1)
    nv = torch.randn(2, T, 1)
    done, term = traj["next", "done"], traj["next", "terminated"]
    adv, tgt = generalized_advantage_estimate(0.9, 0.8, v, nv, r, done, term)
    out += [("fn gae adv", adv), ("fn gae target", tgt)]
    adv, tgt = vec_generalized_advantage_estimate(0.9, 0.8, v, nv, r, done, term)
    out += [("fn vec gae adv", adv), ("fn vec gae target", tgt)]
    out.append(("fn td0", td0_return_estimate(0.9, nv, r, term)))
    out.append(("fn vec tdlambda", vec_td_lambda_return_estimate(0.9, 0.8, nv, r, done, term)))
    return out


@variant("dqn")
def _():
    net = mlp(OBS, 3)
    actor = QValueActor(net, in_keys=["observation"], spec=None, action_space="one-hot")
    loss = DQNLoss(actor, action_space="one-hot", delay_value=True)
    loss.make_value_estimator(gamma=0.95)
    updater = SoftUpdate(loss, eps=0.9)
    out = td_lines(actor(TensorDict({"observation": torch.randn(N, OBS)}, [N])), "act ")
    out += train(loss, lambda: batch(discrete=True, act=3), updater=updater, keys=["loss"])
    out += td_lines(loss.target_value_network_params.flatten_keys(".").data, "target ")
    dloss = DQNLoss(actor, action_space="one-hot", double_dqn=True, delay_value=True,
                    loss_function="smooth_l1")
    hard = HardUpdate(dloss, value_network_update_interval=2)
    out += train(dloss, lambda: batch(discrete=True, act=3), updater=hard, keys=["loss"])
    return out


def ppo_modules():
    net = TensorDictModule(nn.Sequential(mlp(OBS, 2 * ACT), NormalParamExtractor()),
                           in_keys=["observation"], out_keys=["loc", "scale"])
    actor = ProbabilisticActor(net, in_keys=["loc", "scale"], distribution_class=TanhNormal,
                               return_log_prob=True)
    critic = ValueOperator(mlp(OBS, 1), in_keys=["observation"])
    return actor, critic


@variant("ppo")
def _():
    actor, critic = ppo_modules()
    loss = ClipPPOLoss(actor, critic, clip_epsilon=0.2, entropy_coeff=0.01)
    loss.make_value_estimator(gamma=0.9, lmbda=0.95)
    data = trajectory()
    with torch.no_grad():
        actor(data)
        loss.value_estimator(data, params=loss.critic_network_params,
                             target_params=loss.target_critic_network_params)
    out = [("sample_log_prob", data.get("action_log_prob")), ("advantage", data["advantage"])]
    out += train(loss, lambda: data.clone(), steps=3, lr=3e-3)
    return out


def qvalue():
    return ValueOperator(mlp(OBS + ACT, 1), in_keys=["observation", "action"])


@variant("sac")
def _():
    actor, _ = ppo_modules()
    loss = SACLoss(actor, qvalue(), num_qvalue_nets=2, alpha_init=0.5,
                   target_entropy=-float(ACT))
    loss.make_value_estimator(gamma=0.9)
    updater = SoftUpdate(loss, tau=0.1)
    return train(loss, batch, updater=updater, lr=3e-3)


@variant("ddpg_td3")
def _():
    policy = TensorDictModule(nn.Sequential(mlp(OBS, ACT), nn.Tanh()), in_keys=["observation"],
                              out_keys=["action"])
    out = train(DDPGLoss(policy, qvalue()), batch, lr=3e-3)
    loss = TD3Loss(policy, qvalue(), action_spec=None, bounds=(-1.0, 1.0), num_qvalue_nets=2)
    out += train(loss, batch, updater=SoftUpdate(loss, tau=0.1), lr=3e-3)
    return out


@variant("replay")
def _():
    out = []
    rb = ReplayBuffer(storage=LazyTensorStorage(20), sampler=RandomSampler(), batch_size=4)
    rb.extend(batch(12))
    s = rb.sample()
    out += td_lines(s, "random ")
    rb2 = TensorDictReplayBuffer(storage=LazyTensorStorage(10),
                                 sampler=SamplerWithoutReplacement(), batch_size=5)
    rb2.extend(batch(12))
    out.append(("len", str(len(rb2))))
    for i in range(2):
        out += td_lines(rb2.sample(), f"noreplace{i} ")
    rb3 = ReplayBuffer(storage=ListStorage(6), batch_size=3)
    for i in range(8):
        rb3.add(torch.full((2,), float(i)))
    out.append(("list", torch.stack(list(rb3.sample()))))
    traj = trajectory(2, 8).reshape(-1)
    traj["episode"] = torch.arange(2).repeat_interleave(8)
    srb = TensorDictReplayBuffer(storage=LazyTensorStorage(32),
                                 sampler=SliceSampler(slice_len=4, traj_key="episode"),
                                 batch_size=8)
    srb.extend(traj)
    out += td_lines(srb.sample(), "slice ")
    sd = rb2.state_dict()
    rb4 = TensorDictReplayBuffer(storage=LazyTensorStorage(10),
                                 sampler=SamplerWithoutReplacement(), batch_size=5)
    rb4.load_state_dict(sd)
    out += td_lines(rb4.storage[:], "loaded ")
    with tempfile.TemporaryDirectory() as d:   # (rb.dumps memory-maps: torch.from_file)
        torch.save(rb2.state_dict(), os.path.join(d, "rb.pt"))
        rb5 = TensorDictReplayBuffer(storage=LazyTensorStorage(10), batch_size=5)
        rb5.load_state_dict(torch.load(os.path.join(d, "rb.pt"), weights_only=False))
        out += td_lines(rb5.storage[:], "saved ")
    return out


@variant("env")
def _():
    from torchrl.collectors import Collector
    from torchrl.envs import RewardSum, StepCounter, TransformedEnv
    from torchrl.envs.custom.pendulum import PendulumEnv
    env = TransformedEnv(PendulumEnv(), StepCounter(max_steps=5))
    env.append_transform(RewardSum())
    env.set_seed(0)
    policy = TensorDictModule(lambda th, thdot: (torch.tanh(th + thdot) * 2.0),
                              in_keys=["th", "thdot"], out_keys=["action"])
    roll = env.rollout(5, policy)
    out = td_lines(roll, "rollout ")
    collector = Collector(env, policy, frames_per_batch=4, total_frames=8)
    for i, data in enumerate(collector):
        out += td_lines(data.select("action", ("next", "reward"), ("next", "th")), f"coll{i} ")
    collector.shutdown()
    return out


@variant("ensemble")
def _():
    """Stacked parameters of three MLPs (``TensorDict.from_modules``) run by vmap through
    ``to_module``, as TorchRL's ensembles do, with gradients to the stacked parameters."""
    from torch.func import vmap
    nets = [mlp(OBS, 2, cells=(8,)) for _ in range(3)]
    params = TensorDict.from_modules(*nets, as_module=True)
    base = mlp(OBS, 2, cells=(8,))
    x = torch.randn(N, OBS)

    def call(p, x):
        with p.to_module(base):
            return base(x)

    y = vmap(call, (0, None))(params, x)
    out = [("ensemble out", y)]
    y.pow(2).sum().backward()
    out += [(f"ensemble grad {k}", v.grad) for k, v in
            sorted(params.flatten_keys(".").items(include_nested=True, leaves_only=True))]
    per_example = vmap(call, (None, 0))(TensorDict.from_module(base), x)
    out.append(("per-example", per_example))
    out.append(("direct", base(x)))
    return out


@variant("onpolicy")
def _():
    from torchrl.data import OneHot
    from torchrl.modules import OneHotCategorical
    from torchrl.objectives import A2CLoss, DiscreteSACLoss, KLPENPPOLoss, ReinforceLoss
    out = []
    actor, critic = ppo_modules()
    data = trajectory()
    with torch.no_grad():
        actor(data)
    for name, loss in (("a2c", A2CLoss(actor, critic, entropy_coeff=0.01)),
                       ("reinforce", ReinforceLoss(actor, critic)),
                       ("klpen", KLPENPPOLoss(actor, critic, increment=1.0, decrement=1.0))):
        loss.make_value_estimator(gamma=0.9, lmbda=0.9) if name != "reinforce" else \
            loss.make_value_estimator(gamma=0.9)
        out += [(f"{name} {lab}", v) for lab, v in train(loss, lambda: data.clone(), steps=2)]
    logits = TensorDictModule(mlp(OBS, 3), in_keys=["observation"], out_keys=["logits"])
    dactor = ProbabilisticActor(logits, in_keys=["logits"], distribution_class=OneHotCategorical,
                                spec=OneHot(3), return_log_prob=True)
    ddata = trajectory()
    with torch.no_grad():
        dactor(ddata)
    out.append(("discrete action", ddata["action"]))
    dppo = ClipPPOLoss(dactor, ValueOperator(mlp(OBS, 1), in_keys=["observation"]))
    dppo.make_value_estimator(gamma=0.9, lmbda=0.9)
    out += [(f"dppo {lab}", v) for lab, v in train(dppo, lambda: ddata.clone(), steps=2)]
    qnet = TensorDictModule(mlp(OBS, 3), in_keys=["observation"], out_keys=["action_value"])
    dsac = DiscreteSACLoss(dactor, qnet, action_space="one-hot", num_actions=3,
                           num_qvalue_nets=2, target_entropy_weight=0.5)
    dsac.make_value_estimator(gamma=0.9)
    out += [(f"dsac {lab}", v) for lab, v in
            train(dsac, lambda: batch(discrete=True, act=3), updater=SoftUpdate(dsac, tau=0.2))]
    return out


@variant("envs")
def _():
    torch.set_default_dtype(torch.float32)   # the env's specs are float32
    try:
        return envs()
    finally:
        torch.set_default_dtype(torch.float64)


def envs():
    from torchrl.envs import (
        Compose,
        DoubleToFloat,
        ObservationNorm,
        RewardScaling,
        StepCounter,
        TransformedEnv,
    )
    from torchrl.envs.custom.pendulum import PendulumEnv
    from torchrl.envs.utils import check_env_specs
    base = PendulumEnv()
    base.set_seed(1)
    env = TransformedEnv(base, Compose(
        StepCounter(max_steps=4),
        RewardScaling(loc=0.5, scale=2.0),
        ObservationNorm(loc=0.1, scale=1.5, in_keys=["th"], out_keys=["th_norm"])))
    check_env_specs(env)
    net = TensorDictModule(nn.Sequential(nn.Linear(2, 2), NormalParamExtractor()),
                           in_keys=["th_in"], out_keys=["loc", "scale"])
    pre = TensorDictModule(lambda a, b: torch.stack([a, b], -1), in_keys=["th_norm", "thdot"],
                           out_keys=["th_in"])
    actor = ProbabilisticActor(TensorDictSequential(pre, net), in_keys=["loc", "scale"],
                               distribution_class=TanhNormal,
                               distribution_kwargs={"low": -2.0, "high": 2.0},
                               spec=env.action_spec, return_log_prob=True)
    roll = env.rollout(6, actor, break_when_any_done=False)
    out = td_lines(roll.exclude("params", ("next", "params")), "rollout ")
    spec = env.full_observation_spec
    out.append(("obs spec keys", sorted(str(k) for k in spec.keys(True, True))))
    out.append(("action spec", str(env.action_spec.space.low) + " " +
                str(env.action_spec.space.high)))
    out.append(("spec rand", env.action_spec.rand((3,))))
    out.append(("spec project", env.action_spec.project(torch.tensor([[-5.0], [0.3]]))))
    out.append(("spec is_in", str(env.action_spec.is_in(torch.tensor([0.5])))))
    double = TransformedEnv(PendulumEnv(), DoubleToFloat())
    double.set_seed(2)
    r = double.rollout(3)
    out.append(("double2float th", str(r["th"].dtype)))
    return out


@variant("tdops")
def _():
    from tensordict import pad, pad_sequence
    td = TensorDict({"a": torch.randn(3, 4), "b": {"c": torch.randn(3, 4, 2)}}, [3, 4])
    mask = td["a"] > 0
    out = td_lines(torch.where(mask, td, td.apply(torch.neg)), "where ")
    out += td_lines(td.masked_fill(~mask, 0.5), "masked_fill ")
    out += td_lines(td.permute(1, 0).unsqueeze(0).squeeze(0), "permute ")
    out += td_lines(td.transpose(0, 1)[1:3], "transpose ")
    out += td_lines(td.gather(1, torch.tensor([[0, 2]] * 3)), "gather ")
    out += td_lines(pad(td, [0, 0, 1, 2], value=-1.0), "pad ")
    out += td_lines(pad_sequence([td[0, :2], td[1, :4]], return_mask=True), "pad_sequence ")
    out += td_lines(td.named_apply(lambda k, v: v * (2 if k == "a" else 3), nested_keys=True),
                    "named_apply ")
    out += td_lines(td.flatten(0, 1).unflatten(0, (3, 4)), "unflatten ")
    out += td_lines(td.float().double(), "casts ")
    out.append(("norm", torch.stack(list(td.norm().values(True, True)))))
    auto = TensorDict({"x": torch.ones(2, 5, 3), "y": torch.zeros(2, 5)})
    auto.auto_batch_size_()
    out.append(("auto batch", list(auto.batch_size)))
    cons = td.consolidate()
    out += td_lines(cons, "consolidated ")
    g = td.clone().requires_grad_()
    loss = (g["a"].exp().sum() + g["b", "c"].pow(2).sum())
    loss.backward()
    out += [("grad a", g["a"].grad), ("grad c", g["b", "c"].grad)]
    out.append(("softmax", td.apply(lambda v: v.softmax(-1))["a"]))
    return out


@variant("offline")
def _():
    from torchrl.modules import LSTMModule
    from torchrl.objectives import CQLLoss, IQLLoss
    actor, critic = ppo_modules()
    out = []
    iql = IQLLoss(actor, qvalue(), critic, num_qvalue_nets=2, temperature=3.0, expectile=0.7)
    iql.make_value_estimator(gamma=0.9)
    out += [(f"iql {lab}", v) for lab, v in
            train(iql, batch, updater=SoftUpdate(iql, tau=0.1), steps=2, lr=3e-3)]
    actor2, _ = ppo_modules()
    cql = CQLLoss(actor2, qvalue(), num_random=3, with_lagrange=False,
                  target_entropy=-float(ACT))
    cql.make_value_estimator(gamma=0.9)
    out += [(f"cql {lab}", v) for lab, v in
            train(cql, batch, updater=SoftUpdate(cql, tau=0.1), steps=2, lr=3e-3)]
    lstm = LSTMModule(input_size=OBS, hidden_size=5, in_key="observation", out_key="features")
    seq = trajectory(2, 4)
    seq["is_init"] = torch.zeros(2, 4, 1, dtype=torch.bool)
    seq["is_init"][:, 0] = True
    from torchrl.modules import set_recurrent_mode
    with set_recurrent_mode(True):
        res = lstm(seq.clone())
    out += td_lines(res.select("features", ("next", "recurrent_state_h")), "lstm seq ")
    step = seq[:, 0].clone()
    step = lstm(step)
    out += td_lines(step.select("features", ("next", "recurrent_state_c")), "lstm step ")
    return out


def show(name, label, value):
    if isinstance(value, torch.Tensor):
        print(f"{name} {label} {list(value.shape)} {value.dtype} {checksum(value)}")
    else:
        print(f"{name} {label} {value}")


def run(name):
    torch.manual_seed(0)
    print(f"== {name}")
    for label, value in VARIANTS[name]():
        show(name, label, value)


def main(argv):
    torch.set_default_dtype(torch.float64)
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
