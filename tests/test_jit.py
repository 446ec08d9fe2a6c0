"""torch.jit on jtorch against PyTorch: the eager-mode markers and pass-throughs, trace and
script of functions and modules (values and gradients equal PyTorch's TorchScript ones), the
NotImplementedError of script where XLA needs one program, and the stand-ins."""

import typing
import warnings

import numpy as np
import pytest
import torch
from helpers import assert_close, rand

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


def test_script_needs_one_program():
    expected = torch.jit.script(_branchy)(torch.ones(2))
    f = jtorch.jit.script(_branchy)
    with pytest.raises(NotImplementedError, match=r"torch\.jit\.script.*jtorch\.compile"):
        f(jtorch.ones(2))
    # jtorch.compile (and trace) run such code eagerly, with TorchScript's result
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


def test_stand_ins():
    with pytest.raises(NotImplementedError, match="torch.jit.save"):
        jtorch.jit.save(None, "m.pt")
    with pytest.raises(NotImplementedError, match="torch.jit.load"):
        jtorch.jit.load("m.pt")
    assert not isinstance(jtorch.nn.Linear(1, 1), jtorch.jit.ScriptModule)
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
