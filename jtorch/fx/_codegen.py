"""A graph as Python source: ``Graph.python_code`` writes the ``forward`` a GraphModule runs,
with PyTorch's text (operators for ``operator``'s functions, ``self.<path>`` for modules and
attributes, each value set to None after its last use).

The source names ``torch`` (jtorch, so that it runs) and ``operator``; other functions are
globals of the generated code (``PythonCode.globals``), named after the function.
"""

from __future__ import annotations

import builtins
import enum
import keyword
import math
import re
import sys
from dataclasses import dataclass

from .node import Node, qualified_name

_BINARY = {"add": "+", "sub": "-", "mul": "*", "floordiv": "//", "truediv": "/", "div": "/",
           "mod": "%", "pow": "**", "lshift": "<<", "rshift": ">>", "and_": "&", "or_": "|",
           "xor": "^", "matmul": "@", "eq": "==", "ne": "!=", "lt": "<", "gt": ">",
           "le": "<=", "ge": ">="}
_UNARY = {"pos": "+", "neg": "-", "invert": "~"}
_INPLACE = {"iadd": "+=", "iand": "&=", "ifloordiv": "//=", "ilshift": "<<=", "imod": "%=",
            "imul": "*=", "imatmul": "@=", "ior": "|=", "ipow": "**=", "irshift": ">>=",
            "isub": "-=", "itruediv": "/=", "ixor": "^="}

# names a node or a global may not take: Python's keywords and builtins, and inf/nan
ILLEGAL_NAMES = {k: object() for k in keyword.kwlist}
ILLEGAL_NAMES.update(builtins.__dict__)
ILLEGAL_NAMES.update(inf=math.inf, nan=math.nan)
_NAME = re.compile(r"^([a-zA-Z_][0-9a-zA-Z_]*?)(?:_(\d+))?$")
_ILLEGAL_CHARS = re.compile("[^0-9a-zA-Z_]+")


class Namespace:
    """Unique Python identifiers: ``create_name("add")`` gives ``add``, then ``add_1``..."""

    def __init__(self):
        self._used, self._base_count, self._obj_to_name = set(), {}, {}

    def create_name(self, candidate, obj):
        if obj is not None and obj in self._obj_to_name:
            return self._obj_to_name[obj]
        match = _NAME.match(candidate)
        if match is None:
            candidate = _ILLEGAL_CHARS.sub("_", candidate) or "_unnamed"
            if candidate[0].isdigit():
                candidate = "_" + candidate
            match = _NAME.match(candidate)
        base, num = match.group(1, 2)
        if num is None or candidate in self._used:
            num = self._base_count.get(base, 0)
            if ILLEGAL_NAMES.get(candidate, obj) is not obj:
                num += 1
                candidate = f"{base}_{num}"
        else:
            num = int(num)
        while candidate in self._used:
            num += 1
            candidate = f"{base}_{num}"
        self._used.add(candidate)
        self._base_count[base] = num
        if obj is not None:
            self._obj_to_name[obj] = candidate
        return candidate


@dataclass
class PythonCode:
    """``torch.fx.graph.PythonCode``: the source of ``forward`` and the globals it reads."""
    src: str
    globals: dict


def _format_target(base, target):
    out = base
    for part in target.split("."):
        out = f"{out}.{part}" if part.isidentifier() else f'getattr({out}, "{part}")'
    return out


