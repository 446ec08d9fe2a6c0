"""torch.quasirandom: ``SobolEngine``, (scrambled) Sobol low-discrepancy sequences.

The engine's state is PyTorch's: ``sobolstate`` (dimension x 30 direction numbers, int64),
``shift`` and ``quasi`` (int64 per dimension) and ``num_generated``; the points are PyTorch's
bit for bit. The direction numbers are Joe and Kuo's (search criterion D(6), 21201
dimensions), the table PyTorch and SciPy both ship; jtorch reads SciPy's copy (SciPy comes with
JAX). Drawing walks the Gray-code order on the host in NumPy (PyTorch's kernels are CPU-only
loops too). Scrambling draws its random bits with ``torch.randint`` as PyTorch's Python code
does, so a seeded engine is reproducible, but its bits come from jtorch's generator (see
``docs/differences.md``: random streams differ); the unscrambled sequence is identical.
"""

from __future__ import annotations

import functools
import os

import numpy as np

import jtorch

__all__ = ["SobolEngine"]

_MAXBIT = 30


@functools.lru_cache(maxsize=1)
def _direction_table():
    """Joe and Kuo's primitive polynomials and initial direction numbers, (21201,) and
    (21201, 18), from SciPy's ``stats/_sobol_direction_numbers.npz``."""
    import scipy.stats  # SciPy (a dependency of JAX) loads only when an engine is made

    path = os.path.join(os.path.dirname(scipy.stats.__file__), "_sobol_direction_numbers.npz")
    if not os.path.exists(path):
        raise NotImplementedError("torch.quasirandom.SobolEngine: jtorch reads the Sobol "
                                  f"direction numbers from SciPy's copy, {path}, which this "
                                  "SciPy does not have")
    with np.load(path) as table:
        return table["poly"].astype(np.int64), table["vinit"].astype(np.int64)


def _initial_state(dimension):
    """The (dimension, 30) direction numbers of the unscrambled sequence, each shifted to the
    30-bit fixed point (``_sobol_engine_initialize_state_``): the first ``m`` of a dimension
    are its initial numbers, the later ones follow the recurrence of its primitive polynomial
    of degree ``m``, ``v_j = v_{j-m} ^ sum_{k<m} a_k 2^(k+1) v_{j-k-1}`` (``a_k`` its bits;
    dimension 0, polynomial 1, is all ones)."""
    poly, vinit = _direction_table()
    poly, vinit = poly[:dimension], vinit[:dimension]
    degree = np.array([int(p).bit_length() - 1 for p in poly], np.int64)
    rows = np.arange(dimension)
    state = np.zeros((dimension, _MAXBIT), np.int64)
    state[0] = 1
    for j in range(_MAXBIT):
        new = state[rows, np.maximum(j - degree, 0)]
        for k in range(int(degree.max())):
            bit = (poly >> np.maximum(degree - 1 - k, 0)) & 1
            take = (k < degree) & (bit == 1) & (j - k - 1 >= 0)
            new = np.where(take, new ^ (state[:, max(j - k - 1, 0)] << (k + 1)), new)
        initial = j < degree
        state[:, j] = np.where(initial, vinit[:, min(j, vinit.shape[1] - 1)], new)
        state[0, j] = 1
    return state << np.arange(_MAXBIT - 1, -1, -1, dtype=np.int64)


def _scrambled(state, ltm):
    """``state`` after the random linear matrix scramble of ``ltm`` (dimension, 30, 30) lower
    triangular 0/1 matrices, their diagonals set to 1 (``_sobol_engine_scramble_``): bit
    ``29 - p`` of a scrambled number is the parity of row ``p`` of its matrix, read as a 30-bit
    number, and-ed with the number."""
    ltm = ltm.copy()
    ltm[:, np.arange(_MAXBIT), np.arange(_MAXBIT)] = 1
    dots = (ltm * (1 << np.arange(_MAXBIT - 1, -1, -1, dtype=np.int64))).sum(-1)  # (d, 30)
    mask = (1 << _MAXBIT) - 1
    out = np.zeros_like(state)
    for p in range(_MAXBIT):
        parity = np.bitwise_count((dots[:, p, None] & state) & mask) & 1
        out |= parity.astype(np.int64) << (_MAXBIT - 1 - p)
    return out


def _rightmost_zero(n):
    """The position of the lowest zero bit of each of ``n`` (a NumPy int64 array): the
    exponent of the power of two ``~n & (n + 1)`` (exact in float64; NumPy 1.x has no
    bitwise_count)."""
    return (np.frexp((~n & (n + 1)).astype(np.float64))[1] - 1).astype(np.int64)


def _walk(quasi, n, state, num_generated):
    """The next ``n`` points (as int64 numbers, (n, dimension)) of the Gray-code walk from
    ``quasi`` after ``num_generated`` points, and the new ``quasi``."""
    if n <= 0:
        return np.zeros((0, quasi.shape[0]), np.int64), quasi
    steps = _rightmost_zero(np.arange(num_generated, num_generated + n, dtype=np.int64))
    points = np.bitwise_xor.accumulate(state[:, steps].T, axis=0) ^ quasi
    return points, points[-1].copy()


