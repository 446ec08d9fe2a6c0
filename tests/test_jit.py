"""torch.jit on jtorch against PyTorch: the eager-mode markers and pass-throughs, trace and
script of functions and modules (values and gradients equal PyTorch's TorchScript ones), script
running eagerly where XLA cannot make one program, and the stand-ins."""

import copy
import pickle
import typing
import warnings

import numpy as np
import pytest
import torch
from helpers import assert_close, rand
from nn_helpers import copy_weights

import jtorch

LIBS = (torch, jtorch)


def test_public_names():
    public = {n for n in dir(torch.jit) if not n.startswith("_")} - {
        "torch", "warnings", "contextmanager", "Any"}
    assert public <= set(dir(jtorch.jit))
    assert set(torch.jit.__all__) <= set(jtorch.jit.__all__)


def test_markers_and_pass_throughs():
    for T in LIBS:
        J = T.jit
        assert J.is_scripting() is False and J.is_tracing() is False
        assert J.Final is typing.Final
        assert J.annotate(list[int], [1]) == [1] and tuple(J.Attribute(0.5, float)) == (0.5, float)

        def f(x):
            return x

        for deco in (J.ignore, J.unused, J.export, J.ignore(drop=False)):
            assert deco(f) is f
        prop = J.unused(property(lambda self: 1))
        assert isinstance(prop, property)
    modifiers = [[d(lambda: 0)._torchscript_modifier
                  for d in (T.jit.ignore, T.jit.unused, T.jit.export)] for T in LIBS]
    assert modifiers[1] == modifiers[0]


def test_ignore_arguments():
    msgs = []
    for T in LIBS:
        with pytest.warns(FutureWarning) as w:
            T.jit.ignore(True)
        with pytest.raises(RuntimeError) as e:
            T.jit.ignore("yes")
        msgs.append((str(w[0].message), str(e.value)))
    assert msgs[1] == msgs[0]


def _fn(x, y):
    return (x.relu() * y + 1).sum(1)


def test_trace_and_script_functions():
    x, y = rand(3, 4, seed=0), rand(3, 4, seed=1)
    for make in ("trace", "script"):
        outs = []
        for T in LIBS:
            xt, yt = T.tensor(x, requires_grad=True), T.tensor(y)
            if make == "trace":
                f = T.jit.trace(_fn, (T.tensor(x), T.tensor(y)))
            else:
                f = T.jit.script(_fn)
            out = f(xt, yt)
            out.sum().backward()
            outs.append((out, xt.grad))
        assert_close(outs[1][0], outs[0][0])
        assert_close(outs[1][1], outs[0][1])


def _net(T):
    T.manual_seed(0)
    return T.nn.Sequential(T.nn.Linear(4, 8), T.nn.ReLU(), T.nn.Linear(8, 2))


@pytest.mark.parametrize("make", ["trace", "script"])
def test_modules(make):
    tm, jm = _net(torch), _net(jtorch)
    jm.load_state_dict({k: jtorch.tensor(v.detach().numpy()) for k, v in
                        tm.state_dict().items()})
    x = rand(5, 4, seed=2)
    outs = []
    for T, m in ((torch, tm), (jtorch, jm)):
        c = T.jit.trace(m, T.tensor(x)) if make == "trace" else T.jit.script(m)
        out = c(T.tensor(x))
        out.square().sum().backward()
        outs.append((out, m[0].weight.grad))
    assert_close(outs[1][0], outs[0][0])
    assert_close(outs[1][1], outs[0][1])


def _branchy(x):
    if bool(x.sum() > 0):
        return x * 2
    return x


