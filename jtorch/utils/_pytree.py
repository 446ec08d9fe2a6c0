"""``torch.utils._pytree``: PyTorch's pure-Python pytree utilities.

A pytree is a nested structure of registered container nodes (tuple, list, dict, namedtuple,
OrderedDict, defaultdict, deque, and any type given to :func:`register_pytree_node`); anything
else, ``None`` included, is a leaf. Libraries written for PyTorch (transformers, accelerate,
peft) register their own containers here and walk argument trees with ``tree_map``, so this
module keeps PyTorch's registry, ``TreeSpec`` (its ``repr`` too), key paths, error texts and the
JSON format of ``treespec_dumps``. It is a leaf utility: it imports only the standard library
(and jtorch's error helpers), never jtorch's Tensor or ops.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import json
import threading
import types
import warnings
from collections import OrderedDict, defaultdict, deque, namedtuple
from collections.abc import Callable, Hashable, Iterable
from enum import Enum
from typing import Any, Generic, NamedTuple, TypeVar

from .._core.errors import missing_names

__all__ = [
    "PyTree", "Context", "FlattenFn", "UnflattenFn", "DumpableContext", "ToDumpableContextFn",
    "FromDumpableContextFn", "PyTreeSpec", "TreeSpec", "LeafSpec", "keystr", "key_get",
    "register_pytree_node", "tree_is_leaf", "tree_flatten", "tree_flatten_with_path",
    "tree_unflatten", "tree_iter", "tree_leaves", "tree_leaves_with_path", "tree_structure",
    "tree_map", "tree_map_with_path", "tree_map_", "tree_map_only", "tree_map_only_", "tree_all",
    "tree_any", "tree_all_only", "tree_any_only", "treespec_dumps", "treespec_loads",
    "treespec_pprint", "is_namedtuple", "is_namedtuple_class", "is_namedtuple_instance",
    "is_structseq", "is_structseq_class", "is_structseq_instance",
]

# ------------------------------------------------------------------ type aliases
T, S, U, R = TypeVar("T"), TypeVar("S"), TypeVar("U"), TypeVar("R")
K = TypeVar("K", bound=Hashable)
PyTree = Any
Context = Any
DumpableContext = Any       # anything json.dumps accepts
KeyEntry = Any              # SequenceKey, MappingKey, GetAttrKey or a user key with .get()
KeyPath = tuple[KeyEntry, ...]
FlattenFn = Callable[[PyTree], tuple[list[Any], Context]]
UnflattenFn = Callable[[Iterable[Any], Context], PyTree]
FlattenWithKeysFn = Callable[[PyTree], tuple[list[tuple[KeyEntry, Any]], Any]]
ToDumpableContextFn = Callable[[Context], DumpableContext]
FromDumpableContextFn = Callable[[DumpableContext], Context]
ToStrFunc = Callable[[Any, list[str]], str]                      # deprecated in PyTorch
MaybeFromStrFunc = Callable[[str], tuple[Any, Context, str] | None]  # deprecated in PyTorch
FlattenFunc, UnflattenFunc, FlattenWithKeysFunc = FlattenFn, UnflattenFn, FlattenWithKeysFn
Type2 = tuple[type[T], type[S]]
Type3 = tuple[type[T], type[S], type[U]]
TypeAny = type[Any] | tuple[type[Any], ...] | types.UnionType
Fn, Fn2, Fn3 = Callable[[T], R], Callable[[T | S], R], Callable[[T | S | U], R]
FnAny = Callable[[Any], R]
MapOnlyFn = Callable[[T], Callable[[Any], Any]]

DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL = 1
NO_SERIALIZED_TYPE_NAME_FOUND = "NO_SERIALIZED_TYPE_NAME_FOUND"
_cxx_pytree_exists = _cxx_pytree_dynamo_traceable = False   # jtorch has no optree-backed twin


def _deprecated(message):
    """Make a function warn PyTorch's FutureWarning ``message`` at its caller on each call."""
    def wrap(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            warnings.warn(message, FutureWarning, stacklevel=2)
            return fn(*args, **kwargs)
        return wrapper
    return wrap


# ------------------------------------------------------------------ the registry
class NodeDef(NamedTuple):
    """How a node type comes apart (``flatten_fn``: node -> (children, context)) and goes back
    together (``unflatten_fn``: (children, context) -> node); ``flatten_with_keys_fn`` also
    names each child with a key entry (None: key paths unsupported for the type)."""
    type: type[Any]
    flatten_fn: FlattenFn
    unflatten_fn: UnflattenFn
    flatten_with_keys_fn: FlattenWithKeysFn | None


class _SerializeNodeDef(NamedTuple):
    """How ``treespec_dumps``/``treespec_loads`` name a node type and encode its context."""
    typ: type[Any]
    serialized_type_name: str
    to_dumpable_context: ToDumpableContextFn | None
    from_dumpable_context: FromDumpableContextFn | None


_NODE_REGISTRY_LOCK = threading.RLock()
SUPPORTED_NODES: dict[type[Any], NodeDef] = {}
SUPPORTED_SERIALIZED_TYPES: dict[type[Any], _SerializeNodeDef] = {}
SERIALIZED_TYPE_TO_PYTHON_TYPE: dict[str, type[Any]] = {}
CONSTANT_NODES: set[type] = set()


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None,
                         to_dumpable_context=None, from_dumpable_context=None,
                         flatten_with_keys_fn=None) -> None:
    """Make ``cls`` a pytree node: ``flatten_fn(node) -> (children, context)`` and
    ``unflatten_fn(children, context) -> node``. ``serialized_type_name`` and the dumpable
    context pair are for :func:`treespec_dumps`; ``flatten_with_keys_fn`` returns
    ``([(key_entry, child), ...], context)`` for the ``*_with_path`` functions. A type can be
    registered once (ValueError after that)."""
    with _NODE_REGISTRY_LOCK:
        if cls in SUPPORTED_NODES:
            raise ValueError(f"{cls} is already registered as pytree node.")
        _private_register_pytree_node(
            cls, flatten_fn, unflatten_fn, serialized_type_name=serialized_type_name,
            to_dumpable_context=to_dumpable_context, from_dumpable_context=from_dumpable_context,
            flatten_with_keys_fn=flatten_with_keys_fn)


