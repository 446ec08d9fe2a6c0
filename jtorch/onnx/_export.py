"""``torch.onnx.export``: a module traced once by JAX, its jaxpr written as an ONNX model with
``onnx.helper`` (``_jaxpr.py``), run back with onnxruntime by ``ONNXProgram.__call__``."""

from __future__ import annotations

import enum
import os

import jax
import numpy as np
from jax import export as jax_export

from .._core.errors import not_implemented
from .._ops.creation import as_tensor
from .._tensor import Tensor
from ..export._dims import Dim, arg_names, input_avals
from ..export._export import check_call, lifted_state
from ..export._program import ExportedProgram, input_labels
from ..export._trace import InputSpec, pure_function
from ..serialization import atomic_file
from ..utils import _pytree as pt
from ._jaxpr import OPSET, GraphBuilder

_INSTALL = "torch.onnx.export needs the onnx package: pip install jtorch[onnx]"


def _import_onnx():
    try:
        import onnx  # optional heavy dependency: only torch.onnx needs it
    except ModuleNotFoundError as e:
        raise ModuleNotFoundError(_INSTALL, name=e.name) from e
    return onnx


class TrainingMode(enum.IntEnum):
    """``torch.onnx.TrainingMode``: the mode a model is exported in (jtorch exports the
    module in the mode it is in; only EVAL is accepted as ``training=``)."""

    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


_EXPORTING = [False]


def is_in_onnx_export():
    """Whether a :func:`torch.onnx.export` is tracing the model now."""
    return _EXPORTING[0]


class ONNXProgram:
    """What :func:`torch.onnx.export` returns: the ONNX model, savable and runnable.

    Attributes:
        model_proto (onnx.ModelProto): the model.

    Differences from PyTorch: ``exported_program`` is None (the model is made from a JAX
    trace, not from an FX graph); ``save`` writes one file (initializers inside the model).
    """

    def __init__(self, model_proto):
        self.model_proto = model_proto
        self.exported_program = None
        self._session = None

    def save(self, destination, *, include_initializers=True, keep_initializers_as_inputs=False,
             external_data=None):
        """Write the model to ``destination`` (a path or binary file object); a failing
        write leaves no partial file at the path."""
        if not include_initializers or keep_initializers_as_inputs or external_data:
            raise not_implemented("torch.onnx.ONNXProgram.save(include_initializers=False, "
                                  "keep_initializers_as_inputs=True or external_data=True)")
        _write(self.model_proto.SerializeToString(), destination)

    def __call__(self, *args, **kwargs):
        """Run the model with onnxruntime on Tensors; returns a list of Tensors."""
        try:
            import onnxruntime  # optional heavy dependency: only running the model needs it
        except ModuleNotFoundError as e:
            raise ModuleNotFoundError("running an ONNXProgram needs onnxruntime: "
                                      "pip install jtorch[onnx]", name=e.name) from e
        if self._session is None:
            self._session = onnxruntime.InferenceSession(
                self.model_proto.SerializeToString(), providers=["CPUExecutionProvider"])
        names = [i.name for i in self._session.get_inputs()]
        tensors = [x for x in pt.tree_flatten((args, kwargs))[0] if isinstance(x, Tensor)]
        feeds = {n: np.asarray(t.detach().cpu().numpy()) for n, t in zip(names, tensors)}
        return [as_tensor(np.asarray(o)) for o in self._session.run(None, feeds)]


def _write(data, f):
    if isinstance(f, (str, os.PathLike)):
        with atomic_file(os.fspath(f)) as out:
            out.write(data)
    else:
        f.write(data)


def _dynamic_axes_to_shapes(dynamic_axes, names, n_inputs):
    """PyTorch's ``dynamic_axes`` (per input name: ``{axis: name}`` or ``[axis, ...]``) as a
    ``dynamic_shapes`` tuple over the inputs (names of outputs are ignored: their dimensions
    follow from the program)."""
    if len(names) != n_inputs:
        raise not_implemented("torch.onnx.export(dynamic_axes=...) with inputs nested in "
                              "containers", "dynamic_shapes")
    out = []
    for i, name in enumerate(names):
        axes = dynamic_axes.get(name)
        if axes is None:
            out.append(None)
            continue
        if not isinstance(axes, dict):
            axes = {ax: f"{name}_dynamic_axes_{k + 1}" for k, ax in enumerate(axes)}
        out.append({int(ax): Dim(str(d) if str(d).isidentifier() else f"d{i}_{ax}")
                    for ax, d in axes.items()})
    return tuple(out)


def _check_unsupported(opts):
    for key, (value, default) in opts.items():
        if value != default and not (default is None and value is None):
            raise not_implemented(f"torch.onnx.export({key}={value!r})")


