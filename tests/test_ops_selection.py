"""Parity of the gather/scatter family (gather, scatter*, index_*, masked_*, take, put) and of
the selection ops (sort, topk, kthvalue, unique, bincount, histc, histogram, searchsorted,
bucketize, one_hot) with PyTorch: values, dtypes, gradients (eager and under jax.jit), ties
and kinks, in-place and out= forms, errors."""

import numpy as np
import pytest
import torch
from helpers import NoGrad, NonContig, parity, raises_like, rand

import jtorch

F64 = np.float64
_RNG = np.random.default_rng(1)


def _i(*shape, low=0, high=3):
    return _RNG.integers(low, high, size=shape).astype(np.int64)


def _ties(*shape, dtype=np.float32):
    """Floats with many equal values (ties for sort/amax)."""
    return _RNG.integers(-2, 3, size=shape).astype(dtype)


IDX34 = _i(2, 4, high=3)            # gather/scatter index into dim 0 of a (3, 4)
IDX_COL = _i(3, 2, high=4)          # into dim 1 of a (3, 4)
UNIQ_COL = np.array([[0, 3], [2, 1], [1, 2]])   # no duplicates per row (plain scatter)
MASK34 = _RNG.random((3, 4)) > 0.5
ZEROS = np.array([[0.0, 2, 0, 1], [3, 0, 1, 2], [1, 1, 0, 0]], np.float32)  # prod at zeros


def _scatter_reduce(reduce, include_self):
    return lambda T, x, i, s: T.scatter_reduce(x, 0, i, s, reduce, include_self=include_self)


def _index_reduce(reduce, include_self):
    return lambda T, x, i, s: x.index_reduce(1, i, s, reduce, include_self=include_self)