def _private_register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None,
                                  to_dumpable_context=None, from_dumpable_context=None,
                                  flatten_with_keys_fn=None) -> None:
    """Register ``cls`` as :func:`register_pytree_node` does, replacing (with a warning) an
    earlier registration instead of refusing it."""
    with _NODE_REGISTRY_LOCK:
        if cls in SUPPORTED_NODES:
            warnings.warn(f"{cls} is already registered as pytree node. "
                          "Overwriting the previous registration.", stacklevel=2)
        SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)
        if (to_dumpable_context is None) != (from_dumpable_context is None):
            raise ValueError(f"Both to_dumpable_context and from_dumpable_context for {cls} "
                             "must be None or registered.")
        name = serialized_type_name or NO_SERIALIZED_TYPE_NAME_FOUND
        SUPPORTED_SERIALIZED_TYPES[cls] = _SerializeNodeDef(cls, name, to_dumpable_context,
                                                            from_dumpable_context)
        SERIALIZED_TYPE_TO_PYTHON_TYPE[name] = cls


@_deprecated("`torch.utils._pytree._register_pytree_node` is deprecated. "
             "Please use `torch.utils._pytree.register_pytree_node` instead.")
def _register_pytree_node(cls, flatten_fn, unflatten_fn, to_str_fn=None, maybe_from_str_fn=None,
                          *, serialized_type_name=None, to_dumpable_context=None,
                          from_dumpable_context=None, flatten_with_keys_fn=None) -> None:
    """Deprecated form of :func:`register_pytree_node` (older transformers call it); it
    replaces an earlier registration. ``to_str_fn``/``maybe_from_str_fn`` are ignored."""
    if to_str_fn is not None or maybe_from_str_fn is not None:
        warnings.warn("`to_str_fn` and `maybe_from_str_fn` is deprecated. Please use "
                      "`to_dumpable_context` and `from_dumpable_context` instead.",
                      FutureWarning, stacklevel=2)
    _private_register_pytree_node(
        cls, flatten_fn, unflatten_fn, serialized_type_name=serialized_type_name,
        to_dumpable_context=to_dumpable_context, from_dumpable_context=from_dumpable_context,
        flatten_with_keys_fn=flatten_with_keys_fn)


def _deregister_pytree_node(cls) -> None:
    """Undo the registration of ``cls`` (KeyError if it has none)."""
    with _NODE_REGISTRY_LOCK:
        del SUPPORTED_NODES[cls]
        name = SUPPORTED_SERIALIZED_TYPES.pop(cls).serialized_type_name
        if SERIALIZED_TYPE_TO_PYTHON_TYPE.get(name) is cls:   # unnamed types share one name
            del SERIALIZED_TYPE_TO_PYTHON_TYPE[name]
        CONSTANT_NODES.discard(cls)


def register_dataclass(cls, *, field_names=None, drop_field_names=None,
                       serialized_type_name=None) -> None:
    """Register a dataclass (or a class built from keyword ``field_names``) as a node whose
    children are its non-None fields; None fields are kept in the context."""
    drop = set(drop_field_names or ())
    if not dataclasses.is_dataclass(cls):
        if field_names is None:
            raise ValueError("field_names must be specified with a list of all fields used to "
                             f"initialize {cls}, as it is not a dataclass.")
    else:
        init_fields = [f.name for f in dataclasses.fields(cls) if f.init]
        if field_names is None:
            field_names = init_fields
        elif set(init_fields) - drop != set(field_names):
            msg = "field_names does not include all dataclass fields.\n"
            if missing := set(init_fields) - drop - set(field_names):
                msg += (f"Missing fields in `field_names`: {missing}. If you want to include "
                        "these fields in the pytree, please add them to `field_names`, "
                        "otherwise please add them to `drop_field_names`.\n")
            if unexpected := set(field_names) - (set(init_fields) - drop):
                msg += (f"Unexpected fields in `field_names`: {unexpected}. Please remove "
                        "these fields, or add them to `drop_field_names`.\n")
            raise ValueError(msg)

    def flatten(obj):
        values = {name: getattr(obj, name) for name in field_names}
        kept = [n for n, v in values.items() if v is not None]
        return [values[n] for n in kept], [kept, [n for n in values if n not in kept]]

    def unflatten(values, context):
        kept, nones = context
        return cls(**dict(zip(kept, values, strict=True)), **dict.fromkeys(nones))

    def flatten_with_keys(obj):
        values, (kept, _) = flatten(obj)
        return [(GetAttrKey(n), v) for n, v in zip(kept, values)], kept

    _private_register_pytree_node(cls, flatten, unflatten,
                                  serialized_type_name=serialized_type_name,
                                  flatten_with_keys_fn=flatten_with_keys)


