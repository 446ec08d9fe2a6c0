"""Driver for kuangliu/pytorch-cifar's ``models`` package (imported unchanged; its main.py
downloads CIFAR-10). For each model: build it, train a few SGD steps as main.py does (lr 0.1,
momentum 0.9, weight decay 5e-4, cross-entropy) on random 3x32x32 images and labels in train
mode, then run it in eval mode under ``no_grad``; print the losses, gradient norms and the eval
logits. Run with the tree on PYTHONPATH:

    python pytorch_cifar.py                      # the models in DEFAULT
    python pytorch_cifar.py ResNet18 MobileNet   # a subset (the names below)
    python pytorch_cifar.py --float64 ResNet18   # in float64 (rounding or a real difference?)
"""

import sys
import time

import torch
import torch.nn as nn
import torch.optim as optim
from models import *  # noqa: F403

# name -> constructor call, evaluated against the models package (the names it exports)
MODELS = {
    "LeNet": "LeNet()",
    "VGG11": "VGG('VGG11')",
    "ResNet18": "ResNet18()",
    "PreActResNet18": "PreActResNet18()",
    "GoogLeNet": "GoogLeNet()",
    "densenet_cifar": "densenet_cifar()",
    "ResNeXt29_2x64d": "ResNeXt29_2x64d()",
    "MobileNet": "MobileNet()",
    "MobileNetV2": "MobileNetV2()",
    "DPN26": "DPN26()",
    "ShuffleNetV2": "ShuffleNetV2(0.5)",
    "SENet18": "SENet18()",
    "EfficientNetB0": "EfficientNetB0()",
    "RegNetX_200MF": "RegNetX_200MF()",
    "SimpleDLA": "SimpleDLA()",
    "DLA": "DLA()",
    "PNASNetA": "PNASNetA()",
}
# run by default: the others compile many distinct kernels under jtorch's eager mode (every
# layer of densenet_cifar has new shapes) and take minutes each there; pass their names to run
# them. ShuffleNetG2 is left out: it fails in PyTorch too (shufflenet.py's out_planes/4 is a
# float channel count under Python 3).
DEFAULT = ["LeNet", "VGG11", "ResNet18", "PreActResNet18", "ResNeXt29_2x64d", "MobileNet",
           "ShuffleNetV2", "SENet18", "SimpleDLA"]
BATCH = 4
STEPS = 2


def run(name):
    torch.manual_seed(0)
    net = eval(MODELS[name])
    params = [p for p in net.parameters() if p.requires_grad]
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.SGD(net.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
    start = time.time()
    net.train()
    for step in range(STEPS):
        inputs = torch.randn(BATCH, 3, 32, 32)
        targets = torch.randint(0, 10, (BATCH,))
        optimizer.zero_grad()
        loss = criterion(net(inputs), targets)
        loss.backward()
        norms = [p.grad.norm() for p in params if p.grad is not None]  # some go unused
        total = torch.stack(norms).norm()
        print(f"{name} step {step} loss {loss.item():.6f} grad first {norms[0].item():.6f} "
              f"last {norms[-1].item():.6f} total {total.item():.6f}")
        optimizer.step()
    net.eval()
    with torch.no_grad():
        logits = net(torch.randn(BATCH, 3, 32, 32))
    print(f"{name} eval logits sum {logits.sum().item():.6f} "
          f"norm {logits.norm().item():.6f} params {sum(p.numel() for p in params)}")
    print(f"{name} time: {time.time() - start:.1f}s", file=sys.stderr)


if __name__ == "__main__":
    names = sys.argv[1:]
    if "--float64" in names:
        names.remove("--float64")
        torch.set_default_dtype(torch.float64)
    names = names or DEFAULT
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        sys.exit(f"unknown models {unknown}; known: {list(MODELS)}")
    for name in names:
        run(name)
