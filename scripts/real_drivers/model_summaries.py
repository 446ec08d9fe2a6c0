"""Driver of the two model-summary tools that tutorials print with: torchinfo 1.8
(``torchinfo.summary``) and torchsummary 1.5 (``torchsummary.summary``), installed and
unchanged (docs/real-programs.md). Each prints a table built from forward hooks: input and
output shapes, parameter counts and percentages, kernel shapes, mult-adds, trainable flags
and the byte sizes of inputs, activations and parameters. The tables of the two frameworks
should be identical, character for character.

Models: a CNN with BatchNorm and max-pooling, an LSTM head on it, a TransformerEncoder with
an Embedding, a model with a frozen layer and a registered buffer, and the same CNN in
float64 and with a list of two inputs.

    python scripts/shared_rng_run.py model_summaries.py             # PyTorch
    python -m jtorch scripts/shared_rng_run.py model_summaries.py   # jtorch
"""

import torch
import torch.nn as nn
import torchinfo
import torchsummary

COLUMNS = ("input_size", "output_size", "num_params", "params_percent", "kernel_size",
           "mult_adds", "trainable")


def cnn():
    return nn.Sequential(nn.Conv2d(1, 8, 3), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(8, 4, 3, padding=1), nn.Flatten(), nn.Linear(64, 10))


class ConvLSTM(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(1, 8, 3), nn.BatchNorm2d(8), nn.ReLU(),
                                  nn.MaxPool2d(2))
        self.lstm = nn.LSTM(8, 16, num_layers=2, batch_first=True)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        h = self.conv(x).flatten(2).transpose(1, 2)
        out, _ = self.lstm(h)
        return self.fc(out[:, -1])


class TinyTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 16)
        layer = nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(16, 50)

    def forward(self, tokens):
        return self.head(self.enc(self.emb(tokens)))


class FrozenWithBuffer(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(6, 6)
        self.b = nn.Linear(6, 3)
        self.a.requires_grad_(False)
        self.register_buffer("scale", torch.full((3,), 2.0))

    def forward(self, x, y):
        return self.b(self.a(x) + y) * self.scale


def main():
    torch.manual_seed(0)
    print(torchinfo.summary(cnn(), input_size=(2, 1, 10, 10), col_names=COLUMNS, verbose=0))
    print(torchinfo.summary(ConvLSTM(), input_size=(2, 1, 10, 10), col_names=COLUMNS,
                            depth=4, verbose=0))
    print(torchinfo.summary(ConvLSTM(), input_data=torch.randn(2, 1, 10, 10), depth=1,
                            verbose=0))
    print(torchinfo.summary(TinyTransformer(), input_size=(2, 7), dtypes=[torch.long],
                            col_names=COLUMNS, depth=3, verbose=0))
    print(torchinfo.summary(FrozenWithBuffer(), input_size=[(4, 6), (4, 6)],
                            col_names=COLUMNS, row_settings=("var_names", "depth"),
                            verbose=0))
    print(torchinfo.summary(cnn().double(), input_size=(3, 1, 10, 10),
                            dtypes=[torch.float64], mode="train", verbose=0))
    torchsummary.summary(cnn(), (1, 10, 10), batch_size=4, device="cpu")
    torchsummary.summary(FrozenWithBuffer(), [(6,), (6,)], device="cpu")


if __name__ == "__main__":
    main()
