"""Driver of Tianshou 0.5.1 (docs/real-programs.md): the installed package, unchanged, run on
tiny settings (hidden layers ``[16]`` or ``[16, 16]``, a few hundred environment steps) on
gymnasium's CartPole-v1 and Pendulum-v1. Each policy variant (DQN, C51, QR-DQN, Rainbow, IQN,
REINFORCE, A2C, PPO, NPG, TRPO, DDPG, TD3, SAC, discrete SAC, REDQ) collects with a
``Collector`` over a ``DummyVectorEnv`` into a ``VectorReplayBuffer`` (or a prioritized one)
and learns, through a trainer (``OffpolicyTrainer``/``OnpolicyTrainer``, the
``offpolicy_trainer``/``onpolicy_trainer`` functions) or through ``policy.update`` by hand;
then it prints the losses, the trainer's step, episode and reward counts, checksums of every
parameter, the policy's output on fixed observations, and the same after a ``state_dict``
round trip (``torch.save``/``torch.load`` into a fresh policy). A ``data`` variant prints
``Batch`` operations, the replay buffers' sampling and ``compute_episodic_return``/
``compute_nstep_return``.

    python scripts/shared_rng_run.py drive_tianshou.py [VARIANT ... | all]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_tianshou.py [VARIANT ... | all]   # jtorch

Without arguments it runs every variant but ``dqn_epsilon`` (DQN with an epsilon-greedy
schedule, which writes into a ``Tensor.numpy()`` array: read-only in jtorch). Each variant
reseeds ``torch.manual_seed`` (which the wrapper turns into a reseed of the shared NumPy stream:
weight initialisation and the sampled actions of ``torch.distributions``, Rainbow's noisy
layers, IQN's quantile fractions), ``np.random.seed`` (epsilon-greedy exploration, Gaussian
exploration noise, buffer sampling) and the environments (``venv.seed``). There is no float64
mode: Tianshou's ``Net`` casts observations to float32.
"""

import io
import os
import sys
import time

import numpy as np
import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import gymnasium as gym  # noqa: E402
import tianshou as ts  # noqa: E402
from tianshou.data import (  # noqa: E402
    Batch,
    Collector,
    PrioritizedReplayBuffer,
    PrioritizedVectorReplayBuffer,
    ReplayBuffer,
    VectorReplayBuffer,
)
from tianshou.env import DummyVectorEnv  # noqa: E402
from tianshou.exploration import GaussianNoise, OUNoise  # noqa: E402
from tianshou.policy import BasePolicy  # noqa: E402
from tianshou.trainer import (  # noqa: E402
    OffpolicyTrainer,
    OnpolicyTrainer,
    offpolicy_trainer,
    onpolicy_trainer,
)
from tianshou.utils import BaseLogger  # noqa: E402
from tianshou.utils.net import continuous, discrete  # noqa: E402
from tianshou.utils.net.common import ActorCritic, EnsembleLinear, Net  # noqa: E402

VARIANTS = {}
DEFAULT = []  # the variants run without arguments
HIDDEN = [16]


def variant(name, default=True):
    def register(build):
        VARIANTS[name] = build
        if default:
            DEFAULT.append(name)
        return build
    return register


def checksum(t):
    """The sum of the magnitudes, a weighted sum (weights 1 to 2 in a period of 7 elements) and
    the largest magnitude, in float64."""
    a = np.asarray(t.detach().cpu().numpy() if isinstance(t, torch.Tensor) else t,
                   dtype=np.float64).ravel()
    if a.size == 0:
        return "empty"
    w = 1.0 + (np.arange(a.size) % 7) / 6
    return (f"abssum {float(np.abs(a).sum())!r} wsum {float((a * w).sum())!r} "
            f"absmax {float(np.abs(a).max())!r}")


def cartpole_obs():
    rng = np.random.default_rng(1)
    return (rng.standard_normal((5, 4)) * np.array([1.0, 1.0, 0.1, 1.0])).astype(np.float32)


