"""torch._subclasses.fake_tensor: ``is_fake``, which is False for every jtorch tensor (jtorch
has no FakeTensor: shape-only tensors are the ``meta`` device's, traced ones hold JAX tracers);
``FakeTensor`` and ``FakeTensorMode`` raise NotImplementedError."""

from .._core.errors import missing_names


def is_fake(x):
    """Whether ``x`` is a FakeTensor (or wraps one): never, in jtorch."""
    return False


__getattr__ = missing_names("torch._subclasses.fake_tensor",
                            ["FakeTensor", "FakeTensorMode", "FakeTensorConverter",
                             "UnsupportedFakeTensorException", "DynamicOutputShapeException"])
