"""Driver of Captum (docs/real-programs.md): the installed package, unchanged, run on tiny
seeded models (a CNN on 1x8x8 images, an MLP on 6 features, an embedding + LSTM text
classifier), printing each attribution's checksum (sums and largest magnitude) at full
precision and, where the method returns one, its convergence delta: gradient methods
(IntegratedGradients, Saliency, InputXGradient, GuidedBackprop, Deconvolution, NoiseTunnel),
DeepLift and the Shapley approximations (DeepLiftShap, GradientShap), layer and neuron methods
(GradCAM, GuidedGradCam, LayerConductance, LayerIntegratedGradients on the embedding,
NeuronConductance and more), perturbation methods (Occlusion, FeatureAblation,
FeaturePermutation, ShapleyValueSampling, KernelShap, Lime), ``captum.metrics`` (infidelity,
sensitivity_max) and ``captum.influence`` (TracInCP, TracInCPFast).

    python scripts/shared_rng_run.py drive_captum.py [VARIANT ... | all]             # real PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_captum.py [VARIANT ... | all]   # jtorch

Without arguments it runs every variant (``all`` too). Each variant reseeds
(``torch.manual_seed``, and NumPy's global generator, which GradientShap draws from), builds
its models afresh, so a subset prints what the full run prints for it. ``CAPTUM_FLOAT64=1``
runs everything in float64 (to tell float32 rounding from a bug).
"""

import os
import sys
import tempfile
import time

import numpy as np
import torch
from torch import nn

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import captum.attr as A  # noqa: E402
import captum.influence as I  # noqa: E402
import captum.metrics as M  # noqa: E402
from captum._utils.models.linear_model import SGDLinearRegression, SkLearnRidge  # noqa: E402

VARIANTS = {}


def variant(name):
    def register(build):
        VARIANTS[name] = build
        return build
    return register


