"""``torch.fx.passes.utils.matcher_utils``: :class:`SubgraphMatcher` finds the places in a
graph that compute what a pattern graph computes, as PyTorch's matcher does.

The pattern's anchors (the nodes its output returns that nothing else in it uses) are tried
against every node of the graph; from each pair the two graphs are walked backwards together
(a value has one producer but many consumers), node against node: same opcode and target, the
same number of arguments and keyword names, arguments matching in turn. A pattern placeholder
matches any value, once. A match is kept when its inner nodes are used only inside it, when
fusing it would make no cycle, and (``remove_overlapping_matches``) when it shares no node
with an earlier match.
"""

from __future__ import annotations

import copy
import dataclasses

from ...._tensor import Tensor
from ...graph_module import _get_attr
from ...node import Node

__all__ = ["InternalMatch", "SubgraphMatcher"]


@dataclasses.dataclass
class InternalMatch:
    """One match: ``anchors`` (the pattern's), ``nodes_map`` (pattern node -> graph node), the
    graph's nodes matched by the pattern's placeholders and by what its output returns."""

    anchors: list
    nodes_map: dict = dataclasses.field(default_factory=dict)
    placeholder_nodes: list = dataclasses.field(default_factory=list)
    returning_nodes: list = dataclasses.field(default_factory=list)
    name_node_map: dict = dataclasses.field(default_factory=dict)

    def __copy__(self):
        return InternalMatch(anchors=self.anchors, nodes_map=self.nodes_map.copy(),
                             placeholder_nodes=self.placeholder_nodes.copy(),
                             returning_nodes=self.returning_nodes.copy())