@dataclasses.dataclass(frozen=True, slots=True)
class ConstantNode(Generic[T]):
    """The context of a constant node: the instance itself."""
    value: T


def register_constant(cls) -> None:
    """Register hashable, comparable ``cls`` as a node with no leaves: its instances travel
    whole in the TreeSpec's context."""
    if cls.__eq__ is object.__eq__:
        raise TypeError("register_constant(cls) expects `cls` to have a non-default `__eq__` "
                        "implementation.")
    if cls.__hash__ is None:
        raise TypeError("register_constant(cls) expects `cls` to have a non-default "
                        "`__hash__` implementation.")
    with _NODE_REGISTRY_LOCK:
        _private_register_pytree_node(cls, lambda x: ([], ConstantNode(x)),
                                      lambda _, context: context.value,
                                      flatten_with_keys_fn=lambda x: ([], ConstantNode(x)))
        CONSTANT_NODES.add(cls)


def is_constant_class(cls) -> bool:
    return isinstance(cls, type) and cls in CONSTANT_NODES


def _is_constant_holder(spec) -> bool:
    return isinstance(spec._context, ConstantNode)


def _retrieve_constant(spec):
    if not _is_constant_holder(spec):
        raise AssertionError("spec does not correspond to a registered constant pytree")
    return tree_unflatten([], spec)


def _register_namedtuple(cls, *, serialized_type_name: str) -> None:
    """Give namedtuple ``cls`` a name so that specs holding it can be serialized."""
    _private_register_pytree_node(
        cls, _namedtuple_flatten, _namedtuple_unflatten,
        serialized_type_name=serialized_type_name, to_dumpable_context=_namedtuple_serialize,
        from_dumpable_context=_namedtuple_deserialize,
        flatten_with_keys_fn=_namedtuple_flatten_with_keys)


# ------------------------------------------------------------------ key entries
@dataclasses.dataclass(frozen=True, slots=True)
class SequenceKey(Generic[T]):
    """A key path step into a sequence: prints ``[idx]``."""
    idx: int

    def __str__(self):
        return f"[{self.idx!r}]"

    def get(self, sequence):
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True, slots=True)
class MappingKey(Generic[K, T]):
    """A key path step into a mapping: prints ``['key']``."""
    key: K

    def __str__(self):
        return f"[{self.key!r}]"

    def get(self, mapping):
        return mapping[self.key]


@dataclasses.dataclass(frozen=True, slots=True)
class GetAttrKey:
    """A key path step to an attribute (a namedtuple field): prints ``.name``."""
    name: str

    def __str__(self):
        return f".{self.name}"

    def get(self, obj):
        return getattr(obj, self.name)


def keystr(kp) -> str:
    """A key path as text, e.g. ``['a'][0].x``."""
    return "".join(str(k) for k in kp)


def key_get(obj, kp):
    """The value found in ``obj`` by following key path ``kp``."""
    for k in kp:
        obj = k.get(obj)
    return obj


# ------------------------------------------------------------------ namedtuples and structseqs
def is_namedtuple(obj) -> bool:
    """Whether ``obj`` (a class or an instance) is a namedtuple."""
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def is_namedtuple_class(cls) -> bool:
    """Whether ``cls`` is a namedtuple class (a tuple with str ``_fields``, ``_make``,
    ``_asdict``)."""
    fields = getattr(cls, "_fields", None)
    return (isinstance(cls, type) and issubclass(cls, tuple) and isinstance(fields, tuple)
            and all(type(f) is str for f in fields)
            and callable(getattr(cls, "_make", None)) and callable(getattr(cls, "_asdict", None)))


def is_namedtuple_instance(obj) -> bool:
    return is_namedtuple_class(type(obj))


class structseq(tuple):  # noqa: N801 - PyTorch's name
    """Type stub for CPython's PyStructSequence (``os.stat_result``, ``time.struct_time``)."""
    __slots__ = ()

    def __init_subclass__(cls):
        raise TypeError("type 'structseq' is not an acceptable base type")

    def __new__(cls, sequence, dict=None):
        raise NotImplementedError


Py_TPFLAGS_BASETYPE = 1 << 10   # CPython's flag for a type that can be subclassed


