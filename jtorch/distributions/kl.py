"""torch.distributions.kl: ``kl_divergence(p, q)`` and ``register_kl``.

The rules live in a registry keyed by pairs of distribution classes. A lookup takes the most
specific registered pair for ``(type(p), type(q))`` by their method resolution orders (a
subclass without a rule of its own uses its parent's) and remembers the answer; when the
order of preference between p's and q's classes is ambiguous it warns, as PyTorch does.

The rules themselves are in ``_kl_same.py`` (within one family) and ``_kl_cross.py``
(between families); both register here when the package is imported.
"""

from __future__ import annotations

import warnings

__all__ = ["register_kl", "kl_divergence"]

_KL_REGISTRY: dict = {}  # (type_p, type_q) -> fn(p, q)
_KL_MEMOIZE: dict = {}  # (type(p), type(q)) -> the chosen fn, or NotImplemented


def register_kl(type_p, type_q):
    """A decorator registering ``fn(p, q)`` as the KL divergence for ``p`` of class
    ``type_p`` and ``q`` of class ``type_q`` (and their subclasses without a more specific
    rule).

    Example:
        >>> @register_kl(Normal, Normal)
        ... def kl_normal_normal(p, q):
        ...     ...
    """
    # any class is accepted, as in PyTorch: pyro registers rules for its own Distribution base,
    # which does not derive from torch's
    for name, t in (("type_p", type_p), ("type_q", type_q)):
        if not isinstance(t, type):
            raise TypeError(f"Expected {name} to be a Distribution subclass but got {t}")

    def decorator(fn):
        _KL_REGISTRY[type_p, type_q] = fn
        _KL_MEMOIZE.clear()
        return fn

    return decorator


def _dispatch_kl(type_p, type_q):
    """The registered rule for the most specific pair of superclasses, or NotImplemented."""
    mro_p, mro_q = type_p.__mro__, type_q.__mro__
    matches = [(mro_p.index(p), mro_q.index(q), (p, q)) for p, q in _KL_REGISTRY
               if issubclass(type_p, p) and issubclass(type_q, q)]
    if not matches:
        return NotImplemented
    by_p = min(matches, key=lambda m: (m[0], m[1]))[2]
    by_q = min(matches, key=lambda m: (m[1], m[0]))[2]
    if by_p != by_q:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
                      f"Please register_kl({by_q[0].__name__}, {by_p[1].__name__})",
                      RuntimeWarning, stacklevel=3)
    return _KL_REGISTRY[by_p]


def kl_divergence(p, q):
    """The Kullback-Leibler divergence ``KL(p || q) = E_p[log p(x) - log q(x)]``, with shape
    the broadcast of the two batch shapes.

    Raises:
        NotImplementedError: no rule is registered for the pair of classes.
    """
    key = type(p), type(q)
    try:
        fn = _KL_MEMOIZE[key]
    except KeyError:
        fn = _KL_MEMOIZE[key] = _dispatch_kl(*key)
    if fn is NotImplemented:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type "
                                  f"{type(p).__name__} and q type {type(q).__name__}")
    return fn(p, q)
