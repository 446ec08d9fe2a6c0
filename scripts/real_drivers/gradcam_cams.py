"""Driver of pytorch-grad-cam (docs/real-programs.md): the installed package (grad-cam 1.5.7),
unchanged, run on small seeded CNNs (torchvision's resnet18 with 10 classes on 64x64 images and
a four-layer CNN on 32x32 images, random weights): every CAM method (GradCAM, HiResCAM,
GradCAMElementWise, GradCAM++, XGradCAM, AblationCAM, ScoreCAM, EigenCAM, EigenGradCAM,
LayerCAM, FullGrad, KPCA_CAM, ShapleyCAM, FinerCAM, FEM, SobelCAM), with aug_smooth and
eigen_smooth, several target layers, the targets, guided backpropagation, the confidence and
ROAD metrics, the image utilities, and a few SGD steps with a state_dict save/load round trip.
Each CAM, map or gradient is printed as a checksum (sums and largest magnitude) at full
precision.

    python scripts/shared_rng_run.py drive_gradcam.py [VARIANT ... | all]             # real PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_gradcam.py [VARIANT ... | all]   # jtorch

Without arguments it runs every variant but ``dff`` (``all`` too). Each variant reseeds
(``torch.manual_seed``), so a subset prints what the full run prints for it. ``GRADCAM_FLOAT64=1``
runs the models in float64 (to tell float32 rounding from a bug).
"""

import io
import os
import sys
import warnings

import numpy as np
import torch
from torch import nn

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import pytorch_grad_cam as pgc  # noqa: E402
import torchvision  # noqa: E402
from pytorch_grad_cam.metrics.cam_mult_image import (  # noqa: E402
    CamMultImageConfidenceChange,
    DropInConfidence,
    IncreaseInConfidence,
)
from pytorch_grad_cam.metrics.road import (  # noqa: E402
    ROADCombined,
    ROADLeastRelevantFirst,
    ROADMostRelevantFirst,
)
from pytorch_grad_cam.utils.image import (  # noqa: E402
    deprocess_image,
    preprocess_image,
    scale_cam_image,
    show_cam_on_image,
)
from pytorch_grad_cam.utils.model_targets import (  # noqa: E402
    BinaryClassifierOutputTarget,
    ClassifierOutputReST,
    ClassifierOutputSoftmaxTarget,
    ClassifierOutputTarget,
    FasterRCNNBoxScoreTarget,
    FinerWeightedTarget,
    RawScoresOutputTarget,
    SemanticSegmentationTarget,
    SoftmaxOutputTarget,
)

warnings.filterwarnings("ignore")
DTYPE = torch.float64 if os.environ.get("GRADCAM_FLOAT64") else torch.float32

VARIANTS = {}
DEFAULT_OFF = {"dff"}  # run only when named (see its docstring)


def variant(name):
    def register(build):
        VARIANTS[name] = build
        return build
    return register


def checksum(a):
    """The sum of the magnitudes, a weighted sum (weights 1 to 2 in a period of 7 elements) and
    the largest magnitude, in float64."""
    a = np.asarray(a.detach().double().numpy() if isinstance(a, torch.Tensor) else a,
                   dtype=np.float64).ravel()
    w = 1.0 + (np.arange(a.size) % 7) / 6
    return (f"abssum {float(np.abs(a).sum())!r} wsum {float((a * w).sum())!r} "
            f"absmax {float(np.abs(a).max()) if a.size else 0.0!r}")


class SmallCNN(nn.Module):
    def __init__(self, classes=5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(),
            nn.Conv2d(16, 24, 3, padding=1), nn.ReLU())
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(24, classes)

    def forward(self, x):
        return self.fc(self.pool(self.features(x)).flatten(1))


def small_cnn():
    torch.manual_seed(0)
    model = SmallCNN().to(DTYPE)
    x = torch.rand(2, 3, 32, 32, dtype=DTYPE)
    return model, x


def resnet():
    torch.manual_seed(0)
    model = torchvision.models.resnet18(num_classes=10).to(DTYPE).eval()
    # give BatchNorm non-trivial running statistics
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
    x = torch.rand(2, 3, 64, 64, dtype=DTYPE)
    return model, x