class CNN(nn.Module):
    """Two convolutions (each with its own ReLU module, as DeepLift needs), a max pool and two
    linear layers: 1x8x8 -> 3 classes."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
        self.relu1 = nn.ReLU()
        self.conv2 = nn.Conv2d(4, 6, 3)
        self.relu2 = nn.ReLU()
        self.pool = nn.MaxPool2d(2)
        self.fc1 = nn.Linear(6 * 3 * 3, 10)
        self.relu3 = nn.ReLU()
        self.fc2 = nn.Linear(10, 3)

    def forward(self, x):
        x = self.pool(self.relu2(self.conv2(self.relu1(self.conv1(x)))))
        return self.fc2(self.relu3(self.fc1(x.flatten(1))))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin1 = nn.Linear(6, 8)
        self.relu = nn.ReLU()
        self.lin2 = nn.Linear(8, 8)
        self.tanh = nn.Tanh()
        self.lin3 = nn.Linear(8, 3)
        self.softmax = nn.Softmax(dim=1)

    def forward(self, x):
        return self.softmax(self.lin3(self.tanh(self.lin2(self.relu(self.lin1(x))))))


class TextLSTM(nn.Module):
    def __init__(self, vocab=20, dim=6, hidden=8, classes=2):
        super().__init__()
        self.embedding = nn.Embedding(vocab, dim, padding_idx=0)
        self.lstm = nn.LSTM(dim, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, classes)

    def forward(self, tokens):
        out, _ = self.lstm(self.embedding(tokens))
        return self.fc(out[:, -1])


def cnn_setup(batch=3):
    model = CNN().eval()
    x = torch.rand(batch, 1, 8, 8)
    return model, x, torch.tensor([0, 1, 2][:batch])


def mlp_setup(batch=4):
    model = MLP().eval()
    x = torch.randn(batch, 6)
    return model, x, torch.tensor([0, 1, 2, 1][:batch])


def text_setup():
    model = TextLSTM().eval()
    tokens = torch.tensor([[3, 7, 1, 12, 5, 9], [4, 4, 18, 2, 11, 6]])
    return model, tokens, torch.tensor([1, 0])


def checksum(t):
    """The sum of the magnitudes, a weighted sum (weights 1 to 2 in a period of 7 elements, so
    that values summing to zero by construction give no cancellation noise) and the largest
    magnitude, in float64."""
    t = t.detach().double().flatten()
    w = 1.0 + (torch.arange(t.numel(), dtype=torch.float64) % 7) / 6
    return (f"abssum {t.abs().sum().item()!r} wsum {(t * w).sum().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def attributed(label, result):
    """[(label, tensor)] of an attribution: a tensor, or (with ``return_convergence_delta``)
    the pair of it and its convergence delta (every model here has a single input)."""
    if isinstance(result, tuple):
        attr, delta = result
        return [(label, attr), (f"{label} delta", delta)]
    return [(label, result)]


# each variant returns [(label, tensor or text)]; a tensor is printed as its checksum


@variant("integrated_gradients")
def _():
    model, x, target = cnn_setup()
    ig = A.IntegratedGradients(model)
    out = attributed("ig", ig.attribute(x, target=target, n_steps=16,
                                        return_convergence_delta=True))
    out += attributed("ig_riemann_trapezoid", ig.attribute(
        x, baselines=0.5, target=target, n_steps=10, method="riemann_trapezoid",
        return_convergence_delta=True))
    out += attributed("ig_internal_batch", ig.attribute(
        x, target=target, n_steps=12, internal_batch_size=5, return_convergence_delta=True))
    model, x, target = mlp_setup()
    out += attributed("ig_mlp", A.IntegratedGradients(model, multiply_by_inputs=False).attribute(
        x, target=target, n_steps=8))
    return out


@variant("saliency")
def _():
    model, x, target = cnn_setup()
    out = attributed("saliency_abs", A.Saliency(model).attribute(x, target=target))
    out += attributed("saliency_signed", A.Saliency(model).attribute(x, target=target,
                                                                     abs=False))
    model, x, target = mlp_setup()
    out += attributed("saliency_mlp", A.Saliency(model).attribute(x, target=target))
    return out


@variant("input_x_gradient")
def _():
    model, x, target = cnn_setup()
    out = attributed("input_x_gradient", A.InputXGradient(model).attribute(x, target=target))
    model, x, target = mlp_setup()
    out += attributed("input_x_gradient_mlp", A.InputXGradient(model).attribute(x,
                                                                                target=target))
    return out


@variant("deeplift")
def _():
    model, x, target = cnn_setup()
    out = attributed("deeplift", A.DeepLift(model).attribute(
        x, target=target, return_convergence_delta=True))
    out += attributed("deeplift_baseline", A.DeepLift(model).attribute(
        x, baselines=x.flip(0) * 0.5, target=target, return_convergence_delta=True))
    model, x, target = mlp_setup()
    out += attributed("deeplift_mlp", A.DeepLift(model).attribute(
        x, target=target, return_convergence_delta=True))
    out += attributed("deeplift_mlp_eps", A.DeepLift(model, eps=1e-6).attribute(
        x, baselines=torch.full_like(x, 0.1), target=target, return_convergence_delta=True))
    return out


@variant("deeplift_shap")
def _():
    model, x, target = cnn_setup()
    baselines = torch.rand(4, 1, 8, 8) * 0.3
    out = attributed("deeplift_shap", A.DeepLiftShap(model).attribute(
        x, baselines=baselines, target=target, return_convergence_delta=True))
    model, x, target = mlp_setup()
    out += attributed("deeplift_shap_mlp", A.DeepLiftShap(model).attribute(
        x, baselines=torch.randn(5, 6) * 0.2, target=target, return_convergence_delta=True))
    return out


@variant("gradient_shap")
def _():
    model, x, target = cnn_setup()
    baselines = torch.rand(4, 1, 8, 8) * 0.3
    out = attributed("gradient_shap", A.GradientShap(model).attribute(
        x, baselines=baselines, target=target, n_samples=6, stdevs=0.05,
        return_convergence_delta=True))
    model, x, target = mlp_setup()
    out += attributed("gradient_shap_mlp", A.GradientShap(model).attribute(
        x, baselines=torch.randn(5, 6) * 0.2, target=target, n_samples=4, stdevs=0.1,
        return_convergence_delta=True))
    return out


@variant("guided_backprop")
def _():
    model, x, target = cnn_setup()
    out = attributed("guided_backprop", A.GuidedBackprop(model).attribute(x, target=target))
    out += attributed("deconvolution", A.Deconvolution(model).attribute(x, target=target))
    return out


@variant("guided_gradcam")
def _():
    model, x, target = cnn_setup()
    out = attributed("guided_gradcam", A.GuidedGradCam(model, model.conv2).attribute(
        x, target=target))
    out += attributed("guided_gradcam_conv1", A.GuidedGradCam(model, model.conv1).attribute(
        x, target=target, interpolate_mode="bilinear"))
    return out


@variant("layer_gradcam")
def _():
    model, x, target = cnn_setup()
    cam = A.LayerGradCam(model, model.conv2)
    attr = cam.attribute(x, target=target)
    out = attributed("layer_gradcam", attr)
    out += attributed("layer_gradcam_no_relu", cam.attribute(x, target=target,
                                                             relu_attributions=False))
    out += attributed("layer_gradcam_upsampled", A.LayerAttribution.interpolate(
        attr, (8, 8), interpolate_mode="bilinear"))
    out += attributed("layer_activation", A.LayerActivation(model, model.relu2).attribute(x))
    out += attributed("layer_gradient_x_activation", A.LayerGradientXActivation(
        model, model.conv1).attribute(x, target=target))
    return out


@variant("layer_conductance")
def _():
    model, x, target = cnn_setup()
    out = attributed("layer_conductance", A.LayerConductance(model, model.conv2).attribute(
        x, target=target, n_steps=10, return_convergence_delta=True))
    out += attributed("internal_influence", A.InternalInfluence(model, model.fc1).attribute(
        x, target=target, n_steps=10))
    model, x, target = mlp_setup()
    out += attributed("layer_conductance_mlp", A.LayerConductance(model, model.lin2).attribute(
        x, target=target, n_steps=8, return_convergence_delta=True))
    out += attributed("layer_deeplift_mlp", A.LayerDeepLift(model, model.lin2).attribute(
        x, target=target, return_convergence_delta=True))
    return out


@variant("layer_integrated_gradients")
def _():
    model, tokens, target = text_setup()
    lig = A.LayerIntegratedGradients(model, model.embedding)
    out = attributed("lig_embedding", lig.attribute(
        tokens, baselines=torch.zeros_like(tokens), target=target, n_steps=12,
        return_convergence_delta=True))
    out += attributed("lig_internal_batch", lig.attribute(
        tokens, target=target, n_steps=8, internal_batch_size=4))
    out.append(("text logits", model(tokens)))
    model, x, target = cnn_setup()
    out += attributed("lig_conv1_input", A.LayerIntegratedGradients(
        model, model.conv1).attribute(x, target=target, n_steps=8,
                                      attribute_to_layer_input=True))
    return out


@variant("neuron")
def _():
    model, x, target = cnn_setup()
    out = attributed("neuron_conductance", A.NeuronConductance(model, model.fc1).attribute(
        x, neuron_selector=2, target=target, n_steps=10))
    out += attributed("neuron_conductance_conv", A.NeuronConductance(
        model, model.conv1).attribute(x, neuron_selector=(2, 3, 3), target=target, n_steps=8))
    out += attributed("neuron_gradient", A.NeuronGradient(model, model.conv2).attribute(
        x, neuron_selector=(1, 2, 3)))
    out += attributed("neuron_ig", A.NeuronIntegratedGradients(model, model.fc1).attribute(
        x, neuron_selector=5, n_steps=10))
    out += attributed("neuron_deeplift", A.NeuronDeepLift(model, model.fc1).attribute(
        x, neuron_selector=2))
    out += attributed("neuron_guided_backprop", A.NeuronGuidedBackprop(
        model, model.conv2).attribute(x, neuron_selector=(0, 1, 1)))
    return out


@variant("occlusion")
def _():
    model, x, target = cnn_setup()
    out = attributed("occlusion", A.Occlusion(model).attribute(
        x, sliding_window_shapes=(1, 3, 3), strides=(1, 2, 2), target=target))
    out += attributed("occlusion_baseline", A.Occlusion(model).attribute(
        x, sliding_window_shapes=(1, 2, 2), baselines=0.5, target=target,
        perturbations_per_eval=4))
    return out


@variant("feature_ablation")
def _():
    model, x, target = cnn_setup()
    mask = (torch.arange(64).view(8, 8) // 16).view(1, 1, 8, 8)
    out = attributed("feature_ablation", A.FeatureAblation(model).attribute(
        x, target=target, feature_mask=mask))
    model, x, target = mlp_setup()
    out += attributed("feature_ablation_mlp", A.FeatureAblation(model).attribute(
        x, target=target, baselines=0.2, perturbations_per_eval=3))
    out += attributed("layer_feature_ablation", A.LayerFeatureAblation(
        model, model.lin2).attribute(x, target=target))
    return out


@variant("feature_permutation")
def _():
    model, x, target = mlp_setup(batch=4)
    out = attributed("feature_permutation", A.FeaturePermutation(model).attribute(
        x, target=target))
    out += attributed("feature_permutation_mask", A.FeaturePermutation(model).attribute(
        x, target=target, feature_mask=torch.tensor([[0, 0, 1, 1, 2, 2]])))
    return out


@variant("shapley_value_sampling")
def _():
    model, x, target = mlp_setup(batch=2)
    out = attributed("shapley_value_sampling", A.ShapleyValueSampling(model).attribute(
        x, target=target, n_samples=5))
    out += attributed("shapley_values_exact", A.ShapleyValues(model).attribute(
        x, target=target, feature_mask=torch.tensor([[0, 0, 1, 2, 3, 3]])))
    return out


@variant("kernel_shap")
def _():
    model, x, target = mlp_setup(batch=1)
    out = attributed("kernel_shap", A.KernelShap(model).attribute(
        x, target=target, n_samples=40))
    out += attributed("kernel_shap_mask", A.KernelShap(model).attribute(
        x, target=target, n_samples=20, baselines=0.1,
        feature_mask=torch.tensor([[0, 0, 1, 1, 2, 3]])))
    return out


@variant("lime")
def _():
    model, x, target = mlp_setup(batch=1)
    # captum's default interpretable model (sklearn's Lasso, alpha 0.01) zeroes every weight of
    # these small outputs: a ridge fit and captum's own torch-SGD linear regression instead
    out = attributed("lime", A.Lime(model, SkLearnRidge(alpha=1e-4)).attribute(
        x, target=target, n_samples=40))
    model, x, target = cnn_setup(batch=1)
    mask = (torch.arange(64).view(8, 8) // 8).view(1, 1, 8, 8)
    out += attributed("lime_cnn", A.Lime(model, SGDLinearRegression()).attribute(
        x, target=target, feature_mask=mask, n_samples=30, perturbations_per_eval=8))
    return out


@variant("noise_tunnel")
def _():
    model, x, target = cnn_setup()
    nt = A.NoiseTunnel(A.Saliency(model))
    out = attributed("smoothgrad", nt.attribute(x, nt_type="smoothgrad", nt_samples=5,
                                                stdevs=0.1, target=target))
    out += attributed("smoothgrad_sq", nt.attribute(x, nt_type="smoothgrad_sq", nt_samples=4,
                                                    stdevs=0.2, target=target))
    nt = A.NoiseTunnel(A.IntegratedGradients(model))
    out += attributed("vargrad_ig", nt.attribute(
        x, nt_type="vargrad", nt_samples=3, stdevs=0.1, target=target, n_steps=6,
        nt_samples_batch_size=2))
    return out


@variant("metrics")
def _():
    model, x, target = cnn_setup()

    def perturb(inputs):
        noise = torch.randn(inputs.shape) * 0.03
        return noise, inputs - noise

    ig = A.IntegratedGradients(model)
    attr = ig.attribute(x, target=target, n_steps=8)
    out = [("infidelity", M.infidelity(model, perturb, x, attr, target=target,
                                       n_perturb_samples=4)),
           ("infidelity_normalized", M.infidelity(model, perturb, x, attr, target=target,
                                                  n_perturb_samples=3, normalize=True))]
    out.append(("sensitivity_max_saliency", M.sensitivity_max(
        A.Saliency(model).attribute, x, target=target, n_perturb_samples=4)))
    out.append(("sensitivity_max_ig", M.sensitivity_max(
        ig.attribute, x, target=target, n_perturb_samples=2, n_steps=4,
        perturb_radius=0.05)))
    return out


@variant("tracin")
def _():
    model, _, _ = mlp_setup()
    xs, ys = torch.randn(12, 6), torch.randint(0, 3, (12,))
    train = torch.utils.data.TensorDataset(xs, ys)
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    loss_fn = nn.CrossEntropyLoss()
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        checkpoints = []
        for epoch in range(2):
            opt.zero_grad()
            loss = loss_fn(torch.log(model(xs)), ys)
            loss.backward()
            opt.step()
            path = os.path.join(tmp, f"ckpt{epoch}.pt")
            torch.save(model.state_dict(), path)
            checkpoints.append(path)
            out.append((f"train loss {epoch}", loss))

        def load(m, path):
            m.load_state_dict(torch.load(path))
            return 0.5

        test = (torch.randn(3, 6), torch.tensor([0, 2, 1]))
        tracin = I.TracInCP(model, train, checkpoints, checkpoints_load_func=load,
                            loss_fn=nn.CrossEntropyLoss(reduction="none"), batch_size=4)
        out.append(("tracin_cp influence", tracin.influence(test)))
        out.append(("tracin_cp self_influence", tracin.self_influence()))
        top = tracin.influence(test, k=3, proponents=True)
        out.append(("tracin_cp top-k", f"indices {top.indices.tolist()}"))
        out.append(("tracin_cp top-k scores", top.influence_scores))
        # per-example gradients from captum's forward/backward hooks on the Linear layers
        hooked = I.TracInCP(model, train, checkpoints, checkpoints_load_func=load,
                            loss_fn=nn.CrossEntropyLoss(reduction="sum"), batch_size=4,
                            sample_wise_grads_per_batch=True)
        out.append(("tracin_cp_sample_wise influence", hooked.influence(test)))
        out.append(("tracin_cp_sample_wise self_influence", hooked.self_influence()))
        fast = I.TracInCPFast(model, model.lin3, train, checkpoints, checkpoints_load_func=load,
                              loss_fn=nn.CrossEntropyLoss(reduction="sum"), batch_size=4)
        out.append(("tracin_cp_fast influence", fast.influence(test)))
        out.append(("tracin_cp_fast self_influence", fast.self_influence()))
    return out


def show(name, label, value):
    if isinstance(value, torch.Tensor):
        print(f"{name} {label} {list(value.shape)} {value.dtype} {checksum(value)}")
    else:
        print(f"{name} {label} {value}")


def run(name):
    torch.manual_seed(0)
    np.random.seed(0)  # GradientShap draws its interpolation points from NumPy
    print(f"== {name}")
    for label, value in VARIANTS[name]():
        show(name, label, value)


def main(argv):
    if os.environ.get("CAPTUM_FLOAT64"):  # to tell float32 rounding from a bug
        torch.set_default_dtype(torch.float64)
    names = list(VARIANTS) if argv in ([], ["all"]) else argv
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"unknown variants {unknown}; known: {' '.join(VARIANTS)}")
    for name in names:
        start = time.time()
        run(name)
        print(f"[{name}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
