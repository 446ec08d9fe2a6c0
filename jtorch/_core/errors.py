"""Errors for what a trace cannot do, written to say what happened, why, and the fix."""

from __future__ import annotations


class TraceError(RuntimeError):
    """A jtorch operation that needs a concrete value ran while being traced by jax.jit."""


def concretization_error(what: str) -> TraceError:
    return TraceError(
        f"jtorch: {what} inside a traced function (jtorch.compile, jax.jit, vmap...).\n"
        "While tracing, a Tensor holds a placeholder, not numbers, so its value cannot reach "
        "Python.\nFix: keep the value as a Tensor (use jtorch.where instead of an `if` on a "
        "tensor, return the tensor and call .item() outside the compiled function), or run "
        "this part eagerly.")
