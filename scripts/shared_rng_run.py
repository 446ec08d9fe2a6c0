"""Run a PyTorch program with every random draw taken from one NumPy generator, so that the
same program run under real PyTorch and under jtorch starts from the same weights and sees
the same batches, shuffles and dropout masks.

    python scripts/shared_rng_run.py train.py --lr 0.1             # real PyTorch
    python -m jtorch scripts/shared_rng_run.py train.py --lr 0.1   # jtorch

jtorch's random streams differ from PyTorch's (JAX keys, not Philox/MT19937), so a seeded
program would otherwise begin from different weights in the two. This wrapper replaces the
random entry points that programs and ``nn`` modules reach
(``Tensor.uniform_``/``normal_``/``bernoulli_``/``exponential_``, ``nn.init.trunc_normal_``,
``torch.rand``/``randn``/``randint``/``randperm``/``multinomial``/``bernoulli``/``normal``, the
noise of ``torch.distributions``' samplers, ``nn.Dropout*``,
``F.dropout``, the ``RandomSampler`` of shuffling DataLoaders (and ``SubsetRandomSampler``),
torchvision's ``FakeData`` and random transforms) by NumPy-backed versions, reseeded (with
Python's ``random``) by
``torch.manual_seed`` (``torch.rand``/``randn`` given a ``generator=`` draw from a NumPy stream
of that generator's seed instead), then runs the script unchanged (``runpy.run_path`` as
``__main__``). It is a comparison harness, not part of jtorch: ``torch`` is whichever
framework runs it.
"""

import math
import os
import random
import runpy
import sys
import weakref

import numpy as np
import torch
import torch.utils.data

# under ``python -m jtorch`` torch is jtorch (whose ``__name__`` is then "torch" too)
_JTORCH = torch is sys.modules.get("jtorch")
_RNG = [np.random.default_rng(0)]


def _rng():
    return _RNG[0]


_GENERATORS = weakref.WeakKeyDictionary()  # a torch.Generator -> (its seed, its NumPy stream)


def _generator_rng(generator):
    """The shared stream, or for an explicit ``generator`` a NumPy stream of its own, seeded by
    its seed: torchsde's BrownianInterval draws each node's noise from a fresh generator seeded
    by the node's entropy, and needs the same seed to give the same draws."""
    if generator is None:
        return _rng()
    seed = generator.initial_seed()
    stream = _GENERATORS.get(generator)
    if stream is None or stream[0] != seed:
        stream = _GENERATORS[generator] = (seed, np.random.default_rng(seed))
    return stream[1]


def _size(args, size=None):
    if size is not None:
        return tuple(size)
    if len(args) == 1 and isinstance(args[0], (tuple, list, torch.Size)):
        return tuple(args[0])
    return tuple(int(a) for a in args)


def _contiguous(array):
    """``array`` as a contiguous NumPy array of its own shape (np.ascontiguousarray makes a
    0-d draw, a 0-d tensor's, 1-d)."""
    return np.ascontiguousarray(array).reshape(np.shape(array))


def _as(array, dtype=None, device=None, requires_grad=False):
    t = torch.from_numpy(_contiguous(array))
    if dtype is not None:
        t = t.to(dtype)
    if device is not None:
        t = t.to(device)
    return t.requires_grad_(requires_grad) if requires_grad else t


def _fill(t, array):
    with torch.no_grad():
        t.copy_(torch.from_numpy(_contiguous(array)).to(t.dtype))
    return t


_manual_seed = torch.manual_seed


def manual_seed(seed):
    _RNG[0] = np.random.default_rng(int(seed))
    random.seed(int(seed))
    return _manual_seed(seed)


def uniform_(self, a=0.0, b=1.0, *, generator=None):
    return _fill(self, _rng().uniform(a, b, tuple(self.shape)))


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    return _fill(self, _rng().normal(mean, std, tuple(self.shape)))


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, pin_memory=False, requires_grad=False):
    """``torch.normal``: ``mean + std * z`` for standard normal draws ``z`` in the shape of the
    tensor arguments broadcast (or ``size`` for numbers), in their dtype (captum's NoiseTunnel
    and GradientShap draw their noise with it; PyTorch's ``Normal.sample`` too)."""
    tensors = [t for t in (mean, std) if isinstance(t, torch.Tensor)]
    if not tensors:
        return _as(_rng().normal(mean, std, _size((), size)), _floating(dtype), device,
                   requires_grad)
    shape = torch.broadcast_shapes(*(t.shape for t in tensors))
    like = tensors[0]
    z = _as(_rng().standard_normal(tuple(shape)), like.dtype, like.device)
    return z * std + mean


def exponential_(self, lambd=1.0, *, generator=None):
    return _fill(self, _rng().exponential(1.0 / lambd, tuple(self.shape)))


