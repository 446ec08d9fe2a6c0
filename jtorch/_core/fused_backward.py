"""A recorded graph's whole backward as one XLA program, cached by the graph's structure.

Eager mode records a new graph every step, but a training loop records the same one: the same
kernels, wired the same way. Run node by node, each backward node is one jitted call and one
Python round trip. This module describes a graph by its *structure* (each node's kernel,
differentiated slots and edges, as positions in the walk's order, and where the seeds enter),
counts how often each structure is seen, and from the ``FUSE_AT``-th sighting on runs the
backward as one jitted function of the seeds and the nodes' saved values. jax.jit's own cache
handles shapes and dtypes; the structure decides the program's code.

The program compiles on a helper thread (``BACKGROUND``), from the arguments of the sighting
that asked for it: the loop goes on node by node meanwhile instead of stalling for the compile
(about as long as the first eager step's), and takes the fused path from the ``SWITCH_AFTER``-th
sighting after that on, waiting there for the compile if it has not finished. The step where
the switch happens is fixed, not whenever the thread is done, so a seeded run computes the
same bits every time: the fused program and node by node can differ in the last bit of a
reduction (below).

Only plain graphs take this path: every node a kernel node (no autograd.Function or device
copy), no tensor or node hooks (a leaf's post-accumulate hooks are fine: accumulation runs
in Python afterwards), no node recorded under ``saved_tensors_hooks`` (its unpack hooks run
one node at a time, as the backward reaches it, so ``save_on_cpu`` brings back one node's
values at a time), no retain_grad, no create_graph, no anomaly mode and no jtorch.compile
trace (which already compiles the backward as part of its step). Everything else
(and a structure seen fewer than ``FUSE_AT`` times, so one-off graphs compile nothing new) runs
node by node in graph.run_backward. Each node's gradient formula is the same function either
way (``Kernel.make_vjp``), and optimization barriers keep XLA from fusing across nodes, so
fusing changes how many XLA calls run and mostly not what they compute. Not always bit for bit:
where a broadcast operand's gradient is summed over the broadcast dimensions and the same leaf
gets a second gradient (``(b.exp() * c).sum() + (b * c).sum()`` with ``b`` broadcast over the
rows of ``c``), the fused program's sum can differ from the node's own call in the last bit
(4.8e-7 there, on the 2-core CPU; neither equals PyTorch's summation order exactly).
"""

from __future__ import annotations

import os
import threading

import jax
import jax.numpy as jnp

from . import xla_options

# sightings of a structure before it runs fused (1: always; 0: never); the environment variable
# JTORCH_FUSE_BACKWARD_AT sets it (read once, at import)
FUSE_AT = int(os.environ.get("JTORCH_FUSE_BACKWARD_AT", "3"))
_MAX_STRUCTURES = 4096
# compiled shape variants of one structure's program before the structure goes back to running
# node by node: a loop whose shapes change every step (variable sequence lengths) would compile
# a whole backward per shape, where node by node it compiles only the kernels of new shapes
MAX_SHAPE_VARIANTS = 4
BACKGROUND = True   # compile programs on a helper thread (False: at the sighting, blocking)
# with BACKGROUND, the sightings after the compile started that still run node by node, however
# soon the program is ready (the one at SWITCH_AFTER waits for it): loops shorter than this
# never wait, and which steps run fused does not depend on the helper thread's speed
SWITCH_AFTER = 32

_SEEN: dict[tuple, int] = {}
_PROGRAMS: dict[tuple, FusedBackward] = {}
_REFUSED: set = set()   # structures run node by node from now on (program failed, or too
#                         many shape variants)
_COMPILING: list[threading.Thread] = []
_SKIP = "skip"   # a node the walk does not run (backward(inputs=...), autograd.grad)


def _barrier(values):
    """``values`` (a tuple of arrays and Nones) through one optimization barrier."""
    present = [v for v in values if v is not None]
    if not present:
        return values
    it = iter(jax.lax.optimization_barrier(present))
    return tuple(None if v is None else next(it) for v in values)


def _outputs(part):
    """How many outputs the node of a structure part has."""
    if part is None:
        return 1
    return part[1] if part[0] is _SKIP else len(part[2])


