"""The layered core: dtypes, devices and per-thread state; the Tensor data type; kernels;
the autograd graph; dispatch and views. See docs/layout.md for the layers."""