class _Writer:
    """One ``python_code`` call: the body's lines and the globals they name."""

    def __init__(self, root_module):
        self.root = root_module
        self.globals = {"torch": sys.modules["jtorch"], "operator": sys.modules["operator"],
                        "inf": math.inf, "nan": math.nan, "NoneType": type(None)}
        self.names = Namespace()
        self.wrapped = {}   # the globals of functions torch.fx.wrap made leaves
        for name, obj in self.globals.items():
            self.names.create_name(name, obj)

    def add_global(self, obj):
        name = qualified_name(obj)
        if name.startswith("torch."):
            return name
        if getattr(builtins, name, None) is obj:
            return name
        name = self.names.create_name(name, obj)
        self.globals[name] = obj
        return name

    def repr(self, a):
        if isinstance(a, Node):
            return a.name
        if isinstance(a, tuple) and hasattr(a, "_fields"):
            return self.add_global(type(a)) + repr(tuple(a))
        if isinstance(a, tuple):
            inner = ", ".join(self.repr(e) for e in a)
            return f"({inner},)" if len(a) == 1 else f"({inner})"
        if isinstance(a, list):
            return "[" + ", ".join(self.repr(e) for e in a) + "]"
        if isinstance(a, slice):
            return f"slice({self.repr(a.start)}, {self.repr(a.stop)}, {self.repr(a.step)})"
        if isinstance(a, enum.Enum):
            return f"{self.add_global(type(a))}.{a.name}"
        if isinstance(a, type) or callable(a) and hasattr(a, "__name__") and \
                not isinstance(a, (dict, str)):
            return self.add_global(a)
        return repr(a)

    def type_annotation(self, node):
        """`` : torch.Tensor`` for a node whose ``type`` is a class, as PyTorch writes it (other
        annotations, ``List[int]``, are left out)."""
        t = node.type
        if not isinstance(t, type):
            return ""
        if t.__module__ == "builtins":
            return f" : {t.__qualname__}"
        if getattr(self.globals["torch"], t.__qualname__, None) is t:
            return f" : torch.{t.__qualname__}"
        return f" : {self.add_global(t)}"

    def args(self, args, kwargs):
        return ", ".join([self.repr(a) for a in args] +
                         [f"{k} = {self.repr(v)}" for k, v in kwargs.items()])

    def statement(self, node):
        """The node's line, or None for a placeholder (a parameter of ``forward``)."""
        name, op, target = node.name, node.op, node.target
        if op == "call_method":
            return (f"{name} = {_format_target(self.repr(node.args[0]), target)}"
                    f"({self.args(node.args[1:], node.kwargs)})")
        if op == "call_function":
            fname = getattr(target, "__name__", "")
            if getattr(target, "__module__", "") == "_operator":
                parts = [self.repr(a) for a in node.args]
                if fname == "getitem":
                    return f"{name} = {parts[0]}[{parts[1]}]"
                if fname in _BINARY and len(parts) == 2:
                    return f"{name} = {parts[0]} {_BINARY[fname]} {parts[1]}"
                if fname in _UNARY:
                    return f"{name} = {_UNARY[fname]}{parts[0]}"
                if fname in _INPLACE:
                    return f"{parts[0]} {_INPLACE[fname]} {parts[1]};  {name} = {parts[0]}"
                if fname == "setitem":
                    return f"{parts[0]}[{parts[1]}] = {parts[2]};  {name} = {parts[0]}"
            fn = self.add_global(target)
            if node.meta.get("is_wrapped"):
                self.wrapped.setdefault(fn)
            if fn == "getattr" and len(node.args) == 2 and isinstance(node.args[1], str) \
                    and node.args[1].isidentifier():
                return f"{name} = {_format_target(self.repr(node.args[0]), node.args[1])}"
            return f"{name} = {fn}({self.args(node.args, node.kwargs)})"
        if op == "call_module":
            return (f"{name} = {_format_target(self.root, target)}"
                    f"({self.args(node.args, node.kwargs)})")
        if op == "get_attr":
            return f"{name} = {_format_target(self.root, target)}"
        if op == "output":
            return f"return {self.repr(node.args[0])}"
        raise NotImplementedError(f"node: {op} {target}")


_DTYPE_ABBRS = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16",
                "int64": "i64", "int32": "i32", "int16": "i16", "int8": "i8", "uint8": "u8",
                "bool": "b8", "complex64": "c64", "complex128": "c128"}


def _annotation(node):
    """``: "f32[2, 3]"`` for a node ShapeProp annotated with one tensor's metadata."""
    meta = node.meta.get("tensor_meta")
    if meta is None or not hasattr(meta, "shape") or not hasattr(meta, "dtype") or \
            node.op == "output":
        return ""
    dtype = str(meta.dtype).rsplit(".", 1)[-1]
    shape = ", ".join(str(d) for d in meta.shape)
    return f': "{_DTYPE_ABBRS.get(dtype, dtype)}[{shape}]"'


def python_code(graph, root_module, verbose=False):
    """The :class:`PythonCode` of ``graph`` (``root_module``: the name modules are read from,
    usually ``self``; ``verbose``: with the stack-trace comment PyTorch's ``print_readable``
    shows, jtorch recording none)."""
    w = _Writer(root_module)
    nodes = list(graph.nodes)
    last_uses, seen = {}, set()
    for node in reversed(nodes):
        for n in node._input_nodes:
            if n not in seen:
                seen.add(n)
                last_uses.setdefault(node, []).append(n)
    params, body = [], []
    for node in nodes:
        ann = (_annotation(node) if verbose else "") or w.type_annotation(node)
        if node.op == "placeholder":
            default = f" = {w.repr(node.args[0])}" if node.args else ""
            params.append(f"{node.target}{ann}{default}")
            raw = node.target.replace("*", "")
            if raw != node.name:
                body.append(f"{node.name} = {raw}")
            continue
        if verbose and node.op != "output" and not any("#" in b for b in body):
            body.extend(["", "# No stacktrace found for following nodes"] if body else
                        ["# No stacktrace found for following nodes"])
        line = w.statement(node)
        if ann and line.startswith(f"{node.name} = "):
            line = f"{node.name}{ann}{line[len(node.name):]}"
        if node.op != "output":
            dead = list(last_uses.get(node, []))
            if not node.users:
                dead.append(node)
            if dead:
                line += ";  " + " = ".join([n.name for n in dead] + ["None"])
        body.append(line)
    body = body or ["pass"]
    code = "\n".join("    " + line for line in [*body, ""])
    wraps = "\n".join(f'torch.fx._symbolic_trace.wrap("{n}")' for n in w.wrapped)
    returns = w.type_annotation(nodes[-1]).replace(" :", " ->") \
        if nodes and nodes[-1].op == "output" else ""
    src = f"\n{wraps}\n\ndef forward({', '.join(['self', *params])}){returns}:\n{code}"
    return PythonCode(src, w.globals)
