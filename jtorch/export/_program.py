"""``torch.export.ExportedProgram`` backed by a ``jax.export.Exported`` (StableHLO), and the
module that ``ExportedProgram.module()`` returns."""

from __future__ import annotations

import jax.numpy as jnp
from jax import export as jax_export

from .._core.errors import not_implemented
from .._ops.creation import as_tensor
from ..nn.modules.module import Module
from ..nn.parameter import Parameter
from ..utils import _pytree as pt
from ._trace import InputSpec


class ExportGraphSignature:
    """Which inputs of the program are parameters, buffers and user inputs, and its outputs
    (the lists PyTorch's ``ExportGraphSignature`` gives).

    Differences from PyTorch: outputs are named ``output_<i>`` (PyTorch names them after FX
    nodes); there is no ``input_specs``/``output_specs`` (no FX graph behind the program).
    """

    def __init__(self, parameters, buffers, non_persistent_buffers, user_inputs, n_outputs):
        self.parameters = tuple(parameters)
        self.buffers = tuple(buffers)
        self.non_persistent_buffers = tuple(non_persistent_buffers)
        self.user_inputs = tuple(user_inputs)
        self.user_outputs = tuple(f"output_{i}" for i in range(n_outputs))
        self.inputs_to_parameters = {"p_" + n.replace(".", "_"): n for n in self.parameters}
        self.inputs_to_buffers = {"b_" + n.replace(".", "_"): n for n in self.buffers}

    def __str__(self):
        lines = ["# inputs"]
        lines += [f"{k}: PARAMETER target='{v}'" for k, v in self.inputs_to_parameters.items()]
        lines += [f"{k}: BUFFER target='{v}' persistent="
                  f"{v not in self.non_persistent_buffers}"
                  for k, v in self.inputs_to_buffers.items()]
        lines += [f"{n}: USER_INPUT" for n in self.user_inputs]
        lines += ["", "# outputs"] + [f"{n}: USER_OUTPUT" for n in self.user_outputs]
        return "\n".join(lines)


