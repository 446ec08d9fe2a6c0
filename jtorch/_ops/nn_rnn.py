"""nn.functional ops: rnn."""