def is_structseq(obj) -> bool:
    """Whether ``obj`` (a class or an instance) is a PyStructSequence."""
    return is_structseq_class(obj if isinstance(obj, type) else type(obj))


def is_structseq_class(cls) -> bool:
    """Whether ``cls`` is a PyStructSequence class: a final direct tuple subclass with the
    ``n_fields``/``n_sequence_fields``/``n_unnamed_fields`` counts."""
    return (isinstance(cls, type) and cls.__bases__ == (tuple,)
            and all(isinstance(getattr(cls, a, None), int)
                    for a in ("n_fields", "n_sequence_fields", "n_unnamed_fields"))
            and not cls.__flags__ & Py_TPFLAGS_BASETYPE)


def is_structseq_instance(obj) -> bool:
    return is_structseq_class(type(obj))


# ------------------------------------------------------------------ the built-in node types
def _tuple_flatten(d):
    return list(d), None


def _tuple_flatten_with_keys(d):
    return [(SequenceKey(i), v) for i, v in enumerate(d)], None


def _tuple_unflatten(values, context):
    return tuple(values)


def _list_flatten(d):
    return d, None


def _list_flatten_with_keys(d):
    return [(SequenceKey(i), v) for i, v in enumerate(d)], None


def _list_unflatten(values, context):
    return list(values)


def _dict_flatten(d):
    return list(d.values()), list(d.keys())


def _dict_flatten_with_keys(d):
    values, keys = _dict_flatten(d)
    return [(MappingKey(k), v) for k, v in zip(keys, values)], keys


def _dict_unflatten(values, context):
    return dict(zip(context, values, strict=True))


def _namedtuple_flatten(d):
    return list(d), type(d)


def _namedtuple_flatten_with_keys(d):
    return [(GetAttrKey(f), v) for f, v in zip(type(d)._fields, d)], type(d)


def _namedtuple_unflatten(values, context):
    return context(*values)


def _namedtuple_serialize(context):
    name = getattr(SUPPORTED_SERIALIZED_TYPES.get(context), "serialized_type_name", None)
    if name is None or name == NO_SERIALIZED_TYPE_NAME_FOUND:
        why = "didn't register" if name is None else "couldn't find"
        raise NotImplementedError(
            f"Can't serialize TreeSpec of namedtuple class {context} because we {why} a "
            "serializated_type_name. Please register using `_register_namedtuple`.")
    return name


def _namedtuple_deserialize(dumpable_context):
    if dumpable_context not in SERIALIZED_TYPE_TO_PYTHON_TYPE:
        raise NotImplementedError(f"Can't deserialize TreeSpec of namedtuple class "
                                  f"{dumpable_context} because we couldn't find a serializated "
                                  "name.")
    return SERIALIZED_TYPE_TO_PYTHON_TYPE[dumpable_context]


_ordereddict_flatten = _odict_flatten = _dict_flatten
_ordereddict_flatten_with_keys = _dict_flatten_with_keys


def _ordereddict_unflatten(values, context):
    return OrderedDict(zip(context, values, strict=True))


_odict_unflatten = _ordereddict_unflatten


def _defaultdict_flatten(d):
    values, keys = _dict_flatten(d)
    return values, [d.default_factory, keys]


def _defaultdict_flatten_with_keys(d):
    values, context = _defaultdict_flatten(d)
    return [(MappingKey(k), v) for k, v in zip(context[1], values)], context


def _defaultdict_unflatten(values, context):
    default_factory, keys = context
    return defaultdict(default_factory, _dict_unflatten(values, keys))


def _defaultdict_serialize(context):
    factory, keys = context
    return {"default_factory_module": factory.__module__,
            "default_factory_name": factory.__qualname__, "dict_context": keys}


def _defaultdict_deserialize(dumpable_context):
    module = importlib.import_module(dumpable_context["default_factory_module"])
    factory = getattr(module, dumpable_context["default_factory_name"])
    return [factory, dumpable_context["dict_context"]]


def _deque_flatten(d):
    return list(d), d.maxlen


def _deque_flatten_with_keys(d):
    return [(SequenceKey(i), v) for i, v in enumerate(d)], d.maxlen


def _deque_unflatten(values, context):
    return deque(values, maxlen=context)


_register = _private_register_pytree_node
_register(tuple, _tuple_flatten, _tuple_unflatten, serialized_type_name="builtins.tuple",
          flatten_with_keys_fn=_tuple_flatten_with_keys)
_register(list, _list_flatten, _list_unflatten, serialized_type_name="builtins.list",
          flatten_with_keys_fn=_list_flatten_with_keys)
_register(dict, _dict_flatten, _dict_unflatten, serialized_type_name="builtins.dict",
          flatten_with_keys_fn=_dict_flatten_with_keys)
_register(namedtuple, _namedtuple_flatten, _namedtuple_unflatten,
          serialized_type_name="collections.namedtuple", to_dumpable_context=_namedtuple_serialize,
          from_dumpable_context=_namedtuple_deserialize,
          flatten_with_keys_fn=_namedtuple_flatten_with_keys)