def cam_line(name, cam):
    print(f"{name} shape {tuple(cam.shape)} dtype {cam.dtype} {checksum(cam)}")


def run_methods(tag, model, x, layers, methods, targets=None, **call):
    for name, build in methods:
        with build(model, layers) as cam:
            out = cam(input_tensor=x, targets=targets, **call)
        cam_line(f"{tag} {name}", out)


GRADIENT_METHODS = [(c.__name__, c) for c in (
    pgc.GradCAM, pgc.HiResCAM, pgc.GradCAMElementWise, pgc.GradCAMPlusPlus, pgc.XGradCAM,
    pgc.EigenGradCAM, pgc.LayerCAM)]
FREE_METHODS = [(c.__name__, c) for c in (pgc.EigenCAM, pgc.KPCA_CAM)]


@variant("small")
def small():
    model, x = small_cnn()
    layers = [model.features[-2]]
    run_methods("small", model, x, layers, GRADIENT_METHODS + FREE_METHODS)
    targets = [ClassifierOutputTarget(1), ClassifierOutputTarget(3)]
    run_methods("small target", model, x, layers, GRADIENT_METHODS[:4], targets=targets)
    run_methods("small eigen_smooth", model, x, layers, GRADIENT_METHODS[:2], eigen_smooth=True)
    run_methods("small two layers", model, x, [model.features[4], model.features[-1]],
                GRADIENT_METHODS[:3])


@variant("resnet")
def resnet_cams():
    model, x = resnet()
    out = model(x)
    print(f"resnet logits {checksum(out)}")
    run_methods("resnet layer4", model, x, [model.layer4[-1]], GRADIENT_METHODS + FREE_METHODS)
    run_methods("resnet layer3", model, x, [model.layer3[-1]], GRADIENT_METHODS[:3])
    run_methods("resnet layer2+3", model, x, [model.layer2[-1], model.layer3[-1]],
                GRADIENT_METHODS[:1])
    targets = [ClassifierOutputTarget(4), ClassifierOutputTarget(7)]
    for name, build in [("ScoreCAM", pgc.ScoreCAM), ("AblationCAM", pgc.AblationCAM)]:
        with build(model, [model.layer2[-1]]) as cam:
            cam.batch_size = 64
            cam_line(f"resnet layer2 {name}", cam(input_tensor=x, targets=targets))
    with pgc.FullGrad(model, []) as cam:
        cam_line("resnet FullGrad", cam(input_tensor=x, targets=targets))


@variant("perturb")
def perturbation_cams():
    model, x = small_cnn()
    layers = [model.features[-2]]
    targets = [ClassifierOutputTarget(0), ClassifierOutputTarget(2)]
    with pgc.ScoreCAM(model, layers) as cam:
        cam.batch_size = 8
        cam_line("ScoreCAM", cam(input_tensor=x, targets=targets))
    with pgc.AblationCAM(model, layers) as cam:
        cam.batch_size = 8
        cam_line("AblationCAM", cam(input_tensor=x, targets=targets))
    with pgc.FullGrad(model, []) as cam:
        cam_line("FullGrad", cam(input_tensor=x, targets=targets))
    for name, build in [("ShapleyCAM", pgc.ShapleyCAM), ("FEM", pgc.FEM)]:
        with build(model, layers) as cam:
            cam_line(name, cam(input_tensor=x, targets=targets))
    with pgc.FinerCAM(model, layers) as cam:
        cam_line("FinerCAM", cam(input_tensor=x, target_idx=None))


@variant("smooth")
def smoothing():
    model, x = small_cnn()
    layers = [model.features[-2]]
    for name, build in GRADIENT_METHODS[:2]:
        with build(model, layers) as cam:
            cam_line(f"aug_smooth {name}", cam(input_tensor=x, targets=None, aug_smooth=True))
    with pgc.GradCAM(model, layers) as cam:
        cam_line("aug+eigen GradCAM",
                 cam(input_tensor=x, targets=None, aug_smooth=True, eigen_smooth=True))


