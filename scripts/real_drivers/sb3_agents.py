"""Driver of Stable-Baselines3 (docs/real-programs.md): the installed package, unchanged, run on
tiny settings (nets ``[16]``, a few hundred timesteps) on gymnasium's CartPole-v1 and
Pendulum-v1. Each algorithm variant (PPO, A2C, DQN, SAC, TD3, DDPG, PPO with gSDE, DQN with a
HER replay buffer on SB3's BitFlippingEnv) learns, then prints checksums of its parameters,
its deterministic actions on fixed observations, ``policy.evaluate_actions`` (values,
log-probabilities, entropies) or the Q-values, and the same after a ``model.save`` /
``<Algo>.load`` round trip through a temporary directory. Further variants print the action
distributions' ``log_prob``/``entropy`` (and sampled actions) on fixed tensors, the replay and
rollout buffers (returns, advantages, sampled minibatches) and ``VecNormalize``.

    python scripts/shared_rng_run.py drive_sb3.py [VARIANT ... | all]             # real PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_sb3.py [VARIANT ... | all]   # jtorch

Without arguments it runs every variant (``all`` too). Each variant reseeds
(``torch.manual_seed``) and every algorithm gets ``seed=0``: SB3 seeds Python's ``random``,
NumPy's global generator (epsilon-greedy exploration, action noise, buffer sampling), the
environments and their action spaces, and ``torch.manual_seed``, which the wrapper turns
into a reseed of the shared NumPy stream (weight initialisation, the policies' sampled
actions). There is no float64 mode: SB3 casts observations to float32 (``preprocess_obs``).
"""

import os
import sys
import tempfile
import time

import numpy as np
import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import gymnasium as gym  # noqa: E402
import stable_baselines3 as sb3  # noqa: E402
from stable_baselines3.common import distributions as D  # noqa: E402
from stable_baselines3.common.buffers import ReplayBuffer, RolloutBuffer  # noqa: E402
from stable_baselines3.common.env_util import make_vec_env  # noqa: E402
from stable_baselines3.common.envs import BitFlippingEnv  # noqa: E402
from stable_baselines3.common.noise import NormalActionNoise  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv, VecNormalize  # noqa: E402

VARIANTS = {}


def net():
    """The policies' keyword arguments, fresh for each model (SB3 adds its own to them)."""
    return {"net_arch": [16]}


def variant(name):
    def register(build):
        VARIANTS[name] = build
        return build
    return register