def pendulum_obs():
    rng = np.random.default_rng(2)
    theta = rng.uniform(-np.pi, np.pi, 5)
    return np.stack([np.cos(theta), np.sin(theta), rng.uniform(-8, 8, 5)], 1).astype(np.float32)


def envs(name, n=1, seed=0):
    venv = DummyVectorEnv([lambda: gym.make(name) for _ in range(n)])
    venv.seed(seed)
    return venv


class Recorder(BaseLogger):
    """A logger that keeps what the trainer logs (losses every ``update_interval`` gradient
    steps, the test rewards) for printing."""

    def __init__(self, update_interval=1):
        super().__init__(train_interval=1, test_interval=1, update_interval=update_interval)
        self.rows = []

    def write(self, step_type, step, data):
        for k, v in sorted(data.items()):
            self.rows.append((f"log {step_type}={step} {k}", np.asarray(v)))

    def save_data(self, epoch, env_step, gradient_step, save_checkpoint_fn=None):
        pass

    def restore_data(self):
        return 0, 0, 0


def trainer_info(info, logger):
    keys = ["train_step", "train_episode", "test_step", "test_episode", "best_reward"]
    out = [(k, np.asarray(info[k])) for k in keys if k in info]
    return out + logger.rows


def parameters(policy):
    return [(f"param {k}", v) for k, v in sorted(policy.state_dict().items())]


def probe(policy, obs):
    """The policy's output on ``obs`` in eval mode: actions, and its logits (Q-values, atoms,
    quantiles, or the distribution's parameters)."""
    policy.eval()
    with torch.no_grad():
        result = policy(Batch(obs=obs, info={}))
    out = [("act", result.act)]
    logits = result.get("logits")
    if isinstance(logits, (tuple, list)):
        out += [(f"logits {i}", v) for i, v in enumerate(logits)]
    elif logits is not None:
        out.append(("logits", logits))
    policy.train()
    return out


def round_trip(policy, build, obs):
    """``torch.save(policy.state_dict())`` into memory, ``torch.load`` into a fresh policy, and
    the same probe."""
    buf = io.BytesIO()
    torch.save(policy.state_dict(), buf)
    buf.seek(0)
    fresh = build()
    fresh.load_state_dict(torch.load(buf))
    before, after = policy.state_dict(), fresh.state_dict()
    same = sorted(before) == sorted(after) and all(torch.equal(before[k], after[k])
                                                   for k in before)
    out = [("reloaded parameters equal", str(same))]
    return out + [(f"reloaded {k}", v) for k, v in probe(fresh, obs)]


def summary(policy, build, obs):
    return parameters(policy) + probe(policy, obs) + round_trip(policy, build, obs)


def by_hand(policy, name, n_envs, collect, updates, batch_size, buffer=None, **collect_kwargs):
    """Collect ``collect`` steps, then ``updates`` rounds of ``policy.update`` (each after a
    further collection of ``batch_size`` steps), printing each round's losses."""
    venv = envs(name, n_envs)
    buffer = buffer or VectorReplayBuffer(1000, n_envs)
    collector = Collector(policy, venv, buffer, exploration_noise=True)
    result = collector.collect(n_step=collect, **collect_kwargs)
    out = [("collect n/st", str(result["n/st"])), ("collect n/ep", str(result["n/ep"])),
           ("collect rews", result["rews"])]
    for i in range(updates):
        collector.collect(n_step=n_envs * 4)
        losses = policy.update(batch_size, collector.buffer)
        out += [(f"update {i} {k}", np.asarray(v)) for k, v in sorted(losses.items())]
    return out


# -- Q-learning --------------------------------------------------------------------------------


def dqn_policy(cls=ts.policy.DQNPolicy, atoms=1, **kwargs):
    net = Net(4, 2, hidden_sizes=HIDDEN, num_atoms=atoms, softmax=atoms > 1)
    optim = torch.optim.Adam(net.parameters(), lr=1e-3)
    return cls(net, optim, discount_factor=0.9, target_update_freq=20, **kwargs)