_register(OrderedDict, _ordereddict_flatten, _ordereddict_unflatten,
          serialized_type_name="collections.OrderedDict",
          flatten_with_keys_fn=_ordereddict_flatten_with_keys)
_register(defaultdict, _defaultdict_flatten, _defaultdict_unflatten,
          serialized_type_name="collections.defaultdict",
          to_dumpable_context=_defaultdict_serialize,
          from_dumpable_context=_defaultdict_deserialize,
          flatten_with_keys_fn=_defaultdict_flatten_with_keys)
_register(deque, _deque_flatten, _deque_unflatten, serialized_type_name="collections.deque",
          flatten_with_keys_fn=_deque_flatten_with_keys)
del _register

STANDARD_DICT_TYPES = frozenset({dict, OrderedDict, defaultdict})
BUILTIN_TYPES = frozenset({tuple, list, dict, namedtuple, OrderedDict, defaultdict, deque})


def _register_return_type(cls) -> None:
    """Register one of jtorch's op return types (``jtorch.max(x, 0)``'s ``values, indices``) as
    PyTorch's ``torch.return_types`` registers its structseqs: a node of its own type, no
    context. jtorch makes them as namedtuples in ``torch.return_types``, on first use, so they
    are registered here the first time one is flattened."""
    _private_register_pytree_node(
        cls, _tuple_flatten, lambda values, context: cls(*values),
        flatten_with_keys_fn=_tuple_flatten_with_keys)


def _get_node_type(tree):
    """The registry key of ``tree``: ``namedtuple`` for every namedtuple (as PyTorch), except
    jtorch's op return types, which are nodes of their own type."""
    node_type = type(tree)
    if is_namedtuple_class(node_type):
        if node_type.__module__ != "torch.return_types":
            return namedtuple
        with _NODE_REGISTRY_LOCK:
            if node_type not in SUPPORTED_NODES:
                _register_return_type(node_type)
    return node_type


def tree_is_leaf(tree, is_leaf=None) -> bool:
    """Whether ``tree`` is a leaf: ``is_leaf(tree)`` says so, or its type is not registered."""
    if is_leaf is not None and is_leaf(tree):
        return True
    return _get_node_type(tree) not in SUPPORTED_NODES


_is_leaf = _deprecated("torch.utils._pytree._is_leaf is private and will be removed in a future "
                       "release. Please use torch.utils._pytree.tree_is_leaf instead."
                       )(tree_is_leaf)
_is_namedtuple_instance = _deprecated(
    "torch.utils._pytree._is_namedtuple_instance is private and will be removed in a future "
    "release. Please use torch.utils._pytree.is_namedtuple_instance instead."
)(is_namedtuple_instance)


