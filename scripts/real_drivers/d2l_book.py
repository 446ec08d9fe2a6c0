"""Driver of d2l (docs/real-programs.md): the installed package of "Dive into Deep Learning"
(d2l 1.0.3, ``from d2l import torch as d2l``), unchanged, with the book's own notebook code
for what the package leaves to the chapters (the from-scratch models, ResNet and DenseNet, the
Seq2Seq decoders, the chapter 12 optimizers), at tiny sizes on a stand-in FashionMNIST (MNIST
digits in FashionMNIST's files, ``../data/FashionMNIST/raw``, read by ``d2l.FashionMNIST``
through torchvision's dataset and transforms) and on generated text (a TimeMachine and an
MTFraEng whose ``_download`` returns seeded sentences): ``d2l.Module``/``Trainer``/
``DataModule`` (linear regression from scratch and concise, weight decay, softmax regression
from scratch and concise, an MLP from scratch and with dropout), LeNet, batch normalization
from scratch and concise, a small ResNet, ResNeXt block and DenseNet, an RNN language model
from scratch and with ``nn.RNN``/``nn.GRU``/``nn.LSTM`` (``d2l.Vocab``, gradient clipping,
``predict``), the seq2seq encoder-decoder (``predict_step``, BLEU, the masked loss), Bahdanau
attention, the attention layers and TransformerEncoder, ``train_ch11`` with the hand-written
optimizers and ``train_concise_ch11`` with torch.optim's, and the plotting helpers (the
ProgressBoard, Animator, ``plot``, ``show_images``, ``show_heatmaps``, ``show_trace_2d``) on
the Agg backend. It prints the ProgressBoard's averaged points, losses and parameters at full
precision (tensors as checksums).

    python scripts/shared_rng_run.py drive_d2l.py [VARIANT ... | all]             # real PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_d2l.py [VARIANT ... | all]   # jtorch

Without arguments it runs every variant (``all`` too). Each variant reseeds
(``torch.manual_seed``), so a subset prints what the full run prints for it. The
ProgressBoard's and Animator's ``display.display`` render the figure (Agg) instead of printing
its repr; the figures drawn are counted.
"""

import contextlib
import io
import os
import random
import re
import sys
import time
import types

import matplotlib

matplotlib.use("Agg")

import torch  # noqa: E402
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

if "torchvision" not in sys.modules and "jtorch" not in sys.modules:
    # The CPU torch's torchvision wheel cannot load its C++ extension, whose fake/autograd
    # kernel registrations then fail at import (tests/vision_helpers.py): stand empty modules in.
    for _name in ("torchvision._meta_registrations", "torchvision._autograd_registrations"):
        sys.modules.setdefault(_name, types.ModuleType(_name))

from d2l import torch as d2l  # noqa: E402

FIGURES = [0]


def _render(fig, *args, **kwargs):
    fig.canvas.draw()  # Agg: every artist, with the data it was given
    FIGURES[0] += 1


# The boards call IPython's display.display(fig), which outside a notebook prints the figure's
# repr: render it instead.
d2l.display = types.SimpleNamespace(display=_render, clear_output=lambda wait=False: None)

VARIANTS = {}


def variant(name):
    def register(build):
        VARIANTS[name] = build
        return build
    return register


def checksum(t):
    t = t.detach().double().flatten()
    w = 1.0 + (torch.arange(t.numel(), dtype=torch.float64) % 7) / 6
    return (f"abssum {t.abs().sum().item()!r} wsum {(t * w).sum().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def show(label, t):
    if isinstance(t, torch.Tensor):
        t = t.detach()
        head = f"{list(t.shape)} {str(t.dtype).replace('torch.', '')}"
        if t.numel() <= 8:
            print(f"  {label} {head} {[float(v) for v in t.double().flatten()]!r}")
        else:
            print(f"  {label} {head} {checksum(t)}")
    else:
        print(f"  {label} {t!r}")


def board(model):
    """The ProgressBoard's averaged points, per curve."""
    for key, line in model.board.data.items():
        print(f"  board {key} {[(round(float(p.x), 6), float(p.y)) for p in line]!r}")


def params(model):
    for name, p in model.named_parameters():
        show(f"param {name}", p)


def fashion(batch_size=64, resize=(28, 28)):
    data = d2l.FashionMNIST(batch_size=batch_size, resize=resize)
    data.num_workers = 0  # the book's 4 worker processes, on a 2-core machine
    return data


def fit(model, data, max_epochs, **kw):
    trainer = d2l.Trainer(max_epochs=max_epochs, **kw)
    trainer.fit(model, data)
    board(model)
    return trainer


# ------------------------------------------------- chapters 2 and 6: preliminaries, builders' guide

class CenteredLayer(nn.Module):
    def forward(self, X):
        return X - X.mean()


class MyLinear(nn.Module):
    def __init__(self, in_units, units):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_units, units))
        self.bias = nn.Parameter(torch.randn(units,))

    def forward(self, X):
        linear = torch.matmul(X, self.weight.data) + self.bias.data
        return F.relu(linear)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.LazyLinear(256)
        self.output = nn.LazyLinear(10)

    def forward(self, X):
        return self.output(F.relu(self.hidden(X)))


