"""PyTorch's pytree rules for torch.func: tuples, lists, dicts and namedtuples are nodes, every
other object (Tensors, numbers, ``None``) is a leaf. Specs print as PyTorch's ``TreeSpec`` does,
so the error texts that show a structure read the same."""

from __future__ import annotations

from collections import OrderedDict, defaultdict


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


class Spec:
    """A tree's structure: ``kind`` (None for a leaf), ``context`` and child specs."""

    __slots__ = ("kind", "context", "children", "num_leaves")

    def __init__(self, kind=None, context=None, children=()):
        self.kind = kind
        self.context = context
        self.children = tuple(children)
        self.num_leaves = 1 if kind is None else sum(c.num_leaves for c in self.children)

    def is_leaf(self):
        return self.kind is None

    def __eq__(self, other):
        if not isinstance(other, Spec):
            return NotImplemented
        return (self.kind is other.kind and self.context == other.context
                and self.children == other.children)

    def __hash__(self):
        return hash((self.kind, self.children))

    def __repr__(self, indent=0):  # PyTorch's TreeSpec.__repr__
        if self.kind is None:
            return "*"
        ctx = self.context
        if self.kind in (dict, OrderedDict):
            ctx = list(ctx)
        elif self.kind is defaultdict:
            ctx = [ctx[0], list(ctx[1])]
        out = f"TreeSpec({self.kind.__name__}, {ctx}, ["
        if self.children:
            indent += 2
            out += self.children[0].__repr__(indent)
            out += "," if len(self.children) > 1 else ""
            out += ",".join("\n" + " " * indent + c.__repr__(indent) for c in self.children[1:])
        return out + "])"

    def pprint(self):
        """PyTorch's ``treespec_pprint``: the tree with ``*`` at every leaf."""
        return repr(unflatten([_STAR] * self.num_leaves, self))


class _Star:
    def __repr__(self):
        return "*"


_STAR = _Star()
LEAF = Spec()


def _children(x):
    """(kind, context, children) of a node, or None for a leaf."""
    t = type(x)
    if t is tuple or t is list:
        return t, None, list(x)
    if _is_namedtuple(x):
        return t, t, list(x)
    if t is dict or t is OrderedDict:
        return t, list(x.keys()), list(x.values())
    if t is defaultdict:
        return t, (x.default_factory, list(x.keys())), list(x.values())
    return None


def flatten(tree):
    """(leaves, spec) in PyTorch's order."""
    leaves = []
    spec = _flatten(tree, leaves)
    return leaves, spec


def _flatten(x, leaves):
    node = _children(x)
    if node is None:
        leaves.append(x)
        return LEAF
    kind, ctx, kids = node
    return Spec(kind, tuple(ctx) if isinstance(ctx, list) else ctx,
                [_flatten(k, leaves) for k in kids])


def unflatten(leaves, spec):
    it = iter(leaves)
    return _build(spec, it)


def _build(spec, it):
    if spec.kind is None:
        return next(it)
    kids = [_build(c, it) for c in spec.children]
    k = spec.kind
    if k is tuple:
        return tuple(kids)
    if k is list:
        return kids
    if k is dict or k is OrderedDict:
        return k(zip(spec.context, kids))
    if k is defaultdict:
        return defaultdict(spec.context[0], zip(spec.context[1], kids))
    return k(*kids)  # namedtuple


def tree_map(fn, tree):
    leaves, spec = flatten(tree)
    return unflatten([fn(x) for x in leaves], spec)


def broadcast_to_and_flatten(prefix, spec):
    """The leaves of ``prefix`` repeated over the matching subtrees of ``spec`` (PyTorch's
    ``_broadcast_to_and_flatten``); None when ``prefix`` is not a prefix of ``spec``."""
    out = []
    if not _broadcast(prefix, spec, out):
        return None
    return out


def _broadcast(prefix, spec, out):
    node = _children(prefix)
    if node is None:
        out.extend([prefix] * spec.num_leaves)
        return True
    kind, ctx, kids = node
    if spec.kind is not kind or len(kids) != len(spec.children):
        return False
    if kind in (dict, OrderedDict, defaultdict):
        keys = ctx[1] if kind is defaultdict else ctx
        skeys = spec.context[1] if kind is defaultdict else spec.context
        if set(keys) != set(skeys):
            return False
        by_key = dict(zip(keys, kids))
        kids = [by_key[k] for k in skeys]
    return all(_broadcast(k, s, out) for k, s in zip(kids, spec.children))