class FusedBackward:
    """The program of one structure: which nodes run (``runs``, positions in the walk's order),
    which leaves receive gradients (``sinks``), and ``fn(seed values, saved values) -> (one
    gradient per sink, one per captured input)``: seed values are the non-None seeds of each
    seeded node, in the structure's order; saved values one ``node.vals`` per node in
    ``runs``."""

    __slots__ = ("runs", "sinks", "fn", "ready", "started", "traces", "thread", "sightings")

    def __init__(self, nodes, seeds, captures):
        n = len(nodes)
        reached = [False] * n
        for i, _ in seeds:
            reached[i] = True
        for i, part in enumerate(nodes):
            if reached[i] and part is not None and part[0] is not _SKIP:
                for target in part[3]:
                    if target is not None:
                        reached[target[0]] = True
        self.runs = tuple(i for i in range(n) if reached[i] and nodes[i] is not None
                          and nodes[i][0] is not _SKIP)
        self.sinks = tuple(i for i in range(n) if reached[i] and nodes[i] is None)
        vjps = {i: nodes[i][0].make_vjp(nodes[i][1]) for i in self.runs}
        runs, sinks = self.runs, self.sinks

        def backward(seed_values, vals):
            self.traces += 1   # runs while jax.jit traces: once per shape variant it compiles
            bufs = [None] * n
            for (i, mask), vs in zip(seeds, seed_values):
                it = iter(vs)
                bufs[i] = [next(it) if m else None for m in mask]
            for i, node_vals in zip(runs, vals):
                _, diff, out_float, targets = nodes[i]
                # barriers around each node: XLA may not fuse across nodes (contracting one
                # node's multiply and the next one's add into an FMA changes the last bit on
                # some CPUs), so each node computes what its own jitted call computes
                cts = _barrier(tuple(c for c, f in zip(bufs[i], out_float) if f))
                for target, g in zip(targets, _barrier(tuple(vjps[i](node_vals, cts)))):
                    if target is None:
                        continue
                    j, idx = target
                    if bufs[j] is None:
                        bufs[j] = [None] * _outputs(nodes[j])
                    cur = bufs[j][idx]
                    bufs[j][idx] = g if cur is None else jnp.add(cur, g)
            captured = [None if c is None or bufs[c[0]] is None else bufs[c[0]][c[1]]
                        for c in captures]
            return [bufs[i][0] for i in sinks], captured

        self.traces = 0
        self.fn = xla_options.jit(backward, eager=True)
        self.ready = False     # compiled: jax.jit's cache holds the program
        self.started = False   # its compile has been started
        self.thread = None     # the helper thread compiling it (BACKGROUND)
        self.sightings = 0     # sightings since its compile started on the helper thread

    def due(self):
        """Count one sighting after the compile started on the helper thread: whether this one
        runs fused (from the ``SWITCH_AFTER``-th on, waiting for the compile if need be). A
        program compiled at its sighting (BACKGROUND off) runs fused at once."""
        if self.thread is None:
            return self.ready
        self.sightings += 1
        if self.sightings < SWITCH_AFTER:
            return False
        if not self.ready:
            self.thread.join()
        return self.ready

    def prepare(self, key, seed_values, vals):
        """Compile the program from one call's arguments (on a helper thread when BACKGROUND):
        the call is run once and its result dropped, which leaves the program in jax.jit's
        cache. A failure refuses the structure (the node-by-node path raises real errors)."""
        if self.started:
            return
        self.started = True
        if not BACKGROUND:
            self._compile(key, seed_values, vals)
            return
        thread = threading.Thread(target=self._compile, args=(key, seed_values, vals),
                                  name="jtorch-fused-backward")
        _COMPILING[:] = [t for t in _COMPILING if t.is_alive()]
        _COMPILING.append(thread)
        self.thread = thread
        thread.start()

    def _compile(self, key, seed_values, vals):
        try:
            self.fn(seed_values, vals)
            self.ready = True
        except Exception:  # noqa: BLE001 - node by node computes the same, or raises the error
            refuse(key)


def structure(order, buffers, sink_type, run=None, targets=None, n_inputs=0):
    """The structure key of a graph about to run backward, or None when it cannot run fused.

    ``order``: the walk's nodes (each after every node feeding it a gradient); ``buffers``:
    the seeded gradients, {node: [gradient or None per output]}; ``sink_type``: AccumulateGrad.
    With ``inputs=`` (backward) or autograd.grad: ``run``, the nodes the walk runs, and
    ``targets``, {(node, output index): [input positions]} whose arriving gradients it
    captures (``n_inputs`` of them).
    """
    index = {node: i for i, node in enumerate(order)}
    nodes = []
    for node in order:
        if type(node) is sink_type:
            if node.variable._hooks or node._hooks or node._node_pre_hooks:
                return None
            nodes.append(None if run is None or node in run else (_SKIP, 1))
            continue
        kernel = node.kernel
        if (kernel is None or node._pre_hooks or node._hooks or node._node_pre_hooks
                or node.packed is not None):
            return None
        if run is not None and node not in run:
            nodes.append((_SKIP, len(node.out_float)))
            continue
        edges = node.edges
        targets_of = []
        for slot in node.diff:
            e = edges[slot]
            targets_of.append(None if e is None else (index[e[0]], e[1]))
        nodes.append((kernel, node.diff, node.out_float, tuple(targets_of)))
    seeds = tuple((index[node], tuple(g is not None for g in buf))
                  for node, buf in buffers.items())
    captures = [None] * n_inputs
    for (node, idx), positions in (targets or {}).items():
        i = index.get(node)
        for j in positions:
            captures[j] = None if i is None else (i, idx)
    return tuple(nodes), seeds, tuple(captures)


def program(key):
    """The FusedBackward of a structure, counting this sighting; None while it has been seen
    fewer than FUSE_AT times (or its program could not be built)."""
    seen = _SEEN.get(key, 0) + 1
    if seen < FUSE_AT or key in _REFUSED:
        if len(_SEEN) >= _MAX_STRUCTURES:
            _SEEN.clear()
        _SEEN[key] = seen
        return None
    prog = _PROGRAMS.get(key)
    if prog is None:
        if len(_PROGRAMS) >= _MAX_STRUCTURES:
            _PROGRAMS.clear()
        prog = _PROGRAMS[key] = FusedBackward(*key)
    return prog


def wait():
    """Wait for the programs being compiled (tests and benchmarks)."""
    while _COMPILING:
        _COMPILING.pop().join()


def forget_programs():
    """Drop every structure's program (after waiting for those being compiled), before JAX's
    caches are cleared (program_budget): a structure seen again builds a new one, its shape
    variants counted from zero."""
    wait()
    _PROGRAMS.clear()


def settle(key, prog):
    """After a run: a structure whose program has compiled too many shape variants runs node
    by node from now on."""
    if prog.traces > MAX_SHAPE_VARIANTS:
        refuse(key)


def refuse(key):
    """A structure whose fused program failed or compiled too many shape variants: it runs
    node by node from now on."""
    _PROGRAMS.pop(key, None)
    _REFUSED.add(key)