@variant("basics")
def _():
    """The book's chapter 2 and 6 cells as printed: tensors (their reprs), in-place writes,
    autograd, distributions, parameter management, lazy layers, custom layers, file I/O."""
    x = torch.arange(12, dtype=torch.float32)
    print(x, x.numel(), x.shape)
    X = x.reshape(3, 4)
    print(X, X[-1], X[1:3])
    X[1, 2] = 17
    X[:2, :] = 12
    print(X)
    print(torch.exp(x))
    Y = torch.tensor([[2.0, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]])
    print(torch.cat((X, Y), dim=0), torch.cat((X, Y), dim=1))
    print(X == Y, X.sum())
    a, b = torch.arange(3).reshape((3, 1)), torch.arange(2).reshape((1, 2))
    print(a + b)
    Z = torch.zeros_like(Y)
    Z[:] = X + Y
    before = id(X)
    X += Y
    print(id(X) == before, Z)
    A = X.numpy()
    B = torch.from_numpy(A)
    print(type(A).__name__, type(B).__name__, torch.tensor([3.5]).item(),
          float(torch.tensor([3.5])))
    A = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    print(A.T, A.sum(axis=[0, 1]), A.mean(axis=0), A.sum(axis=1, keepdims=True), A.cumsum(axis=0))
    u = torch.tensor([3.0, -4.0])
    print(torch.norm(u), torch.abs(u).sum(), torch.norm(torch.ones((4, 9))))
    print(torch.dot(u, u), torch.mv(A.T, torch.ones(2)), torch.mm(A, A.T))
    x = torch.arange(4.0, requires_grad=True)
    y = 2 * torch.dot(x, x)
    y.backward()
    print(x.grad, x.grad == 4 * x)
    x.grad.zero_()
    y = x * x
    y.backward(gradient=torch.ones(len(y)))
    print(x.grad)
    x.grad.zero_()
    u = (x * x).detach()
    (u * x).sum().backward()
    print(x.grad == u)

    def f(a):
        b = a * 2
        while b.norm() < 1000:
            b = b * 2
        return b if b.sum() > 0 else 100 * b

    a = torch.randn(size=(), requires_grad=True)
    d = f(a)
    d.backward()
    print(a.grad == d / a)
    fair_probs = torch.ones(6) / 6
    counts = torch.distributions.multinomial.Multinomial(10, fair_probs).sample((5,))
    print(counts, counts.sum(dim=1))
    x = torch.arange(-8.0, 8.0, 0.1, requires_grad=True)
    y = torch.sigmoid(x)
    y.backward(torch.ones_like(x))
    d2l.plot(x.detach().numpy(), [y.detach().numpy(), x.grad.numpy()],
             legend=['sigmoid', 'gradient'], figsize=(4.5, 2.5))
    net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(1))
    print(net[0].weight)
    X = torch.rand(size=(2, 4))
    print(net(X).shape, net[2].state_dict(), net[2].bias.data)
    print(*[(name, param.shape) for name, param in net.named_parameters()])

    def init_normal(module):
        if type(module) is nn.Linear:
            nn.init.normal_(module.weight, mean=0, std=0.01)
            nn.init.zeros_(module.bias)

    net.apply(init_normal)
    print(net[0].weight.data[0], net[0].bias.data[0])

    def my_init(module):
        if type(module) is nn.Linear:
            nn.init.uniform_(module.weight, -10, 10)
            module.weight.data *= module.weight.data.abs() >= 5

    net.apply(my_init)
    print(net[0].weight[:2])
    net[0].weight.data[:] += 1
    net[0].weight.data[0, 0] = 42
    print(net[0].weight.data[0])
    shared = nn.LazyLinear(8)
    net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), shared, nn.ReLU(), shared, nn.ReLU(),
                        nn.LazyLinear(1))
    net(X)
    net[2].weight.data[0, 0] = 100
    print(net[2].weight.data[0] == net[4].weight.data[0])
    layer = CenteredLayer()
    print(layer(torch.tensor([1.0, 2, 3, 4, 5])))
    net = nn.Sequential(nn.LazyLinear(128), CenteredLayer())
    print(net(torch.rand(4, 8)).mean().abs() < 1e-6)
    linear = MyLinear(5, 3)
    print(linear.weight, linear(torch.rand(2, 5)))
    x = torch.arange(4)
    torch.save(x, 'x-file')
    print(torch.load('x-file'))
    torch.save({'x': x, 'y': torch.zeros(4)}, 'mydict')
    print(torch.load('mydict'))
    net = MLP()
    X = torch.randn(size=(2, 20))
    Y = net(X)
    torch.save(net.state_dict(), 'mlp.params')
    clone = MLP()
    clone.load_state_dict(torch.load('mlp.params'))
    print(clone.eval(), clone(X) == Y)
    print(d2l.cpu(), d2l.num_gpus(), d2l.try_gpu(), d2l.try_all_gpus(), X.device)


# ---------------------------------------------------------------- chapter 3: linear regression

@variant("linreg")
def _():
    data = d2l.SyntheticRegressionData(w=torch.tensor([2, -3.4]), b=4.2, num_train=256,
                                       num_val=128)
    X, y = next(iter(data.train_dataloader()))
    show("first batch X", X)
    show("first batch y", y)
    model = d2l.LinearRegressionScratch(2, lr=0.03)
    fit(model, data, 3)
    show("scratch w", model.w)
    show("scratch b", model.b)
    model = d2l.LinearRegression(lr=0.03)
    fit(model, data, 3)
    w, b = model.get_w_b()
    show("concise w", w)
    show("concise b", b)


class Data(d2l.DataModule):
    def __init__(self, num_train, num_val, num_inputs, batch_size):
        self.save_hyperparameters()
        n = num_train + num_val
        self.X = torch.randn(n, num_inputs)
        noise = torch.randn(n, 1) * 0.01
        w, b = torch.ones((num_inputs, 1)) * 0.01, 0.05
        self.y = torch.matmul(self.X, w) + b + noise

    def get_dataloader(self, train):
        i = slice(0, self.num_train) if train else slice(self.num_train, None)
        return self.get_tensorloader([self.X, self.y], train, i)


def l2_penalty(w):
    return (w ** 2).sum() / 2


class WeightDecayScratch(d2l.LinearRegressionScratch):
    def __init__(self, num_inputs, lambd, lr, sigma=0.01):
        super().__init__(num_inputs, lr, sigma)
        self.save_hyperparameters()

    def loss(self, y_hat, y):
        return (super().loss(y_hat, y) + self.lambd * l2_penalty(self.w))


class WeightDecay(d2l.LinearRegression):
    def __init__(self, wd, lr):
        super().__init__(lr)
        self.save_hyperparameters()
        self.wd = wd

    def configure_optimizers(self):
        return torch.optim.SGD([
            {'params': self.net.weight, 'weight_decay': self.wd},
            {'params': self.net.bias}], lr=self.lr)


@variant("weight_decay")
def _():
    data = Data(num_train=20, num_val=100, num_inputs=200, batch_size=5)
    for lambd in (0, 3):
        model = WeightDecayScratch(num_inputs=200, lambd=lambd, lr=0.01)
        model.board.yscale = 'log'
        fit(model, data, 10)
        print(f"  scratch lambd {lambd} L2 norm of w {float(l2_penalty(model.w))!r}")
    model = WeightDecay(wd=3, lr=0.01)
    model.board.yscale = 'log'
    fit(model, data, 10)
    print(f"  concise L2 norm of w {float(l2_penalty(model.get_w_b()[0]))!r}")


# ------------------------------------------------------- chapters 4-5: classification and MLPs

def softmax(X):
    X_exp = torch.exp(X)
    partition = X_exp.sum(1, keepdims=True)
    return X_exp / partition


class SoftmaxRegressionScratch(d2l.Classifier):
    def __init__(self, num_inputs, num_outputs, lr, sigma=0.01):
        super().__init__()
        self.save_hyperparameters()
        self.W = torch.normal(0, sigma, size=(num_inputs, num_outputs), requires_grad=True)
        self.b = torch.zeros(num_outputs, requires_grad=True)

    def parameters(self):
        return [self.W, self.b]

    def forward(self, X):
        X = X.reshape((-1, self.W.shape[0]))
        return softmax(torch.matmul(X, self.W) + self.b)

    def loss(self, y_hat, y):
        return -torch.log(y_hat[list(range(len(y_hat))), y]).mean()