def bernoulli_(self, p=0.5, *, generator=None):
    prob = p.detach().double().cpu().numpy() if isinstance(p, torch.Tensor) else p
    return _fill(self, _rng().random(tuple(self.shape)) < prob)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """PyTorch 2.13's algorithm (rejection sampling: ``normal_`` draws, or ``uniform_`` ones for
    a window holding less than 30% of the mass), so that jtorch's ``nn.init.trunc_normal_``, a
    JAX kernel of its own, draws what PyTorch's draws from the shared generator."""
    def cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    with torch.no_grad():
        if cdf((b - mean) / std) - cdf((a - mean) / std) > 0.3:
            low, high = (tensor.new_tensor(v).item() for v in (a, b))
            result = tensor.normal_(mean, std)
            while True:
                reject = (result < low) | (result > high)
                if not reject.any():
                    return tensor.copy_(result)
                result = torch.where(reject, torch.empty_like(result).normal_(mean, std), result)
        log_peak = -0.5 * ((max(a, min(mean, b)) - mean) / std) ** 2

        def log_pdf(x):
            return x.sub(mean).div(std).pow(2).mul(-0.5).sub(log_peak)

        result = tensor.uniform_(a, b).clone()
        pending = torch.empty_like(tensor).uniform_().log().gt(log_pdf(result))
        while pending.any():
            candidates = torch.empty_like(tensor).uniform_(a, b)
            result = torch.where(pending, candidates, result)
            accept = torch.empty_like(tensor).uniform_().log().gt(log_pdf(candidates))
            pending = torch.where(pending, accept, pending)
        return tensor.copy_(result)


def bernoulli(input, p=None, *, generator=None, out=None):
    """``torch.bernoulli``: 0/1 draws of probabilities ``input`` (or of one ``p``) in its shape
    and dtype (torch.distributions' Bernoulli samples with it; kornia's augmentations draw
    whether each image is transformed from one)."""
    prob = input.detach().double().cpu().numpy() if p is None else p
    draws = _as(_rng().random(tuple(input.shape)) < prob, input.dtype, input.device)
    return draws if out is None else out.copy_(draws)


def _floating(dtype):
    return torch.get_default_dtype() if dtype is None else dtype


def rand(*args, size=None, generator=None, dtype=None, device=None, requires_grad=False,
         **_):
    # size= as a keyword too (POT's torch backend calls torch.randn(size=..., generator=...))
    return _as(_generator_rng(generator).random(_size(args, size)), _floating(dtype), device,
               requires_grad)


def randn(*args, size=None, generator=None, dtype=None, device=None, requires_grad=False,
          **_):
    return _as(_generator_rng(generator).standard_normal(_size(args, size)), _floating(dtype),
               device, requires_grad)


def rand_like(input, dtype=None, device=None, **_):
    return _as(_rng().random(tuple(input.shape)), dtype or input.dtype, device or input.device)


def randn_like(input, dtype=None, device=None, **_):
    return _as(_rng().standard_normal(tuple(input.shape)), dtype or input.dtype,
               device or input.device)


def randint(*args, size=None, generator=None, dtype=None, device=None, low=None, high=None,
            **_):
    if size is None:
        *bounds, size = args
    else:
        bounds = list(args) + [b for b in (low, high) if b is not None]  # nflows: keywords
    low, high = (0, bounds[0]) if len(bounds) == 1 else bounds
    return _as(_rng().integers(int(low), int(high), tuple(size)), dtype or torch.int64, device)


def randperm(n, *, generator=None, dtype=None, device=None, **_):
    return _as(_rng().permutation(int(n)), dtype or torch.int64, device)


def multinomial(input, num_samples, replacement=False, *, generator=None, **_):
    probs = input.detach().double().cpu().numpy()
    rows = probs.reshape(-1, probs.shape[-1])
    out = [_rng().choice(r.shape[0], num_samples, replace=replacement, p=r / r.sum())
           for r in rows]
    return _as(np.array(out).reshape(probs.shape[:-1] + (num_samples,)), torch.int64,
               input.device)


def dropout_forward(self, input):
    if not self.training or self.p == 0:
        return input
    keep = _rng().random(tuple(input.shape)) >= self.p
    return input * _as(keep, input.dtype, input.device) / (1 - self.p)


def functional_dropout(input, p=0.5, training=True, inplace=False):
    """``F.dropout`` from the shared draws (gat calls it directly)."""
    if not training or p == 0:
        return input
    keep = _rng().random(tuple(input.shape)) >= p
    out = input * _as(keep, input.dtype, input.device) / (1 - p)
    return input.copy_(out) if inplace else out


_BATCHED_NDIM = {"Dropout1d": 3, "Dropout2d": 4, "Dropout3d": 5}


def feature_dropout_forward(self, input):
    """Channel-wise dropout as PyTorch's ``feature_dropout``: one draw per (sample, channel);
    an input of one dimension fewer than batched is one sample (Dropout2d's 3-D input is
    treated as batched, as PyTorch does)."""
    if not self.training or self.p == 0:
        return input
    batched = _BATCHED_NDIM[type(self).__name__]
    one_sample = input.dim() == batched - 1 and batched != 4
    x = input.unsqueeze(0) if one_sample else input
    shape = tuple(x.shape[:2]) + (1,) * (x.dim() - 2)
    keep = _as(_rng().random(shape) >= self.p, x.dtype, x.device)
    out = x * keep / (1 - self.p)
    return out.squeeze(0) if one_sample else out