# ------------------------------------------------------------------ TreeSpec
@dataclasses.dataclass(init=False, frozen=True, eq=False, repr=False, slots=True)
class TreeSpec:
    """The structure of a pytree: the root's node ``type`` (None for a leaf), the ``context``
    its flatten function returned, and one spec per child. Immutable and hashable."""

    type: Any
    _context: Context
    _children: list
    num_nodes: int
    num_leaves: int
    num_children: int

    def __init__(self, type, context, children_specs):
        if type is None and (context is not None or children_specs):
            raise AssertionError("leaf node should not have a context"
                                 if context is not None else "leaf node should not have children")
        leaf = type is None
        set_ = functools.partial(object.__setattr__, self)
        set_("type", type)
        set_("_context", context)
        set_("_children", children_specs)
        set_("num_nodes", 1 + sum(c.num_nodes for c in children_specs))
        set_("num_leaves", 1 if leaf else sum(c.num_leaves for c in children_specs))
        set_("num_children", len(children_specs))

    def __repr__(self, indent: int = 0) -> str:
        if self.type is None:
            return "*"
        children = [c.__repr__(indent + 2) for c in self._children]
        body = (",\n" + " " * (indent + 2)).join(children)
        return f"TreeSpec({self.type.__name__}, {self._context}, [{body}])"

    def __eq__(self, other):
        if self is other:
            return True
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (str(self.type) == str(other.type) and self._context == other._context
                and self._children == other._children)

    def __hash__(self):
        t, ctx = self.type, self._context
        if t is defaultdict:
            ctx = (ctx[0], tuple(ctx[1]))
        elif t is dict or t is OrderedDict:
            ctx = tuple(ctx)
        elif isinstance(ctx, ConstantNode):
            ctx = ctx.value
        elif not (t is None or t in BUILTIN_TYPES):
            ctx = None   # a user type's context may be unhashable; equal specs still hash equal
        return hash((t, ctx, tuple(self._children)))

    @property
    def context(self):
        return self._context

    @property
    def children_specs(self):
        warnings.warn("`treespec.children_specs` is deprecated. Use `treespec.child(index)` to "
                      "access a single child, or `treespec.children()` to get all children.",
                      FutureWarning, stacklevel=2)
        return self._children

    def is_leaf(self) -> bool:
        return self.num_nodes == 1 and self.num_leaves == 1

    def children(self) -> list:
        return list(self._children)

    def child(self, index: int):
        return self._children[index]

    def flatten_up_to(self, tree) -> list:
        """The subtrees of ``tree`` at this spec's leaves; ``tree`` must have this spec's
        structure down to them (ValueError naming the first mismatch). Dict types may stand
        for one another and keys may come in any order; a deque's maxlen is not compared."""
        subtrees = []
        self._flatten_up_to(tree, subtrees)
        return subtrees

    def _flatten_up_to(self, node, subtrees):
        if self.is_leaf():
            subtrees.append(node)
            return
        node_type = _get_node_type(node)
        if self.type not in BUILTIN_TYPES:   # a registered type: all must match exactly
            if node_type != self.type:
                raise ValueError(f"Type mismatch; expected {self.type!r}, but got "
                                 f"{node_type!r}.")
            children, context = SUPPORTED_NODES[node_type].flatten_fn(node)
            self._check_arity(len(children))
            if context != self._context:
                raise ValueError(f"Node context mismatch for custom node type {self.type!r}.")
        elif self.type in STANDARD_DICT_TYPES and node_type in STANDARD_DICT_TYPES:
            self._check_arity(len(node))
            keys = self._context[1] if self.type is defaultdict else self._context
            if set(node) != set(keys):
                missing, extra = set(keys) - set(node), set(node) - set(keys)
                raise ValueError("Node keys mismatch"
                                 + (f"; missing key(s): {missing}" if missing else "")
                                 + (f"; extra key(s): {extra}" if extra else "") + ".")
            children = [node[k] for k in keys]
        else:
            if node_type != self.type:
                raise ValueError(f"Node type mismatch; expected {self.type!r}, but got "
                                 f"{node_type!r}.")
            self._check_arity(len(node))
            children, context = SUPPORTED_NODES[node_type].flatten_fn(node)
            if node_type is not deque and context != self._context:   # maxlen may differ
                raise ValueError(f"Node context mismatch for node type {self.type!r}; expected "
                                 f"{self._context!r}, but got {context!r}.")
        for child, spec in zip(children, self._children, strict=True):
            spec._flatten_up_to(child, subtrees)

    def _check_arity(self, n):
        if n != self.num_children:
            raise ValueError(f"Node arity mismatch; expected {self.num_children}, but got {n}.")

    def unflatten(self, leaves):
        """The pytree of this structure holding ``leaves`` (ValueError if their count
        differs from ``num_leaves``)."""
        if not isinstance(leaves, (list, tuple)):
            leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but "
                             f"the spec refers to a pytree that holds {self.num_leaves} items "
                             f"({self}).")
        if self.is_leaf():
            return leaves[0]
        children, start = [], 0
        for spec in self._children:
            children.append(spec.unflatten(leaves[start:start + spec.num_leaves]))
            start += spec.num_leaves
        return SUPPORTED_NODES[self.type].unflatten_fn(children, self._context)


PyTreeSpec = TreeSpec


class LeafSpec(TreeSpec):
    """The spec of a leaf (printed ``*``). Deprecated in PyTorch: use ``treespec_leaf()`` and
    ``spec.is_leaf()``."""
    __slots__ = ()

    def __init__(self):
        warnings.warn("`isinstance(treespec, LeafSpec)` is deprecated, use "
                      "`isinstance(treespec, TreeSpec) and treespec.is_leaf()` instead.",
                      FutureWarning, stacklevel=2)
        TreeSpec.__init__(self, None, None, [])


_LEAF_SPEC = object.__new__(LeafSpec)   # the one leaf spec flattening returns (no warning)
TreeSpec.__init__(_LEAF_SPEC, None, None, [])


def treespec_leaf():
    """The spec of a leaf."""
    return _LEAF_SPEC


def treespec_tuple(iterable=(), /):
    """The spec of a tuple whose children have the given specs."""
    children = list(iterable)
    if not all(isinstance(c, TreeSpec) for c in children):
        raise ValueError(f"Expected a tuple of TreeSpec values, got: {children!r}.")
    return TreeSpec(tuple, None, children)


def treespec_dict(mapping=(), /, **kwargs):
    """The spec of a dict whose values have the given specs."""
    d = dict(mapping, **kwargs)
    if not all(isinstance(c, TreeSpec) for c in d.values()):
        raise ValueError(f"Expected a dictionary of TreeSpec values, got: {d!r}.")
    return TreeSpec(dict, list(d), list(d.values()))


class _Asterisk(str):
    def __repr__(self):
        return "*"


_asterisk = _Asterisk("*")


def treespec_pprint(treespec) -> str:
    """The tree of this structure with ``*`` at every leaf, e.g. ``{'b': *, 'a': [*, *]}``."""
    return repr(tree_unflatten([_asterisk] * treespec.num_leaves, treespec))


def _is_pytreespec_instance(obj) -> bool:
    return isinstance(obj, TreeSpec)