@variant("softmax")
def _():
    data = fashion(batch_size=64)
    X, y = next(iter(data.train_dataloader()))
    show("batch X", X)
    print(f"  batch labels {data.text_labels(y[:8])}")
    data.visualize((X[:8], y[:8]))  # d2l.show_images on the tensors
    model = SoftmaxRegressionScratch(num_inputs=784, num_outputs=10, lr=0.1)
    fit(model, data, 2)
    show("scratch W", model.W)
    show("scratch b", model.b)
    X, y = next(iter(data.val_dataloader()))
    preds = model(X).argmax(axis=1)
    print(f"  scratch preds {preds[:16].tolist()} wrong {int((preds != y).sum())}")
    model = d2l.SoftmaxRegression(num_outputs=10, lr=0.1)
    fit(model, data, 2)
    params(model)
    print(f"  concise accuracy {float(model.accuracy(model(X), y))!r}")


class MLPScratch(d2l.Classifier):
    def __init__(self, num_inputs, num_outputs, num_hiddens, lr, sigma=0.01):
        super().__init__()
        self.save_hyperparameters()
        self.W1 = nn.Parameter(torch.randn(num_inputs, num_hiddens) * sigma)
        self.b1 = nn.Parameter(torch.zeros(num_hiddens))
        self.W2 = nn.Parameter(torch.randn(num_hiddens, num_outputs) * sigma)
        self.b2 = nn.Parameter(torch.zeros(num_outputs))

    def forward(self, X):
        X = X.reshape((-1, self.num_inputs))
        H = torch.max(torch.matmul(X, self.W1) + self.b1, torch.zeros_like(X[:1, :1]))
        return torch.matmul(H, self.W2) + self.b2


def dropout_layer(X, dropout):
    assert 0 <= dropout <= 1
    if dropout == 1:
        return torch.zeros_like(X)
    mask = (torch.rand(X.shape) > dropout).float()
    return mask * X / (1.0 - dropout)


class DropoutMLPScratch(d2l.Classifier):
    def __init__(self, num_outputs, num_hiddens_1, num_hiddens_2, dropout_1, dropout_2, lr):
        super().__init__()
        self.save_hyperparameters()
        self.lin1 = nn.LazyLinear(num_hiddens_1)
        self.lin2 = nn.LazyLinear(num_hiddens_2)
        self.lin3 = nn.LazyLinear(num_outputs)
        self.relu = nn.ReLU()

    def forward(self, X):
        H1 = self.relu(self.lin1(X.reshape((X.shape[0], -1))))
        if self.training:
            H1 = dropout_layer(H1, self.dropout_1)
        H2 = self.relu(self.lin2(H1))
        if self.training:
            H2 = dropout_layer(H2, self.dropout_2)
        return self.lin3(H2)


class DropoutMLP(d2l.Classifier):
    def __init__(self, num_outputs, num_hiddens_1, num_hiddens_2, dropout_1, dropout_2, lr):
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.Sequential(
            nn.Flatten(), nn.LazyLinear(num_hiddens_1), nn.ReLU(),
            nn.Dropout(dropout_1), nn.LazyLinear(num_hiddens_2), nn.ReLU(),
            nn.Dropout(dropout_2), nn.LazyLinear(num_outputs))


@variant("mlp")
def _():
    data = fashion(batch_size=64)
    model = MLPScratch(num_inputs=784, num_outputs=10, num_hiddens=64, lr=0.1)
    fit(model, data, 2)
    params(model)
    hparams = {'num_outputs': 10, 'num_hiddens_1': 64, 'num_hiddens_2': 32,
               'dropout_1': 0.5, 'dropout_2': 0.5, 'lr': 0.1}
    for cls in (DropoutMLPScratch, DropoutMLP):
        model = cls(**hparams)
        fit(model, data, 2)
        params(model)


# ------------------------------------------------------------------ chapters 7-8: CNNs

@variant("lenet")
def _():
    data = fashion(batch_size=64)
    model = d2l.LeNet(lr=0.1)
    with contextlib.redirect_stdout(io.StringIO()) as summary:
        model.layer_summary((1, 1, 28, 28))
    for line in summary.getvalue().splitlines():
        print(f"  summary {line}")
    model.apply_init([next(iter(data.get_dataloader(True)))[0]], d2l.init_cnn)
    fit(model, data, 2)
    params(model)


def batch_norm(X, gamma, beta, moving_mean, moving_var, eps, momentum):
    if not torch.is_grad_enabled():
        X_hat = (X - moving_mean) / torch.sqrt(moving_var + eps)
    else:
        assert len(X.shape) in (2, 4)
        if len(X.shape) == 2:
            mean = X.mean(dim=0)
            var = ((X - mean) ** 2).mean(dim=0)
        else:
            mean = X.mean(dim=(0, 2, 3), keepdim=True)
            var = ((X - mean) ** 2).mean(dim=(0, 2, 3), keepdim=True)
        X_hat = (X - mean) / torch.sqrt(var + eps)
        moving_mean = (1.0 - momentum) * moving_mean + momentum * mean
        moving_var = (1.0 - momentum) * moving_var + momentum * var
    Y = gamma * X_hat + beta
    return Y, moving_mean.data, moving_var.data


class BatchNorm(nn.Module):
    def __init__(self, num_features, num_dims):
        super().__init__()
        shape = (1, num_features) if num_dims == 2 else (1, num_features, 1, 1)
        self.gamma = nn.Parameter(torch.ones(shape))
        self.beta = nn.Parameter(torch.zeros(shape))
        self.moving_mean = torch.zeros(shape)
        self.moving_var = torch.ones(shape)

    def forward(self, X):
        if self.moving_mean.device != X.device:
            self.moving_mean = self.moving_mean.to(X.device)
            self.moving_var = self.moving_var.to(X.device)
        Y, self.moving_mean, self.moving_var = batch_norm(
            X, self.gamma, self.beta, self.moving_mean,
            self.moving_var, eps=1e-5, momentum=0.1)
        return Y


class BNLeNetScratch(d2l.Classifier):
    def __init__(self, lr=0.1, num_classes=10):
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.Sequential(
            nn.LazyConv2d(6, kernel_size=5), BatchNorm(6, num_dims=4),
            nn.Sigmoid(), nn.AvgPool2d(kernel_size=2, stride=2),
            nn.LazyConv2d(16, kernel_size=5), BatchNorm(16, num_dims=4),
            nn.Sigmoid(), nn.AvgPool2d(kernel_size=2, stride=2),
            nn.Flatten(), nn.LazyLinear(120),
            BatchNorm(120, num_dims=2), nn.Sigmoid(), nn.LazyLinear(84),
            BatchNorm(84, num_dims=2), nn.Sigmoid(),
            nn.LazyLinear(num_classes))