GATHER_SCATTER = [
    # gather
    ("gather", lambda T, x, i: T.gather(x, 1, i), (rand(3, 4), IDX_COL)),
    ("gather_dim0_dups", lambda T, x, i: x.gather(0, i), (rand(3, 4), IDX34)),
    ("gather_neg_dim_small", lambda T, x, i: T.gather(x, -1, i), (rand(3, 4), _i(2, 1, high=4))),
    ("gather_int32_f64", lambda T, x, i: T.gather(x, 1, i), (rand(3, 4, dtype=F64),
                                                             IDX_COL.astype(np.int32))),
    ("gather_int", lambda T, x, i: T.gather(x, 1, i), (_i(3, 4, high=9), IDX_COL)),
    ("gather_nc", lambda T, x, i: T.gather(x, 0, i), (NonContig(rand(3, 4)), IDX34)),
    ("gather_empty", lambda T, x, i: T.gather(x, 1, i), (rand(3, 4), _i(0, 2))),
    ("gather_0d", lambda T, x, i: T.gather(x, 0, i), (rand(), np.array([0, 0]))),
    ("gather_out", lambda T, x, i: T.gather(x, 1, i, out=T.empty(0)), (NoGrad(rand(3, 4)),
                                                                      IDX_COL)),
    # scatter / scatter_add / scatter_reduce
    ("scatter_src", lambda T, x, i, s: x.scatter(1, i, s), (rand(3, 4), UNIQ_COL, rand(3, 2))),
    # PyTorch's backward needs src.shape == index.shape: a bigger src gets no gradient here
    ("scatter_src_bigger", lambda T, x, i, s: T.scatter(x, 1, i, s), (rand(3, 4), UNIQ_COL[:2],
                                                                      NoGrad(rand(3, 3)))),
    ("scatter_value", lambda T, x, i: x.scatter(0, i, 1.5), (rand(3, 4), IDX34)),
    ("scatter_value_kw", lambda T, x, i: T.scatter(x, 0, i, value=-2), (_i(3, 4), IDX34)),
    ("scatter_reduce_add", lambda T, x, i, s: x.scatter(0, i, s, reduce="add"),
     (NoGrad(rand(3, 4)), IDX34, NoGrad(rand(2, 4)))),
    ("scatter_reduce_mul", lambda T, x, i: x.scatter(0, i, 2.0, reduce="multiply"),
     (NoGrad(rand(3, 4)), IDX34)),
    ("scatter_", lambda T, x, i, s: (x * 1).scatter_(1, i, s), (rand(3, 4), UNIQ_COL,
                                                               rand(3, 2))),
    ("scatter_0d", lambda T, x, i, s: x.scatter(0, i, s), (rand(), np.array(0), rand())),
    ("scatter_add", lambda T, x, i, s: T.scatter_add(x, 0, i, s), (rand(3, 4), IDX34,
                                                                   rand(2, 4))),
    ("scatter_add_", lambda T, x, i, s: (x * 1).scatter_add_(-1, i, s), (rand(3, 4), IDX_COL,
                                                                        rand(3, 2))),
    ("scatter_add_f64_nc", lambda T, x, i, s: T.scatter_add(x, 0, i, s),
     (NonContig(rand(3, 4, dtype=F64)), IDX34, rand(2, 4, dtype=F64))),
    ("scatter_add_int", lambda T, x, i, s: T.scatter_add(x, 0, i, s), (_i(3, 4), IDX34,
                                                                       _i(2, 4))),
] + [
    (f"scatter_reduce_{r}_{inc}", _scatter_reduce(r, inc), (_ties(3, 4), IDX34, _ties(2, 4)))
    for r in ("sum", "prod", "mean", "amax", "amin") for inc in (True, False)
] + [
    ("scatter_reduce_prod_zeros", lambda T, x, i, s: x.scatter_reduce(1, i, s, "prod"),
     (ZEROS, np.array([[0, 0, 1], [1, 1, 2], [3, 3, 3]]), np.array([[0, 2, 3], [0, 0, 1],
                                                                    [2, 0, 1]], np.float32))),
    ("scatter_reduce_mean_int", lambda T, x, i, s: x.scatter_reduce(0, i, s, "mean",
                                                                    include_self=False),
     (_i(3, 4, low=-5, high=5), IDX34, _i(2, 4, low=-5, high=5))),
    ("scatter_reduce_amax_int", lambda T, x, i, s: T.scatter_reduce(x, 0, i, s, "amax"),
     (_i(3, 4), IDX34, _i(2, 4, low=-5))),
    ("scatter_reduce_", lambda T, x, i, s: (x * 1).scatter_reduce_(0, i, s, "amin"),
     (_ties(3, 4), IDX34, _ties(2, 4))),
    # index_select / index_add / index_copy / index_fill / index_reduce
    ("index_select", lambda T, x, i: T.index_select(x, 1, i), (rand(3, 4), np.array([3, 0, 3]))),
    ("index_select_neg_dim", lambda T, x, i: x.index_select(-2, i), (rand(3, 4), np.array([2]))),
    ("index_select_0d_idx", lambda T, x, i: T.index_select(x, 0, i), (rand(3, 4), np.array(1))),
    ("index_select_int32_nc", lambda T, x, i: T.index_select(x, 0, i),
     (NonContig(rand(3, 4)), np.array([1, 1], np.int32))),
    ("index_select_out", lambda T, x, i: T.index_select(x, 1, i, out=T.empty(2)),
     (NoGrad(rand(3, 4)), np.array([1, 0]))),
    ("index_select_empty", lambda T, x, i: T.index_select(x, 0, i), (rand(3, 4),
                                                                     np.zeros(0, np.int64))),
    ("index_add", lambda T, x, i, s: x.index_add(1, i, s, alpha=2), (rand(3, 4),
                                                                     np.array([0, 3, 0]),
                                                                     rand(3, 3))),
    ("index_add_", lambda T, x, i, s: (x * 1).index_add_(0, i, s), (rand(3, 4),
                                                                   np.array([2, 2]),
                                                                   rand(2, 4))),
    ("index_add_int_alpha", lambda T, x, i, s: T.index_add(x, 0, i, s, alpha=2.5),
     (_i(3, 4), np.array([1]), _i(1, 4))),
    ("index_add_0d", lambda T, x, i, s: T.index_add(x, 0, i, s), (rand(), np.array([0]),
                                                                  rand())),
    ("index_copy", lambda T, x, i, s: x.index_copy(1, i, s), (rand(3, 4), np.array([3, 1]),
                                                              rand(3, 2))),
    ("index_copy_", lambda T, x, i, s: (x * 1).index_copy_(0, i, s), (rand(3, 4, dtype=F64),
                                                                      np.array([2]),
                                                                      rand(1, 4, dtype=F64))),
    ("index_fill", lambda T, x, i: x.index_fill(1, i, -1.5), (rand(3, 4), np.array([0, 2, 0]))),
    ("index_fill_tensor_value", lambda T, x, i, v: T.index_fill(x, 0, i, v),
     (rand(3, 4), np.array([2, 0]), rand())),
    ("index_fill_neg_", lambda T, x, i: (x * 1).index_fill_(1, i, 2), (rand(3, 4),
                                                                       np.array([-1]))),
    ("index_fill_bool", lambda T, x, i: x.index_fill(0, i, True), (rand(3, 2, dtype=np.bool_),
                                                                   np.array([1]))),
] + [
    (f"index_reduce_{r}_{inc}", _index_reduce(r, inc), (_ties(3, 4), np.array([0, 2, 0]),
                                                         _ties(3, 3)))
    for r in ("prod", "mean", "amax", "amin") for inc in (True, False)
] + [
    # masked_fill / masked_scatter
    ("masked_fill", lambda T, x, m: x.masked_fill(m, 0.5), (rand(3, 4), MASK34)),
    ("masked_fill_tensor_value", lambda T, x, v: T.masked_fill(x, x > 0, v), (rand(3, 4),
                                                                              rand())),
    ("masked_fill_bcast_mask", lambda T, x, m: x.masked_fill(m, -1), (rand(2, 3, 4), MASK34)),
    ("masked_fill_bcast_out", lambda T, x, m: x.masked_fill(m, 2.0), (rand(4), MASK34)),
    ("masked_fill_int_float_value", lambda T, x, m: x.masked_fill(m, 2.7), (_i(3, 4), MASK34)),
    ("masked_fill_bool", lambda T, x, m: x.masked_fill(m, True), (rand(3, 4, dtype=np.bool_),
                                                                 MASK34)),
    ("masked_fill_f64_value", lambda T, x, m, v: x.masked_fill(m, v), (rand(3, 4), MASK34,
                                                                       rand(dtype=F64))),
    ("masked_fill_", lambda T, x, m: (x * 1).masked_fill_(m, 3), (NonContig(rand(3, 4)),
                                                                  MASK34)),
    ("masked_scatter", lambda T, x, m, s: x.masked_scatter(m, s), (rand(3, 4), MASK34,
                                                                   rand(4, 4))),
    ("masked_scatter_bcast", lambda T, x, m, s: T.masked_scatter(x, m, s), (rand(4), MASK34,
                                                                            rand(12))),
    ("masked_scatter_nc_", lambda T, x, m, s: (x * 1).masked_scatter_(m, s),
     (rand(3, 4), MASK34, NonContig(rand(3, 4)))),
    # take / take_along_dim / put
    ("take", lambda T, x, i: T.take(x, i), (rand(3, 4), np.array([[0, 11], [-1, 3]]))),
    ("take_nc_dups", lambda T, x, i: x.take(i), (NonContig(rand(3, 4)), np.array([5, 5, -12]))),
    ("take_along_dim", lambda T, x, i: T.take_along_dim(x, i, 1), (rand(3, 4), IDX_COL)),
    ("take_along_dim_none", lambda T, x, i: T.take_along_dim(x, i), (rand(3, 4),
                                                                     np.array([0, 11, 4]))),
    ("take_along_dim_bcast", lambda T, x, i: x.take_along_dim(i, dim=-1),
     (rand(3, 1, 4), _i(1, 2, 3, high=4))),
    ("take_along_dim_neg", lambda T, x, i: T.take_along_dim(x, i, 0), (rand(3, 4),
                                                                       np.array([[-1]]))),
    ("put", lambda T, x, i, s: x.put(i, s), (rand(3, 4), np.array([0, 11, -2]), rand(3))),
    ("put_acc", lambda T, x, i, s: T.put(x, i, s, accumulate=True), (rand(3, 4),
                                                                     np.array([[1, 1], [1, 0]]),
                                                                     rand(2, 2))),
    ("put_", lambda T, x, i, s: (x * 1).put_(i, s), (rand(2, 3), np.array([4]), rand(1))),
]


