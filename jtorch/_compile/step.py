"""Compiling a function that uses jtorch into one ``jax.jit`` program.

A call looks up its guard key (the state's structure, train/eval flags, the inputs' shapes,
dtypes and static values, grad mode) in a small cache. On a miss the function is traced:
every state tensor (see ``state.py``) gets a tracer as its value, the optimizers'
hyperparameters become inputs, the inputs become tracers, and the function runs once; its
outputs and the final value of every state slot are the program's outputs. State buffers are
donated. After each run the new values are written back into the same Python objects, and
host-side calls recorded during the trace (``lr_scheduler.step()``) are replayed.

What a trace cannot do (``.item()``, ``bool()`` of a tensor, data-dependent shapes) makes the
call run eagerly with one warning, or raises ``CompileError`` with ``fullgraph=True``.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import gc
import traceback
import warnings

import jax

from .._core import errors as _compile_errors
from .._core.device import commit_to, committed_device, of_array, placed_on
from .._core.state import STATE, grad_mode, structure_epoch
from .._core.views import assign, swap_array
from .._tensor import Tensor
from ..distributed._spmd import program as spmd_program
from . import first_call, stats
from .context import Rediscover, TraceContext, Unsupported, tracing
from .diff import trace_diff
from .state import PLAIN_OBJECT_DEPTH, State, explicit_roots, roots_of
from .trees import flatten, flatten_output, rebuild, spec, split_outputs

_UNTRACEABLE = (jax.errors.ConcretizationTypeError, jax.errors.TracerBoolConversionError,
                jax.errors.TracerIntegerConversionError, jax.errors.TracerArrayConversionError,
                _compile_errors.TraceError, Unsupported)


@contextlib.contextmanager
def _gc_paused():
    """Python's cyclic garbage collector paused while a step is traced and compiled. A trace
    allocates many objects that live until it ends (jaxpr equations, tracers, kernels), and
    each time enough of them pile up Python scans every object of the process (jax, jtorch
    and the user's modules: 300k objects with torch imported), about 40 ms a scan: 0.15 s
    of the MLP step's 0.24 s trace, 0.13-0.2 s of each first call of bench_suite's steps.
    Nothing is lost: objects are freed by their reference counts as usual, and cycles made
    during the trace are collected by the first collection after it."""
    if not gc.isenabled():   # (the user turned it off: leave it so)
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


class CompileError(RuntimeError):
    """What a compiled function cannot do (raised with ``fullgraph=True``), or state it
    cannot find."""


# how often a trace may start again after meeting state the search did not find
MAX_RETRACES = 8


def _describe(obj):
    if isinstance(obj, Tensor):
        return f"a Tensor of shape {list(obj.shape)} and dtype {obj.dtype}"
    return f"a {type(obj).__module__}.{type(obj).__qualname__} object"


def _name(fn):
    """What messages call ``fn``: a compiled module's class (its bound ``__call__`` is what is
    compiled), or the function that ``torch.jit.script`` holds in a module."""
    owner = getattr(fn, "__self__", None)
    if owner is not None and getattr(fn, "__name__", None) == "__call__":
        return owner.__dict__.get("__name__") or type(owner).__qualname__
    return getattr(fn, "__qualname__", repr(fn))


def _missing_state(fn, met, not_followed):
    name = _name(fn)
    lines = [f"jtorch.compile could not find all the state {name} uses."]
    if met:
        lines.append("While tracing it met state that was not passed or found: "
                     + "; ".join(_describe(o) for o in met[:5])
                     + (f" (and {len(met) - 5} more)" if len(met) > 5 else "") + ".")
    if not_followed:
        lines.append("The search stopped at these objects, deeper than "
                     f"PLAIN_OBJECT_DEPTH={PLAIN_OBJECT_DEPTH} plain objects: "
                     + "; ".join(_describe(o) for o in not_followed[:5]) + ".")
    lines.append("Pass the state explicitly: jtorch.compile(fn, state=[model, optimizer, "
                 "scheduler, <the objects holding the tensors above>]); with state=, only "
                 "those objects (and the arguments and the default generator) are state.")
    return "\n".join(lines)


class _Snapshot:
    """Everything a failed trace could have changed, to put back before running eagerly."""

    def __init__(self, st):
        self.values = [(t, t._array, t._version_counter, t._data_writes) for t in st.tensors]
        self.grads = [(p, p._grad) for p in st.grad_params]
        self.opt = [(o, {p: dict(s) for p, s in o.state.items()},
                     [dict(g) for g in o.param_groups]) for o in st.optimizers]
        self.sched = [(s, dict(s.__dict__)) for s in st.schedulers]
        # attributes a trace may set (a GradScaler's lazily made scale and per-optimizer
        # records, a module's cache), and the dicts and lists they hold
        self.containers = []
        for d in [o.__dict__ for o in st.objects] + \
                [d for m in st.modules for d in (m.__dict__, m._parameters, m._buffers)]:
            self.containers.append((d, d.copy()))
            self.containers += [(v, v.copy()) for v in d.values()
                                if isinstance(v, (dict, list))]

    def restore(self):
        for t, v, vc, dw in self.values:   # views re-derive; autograd's version stays
            t._array, t._version_counter, t._data_writes = v, vc + 2, dw + 2
        for p, g in self.grads:
            p._grad = g
        for o, state, groups in self.opt:
            o.state.clear()
            o.state.update(state)
            for g, saved in zip(o.param_groups, groups):
                g.clear()
                g.update(saved)
        for s, d in self.sched:
            s.__dict__.clear()
            s.__dict__.update(d)
        for c, saved in self.containers:
            if _same_items(c, saved):
                continue   # unchanged (and an FX immutable_dict/immutable_list refuses writes)
            if isinstance(c, dict):
                c.clear()
                c.update(saved)
            else:
                c[:] = saved


def _same_items(c, saved):
    """Whether the dict or list ``c`` still holds ``saved``'s items, by identity."""
    if len(c) != len(saved):
        return False
    if isinstance(c, dict):
        return all(k is j and v is w for (k, v), (j, w) in zip(c.items(), saved.items()))
    return all(a is b for a, b in zip(c, saved))


