"""Regressions found by running k-diffusion unchanged under jtorch
(scripts/real_drivers/kdiffusion_samplers.py, docs/real-programs.md): each test is a small
stand-in for what the library did, in plain torch-API code, run in jtorch and in real PyTorch."""

import warnings

import torch

import jtorch


def _index_warnings(T):
    """k-diffusion's ``layers.freq_weight_nd`` indexes with a list ``[slice(None), None]``
    (PyTorch's deprecated non-tuple sequence index); a uint8 mask index warns too. Returns
    (file, line, message start, value) of each warning and the indexed values."""
    x = T.arange(12.0).reshape(3, 4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a = x[[slice(None), None]]                                # line A: getitem
        x[[slice(None), 1]] = -1.0                                # line B: setitem
        b = x[T.tensor([1, 0, 1], dtype=T.uint8)]                 # line C: uint8 mask
    where = [(w.filename, w.lineno, str(w.message)[:40]) for w in caught]
    return where, a.tolist(), x.tolist(), b.tolist()


def test_index_deprecation_warnings_point_at_the_indexing_line():
    # jtorch's warnings pointed into jtorch (_tensor.py's __getitem__/__setitem__ and
    # _ops/indexing.py) where PyTorch's point at the user's line (k_diffusion/layers.py:38)
    expected, a, x, b = _index_warnings(torch)
    got, ja, jx, jb = _index_warnings(jtorch)
    assert [(f, m) for f, _, m in expected] == [(__file__, m) for _, _, m in expected]
    assert got == expected
    assert (ja, jx, jb) == (a, x, b)