@pytest.mark.parametrize("name,fn,args", GATHER_SCATTER, ids=[c[0] for c in GATHER_SCATTER])
def test_gather_scatter(name, fn, args):
    parity(fn, *args)


def test_grad_fn_names():
    a, i = rand(3, 4), np.array([[0, 1], [2, 3]])
    names = {}
    for lib in (torch, jtorch):
        x = lib.tensor(a, requires_grad=True)
        idx = lib.tensor(i)
        names[lib] = [type(r.grad_fn).__name__ for r in (
            x.gather(1, idx), x.scatter(1, idx, lib.ones(2, 2)), x.index_select(0, idx[0]),
            lib.take_along_dim(x[:2], idx, 1), x.masked_fill(x > 0, 1.0), x.take(idx),
            x.index_add(0, idx[0], lib.ones(2, 4)), lib.msort(x), x.sort().values,
            x.topk(2).values, x.kthvalue(2).values, x.scatter_reduce(1, idx, x[:2, :2], "sum"))]
    assert names[jtorch] == names[torch]


GS_ERRORS = [
    ("gather_ndim", lambda T: T.gather(T.zeros(3, 4), 1, T.tensor([0, 1]))),
    ("gather_oob", lambda T: T.gather(T.zeros(3, 4), 1, T.tensor([[0, 4]]))),
    ("gather_neg", lambda T: T.gather(T.zeros(3, 4), 1, T.tensor([[-1]]))),
    ("gather_size", lambda T: T.gather(T.zeros(3, 4), 1, T.zeros(4, 2, dtype=T.int64))),
    ("gather_dim", lambda T: T.gather(T.zeros(3, 4), 2, T.zeros(1, 1, dtype=T.int64))),
    ("gather_dtype", lambda T: T.gather(T.zeros(3, 4), 1, T.zeros(1, 1))),
    ("scatter_src_size", lambda T: T.zeros(3, 4).scatter(1, T.zeros(2, 2, dtype=T.int64),
                                                         T.ones(1, 1))),
    ("scatter_src_dtype", lambda T: T.zeros(3, 4).scatter(1, T.zeros(2, 2, dtype=T.int64),
                                                          T.ones(2, 2, dtype=T.float64))),
    ("scatter_reduce_arg", lambda T: T.zeros(3).scatter(0, T.tensor([0]), 1.0, reduce="mean")),
    ("scatter_oob", lambda T: T.zeros(3, 4).scatter(1, T.tensor([[5]]), 2.0)),
    ("scatter_ndim", lambda T: T.zeros(3, 4).scatter(1, T.tensor([0]), 2.0)),
    ("scatter_src_ndim", lambda T: T.zeros(3, 4).scatter(1, T.tensor([[0]]), T.tensor(2.0))),
    ("scatter_idx_dtype", lambda T: T.zeros(3, 4).scatter(1, T.tensor([[0.0]]), 1.0)),
    ("scatter_add_dtype", lambda T: T.zeros(3).scatter_add(0, T.tensor([0]),
                                                           T.ones(1, dtype=T.float64))),
    ("scatter_reduce_name", lambda T: T.zeros(3).scatter_reduce(0, T.tensor([0]), T.ones(1),
                                                                "foo")),
    ("index_select_vec", lambda T: T.zeros(3, 4).index_select(1, T.tensor([[0, 3]]))),
    ("index_select_oob", lambda T: T.zeros(3, 4).index_select(1, T.tensor([0, 4]))),
    ("index_select_dtype", lambda T: T.zeros(3, 4).index_select(1, T.tensor([0.0]))),
    ("index_select_0d_many", lambda T: T.tensor(5.0).index_select(0, T.tensor([0, 0]))),
    ("index_add_n", lambda T: T.zeros(3, 4).index_add(1, T.tensor([0, 0]), T.ones(3, 3))),
    ("index_add_dtype", lambda T: T.zeros(3, 4).index_add(1, T.tensor([0]),
                                                          T.ones(3, 1, dtype=T.float64))),
    ("index_add_oob", lambda T: T.zeros(3, 4).index_add(1, T.tensor([0, 5]), T.ones(3, 2))),
    ("index_add_vec", lambda T: T.zeros(3, 4).index_add(1, T.tensor([[0]]), T.ones(3, 1))),
    ("index_add_idx", lambda T: T.zeros(3, 4).index_add(1, T.tensor([0.0]), T.ones(3, 1))),
    ("index_add_shape", lambda T: T.zeros(3, 4).index_add(1, T.tensor([0]), T.ones(2, 1))),
    ("index_copy_n", lambda T: T.zeros(3, 4).index_copy(1, T.tensor([0, 0]), T.ones(3, 3))),
    ("index_copy_dtype", lambda T: T.zeros(3, 4).index_copy(1, T.tensor([0]),
                                                            T.ones(3, 1, dtype=T.float64))),
    ("index_copy_oob", lambda T: T.zeros(3, 4).index_copy(1, T.tensor([0, 7]), T.ones(3, 2))),
    ("index_copy_int32", lambda T: T.zeros(3, 4).index_copy(1, T.tensor([0], dtype=T.int32),
                                                            T.ones(3, 1))),
    ("index_copy_vec", lambda T: T.zeros(3, 4).index_copy(1, T.tensor([[0]]), T.ones(3, 1))),
    ("index_fill_value", lambda T: T.zeros(3, 4).index_fill(1, T.tensor([0]), T.tensor([3.0]))),
    ("index_fill_idx", lambda T: T.zeros(3, 4).index_fill(1, T.tensor([0], dtype=T.int32), 1)),
    ("index_fill_oob", lambda T: T.zeros(3, 4).index_fill(1, T.tensor([4]), 1)),
    ("index_fill_vec", lambda T: T.zeros(3, 4).index_fill(1, T.tensor([[0]]), 1)),
    ("index_reduce_name", lambda T: T.zeros(3, 4).index_reduce(1, T.tensor([0]), T.ones(3, 1),
                                                               "sum")),
    ("index_reduce_n", lambda T: T.zeros(3, 4).index_reduce(1, T.tensor([0]), T.ones(3, 2),
                                                            "prod")),
    ("index_reduce_oob", lambda T: T.zeros(3, 4).index_reduce(1, T.tensor([5]), T.ones(3, 1),
                                                              "prod")),
    ("masked_fill_mask_int", lambda T: T.zeros(3).masked_fill(T.tensor([1, 0, 1]), 1)),
    ("masked_fill_mask_u8", lambda T: T.zeros(3).masked_fill(T.tensor([1, 0, 1],
                                                                      dtype=T.uint8), 1)),
    ("masked_fill_mask_f", lambda T: T.zeros(3).masked_fill(T.zeros(3), 1)),
    ("masked_fill_value", lambda T: T.zeros(3).masked_fill(T.ones(3, dtype=T.bool),
                                                           T.tensor([3.0]))),
    ("masked_fill_bcast", lambda T: T.zeros(3, 4).masked_fill(T.ones(3, dtype=T.bool), 1)),
    ("masked_fill__shape", lambda T: T.zeros(3).masked_fill_(T.ones(2, 3, dtype=T.bool), 1)),
    ("masked_fill_complex", lambda T: T.zeros(3).masked_fill(T.ones(3, dtype=T.bool), 3 + 1j)),
    ("masked_scatter_count", lambda T: T.zeros(3, 4).masked_scatter(T.ones(3, 4, dtype=T.bool),
                                                                    T.ones(2))),
    ("masked_scatter_mask", lambda T: T.zeros(3).masked_scatter(T.tensor([1, 0, 1]),
                                                                T.ones(3))),
    ("masked_scatter_dtype", lambda T: T.zeros(3).masked_scatter(T.ones(3, dtype=T.bool),
                                                                 T.ones(3, dtype=T.float64))),
    ("take_oob", lambda T: T.zeros(3, 4).take(T.tensor([12]))),
    ("take_oob_neg", lambda T: T.zeros(3, 4).take(T.tensor([-13]))),
    ("take_int32", lambda T: T.zeros(3).take(T.tensor([0], dtype=T.int32))),
    ("take_along_dim_ndim", lambda T: T.take_along_dim(T.zeros(3, 4), T.tensor([0]), 1)),
    ("take_along_dim_dtype", lambda T: T.take_along_dim(T.zeros(3, 4), T.tensor([[1.0]]), 1)),
    ("take_along_dim_bcast", lambda T: T.take_along_dim(T.zeros(3, 4), T.tensor([[0], [1]]),
                                                        1)),
    ("put_oob", lambda T: T.zeros(3, 4).put(T.tensor([0, 12]), T.ones(2))),
    ("put_n", lambda T: T.zeros(3, 4).put(T.tensor([0, 1]), T.ones(3))),
    ("put_dtype", lambda T: T.zeros(3).put(T.tensor([0]), T.ones(1, dtype=T.float64))),
    ("put_int32", lambda T: T.zeros(3).put(T.tensor([1], dtype=T.int32), T.ones(1))),
    ("scatter__leaf", lambda T: T.zeros(3, requires_grad=True).scatter_(0, T.tensor([0]), 1.0)),
]