def off_train(policy, name, logger, n_envs=2, epochs=2, step_per_epoch=100, step_per_collect=10,
              batch_size=16, buffer=None, function=False, update_per_step=0.5, train_fn=None):
    train = Collector(policy, envs(name, n_envs), buffer or VectorReplayBuffer(1000, n_envs),
                      exploration_noise=True)
    test = Collector(policy, envs(name, 1, seed=100))
    train.collect(n_step=64, random=True)
    kwargs = {"max_epoch": epochs, "step_per_epoch": step_per_epoch,
              "step_per_collect": step_per_collect, "episode_per_test": 1,
              "batch_size": batch_size, "update_per_step": update_per_step,
              "train_fn": train_fn, "logger": logger, "verbose": False, "show_progress": False}
    if function:
        return offpolicy_trainer(policy, train, test, **kwargs)
    return OffpolicyTrainer(policy, train, test, **kwargs).run()


def set_eps(policy):
    def train_fn(epoch, env_step):
        policy.set_eps(max(0.05, 0.5 - env_step / 400))
    return train_fn


@variant("dqn")
def _():
    build = lambda: dqn_policy(estimation_step=3)  # noqa: E731
    policy = build()
    logger = Recorder(update_interval=10)
    info = off_train(policy, "CartPole-v1", logger)
    return trainer_info(info, logger) + summary(policy, build, cartpole_obs())


@variant("dqn_epsilon", default=False)
def _():
    """DQN with a decaying epsilon-greedy schedule: ``exploration_noise`` writes the random
    actions into ``to_numpy(q.max(dim=1)[1])``, which jtorch's read-only ``Tensor.numpy()``
    refuses (docs/differences.md); not run by default."""
    build = lambda: dqn_policy(estimation_step=3)  # noqa: E731
    policy = build()
    logger = Recorder(update_interval=10)
    info = off_train(policy, "CartPole-v1", logger, train_fn=set_eps(policy))
    return trainer_info(info, logger) + summary(policy, build, cartpole_obs())


@variant("dqn_prioritized")
def _():
    build = lambda: dqn_policy(is_double=False, clip_loss_grad=True)  # noqa: E731
    policy = build()
    buffer = PrioritizedVectorReplayBuffer(1000, 2, alpha=0.6, beta=0.4)
    out = by_hand(policy, "CartPole-v1", 2, 64, 6, 16, buffer=buffer)
    out.append(("buffer weights", buffer.weight[np.arange(len(buffer))]))
    return out + summary(policy, build, cartpole_obs())


@variant("c51")
def _():
    def build():
        return dqn_policy(ts.policy.C51Policy, atoms=11, num_atoms=11, v_min=-5.0, v_max=5.0)
    policy = build()
    logger = Recorder(update_interval=10)
    info = off_train(policy, "CartPole-v1", logger, epochs=1, function=True)
    return trainer_info(info, logger) + summary(policy, build, cartpole_obs())


@variant("qrdqn")
def _():
    def build():
        net = Net(4, 2 * 8, hidden_sizes=HIDDEN)  # actions x quantiles outputs
        optim = torch.optim.Adam(net.parameters(), lr=1e-3)
        return ts.policy.QRDQNPolicy(QuantileHead(net, 2, 8), optim, num_quantiles=8,
                                     discount_factor=0.9, target_update_freq=20)
    policy = build()
    return by_hand(policy, "CartPole-v1", 2, 64, 6, 16) + summary(policy, build, cartpole_obs())


class QuantileHead(torch.nn.Module):
    """Tianshou's QR-DQN example network: a ``Net`` whose output is reshaped to
    ``(batch, actions, quantiles)``."""

    def __init__(self, net, actions, quantiles):
        super().__init__()
        self.net, self.actions, self.quantiles = net, actions, quantiles

    def forward(self, obs, state=None, info=None):
        logits, state = self.net(obs, state)
        return logits.view(-1, self.actions, self.quantiles), state