class _Entry:
    """One compiled program: its slots in, its slots out, and how to rebuild outputs."""

    def __init__(self, st, grads_in, post, jitted, out_tree, out_static, replays, device,
                 out_device, mutated, unwritten):
        self.st, self.grads_in, self.post = st, grads_in, post
        self.mutated = mutated   # the positions of the tensor arguments it writes in place
        self.unwritten = unwritten   # the ids of the state tensors it does not write
        self.jitted, self.out_tree, self.out_static = jitted, out_tree, out_static
        self.replays = replays
        self.device = device   # the program's committed jax.Device, or None (uncommitted)
        self.out_device = out_device   # the jtorch device its output tensors report

    def run(self, leaves):
        st = self.st
        args = ([t._array for t in st.tensors], [p._grad._value for p in self.grads_in],
                st.hyper_arrays(self.device), _input_arrays(leaves))
        try:
            outs, new_state, new_grads, inputs_after = self.jitted(*args)
        except ValueError:   # (free when nothing is raised) JAX's "incompatible devices"
            state = _place_neutral(st.tensors, args[0], self.device)
            if state is args[0]:
                raise
            outs, new_state, new_grads, inputs_after = self.jitted(state, *args[1:])
        _write_back(self.post, new_state, new_grads, self.unwritten)
        _write_inputs(leaves, self.mutated, inputs_after)
        for fn, obj, a, k in self.replays:
            fn(obj, *a, **k)
        return _outputs(self.out_tree, self.out_static, outs, self.out_device)


def _input_arrays(leaves):
    """The program's inputs: the tensor arguments' values, then the ``.grad`` values of those
    that have one (``_grad_leaves``)."""
    return [x._value for x in leaves if isinstance(x, Tensor)] + \
        [x._grad._value for x in _grad_leaves(leaves) if x._grad is not None]


def _place_neutral(tensors, arrays, device):
    """``arrays`` (the state's) with those of device-neutral tensors (generator keys: they
    report cpu and serve every device) that are committed elsewhere moved to the program's
    ``device``: a key another program gave back. ``arrays`` itself when none moves."""
    if device is None:
        return arrays
    moved = [placed_on(a, device) if t._device_neutral else a for t, a in zip(tensors, arrays)]
    return arrays if all(m is a for m, a in zip(moved, arrays)) else moved