@pytest.mark.parametrize("name,fn", GS_ERRORS, ids=[c[0] for c in GS_ERRORS])
def test_gather_scatter_errors(name, fn):
    raises_like(lambda: fn(torch), lambda: fn(jtorch))


# ------------------------------------------------------------------------------ sorting
SORT = [
    ("sort", lambda T, x: T.sort(x), (rand(3, 5),)),
    ("sort_dim0_desc", lambda T, x: x.sort(0, descending=True), (rand(4, 3),)),
    ("sort_f64_nc", lambda T, x: T.sort(x, dim=-2), (NonContig(rand(4, 3, dtype=F64)),)),
    ("sort_stable_ties", lambda T, x: T.sort(x, stable=True, dim=1), (_ties(3, 8),)),
    ("sort_stable_ties_desc", lambda T, x: T.sort(x, stable=True, descending=True),
     (_ties(3, 8),)),
    ("sort_int", lambda T, x: T.sort(x, stable=True), (_i(2, 6, high=4),)),
    ("sort_bool", lambda T, x: x.sort(stable=True), (rand(7, dtype=np.bool_),)),
    ("sort_nan", lambda T, x: T.sort(x), (np.array([1.0, np.nan, -1.0, 2.0], np.float32),)),
    ("sort_nan_desc", lambda T, x: T.sort(x, descending=True),
     (np.array([1.0, np.nan, -1.0, 2.0], np.float32),)),
    ("sort_0d", lambda T, x: T.sort(x), (rand(),)),
    ("sort_empty", lambda T, x: T.sort(x, 0), (rand(0, 3),)),
    ("sort_out", lambda T, x: T.sort(x, out=(T.empty(0), T.empty(0, dtype=T.int64))),
     (NoGrad(rand(2, 3)),)),
    ("argsort", lambda T, x: T.argsort(x, dim=0, descending=True), (rand(4, 3),)),
    ("argsort_stable", lambda T, x: x.argsort(stable=True), (_ties(2, 9),)),
    ("msort", lambda T, x: T.msort(x), (rand(4, 3),)),
    ("msort_method", lambda T, x: x.msort(), (_i(4, 2),)),
    ("topk", lambda T, x: T.topk(x, 2), (rand(3, 5),)),
    ("topk_smallest_dim0", lambda T, x: x.topk(3, dim=0, largest=False), (rand(4, 3),)),
    ("topk_f64_nc", lambda T, x: T.topk(x, 1, -2), (NonContig(rand(4, 3, dtype=F64)),)),
    ("topk_k0", lambda T, x: T.topk(x, 0), (rand(3, 5),)),
    ("topk_0d", lambda T, x: T.topk(x, 1), (rand(),)),
    ("topk_nan", lambda T, x: T.topk(x, 2), (np.array([1.0, np.nan, -1.0, 2.0], np.float32),)),
    ("topk_int", lambda T, x: T.topk(x, 2), (np.array([[5, 1, 3], [0, 9, 2]]),)),
    ("topk_out", lambda T, x: T.topk(x, 2, out=(T.empty(0), T.empty(0, dtype=T.int64))),
     (NoGrad(rand(2, 3)),)),
    ("kthvalue", lambda T, x: T.kthvalue(x, 2), (rand(3, 5),)),
    ("kthvalue_keepdim_dim0", lambda T, x: x.kthvalue(3, 0, True), (rand(4, 3),)),
    ("kthvalue_0d", lambda T, x: T.kthvalue(x, 1), (rand(),)),
    ("kthvalue_int", lambda T, x: T.kthvalue(x, 1), (np.array([[5, 1, 3], [0, 9, 2]]),)),
]