def checksum(t):
    """The sum of the magnitudes, a weighted sum (weights 1 to 2 in a period of 7 elements) and
    the largest magnitude, in float64."""
    t = torch.as_tensor(np.asarray(t.detach().cpu().numpy() if isinstance(t, torch.Tensor)
                                   else t, dtype=np.float64)).flatten()
    if t.numel() == 0:
        return "empty"
    w = 1.0 + (torch.arange(t.numel(), dtype=torch.float64) % 7) / 6
    return (f"abssum {t.abs().sum().item()!r} wsum {(t * w).sum().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def cartpole_obs():
    rng = np.random.default_rng(1)
    return (rng.standard_normal((5, 4)) * np.array([1.0, 1.0, 0.1, 1.0])).astype(np.float32)


def pendulum_obs():
    rng = np.random.default_rng(2)
    theta = rng.uniform(-np.pi, np.pi, 5)
    return np.stack([np.cos(theta), np.sin(theta), rng.uniform(-8, 8, 5)], 1).astype(np.float32)


def parameters(model):
    return [(f"param {k}", v) for k, v in sorted(model.policy.state_dict().items())]


def probe(model, obs):
    """Deterministic actions, and the policy's own evaluation of them on ``obs``."""
    policy = model.policy
    actions, _ = model.predict(obs, deterministic=True)
    out = [("predict", actions)]
    with torch.no_grad():
        o, _ = policy.obs_to_tensor(obs)
        if hasattr(policy, "evaluate_actions"):
            a = torch.as_tensor(actions)
            values, log_prob, entropy = policy.evaluate_actions(o, a)
            out += [("values", values), ("log_prob", log_prob)]
            if entropy is not None:
                out.append(("entropy", entropy))
            out.append(("predict_values", policy.predict_values(o)))
        elif hasattr(policy, "q_net"):
            out.append(("q_values", policy.q_net(o)))
        else:  # SAC/TD3/DDPG: the critic on the deterministic actions
            a = torch.as_tensor(policy.scale_action(actions))
            out += [(f"critic {i}", q) for i, q in enumerate(policy.critic(o, a))]
            if hasattr(policy.actor, "action_log_prob"):
                _, log_prob = policy.actor.action_log_prob(o)
                out.append(("actor log_prob shape", str(list(log_prob.shape))))
    return out


def round_trip(model, obs):
    """``model.save`` into a temporary directory, ``type(model).load``, and the same probe."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.zip")
        model.save(path)
        loaded = type(model).load(path, device="cpu")
    before = dict(model.policy.state_dict())
    after = loaded.policy.state_dict()
    same = sorted(before) == sorted(after) and all(torch.equal(before[k], after[k])
                                                   for k in before)
    out = [("reloaded parameters equal", str(same))]
    out += [(f"reloaded {k}", v) for k, v in probe(loaded, obs)]
    return out


def train_and_probe(model, steps, obs):
    model.learn(steps)
    out = [("num_timesteps", str(model.num_timesteps)), ("n_updates", str(model._n_updates))]
    out += parameters(model) + probe(model, obs) + round_trip(model, obs)
    return out


@variant("ppo_cartpole")
def _():
    model = sb3.PPO("MlpPolicy", "CartPole-v1", n_steps=64, batch_size=32, n_epochs=2,
                    policy_kwargs=net(), seed=0, device="cpu")
    return train_and_probe(model, 128, cartpole_obs())


@variant("ppo_pendulum")
def _():
    env = make_vec_env("Pendulum-v1", n_envs=2, seed=0)
    model = sb3.PPO("MlpPolicy", env, n_steps=32, batch_size=32, n_epochs=2, clip_range_vf=0.2,
                    target_kl=0.5, policy_kwargs=net(), seed=0, device="cpu")
    return train_and_probe(model, 128, pendulum_obs())


@variant("ppo_gsde")
def _():
    model = sb3.PPO("MlpPolicy", "Pendulum-v1", n_steps=64, batch_size=32, n_epochs=1,
                    use_sde=True, sde_sample_freq=8, policy_kwargs=net(), seed=0, device="cpu")
    return train_and_probe(model, 128, pendulum_obs())


@variant("a2c_cartpole")
def _():
    model = sb3.A2C("MlpPolicy", "CartPole-v1", n_steps=8, policy_kwargs=net(), seed=0,
                    device="cpu")
    return train_and_probe(model, 128, cartpole_obs())


@variant("a2c_pendulum")
def _():
    model = sb3.A2C("MlpPolicy", "Pendulum-v1", n_steps=8, normalize_advantage=True,
                    use_rms_prop=False, policy_kwargs=net(), seed=0, device="cpu")
    return train_and_probe(model, 128, pendulum_obs())


@variant("dqn_cartpole")
def _():
    model = sb3.DQN("MlpPolicy", "CartPole-v1", learning_starts=64, buffer_size=1000,
                    batch_size=16, train_freq=4, target_update_interval=50,
                    exploration_fraction=0.5, policy_kwargs=net(), seed=0, device="cpu")
    return train_and_probe(model, 256, cartpole_obs())


def continuous(cls, **kwargs):
    env = gym.make("Pendulum-v1")
    return cls("MlpPolicy", env, learning_starts=64, buffer_size=1000, batch_size=16,
               policy_kwargs=net(), seed=0, device="cpu", **kwargs)


@variant("sac_pendulum")
def _():
    model = continuous(sb3.SAC, train_freq=2, gradient_steps=1)
    out = train_and_probe(model, 160, pendulum_obs())
    return out + [("ent_coef", model.log_ent_coef.exp())]


@variant("sac_fixed_entropy")
def _():
    model = continuous(sb3.SAC, ent_coef=0.1, use_sde=True, train_freq=4)
    return train_and_probe(model, 128, pendulum_obs())


@variant("td3_pendulum")
def _():
    noise = NormalActionNoise(np.zeros(1), 0.1 * np.ones(1))
    model = continuous(sb3.TD3, action_noise=noise, policy_delay=2, train_freq=2)
    return train_and_probe(model, 160, pendulum_obs())


@variant("ddpg_pendulum")
def _():
    noise = NormalActionNoise(np.zeros(1), 0.1 * np.ones(1))
    model = continuous(sb3.DDPG, action_noise=noise, train_freq=2)
    return train_and_probe(model, 160, pendulum_obs())


@variant("her_dqn")
def _():
    env = BitFlippingEnv(n_bits=4, continuous=False, max_steps=4)
    model = sb3.DQN("MultiInputPolicy", env, learning_starts=32, buffer_size=1000,
                    batch_size=16, train_freq=4, target_update_interval=50,
                    replay_buffer_class=sb3.HerReplayBuffer,
                    replay_buffer_kwargs={"n_sampled_goal": 2,
                                          "goal_selection_strategy": "future"},
                    policy_kwargs=net(), seed=0, device="cpu")
    model.learn(128)
    rng = np.random.default_rng(4)
    obs = {k: rng.integers(0, 2, (4, 4)).astype(np.float32)
           for k in sorted(env.observation_space.spaces)}
    out = [("num_timesteps", str(model.num_timesteps)), ("n_updates", str(model._n_updates))]
    return out + parameters(model) + probe(model, obs)


@variant("distributions")
def _():
    mean = torch.randn(4, 3)
    log_std = torch.randn(3) * 0.5
    actions = torch.randn(4, 3) * 0.8
    out = []
    d = D.DiagGaussianDistribution(3).proba_distribution(mean, log_std)
    out += [("diag log_prob", d.log_prob(actions)), ("diag entropy", d.entropy()),
            ("diag mode", d.mode()), ("diag sample", d.sample())]
    s = D.SquashedDiagGaussianDistribution(3).proba_distribution(mean, log_std)
    squashed = torch.tanh(actions)
    out += [("squashed log_prob", s.log_prob(squashed)),
            ("squashed log_prob gaussian", s.log_prob(squashed, actions)),
            ("squashed mode", s.mode()), ("squashed sample", s.sample())]
    a, lp = s.log_prob_from_params(mean, log_std)
    out += [("squashed log_prob_from_params", a), ("squashed log_prob_from_params lp", lp)]
    logits = torch.randn(4, 5)
    c = D.CategoricalDistribution(5).proba_distribution(logits)
    idx = torch.tensor([0, 4, 2, 1])
    out += [("categorical log_prob", c.log_prob(idx)), ("categorical entropy", c.entropy()),
            ("categorical mode", c.mode()), ("categorical sample", c.sample())]
    m = D.MultiCategoricalDistribution([3, 2, 4]).proba_distribution(torch.randn(4, 9))
    midx = torch.tensor([[0, 1, 3], [2, 0, 0], [1, 1, 2], [0, 0, 1]])
    out += [("multicategorical log_prob", m.log_prob(midx)),
            ("multicategorical entropy", m.entropy()), ("multicategorical mode", m.mode()),
            ("multicategorical sample", m.sample())]
    b = D.BernoulliDistribution(3).proba_distribution(torch.randn(4, 3))
    bits = torch.tensor([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0], [1.0, 1.0, 1.0], [0.0, 0.0, 0.0]])
    out += [("bernoulli log_prob", b.log_prob(bits)), ("bernoulli entropy", b.entropy()),
            ("bernoulli mode", b.mode()), ("bernoulli sample", b.sample())]
    g = D.StateDependentNoiseDistribution(2, squash_output=True, learn_features=True)
    _, log_std_sde = g.proba_distribution_net(latent_dim=3, log_std_init=-0.5)
    g.sample_weights(log_std_sde, batch_size=1)
    latent = torch.randn(4, 3)
    g.proba_distribution(mean[:, :2], log_std_sde, latent)
    sde_actions = torch.tanh(torch.randn(4, 2) * 0.5)
    out += [("gsde log_prob", g.log_prob(sde_actions)), ("gsde entropy", str(g.entropy())),
            ("gsde mode", g.mode()), ("gsde noise", g.get_noise(latent))]
    # gradients of a loss through the log-probabilities
    mean_g = mean.clone().requires_grad_()
    std_g = log_std.clone().requires_grad_()
    loss = -(D.DiagGaussianDistribution(3).proba_distribution(mean_g, std_g).log_prob(actions)
             .mean() + D.SquashedDiagGaussianDistribution(3).proba_distribution(mean_g, std_g)
             .log_prob(squashed).mean())
    loss.backward()
    out += [("grad loss", loss), ("grad mean", mean_g.grad), ("grad log_std", std_g.grad)]
    return out


@variant("buffers")
def _():
    np.random.seed(0)
    obs_space = gym.spaces.Box(-1, 1, (3,), np.float32)
    act_space = gym.spaces.Box(-2, 2, (2,), np.float32)
    replay = ReplayBuffer(20, obs_space, act_space, device="cpu", n_envs=2,
                          optimize_memory_usage=False, handle_timeout_termination=True)
    rng = np.random.default_rng(3)
    for i in range(14):
        replay.add(rng.standard_normal((2, 3)).astype(np.float32),
                   rng.standard_normal((2, 3)).astype(np.float32),
                   rng.uniform(-2, 2, (2, 2)).astype(np.float32),
                   rng.standard_normal(2).astype(np.float32), np.array([i % 5 == 4, False]),
                   [{"TimeLimit.truncated": i % 10 == 9}, {}])
    sample = replay.sample(8)
    out = [("replay size", str(replay.size())),
           *[(f"replay {f}", getattr(sample, f)) for f in sample._fields]]
    rollout = RolloutBuffer(6, obs_space, act_space, device="cpu", gae_lambda=0.9, gamma=0.95,
                            n_envs=2)
    for i in range(6):
        rollout.add(rng.standard_normal((2, 3)).astype(np.float32),
                    rng.uniform(-2, 2, (2, 2)).astype(np.float32),
                    rng.standard_normal(2).astype(np.float32), np.array([i == 0, i == 3]),
                    torch.as_tensor(rng.standard_normal((2, 1)), dtype=torch.float32),
                    torch.as_tensor(rng.standard_normal(2), dtype=torch.float32))
    rollout.compute_returns_and_advantage(torch.tensor([[0.5], [-0.3]]), np.array([0, 1]))
    out += [("rollout returns", rollout.returns), ("rollout advantages", rollout.advantages)]
    for j, batch in enumerate(rollout.get(4)):
        out += [(f"rollout batch {j} {f}", getattr(batch, f)) for f in batch._fields]
    return out


@variant("vecnormalize")
def _():
    env = DummyVecEnv([lambda: gym.make("Pendulum-v1")] * 2)
    env.seed(0)
    env = VecNormalize(env, gamma=0.9, clip_obs=5.0)
    model = sb3.PPO("MlpPolicy", env, n_steps=32, batch_size=32, n_epochs=1, policy_kwargs=net(),
                    seed=0, device="cpu")
    model.learn(64)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "vecnormalize.pkl")
        env.save(path)
        reloaded = VecNormalize.load(path, DummyVecEnv([lambda: gym.make("Pendulum-v1")]))
    obs = pendulum_obs()
    return [("obs_rms mean", env.obs_rms.mean), ("obs_rms var", env.obs_rms.var),
            ("ret_rms var", env.ret_rms.var), ("normalized", env.normalize_obs(obs)),
            ("reloaded normalized", reloaded.normalize_obs(obs)),
            ("reward normalized", env.normalize_reward(np.array([-1.0, -5.0]))),
            *parameters(model)]


def show(name, label, value):
    if isinstance(value, str):
        print(f"{name} {label} {value}")
    else:
        shape = list(np.shape(value.detach().numpy() if isinstance(value, torch.Tensor)
                              else value))
        print(f"{name} {label} {shape} {checksum(value)}")


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
