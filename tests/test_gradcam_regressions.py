"""Patterns pytorch-grad-cam relies on (scripts/real_drivers/gradcam_cams.py,
docs/real-programs.md), each a small stand-in in plain torch-API code, run in jtorch and in real
PyTorch and compared: values and gradients. The driver found no jtorch bug; these keep what it
exercised from regressing."""

import numpy as np
import torch

import jtorch


def _conv_net(T, act):
    T.manual_seed(0)
    net = T.nn.Sequential(T.nn.Conv2d(3, 4, 3), act(), T.nn.Conv2d(4, 5, 3), T.nn.Tanh(),
                          T.nn.AdaptiveAvgPool2d(1), T.nn.Flatten(), T.nn.Linear(5, 3))
    rng = np.random.default_rng(1)
    with T.no_grad():
        for p in net.parameters():
            p.copy_(T.tensor(rng.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
    return net


def test_guided_backprop_function():
    # GuidedBackpropReLU: a custom Function built from addcmul and type_as masks, saving its
    # input and output; the backward passes only positive gradients at positive inputs
    def run(T):
        class Guided(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                out = T.addcmul(T.zeros(x.size()).type_as(x), x, (x > 0).type_as(x))
                ctx.save_for_backward(x, out)
                return out

            @staticmethod
            def backward(ctx, g):
                x, _ = ctx.saved_tensors
                inner = T.addcmul(T.zeros(x.size()).type_as(x), g, (x > 0).type_as(g))
                return T.addcmul(T.zeros(x.size()).type_as(x), inner, (g > 0).type_as(g))

        data = np.random.default_rng(0).standard_normal((2, 3, 5, 5)).astype(np.float32)
        x = T.tensor(data, requires_grad=True)
        w = T.tensor(np.linspace(-1, 1, 75, dtype=np.float32).reshape(3, 5, 5))
        out = Guided.apply(x)
        (out * w).sum().backward()
        return out.detach().numpy(), x.grad.numpy()

    (jo, jg), (to, tg) = run(jtorch), run(torch)
    np.testing.assert_array_equal(jo, to)
    np.testing.assert_array_equal(jg, tg)


def test_forward_hook_tensor_hooks_and_second_order():
    # ActivationsAndGradients: forward hooks register a hook on each target layer's output;
    # gradients arrive last layer first; with create_graph the input gradient differentiates
    # again (detach=False), and the tensor hooks fire in that second backward too
    def run(T):
        net = _conv_net(T, T.nn.GELU)
        acts, grads = [], []

        def hook(module, inputs, output):
            acts.append(output)
            output.register_hook(lambda g: grads.insert(0, g))

        handles = [net[i].register_forward_hook(hook) for i in (0, 2)]
        data = np.random.default_rng(2).random((2, 3, 8, 8), dtype=np.float32)
        x = T.tensor(data, requires_grad=True)
        logits = net(x)
        (gx,) = T.autograd.grad(logits[:, 1].sum(), x, create_graph=True)
        first = [g.detach().numpy().copy() for g in grads]
        (gx ** 2).sum().backward()
        for h in handles:
            h.remove()
        return ([a.detach().numpy() for a in acts], first, len(grads), gx.detach().numpy(),
                x.grad.numpy())

    j, t = run(jtorch), run(torch)
    for a, b in zip(j[0], t[0]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert [g.shape for g in j[1]] == [g.shape for g in t[1]] == [(2, 4, 6, 6), (2, 5, 4, 4)]
    for a, b in zip(j[1], t[1]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-7)
    assert j[2] == t[2]
    np.testing.assert_allclose(j[3], t[3], rtol=1e-4, atol=1e-8)
    np.testing.assert_allclose(j[4], t[4], rtol=1e-3, atol=1e-9)


def test_score_cam_masks():
    # ScoreCAM: bilinear (align_corners) upsampling of activations, per-channel min-max
    # normalisation, the image masked per channel, and torch.Tensor(list) then Softmax
    data = np.random.default_rng(3).random((2, 4, 3, 3))
    image = np.random.default_rng(4).random((2, 3, 8, 8))
    res = []
    for T in (jtorch, torch):
        up = T.nn.UpsamplingBilinear2d(size=(8, 8))(T.from_numpy(data))
        flat = up.view(up.size(0), up.size(1), -1)
        maxs, mins = flat.max(dim=-1)[0][:, :, None, None], flat.min(dim=-1)[0][:, :, None, None]
        up = (up - mins) / (maxs - mins + 1e-8)
        masked = T.from_numpy(image)[:, None] * up[:, :, None]
        scores = T.Tensor(masked.sum((2, 3, 4)).flatten().tolist()).view(2, 4)
        weights = T.nn.Softmax(dim=-1)(scores / 50)
        assert scores.dtype == T.float32
        res.append((masked.numpy(), weights.numpy()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-6)