def test_script_of_host_control_flow_runs_eagerly():
    # TorchScript compiles `if` on a tensor value; one XLA program cannot, so jtorch runs the
    # call eagerly (with jtorch.compile's warning, naming the function) and returns TorchScript's
    # result, as trace does; torchkbnufft scripts such kernels at import
    expected = torch.jit.script(_branchy)(torch.ones(2))
    f = jtorch.jit.script(_branchy)
    with pytest.warns(UserWarning, match="could not trace _branchy"):
        got = f(jtorch.ones(2))
    assert np.array_equal(got.numpy(), expected.numpy())
    assert np.array_equal(f(-jtorch.ones(2)).numpy(), torch.jit.script(_branchy)(
        -torch.ones(2)).numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = jtorch.jit.trace(_branchy, jtorch.ones(2))(jtorch.ones(2))
    assert np.array_equal(got.numpy(), expected.numpy())



class _Pair:
    def __init__(self, a, b: int):
        self.a, self.b = a, b


class _SubPair(_Pair):
    pass


def test_script_of_a_class_returns_it_as_pytorch():
    # PyTorch Geometric scripts its dataclasses (SelectOutput) at import
    for T in LIBS:
        assert T.jit.script(_Pair) is _Pair
        with pytest.raises(RuntimeError, match="does not support inheritance"):
            T.jit.script(_SubPair)
        with pytest.raises(RuntimeError, match="inherits from nn.Module, pass an instance"):
            T.jit.script(T.nn.Linear)


def _bn_net(T):
    return T.nn.Sequential(T.nn.Linear(3, 4), T.nn.Tanh(), T.nn.BatchNorm1d(4))


def test_scripted_module_is_a_script_module_with_the_module_state_as_torch():
    """script(module) is a ScriptModule whose parameters, buffers, state_dict keys and modes
    are the module's (no ``_orig_mod.`` prefix), as PyTorch's; eval takes effect."""
    tm, jm = _bn_net(torch), _bn_net(jtorch)
    copy_weights(tm, jm)
    ts, js = torch.jit.script(tm), jtorch.jit.script(jm)
    for T, s in ((torch, ts), (jtorch, js)):
        assert isinstance(s, T.jit.ScriptModule) and isinstance(s, T.jit.RecursiveScriptModule)
        assert isinstance(s, T.nn.Module)
    assert list(js.state_dict()) == list(ts.state_dict())
    assert [n for n, _ in js.named_parameters()] == [n for n, _ in ts.named_parameters()]
    assert [n for n, _ in js.named_modules()] == [n for n, _ in ts.named_modules()]
    x = rand(5, 3, seed=2)
    tx, jx = torch.tensor(x, requires_grad=True), jtorch.tensor(x, requires_grad=True)
    ts(tx).square().sum().backward()      # training: batch statistics, running stats updated
    js(jx).square().sum().backward()
    assert_close(jx.grad, tx.grad, atol=1e-5, rtol=1e-5)
    assert_close(js.state_dict()["2.running_mean"], ts.state_dict()["2.running_mean"],
                 atol=1e-6, rtol=1e-6)
    ts.eval()
    js.eval()
    assert js.training is False and ts.training is False
    assert_close(js(jtorch.tensor(x)), ts(torch.tensor(x)), atol=1e-5, rtol=1e-5)
    js.load_state_dict(js.state_dict())


def _scale(x):
    return x * 2 + 1


class _Legacy:
    """PyTorch's older TorchScript module: a ScriptModule subclass with script_methods."""

    @staticmethod
    def make(T):
        class Scaled(T.jit.ScriptModule):
            def __init__(self):
                super().__init__()
                self.w = T.nn.Parameter(T.tensor([1.0, -2.0, 0.5]))

            @T.jit.script_method
            def forward(self, x):
                return (x * self.w).tanh()

        return Scaled()


def test_script_function_and_script_module_subclass_as_torch():
    for T in LIBS:
        sf = T.jit.script(_scale)
        assert isinstance(sf, T.jit.ScriptFunction)
        assert sf(T.ones(2)).tolist() == [3.0, 3.0]
    tm, jm = _Legacy.make(torch), _Legacy.make(jtorch)
    assert isinstance(jm, jtorch.jit.ScriptModule) and list(jm.state_dict()) == ["w"]
    x = rand(4, 3, seed=3)
    tx, jx = torch.tensor(x, requires_grad=True), jtorch.tensor(x, requires_grad=True)
    tm(tx).sum().backward()
    jm(jx).sum().backward()
    assert_close(jx.grad, tx.grad, atol=1e-6, rtol=1e-6)
    assert_close(jm.w.grad, tm.w.grad, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_compiled_and_scripted_modules_pickle_as_torch(how):
    """torch.compile's module pickles as its module compiled again (PyTorch's
    OptimizedModule.__reduce__); jtorch's scripted module too (e3nn pickles its scripted
    submodules when it is deep-copied)."""
    def copied(m):
        return pickle.loads(pickle.dumps(m)) if how == "pickle" else copy.deepcopy(m)

    tm, jm = torch.nn.Linear(3, 2), jtorch.nn.Linear(3, 2)
    copy_weights(tm, jm)
    tc, jc = copied(torch.compile(tm)), copied(jtorch.compile(jm))
    assert type(jc).__name__ == type(tc).__name__ == "OptimizedModule"
    assert list(jc.state_dict()) == list(tc.state_dict())
    js = copied(jtorch.jit.script(jm))
    assert isinstance(js, jtorch.jit.RecursiveScriptModule)
    x = rand(4, 3, seed=4)
    for j in (jc, js):
        assert_close(j(jtorch.tensor(x)), tc(torch.tensor(x)), atol=1e-6, rtol=1e-6)
    assert js.weight is not jm.weight   # a copy, not the module itself


def test_stand_ins():
    with pytest.raises(NotImplementedError, match="torch.jit.save"):
        jtorch.jit.save(None, "m.pt")
    with pytest.raises(NotImplementedError, match="torch.jit.load"):
        jtorch.jit.load("m.pt")
    assert not isinstance(jtorch.nn.Linear(1, 1), jtorch.jit.ScriptModule)
    assert not isinstance(jtorch.compile(jtorch.nn.Linear(1, 1)), jtorch.jit.ScriptModule)
    for T in LIBS:
        assert issubclass(T.jit.TracerWarning, Warning)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=T.jit.TracerWarning)
        with pytest.raises(TypeError, match="'NoneType' object is not iterable"):
            T.jit.trace(_fn)


def test_jit_annotations_gives_typing_names_as_torch():
    import torch.jit.annotations as t_ann

    import jtorch.jit.annotations as j_ann
    assert jtorch.jit.annotations is j_ann
    for name in ("Any", "Dict", "List", "Optional", "Tuple", "Union"):
        assert getattr(j_ann, name) is getattr(t_ann, name)
    assert j_ann.BroadcastingList2[int] is None and t_ann.BroadcastingList2[int] is None
    with pytest.raises(NotImplementedError, match="torch.jit.annotations.ann_to_type"):
        j_ann.ann_to_type