@pytest.mark.parametrize("name,fn,args", SORT, ids=[c[0] for c in SORT])
def test_sorting(name, fn, args):
    parity(fn, *args)


def test_unstable_ties_values_match():
    """With ties, PyTorch's unstable order is unspecified: compare values (jtorch is stable)."""
    a = NoGrad(_ties(4, 9))
    for f in (lambda T, x: T.sort(x).values, lambda T, x: T.sort(x, descending=True).values,
              lambda T, x: T.topk(x, 3).values, lambda T, x: T.kthvalue(x, 4).values):
        parity(f, a)
    # jtorch's documented choice: ties keep their original order
    j = jtorch.tensor(a.array).sort(descending=True)
    np.testing.assert_array_equal(j.indices.numpy(), np.argsort(-a.array, axis=-1,
                                                                kind="stable"))


SORT_ERRORS = [
    ("topk_k", lambda T: T.topk(T.zeros(2), 3)),
    ("topk_neg", lambda T: T.topk(T.zeros(2), -1)),
    ("topk_dim", lambda T: T.topk(T.zeros(2), 1, dim=1)),
    ("kthvalue_k", lambda T: T.kthvalue(T.zeros(2), 3)),
    ("kthvalue_0", lambda T: T.kthvalue(T.zeros(2, 3), 0, 1)),
    ("sort_dim", lambda T: T.sort(T.zeros(2), 2)),
]