def _write_back(post, new_state, new_grads, unwritten):
    """The program's state and gradients after a run into the Python objects; the state it
    did not write (``unwritten``: ids) keeps its autograd version."""
    for t, a in zip(post.tensors, new_state):
        if id(t) in unwritten:
            swap_array(t, a)
        else:
            t._array = a
            t._version_counter += 1
    for p, g in zip(post.grad_params, new_grads):
        _set_grad(p, g)


def _set_grad(t, g):
    """Give ``t`` the ``.grad`` value ``g`` (None clears it). An existing plain ``.grad`` tensor
    keeps its identity, as PyTorch's accumulation into it does in place."""
    if g is None:
        t._grad = None
        return
    gt = t._grad
    if gt is not None and gt._base is None and gt._node is None and not gt._requires_grad:
        gt._array = g
        gt._version_counter += 1
    else:
        t._grad = Tensor._make(g, t._device)


def _grad_leaves(leaves):
    """The tensor arguments a backward in the step gives a ``.grad``: leaves that require grad
    (as in PyTorch; a non-leaf argument is a leaf of the traced step)."""
    return [x for x in leaves if isinstance(x, Tensor) and x._requires_grad and x._node is None]


def _write_inputs(leaves, mutated, inputs_after):
    """The tensor arguments after the step: the values of those it wrote in place (at
    positions ``mutated`` among the tensor arguments), as eager code leaves them, and each
    grad-requiring leaf's ``.grad``, as the program computed it (its ``.grad`` before the call
    was the program's starting value)."""
    grads, values = inputs_after
    if mutated:   # (most steps write no argument: nothing to do per call)
        tensors = [x for x in leaves if isinstance(x, Tensor)]
        with grad_mode(False):   # (a write into a view updates its base; no history recorded)
            for i, a in zip(mutated, values):
                assign(tensors[i], Tensor._make(a, tensors[i]._device))
    for x, g in zip(_grad_leaves(leaves), grads):
        _set_grad(x, g)


def _written_arguments(stand_ins):
    """The positions of the tensor arguments the traced call wrote in place (their stand-in
    holds another array than it was given). A write into one with autograd history cannot be
    carried into that history by the program: such a call runs eagerly."""
    written = [i for i, (_, y, before) in enumerate(stand_ins) if y._array is not before]
    if any(stand_ins[i][0]._node is not None for i in written):
        raise Unsupported("it writes in place into a tensor argument that has autograd "
                          "history; eager PyTorch records that write in the argument's graph")
    return written


def _outputs(tree, static, arrays, device):
    return rebuild(tree, static, [Tensor._make(a, device) for a in arrays])


def _grads_and_values(params):
    """What backward or an optimizer step changes: each ``.grad`` (object and value) and each
    parameter's value."""
    return [(p._grad, None if p._grad is None else p._grad._array, p._array) for p in params]


def _wants_vjp(out, st, before, input_leaves, inputs_before):
    """Whether a traced call returned tensors that require grad (grad mode on) without running
    backward itself (no ``.grad`` and no parameter changed): then autograd must reach through
    its outputs."""
    if not STATE.grad_enabled:
        return False
    if not any(isinstance(o, Tensor) and o._requires_grad for o in flatten_output(out)[0]):
        return False
    pairs = zip(before + inputs_before,
                _grads_and_values(st.grad_params) + _grads_and_values(input_leaves))
    return all(a is b for x, y in pairs for a, b in zip(x, y))


class _NeedsVjp(Exception):
    """Raised by a trace whose outputs require grad and that ran no backward: the function is
    compiled in its vjp form instead (``diff.py``)."""


def _user_frame(tb):
    """The innermost traceback frame outside jtorch and jax (where the user's code was)."""
    best = None
    for fr in traceback.extract_tb(tb):
        f = fr.filename.replace("\\", "/")
        if "/jtorch/" not in f and "/jax/" not in f and "/jaxlib/" not in f:
            best = fr
    return best


