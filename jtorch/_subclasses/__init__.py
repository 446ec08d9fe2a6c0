"""torch._subclasses: the fake-tensor module libraries import to tell a traced tensor from a
real one (kornia's distance transform checks ``is_fake``). jtorch has no FakeTensor mode."""

from . import fake_tensor as fake_tensor
