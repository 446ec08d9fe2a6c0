"""Operator schemas as torch.library writes them: ``"(Tensor x, *, int k=2) -> Tensor"`` parsed
into its arguments (name, type, default, keyword-only, mutated) and return types, and a
qualified name ``"namespace::name"`` split in two. Loose: types are not checked against
PyTorch's list of schema types."""

from __future__ import annotations

import re
import typing

__all__ = ["Arg", "IDENT", "NO_DEFAULT", "parse_schema", "parse_namespace"]


class Arg(typing.NamedTuple):
    name: str
    type: str
    default: object        # NO_DEFAULT when the schema gives none
    kwarg_only: bool
    mutable: bool

    @property
    def is_tensor(self):
        return self.type.startswith("Tensor")


NO_DEFAULT = object()
_TYPE = r"[A-Za-z_]\w*(?:\((?P<alias>[^)]*)\))?(?:\[\d*\])?\??(?:\[\d*\])?\??"
_ARG_RE = re.compile(rf"^(?P<type>{_TYPE})\s+(?P<name>[A-Za-z_]\w*)\s*(?:=\s*(?P<default>.+))?$")
_RET_RE = re.compile(rf"^(?P<type>{_TYPE})(?:\s+[A-Za-z_]\w*)?$")
IDENT = re.compile(r"^[A-Za-z_]\w*$")


def _split_top(text):
    """``text`` split at the commas outside brackets and quotes."""
    parts, depth, quote, start = [], 0, None, 0
    for i, c in enumerate(text):
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts if any(parts) else []


def _parse_default(text):
    text = text.strip()
    if text in ("None", "True", "False"):
        return {"None": None, "True": True, "False": False}[text]
    if text[:1] in "'\"" and text[-1:] == text[:1]:
        return text[1:-1]
    if text.startswith("[") and text.endswith("]"):
        return [_parse_default(t) for t in _split_top(text[1:-1])]
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text   # an enum name (ScalarType, Layout...): kept as written


def parse_schema(schema, qualname):
    """``"(Tensor x, *, int k=2) -> Tensor"`` as (args, returns); loose: types are not
    checked against PyTorch's list."""
    text = schema.strip()
    if "(" not in text:
        raise RuntimeError("Tried to parse a function schema but only the operator name was "
                           "given")
    close, depth = 0, 0
    while close < len(text):
        depth += (text[close] == "(") - (text[close] == ")")
        if depth == 0 and text[close] == ")":
            break
        close += 1
    if not text.startswith("(") or depth:
        raise RuntimeError(f"expected a schema of the form '(args) -> returns' but got "
                           f"{schema!r} for {qualname}")
    rest = text[close + 1:].strip()
    if not rest.startswith("->"):
        found = rest.split()[0] if rest else "eof"
        raise RuntimeError(f"expected arrow but found '{found}' here:\n{qualname}{schema}")
    args, kwarg_only = [], False
    for piece in _split_top(text[1:close]):
        if piece == "*":
            kwarg_only = True
            continue
        m = _ARG_RE.match(piece)
        if m is None:
            raise RuntimeError(f"could not parse the argument '{piece}' of schema "
                               f"{qualname}{schema}")
        default = NO_DEFAULT if m["default"] is None else _parse_default(m["default"])
        args.append(Arg(m["name"], m["type"], default, kwarg_only, "!" in (m["alias"] or "")))
    ret = rest[2:].strip()
    rets = _split_top(ret[1:-1]) if ret.startswith("(") and ret.endswith(")") else [ret]
    for r in rets:
        if not _RET_RE.match(r):
            raise RuntimeError(f"could not parse the return type '{r}' of schema "
                               f"{qualname}{schema}")
    return args, rets


def parse_namespace(qualname):
    names = qualname.split("::")
    if len(names) != 2:
        raise ValueError(f'Expected `qualname` to be of the form "namespace::name", but got '
                         f"{qualname}. The qualname passed to the torch.library APIs must "
                         "consist of a namespace and a name, e.g. aten::sin")
    return names[0], names[1]