@variant("rainbow")
def _():
    def noisy(x, y):
        return discrete.NoisyLinear(x, y, 0.1)

    def build():
        net = Net(4, 2, hidden_sizes=HIDDEN, num_atoms=11, softmax=True,
                  dueling_param=({"linear_layer": noisy}, {"linear_layer": noisy}))
        optim = torch.optim.Adam(net.parameters(), lr=1e-3)
        return ts.policy.RainbowPolicy(net, optim, discount_factor=0.9, num_atoms=11,
                                       v_min=-5.0, v_max=5.0, estimation_step=2,
                                       target_update_freq=20)
    policy = build()
    buffer = PrioritizedVectorReplayBuffer(1000, 2, alpha=0.5, beta=0.4)
    return (by_hand(policy, "CartPole-v1", 2, 64, 5, 16, buffer=buffer)
            + summary(policy, build, cartpole_obs()))


@variant("iqn")
def _():
    def build():
        feature = Net(4, hidden_sizes=HIDDEN)
        net = discrete.ImplicitQuantileNetwork(feature, 2, hidden_sizes=[16], num_cosines=8)
        optim = torch.optim.Adam(net.parameters(), lr=1e-3)
        return ts.policy.IQNPolicy(net, optim, discount_factor=0.9, sample_size=8,
                                   online_sample_size=8, target_sample_size=8,
                                   target_update_freq=20)
    policy = build()
    return by_hand(policy, "CartPole-v1", 2, 64, 5, 16) + summary(policy, build, cartpole_obs())


# -- on-policy ---------------------------------------------------------------------------------


def categorical(probs):
    return torch.distributions.Categorical(probs=probs)


def gaussian(*logits):
    return torch.distributions.Independent(torch.distributions.Normal(*logits), 1)


def discrete_ac():
    net = Net(4, hidden_sizes=HIDDEN)
    actor = discrete.Actor(net, 2)
    critic = discrete.Critic(Net(4, hidden_sizes=HIDDEN))
    return actor, critic


def continuous_ac():
    actor = continuous.ActorProb(Net(3, hidden_sizes=HIDDEN), 1, max_action=2.0, unbounded=True)
    critic = continuous.Critic(Net(3, hidden_sizes=HIDDEN))
    torch.nn.init.constant_(actor.sigma_param, -0.5)
    return actor, critic


def on_train(policy, name, logger, n_envs=2, epochs=2, step_per_epoch=128, repeat=2,
             batch_size=32, step_per_collect=64, function=False):
    train = Collector(policy, envs(name, n_envs), VectorReplayBuffer(256, n_envs))
    test = Collector(policy, envs(name, 1, seed=100))
    kwargs = {"max_epoch": epochs, "step_per_epoch": step_per_epoch,
              "repeat_per_collect": repeat, "episode_per_test": 1, "batch_size": batch_size,
              "step_per_collect": step_per_collect, "logger": logger, "verbose": False,
              "show_progress": False}
    if function:
        return onpolicy_trainer(policy, train, test, **kwargs)
    return OnpolicyTrainer(policy, train, test, **kwargs).run()


@variant("reinforce")
def _():
    def build():
        actor = discrete.Actor(Net(4, hidden_sizes=HIDDEN), 2)
        optim = torch.optim.Adam(actor.parameters(), lr=1e-2)
        return ts.policy.PGPolicy(actor, optim, categorical, discount_factor=0.95,
                                  reward_normalization=True, action_space=gym.spaces.Discrete(2))
    policy = build()
    logger = Recorder()
    info = on_train(policy, "CartPole-v1", logger, function=True)
    return trainer_info(info, logger) + summary(policy, build, cartpole_obs())


@variant("a2c")
def _():
    def build():
        actor, critic = discrete_ac()
        optim = torch.optim.RMSprop(ActorCritic(actor, critic).parameters(), lr=7e-3)
        return ts.policy.A2CPolicy(actor, critic, optim, categorical, discount_factor=0.95,
                                   max_grad_norm=0.5, gae_lambda=0.9, ent_coef=0.01,
                                   action_space=gym.spaces.Discrete(2))
    policy = build()
    logger = Recorder()
    info = on_train(policy, "CartPole-v1", logger, repeat=1)
    return trainer_info(info, logger) + summary(policy, build, cartpole_obs())


