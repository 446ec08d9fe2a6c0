"""``torch.fx.subgraph_rewriter``: ``replace_pattern`` rewrites every place of a GraphModule's
graph that computes what ``pattern`` computes into what ``replacement`` computes, as PyTorch's.

Both are functions (traced with ``symbolic_trace``), Graphs or GraphModules. The matches are
:class:`~jtorch.fx.passes.utils.matcher_utils.SubgraphMatcher`'s (non-overlapping, each used
only through what it returns); each is replaced in turn: the replacement's nodes are copied in
before the first user of what the match returns, its placeholders bound to the values the
pattern's placeholders matched, the returned values' uses moved to the copies, and the matched
nodes erased.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import NamedTuple

from ..nn.modules.module import Module
from ._symbolic_trace import symbolic_trace
from .graph import Graph
from .graph_module import GraphModule, _get_attr
from .node import Node
from .passes.utils.matcher_utils import SubgraphMatcher

__all__ = ["Match", "ReplacedPatterns", "replace_pattern", "replace_pattern_with_filters"]


class Match(NamedTuple):
    """A replaced match: the graph node its ``anchor`` matched, and pattern node -> graph
    node."""

    anchor: Node
    nodes_map: dict


@dataclasses.dataclass
class ReplacedPatterns:
    """A replaced match, with the nodes the replacement added (``replacements``)."""

    anchor: Node
    nodes_map: dict
    replacements: list


def replace_pattern(gm, pattern, replacement):
    """Replace every match of ``pattern`` in ``gm``'s graph by ``replacement`` (see the module
    docstring); returns the matches (:class:`Match`) and recompiles ``gm``."""
    return [Match(anchor=m.anchor, nodes_map=m.nodes_map)
            for m in _replace_pattern(gm, pattern, replacement)]


def replace_pattern_with_filters(gm, pattern, replacement=None, match_filters=None,
                                 ignore_literals=False, replacement_callback=None,
                                 node_name_match=""):
    """:func:`replace_pattern`, keeping only the matches that every ``match_filters``
    function (``(match, original_graph, pattern_graph) -> bool``) accepts; non-node
    arguments match anything with ``ignore_literals``; ``replacement_callback(match,
    original_graph, pattern_graph)`` gives each match's replacement graph. Returns
    :class:`ReplacedPatterns`."""
    return _replace_pattern(gm, pattern, replacement, match_filters, ignore_literals,
                            replacement_callback, node_name_match)


def _graph_of(fn):
    if isinstance(fn, GraphModule):
        return fn.graph
    if isinstance(fn, Graph):
        return fn
    return symbolic_trace(fn).graph


def _replace_pattern(gm, pattern, replacement, match_filters=None, ignore_literals=False,
                     replacement_callback=None, node_name_match=""):
    graph = gm.graph
    pattern_graph = _graph_of(pattern)
    matcher = SubgraphMatcher(pattern_graph, match_output=False, match_placeholder=False,
                              remove_overlapping_matches=True, ignore_literals=ignore_literals)
    matches = [m for m in matcher.match(graph, node_name_match=node_name_match)
               if all(f(m, graph, pattern_graph) for f in match_filters or ())]
    if replacement is None and replacement_callback is None:
        raise AssertionError(
            "Must provide either a replacement GraphModule or a replacement callback")
    common = _graph_of(replacement) if replacement is not None else None
    changed = {}   # a returned node of an earlier match -> the copy that replaced it
    replaced = []
    for match in matches:
        target = replacement_callback(match, graph, pattern_graph) \
            if replacement_callback is not None else common
        placeholders = [n for n in target.nodes if n.op == "placeholder"]
        if len(match.placeholder_nodes) != len(placeholders):
            raise AssertionError(f"Placeholder count mismatch: {len(match.placeholder_nodes)} "
                                 f"vs {len(placeholders)}")
        val_map = {}
        for rn, gn in zip(placeholders, match.placeholder_nodes):
            val_map[rn] = changed.get(gn, gn) if isinstance(gn, Node) else gn
            if isinstance(gn, Node) and val_map[rn] is not gn:   # replaced by an earlier match
                match.placeholder_nodes[match.placeholder_nodes.index(gn)] = val_map[rn]
                for pn, mapped in match.nodes_map.items():
                    if mapped is gn:
                        match.nodes_map[pn] = val_map[rn]
                        break
        with graph.inserting_before(_insert_point(graph, match)):
            copied = graph.graph_copy(target, val_map)
        copied = (copied,) if isinstance(copied, Node) else copied
        if len(match.returning_nodes) != len(copied):
            raise AssertionError(f"Returning nodes count mismatch: "
                                 f"{len(match.returning_nodes)} vs {len(copied)}")
        for gn, new in zip(match.returning_nodes, copied):
            gn.replace_all_uses_with(new)
            changed[gn] = new
        for pn in reversed(pattern_graph.nodes):
            if pn.op not in ("placeholder", "output"):
                graph.erase_node(match.nodes_map[pn])
        added = [v for v in val_map.values() if v not in match.placeholder_nodes]
        replaced.append(ReplacedPatterns(anchor=match.anchors[0], nodes_map=match.nodes_map,
                                         replacements=added))
    gm.recompile()
    if isinstance(replacement, Module):
        _replace_attributes(gm, replacement)
    return replaced


def _insert_point(graph, match):
    """Where a match's replacement goes: before the first user of what it returns, or (with
    no users) after the last of the returned nodes."""
    users = {u for n in match.returning_nodes for u in n.users}
    if users:
        return next(n for n in graph.nodes if n in users)
    following = None
    for n in reversed(graph.nodes):
        if n in match.returning_nodes:
            break
        following = n
    if following is None:
        raise AssertionError("The insert point can't be None")
    return following


def _replace_attributes(gm, replacement):
    """The submodules and attributes the copied nodes name, copied from ``replacement`` into
    ``gm`` where it lacks them (after deleting the submodules ``gm`` no longer uses)."""
    gm.delete_all_unused_submodules()
    for node in gm.graph.nodes:
        if node.op not in ("call_module", "get_attr"):
            continue
        if _try_get_attr(gm, node.target) is not None:
            continue
        value = _try_get_attr(replacement, node.target)
        if value is None:
            raise RuntimeError('Attempted to create a "', node.op,
                               '" node during subgraph rewriting '
                               f"with target {node.target}, but the referenced attribute "
                               "does not exist in the replacement GraphModule")
        value = copy.deepcopy(value)
        if isinstance(value, Module):
            gm.add_submodule(node.target, value)
        else:
            setattr(gm, node.target, value)
    gm.graph.lint()


def _try_get_attr(module, target):
    try:
        return _get_attr(module, target)
    except AttributeError:
        return None