@pytest.mark.parametrize("name,fn", SORT_ERRORS, ids=[c[0] for c in SORT_ERRORS])
def test_sorting_errors(name, fn):
    raises_like(lambda: fn(torch), lambda: fn(jtorch))


# ------------------------------------------------------------------------------ unique & counts
UNIQ = np.array([[3, 1, 2], [1, 3, 3], [3, 1, 2]])
EAGER = [
    ("unique", lambda T, x: T.unique(x), (UNIQ,)),
    ("unique_all", lambda T, x: x.unique(return_inverse=True, return_counts=True), (UNIQ,)),
    ("unique_unsorted", lambda T, x: T.unique(x, sorted=False, return_inverse=True), (UNIQ,)),
    ("unique_float", lambda T, x: T.unique(x, return_counts=True), (NoGrad(_ties(3, 4)),)),
    ("unique_dim0", lambda T, x: T.unique(x, dim=0, return_inverse=True, return_counts=True),
     (UNIQ,)),
    ("unique_dim1", lambda T, x: T.unique(x, dim=-1, return_inverse=True), (UNIQ,)),
    ("unique_0d", lambda T, x: T.unique(x, return_inverse=True, return_counts=True),
     (np.array(3),)),
    ("unique_bool_empty", lambda T, x, y: (T.unique(x), T.unique(y, return_counts=True)),
     (rand(5, dtype=np.bool_), np.zeros(0, np.int64))),
    ("unique_consecutive", lambda T, x: T.unique_consecutive(x, return_inverse=True,
                                                             return_counts=True),
     (np.array([3, 3, 1, 2, 2, 1]),)),
    ("unique_consecutive_2d", lambda T, x: x.unique_consecutive(return_counts=True), (UNIQ,)),
    ("unique_consecutive_dim", lambda T, x: T.unique_consecutive(x, dim=0, return_inverse=True,
                                                                 return_counts=True),
     (np.array([[1, 2], [1, 2], [3, 4], [1, 2]]),)),
    ("unique_consecutive_0d", lambda T, x: T.unique_consecutive(x, return_inverse=True),
     (NoGrad(np.array(2.5, np.float32)),)),
    ("bincount", lambda T, x: T.bincount(x), (np.array([1, 3, 3, 0]),)),
    ("bincount_weights", lambda T, x, w: x.bincount(w, minlength=7), (np.array([1, 3, 3]),
                                                                      NoGrad(rand(3)))),
    ("bincount_weights_f64_int", lambda T, x, w, v: (T.bincount(x, w), T.bincount(x, v)),
     (np.array([1, 3, 3]), NoGrad(rand(3, dtype=F64)), np.array([1, 2, 3]))),
    ("bincount_empty", lambda T, x: T.bincount(x, minlength=3), (np.zeros(0, np.int64),)),
    ("bincount_int32", lambda T, x: T.bincount(x), (np.array([1, 2], np.int32),)),
    ("one_hot_infer", lambda T, x: T.nn.functional.one_hot(x), (np.array([[0, 2], [1, 1]]),)),
]