class BNLeNet(d2l.Classifier):
    def __init__(self, lr=0.1, num_classes=10):
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.Sequential(
            nn.LazyConv2d(6, kernel_size=5), nn.LazyBatchNorm2d(),
            nn.Sigmoid(), nn.AvgPool2d(kernel_size=2, stride=2),
            nn.LazyConv2d(16, kernel_size=5), nn.LazyBatchNorm2d(),
            nn.Sigmoid(), nn.AvgPool2d(kernel_size=2, stride=2),
            nn.Flatten(), nn.LazyLinear(120), nn.LazyBatchNorm1d(),
            nn.Sigmoid(), nn.LazyLinear(84), nn.LazyBatchNorm1d(),
            nn.Sigmoid(), nn.LazyLinear(num_classes))


@variant("batchnorm")
def _():
    data = fashion(batch_size=64)
    X = next(iter(data.get_dataloader(True)))[0]
    for cls in (BNLeNetScratch, BNLeNet):
        model = cls(lr=0.1)
        model.apply_init([X], d2l.init_cnn)
        fit(model, data, 2)
        params(model)
        for name, buf in model.named_buffers():
            show(f"buffer {name}", buf)
    bn = model.net[1]
    print(f"  running stats of the concise first BN: momentum {bn.momentum} "
          f"num_batches_tracked {int(bn.num_batches_tracked)}")
    scratch = BNLeNetScratch()
    scratch.apply_init([X], d2l.init_cnn)
    show("scratch moving_mean after a forward", scratch.net[1].moving_mean)


class ResNet(d2l.Classifier):
    def b1(self):
        return nn.Sequential(
            nn.LazyConv2d(16, kernel_size=7, stride=2, padding=3),
            nn.LazyBatchNorm2d(), nn.ReLU(),
            nn.MaxPool2d(kernel_size=3, stride=2, padding=1))

    def block(self, num_residuals, num_channels, first_block=False):
        blk = []
        for i in range(num_residuals):
            if i == 0 and not first_block:
                blk.append(d2l.Residual(num_channels, use_1x1conv=True, strides=2))
            else:
                blk.append(d2l.Residual(num_channels))
        return nn.Sequential(*blk)

    def __init__(self, arch, lr=0.1, num_classes=10):
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.Sequential(self.b1())
        for i, b in enumerate(arch):
            self.net.add_module(f'b{i+2}', self.block(*b, first_block=(i == 0)))
        self.net.add_module('last', nn.Sequential(
            nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(),
            nn.LazyLinear(num_classes)))
        self.net.apply(d2l.init_cnn)


def conv_block(num_channels):
    return nn.Sequential(
        nn.LazyBatchNorm2d(), nn.ReLU(),
        nn.LazyConv2d(num_channels, kernel_size=3, padding=1))


class DenseBlock(nn.Module):
    def __init__(self, num_convs, num_channels):
        super().__init__()
        self.net = nn.Sequential(*[conv_block(num_channels) for _ in range(num_convs)])

    def forward(self, X):
        for blk in self.net:
            Y = blk(X)
            X = torch.cat((X, Y), dim=1)
        return X


def transition_block(num_channels):
    return nn.Sequential(
        nn.LazyBatchNorm2d(), nn.ReLU(),
        nn.LazyConv2d(num_channels, kernel_size=1),
        nn.AvgPool2d(kernel_size=2, stride=2))


class DenseNet(d2l.Classifier):
    def __init__(self, num_channels=16, growth_rate=8, arch=(2, 2), lr=0.1, num_classes=10):
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.Sequential(ResNet.b1(self))
        for i, num_convs in enumerate(arch):
            self.net.add_module(f'dense_blk{i+1}', DenseBlock(num_convs, growth_rate))
            num_channels += num_convs * growth_rate
            if i != len(arch) - 1:
                num_channels //= 2
                self.net.add_module(f'tran_blk{i+1}', transition_block(num_channels))
        self.net.add_module('last', nn.Sequential(
            nn.LazyBatchNorm2d(), nn.ReLU(),
            nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(),
            nn.LazyLinear(num_classes)))
        self.net.apply(d2l.init_cnn)


@variant("resnet")
def _():
    blk = d2l.Residual(3)
    X = torch.randn(4, 3, 6, 6)
    show("Residual(3)", blk(X))
    blk = d2l.Residual(6, use_1x1conv=True, strides=2)
    show("Residual(6, 1x1, stride 2)", blk(X))
    blk = d2l.ResNeXtBlock(32, 16, 1)
    X = torch.randn(4, 32, 6, 6)
    Y = blk(X)
    Y.square().mean().backward()
    show("ResNeXtBlock(32, 16, 1)", Y)
    show("ResNeXtBlock conv2 grad", blk.conv2.weight.grad)
    blk = DenseBlock(2, 10)
    show("DenseBlock(2, 10)", blk(torch.randn(4, 3, 8, 8)))
    data = fashion(batch_size=32, resize=(32, 32))
    X = next(iter(data.get_dataloader(True)))[0]
    for name, model in (("ResNet", ResNet(arch=((1, 16), (1, 32)), lr=0.05)),
                        ("DenseNet", DenseNet(lr=0.05))):
        model.apply_init([X], d2l.init_cnn)
        print(f"  {name}")
        fit(model, data, 1)
        params(model)
    net = d2l.resnet18(10, 1)
    net.eval()
    show("d2l.resnet18 eval output", net(X[:4]))


# ---------------------------------------------------------------- chapters 9-10: RNNs

WORDS = ("the time traveller said it was a machine for travelling through "
         "time and space he had made with ivory and crystal").split()


class TimeMachine(d2l.TimeMachine):
    def _download(self):
        rng = random.Random(0)
        sentences = []
        for _ in range(600):
            start = rng.randrange(len(WORDS) - 6)
            sentences.append(" ".join(WORDS[start:start + rng.randrange(3, 7)]))
        return ". ".join(sentences)


class LSTM(d2l.RNN):
    def __init__(self, num_inputs, num_hiddens):
        d2l.Module.__init__(self)
        self.save_hyperparameters()
        self.rnn = nn.LSTM(num_inputs, num_hiddens)

    def forward(self, inputs, H_C=None):
        return self.rnn(inputs, H_C)