def _ensure_python_treespec_instance(treespec):
    if not isinstance(treespec, TreeSpec):
        raise TypeError("Expected `treespec` to be an instance of PyTreeSpec but got item of "
                        f"type {type(treespec)}.")
    return treespec


# ------------------------------------------------------------------ flatten, map, query
def tree_flatten(tree, is_leaf=None):
    """``(leaves, treespec)``: the leaves of ``tree`` left to right and its structure."""
    leaves = []

    def walk(node):
        if tree_is_leaf(node, is_leaf):
            leaves.append(node)
            return _LEAF_SPEC
        node_type = _get_node_type(node)
        children, context = SUPPORTED_NODES[node_type].flatten_fn(node)
        return TreeSpec(node_type, context, [walk(c) for c in children])

    spec = walk(tree)
    return leaves, spec


def tree_unflatten(leaves, treespec):
    """The inverse of :func:`tree_flatten` (the two arguments may come in either order)."""
    if not isinstance(treespec, TreeSpec) and isinstance(leaves, TreeSpec):
        leaves, treespec = treespec, leaves
    return _ensure_python_treespec_instance(treespec).unflatten(leaves)


def tree_iter(tree, is_leaf=None):
    """The leaves of ``tree``, lazily."""
    if tree_is_leaf(tree, is_leaf):
        yield tree
        return
    children, _ = SUPPORTED_NODES[_get_node_type(tree)].flatten_fn(tree)
    for child in children:
        yield from tree_iter(child, is_leaf)


def tree_leaves(tree, is_leaf=None) -> list:
    return list(tree_iter(tree, is_leaf))


def tree_structure(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func, tree, *rests, is_leaf=None):
    """A tree of ``tree``'s structure holding ``func(leaf, *matching)``, where the ``rests``
    trees are cut at ``tree``'s leaves (``tree`` must be a prefix of each)."""
    leaves, spec = tree_flatten(tree, is_leaf)
    return spec.unflatten(map(func, leaves, *(spec.flatten_up_to(r) for r in rests)))


def tree_map_(func, tree, *rests, is_leaf=None):
    """Call ``func`` as :func:`tree_map` does, for its side effects; return ``tree``."""
    leaves, spec = tree_flatten(tree, is_leaf)
    deque(map(func, leaves, *(spec.flatten_up_to(r) for r in rests)), maxlen=0)
    return tree


def map_only(type_or_types_or_pred, /):
    """Decorator: apply ``func`` to the leaves that are instances of the type(s) (or pass the
    predicate); return any other leaf unchanged."""
    if isinstance(type_or_types_or_pred, (type, tuple, types.UnionType)):
        def pred(x):
            return isinstance(x, type_or_types_or_pred)
    elif callable(type_or_types_or_pred):
        pred = type_or_types_or_pred
    else:
        raise TypeError("Argument must be a type, a tuple of types, or a callable.")

    def wrapper(func):
        @functools.wraps(func)
        def wrapped(x):
            return func(x) if pred(x) else x
        return wrapped
    return wrapper


def tree_map_only(type_or_types_or_pred, /, func, tree, is_leaf=None):
    return tree_map(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types_or_pred, /, func, tree, is_leaf=None):
    return tree_map_(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None) -> bool:
    return all(map(pred, tree_iter(tree, is_leaf)))


def tree_any(pred, tree, is_leaf=None) -> bool:
    return any(map(pred, tree_iter(tree, is_leaf)))


