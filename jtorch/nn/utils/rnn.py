"""nn.utils.rnn."""