class SobolEngine:
    r"""An engine for (scrambled) Sobol sequences, low-discrepancy quasi-random points in the
    unit cube, up to 21201 dimensions.

    Args:
        dimension (int): the dimension of the points.
        scramble (bool): scramble the sequence (a random linear matrix scramble and a random
            digital shift). Default: ``False``.
        seed (int, optional): the seed of the scrambling's generator; without it the default
            generator draws.

    Differences from PyTorch:
        - A scrambled engine's random bits come from jtorch's generator, so its points are not
          PyTorch's for the same seed (the unscrambled sequence is).

    Example::

        >>> engine = SobolEngine(dimension=3)
        >>> engine.draw(3)
        tensor([[0.0000, 0.0000, 0.0000],
                [0.5000, 0.5000, 0.5000],
                [0.7500, 0.2500, 0.2500]])
    """

    MAXBIT = _MAXBIT
    MAXDIM = 21201

    def __init__(self, dimension, scramble=False, seed=None):
        if dimension > self.MAXDIM or dimension < 1:
            raise ValueError("Supported range of dimensionality "
                             f"for SobolEngine is [1, {self.MAXDIM}]")
        self.seed = seed
        self.scramble = scramble
        self.dimension = dimension
        state = _initial_state(dimension)
        if not scramble:
            self.shift = jtorch.zeros(dimension, dtype=jtorch.long)
        else:
            state = self._scramble(state)
        self.sobolstate = jtorch.as_tensor(state, dtype=jtorch.long)
        self.quasi = self.shift.clone(memory_format=jtorch.contiguous_format)
        self._first_point = (self.quasi / 2 ** self.MAXBIT).reshape(1, -1)
        self.num_generated = 0

    def _scramble(self, state):
        g = None
        if self.seed is not None:
            g = jtorch.Generator()
            g.manual_seed(self.seed)
        shift_ints = jtorch.randint(2, (self.dimension, self.MAXBIT), generator=g)
        self.shift = jtorch.mv(shift_ints, jtorch.pow(2, jtorch.arange(0, self.MAXBIT)))
        ltm = jtorch.randint(2, (self.dimension, self.MAXBIT, self.MAXBIT), generator=g).tril()
        return _scrambled(state, np.asarray(ltm.numpy(), np.int64))

    def _points(self, n, start, dtype):
        if dtype not in (jtorch.float32, jtorch.float64):
            raise RuntimeError(f'"_sobol_engine_draw" not implemented for '
                               f"'{str(dtype).removeprefix('torch.')}'")
        quasi = np.asarray(self.quasi.numpy(), np.int64)
        points, quasi = _walk(quasi, n, self.sobolstate.numpy(), start)
        self.quasi = jtorch.as_tensor(quasi, dtype=jtorch.long)
        np_dtype = np.float32 if dtype == jtorch.float32 else np.float64
        values = points.astype(np_dtype) * np_dtype(2.0 ** -self.MAXBIT)
        return jtorch.as_tensor(values, dtype=dtype)

    def draw(self, n=1, out=None, dtype=None):
        r"""The next ``n`` points of the sequence, ``(n, dimension)``, in ``dtype`` (default:
        the default dtype); they depend on the points drawn before."""
        if dtype is None:
            dtype = jtorch.get_default_dtype()
        if self.num_generated == 0:
            if n == 1:
                result = self._first_point.to(dtype)
            else:
                rest = self._points(n - 1, self.num_generated, dtype)
                result = jtorch.cat((self._first_point.to(dtype), rest), dim=-2)
        else:
            result = self._points(n, self.num_generated - 1, dtype)
        self.num_generated += n
        if out is not None:
            out.resize_as_(result).copy_(result)
            return out
        return result

    def draw_base2(self, m, out=None, dtype=None):
        r"""The next ``2**m`` points; the points drawn so far plus these must be a power of 2
        (the balance properties of Sobol' points)."""
        n = 2 ** m
        total_n = self.num_generated + n
        if not (total_n & (total_n - 1) == 0):
            raise ValueError("The balance properties of Sobol' points require "
                             f"n to be a power of 2. {self.num_generated} points have been "
                             f"previously generated, then: n={self.num_generated}+2**{m}="
                             f"{total_n}. If you still want to do this, please use "
                             "'SobolEngine.draw()' instead.")
        return self.draw(n=n, out=out, dtype=dtype)

    def reset(self):
        r"""Back to the first point."""
        self.quasi.copy_(self.shift)
        self.num_generated = 0
        return self

    def fast_forward(self, n):
        r"""Skip ``n`` points (as drawing them would)."""
        start = self.num_generated - 1 if self.num_generated else 0
        count = n if self.num_generated else n - 1
        quasi = np.asarray(self.quasi.numpy(), np.int64)
        _, quasi = _walk(quasi, count, self.sobolstate.numpy(), start)
        self.quasi = jtorch.as_tensor(quasi, dtype=jtorch.long)
        self.num_generated += n
        return self

    def __repr__(self):
        fmt_string = [f"dimension={self.dimension}"]
        if self.scramble:
            fmt_string += ["scramble=True"]
        if self.seed is not None:
            fmt_string += [f"seed={self.seed}"]
        return self.__class__.__name__ + "(" + ", ".join(fmt_string) + ")"
