"""The ``__torch_function__`` protocol of Tensor subclasses against PyTorch 2.13: which calls
reach a subclass's ``__torch_function__`` (and with which function), what the default returns
(the subclass), values and gradients through subclass instances, the precedence of subclasses,
``DisableTorchFunctionSubclass``, Parameters taking no part, and ``torch.overrides``'
``has_torch_function*`` / ``handle_torch_function``."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import raises_like

import jtorch


def _logging_class(lib, seen):
    class Logged(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs)

    return Logged


def _kind(r):
    if isinstance(r, (tuple, list)):
        return (type(r).__name__, type(r[0]).__name__)
    return type(r).__name__


CALLS = {
    "operator": lambda lib, x: x + 1,
    "reflected": lambda lib, x: 2 * x,
    "unary operator": lambda lib, x: -x,
    "method": lambda lib, x: x.sum(),
    "function": lambda lib, x: lib.sum(x, 0),
    "functional": lambda lib, x: lib.nn.functional.relu(x),
    "linear": lambda lib, x: lib.nn.functional.linear(x, lib.ones(4, 3)),
    "list argument": lambda lib, x: lib.cat([x, x]),
    "index": lambda lib, x: x[0],
    "property T": lambda lib, x: x.T,
    "property data": lambda lib, x: x.data,
    "detach": lambda lib, x: x.detach(),
    "clone": lambda lib, x: x.clone(),
    "to": lambda lib, x: x.to(lib.float64),
    "float": lambda lib, x: x.float(),
    "named tuple": lambda lib, x: x.max(1),
    "tuple": lambda lib, x: x.unbind(0),
    "view": lambda lib, x: x.view(3, 2),
    "in place": lambda lib, x: x.mul_(1.0),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_calls_reach_the_subclass_and_return_it_as_torch(name):
    got = {}
    for lib in (torch, jtorch):
        seen = []
        logged = _logging_class(lib, seen)
        x = lib.arange(6.0).reshape(2, 3).as_subclass(logged)
        seen.clear()
        r = CALLS[name](lib, x)
        got[lib] = (seen, _kind(r))
    assert got[jtorch] == got[torch]


def test_values_and_gradients_through_subclass_instances_as_torch():
    g = np.random.default_rng(0)
    xv, wv = g.standard_normal((4, 3)), g.standard_normal((2, 3))
    res = {}
    for lib in (torch, jtorch):
        class Marked(lib.Tensor):
            pass

        w = lib.tensor(wv, requires_grad=True)
        x = lib.tensor(xv).as_subclass(Marked)
        h = lib.tanh(lib.nn.functional.linear(x, w)) * 3
        h[0].mul_(2)                            # in place on a view of a subclass instance
        loss = (h ** 2).mean() + x.sum() * 0
        loss.backward()
        res[lib] = {"kind": (type(h).__name__, type(loss).__name__),
                    "fn": (h.grad_fn.name(), loss.grad_fn.name()),
                    "h": h.detach().numpy(), "grad": w.grad.numpy()}
    t, j = res[torch], res[jtorch]
    assert j["kind"] == t["kind"] and j["fn"] == t["fn"]
    np.testing.assert_allclose(j["h"], t["h"], rtol=1e-12)
    np.testing.assert_allclose(j["grad"], t["grad"], rtol=1e-12)


def test_a_subclass_goes_before_its_base_and_can_take_a_function_over():
    out = {}
    for lib in (torch, jtorch):
        calls = []

        class Base(lib.Tensor):
            pass

        class Derived(Base):
            seen, mean = calls, lib.mean

            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                cls.seen.append((func.__name__, [t.__name__ for t in types]))
                if func is cls.mean:   # the function form only (see docs/differences.md)
                    return "taken over"
                return super().__torch_function__(func, types, args, kwargs)

        a = lib.ones(2).as_subclass(Base)
        b = lib.ones(2).as_subclass(Derived)
        out[lib] = (type(a + b).__name__, type(lib.add(a, b)).__name__, lib.mean(b), calls)
    assert out[jtorch] == out[torch]


def test_unrelated_subclasses_raise_as_torch():
    def both(lib):
        class One(lib.Tensor):
            pass

        class Two(lib.Tensor):
            pass

        return lib.ones(2).as_subclass(One), lib.ones(2).as_subclass(Two)

    for call in (lambda lib, a, b: lib.add(a, b), lambda lib, a, b: lib.cat([a, b])):
        ta, tb = both(torch)
        ja, jb = both(jtorch)
        with pytest.raises(TypeError) as t_err:
            call(torch, ta, tb)
        with pytest.raises(TypeError) as j_err:
            call(jtorch, ja, jb)
        # the classes print their own modules' paths: compare the text around them
        strip = (lambda s: s.replace("test_torch_function.", ""))
        assert strip(str(j_err.value)) == strip(str(t_err.value))


def test_disabling_and_parameters_take_no_part_as_torch():
    out = {}
    for lib in (torch, jtorch):
        class Marked(lib.Tensor):
            pass

        x = lib.ones(2).as_subclass(Marked)
        p = lib.nn.Parameter(lib.ones(2))
        with lib._C.DisableTorchFunctionSubclass():
            inside = (type(x + 1).__name__, lib.overrides.has_torch_function((x,)))
        out[lib] = {"inside": inside, "param": type(p * 2).__name__,
                    "has": (lib.overrides.has_torch_function((x, p)),
                            lib.overrides.has_torch_function((p, lib.ones(1))),
                            lib.overrides.has_torch_function_unary(x),
                            lib.overrides.has_torch_function_variadic(p, x),
                            lib.nn.functional.has_torch_function_unary(p))}
    assert out[jtorch] == out[torch]


def test_handle_torch_function_for_library_functions_as_torch():
    """A library function routed through the protocol as PyTorch's Python functions are, with
    a non-tensor object that defines ``__torch_function__``, and PyTorch's error text."""
    out = {}
    for lib in (torch, jtorch):
        overrides = lib.overrides

        def scaled(t, factor=2.0, overrides=overrides):
            if overrides.has_torch_function_unary(t):
                return overrides.handle_torch_function(scaled, (t,), t, factor=factor)
            return t * factor

        class Box:
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return (func.__name__, [t.__name__ for t in types], kwargs)

        class Declines:
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return NotImplemented

        class Marked(lib.Tensor):
            pass

        try:
            lib.overrides.handle_torch_function(scaled, (Declines(),), Declines())
        except TypeError as e:
            err = str(e).replace("test_torch_function.", "")
        out[lib] = (scaled(Box()), type(scaled(lib.ones(1).as_subclass(Marked))).__name__,
                    scaled(lib.ones(1)).tolist(), err)
    assert out[jtorch] == out[torch]


def test_subclass_in_place_and_instances_keep_their_class_as_torch():
    out = {}
    for lib in (torch, jtorch):
        class Marked(lib.Tensor):
            pass

        w = lib.ones(3, requires_grad=True)
        x = (w * 2).as_subclass(Marked)
        y = x.add_(1)
        lib.relu_(x)
        x.sum().backward()
        out[lib] = (y is x, type(x).__name__, x.detach().tolist(), w.grad.tolist())
    assert out[jtorch] == out[torch]


def test_subclass_errors_still_read_as_torch():
    class TMarked(torch.Tensor):
        pass

    class JMarked(jtorch.Tensor):
        pass

    raises_like(lambda: torch.ones(2).as_subclass(TMarked).view(3),
                lambda: jtorch.ones(2).as_subclass(JMarked).view(3))
