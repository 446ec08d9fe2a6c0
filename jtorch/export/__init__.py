"""``torch.export``: a module's forward as one ahead-of-time program, here a StableHLO program
made by ``jax.export`` (see docs/export.md).

``export`` traces the module once; ``ExportedProgram.module()`` runs the program;
``save``/``load`` write and read it; ``Dim`` marks dimensions that stay symbolic. The StableHLO
text is ``ExportedProgram.stablehlo()`` (a jtorch extension). A public name of PyTorch's
``torch.export`` that jtorch lacks raises NotImplementedError naming it.
"""

from .._core.errors import torch_name_fallback
from ._dims import Dim as Dim, dims as dims
from ._export import export as export
from ._program import (
    ExportedProgram as ExportedProgram,
    ExportGraphSignature as ExportGraphSignature,
)
from ._serialize import load as load, save as save

__all__ = ["Dim", "ExportGraphSignature", "ExportedProgram", "dims", "export", "load", "save"]

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.export")
