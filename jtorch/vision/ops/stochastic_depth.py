"""``torchvision.ops.stochastic_depth``: randomly drops whole residual branches."""

from __future__ import annotations

from jtorch import nn

from ..._ops.creation import empty

__all__ = ["StochasticDepth", "stochastic_depth"]


def stochastic_depth(input, p: float, mode: str, training: bool = True):
    """Zeroes the whole ``input`` (``mode="batch"``) or random rows of it (``mode="row"``)
    with probability ``p``, scaling what survives by ``1 / (1 - p)``.

    Args:
        input (Tensor[N, ...]): a batch.
        p (float): the drop probability.
        mode (str): ``"batch"`` or ``"row"``.
        training (bool): apply it only when True.

    Returns:
        Tensor[N, ...]: the randomly zeroed tensor.
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"drop probability has to be between 0 and 1, but got {p}")
    if mode not in ["batch", "row"]:
        raise ValueError(f"mode has to be either 'batch' or 'row', but got {mode}")
    if not training or p == 0.0:
        return input
    survival_rate = 1.0 - p
    size = [input.shape[0]] + [1] * (input.ndim - 1) if mode == "row" else [1] * input.ndim
    noise = empty(size, dtype=input.dtype, device=input.device).bernoulli_(survival_rate)
    if survival_rate > 0.0:
        noise.div_(survival_rate)
    return input * noise


class StochasticDepth(nn.Module):
    """See :func:`stochastic_depth`."""

    def __init__(self, p: float, mode: str) -> None:
        super().__init__()
        self.p = p
        self.mode = mode

    def forward(self, input):
        return stochastic_depth(input, self.p, self.mode, self.training)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(p={self.p}, mode={self.mode})"