@pytest.mark.parametrize("name,fn,args", EAGER, ids=[c[0] for c in EAGER])
def test_value_dependent_shapes(name, fn, args):
    parity(fn, *args, jit=False)


def test_value_dependent_shapes_raise_under_jit():
    import jax

    from jtorch._core.errors import TraceError

    fns = [jtorch.unique, jtorch.unique_consecutive, jtorch.bincount,
           jtorch.nn.functional.one_hot]
    for f in fns:
        with pytest.raises(TraceError):
            jax.jit(lambda a, f=f: f(jtorch.Tensor._make(a))._value)(np.array([1, 2]))


STATIC = [
    ("histc", lambda T, x: T.histc(x, bins=5, min=-1, max=1), (NoGrad(rand(20)),)),
    ("histc_auto_range", lambda T, x: x.histc(4), (NoGrad(rand(3, 7, dtype=F64)),)),
    ("histc_equal", lambda T, x: T.histc(x, bins=2), (NoGrad(np.ones(3, np.float32)),)),
    ("histogram", lambda T, x: T.histogram(x, bins=4), (NoGrad(rand(30)),)),
    ("histogram_range_weight_density", lambda T, x, w: T.histogram(
        x, 3, range=(-1.0, 1.0), weight=w, density=True), (NoGrad(rand(30)), NoGrad(rand(30)))),
    ("histogram_edges", lambda T, x, b: T.histogram(x, b), (NoGrad(rand(2, 10)), NoGrad(
        np.array([-2.0, -0.5, 0, 2.0], np.float32)))),
    ("histogram_equal", lambda T, x: T.histogram(x, 2), (NoGrad(np.ones(3, np.float32)),)),
    ("searchsorted", lambda T, s, x: T.searchsorted(s, x), (np.array([1, 3, 5, 7]),
                                                            np.array([[0, 3, 6, 9]]))),
    ("searchsorted_right_float", lambda T, s, x: T.searchsorted(s, x, right=True),
     (np.array([-1.0, 0, 0, 2], np.float32), NoGrad(_ties(2, 3)))),
    ("searchsorted_side_int32", lambda T, s, x: T.searchsorted(s, x, side="right",
                                                               out_int32=True),
     (np.array([1, 3, 5]), np.array([3, 6]))),
    ("searchsorted_scalar", lambda T, s: T.searchsorted(s, 4), (np.array([1, 3, 5]),)),
    ("searchsorted_nd", lambda T, s, x: T.searchsorted(s, x), (np.array([[1, 3, 5], [0, 1, 2]]),
                                                               np.array([[3, 6], [1, 3]]))),
    ("searchsorted_sorter", lambda T, s, x, o: T.searchsorted(s, x, sorter=o),
     (np.array([5, 1, 3]), np.array([3, 4]), np.array([1, 2, 0]))),
    ("searchsorted_mixed_dtype", lambda T, s, x: T.searchsorted(s, x),
     (np.array([1, 3, 5]), NoGrad(np.array([3.5], np.float32)))),
    ("bucketize", lambda T, x, b: T.bucketize(x, b), (np.array([[3, 6], [0, 1]]),
                                                      np.array([1, 3, 5]))),
    ("bucketize_right_int32", lambda T, x, b: T.bucketize(x, b, right=True, out_int32=True),
     (NoGrad(_ties(5)), np.array([-1.0, 0.0, 1.0], np.float32))),
    ("bucketize_scalar", lambda T, b: T.bucketize(3, b), (np.array([1, 3, 5]),)),
    ("one_hot", lambda T, x: T.nn.functional.one_hot(x, 4), (np.array([[0, 2], [3, 1]]),)),
    ("one_hot_empty", lambda T, x: T.nn.functional.one_hot(x, 3), (np.zeros(0, np.int64),)),
]


