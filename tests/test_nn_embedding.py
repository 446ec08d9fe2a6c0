"""F.embedding / F.embedding_bag parity (padding_idx, max_norm renorm in place,
scale_grad_by_freq, bags by offsets, per_sample_weights), Embedding/EmbeddingBag modules
(from_pretrained, repr, init), errors."""

import numpy as np
import pytest
import torch
from helpers import assert_close, parity, raises_like, rand
from nn_helpers import module_parity

import jtorch

IDX = np.array([[1, 2, 0, 2], [3, 0, 0, 1]])
INP = np.array([1, 2, 4, 4, 3, 0, 2, 1])
OFFS = np.array([0, 2, 2, 5])
OFFS_LAST = np.array([0, 2, 2, 5, 8])   # include_last_offset: the last offset is the size


@pytest.mark.parametrize("pad,sgf", [(None, False), (0, False), (-1, True), (2, True)])
def test_embedding(pad, sgf):
    # padding_idx rows get no gradient; scale_grad_by_freq divides by the count in the batch
    parity(lambda T, w, i: T.nn.functional.embedding(i, w, padding_idx=pad,
                                                     scale_grad_by_freq=sgf), rand(5, 3), IDX)


def test_embedding_variants():
    parity(lambda T, w, i: T.embedding(w, i), rand(5, 3, dtype=np.float64), IDX.astype(np.int32))
    parity(lambda T, w, i: T.nn.functional.embedding(i, w), rand(5, 3), np.array(3))  # 0-d
    # sparse=True: jtorch's gradient is dense, with the values of PyTorch's sparse gradient
    tw, jw = torch.tensor(rand(5, 3), requires_grad=True), None
    jw = jtorch.tensor(tw.detach().numpy(), requires_grad=True)
    torch.nn.functional.embedding(torch.tensor(IDX), tw, sparse=True).sum().backward()
    jtorch.nn.functional.embedding(jtorch.tensor(IDX), jw, sparse=True).sum().backward()
    assert_close(jw.grad, tw.grad.to_dense())
    parity(lambda T, w, i: T.nn.functional.embedding(i, w), rand(5, 3), np.zeros((2, 0), int))
    w = jtorch.randn(5, 3, requires_grad=True)
    assert jtorch.nn.functional.embedding(jtorch.tensor([1]), w).grad_fn.name() == \
        "EmbeddingBackward0"


@pytest.mark.parametrize("max_norm,norm_type", [(1.0, 2.0), (1.5, 1.0), (0.5, float("inf"))])
def test_embedding_max_norm_renorms_in_place(max_norm, norm_type):
    def f(T, w, i):
        table = (w * 1.0).detach()   # a plain leaf table the call renormalises in place
        out = T.nn.functional.embedding(i, table, max_norm=max_norm, norm_type=norm_type)
        return out, table
    parity(f, rand(6, 3), IDX)
    # through the module: the Parameter itself changes, only rows that were looked up
    tm = torch.nn.Embedding(6, 3, max_norm=1.0)
    jm = jtorch.nn.Embedding(6, 3, max_norm=1.0)
    with jtorch.no_grad():
        jm.weight.copy_(jtorch.tensor(tm.weight.detach().numpy() * 3))
    with torch.no_grad():
        tm.weight.mul_(3)
    v = jm.weight._version
    to, jo = tm(torch.tensor(IDX)), jm(jtorch.tensor(IDX))
    assert_close(jo, to)
    assert_close(jm.weight, tm.weight)
    assert jm.weight._version > v and jm.weight.requires_grad
    jo.sum().backward()
    to.sum().backward()
    assert_close(jm.weight.grad, tm.weight.grad)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag(mode):
    for pad in (None, 2):
        parity(lambda T, w, i, o, pad=pad: T.nn.functional.embedding_bag(i, w, o, mode=mode,
                                                                         padding_idx=pad),
               rand(5, 3), INP, OFFS)
        parity(lambda T, w, i, o, pad=pad: T.nn.functional.embedding_bag(
            i, w, o, mode=mode, padding_idx=pad, include_last_offset=True), rand(5, 3), INP,
            OFFS_LAST)
    parity(lambda T, w, i: T.nn.functional.embedding_bag(i, w, mode=mode, padding_idx=-5),
           rand(5, 3, dtype=np.float64), IDX)


def test_embedding_bag_extras():
    parity(lambda T, w, i, o, p: T.nn.functional.embedding_bag(i, w, o, mode="sum",
                                                               per_sample_weights=p),
           rand(5, 3), INP, OFFS, rand(8))
    parity(lambda T, w, i, p: T.nn.functional.embedding_bag(i, w, mode="sum",
                                                            per_sample_weights=p, padding_idx=0),
           rand(5, 3), IDX, rand(2, 4))
    # duplicated rows in one max bag: the gradient goes to the first maximum only
    parity(lambda T, w, i: T.nn.functional.embedding_bag(i, w, mode="max"), rand(5, 3),
           np.array([[1, 1, 2], [3, 3, 3]]))
    parity(lambda T, w, i, o: T.nn.functional.embedding_bag(i, w, o, max_norm=1.0),
           rand(5, 3), INP, OFFS, grad=False)
    w = jtorch.randn(5, 3, requires_grad=True)
    out = jtorch.nn.functional.embedding_bag(jtorch.tensor(IDX), w)
    assert out.grad_fn.name() == "EmbeddingBagBackward0"