@variant("ppo")
def _():
    def build():
        actor, critic = discrete_ac()
        optim = torch.optim.Adam(ActorCritic(actor, critic).parameters(), lr=1e-3)
        return ts.policy.PPOPolicy(actor, critic, optim, categorical, discount_factor=0.95,
                                   max_grad_norm=0.5, eps_clip=0.2, value_clip=True,
                                   dual_clip=3.0, gae_lambda=0.9, recompute_advantage=True,
                                   action_space=gym.spaces.Discrete(2))
    policy = build()
    logger = Recorder()
    info = on_train(policy, "CartPole-v1", logger)
    return trainer_info(info, logger) + summary(policy, build, cartpole_obs())


@variant("ppo_pendulum")
def _():
    def build():
        actor, critic = continuous_ac()
        optim = torch.optim.Adam(ActorCritic(actor, critic).parameters(), lr=1e-3)
        return ts.policy.PPOPolicy(actor, critic, optim, gaussian, discount_factor=0.95,
                                   reward_normalization=True, action_scaling=True,
                                   action_bound_method="tanh", max_grad_norm=0.5,
                                   action_space=gym.spaces.Box(-2.0, 2.0, (1,)))
    policy = build()
    logger = Recorder()
    info = on_train(policy, "Pendulum-v1", logger, epochs=1)
    return trainer_info(info, logger) + summary(policy, build, pendulum_obs())


def natural_gradient(cls, **kwargs):
    def build():
        actor, critic = continuous_ac()
        optim = torch.optim.Adam(critic.parameters(), lr=1e-3)
        return cls(actor, critic, optim, gaussian, discount_factor=0.95, optim_critic_iters=2,
                   action_space=gym.spaces.Box(-2.0, 2.0, (1,)), **kwargs)
    policy = build()
    logger = Recorder()
    info = on_train(policy, "Pendulum-v1", logger, epochs=1, repeat=1, batch_size=64)
    return trainer_info(info, logger) + summary(policy, build, pendulum_obs())


@variant("npg")
def _():
    return natural_gradient(ts.policy.NPGPolicy, actor_step_size=0.1)


@variant("trpo")
def _():
    return natural_gradient(ts.policy.TRPOPolicy, max_kl=0.01, backtrack_coeff=0.8,
                            max_backtracks=5)


# -- actor-critic, off-policy -----------------------------------------------------------------


def q_critic(obs=3, act=1):
    net = Net(obs, act, hidden_sizes=HIDDEN, concat=True)
    critic = continuous.Critic(net)
    return critic, torch.optim.Adam(critic.parameters(), lr=1e-3)


def pendulum_off(build, by_hand_updates=None):
    policy = build()
    if by_hand_updates:
        out = by_hand(policy, "Pendulum-v1", 1, 64, by_hand_updates, 16)
    else:
        logger = Recorder(update_interval=10)
        info = off_train(policy, "Pendulum-v1", logger, n_envs=1, epochs=1, step_per_epoch=120,
                         step_per_collect=4, update_per_step=0.5)
        out = trainer_info(info, logger)
    return out + summary(policy, build, pendulum_obs())


@variant("ddpg")
def _():
    def build():
        actor = continuous.Actor(Net(3, hidden_sizes=HIDDEN), 1, max_action=2.0)
        critic, critic_optim = q_critic()
        return ts.policy.DDPGPolicy(actor, torch.optim.Adam(actor.parameters(), lr=1e-3),
                                    critic, critic_optim, tau=0.01, gamma=0.95,
                                    exploration_noise=GaussianNoise(sigma=0.1), estimation_step=2,
                                    action_space=gym.spaces.Box(-2.0, 2.0, (1,)))
    return pendulum_off(build)