@variant("rnn")
def _():
    data = TimeMachine(batch_size=64, num_steps=12, num_train=1024, num_val=256)
    vocab = data.vocab
    print(f"  vocab {len(vocab)} {vocab.idx_to_token} {vocab.to_tokens([1, 2, 3])} "
          f"{vocab['t']} {vocab[['t', 'h', 'e']]}")
    show("X", data.X)
    rnn = d2l.RNNScratch(num_inputs=len(vocab), num_hiddens=32)
    model = d2l.RNNLMScratch(rnn, vocab_size=len(vocab), lr=1)
    fit(model, data, 2, gradient_clip_val=1)
    params(model)
    print(f"  scratch predict {model.predict('it has', 20, vocab)!r}")
    for name, make in (("RNN", lambda: d2l.RNN(num_inputs=len(vocab), num_hiddens=32)),
                       ("GRU", lambda: d2l.GRU(num_inputs=len(vocab), num_hiddens=32,
                                               num_layers=2)),
                       ("LSTM", lambda: LSTM(num_inputs=len(vocab), num_hiddens=32))):
        rnn = make()
        model = d2l.RNNLM(rnn, vocab_size=len(vocab), lr=1 if name == "RNN" else 4)
        print(f"  {name}")
        fit(model, data, 2, gradient_clip_val=1)
        params(model)
        print(f"  {name} predict {model.predict('it has', 20, vocab)!r}")


# ---------------------------------------------------------- chapters 10-11: seq2seq, attention

ENG = "go run stop look wait help come sit eat sleep".split()
FRA = "va cours arrete regarde attends aide viens assieds mange dors".split()


class MTFraEng(d2l.MTFraEng):
    def _download(self):
        rng = random.Random(1)
        lines = []
        for _ in range(640):
            k = [rng.randrange(len(ENG)) for _ in range(rng.randrange(1, 4))]
            lines.append(" ".join(ENG[i] for i in k) + " !\t"
                         + " ".join(FRA[i] for i in k) + " !")
        return "\n".join(lines)


class Seq2SeqDecoder(d2l.Decoder):
    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, dropout=0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = d2l.GRU(embed_size + num_hiddens, num_hiddens, num_layers, dropout)
        self.dense = nn.LazyLinear(vocab_size)
        self.apply(d2l.init_seq2seq)

    def init_state(self, enc_all_outputs, *args):
        return enc_all_outputs

    def forward(self, X, state):
        embs = self.embedding(X.t().type(torch.int32))
        enc_output, hidden_state = state
        context = enc_output[-1]
        context = context.repeat(embs.shape[0], 1, 1)
        embs_and_context = torch.cat((embs, context), -1)
        outputs, hidden_state = self.rnn(embs_and_context, hidden_state)
        outputs = self.dense(outputs).swapaxes(0, 1)
        return outputs, [enc_output, hidden_state]


class Seq2Seq(d2l.Seq2Seq):
    def loss(self, Y_hat, Y):
        l = super(d2l.Seq2Seq, self).loss(Y_hat, Y, averaged=False)
        mask = (Y.reshape(-1) != self.tgt_pad).type(torch.float32)
        return (l * mask).sum() / mask.sum()


class Seq2SeqAttentionDecoder(d2l.AttentionDecoder):
    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, dropout=0):
        super().__init__()
        self.attention = d2l.AdditiveAttention(num_hiddens, dropout)
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = nn.GRU(embed_size + num_hiddens, num_hiddens, num_layers, dropout=dropout)
        self.dense = nn.LazyLinear(vocab_size)
        self.apply(d2l.init_seq2seq)

    def init_state(self, enc_outputs, enc_valid_lens):
        outputs, hidden_state = enc_outputs
        return (outputs.permute(1, 0, 2), hidden_state, enc_valid_lens)

    def forward(self, X, state):
        enc_outputs, hidden_state, enc_valid_lens = state
        X = self.embedding(X).permute(1, 0, 2)
        outputs, self._attention_weights = [], []
        for x in X:
            query = torch.unsqueeze(hidden_state[-1], dim=1)
            context = self.attention(query, enc_outputs, enc_outputs, enc_valid_lens)
            x = torch.cat((context, torch.unsqueeze(x, dim=1)), dim=-1)
            out, hidden_state = self.rnn(x.permute(1, 0, 2), hidden_state)
            outputs.append(out)
            self._attention_weights.append(self.attention.attention_weights)
        outputs = self.dense(torch.cat(outputs, dim=0))
        return outputs.permute(1, 0, 2), [enc_outputs, hidden_state, enc_valid_lens]

    @property
    def attention_weights(self):
        return self._attention_weights


@variant("seq2seq")
def _():
    data = MTFraEng(batch_size=64, num_steps=6, num_train=512, num_val=128)
    src, tgt, src_valid_len, label = data.train_dataloader().__iter__().__next__()
    show("src", src)
    show("src_valid_len", src_valid_len)
    print(f"  vocab {len(data.src_vocab)} {len(data.tgt_vocab)}")
    engs = ['go !', 'run help !', 'look sit eat !', 'wait !']
    fras = ['va !', 'cours aide !', 'regarde assieds mange !', 'attends !']
    for name, dec in (("Seq2SeqDecoder", Seq2SeqDecoder), ("AttentionDecoder",
                                                          Seq2SeqAttentionDecoder)):
        encoder = d2l.Seq2SeqEncoder(len(data.src_vocab), 16, 32, 2)
        decoder = dec(len(data.tgt_vocab), 16, 32, 2)
        model = Seq2Seq(encoder, decoder, tgt_pad=data.tgt_vocab['<pad>'], lr=0.01)
        print(f"  {name}")
        fit(model, data, 3, gradient_clip_val=1)
        params(model)
        preds, attn = model.predict_step(data.build(engs, fras), d2l.cpu(), data.num_steps,
                                         save_attention_weights=(dec is not Seq2SeqDecoder))
        for en, fr, p in zip(engs, fras, preds):
            translation = []
            for token in data.tgt_vocab.to_tokens(p):
                if token == '<eos>':
                    break
                translation.append(token)
            print(f"  {en} => {translation}, bleu {d2l.bleu(' '.join(translation), fr, k=2):.3f}")
        if attn:
            weights = torch.cat([step[0] for step in attn], 0).reshape((1, 1, -1, data.num_steps))
            d2l.show_heatmaps(weights[:, :, :, :4], xlabel='Key positions',
                              ylabel='Query positions')
            show("attention weights", weights)
    # the chapter-9 utilities: sequence_mask, MaskedSoftmaxCELoss
    X = torch.tensor([[1, 2, 3], [4, 5, 6]])
    show("sequence_mask", d2l.sequence_mask(X, torch.tensor([1, 2])))
    loss = d2l.MaskedSoftmaxCELoss()
    pred = torch.randn(3, 4, 10, requires_grad=True)
    l = loss(pred, torch.ones((3, 4), dtype=torch.long), torch.tensor([4, 2, 0]))
    l.sum().backward()
    show("MaskedSoftmaxCELoss", l)
    show("MaskedSoftmaxCELoss grad", pred.grad)