def tree_all_only(type_or_types, /, pred, tree, is_leaf=None) -> bool:
    return all(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def tree_any_only(type_or_types, /, pred, tree, is_leaf=None) -> bool:
    return any(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def arg_tree_leaves(*args, **kwargs) -> list:
    """``tree_leaves((args, kwargs))``, faster."""
    return [leaf for a in (*args, *kwargs.values()) for leaf in tree_iter(a)]


def _broadcast_to_and_flatten(tree, treespec, is_leaf=None):
    """``tree`` (a prefix of ``treespec``'s structure) repeated out to its leaves, flat; None
    if it is no prefix (vmap's ``in_dims`` against its inputs)."""
    full = tree_unflatten([0] * treespec.num_leaves, treespec)
    out = []
    try:
        tree_map_(lambda x, sub: out.extend([x] * tree_structure(sub, is_leaf).num_leaves),
                  tree, full, is_leaf=is_leaf)
    except ValueError:
        return None
    return out


# ------------------------------------------------------------------ key paths
def _generate_key_paths(path, tree, is_leaf=None):
    if (is_leaf and is_leaf(tree)) or tree_is_leaf(tree):
        yield path, tree
        return
    node_type = _get_node_type(tree)
    with_keys = SUPPORTED_NODES[node_type].flatten_with_keys_fn
    if with_keys is None:
        raise ValueError(f"Did not find a flatten_with_keys_fn for type: {node_type}. "
                         "Please pass a flatten_with_keys_fn argument to register_pytree_node.")
    for key, child in with_keys(tree)[0]:
        yield from _generate_key_paths((*path, key), child, is_leaf)


def tree_flatten_with_path(tree, is_leaf=None):
    """``([(key_path, leaf), ...], treespec)``; a key path is a tuple of key entries."""
    return list(_generate_key_paths((), tree, is_leaf)), tree_structure(tree, is_leaf)


def tree_leaves_with_path(tree, is_leaf=None) -> list:
    return list(_generate_key_paths((), tree, is_leaf))


def tree_map_with_path(func, tree, *rests, is_leaf=None):
    """:func:`tree_map` with ``func(key_path, leaf, *matching)``."""
    pairs, spec = tree_flatten_with_path(tree, is_leaf)
    paths, leaves = list(zip(*pairs)) or ((), ())
    rest_leaves = [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(func(*xs) for xs in zip(paths, leaves, *rest_leaves, strict=True))


# ------------------------------------------------------------------ JSON serialization
class EnumEncoder(json.JSONEncoder):
    """JSON for Enum members in contexts: ``{"__enum__": true, "fqn": ..., "name": ...}``."""

    def default(self, obj):
        if isinstance(obj, Enum):
            cls = type(obj)
            return {"__enum__": True, "fqn": f"{cls.__module__}:{cls.__qualname__}",
                    "name": obj.name}
        return super().default(obj)


def enum_object_hook(obj):
    """The inverse of :class:`EnumEncoder` for ``json.loads``."""
    if "__enum__" not in obj:
        return obj
    module, _, qualname = obj["fqn"].partition(":")
    cls = functools.reduce(getattr, qualname.split("."), importlib.import_module(module))
    return cls[obj["name"]]


def _treespec_to_json(spec) -> dict:
    if spec.is_leaf():
        return {"type": None, "context": None, "children_spec": []}
    node = SUPPORTED_SERIALIZED_TYPES.get(spec.type)
    if node is None:
        raise NotImplementedError(f"Serializing {spec.type} in pytree is not registered.")
    if node.serialized_type_name == NO_SERIALIZED_TYPE_NAME_FOUND:
        raise NotImplementedError(
            f"No registered serialization name for {spec.type} found. Please update your "
            "_register_pytree_node call with a `serialized_type_name` kwarg.")
    if node.to_dumpable_context is not None:
        context = node.to_dumpable_context(spec._context)
    else:
        try:
            context = json.dumps(spec._context, cls=EnumEncoder)
        except TypeError as e:
            raise TypeError("Unable to serialize context. Please make the context json "
                            "dump-able, or register a custom serializer using "
                            "_register_pytree_node.") from e
    return {"type": node.serialized_type_name, "context": context,
            "children_spec": [_treespec_to_json(c) for c in spec._children]}


def _json_to_treespec(schema: dict):
    if schema["type"] is None and schema["context"] is None and not schema["children_spec"]:
        return _LEAF_SPEC
    if schema["type"] not in SERIALIZED_TYPE_TO_PYTHON_TYPE:
        raise NotImplementedError(f"Deserializing {schema['type']} in pytree is not registered.")
    typ = SERIALIZED_TYPE_TO_PYTHON_TYPE[schema["type"]]
    from_dumpable = SUPPORTED_SERIALIZED_TYPES[typ].from_dumpable_context
    context = (from_dumpable(schema["context"]) if from_dumpable is not None
               else json.loads(schema["context"], object_hook=enum_object_hook))
    return TreeSpec(typ, context, [_json_to_treespec(c) for c in schema["children_spec"]])


_SUPPORTED_PROTOCOLS = {1: (_treespec_to_json, _json_to_treespec)}


def _check_protocol(protocol):
    if protocol not in _SUPPORTED_PROTOCOLS:
        raise ValueError(f"Unknown protocol {protocol}. "
                         f"Available protocols: {list(_SUPPORTED_PROTOCOLS)}")
    return _SUPPORTED_PROTOCOLS[protocol]


def treespec_dumps(treespec, protocol=None) -> str:
    """``treespec`` as the JSON text PyTorch writes (``[protocol, {"type", "context",
    "children_spec"}]``); node types need a ``serialized_type_name``."""
    protocol = DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL if protocol is None else protocol
    schema = _check_protocol(protocol)[0](_ensure_python_treespec_instance(treespec))
    return json.dumps((protocol, schema), cls=EnumEncoder)


@functools.lru_cache
def treespec_loads(serialized: str):
    """The TreeSpec that :func:`treespec_dumps` (jtorch's or PyTorch's) wrote."""
    protocol, schema = json.loads(serialized)
    return _check_protocol(protocol)[1](schema)


pytree_to_str = _deprecated("`pytree_to_str` is deprecated. Please use `treespec_dumps` "
                            "instead.")(treespec_dumps)
str_to_pytree = _deprecated("`str_to_pytree` is deprecated. Please use `treespec_loads` "
                            "instead.")(treespec_loads)

# PyTorch's names for its optree (C++ pytree) bridge, which jtorch does not have
__getattr__ = missing_names("torch.utils._pytree", [
    "_cxx_pytree_imported", "_cxx_pytree_pending_imports", "_optree_version",
    "_optree_minimum_version", "_TreeSpecSchema", "_ProtocolFn"])
