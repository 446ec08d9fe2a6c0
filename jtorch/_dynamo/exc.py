"""torch._dynamo.exc: the errors of compilation. jtorch.compile's own is
:class:`jtorch.compiler.CompileError`; ``Unsupported`` and ``TorchRuntimeError`` are
subclasses of it, so code catching PyTorch's names catches jtorch's failures."""

from ..compiler import CompileError

__all__ = ["BackendCompilerFailed", "TorchDynamoException", "TorchRuntimeError",
           "UncapturedHigherOrderOpError", "Unsupported"]


class TorchDynamoException(CompileError):
    """The base of PyTorch's compile errors."""


class Unsupported(TorchDynamoException):
    """Something the compiler cannot trace."""


class TorchRuntimeError(TorchDynamoException):
    """An error raised by the traced code itself."""


class BackendCompilerFailed(TorchDynamoException):
    """The backend compiler (XLA here) failed."""


class UncapturedHigherOrderOpError(TorchDynamoException):
    """A higher-order op (``torch.cond``) whose branches break its rules."""