@variant("attention")
def _():
    show("masked_softmax 1d", d2l.masked_softmax(torch.rand(2, 2, 4), torch.tensor([2, 3])))
    show("masked_softmax 2d", d2l.masked_softmax(torch.rand(2, 2, 4),
                                                 torch.tensor([[1, 3], [2, 4]])))
    queries = torch.normal(0, 1, (2, 1, 20))
    keys = torch.normal(0, 1, (2, 10, 2))
    values = torch.normal(0, 1, (2, 10, 4))
    valid_lens = torch.tensor([2, 6])
    attention = d2l.AdditiveAttention(num_hiddens=8, dropout=0.1)
    attention.eval()
    show("AdditiveAttention", attention(queries, keys, values, valid_lens))
    show("AdditiveAttention weights", attention.attention_weights)
    d2l.show_heatmaps(attention.attention_weights.reshape((1, 1, 2, 10)),
                      xlabel='Keys', ylabel='Queries')
    queries = torch.normal(0, 1, (2, 1, 2))
    attention = d2l.DotProductAttention(dropout=0.5)
    attention.eval()
    show("DotProductAttention", attention(queries, keys, values, valid_lens))
    attention.train()
    show("DotProductAttention dropout", attention(queries, keys, values, valid_lens))
    num_hiddens, num_heads = 100, 5
    attention = d2l.MultiHeadAttention(num_hiddens, num_heads, 0.5)
    batch_size, num_queries, num_kvpairs = 2, 4, 6
    valid_lens = torch.tensor([3, 2])
    X = torch.ones((batch_size, num_queries, num_hiddens))
    Y = torch.randn((batch_size, num_kvpairs, num_hiddens), requires_grad=True)
    out = attention(X, Y, Y, valid_lens)
    out.square().sum().backward()
    show("MultiHeadAttention (dropout)", out)
    show("MultiHeadAttention grad Y", Y.grad)
    show("MultiHeadAttention grad W_q", attention.W_q.weight.grad)
    encoding_dim, num_steps = 32, 60
    pos_encoding = d2l.PositionalEncoding(encoding_dim, 0)
    X = pos_encoding(torch.zeros((1, num_steps, encoding_dim)))
    show("PositionalEncoding", X)
    P = pos_encoding.P[:, :X.shape[1], :]
    d2l.plot(torch.arange(num_steps), P[0, :, 6:10].T, xlabel='Row (position)',
             figsize=(6, 2.5), legend=[f"Col {int(d)}" for d in torch.arange(6, 10)])
    ffn = d2l.PositionWiseFFN(4, 8)
    ffn.eval()
    show("PositionWiseFFN", ffn(torch.ones((2, 3, 4)))[0])
    ln = nn.LayerNorm(2)
    bn = nn.LazyBatchNorm1d()
    X = torch.tensor([[1, 2], [2, 3]], dtype=torch.float32)
    show("layer norm", ln(X))
    show("batch norm", bn(X))
    add_norm = d2l.AddNorm(4, 0.5)
    show("AddNorm", add_norm(torch.ones((2, 3, 4)), torch.ones((2, 3, 4))))
    X = torch.ones((2, 100, 24))
    valid_lens = torch.tensor([3, 2])
    encoder_blk = d2l.TransformerEncoderBlock(24, 48, 8, 0.5)
    encoder_blk.eval()
    show("TransformerEncoderBlock", encoder_blk(X, valid_lens))
    encoder = d2l.TransformerEncoder(200, 24, 48, 8, 2, 0.5)
    tokens = torch.randint(0, 200, (2, 100))
    out = encoder(tokens, valid_lens)
    out[..., 0].sum().backward()  # a sum over whole LayerNorm outputs has a zero gradient
    show("TransformerEncoder (dropout)", out)
    show("TransformerEncoder embedding grad", encoder.embedding.weight.grad)
    encoder.eval()
    out = encoder(tokens, valid_lens)
    show("TransformerEncoder eval", out)
    weights = torch.stack(encoder.attention_weights).reshape((2, -1, 100, 100))[:, :, :8, :8]
    d2l.show_heatmaps(weights.cpu(), xlabel='Key positions', ylabel='Query positions',
                      titles=[f'Head {i}' for i in range(1, 17)], figsize=(7, 3.5))
    show("encoder attention weights", weights)


# ---------------------------------------------------------------- chapter 12: optimization

def init_momentum_states(feature_dim):
    return (torch.zeros((feature_dim, 1)), torch.zeros(1))


def sgd(params, states, hyperparams):
    for p in params:
        p.data.sub_(hyperparams['lr'] * p.grad)
        p.grad.data.zero_()


def sgd_momentum(params, states, hyperparams):
    for p, v in zip(params, states):
        with torch.no_grad():
            v[:] = hyperparams['momentum'] * v + p.grad
            p[:] -= hyperparams['lr'] * v
        p.grad.data.zero_()


def adagrad(params, states, hyperparams):
    eps = 1e-6
    for p, s in zip(params, states):
        with torch.no_grad():
            s[:] += torch.square(p.grad)
            p[:] -= hyperparams['lr'] * p.grad / torch.sqrt(s + eps)
        p.grad.data.zero_()


def rmsprop(params, states, hyperparams):
    gamma, eps = hyperparams['gamma'], 1e-6
    for p, s in zip(params, states):
        with torch.no_grad():
            s[:] = gamma * s + (1 - gamma) * torch.square(p.grad)
            p[:] -= hyperparams['lr'] * p.grad / torch.sqrt(s + eps)
        p.grad.data.zero_()


def init_pair_states(feature_dim):
    return ((torch.zeros((feature_dim, 1)), torch.zeros((feature_dim, 1))),
            (torch.zeros(1), torch.zeros(1)))


def adadelta(params, states, hyperparams):
    rho, eps = hyperparams['rho'], 1e-5
    for p, (s, delta) in zip(params, states):
        with torch.no_grad():
            s[:] = rho * s + (1 - rho) * torch.square(p.grad)
            g = (torch.sqrt(delta + eps) / torch.sqrt(s + eps)) * p.grad
            p[:] -= g
            delta[:] = rho * delta + (1 - rho) * g * g
        p.grad.data.zero_()


def adam(params, states, hyperparams):
    beta1, beta2, eps = 0.9, 0.999, 1e-6
    for p, (v, s) in zip(params, states):
        with torch.no_grad():
            v[:] = beta1 * v + (1 - beta1) * p.grad
            s[:] = beta2 * s + (1 - beta2) * torch.square(p.grad)
            v_bias_corr = v / (1 - beta1 ** hyperparams['t'])
            s_bias_corr = s / (1 - beta2 ** hyperparams['t'])
            p[:] -= hyperparams['lr'] * v_bias_corr / (torch.sqrt(s_bias_corr) + eps)
        p.grad.data.zero_()
    hyperparams['t'] += 1


def yogi(params, states, hyperparams):
    beta1, beta2, eps = 0.9, 0.999, 1e-3
    for p, (v, s) in zip(params, states):
        with torch.no_grad():
            v[:] = beta1 * v + (1 - beta1) * p.grad
            s[:] = s + (1 - beta2) * torch.sign(
                torch.square(p.grad) - s) * torch.square(p.grad)
            v_bias_corr = v / (1 - beta1 ** hyperparams['t'])
            s_bias_corr = s / (1 - beta2 ** hyperparams['t'])
            p[:] -= hyperparams['lr'] * v_bias_corr / (torch.sqrt(s_bias_corr) + eps)
        p.grad.data.zero_()
    hyperparams['t'] += 1