@pytest.mark.parametrize("name,fn,args", STATIC, ids=[c[0] for c in STATIC])
def test_static_shape_selection(name, fn, args):
    parity(fn, *args)


SEL_ERRORS = [
    ("bincount_neg", lambda T: T.bincount(T.tensor([1, -3]))),
    ("bincount_2d", lambda T: T.bincount(T.tensor([[1]]))),
    ("bincount_float", lambda T: T.bincount(T.tensor([1.0]))),
    ("bincount_bool", lambda T: T.bincount(T.tensor([True]))),
    ("bincount_minlength", lambda T: T.bincount(T.tensor([1]), minlength=-1)),
    ("bincount_weights", lambda T: T.bincount(T.tensor([1]), weights=T.tensor([1.0, 2.0]))),
    ("histc_int", lambda T: T.histc(T.tensor([1, 2]), bins=3)),
    ("histc_range", lambda T: T.histc(T.tensor([1.0]), bins=4, min=3, max=0)),
    ("histc_bins", lambda T: T.histc(T.tensor([1.0]), bins=0)),
    ("histogram_int", lambda T: T.histogram(T.tensor([1, 5]), bins=2)),
    ("histogram_bins_dtype", lambda T: T.histogram(T.tensor([1.0]), bins=T.tensor(
        [0.0, 2.0], dtype=T.float64))),
    ("searchsorted_side", lambda T: T.searchsorted(T.tensor([1, 3]), 3, side="middle")),
    ("searchsorted_opposite", lambda T: T.searchsorted(T.tensor([1, 3]), 3, side="left",
                                                       right=True)),
    ("searchsorted_nd", lambda T: T.searchsorted(T.tensor([[1, 3, 5]]), T.tensor([3, 6]))),
    ("searchsorted_nd_shape", lambda T: T.searchsorted(T.tensor([[1, 3], [1, 2]]),
                                                       T.tensor([[3, 6]]))),
    ("searchsorted_0d", lambda T: T.searchsorted(T.tensor(1.0), T.tensor([3.0]))),
    ("searchsorted_nd_scalar", lambda T: T.searchsorted(T.tensor([[1, 3, 5]]), 3)),
    ("searchsorted_sorter", lambda T: T.searchsorted(T.tensor([5, 1, 3]), T.tensor([3]),
                                                     sorter=T.tensor([1, 2]))),
    ("bucketize_2d", lambda T: T.bucketize(T.tensor([3]), T.tensor([[1, 3]]))),
    ("one_hot_int32", lambda T: T.nn.functional.one_hot(T.tensor([0, 2], dtype=T.int32))),
    ("one_hot_neg", lambda T: T.nn.functional.one_hot(T.tensor([0, -2]))),
    ("one_hot_big", lambda T: T.nn.functional.one_hot(T.tensor([0, 2]), 2)),
    ("one_hot_empty", lambda T: T.nn.functional.one_hot(T.tensor([], dtype=T.int64))),
    ("unique_dim", lambda T: T.unique(T.tensor([[1]]), dim=2)),
]


@pytest.mark.parametrize("name,fn", SEL_ERRORS, ids=[c[0] for c in SEL_ERRORS])
def test_selection_errors(name, fn):
    raises_like(lambda: fn(torch), lambda: fn(jtorch))