@variant("td3")
def _():
    def build():
        actor = continuous.Actor(Net(3, hidden_sizes=HIDDEN), 1, max_action=2.0)
        c1, o1 = q_critic()
        c2, o2 = q_critic()
        return ts.policy.TD3Policy(actor, torch.optim.Adam(actor.parameters(), lr=1e-3),
                                   c1, o1, c2, o2, tau=0.01, gamma=0.95,
                                   exploration_noise=OUNoise(sigma=0.2), policy_noise=0.2,
                                   update_actor_freq=2, noise_clip=0.5,
                                   action_space=gym.spaces.Box(-2.0, 2.0, (1,)))
    return pendulum_off(build, by_hand_updates=6)


@variant("sac")
def _():
    def build():
        actor = continuous.ActorProb(Net(3, hidden_sizes=HIDDEN), 1, max_action=2.0,
                                     unbounded=True, conditioned_sigma=True)
        c1, o1 = q_critic()
        c2, o2 = q_critic()
        log_alpha = torch.zeros(1, requires_grad=True)
        alpha = (-1.0, log_alpha, torch.optim.Adam([log_alpha], lr=3e-3))
        return ts.policy.SACPolicy(actor, torch.optim.Adam(actor.parameters(), lr=1e-3),
                                   c1, o1, c2, o2, tau=0.01, gamma=0.95, alpha=alpha,
                                   deterministic_eval=True,
                                   action_space=gym.spaces.Box(-2.0, 2.0, (1,)))
    return pendulum_off(build)


@variant("redq")
def _():
    def build():
        actor = continuous.ActorProb(Net(3, hidden_sizes=HIDDEN), 1, max_action=2.0,
                                     unbounded=True, conditioned_sigma=True)

        def linear(x, y):
            return EnsembleLinear(4, x, y)

        net = Net(3, 1, hidden_sizes=HIDDEN, concat=True, linear_layer=linear)
        critics = continuous.Critic(net, linear_layer=linear, flatten_input=False)
        return ts.policy.REDQPolicy(actor, torch.optim.Adam(actor.parameters(), lr=1e-3),
                                    critics, torch.optim.Adam(critics.parameters(), lr=1e-3),
                                    ensemble_size=4, subset_size=2, tau=0.01, gamma=0.95,
                                    alpha=0.2, actor_delay=2,
                                    action_space=gym.spaces.Box(-2.0, 2.0, (1,)))
    return pendulum_off(build, by_hand_updates=6)


@variant("discrete_sac")
def _():
    def build():
        actor = discrete.Actor(Net(4, hidden_sizes=HIDDEN), 2, softmax_output=False)
        c1 = discrete.Critic(Net(4, hidden_sizes=HIDDEN), last_size=2)
        c2 = discrete.Critic(Net(4, hidden_sizes=HIDDEN), last_size=2)
        log_alpha = torch.zeros(1, requires_grad=True)
        alpha = (-0.3, log_alpha, torch.optim.Adam([log_alpha], lr=3e-3))
        return ts.policy.DiscreteSACPolicy(
            actor, torch.optim.Adam(actor.parameters(), lr=1e-3),
            c1, torch.optim.Adam(c1.parameters(), lr=1e-3),
            c2, torch.optim.Adam(c2.parameters(), lr=1e-3), tau=0.01, gamma=0.95, alpha=alpha)
    policy = build()
    out = by_hand(policy, "CartPole-v1", 2, 64, 6, 16)
    return out + summary(policy, build, cartpole_obs())


# -- data --------------------------------------------------------------------------------------


