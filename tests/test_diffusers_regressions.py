"""What Hugging Face diffusers 0.42 reached in jtorch (scripts/real_drivers/diffusers_tiny.py,
docs/real-programs.md), against PyTorch, with plain torch-API code (no diffusers import):

- ``diffusers.training_utils`` imports ``torch.distributed.fsdp.wrap``'s
  ``transformer_auto_wrap_policy`` at module level (jtorch had no such module);
- ``from_pretrained`` builds the model under accelerate's ``init_empty_weights``, which
  re-makes every parameter as ``type(p)(p.to(device), **p.__dict__)``: jtorch's ``__dict__``
  held its own fields (``_array``, ``_device``...), PyTorch's only what a program set;
- a ``torch.compile``'d UNet returns ``UNet2DOutput``, a dict registered with
  ``torch.utils._pytree``: jtorch's compile flattened outputs with JAX's pytrees only, which
  keep such a dict whole, so it came back holding JAX tracers.
"""

import copy
import pickle
from collections import OrderedDict

import numpy as np
import pytest
import torch
import torch.distributed.fsdp.wrap as torch_wrap

import jtorch
import jtorch.distributed.fsdp.wrap as jtorch_wrap


def _modules(T):
    return [T.nn.Linear(4, 4), T.nn.ModuleList([T.nn.Linear(2, 2)]),
            T.nn.MultiheadAttention(4, 1), T.nn.TransformerEncoderLayer(4, 1, 8)]


@pytest.mark.parametrize("recurse", [True, False])
@pytest.mark.parametrize("numel", [10, 10 ** 9])
def test_fsdp_wrap_policies(recurse, numel):
    def decisions(T, wrap):
        layer = {T.nn.TransformerEncoderLayer}
        out = []
        for m in _modules(T):
            out += [wrap.always_wrap_policy(m, recurse, numel),
                    wrap.transformer_auto_wrap_policy(m, recurse, numel, layer),
                    wrap.lambda_auto_wrap_policy(m, recurse, numel,
                                                 lambda mod: isinstance(mod, T.nn.Linear)),
                    wrap.size_based_auto_wrap_policy(m, recurse, numel),
                    wrap.size_based_auto_wrap_policy(m, recurse, numel, min_num_params=5),
                    wrap.ModuleWrapPolicy(layer)(m, recurse, numel)]
        return out
    assert decisions(jtorch, jtorch_wrap) == decisions(torch, torch_wrap)


def test_fsdp_enable_wrap():
    def run(T, wrap):
        lin = T.nn.Linear(2, 2)
        outside = wrap.wrap(lin) is lin
        with wrap.enable_wrap(wrapper_cls=T.nn.Sequential):
            inside = wrap.wrap(lin)
            with pytest.raises(NotImplementedError):
                with wrap.enable_wrap(wrapper_cls=T.nn.Sequential):
                    pass
            still = type(wrap.wrap(lin)).__name__
        return outside, type(inside).__name__, inside[0] is lin, still, wrap.wrap(lin) is lin
    assert run(jtorch, jtorch_wrap) == run(torch, torch_wrap)


def _attributes(T):
    p = T.nn.Parameter(T.ones(3))
    t = T.ones(2, requires_grad=True)
    before = (dict(p.__dict__), dict(vars(t)))
    p.tag, t.note = "w", [1]
    # accelerate's init_empty_weights: the parameter re-made from its __dict__ as keywords
    kwargs = p.__dict__
    kwargs["requires_grad"] = False
    remade = type(p)(p.to("cpu"), **{k: v for k, v in kwargs.items() if k != "tag"})
    after = (sorted(p.__dict__), sorted(vars(t)), remade.requires_grad,
             type(remade).__name__, remade.tolist())
    copied = copy.deepcopy(t)
    pickled = pickle.loads(pickle.dumps(p))
    t.__dict__ = {"replaced": 1}
    return (before, after, sorted(copied.__dict__), copied.requires_grad,
            sorted(pickled.__dict__), pickled.tag, pickled.requires_grad, dict(t.__dict__),
            hasattr(t, "note"))


def test_tensor_dict_holds_only_set_attributes():
    assert _attributes(jtorch) == _attributes(torch)


def _output_class(T):
    """A dict output registered as a pytree node, as diffusers' ``BaseOutput`` subclasses
    register themselves (JAX's own flattening does not open it)."""
    class Out(OrderedDict):
        pass
    T.utils._pytree.register_pytree_node(
        Out, lambda d: (list(d.values()), list(d.keys())),
        lambda values, keys: Out(zip(keys, values)))
    return Out


def _compiled_output(T, compile_it):
    Out = _output_class(T)
    T.manual_seed(0)
    lin = T.nn.Linear(3, 2)
    with T.no_grad():
        lin.weight.copy_(T.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]))
        lin.bias.copy_(T.tensor([0.1, -0.2]))

    def forward(x):
        y = lin(x).tanh()
        return Out(sample=y, total=y.sum(), scale=2)
    fn = T.compile(forward, backend="aot_eager") if compile_it else forward
    x = T.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]], requires_grad=True)
    out = fn(x)
    (out["sample"] * out["scale"]).pow(2).sum().backward()
    return (type(out).__name__, list(out), out["sample"].tolist(), out["total"].item(),
            x.grad.tolist(), lin.weight.grad.tolist())


def test_compiled_function_returns_registered_pytree_node():
    # diffusers' compiled UNet returns UNet2DOutput: jtorch.compile returned it holding JAX
    # tracers (UnexpectedTracerError on first use); PyTorch's compile gives eager's result
    got, want = _compiled_output(jtorch, True), _compiled_output(torch, False)
    assert got[:2] == want[:2]
    for g, w in zip(got[2:], want[2:]):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)
