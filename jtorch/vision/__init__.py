"""jtorch.vision: MNIST-style datasets and transforms (torchvision's names)."""