@variant("targets")
def targets():
    model, x = small_cnn()
    layers = [model.features[-2]]
    cases = [
        ("softmax target", [ClassifierOutputSoftmaxTarget(1), ClassifierOutputSoftmaxTarget(2)]),
        ("ReST target", [ClassifierOutputReST(1), ClassifierOutputReST(4)]),
    ]
    for name, tgt in cases:
        with pgc.GradCAM(model, layers) as cam:
            cam_line(f"targets {name}", cam(input_tensor=x, targets=tgt))
    out = model(x)
    for t in (SoftmaxOutputTarget(), RawScoresOutputTarget()):
        print(f"targets {type(t).__name__} {checksum(t(out))}")
    with pgc.GradCAM(model, layers) as cam:
        cam_line("targets finer weighted", cam(input_tensor=x, targets=[
            FinerWeightedTarget(1, [0, 2], 0.6), FinerWeightedTarget(3, [4], 1.0)]))
    # a detector's output, scored against reference boxes (torchvision.ops.box_iou)
    boxes = torch.tensor([[2.0, 3.0, 20.0, 25.0], [10.0, 8.0, 30.0, 31.0],
                          [0.0, 0.0, 12.0, 9.0]], dtype=DTYPE, requires_grad=True)
    scores = torch.tensor([0.9, 0.7, 0.4], dtype=DTYPE, requires_grad=True)
    det = {"boxes": boxes * 1.0, "labels": torch.tensor([1, 2, 1]), "scores": scores * 1.0}
    score = FasterRCNNBoxScoreTarget([1, 2], [np.array([3.0, 3.0, 21.0, 24.0]),
                                              np.array([11.0, 9.0, 29.0, 30.0])])(det)
    score.sum().backward()
    print(f"targets FasterRCNNBoxScore {score.item()!r} grad boxes {checksum(boxes.grad)} "
          f"grad scores {checksum(scores.grad)}")
    binary = nn.Sequential(model, nn.Linear(5, 1)).to(DTYPE)
    with pgc.GradCAM(binary, layers) as cam:
        cam_line("targets binary", cam(input_tensor=x, targets=[
            BinaryClassifierOutputTarget(1), BinaryClassifierOutputTarget(0)]))
    # a tiny fully convolutional segmenter
    seg = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(),
                        nn.Conv2d(8, 3, 1)).to(DTYPE)
    out = seg(x)
    mask = (out.argmax(1) == 1).to(DTYPE).numpy()
    with pgc.GradCAM(seg, [seg[1]]) as cam:
        cam_line("targets segmentation", cam(input_tensor=x, targets=[
            SemanticSegmentationTarget(1, mask[0]), SemanticSegmentationTarget(1, mask[1])]))


@variant("guided")
def guided():
    model, x = small_cnn()
    gb = pgc.GuidedBackpropReLUModel(model, device=torch.device("cpu"))
    for target in (None, 3):
        g = gb(x[:1], target_category=target)
        print(f"guided backprop target {target} shape {g.shape} {checksum(g)}")
    with pgc.GradCAM(model, [model.features[-2]]) as cam:
        grayscale = cam(input_tensor=x[:1], targets=None)
    cam_mask = np.stack([grayscale[0]] * 3, axis=-1)
    gb_img = deprocess_image(cam_mask * g)
    print(f"guided gradcam deprocess {gb_img.dtype} {checksum(gb_img)}")


@variant("metrics")
def metrics():
    model, x = small_cnn()
    layers = [model.features[-2]]
    targets = [ClassifierOutputTarget(0), ClassifierOutputTarget(2)]
    with pgc.GradCAM(model, layers) as cam:
        grayscale = cam(input_tensor=x, targets=targets)
    x32 = x.float()
    model = model.float()
    scores, vis = CamMultImageConfidenceChange()(x32, grayscale, targets, model,
                                                 return_visualization=True)
    print(f"metric CamMultImage scores {checksum(scores)} vis {checksum(vis)}")
    print(f"metric DropInConfidence {checksum(DropInConfidence()(x32, grayscale, targets, model))}")
    print(f"metric IncreaseInConfidence "
          f"{checksum(IncreaseInConfidence()(x32, grayscale, targets, model))}")
    inverse = CamMultImageConfidenceChange()(x32, 1 - grayscale, targets, model)
    print(f"metric CamMultImage inverse {checksum(inverse)}")
    for name, metric in [("MoRF80", ROADMostRelevantFirst(80)),
                         ("LeRF20", ROADLeastRelevantFirst(20))]:
        print(f"metric ROAD {name} {checksum(metric(x32, grayscale, targets, model))}")
    combined = ROADCombined(percentiles=[20, 50, 80])(x32, grayscale, targets, model)
    print(f"metric ROADCombined {checksum(combined)}")


