"""nn.modules.rnn."""

__all__: list = []