@variant("data")
def _():
    np.random.seed(0)
    rng = np.random.default_rng(3)
    out = []
    b = Batch(obs=rng.standard_normal((4, 3)).astype(np.float32),
              act=np.array([0, 1, 1, 0]), info={"x": rng.standard_normal(4)},
              nested=Batch(t=torch.arange(8.0).view(4, 2)))
    c = Batch.cat([b, b[1:3]])
    s = Batch.stack([b[0], b[2]])
    out += [("cat obs", c.obs), ("cat nested", c.nested.t), ("stack obs", s.obs),
            ("len cat", str(len(c))), ("shape stack", str(list(s.shape)))]
    t = Batch(b, copy=True)
    t.to_torch(dtype=torch.float32)
    out += [("to_torch types", f"{type(t.obs).__name__} {t.obs.dtype} {t.act.dtype}"),
            ("to_torch info", t.info.x)]
    t.to_numpy()
    out.append(("to_numpy type", f"{type(t.nested.t).__name__} {t.nested.t.dtype}"))
    out += [(f"split {i}", x.obs) for i, x in enumerate(b.split(3, shuffle=False))]
    # buffers
    buf = ReplayBuffer(8)
    for i in range(11):
        buf.add(Batch(obs=np.full(2, i, np.float32), act=i % 2, rew=float(i) / 3,
                      terminated=i % 4 == 3, truncated=False, obs_next=np.full(2, i + 1.0),
                      info={}))
    batch, idx = buf.sample(5)
    out += [("replay len", str(len(buf))), ("replay idx", idx), ("replay obs", batch.obs),
            ("replay prev", buf.prev(np.arange(8))), ("replay next", buf.next(np.arange(8)))]
    vbuf = VectorReplayBuffer(12, 3)
    for i in range(5):
        vbuf.add(Batch(obs=rng.standard_normal((3, 2)), act=np.array([0, 1, 0]),
                       rew=rng.standard_normal(3), terminated=np.array([i == 2, False, i == 4]),
                       truncated=np.array([False, i == 3, False]),
                       obs_next=rng.standard_normal((3, 2)), info=Batch()))
    batch, idx = vbuf.sample(6)
    out += [("vector idx", idx), ("vector rew", batch.rew),
            ("vector unfinished", vbuf.unfinished_index())]
    pbuf = PrioritizedReplayBuffer(8, alpha=0.6, beta=0.4)
    for i in range(8):
        pbuf.add(Batch(obs=np.array([i]), act=0, rew=1.0, terminated=False, truncated=False,
                       obs_next=np.array([i + 1]), info={}))
    pbuf.update_weight(np.array([1, 3, 5]), torch.tensor([2.0, -0.5, 4.0]))
    batch, idx = pbuf.sample(6)
    out += [("prio idx", idx), ("prio weight", batch.weight),
            ("prio get_weight", pbuf.get_weight(np.arange(8)))]
    # returns
    batch, idx = vbuf.sample(0)
    v = torch.as_tensor(rng.standard_normal(len(idx)), dtype=torch.float32)
    ret, adv = BasePolicy.compute_episodic_return(batch, vbuf, idx, v_s_=v, gamma=0.9,
                                                  gae_lambda=0.8)
    out += [("gae returns", ret), ("gae advantages", adv)]

    def target_q(buffer, indices):
        return torch.as_tensor(buffer.obs_next[indices], dtype=torch.float32)

    nb = BasePolicy.compute_nstep_return(batch, vbuf, idx, target_q, gamma=0.9, n_step=3)
    out.append(("nstep returns", nb.returns))
    return out


def show(name, label, value):
    if isinstance(value, str):
        print(f"{name} {label} {value}")
        return
    if isinstance(value, torch.Tensor):
        value = value.detach().cpu().numpy()
    value = np.asarray(value)
    if value.ndim == 0:
        print(f"{name} {label} {value.item()!r}")
    else:
        print(f"{name} {label} {list(value.shape)} {checksum(value)}")


def run(name):
    torch.manual_seed(0)
    np.random.seed(0)
    print(f"== {name}")
    for label, value in VARIANTS[name]():
        show(name, label, value)


def main(argv):
    names = DEFAULT if argv in ([], ["all"]) else argv
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"unknown variants {unknown}; known: {' '.join(VARIANTS)}")
    for name in names:
        start = time.time()
        run(name)
        print(f"[{name}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