class SubgraphMatcher:
    """Matches ``pattern`` (a Graph) in other graphs (see the module docstring).

    Args:
        match_output: the pattern's output node is part of the pattern (default: ignored).
        match_placeholder: its placeholders match only placeholders (default: any value).
        remove_overlapping_matches: keep only the first of matches that share nodes.
        ignore_literals: arguments that are not nodes match whatever they are.
    """

    def __init__(self, pattern, match_output=False, match_placeholder=False,
                 remove_overlapping_matches=True, ignore_literals=False):
        self.pattern = pattern
        self.match_output = match_output
        self.match_placeholder = match_placeholder
        self.remove_overlapping_matches = remove_overlapping_matches
        self.ignore_literals = ignore_literals
        if len(pattern.nodes) == 0:
            raise ValueError("SubgraphMatcher cannot be initialized with an empty pattern")
        for node in pattern.nodes:
            if node.op != "output" and not node.is_impure() and len(node.users) == 0:
                raise AssertionError(
                    "SubgraphMatcher cannot be initialized with an pattern with dead code")
        self.pattern_placeholder_nodes = [n for n in pattern.nodes if n.op == "placeholder"]
        output_node = next(iter(reversed(pattern.nodes)))
        self.pattern_returning_nodes = output_node.all_input_nodes
        self.pattern_anchors = [output_node] if match_output else [
            n for n in output_node.all_input_nodes if len(n.users) == 1]

    # ------------------------------------------------------------ one pair of nodes
    def _match_attributes(self, pn, gn):
        pn_value = _get_attr(pn.graph.owning_module, pn.target)
        gn_value = _get_attr(gn.graph.owning_module, gn.target)
        if type(pn_value) is not type(gn_value):
            return False
        if isinstance(pn_value, Tensor):
            return isinstance(gn_value, Tensor)
        raise RuntimeError(f"Unsupported type {pn_value} when matching attributes")

    def _nodes_are_equal(self, pn, gn, node_name_match=""):
        if not self.match_placeholder and pn.op == "placeholder":
            return True
        if node_name_match and node_name_match in gn.name:
            return True
        if pn.op != gn.op:
            return False
        if pn.op in ("placeholder", "output"):
            return True
        if pn.op == "get_attr":
            return self._match_attributes(pn, gn)
        return pn.target == gn.target

    def _match_literals(self, pn, gn, match):
        if isinstance(pn, Node):   # (gn is not a node)
            if pn.op != "placeholder":
                return False
            if pn in match.nodes_map:
                return match.nodes_map[pn] == gn
            match.nodes_map[pn] = gn
            return True
        if isinstance(gn, Node):
            return False
        return type(gn) is type(pn) and gn == pn

    def _match_args(self, pargs, gargs, match):
        if len(pargs) != len(gargs):
            return False
        for pa, ga in zip(pargs, gargs):
            if isinstance(pa, Node) and isinstance(ga, Node):
                ok = self._match_nodes(pa, ga, match)
            elif isinstance(pa, (list, tuple)) and isinstance(ga, (list, tuple)):
                ok = self._match_args(pa, ga, match)
            else:
                ok = self._match_literals(pa, ga, match) or self.ignore_literals
            if not ok:
                return False
        return True

    def _match_nodes(self, pn, gn, match, node_name_match=""):
        if pn in match.nodes_map:
            return match.nodes_map[pn] == gn
        if gn in match.nodes_map.values():
            return False
        if not self._nodes_are_equal(pn, gn, node_name_match):
            return False
        match.nodes_map[pn] = gn
        if pn.op == "placeholder":
            return True
        if len(pn.args) != len(gn.args) or list(pn.kwargs) != list(gn.kwargs):
            return False
        return self._match_args([*pn.args, *pn.kwargs.values()],
                                [*gn.args, *gn.kwargs.values()], match)

    # ------------------------------------------------------------ whole matches
    def _is_contained(self, nodes_map):
        inner = {gn: pn for pn, gn in nodes_map.items() if pn.op != "placeholder"}
        return all(pn in self.pattern_returning_nodes or all(u in inner for u in gn.users)
                   for gn, pn in inner.items())

    @staticmethod
    def _fusable(nodes):
        """No path leaves ``nodes`` and comes back into them (fusing them makes no cycle)."""
        inside = set(nodes)
        seen, stack = set(), [u for n in nodes for u in n.users if u not in inside]
        while stack:
            n = stack.pop()
            if n in inside:
                return False
            if n not in seen:
                seen.add(n)
                stack.extend(n.users)
        return True

    @staticmethod
    def _remove_overlapping_matches(matches):
        kept, taken = [], set()
        for match in matches:
            nodes = [gn for pn, gn in match.nodes_map.items()
                     if pn.op not in ("placeholder", "output")]
            if not any(gn in taken for gn in nodes):
                kept.append(match)
                taken.update(nodes)
        return kept

    def match(self, graph, node_name_match=""):
        """The matches of the pattern in ``graph`` (a list of :class:`InternalMatch`), each
        self-contained: its nodes, but for the placeholders' and the returned ones, are used
        only inside it."""
        candidates = [(anchor, [n for n in graph.nodes
                                if self._nodes_are_equal(anchor, n, node_name_match)])
                      for anchor in self.pattern_anchors]
        candidates = [(a, c) for a, c in candidates if c]
        matches = []

        def backtrack(i, match):
            if i == len(candidates):
                match.placeholder_nodes = [match.nodes_map[pn]
                                           for pn in self.pattern_placeholder_nodes]
                match.returning_nodes = [match.nodes_map[pn]
                                         for pn in self.pattern_returning_nodes]
                matches.append(match)
                return
            anchor, nodes = candidates[i]
            for node in nodes:
                attempt = copy.copy(match)
                if self._match_nodes(anchor, node, attempt, node_name_match):
                    backtrack(i + 1, attempt)

        if candidates:
            backtrack(0, InternalMatch(anchors=self.pattern_anchors))
        matches = [m for m in matches if self._is_contained(m.nodes_map) and self._fusable(
            [gn for pn, gn in m.nodes_map.items() if pn.op not in ("placeholder", "output")])]
        if self.remove_overlapping_matches:
            matches = self._remove_overlapping_matches(matches)
        return matches
