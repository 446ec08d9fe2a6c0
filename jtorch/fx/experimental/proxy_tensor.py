"""torch.fx.experimental.proxy_tensor: ``get_proxy_mode``, which libraries call to ask whether
``make_fx`` is tracing them (kornia's distance transform): never in jtorch, so None.
``make_fx`` raises NotImplementedError (jtorch's graph capture is ``jtorch.compile``)."""

from ..._core.errors import missing_names, not_implemented


def get_proxy_mode():
    """The active ProxyTorchDispatchMode: None (jtorch has no FX tracing)."""
    return None


def make_fx(*args, **kwargs):
    raise not_implemented("torch.fx.experimental.proxy_tensor.make_fx")


__getattr__ = missing_names("torch.fx.experimental.proxy_tensor",
                            ["ProxyTorchDispatchMode", "PythonKeyTracer", "dispatch_trace",
                             "handle_sym_dispatch", "maybe_disable_fake_tensor_mode"])
