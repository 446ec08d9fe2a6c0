"""``torchvision.models.detection``: not implemented in jtorch. The package and its submodules
import; each of torchvision 0.28's builders, classes and weights enums here is a stand-in that
raises NotImplementedError naming the torchvision API when called, made or read (see
``.._stand_ins``)."""

from .._stand_ins import fill

__all__ = fill("detection", globals())
del fill