class ExportedProgram:
    """What :func:`torch.export.export` returns: the module's forward as one StableHLO program
    (``jax.export.Exported``) with its parameters and buffers lifted into inputs.

    Attributes:
        state_dict (dict): the parameters and persistent buffers at export time.
        constants (dict): the non-persistent buffers.
        graph_signature (ExportGraphSignature): parameter/buffer/user input names.
        example_inputs (tuple): ``(args, kwargs)`` given to ``export``.
        range_constraints (dict): symbolic dimension name -> ``(min, max)``.
        jax_exported (jax.export.Exported): the JAX object (a jtorch extension).

    The StableHLO text (a jtorch extension; PyTorch has no equivalent) is
    ``ep.stablehlo()``; ``ep.jax_exported`` is the ``jax.export.Exported`` for use from JAX.

    Differences from PyTorch: there is no FX graph (``graph``, ``graph_module`` raise
    NotImplementedError); the program is already in StableHLO's core ops, so
    ``run_decompositions()`` returns an equivalent program unchanged; ``module()`` runs the
    program without autograd (its outputs do not require grad).
    """

    def __init__(self, exported, state, names, persistent, spec, out_tree, user_inputs,
                 example_inputs, bounds, labels):
        self._exported = exported
        self._state_names = list(names)
        self._persistent = set(persistent)
        self._spec = spec
        self._out_tree = out_tree
        self._labels = labels   # per Tensor input: its name in guard messages
        tensors = dict(zip(names, state))
        self._param_names = [n for n in names if isinstance(tensors[n], Parameter)]
        self.state_dict = {n: t for n, t in tensors.items() if n in self._persistent}
        self.constants = {n: t for n, t in tensors.items()
                          if n not in self._persistent and n not in self._param_names}
        buffers = [n for n in names if n not in self._param_names]
        self.graph_signature = ExportGraphSignature(
            self._param_names, buffers, [n for n in buffers if n not in self._persistent],
            user_inputs, out_tree.num_leaves)
        self.example_inputs = example_inputs
        self.range_constraints = dict(bounds)
        self._source = None   # (module, dynamic_shapes) when exported in this process

    # ------------------------------------------------------------------ jtorch extensions
    @property
    def jax_exported(self):
        return self._exported

    def stablehlo(self):
        """The program as StableHLO (MLIR text); a jtorch extension."""
        return self._exported.mlir_module()

    # ------------------------------------------------------------------ PyTorch's API
    def module(self):
        """An ``nn.Module`` with this program's parameters and buffers (same names) whose
        forward runs the program; inputs are checked against the exported shapes."""
        return _ExportedModule(self)

    def run_decompositions(self, decomp_table=None, decompose_custom_triton_ops=False):
        """An equivalent program (StableHLO is already made of core ops)."""
        return self

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Unable to call ExportedProgram directly. "
                           "You should use `exported_program.module()` instead.")

    @property
    def graph(self):
        raise not_implemented("torch.export.ExportedProgram.graph",
                              "ExportedProgram.stablehlo() (the StableHLO text)")

    @property
    def graph_module(self):
        raise not_implemented("torch.export.ExportedProgram.graph_module",
                              "ExportedProgram.module()")

    def __str__(self):
        return f"ExportedProgram:\n{self.stablehlo()}\nGraph signature:\n{self.graph_signature}"

    # ------------------------------------------------------------------ running
    def _check(self, tensors):
        """PyTorch's guards: each input's rank and static sizes; symbolic sizes in range and
        equal where they share a name."""
        seen = {}
        for t, aval, label in zip(tensors, self._exported.in_avals[len(self._state_names):],
                                  self._labels):
            if t.dim() != len(aval.shape):
                raise RuntimeError(f"Unexpected number of dimensions in input at {label}.shape "
                                   f"(expected {list(aval.shape)}, got {list(t.shape)})")
            for i, (n, d) in enumerate(zip(t.shape, aval.shape)):
                if not jax_export.is_symbolic_dim(d):
                    if n != d:
                        raise AssertionError(f"Guard failed: {label}.size()[{i}] == {d}")
                    continue
                name = str(d)
                lo, hi = self.range_constraints.get(name, (0, None))
                if n < max(lo, 1):
                    raise AssertionError(f"Guard failed: {label}.size()[{i}] >= {max(lo, 1)}")
                if hi is not None and n > hi:
                    raise AssertionError(f"Guard failed: {label}.size()[{i}] <= {hi}")
                if seen.setdefault(name, n) != n:
                    raise RuntimeError(f"Expected input at {label}.shape[{i}] to be equal to "
                                       f"{seen[name]}, but got {n}")

    def _run(self, state, args, kwargs):
        tensors = self._spec.tensors(args, kwargs)
        self._check(tensors)
        outs = self._exported.call([jnp.asarray(s) for s in state],
                                   [jnp.asarray(t) for t in tensors])
        return pt.tree_unflatten([as_tensor(o) for o in outs], self._out_tree)


class _ExportedModule(Module):
    """``ExportedProgram.module()``: the program's state as this module's parameters and
    buffers (under the original names), its forward the program."""

    def __init__(self, ep):
        super().__init__()
        object.__setattr__(self, "_program", ep)
        tensors = {**ep.state_dict, **ep.constants}
        for name in ep._state_names:
            owner, _, leaf = name.rpartition(".")
            mod = self
            for part in filter(None, owner.split(".")):
                if part not in mod._modules:
                    mod.add_module(part, Module())
                mod = mod._modules[part]
            t = tensors[name]
            if name in ep._param_names:
                mod.register_parameter(leaf, Parameter(t.detach().clone(), t.requires_grad))
            else:
                mod.register_buffer(leaf, t.detach().clone(), persistent=name in ep._persistent)

    def forward(self, *args, **kwargs):
        own = dict(self.named_parameters(remove_duplicate=False))
        own.update(self.named_buffers(remove_duplicate=False))
        return self._program._run([own[n] for n in self._program._state_names], args, kwargs)


def input_labels(mod_forward_names, spec: InputSpec):
    """Guard-message names of the Tensor inputs: the forward's argument name (of positional
    inputs; keyword inputs by their keyword), with ``[i]`` for a leaf inside a container."""
    n_args = spec.tree.children()[0].num_children
    mod_forward_names = list(mod_forward_names[:n_args]) + list(spec.tree.children()[1].context
                                                                or ())
    labels = []
    leaves_per_top = [c.num_leaves for c in spec.tree.children()[0].children()] + \
        [c.num_leaves for c in spec.tree.children()[1].children()]
    k = 0
    for name, n in zip(mod_forward_names, leaves_per_top):
        for j in range(n):
            if spec.constants[k] is None:
                labels.append(name if n == 1 else f"{name}[{j}]")
            k += 1
    return labels
