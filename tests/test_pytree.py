"""jtorch.utils._pytree against PyTorch's torch.utils._pytree: leaves, TreeSpec text and sizes,
round trips, tree_map, key paths, serialization, and the errors (type and full message)."""

import ast
import collections
import json
import pathlib
import sys

import pytest
import torch
import torch.utils._pytree as tp

import jtorch
import jtorch.utils._pytree as jp

Point = collections.namedtuple("Point", ["x", "y"])


class Pair:
    """A container both libraries learn about through register_pytree_node."""

    def __init__(self, first, second):
        self.first, self.second = first, second

    def __repr__(self):
        return f"Pair({self.first!r}, {self.second!r})"


def _pair_flatten(p):
    return [p.first, p.second], "pair"


def _pair_unflatten(values, context):
    return Pair(*values)


@pytest.fixture(scope="module", autouse=True)
def pair_registered():
    for lib in (tp, jp):
        lib.register_pytree_node(
            Pair, _pair_flatten, _pair_unflatten, serialized_type_name="tests.Pair",
            flatten_with_keys_fn=lambda p, lib=lib: (
                [(lib.GetAttrKey("first"), p.first), (lib.GetAttrKey("second"), p.second)],
                "pair"))
    yield
    for lib in (tp, jp):
        lib._deregister_pytree_node(Pair)


def _trees(lib):
    """The same trees built with torch (``lib is torch``) or jtorch tensors."""
    m = lib.tensor([[1.0, 5.0], [3.0, 2.0]])
    return [
        {"b": [1, (2.5, None)], "a": {"z": "s", "y": []}},
        Point(x=[1, 2], y={"k": 3}),
        collections.OrderedDict([("z", 1), ("a", [2, 3])]),
        collections.defaultdict(list, {"q": 1, "b": (2,)}),
        collections.deque([1, [2, 3]], maxlen=5),
        None, 7, (), [], {},
        [lib.ones(2), {"w": lib.zeros(3), "n": None}],
        Pair(1, [2, Point(3, 4)]),
        lib.max(m, 0),
        {"out": lib.max(m, 1), "k": [m]},
    ]


CASES = range(len(_trees(torch)))


def _plain(x):
    """A leaf as comparable data: tensors (either library's) become their values."""
    return ("tensor", x.tolist()) if hasattr(x, "tolist") and hasattr(x, "shape") else x


@pytest.mark.parametrize("i", CASES)
def test_flatten_matches_torch(i):
    t_tree, j_tree = _trees(torch)[i], _trees(jtorch)[i]
    t_leaves, t_spec = tp.tree_flatten(t_tree)
    j_leaves, j_spec = jp.tree_flatten(j_tree)
    assert [_plain(x) for x in j_leaves] == [_plain(x) for x in t_leaves]
    assert repr(j_spec) == repr(t_spec)
    assert jp.treespec_pprint(j_spec) == tp.treespec_pprint(t_spec)
    for attr in ("num_leaves", "num_nodes", "num_children"):
        assert getattr(j_spec, attr) == getattr(t_spec, attr), attr
    assert j_spec.is_leaf() == t_spec.is_leaf()
    assert jp.tree_is_leaf(j_tree) == tp.tree_is_leaf(t_tree)
    assert [repr(c) for c in j_spec.children()] == [repr(c) for c in t_spec.children()]
    assert [_plain(x) for x in jp.tree_leaves(j_tree)] == [_plain(x) for x in t_leaves]
    # round trip: same structure, same leaves, same root type
    rebuilt = jp.tree_unflatten(j_leaves, j_spec)
    assert type(rebuilt).__name__ == type(tp.tree_unflatten(t_leaves, t_spec)).__name__
    assert jp.tree_structure(rebuilt) == j_spec
    assert hash(jp.tree_structure(rebuilt)) == hash(j_spec)
    assert [_plain(x) for x in jp.tree_leaves(rebuilt)] == [_plain(x) for x in t_leaves]


