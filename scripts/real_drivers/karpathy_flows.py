"""karpathy/pytorch-normalizing-flows, its notebook nflib1.ipynb as a script: every flow the
notebook's model cell offers (RealNVP, NICE, SlowMAF, MAF, IAF, ActNorm + MAF, Glow, neural
spline coupling and autoregressive flows), each built as that cell builds it with the
repository's ``nflib`` unchanged, trained on the two-moons data by the notebook's loop (fewer
steps), then run forward on a held-out sample, backward over the notebook's grid (its
visualisation cell) and sampled from. Run it from the repository root (``nflib`` importable),
under real PyTorch or ``python -m jtorch``, through scripts/shared_rng_run.py so that both draw
the same numbers.

    python scripts/shared_rng_run.py drive_flows.py [STEPS]
"""

import itertools
import sys

import numpy as np
import torch
import torch.optim as optim
from nflib.flows import (
    IAF,
    MAF,
    ActNorm,
    AffineConstantFlow,
    AffineHalfFlow,
    Invertible1x1Conv,
    NormalizingFlowModel,
    SlowMAF,
)
from nflib.spline_flows import NSF_AR, NSF_CL
from sklearn import datasets
from torch.distributions import SigmoidTransform, TransformedDistribution, Uniform


class DatasetMoons:
    """The notebook's: two half-moons (sklearn, drawing from NumPy's global stream)."""

    def sample(self, n):
        moons = datasets.make_moons(n_samples=n, noise=0.05)[0].astype(np.float32)
        return torch.from_numpy(moons)


def realnvp():
    return [AffineHalfFlow(dim=2, parity=i % 2) for i in range(9)]


def nice():
    return [AffineHalfFlow(dim=2, parity=i % 2, scale=False) for i in range(4)] + \
        [AffineConstantFlow(dim=2, shift=False)]


def slow_maf():
    return [SlowMAF(dim=2, parity=i % 2) for i in range(4)]


def maf():
    return [MAF(dim=2, parity=i % 2) for i in range(4)]


def iaf():
    return [IAF(dim=2, parity=i % 2) for i in range(3)]


def actnorm_maf():
    flows = maf()
    norms = [ActNorm(dim=2) for _ in flows]
    return list(itertools.chain(*zip(norms, flows)))


def glow():
    flows = [Invertible1x1Conv(dim=2) for i in range(3)]
    norms = [ActNorm(dim=2) for _ in flows]
    couplings = [AffineHalfFlow(dim=2, parity=i % 2, nh=32) for i in range(len(flows))]
    return list(itertools.chain(*zip(norms, flows, couplings)))


def neural_splines(nfs_flow):
    flows = [nfs_flow(dim=2, K=8, B=3, hidden_dim=16) for _ in range(3)]
    convs = [Invertible1x1Conv(dim=2) for _ in flows]
    norms = [ActNorm(dim=2) for _ in flows]
    return list(itertools.chain(*zip(norms, convs, flows)))


MODELS = {"realnvp": realnvp, "nice": nice, "slow_maf": slow_maf, "maf": maf, "iaf": iaf,
          "actnorm_maf": actnorm_maf, "glow": glow,
          "nsf_cl": lambda: neural_splines(NSF_CL), "nsf_ar": lambda: neural_splines(NSF_AR)}


def show(label, t):
    a = np.asarray(t.detach().numpy(), np.float64)
    print(f"  {label} {list(a.shape)} sum {a.sum()!r} abssum {np.abs(a).sum()!r}")


def run(name, steps):
    print(name)
    np.random.seed(0)
    torch.manual_seed(0)
    d = DatasetMoons()
    prior = TransformedDistribution(Uniform(torch.zeros(2), torch.ones(2)),
                                    SigmoidTransform().inv)   # logistic, as the notebook's
    model = NormalizingFlowModel(prior, MODELS[name]())
    optimizer = optim.Adam(model.parameters(), lr=1e-4, weight_decay=1e-5)
    print("  number of params: ", sum(p.numel() for p in model.parameters()))
    model.train()
    for k in range(steps):
        x = d.sample(128)
        zs, prior_logprob, log_det = model(x)
        logprob = prior_logprob + log_det
        loss = -torch.sum(logprob)  # NLL
        model.zero_grad()
        loss.backward()
        optimizer.step()
        if k % 25 == 0:
            print("  step", k, "loss", loss.item())
    model.eval()
    x = d.sample(128)
    zs, prior_logprob, log_det = model(x)
    show("z", zs[-1])
    show("prior_logprob", prior_logprob)
    show("log_det", log_det)
    ng = 20   # the notebook's grid
    xx, yy = np.linspace(-3, 3, ng), np.linspace(-3, 3, ng)
    xy = torch.from_numpy(np.stack(np.meshgrid(xx, yy), axis=-1).reshape(ng * ng, 2)
                          .astype(np.float32))
    zs, log_det = model.backward(xy)
    show("grid back", zs[-1])
    show("grid log_det", log_det)
    show("prior sample", model.prior.sample([128, 2]).squeeze())
    show("model sample", model.sample(64)[-1])
    for i, p in enumerate(model.parameters()):
        if i < 4:
            show(f"param{i}", p)


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    for name in MODELS:
        try:
            run(name, steps)
        except Exception as e:  # noqa: BLE001 - report and go on to the next flow
            print(f"  {name} FAILED {type(e).__name__}: {e}")


if __name__ == "__main__":
    main()
