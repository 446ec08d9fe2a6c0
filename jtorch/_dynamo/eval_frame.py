"""torch._dynamo.eval_frame: ``OptimizedModule``, the class of ``torch.compile(module)``'s
result (libraries test ``isinstance(m, torch._dynamo.eval_frame.OptimizedModule)`` to unwrap
a compiled model): jtorch.compile's own."""

from .._compile.module import OptimizedModule as OptimizedModule

__all__ = ["OptimizedModule"]