class CompiledFunction:
    """What ``jtorch.compile(fn)`` returns: call it as ``fn``."""

    def __init__(self, fn, *, fullgraph=False, dynamic=None, mode=None, backend=None,
                 options=None, disable=False, cache_size=8, state=None):
        functools.update_wrapper(self, fn, updated=())
        self._fn = fn
        self._explicit = None if state is None else list(state)
        self.fullgraph = fullgraph
        self.disable = disable
        self._cache = collections.OrderedDict()
        self._cache_size = cache_size
        self._extra = []
        self._state = None
        self._last_key = None
        self._epoch = None
        self._eager_keys = set()
        self._plans = {}   # guard key -> first_call.Plan of the state such a call creates

    def __get__(self, obj, objtype=None):  # decorating a method
        return self if obj is None else functools.partial(self, obj)

    def _roots(self, args, kwargs):
        if self._explicit is not None:
            return explicit_roots(self._explicit, args, kwargs)
        return roots_of(self._fn, args, kwargs) + self._extra

    def _trace_finding_state(self, args, kwargs, leaves, trace):
        """``trace(state)`` with the state found for this call. State the trace meets that
        was not found is added and the trace starts again (at most ``MAX_RETRACES`` times);
        with explicit ``state=`` it is an error naming the object."""
        inputs = [x for x in leaves if isinstance(x, Tensor)]
        met = []
        for _ in range(MAX_RETRACES + 1):
            st = State.collect(self._roots(args, kwargs), inputs)
            snap = _Snapshot(st)
            try:
                with _gc_paused():
                    return trace(st)
            except Rediscover as r:
                snap.restore()
                if self._explicit is not None:
                    raise CompileError(_missing_state(self._fn, [r.obj], [])) from None
                self._extra.append(r.obj)
                met.append(r.obj)
            except BaseException:
                snap.restore()
                raise
        raise CompileError(_missing_state(self._fn, met, st.not_followed))

    def __call__(self, *args, **kwargs):
        if self.disable or STATE.trace is not None:
            return self._fn(*args, **kwargs)
        leaves, treedef = flatten(args, kwargs)
        st = self._state
        if st is None or self._epoch != structure_epoch():
            st = self._state = State.collect(self._roots(args, kwargs),
                                             [x for x in leaves if isinstance(x, Tensor)])
            self._epoch = structure_epoch()
            self._plans.clear()   # they name the objects of the state they were made for
        key = self._key(st, leaves, treedef)
        entry = self._cache.get(key)
        if entry is not None:
            stats.COUNTERS["hits"] += 1
            return entry.run(leaves)
        if key in self._eager_keys:
            return self._fn(*args, **kwargs)
        return self._compile_and_run(key, args, kwargs, leaves, treedef)

    # ------------------------------------------------------------------ building
    def _compile_and_run(self, key, args, kwargs, leaves, treedef):
        reason = stats.reason(self._last_key, key)
        try:
            if key not in self._plans:
                guess = first_call.guess(self._state)
                if guess is not None and guess.apply():
                    try:
                        return self._run_planned(guess, key, reason, args, kwargs, leaves,
                                                 treedef)
                    except first_call.Misguessed:
                        pass   # (its state is undone): the probe finds the plan
                self._plans[key] = self._probe(args, kwargs, leaves, treedef)
            plan = self._plans[key]
            if plan is not None and not plan.apply():
                plan = self._plans[key] = None
            if plan is not None:
                return self._run_planned(plan, key, reason, args, kwargs, leaves, treedef)
            return self._build(key, reason, args, kwargs, leaves, treedef)
        except _UNTRACEABLE as e:
            return self._fallback(key, e, args, kwargs)

    def _run_planned(self, plan, cold_key, reason, args, kwargs, leaves, treedef):
        """The call with ``plan``'s state made (applied) by the steady-state program, built
        here unless cached. A guessed plan is checked by the trace (``first_call.Misguessed``
        where the step does not bear it out) and kept for ``cold_key`` once it held."""
        inputs = [x for x in leaves if isinstance(x, Tensor)]
        self._state = State.collect(self._roots(args, kwargs), inputs)
        self._epoch = structure_epoch()
        key = self._key(self._state, leaves, treedef)
        entry = self._cache.get(key)
        if entry is not None and not plan.guessed:
            stats.COUNTERS["hits"] += 1
            return entry.run(leaves)
        try:
            if entry is not None:   # a cached program would run a guess nothing checked
                raise first_call.Misguessed
            result = self._build(key, reason, args, kwargs, leaves, treedef,
                                 plan if plan.guessed else None)
        except BaseException as e:
            plan.undo()
            self._state = State.collect(self._roots(args, kwargs), inputs)
            if isinstance(e, _UNTRACEABLE):
                self._eager_keys.add(cold_key)
            raise
        if plan.guessed:
            self._plans[cold_key] = plan
        return result

    def _build(self, key, reason, args, kwargs, leaves, treedef, guessed=None):
        """Trace, compile and run the call; its program is cached under ``key``. With a
        ``guessed`` plan, a trace that does not bear it out raises ``first_call.Misguessed``
        (nothing compiled)."""
        try:
            entry, result = self._trace_finding_state(
                args, kwargs, leaves, lambda st: self._trace(st, leaves, treedef, guessed))
        except _NeedsVjp:
            if guessed is not None:   # no backward ran: no .grad was made by it
                raise first_call.Misguessed from None
            entry, result = self._trace_finding_state(
                args, kwargs, leaves,
                lambda st: trace_diff(self._fn, st, leaves, treedef, tape=True))
        stats.record(self._fn, reason)
        self._cache[key] = entry
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        self._last_key = key
        self._state = State.collect(self._roots(args, kwargs),
                                    [x for x in leaves if isinstance(x, Tensor)])
        self._epoch = structure_epoch()
        return result

    @staticmethod
    def _key(st, leaves, treedef):
        # the active saved_tensors_hooks pair: the trace runs the hooks into the program
        hooks = STATE.saved_hooks[-1] if STATE.saved_hooks else None
        return (st.signature(), spec(leaves), treedef, STATE.grad_enabled, stats.amp_key(),
                tuple(x._grad is None for x in _grad_leaves(leaves)), hooks)

    def _probe(self, args, kwargs, leaves, treedef):
        """The ``first_call.Plan`` of the state this call creates (from ``jax.eval_shape`` of
        the step: traced, not compiled), or None when it creates none."""
        st = State.collect(self._roots(args, kwargs),
                           [x for x in leaves if isinstance(x, Tensor)])
        if first_call.missing_state(st) is None:
            return None

        def probe(st):
            missing = first_call.missing_state(st)
            if missing is None:
                return None
            pure, _, arguments = self._pure(st, leaves, treedef)
            program = spmd_program(pure, st.modules)
            snap = _Snapshot(st)
            try:
                if hasattr(program, "eval_shape"):   # an SPMD program: traced in its shard_map
                    program.eval_shape(*arguments)
                else:
                    jax.eval_shape(pure, *arguments)
                return first_call.plan(missing)
            except _NeedsVjp:
                return None
            finally:
                snap.restore()

        return self._trace_finding_state(args, kwargs, leaves, probe)

    def _trace(self, st, leaves, treedef, guessed=None):
        pure, rec, arguments = self._pure(st, leaves, treedef, guessed)
        # one SPMD program per process when a DDP/FSDP module in the state names its group
        jitted = spmd_program(pure, st.modules, donate_argnums=(0, 1))
        # the state and gradients written back are the next call's arguments, and the
        # hyperparameters are arrays on the program's device at every call
        state, grads, _, inputs = arguments
        device = committed_device([a for t, a in zip(st.tensors, state)
                                   if not t._device_neutral], grads, inputs)
        state = _place_neutral(st.tensors, state, device)
        state, grads = commit_to(device, state, grads)
        arguments = state, grads, st.hyper_arrays(device), inputs
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Some donated buffers were not usable")
            outs, new_state, new_grads, inputs_after = jitted(*arguments)
        _write_back(rec["post"], new_state, new_grads, rec["unwritten"])
        _write_inputs(leaves, rec["mutated"], inputs_after)
        # (every output of a program is on its device: read once, from the first)
        out_device = of_array(outs[0]) if outs else None
        entry = _Entry(st, rec["grads_in"], rec["post"], jitted, rec["out_tree"],
                       rec["static"], rec["replays"], device, out_device, rec["mutated"],
                       rec["unwritten"])
        return entry, _outputs(rec["out_tree"], rec["static"], outs, out_device)

    def _pure(self, st, leaves, treedef, guessed=None):
        """``(pure, rec, arguments)``: the call as a pure function of the state's arrays, the
        record its trace fills (the outputs' structure, the state after, host calls to
        replay), and its arguments for this call. With a ``guessed`` first-call plan, the
        trace raises ``first_call.Misguessed`` where the call did not write all its state."""
        grads_in = [p for p in st.grad_params if p._grad is not None]
        grad_xs = _grad_leaves(leaves)
        rec = {"grads_in": grads_in}
        fn = self._fn
        roots = self._roots

        def pure(state_arrs, grad_arrs, hyper_arrs, in_arrs):
            hypers, j = {}, 0
            for opt in st.optimizers:
                for gi in range(len(opt.param_groups)):
                    hypers[(id(opt), gi)] = tuple(hyper_arrs[j])
                    j += 1
            with tracing(TraceContext(st.tensors, hypers)) as ctx:
                for t, a in zip(st.tensors, state_arrs):
                    swap_array(t, a)
                for p in st.grad_params:
                    p._grad = None
                for p, g in zip(grads_in, grad_arrs):
                    p._grad = Tensor._make(g, p._device)
                it = iter(in_arrs)
                new_leaves = []
                for x in leaves:
                    if isinstance(x, Tensor):
                        y = Tensor._make(next(it), x._device)
                        if x._requires_grad:
                            y._requires_grad = True
                        new_leaves.append(y)
                    else:
                        new_leaves.append(x)
                # the traced stand-ins of the grad-requiring leaf arguments (paired by
                # position: a non-leaf argument's stand-in is a leaf too, and is not one)
                grad_ys = [y for x, y in zip(leaves, new_leaves)
                           if any(x is g for g in grad_xs)]
                for x, y in zip(grad_xs, grad_ys):
                    if x._grad is not None:   # (the call's existing .grad: backward adds to it)
                        y._grad = Tensor._make(next(it), x._device)
                a2, k2 = jax.tree_util.tree_unflatten(treedef, new_leaves)
                before = _grads_and_values(st.grad_params)
                inputs_before = _grads_and_values(grad_ys)
                stand_ins = [(x, y, y._array) for x, y in zip(leaves, new_leaves)
                             if isinstance(x, Tensor)]
                out = fn(*a2, **k2)
                rec["mutated"] = _written_arguments(stand_ins)
                rec["unwritten"] = {id(t) for t, a in zip(st.tensors, state_arrs)
                                    if t._array is a}
                if any(isinstance(x, Tensor) and x._node is not None and y._grad is not None
                       for x, y in zip(leaves, new_leaves)):
                    raise Unsupported("a backward inside it reached a tensor argument that is "
                                      "not a leaf; eager PyTorch carries its gradient on into "
                                      "the graph that made it")
                if _wants_vjp(out, st, before, grad_ys, inputs_before):
                    raise _NeedsVjp
                if guessed is not None and not guessed.took_effect(
                        {id(t): a for t, a in zip(st.tensors, state_arrs)},
                        {id(p): g for p, g in zip(grads_in, grad_arrs)}):
                    raise first_call.Misguessed
                # everything lifted stays lifted (and is written back), plus new state
                post = State.collect(list(st.tensors) + roots(a2, k2),
                                     [x for x in new_leaves if isinstance(x, Tensor)])
                outs, rec["out_tree"], rec["static"] = split_outputs(out)
                rec.update(post=post, replays=list(ctx.replays))
                return (outs, [t._value for t in post.tensors],
                        [None if p._grad is None else p._grad._value
                         for p in post.grad_params],
                        ([None if y._grad is None else y._grad._value for y in grad_ys],
                         [stand_ins[i][1]._value for i in rec["mutated"]]))

        arguments = ([t._array for t in st.tensors], [p._grad._value for p in grads_in],
                     st.hyper_values(), _input_arrays(leaves))
        return pure, rec, arguments

    # ------------------------------------------------------------------ fallback
    def _fallback(self, key, err, args, kwargs):
        name = _name(self._fn)
        fr = _user_frame(err.__traceback__)
        where = f'File "{fr.filename}", line {fr.lineno}, in {fr.name}: {fr.line}' if fr \
            else "(location unknown)"
        what = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        msg = (f"jtorch.compile could not trace {name}: {what}\n  at {where}\n"
               "A compiled function runs as one XLA program, so it cannot read tensor values "
               "on the host (.item(), bool(), if/while on a tensor, print of values), nor make "
               "shapes that depend on values (boolean-mask indexing, nonzero, unique). Move "
               "such code outside the compiled function, or express it with tensor ops "
               "(torch.where, masks multiplied in, fixed-size outputs).")
        stats.COUNTERS["fallbacks"] += 1
        if self.fullgraph:
            raise CompileError(msg) from err
        warnings.warn(msg + " Running it eagerly instead (results stay correct).",
                      stacklevel=3)
        self._eager_keys.add(key)
        return self._fn(*args, **kwargs)