def test_embedding_bag_scale_grad_by_freq():
    # each row's gradient is divided by its count in the input. Where every index occurs
    # equally often this is PyTorch's result; otherwise PyTorch 2.13's CPU kernel divides some
    # rows by another row's count (input [1, 2, 1, 3, 1]: rows 2 and 3 get 1/3)
    parity(lambda T, w, i, o: T.nn.functional.embedding_bag(i, w, o, mode="sum",
                                                            scale_grad_by_freq=True),
           rand(5, 3), np.array([1, 2, 2, 1, 3, 3]), np.array([0, 3]))
    w = jtorch.ones(5, 1, requires_grad=True)
    jtorch.nn.functional.embedding_bag(jtorch.tensor(INP), w, jtorch.tensor(OFFS), mode="sum",
                                       scale_grad_by_freq=True).sum().backward()
    assert w.grad.flatten().tolist() == [1.0] * 5    # count * (1 / count) for every row


def test_embedding_errors():
    cases = [
        lambda L: L.nn.functional.embedding(L.tensor([5]), L.ones(5, 3)),
        lambda L: L.nn.functional.embedding(L.tensor([-1]), L.ones(5, 3)),
        lambda L: L.nn.functional.embedding(L.tensor([1.0]), L.ones(5, 3)),
        lambda L: L.nn.functional.embedding(L.tensor([1]), L.ones(5)),
        lambda L: L.nn.functional.embedding(L.tensor([1]), L.ones(5, 3), padding_idx=5),
        lambda L: L.nn.functional.embedding(L.tensor([1]), L.ones(5, 3), padding_idx=-6),
        lambda L: L.nn.Embedding(5, 3, padding_idx=7),
        lambda L: L.nn.EmbeddingBag(5, 3, padding_idx=-7),
        lambda L: L.nn.functional.embedding_bag(L.tensor([[1]]), L.ones(5, 3), L.tensor([0])),
        lambda L: L.nn.functional.embedding_bag(L.tensor([1]), L.ones(5, 3)),
        lambda L: L.nn.functional.embedding_bag(L.tensor([1]), L.ones(5, 3), L.tensor([[0]])),
        lambda L: L.nn.functional.embedding_bag(L.ones(1, 1, 1, dtype=L.long), L.ones(5, 3)),
        lambda L: L.nn.functional.embedding_bag(L.tensor([1]), L.ones(5), L.tensor([0])),
        lambda L: L.nn.functional.embedding_bag(L.tensor([1]), L.ones(5, 3), L.tensor([0]),
                                                mode="foo"),
        lambda L: L.nn.functional.embedding_bag(L.tensor([1]), L.ones(5, 3), L.tensor([0]),
                                                mode="max", scale_grad_by_freq=True),
        lambda L: L.nn.functional.embedding_bag(L.tensor([1]), L.ones(5, 3), L.tensor([0]),
                                                per_sample_weights=L.ones(1)),
        lambda L: L.nn.functional.embedding_bag(L.tensor([1]), L.ones(5, 3), L.tensor([0]),
                                                mode="sum", per_sample_weights=L.ones(2)),
        lambda L: L.nn.functional.embedding_bag(L.tensor([9]), L.ones(5, 3), L.tensor([0])),
        lambda L: L.nn.Embedding.from_pretrained(L.ones(3)),
    ]
    for f in cases:
        raises_like(lambda f=f: f(torch), lambda f=f: f(jtorch))


def test_embedding_modules():
    module_parity(lambda T: T.nn.Embedding(5, 3, padding_idx=-2), IDX)
    module_parity(lambda T: T.nn.Embedding(5, 3, scale_grad_by_freq=True), IDX, double=True)
    module_parity(lambda T: T.nn.EmbeddingBag(5, 3, mode="max"), IDX)
    module_parity(lambda T: T.nn.EmbeddingBag(5, 3, mode="sum", padding_idx=0), INP, OFFS)
    for lib in (torch, jtorch):
        m = lib.nn.EmbeddingBag(5, 3, mode="sum", include_last_offset=True)
        assert m(lib.tensor(INP), lib.tensor(OFFS_LAST)).shape == (4, 3)
    tw = torch.randn(4, 3)
    for freeze in (True, False):
        tm = torch.nn.Embedding.from_pretrained(tw, freeze=freeze, padding_idx=1)
        jm = jtorch.nn.Embedding.from_pretrained(jtorch.tensor(tw.numpy()), freeze=freeze,
                                                 padding_idx=1)
        assert jm.weight.requires_grad == tm.weight.requires_grad
        assert_close(jm(jtorch.tensor([[1, 3]])), tm(torch.tensor([[1, 3]])))
        tb = torch.nn.EmbeddingBag.from_pretrained(tw, freeze=freeze, mode="sum")
        jb = jtorch.nn.EmbeddingBag.from_pretrained(jtorch.tensor(tw.numpy()), freeze=freeze,
                                                    mode="sum")
        assert jb.weight.requires_grad == tb.weight.requires_grad
        assert_close(jb(jtorch.tensor([[1, 3]])), tb(torch.tensor([[1, 3]])))


def test_embedding_repr_and_init():
    for mk in [lambda T: T.nn.Embedding(10, 3), lambda T: T.nn.Embedding(10, 3, padding_idx=-1),
               lambda T: T.nn.Embedding(10, 3, max_norm=2.0, norm_type=1.0,
                                        scale_grad_by_freq=True, sparse=True),
               lambda T: T.nn.EmbeddingBag(10, 3),
               lambda T: T.nn.EmbeddingBag(10, 3, max_norm=1.0, mode="max", padding_idx=2)]:
        assert repr(mk(jtorch)) == repr(mk(torch))
    m = jtorch.nn.Embedding(400, 50, padding_idx=3)
    w = m.weight.detach().numpy()
    assert np.all(w[3] == 0) and m.weight.requires_grad
    rest = np.delete(w, 3, axis=0)
    assert abs(rest.mean()) < 0.02 and abs(rest.std() - 1) < 0.02     # N(0, 1)