def quiet(fn, *args):
    """Run a chapter-12 trainer, printing its summary line without the seconds per epoch."""
    with contextlib.redirect_stdout(io.StringIO()) as out:
        result = fn(*args)
    for line in out.getvalue().splitlines():
        print("  " + re.sub(r", [0-9.]+ sec/epoch", "", line))
    return result


def f_2d(x1, x2):
    return 0.1 * x1 ** 2 + 2 * x2 ** 2


def momentum_2d(x1, x2, v1, v2):
    v1 = 0.5 * v1 + 0.2 * x1
    v2 = 0.5 * v2 + 4 * x2
    return x1 - 0.4 * v1, x2 - 0.4 * v2, v1, v2


@variant("optim")
def _():
    n, dim = 300, 5
    X = torch.randn(n, dim)
    y = X @ torch.tensor([0.5, -1.0, 0.25, 0.0, 2.0]) + 0.3 * torch.randn(n)
    X = (X - X.mean(0)) / X.std(0)
    y = (y - y.mean()) / y.std()
    data_iter = d2l.load_array((X, y), 10, is_train=True)
    runs = [("sgd", sgd, None, {'lr': 0.05}),
            ("momentum", sgd_momentum, init_momentum_states, {'lr': 0.02, 'momentum': 0.5}),
            ("adagrad", adagrad, init_momentum_states, {'lr': 0.1}),
            ("rmsprop", rmsprop, init_momentum_states, {'lr': 0.01, 'gamma': 0.9}),
            ("adadelta", adadelta, init_pair_states, {'rho': 0.9}),
            ("adam", adam, init_pair_states, {'lr': 0.01, 't': 1}),
            ("yogi", yogi, init_pair_states, {'lr': 0.01, 't': 1})]
    for name, fn, init, hyper in runs:
        states = init(dim) if init else None
        _, losses = quiet(d2l.train_ch11, fn, states, hyper, data_iter, dim, 1)
        print(f"  {name} losses {losses!r}")
    for name, cls, hyper in (("SGD", torch.optim.SGD, {'lr': 0.01, 'momentum': 0.9}),
                             ("Adagrad", torch.optim.Adagrad, {'lr': 0.1}),
                             ("RMSprop", torch.optim.RMSprop, {'lr': 0.01, 'alpha': 0.9}),
                             ("Adadelta", torch.optim.Adadelta, {'rho': 0.9}),
                             ("Adam", torch.optim.Adam, {'lr': 0.01})):
        print(f"  concise {name}")
        quiet(d2l.train_concise_ch11, cls, hyper, data_iter, 1)
    results = quiet(d2l.train_2d, momentum_2d)
    d2l.show_trace_2d(f_2d, results)  # contour of f on d2l.meshgrid tensors
    print(f"  train_2d {results[-1]!r}")
    x = torch.arange(-2.0, 2.0, 0.01)
    d2l.plot(x, [x ** 2, torch.cos(x)], 'x', 'f(x)', legend=['x^2', 'cos'])
    d2l.plot([x, x], [x.sin(), x.tanh()], 'x', 'f(x)')
    timer = d2l.Timer()
    print(f"  Timer {len(timer.times)} Accumulator {d2l.Accumulator(2).data}")


@variant("densenet64")
def _():
    """The DenseNet for 16 SGD steps on random float64 images: float32 runs of it drift apart
    (the conv biases before BatchNorm have a zero true gradient, so theirs is rounding noise,
    and lr 0.05 makes the net sensitive to it); float64 runs agree."""
    torch.set_default_dtype(torch.float64)
    try:
        model = DenseNet(lr=0.05)
        X, y = torch.rand(16 * 32, 1, 32, 32), torch.randint(0, 10, (16 * 32,))
        model.apply_init([X[:32]], d2l.init_cnn)
        optim = model.configure_optimizers()
        losses = []
        for i in range(16):
            l = model.loss(model(X[i * 32:(i + 1) * 32]), y[i * 32:(i + 1) * 32])
            optim.zero_grad()
            l.backward()
            optim.step()
            losses.append(l.item())
        print(f"  losses {losses!r}")
        params(model)
    finally:
        torch.set_default_dtype(torch.float32)


@variant("legacy")
def _():
    """The second edition's utilities, still in the package: synthetic_data/linreg/sgd,
    corr2d and a learned edge kernel, load_data_fashion_mnist (4 worker processes) with
    train_ch6, grad_clipping."""
    true_w, true_b = torch.tensor([2, -3.4]), 4.2
    features, labels = d2l.synthetic_data(true_w, true_b, 200)
    w = torch.normal(0, 0.01, size=(2, 1), requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    for epoch in range(3):
        for X, y in d2l.load_array((features, labels), 10):
            l = d2l.squared_loss(d2l.linreg(X, w, b), y)
            l.sum().backward()
            d2l.sgd([w, b], 0.03, 10)
        with torch.no_grad():
            train_l = d2l.squared_loss(d2l.linreg(features, w, b), labels)
            print(f"  epoch {epoch + 1}, loss {float(train_l.mean())!r}")
    show("w", w)
    show("b", b)
    X = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]])
    show("corr2d", d2l.corr2d(X, torch.tensor([[0.0, 1.0], [2.0, 3.0]])))
    X = torch.ones((6, 8))
    X[:, 2:6] = 0
    Y = d2l.corr2d(X, torch.tensor([[1.0, -1.0]]))
    conv2d = nn.LazyConv2d(1, kernel_size=(1, 2), bias=False)
    X, Y = X.reshape((1, 1, 6, 8)), Y.reshape((1, 1, 6, 7))
    for i in range(10):
        l = (conv2d(X) - Y) ** 2
        conv2d.zero_grad()
        l.sum().backward()
        conv2d.weight.data[:] -= 3e-2 * conv2d.weight.grad
        if (i + 1) % 2 == 0:
            print(f"  epoch {i + 1}, loss {l.sum().item()!r}")
    show("learned kernel", conv2d.weight.data.reshape((1, 2)))
    train_iter, test_iter = d2l.load_data_fashion_mnist(batch_size=64)
    X, y = next(iter(train_iter))
    print(f"  workers {train_iter.num_workers} labels {d2l.get_fashion_mnist_labels(y[:6])}")
    d2l.show_images(X.reshape(-1, 28, 28)[:6], 1, 6, titles=d2l.get_fashion_mnist_labels(y))
    net = nn.Sequential(
        nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.Sigmoid(), nn.AvgPool2d(2, 2),
        nn.Conv2d(6, 16, kernel_size=5), nn.Sigmoid(), nn.AvgPool2d(2, 2), nn.Flatten(),
        nn.Linear(16 * 5 * 5, 120), nn.Sigmoid(), nn.Linear(120, 84), nn.Sigmoid(),
        nn.Linear(84, 10))
    with contextlib.redirect_stdout(io.StringIO()) as out:
        d2l.train_ch6(net, train_iter, test_iter, 2, 0.9, d2l.try_gpu())
    for line in out.getvalue().splitlines():
        if "examples/sec" not in line:
            print("  " + line)
    params(net)
    d2l.grad_clipping(net, 1e-3)  # the gradients of the last batch
    show("clipped grad", net[-1].weight.grad)


