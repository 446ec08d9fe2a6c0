"""torch._library.infer_schema: an operator schema from a Python function's type hints, as
``torch.library.custom_op`` infers it (``"(Tensor x, float alpha=1.0) -> Tensor"``), with
PyTorch's ValueError texts for what a schema cannot express."""

from __future__ import annotations

import collections.abc
import inspect
import typing

from .._core.device import device as _device
from .._core.dtypes import dtype as _dtype
from .._tensor import Tensor
from ..types import Number

__all__ = ["infer_schema"]


def _derived(base, name, seq, opt_items_seq, opt_seq):
    opt = typing.Optional[base]  # noqa: UP045 - the typing form is what hints evaluate to
    out = [(base, name), (opt, name + "?")]

    def seqs(t):
        return (typing.Sequence[t], typing.List[t],  # noqa: UP006
                collections.abc.Sequence[t], list[t])

    if seq:
        out += [(s, name + "[]") for s in seqs(base)]
    if opt_items_seq:
        out += [(s, name + "?[]") for s in seqs(opt)]
    if opt_seq:
        out += [(typing.Optional[s], name + "[]?") for s in seqs(base)]  # noqa: UP045
    return out


_PARAM_TYPES = dict(p for row in [
    (Tensor, "Tensor", True, True, False), (int, "SymInt", True, False, True),
    (float, "float", True, False, True), (bool, "bool", True, False, True),
    (str, "str", False, False, False), (Number, "Scalar", True, False, False),
    (_dtype, "ScalarType", False, False, False), (_device, "Device", False, False, False),
] for p in _derived(*row))
_RETURN_TYPES = {Tensor: "Tensor", typing.List[Tensor]: "Tensor[]",  # noqa: UP006
                 list[Tensor]: "Tensor[]", int: "SymInt", float: "float", bool: "bool",
                 Number: "Scalar"}


def infer_schema(prototype_function, /, *, mutates_args, op_name=None, tags=()):
    """The schema of ``prototype_function`` from its type hints, e.g.
    ``"(Tensor x, float alpha=1.0) -> Tensor"`` (with ``op_name`` in front when given).
    ``mutates_args`` (names, or ``"unknown"`` for every Tensor argument) are marked ``(a!)``."""
    sig = inspect.signature(prototype_function)
    if type(mutates_args) is not str:
        mutates_args = tuple(mutates_args)

    def error_fn(what):
        raise ValueError(f"infer_schema(func): {what} Got func with signature {sig})")

    def resolve(ann):
        if not isinstance(ann, str):
            return ann
        try:
            return eval(ann, prototype_function.__globals__)
        except Exception as e:  # noqa: BLE001 - any failure is a bad annotation
            error_fn(f"Unsupported type annotation {ann}. It is not a type. "
                     f"({type(e).__name__}: {e})")

    params, seen, kwarg_only = [], set(), False
    for idx, (name, param) in enumerate(sig.parameters.items()):
        if param.kind not in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY):
            error_fn("We do not support positional-only args, varargs, or varkwargs.")
        if param.kind == param.KEYWORD_ONLY and not kwarg_only:
            params.append("*")
            kwarg_only = True
        if param.annotation is param.empty:
            error_fn(f"Parameter {name} must have a type annotation.")
        ann = resolve(param.annotation)
        if ann not in _PARAM_TYPES:
            error_fn(f"Parameter {name} has unsupported type {param.annotation}. "
                     f"The valid types are: {_PARAM_TYPES.keys()}.")
        schema_type = _PARAM_TYPES[ann]
        if type(mutates_args) is str:
            if mutates_args != "unknown":
                raise ValueError("mutates_args must either be a sequence of the names of the "
                                 "arguments that are mutated or the string 'unknown'. ")
            if schema_type.startswith("Tensor"):
                schema_type = f"Tensor(a{idx}!){schema_type[len('Tensor'):]}"
        elif name in mutates_args:
            if not schema_type.startswith("Tensor"):
                error_fn(f"Parameter {name} is in mutable_args but only Tensors or "
                         "collections of Tensors can be mutated")
            schema_type = f"Tensor(a{idx}!){schema_type[len('Tensor'):]}"
        seen.add(name)
        params.append(f"{schema_type} {name}" + _default_repr(param, error_fn))
    if mutates_args != "unknown":
        not_seen = set(mutates_args) - seen
        if not_seen:
            error_fn(f"{not_seen} in mutates_args were not found in the custom op's signature. "
                     "mutates_args should contain the names of all args that the custom op "
                     "mutates, or just the string 'unknown' if you don't know.")
    ret = _return_schema(resolve(sig.return_annotation), error_fn)
    return f"{op_name or ''}({', '.join(params)}) -> {ret}"


def _default_repr(param, error_fn):
    d = param.default
    if d is param.empty:
        return ""
    if d is None or isinstance(d, (int, float, bool)):
        return f"={d}"
    if isinstance(d, (str, _device)):
        return f'="{d}"'
    if isinstance(d, _dtype):
        return "=" + str(d).removeprefix("torch.")
    error_fn(f"Parameter {param.name} has an unsupported default value type {type(d)}. "
             "Please file an issue on GitHub so we can prioritize this.")


def _return_schema(ann, error_fn):
    if ann is None:
        return "()"
    if ann is inspect.Parameter.empty:
        error_fn("No return type annotation was provided. Please add one.")
    if typing.get_origin(ann) is not tuple:
        if ann not in _RETURN_TYPES:
            error_fn(f"Return has unsupported type {ann}. The valid types are: "
                     f"{_RETURN_TYPES}.")
        return _RETURN_TYPES[ann]
    args = typing.get_args(ann)
    for a in args:
        if a not in _RETURN_TYPES:
            error_fn(f"Return has unsupported type {ann}. The valid types are: "
                     f"{_RETURN_TYPES}.")
    out = ", ".join(_RETURN_TYPES[a] for a in args)
    return f"(({out}))" if len(args) == 1 else f"({out})"
