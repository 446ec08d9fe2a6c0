"""Regressions found by running PyPose unchanged under jtorch (scripts/real_drivers/pypose_lie.py,
docs/real-programs.md): each test is a small stand-in for what the library did, in plain
torch-API code, run in jtorch and in real PyTorch."""

import contextlib
import importlib

import numpy as np
import torch

import jtorch
import jtorch._functorch  # noqa: F401  (torch._functorch, as PyTorch imports it)


def _subclasses(T):
    class Lie(T.Tensor):
        # PyPose's LieTensor: a repr of its own; add_ a retraction (here: add, then renormalise)
        def __repr__(self):
            return "Lie LieTensor:\n" + super().__repr__()

        def add_(self, other, alpha=1):
            moved = T.Tensor.as_subclass(self, T.Tensor) + alpha * T.Tensor.as_subclass(
                other, T.Tensor)
            return self.copy_(moved / moved.norm(dim=-1, keepdim=True))

    class LieParameter(Lie, T.nn.Parameter):
        def __repr__(self):
            return "Parameter:\n" + super().__repr__()

    return Lie, LieParameter


def test_str_of_a_subclass_uses_its_repr():
    # print(pose) / str(pose) of a LieTensor showed the plain tensor: jtorch's Tensor and
    # Parameter set __str__ = __repr__, PyTorch's leave str to object.__str__ (the class's repr)
    got = []
    for T in (jtorch, torch):
        Lie, LieParameter = _subclasses(T)
        x = T.tensor([0.0, 0.5, 1.0]).as_subclass(Lie)
        p = LieParameter(T.tensor([1.0, 2.0]))
        got.append([str(x), str(p), f"{x}", str(T.nn.Parameter(T.ones(1)))])
    assert got[0] == got[1]


def test_sgd_steps_a_subclass_through_its_add_():
    # torch.optim.SGD on pp.Parameter(SE3): PyTorch's per-tensor SGD steps by
    # param.add_(d_p, alpha=-lr), PyPose's retraction; jtorch's optax update bypassed it
    rng = np.random.default_rng(0)
    start, other = rng.standard_normal((2, 4)), rng.standard_normal(3)
    target = rng.standard_normal((2, 4))
    for kw in ({}, {"momentum": 0.9, "weight_decay": 0.1}, {"momentum": 0.5, "dampening": 0.3,
                                                             "nesterov": False, "maximize": True},
               {"momentum": 0.9, "nesterov": True}):
        got = []
        for T in (jtorch, torch):
            _, LieParameter = _subclasses(T)
            p = LieParameter(T.tensor(start / np.linalg.norm(start, axis=-1, keepdims=True)))
            w = T.nn.Parameter(T.tensor(other))
            opt = T.optim.SGD([p, w], lr=0.1, **kw)
            steps = []
            for _ in range(3):
                opt.zero_grad()
                loss = ((p - T.tensor(target)) ** 2).sum() * w.sum() + (w ** 2).sum()
                loss.backward()
                opt.step()
                steps.append((p.detach().clone().numpy(), w.detach().clone().numpy()))
            buf = opt.state[p].get("momentum_buffer")
            got.append((steps, None if buf is None else buf.numpy(), type(p).__name__))
        (ja, jbuf, jname), (ta, tbuf, tname) = got
        assert jname == tname
        for (jp, jw), (tp, tw) in zip(ja, ta):
            np.testing.assert_allclose(jp, tp, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(jw, tw, rtol=1e-12, atol=1e-12)
        assert (jbuf is None) == (tbuf is None)
        if tbuf is not None:
            np.testing.assert_allclose(jbuf, tbuf, rtol=1e-12, atol=1e-12)


@contextlib.contextmanager
def _retain_type(T, cls):
    # PyPose's retain_ltype: the hook that makes a transform's inputs, replaced on its module
    hook = T._functorch.eager_transforms._wrap_tensor_for_grad
    module = importlib.import_module(hook.__module__)

    def wrapper(*args, **kwargs):
        tag = getattr(args[0], "tag", None)
        res = hook(*args, **kwargs)
        if tag is not None:
            res = T.Tensor.as_subclass(res, cls)
            res.tag = tag
        return res

    setattr(module, hook.__name__, wrapper)
    try:
        yield
    finally:
        setattr(module, hook.__name__, hook)


def test_wrap_tensor_for_grad_hook_reaches_the_transforms():
    # pp.func.jacrev patched torch._functorch.eager_transforms._wrap_tensor_for_grad
    # (AttributeError: jtorch had no such module); the patched hook makes grad's, vjp's and
    # jacrev's inputs, so the function sees the subclass and its attribute
    x0 = np.array([0.3, -1.2, 0.7])
    got = []
    for T in (jtorch, torch):
        class Tagged(T.Tensor):
            pass

        seen = []

        def f(x, T=T, Tagged=Tagged, seen=seen):
            seen.append((type(x) is Tagged, getattr(x, "tag", None)))
            return T.sin(x) * x.sum()

        x = T.tensor(x0).as_subclass(Tagged)
        x.tag = "SE3"
        with _retain_type(T, Tagged):
            jac = T.func.jacrev(f)(x)
            g = T.func.grad(lambda v, f=f: f(v).sum())(x)
        plain = T.func.jacrev(f)(x)   # the hook restored: a plain input again
        got.append((jac.detach().numpy(), g.detach().numpy(), plain.detach().numpy(),
                    seen[0], seen[-1]))
    (jj, jg, jp, jfirst, jlast), (tj, tg, tp, tfirst, tlast) = got
    np.testing.assert_allclose(jj, tj, rtol=1e-12)
    np.testing.assert_allclose(jg, tg, rtol=1e-12)
    np.testing.assert_allclose(jp, tp, rtol=1e-12)
    assert jfirst == tfirst == (True, "SE3")
    assert jlast == tlast == (False, None)