@variant("images")
def images():
    torch.manual_seed(0)
    rgb = np.float32(torch.rand(32, 32, 3).numpy())
    t = preprocess_image(rgb, mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    print(f"preprocess {tuple(t.shape)} {t.dtype} {checksum(t)}")
    t2 = preprocess_image((rgb * 255).astype(np.uint8))
    print(f"preprocess uint8 {tuple(t2.shape)} {t2.dtype} {checksum(t2)}")
    mask = torch.rand(32, 32).numpy()
    vis = show_cam_on_image(rgb, mask, use_rgb=True)
    print(f"show_cam_on_image {vis.dtype} {checksum(vis)}")
    vis = show_cam_on_image(rgb, mask, use_rgb=False, image_weight=0.3)
    print(f"show_cam_on_image bgr {vis.dtype} {checksum(vis)}")
    print(f"deprocess {checksum(deprocess_image(torch.randn(32, 32, 3).numpy()))}")
    scaled = scale_cam_image(torch.rand(2, 8, 8).numpy(), (32, 32))
    print(f"scale_cam_image {scaled.shape} {checksum(scaled)}")


@variant("train")
def train():
    """A user's loop: a few SGD steps, GradCAM between them, a state_dict round trip."""
    model, x = small_cnn()
    y = torch.tensor([1, 3])
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    layers = [model.features[-2]]
    for step in range(3):
        model.train()
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        gnorm = torch.sqrt(sum((p.grad.double() ** 2).sum() for p in model.parameters()))
        opt.step()
        with pgc.GradCAM(model, layers) as cam:
            out = cam(input_tensor=x, targets=[ClassifierOutputTarget(1),
                                               ClassifierOutputTarget(3)])
        print(f"train step {step} loss {loss.item()!r} grad norm {gnorm.item()!r} "
              f"cam {checksum(out)}")
    buf = io.BytesIO()
    torch.save(model.state_dict(), buf)
    buf.seek(0)
    fresh = SmallCNN().to(DTYPE)
    fresh.load_state_dict(torch.load(buf))
    with pgc.GradCAM(fresh, [fresh.features[-2]]) as cam:
        out2 = cam(input_tensor=x, targets=[ClassifierOutputTarget(1), ClassifierOutputTarget(3)])
    print(f"train reloaded cam {checksum(out2)} same {bool(np.array_equal(out, out2))}")
    # the activations and gradients the CAM reads, through the library's own hook helper
    grabber = pgc.ActivationsAndGradients(model, layers, None)
    logits = grabber(x)
    logits[:, 1].sum().backward()
    print(f"hooks activations {checksum(grabber.activations[0])} "
          f"gradients {checksum(grabber.gradients[0])}")
    grabber.release()


@variant("dff")
def deep_feature_factorization():
    """Deep Feature Factorization (NMF of the activations). Not in the default run: it writes
    into ``Tensor.numpy()``'s array, read-only in jtorch (docs/differences.md)."""
    model, x = small_cnn()
    dff = pgc.DeepFeatureFactorization(model, model.features[-2],
                                       computation_on_concepts=model.fc.float())
    concepts, explanations, outputs = dff(x, n_components=3)
    print(f"DFF concepts {checksum(concepts)} explanations {checksum(np.stack(explanations))} "
          f"outputs {checksum(outputs)}")


class TinyCNN3d(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv3d(1, 4, 3, padding=1)
        self.conv2 = nn.Conv3d(4, 6, 3, padding=1)
        self.fc = nn.Linear(6, 3)

    def forward(self, x):
        h = torch.relu(self.conv2(torch.relu(self.conv1(x))))
        return self.fc(h.mean((2, 3, 4)))


@variant("more")
def more():
    """SESS, RefineCAM, SegEigenCAM, Deep Feature Factorization, a 3D CNN, custom ttach
    transforms and CAMs kept on the graph (detach=False)."""
    import ttach as tta
    from pytorch_grad_cam.sobel_cam import sobel_cam
    model, x = small_cnn()
    layers = [model.features[-2]]
    targets = [ClassifierOutputTarget(0), ClassifierOutputTarget(2)]
    with pgc.SESS(model, layers, scales=[32, 40], window_size=32, batch_size=4) as cam:
        cam_line("SESS", cam(input_tensor=x, targets=targets))
    refine = pgc.RefineCAM(model, [model.features[4], model.features[-2]])
    cam_line("RefineCAM", refine(input_tensor=x, targets=targets))
    with pgc.SegEigenCAM(model, layers) as cam:
        cam_line("SegEigenCAM", cam(input_tensor=x, targets=targets))
    gray = (x[0].permute(1, 2, 0).numpy() * 255).astype(np.uint8)
    print(f"sobel_cam {checksum(sobel_cam(gray))}")
    transforms = tta.Compose([tta.VerticalFlip(), tta.Multiply(factors=[0.8, 1.2])])
    with pgc.GradCAM(model, layers) as cam:
        cam.tta_transforms = transforms
        cam_line("tta GradCAM", cam(input_tensor=x, targets=targets, aug_smooth=True))
    # the activations and gradients kept on the graph (detach=False), a second-order gradient
    # (GELU: a ReLU network's is zero)
    torch.manual_seed(2)
    model = nn.Sequential(nn.Conv2d(3, 6, 3), nn.GELU(), nn.Conv2d(6, 8, 3), nn.Tanh(),
                          nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 3)).to(DTYPE)
    grabber = pgc.ActivationsAndGradients(model, [model[2]], None, detach=False)
    xi = x.clone().requires_grad_(True)
    logits = grabber(xi)
    (gx,) = torch.autograd.grad(logits[:, 1].sum(), xi, create_graph=True)
    (gx ** 2).sum().backward()
    print(f"detach=False activations {checksum(grabber.activations[0])} gradients "
          f"{checksum(grabber.gradients[-1])} input grad {checksum(gx)} "
          f"second order {checksum(xi.grad)}")
    grabber.release()
    torch.manual_seed(1)
    net3d = TinyCNN3d().to(DTYPE)
    v = torch.rand(2, 1, 6, 8, 8, dtype=DTYPE)
    for name, build in GRADIENT_METHODS[:4]:
        with build(net3d, [net3d.conv2]) as cam:
            cam_line(f"3d {name}", cam(input_tensor=v, targets=None))


@variant("vit")
def vit():
    """A two-layer VisionTransformer on 32x32 images, its tokens reshaped to a 4x4 map."""
    from functools import partial

    from pytorch_grad_cam.ablation_layer import AblationLayerVit
    from pytorch_grad_cam.utils.reshape_transforms import vit_reshape_transform
    torch.manual_seed(0)
    model = torchvision.models.VisionTransformer(
        image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=16, mlp_dim=32,
        num_classes=4).to(DTYPE).eval()
    nn.init.normal_(model.heads.head.weight, std=0.5)  # torchvision zeroes the head
    x = torch.rand(2, 3, 32, 32, dtype=DTYPE)
    print(f"vit logits {checksum(model(x))}")
    layers = [model.encoder.layers[-1].ln_1]
    reshape = partial(vit_reshape_transform, height=4, width=4)
    targets = [ClassifierOutputTarget(1), ClassifierOutputTarget(3)]
    for name, build in GRADIENT_METHODS[:5] + [("ScoreCAM", pgc.ScoreCAM)]:
        with build(model, layers, reshape_transform=reshape) as cam:
            cam_line(f"vit {name}", cam(input_tensor=x, targets=targets))
    with pgc.AblationCAM(model, layers, reshape_transform=reshape,
                         ablation_layer=AblationLayerVit()) as cam:
        cam.batch_size = 8
        cam_line("vit AblationCAM", cam(input_tensor=x, targets=targets))


def main(argv):
    names = [a for a in argv if a != "all"] or [v for v in VARIANTS if v not in DEFAULT_OFF]
    for name in names:
        print(f"== {name}")
        VARIANTS[name]()


if __name__ == "__main__":
    main(sys.argv[1:])
