"""Read-only properties that only read another attribute of the distribution."""

from __future__ import annotations

import operator


def forwarded_property(path: str) -> property:
    """A read-only property whose value is ``self.<path>`` (``path`` may be dotted, e.g.
    ``"base_dist.probs"``): one line for each attribute a distribution takes from its
    parameters or from the distribution it wraps."""
    return property(operator.attrgetter(path), doc=f"``self.{path}``.")
