"""torch.signal.windows: window functions (scipy.signal.windows' definitions)."""

from .windows import (
    bartlett as bartlett,
    blackman as blackman,
    cosine as cosine,
    exponential as exponential,
    gaussian as gaussian,
    general_cosine as general_cosine,
    general_hamming as general_hamming,
    hamming as hamming,
    hann as hann,
    kaiser as kaiser,
    nuttall as nuttall,
)

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]
