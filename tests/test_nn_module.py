"""nn.Module, Parameter, Buffer and the containers against real PyTorch: registration rules and
errors, iteration with shared modules, state_dict / load_state_dict (keys, values, metadata,
error texts, atomic failure), hooks (order, arguments, replacement), conversions that keep
parameter identity, reprs, deepcopy and functional_call."""

from __future__ import annotations

import copy
import warnings
from collections import OrderedDict

import numpy as np
import pytest
import torch

import jtorch
from tests.helpers import assert_close, raises_like

LIBS = (torch, jtorch)
RNG = np.random.default_rng(0)
W1 = RNG.standard_normal((4, 3)).astype(np.float32)
B1 = RNG.standard_normal(4).astype(np.float32)
W2 = RNG.standard_normal((2, 4)).astype(np.float32)
X = RNG.standard_normal((5, 3)).astype(np.float32)


def _np(t):
    return t.detach().cpu().numpy() if hasattr(t, "detach") else t


def fmt(x):
    """Hook-log friendly: tensors become rounded lists; tuples stay tuples."""
    if isinstance(x, (tuple, list)):
        return tuple(fmt(e) for e in x)
    if hasattr(x, "detach"):
        return np.round(_np(x).astype(np.float64), 4).tolist()
    return x


def same(fn):
    """fn(T) gives the same (plain Python) result for torch and jtorch."""
    a, b = fn(torch), fn(jtorch)
    assert a == b, f"\ntorch:  {a!r}\njtorch: {b!r}"
    return b


