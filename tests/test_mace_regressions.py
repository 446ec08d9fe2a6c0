"""Regressions found by running MACE (mace-torch on e3nn) unchanged under jtorch
(scripts/real_drivers/mace_potentials.py, docs/real-programs.md): each test is a small stand-in
for what the library did, in plain torch-API code, run in jtorch and in real PyTorch."""

import io
import pickle

import numpy as np
import torch

import jtorch


class _PackedMixin:
    """e3nn's CodeGenMixin: ``__getstate__`` pickles a submodule (its FX-generated code) to bytes
    with plain ``pickle.dumps``, and ``__setstate__`` unpickles it, so ``torch.save(model)`` runs
    a plain pickle of tensors inside its own pickling."""

    T = None

    def __init__(self, w, b):
        super().__init__()
        T = self.T
        self.inner = T.nn.Linear(3, 2).double()
        with T.no_grad():
            self.inner.weight.copy_(T.tensor(w))
            self.inner.bias.copy_(T.tensor(b))
        self.register_buffer("scale", T.tensor([2.0], dtype=T.float64))

    def forward(self, x):
        return self.inner(x) * self.scale

    def __getstate__(self):
        out = dict(super().__getstate__())
        out["_modules"] = {k: v for k, v in out["_modules"].items() if k != "inner"}
        out["_packed"] = pickle.dumps(self.inner)
        return out

    def __setstate__(self, state):
        state = dict(state)
        packed = state.pop("_packed")
        super().__setstate__(state)
        self.inner = pickle.loads(packed)


class _TorchPacked(_PackedMixin, torch.nn.Module):
    T = torch


class _JtorchPacked(_PackedMixin, jtorch.nn.Module):
    T = jtorch


def test_save_module_whose_getstate_pickles_tensors():
    # MACE's torch.save(model): e3nn's CodeGenMixin.__getstate__ runs pickle.dumps on a
    # GraphModule holding tensors. jtorch.save's tensor reduction was active for every
    # pickler in the thread, so that plain pickle got jtorch.save's records (PicklingError:
    # first item of the tuple returned by __reduce__ must be callable)
    rng = np.random.default_rng(0)
    w, b = rng.standard_normal((2, 3)), rng.standard_normal(2)
    x = rng.standard_normal((4, 3))
    results = {}
    for T, cls in ((torch, _TorchPacked), (jtorch, _JtorchPacked)):
        model = cls(w, b)
        buf = io.BytesIO()
        T.save(model, buf)
        buf.seek(0)
        loaded = T.load(buf, weights_only=False)
        assert isinstance(loaded.inner, T.nn.Linear)
        xt = T.tensor(x, requires_grad=True)
        out = loaded(xt)
        out.sum().backward()
        ref = model(T.tensor(x))
        np.testing.assert_array_equal(out.detach().numpy(), ref.detach().numpy())
        results[T.__name__] = (out.detach().numpy(), xt.grad.numpy(),
                               loaded.inner.weight.grad.numpy())
    for a, b in zip(results["torch"], results["jtorch"]):
        np.testing.assert_allclose(b, a, rtol=1e-14, atol=1e-14)


def test_plain_pickle_inside_save_of_a_tensor_list():
    # the same plain pickle inside torch.save, of bare tensors and a Parameter: both
    # frameworks round-trip the bytes in the same process
    class Holder:
        def __init__(self, T):
            self.T = T
            self.payload = [T.arange(4.0), T.nn.Parameter(T.ones(2))]

        def __reduce__(self):
            return (_unpack, (pickle.dumps(self.payload),))

    for T in (torch, jtorch):
        buf = io.BytesIO()
        T.save({"h": Holder(T)}, buf)
        buf.seek(0)
        back = T.load(buf, weights_only=False)["h"]
        assert isinstance(back[1], T.nn.Parameter)
        np.testing.assert_array_equal(back[0].numpy(), np.arange(4.0))
        np.testing.assert_array_equal(back[1].detach().numpy(), np.ones(2))


def _unpack(data):
    return pickle.loads(data)


class _Potential:
    """MACE's forward in miniature: the positions made to require grad inside ``forward``, an
    energy from them and the parameters, the forces ``-autograd.grad`` of the energy (with
    ``create_graph=self.training``, as MACE's compute_forces)."""

    @staticmethod
    def build(T, w):
        class Potential(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = T.nn.Parameter(T.tensor(w))

            def forward(self, data):
                pos = data["positions"]
                pos.requires_grad_(True)
                d = pos[:, None, :] - pos[None, :, :]
                r2 = (d * d).sum(-1) + T.eye(pos.shape[0], dtype=pos.dtype)
                feats = T.tanh(r2[..., None] * self.w).sum(1)
                energy = (feats ** 2).sum()
                forces = -T.autograd.grad([energy], [pos], create_graph=self.training)[0]
                return {"energy": energy, "forces": forces}

        return Potential()


def test_compiled_module_differentiating_inside_forward():
    # torch.compile(MACE model): the forward computes forces with torch.autograd.grad. The
    # compiled module traced its forward with the tape off (jax.vjp differentiates it), so the
    # inner grad raised "element 0 of tensors does not require grad"; and the failed trace's
    # state restore then wrote into e3nn's FX immutable_dict attributes (TypeError)
    rng = np.random.default_rng(1)
    w = rng.standard_normal(4)
    pos = rng.standard_normal((5, 3))
    f_ref = rng.standard_normal((5, 3))
    results = {}
    for T in (torch, jtorch):
        model = _Potential.build(T, w)
        model.meta = (jtorch.fx.immutable_collections.immutable_dict({"k": 1}) if T is jtorch
                      else torch.fx.immutable_collections.immutable_dict({"k": 1}))
        run = jtorch.compile(model) if T is jtorch else model
        got = []
        for training in (False, True):
            model.train(training)
            model.w.grad = None
            out = run({"positions": T.tensor(pos)})
            got += [out["energy"].detach().numpy(), out["forces"].detach().numpy()]
            if training:   # the forces' graph is kept (create_graph): a force-matching loss
                loss = out["energy"] ** 2 + ((out["forces"] - T.tensor(f_ref)) ** 2).sum()
                loss.backward()
                got.append(model.w.grad.numpy())
        results[T.__name__] = got
        assert dict(model.meta) == {"k": 1}
    for a, b in zip(results["torch"], results["jtorch"]):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-13)