def export(model, args=(), f=None, *, kwargs=None, verbose=None, input_names=None,
           output_names=None, opset_version=None, dynamo=True, external_data=True,
           dynamic_shapes=None, custom_translation_table=None, report=False, optimize=True,
           verify=False, profile=False, dump_exported_program=False, artifacts_dir=".",
           fallback=False, export_params=True, keep_initializers_as_inputs=False,
           dynamic_axes=None, training=None, operator_export_type=None,
           do_constant_folding=True, custom_opsets=None, export_modules_as_functions=False,
           autograd_inlining=True):
    """Export ``model`` to ONNX (opset 18 or the ``opset_version`` asked for, >= 18).

    The module's forward is traced once by JAX with the example inputs (as for
    :func:`torch.export.export`); the trace is written node by node with ``onnx.helper``; the
    parameters and buffers are the model's initializers.

    Args:
        model (nn.Module or ExportedProgram): the model (in its current train/eval mode); an
            ExportedProgram made in this process exports its module with its example inputs
            and dynamic shapes.
        args (tuple or Tensor): example positional inputs.
        f (str, os.PathLike or file object, optional): where to write the model; nothing is
            left at a path when the export fails.
        kwargs (dict, optional): example keyword inputs.
        input_names (list of str, optional): graph input names (default: the forward's
            argument names).
        output_names (list of str, optional): graph output names (default ``output_<i>``).
        opset_version (int, optional): ONNX opset, at least 18 (default 18).
        dynamo (bool): both values export the same way; with False, None is returned.
        dynamic_shapes: as in :func:`torch.export.export` (``Dim`` per dimension).
        dynamic_axes (dict, optional): per input name, ``{axis: name}`` or ``[axis, ...]``.
        optimize, do_constant_folding, external_data, verbose, autograd_inlining,
        operator_export_type, artifacts_dir, fallback: accepted, no effect.

    Returns:
        ONNXProgram (``None`` when ``dynamo=False``, as PyTorch).

    Example::

        >>> torch.onnx.export(model, (x,), "model.onnx", input_names=["x"],
        ...                   dynamic_axes={"x": {0: "batch"}})

    Differences from PyTorch: ``report``, ``verify``, ``profile``, ``dump_exported_program``,
    ``custom_translation_table``, ``custom_opsets``, ``export_modules_as_functions``,
    ``export_params=False``, ``keep_initializers_as_inputs=True`` and ``training`` other than
    EVAL raise NotImplementedError; a JAX primitive with no ONNX rule raises
    NotImplementedError naming it (MLPs and CNNs: linear, conv, pooling, normalisation,
    activations, softmax are covered).
    """
    onnx = _import_onnx()
    if training not in (None, TrainingMode.EVAL):
        raise not_implemented(f"torch.onnx.export(training={training!r})")
    _check_unsupported({
        "report": (report, False), "verify": (verify, False), "profile": (profile, False),
        "dump_exported_program": (dump_exported_program, False),
        "custom_translation_table": (custom_translation_table, None),
        "custom_opsets": (custom_opsets or None, None),
        "export_modules_as_functions": (bool(export_modules_as_functions), False),
        "export_params": (export_params, True),
        "keep_initializers_as_inputs": (keep_initializers_as_inputs, False)})
    opset = OPSET if opset_version is None else int(opset_version)
    if opset < OPSET:
        raise not_implemented(f"torch.onnx.export(opset_version={opset}) (below {OPSET})")
    if isinstance(model, ExportedProgram):
        if model._source is None:
            raise not_implemented("torch.onnx.export of an ExportedProgram read by "
                                  "torch.export.load", "the module it was exported from")
        (args, kwargs), (model, exported_shapes) = model.example_inputs, model._source
        if dynamic_shapes is None and dynamic_axes is None:
            dynamic_shapes = exported_shapes
    if not isinstance(args, tuple):
        args = (args,)
    kwargs = check_call(model, args, kwargs)
    spec = InputSpec(args, kwargs)
    labels = input_labels(arg_names(model, args, kwargs), spec)
    in_names = list(input_names or []) + labels[len(input_names or []):]
    if dynamic_axes is not None:
        if dynamic_shapes is not None:
            raise ValueError("dynamic_axes and dynamic_shapes cannot both be given; use "
                             "dynamic_shapes")
        dynamic_shapes = _dynamic_axes_to_shapes(dynamic_axes, in_names,
                                                 len(args) + len(kwargs))
    avals, _ = input_avals(model, args, kwargs, dynamic_shapes)
    _EXPORTING[0] = True
    try:
        model_proto = _build(onnx, model, spec, avals, in_names, output_names, opset)
    finally:
        _EXPORTING[0] = False
    if f is not None:
        _write(model_proto.SerializeToString(), f)
    return ONNXProgram(model_proto) if dynamo else None


def _value_info(helper, name, aval):
    dims = [str(d) if jax_export.is_symbolic_dim(d) else int(d) for d in aval.shape]
    return helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(
        np.dtype(aval.dtype)), dims)


def _build(onnx, model, spec, avals, in_names, output_names, opset):
    """The checked ModelProto of ``model`` traced on ``avals``."""
    names, state, _ = lifted_state(model)
    fn, _ = pure_function(model, names, spec)
    arrays = [np.asarray(s.detach().cpu().numpy()) for s in state]
    closed = jax.make_jaxpr(fn)(arrays, list(avals))
    g = GraphBuilder(onnx)
    state_names = [g.const(a, name=n) for n, a in zip(names, arrays)]
    for n, a in zip(in_names, avals):
        g.add_input_dims(n, a.shape)
    outs = g.run_closed(closed, state_names + in_names)
    out_avals = closed.out_avals
    out_names = list(output_names or []) + \
        [f"output_{i}" for i in range(len(output_names or []), len(outs))]
    for o, n in zip(outs, out_names):   # the graph's outputs under their names
        g.nodes.append(onnx.helper.make_node("Identity", [o], [n]))
    used = {x for node in g.nodes for x in node.input}   # e.g. BatchNorm's step counter
    graph = onnx.helper.make_graph(
        g.nodes, "main", [_value_info(onnx.helper, n, a) for n, a in zip(in_names, avals)],
        [_value_info(onnx.helper, n, a) for n, a in zip(out_names, out_avals)],
        initializer=[t for t in g.initializers if t.name in used])
    opsets = [onnx.helper.make_opsetid("", opset)]
    # the oldest IR version that has the opset: older onnxruntimes read the file too
    proto = onnx.helper.make_model(graph, producer_name="jtorch", opset_imports=opsets,
                                   ir_version=onnx.helper.find_min_ir_version_for(opsets))
    onnx.checker.check_model(proto)
    return proto
