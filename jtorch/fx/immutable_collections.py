"""torch.fx.immutable_collections: the list and dict types a Node's ``args`` and ``kwargs``
hold (``map_aggregate`` makes them), which refuse in-place changes: a node's uses are kept
current only by assigning ``node.args``/``node.kwargs`` anew."""

from __future__ import annotations

from ..utils._pytree import register_pytree_node

__all__ = ["immutable_dict", "immutable_list"]

_HELP = ("'{}' object does not support mutation. If you are attempting to modify the kwargs "
         "or args of a torch.fx.Node object,\ninstead create a new copy of it and assign the "
         "copy to the node:\n\n    new_args = ...  # copy and mutate args\n"
         "    node.args = new_args")


def _no_mutation(self, *args, **kwargs):
    raise TypeError(_HELP.format(type(self).__name__))


class immutable_list(list):  # noqa: N801 - PyTorch's name
    """A list that refuses changes in place (hashable, as a tuple of its items)."""

    __delitem__ = __iadd__ = __imul__ = __setitem__ = _no_mutation
    append = clear = extend = insert = pop = remove = reverse = sort = _no_mutation

    def __hash__(self):
        return hash(tuple(self))

    def __reduce__(self):
        return immutable_list, (tuple(self),)


class immutable_dict(dict):  # noqa: N801 - PyTorch's name
    """A dict that refuses changes in place (hashable, as a tuple of its items)."""

    __delitem__ = __ior__ = __setitem__ = _no_mutation
    clear = pop = popitem = setdefault = update = _no_mutation

    def __hash__(self):
        return hash(tuple(self.items()))

    def __reduce__(self):
        return immutable_dict, (tuple(self.items()),)


register_pytree_node(immutable_list, lambda x: (list(x), None),
                     lambda values, _: immutable_list(values))
register_pytree_node(immutable_dict, lambda x: (list(x.values()), list(x)),
                     lambda values, keys: immutable_dict(zip(keys, values)))