@pytest.mark.parametrize("i", CASES)
def test_paths_and_maps_match_torch(i):
    t_tree, j_tree = _trees(torch)[i], _trees(jtorch)[i]
    t_paths, _ = tp.tree_flatten_with_path(t_tree)
    j_paths, _ = jp.tree_flatten_with_path(j_tree)
    assert [(repr(kp), jp.keystr(kp), _plain(v)) for kp, v in j_paths] == \
           [(repr(kp), tp.keystr(kp), _plain(v)) for kp, v in t_paths]
    for kp, v in j_paths:
        assert jp.key_get(j_tree, kp) is v

    def tag(x):
        return ("leaf", _plain(x))

    j_mapped, t_mapped = jp.tree_map(tag, j_tree), tp.tree_map(tag, t_tree)
    assert repr(jp.tree_structure(j_mapped)) == repr(tp.tree_structure(t_mapped))
    assert jp.tree_leaves(j_mapped) == tp.tree_leaves(t_mapped)
    only = jp.tree_map_only(int, lambda x: x * 10, j_tree)
    assert jp.tree_leaves(jp.tree_map(_plain, only)) == \
        tp.tree_leaves(tp.tree_map(_plain, tp.tree_map_only(int, lambda x: x * 10, t_tree)))
    with_path = jp.tree_map_with_path(lambda kp, x: jp.keystr(kp), j_tree)
    assert jp.tree_leaves(with_path) == \
        tp.tree_leaves(tp.tree_map_with_path(lambda kp, x: tp.keystr(kp), t_tree))


def test_tree_map_with_rests_and_predicates():
    tree, rest = [5, {"a": 6, "b": None}], [[7, 9], {"b": (1, 2), "a": 3}]
    for lib in (tp, jp):
        assert lib.tree_map(lambda x, y: (x, y), tree, rest) == \
            [(5, [7, 9]), {"a": (6, 3), "b": (None, (1, 2))}]
        assert lib.tree_map(lambda x: x, [1, (2, 3)], is_leaf=lambda x: isinstance(x, tuple)) \
            == [1, (2, 3)]
        seen = []
        assert lib.tree_map_(seen.append, tree) is tree and seen == [5, 6, None]
        assert lib.tree_all(lambda x: x is None or x > 0, tree)
        assert lib.tree_any_only(int, lambda x: x > 5, tree)
        assert not lib.tree_all_only(int, lambda x: x > 5, tree)
        assert lib.arg_tree_leaves(1, [2], k={"z": 3}) == [1, 2, 3]
    # dict types stand for one another in the trees cut to a dict's structure
    od = collections.OrderedDict(b=1, a=2)
    assert jp.tree_map(lambda x, y: x + y, {"a": 1, "b": 2}, od) == \
        tp.tree_map(lambda x, y: x + y, {"a": 1, "b": 2}, od)
    assert jp._broadcast_to_and_flatten(0, jp.tree_structure([1, (2, 3)])) == \
        tp._broadcast_to_and_flatten(0, tp.tree_structure([1, (2, 3)])) == [0, 0, 0]


P2 = collections.namedtuple("P2", ["x", "y"])


@pytest.mark.parametrize("tree,rest", [
    ([1, 2], [1, 2, 3]),
    ([1, 2], (1, 2)),
    (Point(1, 2), P2(1, 2)),
    ({"a": 1, "b": 2}, {"a": 1, "c": 2}),
    (Pair(1, 2), [1, 2]),
])
def test_tree_map_mismatch_errors(tree, rest):
    with pytest.raises(ValueError) as t_err:
        tp.tree_map(lambda x, y: x, tree, rest)
    with pytest.raises(ValueError) as j_err:
        jp.tree_map(lambda x, y: x, tree, rest)
    assert str(j_err.value) == str(t_err.value)


def _raised(fn):
    with pytest.raises(Exception) as err:
        fn()
    return type(err.value), str(err.value)


@pytest.mark.parametrize("call", [
    lambda lib: lib.tree_unflatten([1, 2, 3], lib.tree_structure([1, [2]])),
    lambda lib: lib.tree_unflatten([1], [1]),
    lambda lib: lib.register_pytree_node(list, lib._list_flatten, lib._list_unflatten),
    lambda lib: lib.treespec_dumps(lib.tree_structure(Point(1, 2))),
    lambda lib: lib.treespec_dumps(lib.tree_structure([1]), 2),
    lambda lib: lib.map_only(3),
])
def test_errors_match_torch(call):
    assert _raised(lambda: call(jp)) == _raised(lambda: call(tp))