def fake_data_getitem(self, index):
    """torchvision's FakeData sample drawn from NumPy, seeded by the index (jtorch's FakeData
    does this; torchvision seeds torch's global generator), then its own ToPILImage and
    transforms."""
    if index >= len(self):
        raise IndexError(f"{self.__class__.__name__} index out of range")
    rng = np.random.default_rng(index + self.random_offset)
    img = torch.from_numpy(rng.standard_normal(self.image_size, dtype=np.float32))
    target = int(rng.integers(0, self.num_classes))
    img = _TORCHVISION[0].transforms.ToPILImage()(img)
    if self.transform is not None:
        img = self.transform(img)
    if self.target_transform is not None:
        target = self.target_transform(target)
    return img, target


_TORCHVISION = []


def random_sampler_iter(self):
    n = len(self.data_source)
    if self.replacement:
        for start in range(0, self.num_samples, 32):  # lazily: num_samples may be huge
            yield from _rng().integers(0, n, min(32, self.num_samples - start)).tolist()
    else:
        for _ in range(self.num_samples // n):
            yield from _rng().permutation(n).tolist()
        yield from _rng().permutation(n).tolist()[:self.num_samples % n]


def subset_random_sampler_iter(self):
    """PyTorch's: ``torch.randperm`` (the shared stream, as ``randperm`` above) of the
    indices' positions; jtorch's sampler does not call ``torch.randperm``."""
    for i in _rng().permutation(len(self.indices)).tolist():
        yield self.indices[i]


def install():
    """Replace the random entry points of ``torch`` (whichever framework it is)."""
    random.seed(0)  # Python's generator too: some programs draw from it without seeding it
    torch.manual_seed = manual_seed
    torch.Tensor.uniform_ = uniform_
    torch.Tensor.normal_ = normal_
    torch.Tensor.bernoulli_ = bernoulli_  # torchvision's stochastic_depth draws with it
    torch.Tensor.exponential_ = exponential_  # phimoe's router samples its experts with it
    if _JTORCH:  # PyTorch's own draws through normal_/uniform_
        torch.nn.init.trunc_normal_ = trunc_normal_
        # jtorch's distributions call ops through their own namespace (PyTorch's Categorical
        # samples with torch.multinomial, which the loop below replaces)
        torch.distributions._lib.multinomial = multinomial
        # and draw their noise (Uniform's rsample, Normal's, Bernoulli's sample) the same way
        for f in (rand, randn, bernoulli):
            setattr(torch.distributions._lib, f.__name__, f)
    for f in (rand, randn, rand_like, randn_like, randint, randperm, multinomial, bernoulli,
              normal):
        setattr(torch, f.__name__, f)
    torch.nn.Dropout.forward = dropout_forward
    torch.nn.functional.dropout = functional_dropout
    for name in _BATCHED_NDIM:
        getattr(torch.nn, name).forward = feature_dropout_forward
    torch.utils.data.RandomSampler.__iter__ = random_sampler_iter
    torch.utils.data.SubsetRandomSampler.__iter__ = subset_random_sampler_iter  # sbi's training
    _torchvision_schemas()
    try:
        import torchvision  # optional: only programs that use it need it
        import torchvision.transforms
    except ImportError:
        return
    _TORCHVISION.append(torchvision)
    torchvision.datasets.FakeData.__getitem__ = fake_data_getitem
    if _JTORCH:
        _host_transform_draws(torchvision)


def _host_transform_draws(torchvision):
    """jtorch.vision's random transforms draw on the host through ``transforms._random``, not
    through ``torch.rand``/``randint``/``randperm``/``Tensor.uniform_`` as torchvision's do: take
    those draws from the shared generator too, each as the replaced torch entry point gives it
    to torchvision (``torch.empty(1).uniform_(a, b).item()`` is rounded to float32)."""
    draws = sys.modules[torchvision.transforms.__name__ + "._random"]
    draws.uniform = lambda low=0.0, high=1.0: float(np.float32(_rng().uniform(low, high, (1,))[0]))
    draws.randint = lambda low, high: int(_rng().integers(int(low), int(high), (1,))[0])
    draws.randperm = lambda n: _rng().permutation(int(n)).tolist()


def _torchvision_schemas():
    """Let real torchvision import where its compiled extension does not load (a CUDA build of
    torchvision on a CPU-only machine): its import registers fake kernels for these two ops,
    which fails unless their schemas exist. Nothing here uses them."""
    if _JTORCH:
        return
    try:
        import torchvision  # noqa: F401  # real torchvision, only to test that it imports
    except RuntimeError:
        lib = torch.library.Library("torchvision", "DEF")
        for name in ("nms", "qnms"):
            lib.define(f"{name}(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        _LIBRARIES.append(lib)
        for module in [m for m in sys.modules if m.startswith("torchvision")]:
            del sys.modules[module]


_LIBRARIES = []


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: shared_rng_run.py SCRIPT [ARGS...]")
    script = sys.argv[1]
    sys.argv = sys.argv[1:]
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    install()
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