@variant("detection")
def _():
    """Chapter 14's anchor boxes: multibox_prior, box_iou, multibox_target and
    multibox_detection with the book's nms, and show_bboxes."""
    img = torch.rand(3, 40, 60)
    Y = d2l.multibox_prior(img.unsqueeze(0), sizes=[0.75, 0.5, 0.25], ratios=[1, 2, 0.5])
    show("multibox_prior", Y)
    boxes = Y.reshape(40, 60, 5, 4)
    show("anchor (20, 30, 0)", boxes[20, 30, 0, :])
    fig = d2l.plt.imshow(img.permute(1, 2, 0))
    bbox_scale = torch.tensor((60, 40, 60, 40))
    d2l.show_bboxes(fig.axes, boxes[20, 30, :, :] * bbox_scale,
                    ['s=0.75, r=1', 's=0.5, r=1', 's=0.25, r=1', 's=0.75, r=2', 's=0.75, r=0.5'])
    ground_truth = torch.tensor([[0, 0.1, 0.08, 0.52, 0.92], [1, 0.55, 0.2, 0.9, 0.88]])
    anchors = torch.tensor([[0, 0.1, 0.2, 0.3], [0.15, 0.2, 0.4, 0.4],
                            [0.63, 0.05, 0.88, 0.98], [0.66, 0.45, 0.8, 0.8],
                            [0.57, 0.3, 0.92, 0.9]])
    show("box_iou", d2l.box_iou(anchors, ground_truth[:, 1:]))
    labels = d2l.multibox_target(anchors.unsqueeze(dim=0), ground_truth.unsqueeze(dim=0))
    for name, t in zip(("offsets", "mask", "class labels"), labels):
        show(f"multibox_target {name}", t)
    anchors = torch.tensor([[0.1, 0.08, 0.52, 0.92], [0.08, 0.2, 0.56, 0.95],
                            [0.15, 0.3, 0.62, 0.91], [0.55, 0.2, 0.9, 0.88]])
    offset_preds = torch.tensor([0] * anchors.numel())
    cls_probs = torch.tensor([[0] * 4, [0.9, 0.8, 0.7, 0.1], [0.1, 0.2, 0.3, 0.9]])
    output = d2l.multibox_detection(cls_probs.unsqueeze(dim=0), offset_preds.unsqueeze(dim=0),
                                    anchors.unsqueeze(dim=0), nms_threshold=0.5)
    show("multibox_detection", output)
    # every nms step has new shapes, so new kernels for jtorch to compile: a 4x4 map
    Y = d2l.multibox_prior(torch.rand(1, 3, 4, 4), sizes=[0.3], ratios=[1, 2])
    gt = torch.tensor([[[0, 0.1, 0.1, 0.45, 0.5], [1, 0.5, 0.4, 0.95, 0.9]],
                       [[1, 0.2, 0.2, 0.6, 0.7], [0, 0.6, 0.1, 0.9, 0.3]]])
    for name, t in zip(("offsets", "mask", "class labels"), d2l.multibox_target(Y, gt)):
        show(f"multibox_target 4x4 {name}", t)
    probs = F.softmax(torch.randn(2, 3, Y.shape[1]), dim=1)
    offsets = 0.1 * torch.randn(2, Y.shape[1] * 4)
    out = d2l.multibox_detection(probs, offsets, Y, nms_threshold=0.5)
    show("multibox_detection 4x4", out)
    print(f"  kept {[(o[:, 0] >= 0).sum().item() for o in out]}")


@variant("bert")
def _():
    """Chapter 15's BERT on generated paragraphs: d2l's _WikiTextDataset (next-sentence and
    masked-LM examples drawn with Python's random), BERTModel and _get_batch_loss_bert, a few
    Adam steps."""
    rng = random.Random(2)
    paragraphs = [" . ".join(" ".join(rng.choice(WORDS) for _ in range(rng.randrange(4, 9)))
                             for _ in range(rng.randrange(2, 5))) for _ in range(40)]
    train_set = d2l._WikiTextDataset(paragraphs, 24)
    vocab = train_set.vocab
    print(f"  examples {len(train_set)} vocab {len(vocab)}")
    tokens, segments = d2l.get_tokens_and_segments(['a', 'b'], ['c'])
    print(f"  tokens {tokens} segments {segments}")
    train_iter = torch.utils.data.DataLoader(train_set, 16, shuffle=True)
    net = d2l.BERTModel(len(vocab), num_hiddens=32, ffn_num_hiddens=64, num_heads=2,
                        num_blks=2, dropout=0.1, max_len=24)
    loss = nn.CrossEntropyLoss()
    batch = next(iter(train_iter))
    for t in batch:
        show("batch", t)
    net(*batch[:4])  # materialize the lazy layers
    trainer = torch.optim.Adam(net.parameters(), lr=0.01)
    step = 0
    for batch in train_iter:
        trainer.zero_grad()
        mlm_l, nsp_l, l = d2l._get_batch_loss_bert(net, loss, len(vocab), *batch)
        l.backward()
        trainer.step()
        print(f"  step {step} mlm {mlm_l.item()!r} nsp {nsp_l.item()!r}")
        step += 1
        if step == 4:
            break
    net.eval()
    encoded, mlm_hat, nsp_hat = net(*batch[:4])
    show("encoded (eval)", encoded)
    show("mlm_Y_hat (eval)", mlm_hat)
    show("nsp_Y_hat (eval)", nsp_hat)
    show("pos_embedding", net.encoder.pos_embedding)


def main(argv):
    names = list(VARIANTS) if argv in ([], ["all"]) else argv
    for name in names:
        if name not in VARIANTS:
            sys.exit(f"unknown variant {name}; known: {' '.join(VARIANTS)}")
    for name in names:
        start = time.time()
        torch.manual_seed(0)
        random.seed(0)
        print(f"== {name}")
        VARIANTS[name]()
        d2l.plt.close('all')
        print(f"[{name}: {time.time() - start:.1f}s]", file=sys.stderr)
    print(f"figures rendered {FIGURES[0]}")


if __name__ == "__main__":
    main(sys.argv[1:])