def test_treespec_objects():
    leaf = jp.treespec_leaf()
    assert leaf.is_leaf() and repr(leaf) == "*" and isinstance(leaf, jp.LeafSpec)
    assert jp.tree_flatten(None) == ([None], leaf)
    with pytest.warns(FutureWarning, match="LeafSpec"):
        assert jp.LeafSpec() == leaf
    spec = jp.treespec_dict({"b": leaf, "a": jp.treespec_tuple([leaf, leaf])})
    t_leaf = tp.treespec_leaf()
    t_spec = tp.treespec_dict({"b": t_leaf, "a": tp.treespec_tuple([t_leaf, t_leaf])})
    assert repr(spec) == repr(t_spec) == "TreeSpec(dict, ['b', 'a'], [*,\n  TreeSpec(tuple, " \
                                         "None, [*,\n    *])])"
    assert spec == jp.tree_structure({"b": 0, "a": (1, 2)}) != jp.tree_structure({"a": 0})
    assert spec.child(1) == jp.treespec_tuple([leaf, leaf]) and spec.context == ["b", "a"]
    assert spec.flatten_up_to({"a": (1, [2]), "b": 3}) == [3, 1, [2]]
    assert len({spec, jp.tree_structure({"b": 0, "a": (1, 2)})}) == 1
    assert jp.SUPPORTED_NODES[dict] == jp.NodeDef(dict, jp._dict_flatten, jp._dict_unflatten,
                                                  jp._dict_flatten_with_keys)
    assert str(jp.MappingKey("a")) == str(tp.MappingKey("a")) == "['a']"
    assert repr(jp.SequenceKey(0)) == repr(tp.SequenceKey(0))
    assert jp.GetAttrKey("x").get(Point(1, 2)) == 1
    import pickle
    assert pickle.loads(pickle.dumps(spec)) == spec


def test_treespec_json_both_ways():
    trees = [{"b": [1, (2, None)], "a": 3}, collections.OrderedDict(z=1, a=[2]),
             collections.defaultdict(list, {"q": 1}), collections.deque([1, 2], maxlen=3),
             Pair(1, (2, 3))]
    for tree in trees:
        t_text, j_text = tp.treespec_dumps(tp.tree_structure(tree)), \
            jp.treespec_dumps(jp.tree_structure(tree))
        assert json.loads(j_text) == json.loads(t_text)
        assert repr(tp.treespec_loads(j_text)) == repr(jp.treespec_loads(t_text)) \
            == repr(jp.tree_structure(tree))


def test_op_return_types():
    j, t = jtorch.max(jtorch.ones(2, 2), 0), torch.max(torch.ones(2, 2), 0)
    assert tp.is_structseq(t) and type(j) in jp.SUPPORTED_NODES
    assert jp.tree_structure(j).type is type(j) and jp.tree_structure(j).context is None
    with pytest.raises(ValueError, match="Type mismatch"):
        jp.tree_map(lambda x, y: x, j, (1, 2))


def test_registration_helpers():
    class Fresh(Pair):
        pass

    try:
        with pytest.warns(FutureWarning, match="register_pytree_node` instead"):
            jp._register_pytree_node(Fresh, _pair_flatten, _pair_unflatten)
        with pytest.warns(UserWarning, match="already registered as pytree node. Overwriting"):
            jp._private_register_pytree_node(Fresh, _pair_flatten, _pair_unflatten)
        assert jp.tree_leaves(Fresh(1, [2])) == [1, 2]
        with pytest.raises(ValueError, match="Did not find a flatten_with_keys_fn"):
            jp.tree_flatten_with_path(Fresh(1, 2))
    finally:
        jp._deregister_pytree_node(Fresh)

    import dataclasses

    @dataclasses.dataclass
    class Box:
        a: object
        b: object = None

    jp.register_dataclass(Box)
    try:
        leaves, spec = jp.tree_flatten(Box([1, 2]))
        assert leaves == [1, 2] and jp.tree_unflatten([3, 4], spec) == Box([3, 4])
        assert jp.keystr(jp.tree_leaves_with_path(Box(1))[0][0]) == ".a"
    finally:
        jp._deregister_pytree_node(Box)
    assert jp.tree_is_leaf(Box(1))


def test_module_surface():
    assert set(tp.__all__) <= set(dir(jp)) and set(jp.__all__) == set(tp.__all__)
    for name in ["_dict_flatten", "_list_flatten_with_keys", "_namedtuple_unflatten",
                 "_ordereddict_flatten", "_defaultdict_unflatten", "_deque_flatten",
                 "register_constant", "register_dataclass", "treespec_leaf", "map_only",
                 "FlattenFunc", "UnflattenFunc", "KeyEntry", "KeyPath", "STANDARD_DICT_TYPES"]:
        assert hasattr(jp, name), name
    with pytest.raises(NotImplementedError, match="torch.utils._pytree._optree_version"):
        jp._optree_version
    assert not hasattr(jp, "_optree_version") and not hasattr(jp, "no_such_name")
    # a leaf utility: the standard library and jtorch's error helpers, nothing else
    source = pathlib.Path(jp.__file__).read_text()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level:
            assert node.module == "_core.errors", node.module
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) \
                else [node.module]
            assert all(n.split(".")[0] in sys.stdlib_module_names for n in names), names