# ---------------------------------------------------------------------- test modules
def classes(T):
    class Affine(T.nn.Module):
        def __init__(self, w, b=None):
            super().__init__()
            self.weight = T.nn.Parameter(T.tensor(w))
            self.bias = None if b is None else T.nn.Parameter(T.tensor(b))

        def forward(self, x):
            y = x @ self.weight.T
            return y if self.bias is None else y + self.bias

        def extra_repr(self):
            return f"in={self.weight.shape[1]}, out={self.weight.shape[0]}"

    class Net(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = Affine(W1, B1)
            self.body = T.nn.Sequential(T.nn.ReLU() if hasattr(T.nn, "ReLU") else Affine(W2),
                                        Affine(W2))
            self.register_buffer("count", T.zeros(1, dtype=T.int64))
            self.register_buffer("scratch", T.ones(2), persistent=False)

        def forward(self, x):
            return self.body[1](self.fc1(x).clamp(min=0))

    return Affine, Net


def net(T):
    return classes(T)[1]()


# ---------------------------------------------------------------------- Parameter / Buffer
def test_parameter_repr_and_flags():
    same(lambda T: repr(T.nn.Parameter(T.tensor([1.0, 2.0]))))
    same(lambda T: str(T.nn.Parameter(T.tensor([[1.5, 2.0]]))))
    same(lambda T: repr(T.nn.Parameter(T.tensor([1.0, 2.0]), requires_grad=False)))
    same(lambda T: repr(T.nn.Parameter(T.tensor([1.0, 2.0], dtype=T.float64))))
    same(lambda T: repr(T.nn.Parameter()))

    def subclass(T):
        class P(T.nn.Parameter):
            pass

        return repr(P(T.tensor([1.0, 2.0])))

    same(subclass)
    same(lambda T: repr(T.nn.parameter.UninitializedParameter()))
    same(lambda T: (T.nn.Parameter(T.ones(2)).requires_grad,
                    T.nn.Parameter(T.ones(2)).is_leaf,
                    type(T.nn.Parameter(T.ones(2)) * 2).__name__,
                    isinstance(T.ones(2), T.nn.Parameter)))
    raises_like(lambda: torch.nn.Parameter(torch.ones(2, dtype=torch.int64)),
                lambda: jtorch.nn.Parameter(jtorch.ones(2, dtype=jtorch.int64)))
    p = jtorch.nn.Parameter(jtorch.ones(2, dtype=jtorch.int64), requires_grad=False)
    assert p.dtype == jtorch.int64 and not p.requires_grad


def test_parameter_deepcopy():
    def run(T):
        p = T.nn.Parameter(T.tensor([1.0, 2.0]))
        p.grad = T.ones(2)
        q = copy.deepcopy(p)
        with T.no_grad():
            q.mul_(3)
        return (type(q).__name__, q.requires_grad, q.grad is None, fmt(p), fmt(q),
                copy.deepcopy([p, p])[0] is copy.deepcopy([p, p])[1])

    same(run)
    t = jtorch.tensor([1.0, 2.0], requires_grad=True)
    u = copy.deepcopy(t)
    assert u is not t and u.requires_grad and jtorch.equal(u, t)


def test_buffer_and_uninitialized():
    def run(T):
        b = T.nn.Buffer(T.ones(2), persistent=False)
        m = T.nn.Module()
        m.buf = b
        m.kept = T.nn.Buffer(T.zeros(3))
        return (isinstance(b, T.nn.Buffer), isinstance(T.ones(1), T.nn.Buffer),
                type(b).__name__, b.persistent, list(dict(m.named_buffers())),
                list(m.state_dict()), repr(b))

    same(run)

    def lazy(T):
        p = T.nn.parameter.UninitializedParameter()
        flag = T.nn.parameter.is_lazy(p)
        p.materialize((2, 3))
        return flag, type(p).__name__, tuple(p.shape), p.requires_grad, \
            T.nn.parameter.is_lazy(p)

    same(lazy)
    raises_like(lambda: torch.nn.parameter.UninitializedParameter().shape,
                lambda: jtorch.nn.parameter.UninitializedParameter().shape)


# ---------------------------------------------------------------------- registration
def test_setattr_registration_rules():
    def run(T):
        m = T.nn.Module()
        m.w = T.nn.Parameter(T.ones(2))
        m.register_buffer("b", T.zeros(2))
        m.sub = T.nn.Module()
        m.plain = 3
        out = [sorted(m._parameters), sorted(m._buffers), sorted(m._modules)]
        m.b = T.ones(2) * 5          # a tensor to a buffer name stays a buffer
        m.w = None                   # None to a parameter name
        m.sub = None
        out += [fmt(m.b), m.w, m.sub, sorted(m._parameters), sorted(m._modules)]
        m.sub = T.nn.Parameter(T.ones(1))   # a parameter replaces the module entry
        out += [sorted(m._parameters), sorted(m._modules)]
        del m.b
        del m.plain
        out += [sorted(m._buffers), hasattr(m, "plain")]
        return out

    same(run)


@pytest.mark.parametrize("case", [
    lambda T, m: setattr(m, "w", T.ones(2)),
    lambda T, m: setattr(m, "sub", 3),
    lambda T, m: setattr(m, "b", "text"),
    lambda T, m: m.register_buffer("w", T.ones(1)),
    lambda T, m: m.register_buffer("a.b", T.ones(1)),
    lambda T, m: m.register_buffer("", T.ones(1)),
    lambda T, m: m.register_buffer("x", 3),
    lambda T, m: m.register_buffer(1, T.ones(1)),
    lambda T, m: m.register_parameter("b", T.nn.Parameter(T.ones(1))),
    lambda T, m: m.register_parameter("p", T.ones(1)),
    lambda T, m: m.register_parameter("q.r", None),
    lambda T, m: m.add_module("m", 3),
    lambda T, m: m.add_module("w", T.nn.Module()),
    lambda T, m: m.add_module("a.b", T.nn.Module()),
    lambda T, m: m.add_module("", T.nn.Module()),
    lambda T, m: m.missing,
    lambda T, m: m(1),
    lambda T, m: m.train("yes"),
    lambda T, m: T.nn.Module(3),
    lambda T, m: T.nn.Module(x=3),
])
def test_registration_errors(case):
    def make(T):
        m = T.nn.Module()
        m.w = T.nn.Parameter(T.ones(2))
        m.register_buffer("b", T.zeros(2))
        m.sub = T.nn.Module()
        return m

    raises_like(lambda: case(torch, make(torch)), lambda: case(jtorch, make(jtorch)))


def test_assign_before_init():
    def run(T, what):
        class Early(T.nn.Module):
            def __init__(self):
                if what == "param":
                    self.w = T.nn.Parameter(T.ones(1))
                elif what == "module":
                    self.m = T.nn.Module()
                else:
                    self.register_buffer("b", T.ones(1))
                super().__init__()

        return Early()

    for what in ("param", "module", "buffer"):
        raises_like(lambda w=what: run(torch, w), lambda w=what: run(jtorch, w))


# ---------------------------------------------------------------------- iteration
def test_named_iteration_with_shared_modules():
    def run(T):
        Affine = classes(T)[0]
        shared = Affine(W1, B1)
        root = T.nn.Module()
        root.a = shared
        root.b = T.nn.Sequential(shared, Affine(W2))
        root.c = None
        root.tied = Affine(W2)
        root.tied.weight = root.b[1].weight
        return [
            [n for n, _ in root.named_modules()],
            [n for n, _ in root.named_modules(remove_duplicate=False)],
            [n for n, _ in root.named_modules(prefix="top")],
            [n for n, _ in root.named_children()],
            [n for n, _ in root.named_parameters()],
            [n for n, _ in root.named_parameters(remove_duplicate=False)],
            [n for n, _ in root.named_parameters(prefix="p", recurse=True)],
            [n for n, _ in root.b.named_parameters(recurse=False)],
            len(list(root.parameters())), len(list(root.modules())),
            len(list(root.modules(remove_duplicate=False))), len(list(root.children())),
            list(root.state_dict()),
        ]

    same(run)


def test_apply_train_eval_requires_grad_zero_grad():
    def run(T):
        n = net(T)
        order = []
        n.apply(lambda m: order.append(type(m).__name__))
        out = [order, n.training]
        n.eval()
        out.append([m.training for m in n.modules()])
        n.train()
        out.append([m.training for m in n.modules()])
        n.fc1.requires_grad_(False)
        out.append([p.requires_grad for p in n.parameters()])
        n.requires_grad_()
        n(T.tensor(X)).sum().backward()
        n.zero_grad(set_to_none=False)
        out.append([fmt(p.grad) for p in n.parameters()][:1])
        n.zero_grad()
        out.append([p.grad for p in n.parameters()])
        return out

    same(run)


# ---------------------------------------------------------------------- state_dict
def test_state_dict_keys_values_metadata():
    def run(T):
        n = net(T)
        sd = n.state_dict()
        return (type(sd).__name__, list(sd), {k: fmt(v) for k, v in sd.items()},
                dict(sd._metadata), [v.requires_grad for v in sd.values()],
                list(n.state_dict(prefix="model.")), list(n.fc1.state_dict()))

    same(run)
    n = net(jtorch)
    kv = n.state_dict(keep_vars=True)
    assert kv["fc1.weight"] is n.fc1.weight
    sd = n.state_dict()
    assert sd["fc1.weight"] is not n.fc1.weight
    with jtorch.no_grad():     # detach() shares storage, as in PyTorch
        sd["fc1.bias"].add_(1)
    assert_close(_np(n.fc1.bias), B1 + 1)
    dest = OrderedDict()
    assert n.state_dict(destination=dest) is dest and "count" in dest


def test_load_state_dict_roundtrip_and_result():
    def run(T):
        src, dst = net(T), net(T)
        with T.no_grad():
            for p in src.parameters():
                p.mul_(2)
            src.count.fill_(7)
        opt_refs = list(dst.parameters())
        r = dst.load_state_dict(src.state_dict())
        same_objects = all(a is b for a, b in zip(opt_refs, dst.parameters()))
        r2 = dst.load_state_dict({"fc1.weight": T.zeros(4, 3), "extra": T.ones(1)},
                                 strict=False)
        return (repr(r), str(r), r.missing_keys, same_objects,
                {k: fmt(v) for k, v in dst.state_dict().items()}, repr(r2),
                r2.missing_keys, r2.unexpected_keys)

    same(run)


def _broken(T, kind):
    sd = net(T).state_dict()
    if kind == "missing":
        del sd["fc1.bias"]
        del sd["count"]
    elif kind == "unexpected":
        sd["fc1.extra"] = T.ones(1)
        sd["zzz.weight"] = T.ones(1)
    elif kind == "both":
        del sd["body.1.weight"]
        sd["body.5.weight"] = T.ones(1)
    elif kind == "shape":
        sd["fc1.weight"] = T.zeros(3, 4)
        sd["body.1.weight"] = T.zeros(2, 5)
    elif kind == "shape_and_missing":
        sd["fc1.weight"] = T.zeros(3, 4)
        del sd["count"]
    elif kind == "not_tensor":
        sd["fc1.bias"] = [1.0, 2.0]
    return sd


@pytest.mark.parametrize("kind", ["missing", "unexpected", "both", "shape",
                                  "shape_and_missing", "not_tensor"])
def test_load_state_dict_errors_are_atomic(kind):
    def attempt(T):
        n = net(T)
        before = {k: _np(v).copy() for k, v in n.state_dict().items()}
        sd = _broken(T, kind)
        for k, v in sd.items():     # every valid entry differs from the module's
            if hasattr(v, "shape") and k in before and tuple(v.shape) == before[k].shape:
                sd[k] = v + 1
        with pytest.raises(RuntimeError) as e:
            n.load_state_dict(sd)
        return n, before, str(e.value)

    tn, tbefore, tmsg = attempt(torch)
    jn, jbefore, jmsg = attempt(jtorch)
    assert jmsg == tmsg
    # jtorch leaves the module exactly as it was (PyTorch copies what it could)
    for k, v in jn.state_dict().items():
        np.testing.assert_array_equal(_np(v), jbefore[k])


def test_load_state_dict_misc_errors_and_scalar_reshape():
    raises_like(lambda: net(torch).load_state_dict([1]), lambda: net(jtorch).load_state_dict([1]))

    def scalar(T):
        m = T.nn.Module()
        m.register_buffer("s", T.tensor(1.0))
        m.load_state_dict({"s": T.tensor([5.0])})     # shape [1] loads into a 0-d entry
        return fmt(m.s)

    same(scalar)


def test_load_state_dict_assign_and_dtype_cast():
    def run(T):
        n = net(T)
        w = T.full((4, 3), 2.0, dtype=T.float64)
        sd = dict(n.state_dict())
        sd["fc1.weight"] = w
        n.load_state_dict(sd)            # copy: keeps the module's dtype
        a = (str(n.fc1.weight.dtype), fmt(n.fc1.weight)[0])
        n.load_state_dict(sd, assign=True)
        return a, (str(n.fc1.weight.dtype), type(n.fc1.weight).__name__,
                   n.fc1.weight.requires_grad)

    same(run)


def test_state_dict_hooks_and_overrides():
    def run(T):
        log = []

        class Versioned(T.nn.Module):
            _version = 2

            def __init__(self):
                super().__init__()
                self.new_name = T.nn.Parameter(T.zeros(2))

            def _load_from_state_dict(self, sd, prefix, meta, strict, missing, unexpected,
                                      errors):
                if meta.get("version", 1) < 2 and prefix + "old_name" in sd:
                    sd[prefix + "new_name"] = sd.pop(prefix + "old_name")
                super()._load_from_state_dict(sd, prefix, meta, strict, missing, unexpected,
                                              errors)

            def get_extra_state(self):
                return {"note": 1}

            def set_extra_state(self, state):
                log.append(("extra", state))

        root = T.nn.Module()
        root.v = Versioned()
        root.register_state_dict_pre_hook(lambda m, prefix, kv: log.append(("pre", prefix)))
        root.register_state_dict_post_hook(
            lambda m, sd, prefix, meta: log.append(("post", list(sd))))
        root.v.register_load_state_dict_pre_hook(
            lambda m, sd, prefix, *a: log.append(("lpre", prefix, sorted(sd))))
        root.register_load_state_dict_post_hook(
            lambda m, keys: (log.append(("lpost", list(keys.missing_keys))),
                             keys.missing_keys.clear())[0])
        sd = root.state_dict()
        log.append(dict(sd._metadata))
        old = OrderedDict([("v.old_name", T.ones(2)), ("v._extra_state", {"note": 2})])
        old._metadata = {"v": {"version": 1}}
        r = root.load_state_dict(old)
        log.append((repr(r), fmt(root.v.new_name)))
        return log

    same(run)


# ---------------------------------------------------------------------- hooks
def _hook_log(T):
    warnings.simplefilter("ignore")
    log = []

    class Two(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = T.nn.Parameter(T.tensor([[1.0, 2.0], [3.0, 4.0]]))

        def forward(self, x, y=None, scale=1.0):
            return (x @ self.w) * scale, (x * 2).sum()

    n = Two()
    n.register_forward_pre_hook(lambda m, a: log.append(("pre", fmt(a))))
    n.register_forward_pre_hook(lambda m, a, k: log.append(("pre_kw", fmt(a), sorted(k))),
                                with_kwargs=True, prepend=True)
    n.register_forward_hook(lambda m, a, o: log.append(("fwd", fmt(o))))
    h = n.register_forward_hook(lambda m, a, k, o: (o[0] * 10, o[1]), with_kwargs=True)
    n.register_full_backward_pre_hook(lambda m, go: log.append(("bpre", fmt(go))))
    n.register_full_backward_hook(lambda m, gi, go: log.append(("bwd", fmt(gi), fmt(go))))
    n.register_full_backward_hook(lambda m, gi, go: (gi[0] * 3, gi[1]))
    n.register_full_backward_hook(lambda m, gi, go: log.append(("first", fmt(gi))), prepend=True)
    x = T.tensor([[1.0, -1.0]], requires_grad=True)
    out = n(x, 5, scale=2.0)
    log.append(("out", fmt(out), out[0].grad_fn.name()))
    (out[0].sum() + out[1]).backward()
    log.append(("grads", fmt(x.grad), fmt(n.w.grad)))
    h.remove()
    log.append(("after_remove", fmt(n(x, 5))))
    with n.register_forward_hook(lambda m, a, o: log.append("ctx")):
        n(x)
    n(x)
    m2 = Two()
    m2.register_forward_pre_hook(lambda m, a: a[0] * 0 + 1)      # a single value is wrapped
    m2.register_forward_pre_hook(lambda m, a, k: ((a[0] * 2,), {"scale": 3.0}), with_kwargs=True)
    log.append(("replace", fmt(m2(x))))
    m3 = Two()
    m3.register_full_backward_pre_hook(lambda m, go: (go[0] * 0 + 1, None))
    o = m3(x)
    x.grad = None
    (o[0] * 5).sum().backward()
    log.append(("bpre_replace", fmt(x.grad)))

    class Bad(T.nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    b = Bad()
    b.register_forward_hook(lambda m, a, o: log.append(("always", o)), always_call=True)
    b.register_forward_hook(lambda m, a, o: log.append("never"))
    with pytest.raises(ValueError):
        b(1)
    mod = T.nn.modules.module
    handles = [mod.register_module_forward_pre_hook(lambda m, a: log.append("gpre")),
               mod.register_module_forward_hook(lambda m, a, o: log.append("gfwd"))]
    n(x)
    for hd in handles:
        hd.remove()
    n(x)
    m4 = Two()
    m4.register_full_backward_hook(lambda m, gi, go: log.append(("noin", fmt(gi), fmt(go))))
    m4(T.tensor([[1.0, 1.0]]))[0].sum().backward()
    m5 = Two()
    m5.register_backward_hook(lambda m, gi, go: log.append(("legacy", len(gi), fmt(go))))
    m5(x)[0].sum().backward()
    return log


def test_forward_and_backward_hooks_match_torch():
    same(_hook_log)


def test_hook_errors():
    def mixed(T):
        m = T.nn.Module()
        m.register_backward_hook(lambda *a: None)
        m.register_full_backward_hook(lambda *a: None)

    raises_like(lambda: mixed(torch), lambda: mixed(jtorch))

    def bad_pre(T):
        m = T.nn.Identity()
        m.register_forward_pre_hook(lambda m, a, k: 3, with_kwargs=True)
        m(T.ones(1))

    raises_like(lambda: bad_pre(torch), lambda: bad_pre(jtorch))

    def bad_count(T):
        m = T.nn.Identity()
        m.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
        x = T.ones(1, requires_grad=True)
        m(x).sum().backward()

    raises_like(lambda: bad_count(torch), lambda: bad_count(jtorch))


def test_call_without_hooks_is_forward():
    n = net(jtorch)
    x = jtorch.tensor(X)
    assert_close(_np(n(x)), _np(n.forward(x)))
    n.compile()  # in place: calls run compiled, same numbers and state_dict keys
    assert_close(_np(n(x)), _np(n.forward(x)))


# ---------------------------------------------------------------------- conversions
def test_to_keeps_parameter_identity():
    n = net(jtorch)
    params = list(n.parameters())
    n(jtorch.tensor(X)).sum().backward()
    assert n.double() is n
    assert all(a is b for a, b in zip(params, n.parameters()))
    assert n.fc1.weight.dtype == jtorch.float64 and n.fc1.weight.grad.dtype == jtorch.float64
    assert n.count.dtype == jtorch.int64        # integer buffers keep their dtype
    n.to(jtorch.float32)
    assert n.fc1.weight.dtype == jtorch.float32 and n.fc1.weight.grad.dtype == jtorch.float32
    n.half()
    assert n.fc1.weight.dtype == jtorch.float16
    n.bfloat16().float()
    n.to("cpu:1")
    assert n.fc1.weight.device == jtorch.device("cpu:1") and n.count.device.index == 1
    assert n.fc1.weight.grad.device == jtorch.device("cpu:1")
    n.cpu()
    n.to(jtorch.ones(1, dtype=jtorch.float64))
    assert n.fc1.weight.dtype == jtorch.float64
    n.type(jtorch.float32)
    assert n.count.dtype == jtorch.float32      # type() converts every tensor, as PyTorch
    assert all(a is b for a, b in zip(params, n.parameters()))
    # an "optimizer" holding the old Parameter objects still updates the model
    with jtorch.no_grad():
        params[0].fill_(0.5)
    assert float(n.fc1.weight[0, 0]) == 0.5
    same(lambda T: [str(p.dtype) for p in net(T).to(T.float64).state_dict().values()])
    raises_like(lambda: net(torch).to(torch.int32), lambda: net(jtorch).to(jtorch.int32))


def test_deepcopy_module():
    def run(T):
        Affine = classes(T)[0]
        root = T.nn.Module()
        root.a = Affine(W1, B1)
        root.b = root.a
        root.tied = Affine(W1)
        root.tied.weight = root.a.weight
        c = copy.deepcopy(root)
        with T.no_grad():
            c.a.weight.mul_(0)
        return (c.b is c.a, c.tied.weight is c.a.weight, c.a.weight is root.a.weight,
                fmt(root.a.weight)[0], fmt(c.a.weight)[0], type(c.a.weight).__name__,
                list(c.state_dict()))

    same(run)


# ---------------------------------------------------------------------- repr / dir / lookup
def test_repr_matches_torch():
    def run(T):
        Affine, Net = classes(T)

        class Multi(T.nn.Module):
            def extra_repr(self):
                return "a=1\nb=2"

        root = Net()
        root.multi = Multi()
        root.nested = T.nn.Sequential(Multi(), T.nn.Sequential(Affine(W2)))
        root.none = None
        root.ml = T.nn.ModuleList([Affine(W1)] * 3 + [Affine(W2), Affine(W2), Affine(W1)])
        root.md = T.nn.ModuleDict({"x": Affine(W2)})
        root.pl = T.nn.ParameterList([T.nn.Parameter(T.ones(2, 3)),
                                      T.ones(3, dtype=T.float64), "s"])
        root.pd = T.nn.ParameterDict({"b": T.ones(2), "a": T.nn.Parameter(T.zeros(1, 2))})
        return [repr(root), repr(T.nn.Module()), repr(T.nn.ModuleList()), repr(Affine(W1)),
                repr(T.nn.ParameterList())]

    same(run)


def test_dir_and_lookup_errors():
    def run(T):
        n = net(T)
        d = dir(n)
        return [k in d for k in ("fc1", "body", "count", "forward", "training", "state_dict")]

    same(run)
    for fn in (lambda T: net(T).get_submodule("body.7"),
               lambda T: net(T).get_submodule("fc1.weight"),
               lambda T: net(T).get_parameter("body.1.nope"),
               lambda T: net(T).get_parameter("count"),
               lambda T: net(T).get_buffer("fc1.weight"),
               lambda T: net(T).set_submodule("", T.nn.Module()),
               lambda T: net(T).set_submodule("fc1", 3),
               lambda T: net(T).set_submodule("fc1.weight", T.nn.Module()),
               lambda T: net(T).set_submodule("body.9", T.nn.Module(), strict=True),
               lambda T: net(T).fc1.nope):
        raises_like(lambda f=fn: f(torch), lambda f=fn: f(jtorch))

    def ok(T):
        n = net(T)
        n.set_submodule("body.0", T.nn.Module())
        n.set_submodule("fc1.extra", T.nn.Module())
        return (type(n.get_submodule("body.1")).__name__, fmt(n.get_parameter("fc1.bias")),
                fmt(n.get_buffer("count")), n.get_submodule("") is n,
                [k for k, _ in n.named_modules()])

    same(ok)


# ---------------------------------------------------------------------- containers
def test_sequential_operations():
    def run(T):
        Affine = classes(T)[0]
        mods = [Affine(np.full((2, 2), float(i), np.float32)) for i in range(5)]
        s = T.nn.Sequential(*mods[:3])
        out = [len(s), s[-1] is mods[2], type(s[1:]).__name__, [m is n for m, n in
                                                                  zip(s[::2], mods[::2])]]
        od = T.nn.Sequential(OrderedDict([("first", mods[0]), ("second", mods[1])]))
        out.append(list(od._modules))
        out.append(list(od[1:]._modules))
        s.append(mods[3])
        s.insert(0, mods[4])
        s.insert(-1, mods[1])
        out.append([fmt(m.weight[0, 0]) for m in s])
        s.extend([mods[0]])
        popped = s.pop(1)
        del s[0]
        s[0] = mods[2]
        out += [popped is mods[0], list(s._modules), [fmt(m.weight[0, 0]) for m in s]]
        del s[1:3]
        out.append(list(s._modules))
        out.append(len(s + T.nn.Sequential(mods[0])))
        out.append(len(s * 2))
        out.append(len(2 * s))
        s += T.nn.Sequential(mods[1])
        out.append(list(s._modules))
        s *= 2
        out.append(list(s._modules))
        out.append(fmt(T.nn.Sequential(mods[1], mods[2])(T.ones(1, 2))))
        out.append(sorted(k for k in dir(s) if k.isdigit()))
        return out

    same(run)
    for fn in (lambda T: T.nn.Sequential(T.nn.Module())[1],
               lambda T: T.nn.Sequential(T.nn.Module())[-2],
               lambda T: T.nn.Sequential() + [1],
               lambda T: T.nn.Sequential() * 0,
               lambda T: T.nn.Sequential() * 1.5,
               lambda T: T.nn.Sequential().insert(3, T.nn.Module()),
               lambda T: T.nn.Sequential().insert(0, 3),
               lambda T: T.nn.Sequential(3)):
        raises_like(lambda f=fn: f(torch), lambda f=fn: f(jtorch))


def test_module_list_and_dict():
    def run(T):
        Affine = classes(T)[0]
        a, b, c = (Affine(np.full((2, 2), float(i), np.float32)) for i in range(3))
        ml = T.nn.ModuleList([a, b])
        ml.append(c)
        ml.insert(1, c)
        ml.extend([a])
        ml += [b]
        out = [len(ml), [fmt(m.weight[0, 0]) for m in ml], ml[-1] is b,
               type(ml[1:3]).__name__, len(ml[::2])]
        del ml[0]
        ml[0] = a
        p = ml.pop(-1)
        out += [p is b, list(ml._modules), len(ml + [c])]
        del ml[1:3]
        out.append(list(ml._modules))
        md = T.nn.ModuleDict({"b": b, "a": a})
        md["c"] = c
        md.update([("d", a)])
        md.update(T.nn.ModuleDict({"e": b}))
        out += [list(md), list(md.keys()), "a" in md, len(md)]
        out.append(md.pop("a") is a)
        del md["b"]
        out.append([k for k, _ in md.items()])
        md.clear()
        out.append(len(md))
        return out

    same(run)
    for fn in (lambda T: T.nn.ModuleList()[0],
               lambda T: T.nn.ModuleList([T.nn.Module()])[-2],
               lambda T: T.nn.ModuleList(3),
               lambda T: T.nn.ModuleList().extend(3),
               lambda T: T.nn.ModuleDict()["x"],
               lambda T: T.nn.ModuleDict(3),
               lambda T: T.nn.ModuleDict([(1,)]),
               lambda T: T.nn.ModuleDict([3]),
               lambda T: T.nn.ModuleDict({"training": T.nn.Module()})):
        raises_like(lambda f=fn: f(torch), lambda f=fn: f(jtorch))


def test_parameter_list_and_dict():
    def run(T):
        pl = T.nn.ParameterList([T.ones(2), T.nn.Parameter(T.zeros(3))])
        pl.append(T.ones(1))
        pl.extend([T.zeros(2)])
        pl += [T.ones(4)]
        pl.append("text")
        out = [len(pl), [type(p).__name__ for p in pl], type(pl[1:3]).__name__, len(pl[1:3]),
               [n for n, _ in pl.named_parameters()], list(pl.state_dict())]
        pl[0] = T.full((2,), 3.0)
        out.append((type(pl[0]).__name__, fmt(pl[0]), fmt(pl[-2])))
        pd = T.nn.ParameterDict({"b": T.ones(1), "a": T.nn.Parameter(T.zeros(2))})
        pd["c"] = T.ones(3)
        pd.update([("d", T.ones(1))])
        pd.setdefault("e", T.zeros(1))
        out += [list(pd), list(pd.keys()), [k for k, _ in pd.items()], "a" in pd, len(pd),
                list(pd.state_dict()), type(pd["c"]).__name__, pd.get("zz", 5)]
        out.append(fmt(pd.pop("a")))
        out.append(pd.popitem()[0])
        del pd["b"]
        out.append(list(pd))
        out.append(list(reversed(pd)))
        out.append(list(pd.copy()))
        out.append(list(pd | T.nn.ParameterDict({"z": T.ones(1)})))
        out.append(list(pd.fromkeys(["x", "y"], T.ones(1))))
        pd.clear()
        out.append(len(pd))
        return out

    same(run)
    for fn in (lambda T: T.nn.ParameterList()[0],
               lambda T: T.nn.ParameterList().extend(T.ones(2)),
               lambda T: T.nn.ParameterList()(1),
               lambda T: T.nn.ParameterDict()["x"],
               lambda T: T.nn.ParameterDict()[1],
               lambda T: T.nn.ParameterDict(3),
               lambda T: T.nn.ParameterDict()(1)):
        raises_like(lambda f=fn: f(torch), lambda f=fn: f(jtorch))


# ---------------------------------------------------------------------- functional_call
def test_functional_call():
    def run(T):
        warnings.simplefilter("ignore")
        fc = T.nn.utils.stateless.functional_call
        n = net(T)
        x = T.tensor(X)
        w = T.tensor(W1 * 2, requires_grad=True)
        y = fc(n, {"fc1.weight": w}, (x,))
        y.sum().backward()
        out = [fmt(y), fmt(w.grad), n.fc1.weight.grad, fmt(n.fc1.weight)[0],
               type(n.fc1.weight).__name__]
        y2 = fc(n, {"fc1.weight": w}, x, {}, strict=False, tie_weights=False)
        out.append(fmt(y2))
        # tied weights follow the given value
        Affine = classes(T)[0]
        root = T.nn.Module()
        root.a = Affine(W1)
        root.b = Affine(W1)
        root.b.weight = root.a.weight
        root.forward = lambda x: root.b(x)
        out.append(fmt(fc(root, {"a.weight": T.zeros(4, 3)}, (x,))))
        out.append(fmt(fc(root, {"a.weight": T.zeros(4, 3)}, (x,), tie_weights=False)))
        return out

    same(run)

    def strict(T):
        warnings.simplefilter("ignore")
        T.nn.utils.stateless.functional_call(net(T), {"fc1.weight": T.zeros(4, 3), "zz": T.ones(1)},
                                             (T.tensor(X),), strict=True)

    raises_like(lambda: strict(torch), lambda: strict(jtorch))
