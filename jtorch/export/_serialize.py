"""``torch.export.save`` / ``load``: an ExportedProgram as one zip file.

The archive holds ``program.bin`` (``jax.export``'s own serialization of the StableHLO
program), ``tensors.pt`` (state and example inputs, written by ``torch.save``), ``meta.json``
(names, input/output structure, dimension bounds) and ``extra/<name>`` for ``extra_files``.

Differences from PyTorch: the format is jtorch's own (PyTorch's .pt2 holds an FX graph), so
files are exchanged between jtorch programs only.
"""

from __future__ import annotations

import io
import json
import os
import zipfile

from jax import export as jax_export

from ..nn.parameter import Parameter
from ..serialization import atomic_file, load as torch_load, save as torch_save
from ..utils import _pytree as pt
from ._program import ExportedProgram
from ._trace import InputSpec

_FORMAT = "jtorch.export/1"
_KINDS = {"tuple": tuple, "list": list, "dict": dict}


def _spec_to_json(spec):
    if spec.is_leaf():
        return None
    name = next((k for k, v in _KINDS.items() if v is spec.type), None)
    if name is None:
        raise NotImplementedError(f"jtorch does not implement torch.export.save of a program "
                                  f"whose inputs or outputs hold a {spec.type.__name__} yet")
    return [name, list(spec.context) if spec.context is not None else None,
            [_spec_to_json(c) for c in spec.children()]]


def _spec_from_json(obj):
    if obj is None:
        return pt.treespec_leaf()
    name, ctx, kids = obj
    return pt.TreeSpec(_KINDS[name], ctx, [_spec_from_json(k) for k in kids])


def _open_for_write(f):
    if isinstance(f, (str, os.PathLike)):
        return atomic_file(os.fspath(f))
    return _Unclosed(f)


class _Unclosed:
    """A caller's file object as a context manager that leaves it open."""

    def __init__(self, f):
        self.f = f

    def __enter__(self):
        return self.f

    def __exit__(self, *exc):
        return False


def save(ep, f, *, extra_files=None, opset_version=None, pickle_protocol=2):
    """Write ``ep`` to ``f`` (a path or a binary file object).

    Args:
        ep (ExportedProgram): what :func:`torch.export.export` returned.
        f (str, os.PathLike or file object): where to write.
        extra_files (dict, optional): ``name -> str or bytes`` stored alongside.
        opset_version (dict, optional): accepted, not used (no opsets in StableHLO).
        pickle_protocol (int): accepted, not used.
    """
    if not isinstance(ep, ExportedProgram):
        raise TypeError(f"The 'ep' parameter must be an instance of 'ExportedProgram', got "
                        f"'{type(ep).__name__}' instead.")
    meta = {"format": _FORMAT, "names": ep._state_names, "persistent": sorted(ep._persistent),
            "params": ep._param_names, "in_tree": _spec_to_json(ep._spec.tree),
            "constants": ep._spec.constants, "out_tree": _spec_to_json(ep._out_tree),
            "labels": ep._labels, "user_inputs": list(ep.graph_signature.user_inputs),
            "bounds": ep.range_constraints}
    tensors = io.BytesIO()
    torch_save({"state": {**ep.state_dict, **ep.constants}, "example": ep.example_inputs},
               tensors)
    program = ep.jax_exported.serialize()
    with _open_for_write(f) as out, zipfile.ZipFile(out, "w") as z:
        z.writestr("meta.json", json.dumps(meta))
        z.writestr("program.bin", bytes(program))
        z.writestr("tensors.pt", tensors.getvalue())
        for name, data in (extra_files or {}).items():
            z.writestr(f"extra/{name}", data)


def load(f, *, extra_files=None, expected_opset_version=None):
    """Read an ExportedProgram written by :func:`save` from a path or binary file object;
    ``extra_files`` (a dict of names) is filled with the stored contents (as str)."""
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            data = fh.read()
    else:
        data = f.read()
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        meta = json.loads(z.read("meta.json"))
        if meta.get("format") != _FORMAT:
            raise RuntimeError(f"Serialized format {meta.get('format')} is not supported "
                               f"(expected {_FORMAT})")
        exported = jax_export.deserialize(bytearray(z.read("program.bin")))
        tensors = torch_load(io.BytesIO(z.read("tensors.pt")), weights_only=True)
        for name in extra_files or {}:
            extra_files[name] = z.read(f"extra/{name}").decode()
    spec = InputSpec.__new__(InputSpec)
    spec.tree = _spec_from_json(meta["in_tree"])
    spec.constants = meta["constants"]
    names = meta["names"]
    state = [tensors["state"][n] for n in names]
    state = [_as_parameter(t) if n in meta["params"] else t for n, t in zip(names, state)]
    bounds = {k: tuple(v) for k, v in meta["bounds"].items()}
    return ExportedProgram(exported, state, names, meta["persistent"], spec,
                           _spec_from_json(meta["out_tree"]), meta["user_inputs"],
                           tensors["example"], bounds, meta["labels"])


def _as_parameter(t):
    return t if isinstance(t, Parameter) else Parameter(t, t.requires_grad)
