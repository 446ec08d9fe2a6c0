"""torch.distributions.VonMises."""

from __future__ import annotations

import math

from . import _lib as jt, _noise, constraints
from ._bessel import LOG_2PI, log_bessel_i
from ._forward import forwarded_property
from ._params import init_broadcast
from .distribution import Distribution

__all__ = ["VonMises"]

_TRACED_ROUNDS = 32  # rejection rounds under a trace (each accepts with probability > 0.6)


class VonMises(Distribution):
    """VonMises(loc, concentration, validate_args=None): the circular normal distribution on
    angles, density ``exp(concentration * cos(x - loc)) / (2 pi I0(concentration))``.

    Differences from PyTorch:
        - Sampling (Best and Fisher's rejection method) runs rounds until every draw is
          accepted eagerly; under a trace it runs a fixed 32 rounds.
    """

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        init_broadcast(self, validate_args, loc=loc, concentration=concentration)

    def log_prob(self, value):
        self._validate(value)
        k = self.concentration
        return k * (value - self.loc).cos() - LOG_2PI - log_bessel_i(k, 0)

    mean = forwarded_property("loc")
    mode = forwarded_property("loc")

    @property
    def variance(self):
        """The circular variance ``1 - I1(k) / I0(k)``."""
        k = self.concentration
        return 1 - (log_bessel_i(k, 1) - log_bessel_i(k, 0)).exp()

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with jt.no_grad():
            k = self.concentration.double().expand(shape)
            # the wrapped Cauchy envelope's parameter r (Best and Fisher, 1979)
            tau = 1 + (1 + 4 * k.pow(2)).sqrt()
            rho = (tau - (2 * tau).sqrt()) / (2 * k)
            r = jt.where(k < 1e-5, 1 / k, (1 + rho.pow(2)) / (2 * rho))
            x = jt.zeros(shape, dtype=k.dtype, device=k.device)
            done = jt.zeros(shape, dtype=jt.bool, device=k.device)
            traced = jt.is_traced(k)
            for _ in range(_TRACED_ROUNDS if traced else 10 ** 6):
                u1, u2, u3 = (_noise.uniform(shape, k) for _ in range(3))
                z = (math.pi * u1).cos()
                f = (1 + r * z) / (r + z)
                c = k * (r - f)
                accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
                angle = (u3 - 0.5).sign() * f.clamp(-1, 1).acos()
                take = accept & ~done
                x = jt.where(take, angle, x)
                done = done | accept
                if not traced and bool(done.all()):
                    break
            angle = (x + self.loc.double() + math.pi).remainder(2 * math.pi) - math.pi
            return angle.to(self.loc.dtype)
