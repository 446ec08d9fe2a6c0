"""Parity of Tensor.__getitem__ / __setitem__, index_put, nonzero, argwhere, masked_select with
PyTorch: values, dtypes, gradients (eager and under jax.jit), views (strides, offsets, writes
through), advanced-index placement, boolean masks, errors."""

import warnings

import numpy as np
import pytest
import torch
from helpers import NoGrad, NonContig, assert_close, parity, raises_like, rand

import jtorch

F64 = np.float64
_RNG = np.random.default_rng(0)


def _i(*shape, low=-3, high=3):
    return _RNG.integers(low, high, size=shape).astype(np.int64)


MASK3 = np.array([True, False, True])
MASK34 = _RNG.random((3, 4)) > 0.5
IDX = np.array([2, 0, -1, 2])

# (id, fn(T, x, ...), args): getitem cases
GET = [
    ("int", lambda T, x: x[1], (rand(3, 4, 5),)),
    ("int_neg", lambda T, x: x[-1, -2], (rand(3, 4, 5),)),
    ("slice", lambda T, x: x[1:], (rand(3, 4),)),
    ("slice_step", lambda T, x: x[::2, 1::3], (rand(5, 7),)),
    ("slice_neg", lambda T, x: x[-2:, :-1], (rand(3, 4),)),
    ("slice_oob", lambda T, x: x[1:100, -100:2], (rand(3, 4),)),
    ("slice_empty", lambda T, x: x[2:1], (rand(3, 4),)),
    ("none", lambda T, x: x[None, :, None], (rand(3, 4),)),
    ("ellipsis", lambda T, x: x[..., 1], (rand(2, 3, 4),)),
    ("ellipsis_mid", lambda T, x: x[0, ..., 1:], (rand(2, 3, 4),)),
    ("ellipsis_none", lambda T, x: x[..., None], (rand(2, 3),)),
    ("bool_true", lambda T, x: x[True], (rand(2, 3),)),
    ("bool_false", lambda T, x: x[False], (rand(2, 3),)),
    ("int_bool", lambda T, x: x[0, True], (rand(2, 3),)),
    ("0d_none", lambda T, x: x[None], (rand(),)),
    ("0d_ellipsis", lambda T, x: x[...], (rand(),)),
    ("f64", lambda T, x: x[1, ::2], (rand(3, 4, dtype=F64),)),
    ("int_input", lambda T, x: x[1:, 0], (_i(3, 4),)),
    ("bool_input", lambda T, x: x[:, 1], (rand(3, 4, dtype=np.bool_),)),
    ("noncontig", lambda T, x: x[1:, 1], (NonContig(rand(3, 4)),)),
    ("chained", lambda T, x: x[1:][0][::2], (rand(3, 4),)),
    ("0d_int_tensor", lambda T, x, i: x[i], (rand(3, 4), np.array(1))),
    ("0d_int_tensor_mixed", lambda T, x, i, j: x[:, i, j], (rand(2, 3, 4), np.array(-1),
                                                           np.array([0, 2]))),
    # advanced
    ("list", lambda T, x: x[[0, 2, 2]], (rand(3, 4),)),
    ("list_neg", lambda T, x: x[:, [-1, 0]], (rand(3, 4),)),
    ("list_empty", lambda T, x: x[[]], (rand(3, 4),)),
    ("numpy_idx", lambda T, x: x[IDX], (rand(3, 4),)),
    ("tensor", lambda T, x, i: x[i], (rand(3, 4), IDX)),
    ("tensor_2d", lambda T, x, i: x[i], (rand(3, 4), _i(2, 3))),
    ("tensor_dim1", lambda T, x, i: x[:, i], (rand(3, 4, 2), _i(2, 2))),
    ("tensor_int32", lambda T, x, i: x[i], (rand(3, 4), IDX.astype(np.int32))),
    ("tensor_empty", lambda T, x, i: x[i], (rand(3, 4), np.zeros((0,), np.int64))),
    ("tensor_empty_2d", lambda T, x, i: x[:, i], (rand(3, 4), np.zeros((2, 0), np.int64))),
    ("two_adjacent", lambda T, x, i, j: x[:, i, j], (rand(2, 3, 4), _i(5), _i(5))),
    ("two_broadcast", lambda T, x, i, j: x[i, j], (rand(3, 4), _i(2, 1), _i(3))),
    ("two_split", lambda T, x, i, j: x[i, :, j], (rand(3, 2, 4), _i(5), _i(5))),
    ("int_between", lambda T, x, i: x[:, 0, :, i], (rand(2, 3, 4, 5), _i(2, 3))),
    ("int_then_tensor", lambda T, x, i: x[1, :, i], (rand(2, 3, 4), _i(2))),
    ("tensor_int_tensor", lambda T, x, i, j: x[i, 1, j], (rand(3, 2, 4), _i(5), _i(5))),
    ("tensor_slice_none", lambda T, x, i: x[None, i, 1:, None], (rand(3, 4), _i(2))),
    ("tensor_ellipsis", lambda T, x, i: x[..., i], (rand(2, 3, 4), _i(2, 2))),
    ("tensor_step", lambda T, x, i: x[::2, i], (rand(5, 4), _i(3))),
    ("dup_grad", lambda T, x: x[[0, 0, 1, 0]], (rand(3, 4),)),
    ("adv_f64", lambda T, x, i: x[i], (rand(3, 4, dtype=F64), IDX)),
    ("adv_int", lambda T, x, i: x[i], (_i(3, 4), IDX)),
    ("adv_bool", lambda T, x, i: x[:, i], (rand(3, 4, dtype=np.bool_), IDX)),
    ("adv_noncontig", lambda T, x, i: x[i, 1:], (NonContig(rand(4, 3)), IDX)),
    ("adv_empty_input", lambda T, x, i: x[:, i], (rand(0, 3), _i(2))),
    ("bool_tensor_scalar_mix", lambda T, x, i: x[True, i], (rand(3, 4), _i(2))),
    # boolean masks given as NumPy constants (concrete even under jit)
    ("mask_np", lambda T, x: x[MASK3], (rand(3, 4),)),
    ("mask_np_2d", lambda T, x: x[MASK34], (rand(3, 4, 2),)),
    ("mask_np_dim1", lambda T, x: x[:, MASK3], (rand(2, 3, 2),)),
    ("mask_np_with_int", lambda T, x: x[MASK3, 1], (rand(3, 4),)),
    ("mask_np_with_tensor", lambda T, x, i: x[MASK3, i], (rand(3, 4), _i(2))),
    ("mask_list", lambda T, x: x[[True, False, True]], (rand(3, 4),)),
    ("mask_np_all_false", lambda T, x: x[np.zeros(3, bool)], (rand(3, 4),)),
]


@pytest.mark.parametrize("name,fn,args", GET, ids=[c[0] for c in GET])
def test_getitem(name, fn, args):
    parity(fn, *args)


MASK_T = [
    ("mask", lambda T, x, m: x[m], (rand(3, 4), MASK3)),
    ("mask_2d", lambda T, x, m: x[m], (rand(3, 4), MASK34)),
    ("mask_full", lambda T, x, m: x[m > 0], (rand(3, 4), rand(3, 4))),
    ("mask_dim1_int", lambda T, x, m: x[1, m], (rand(2, 3, 4), MASK3)),
    ("mask_and_tensor", lambda T, x, m, i: x[m, i], (rand(3, 4), MASK3, _i(2))),
    ("mask_uint8_free", lambda T, x, m: x[..., m], (rand(2, 3), MASK3)),
    ("mask_0d_true", lambda T, x, m: x[m], (rand(2, 3), np.array(True))),
    ("mask_0d_false", lambda T, x, m: x[m], (rand(2, 3), np.array(False))),
    ("mask_int_input", lambda T, x, m: x[m], (_i(3, 4), MASK34)),
    ("mask_noncontig", lambda T, x, m: x[m], (NonContig(rand(3, 4)), MASK34)),
]


@pytest.mark.parametrize("name,fn,args", MASK_T, ids=[c[0] for c in MASK_T])
def test_getitem_mask_tensor(name, fn, args):
    """Tensor masks need their values: eager only (under jit: concretization error)."""
    parity(fn, *args, jit=False)


def test_mask_tensor_under_jit_raises():
    import jax

    from jtorch._core.errors import TraceError

    def f(a, m):
        return jtorch.Tensor._make(a)[jtorch.Tensor._make(m)]._value

    with pytest.raises(TraceError, match="boolean-mask indexing"):
        jax.jit(f)(np.ones((3, 2), np.float32), MASK3)


VIEW_INDICES = [0, -1, (0, 1), slice(1, None), (slice(None), 0), (0, slice(1, 3)), None, ...,
                (None, 0), (slice(None),), (slice(None, None, 2),), (..., None),
                (slice(None), slice(None), slice(1, None, 2)), (1, ..., slice(None, 2)),
                (slice(0, 2), None, -1), slice(None), slice(0, 100)]


@pytest.mark.parametrize("noncontig", [False, True])
def test_getitem_views(noncontig):
    """Basic indexing returns a view with PyTorch's strides, offset, contiguity and grad_fn."""
    a = rand(4, 3, 5)
    tx = torch.tensor(a, requires_grad=True)
    jx = jtorch.tensor(a, requires_grad=True)
    if noncontig:
        tx, jx = tx.transpose(0, 2), jx.transpose(0, 2)
    for index in VIEW_INDICES:
        t, j = tx[index], jx[index]
        msg = repr(index)
        assert tuple(j.shape) == tuple(t.shape), msg
        assert j._base is not None, msg
        assert j.stride() == t.stride(), msg
        assert j.storage_offset() == t.storage_offset(), msg
        assert j.is_contiguous() == t.is_contiguous(), msg
        assert j.grad_fn.name() == t.grad_fn.name(), msg
    for index in [[0], True, (0, [1]), (slice(None), [True, False, True])]:
        t, j = tx[index], jx[index]
        assert j._base is None and t._base is None
        assert j.grad_fn.name() == t.grad_fn.name() == "IndexBackward0"


def test_0d_tensor_index_is_a_view():
    for lib in (torch, jtorch):
        x = lib.zeros(3, 4)
        v = x[lib.tensor(1)]
        assert v._base is not None and v.storage_offset() == 4
        v[0] = 7
        assert x[1, 0].item() == 7


def test_view_writes_reach_base():
    for lib in (torch, jtorch):
        x = lib.zeros(3, 4)
        v = x[1:, ::2]
        v[0] = 5
        v[:, 1] = lib.tensor([1.0, 2.0])
        w = x[None, 2]
        w[0, 3] = -1
        if lib is torch:
            expected = x.numpy()
        else:
            np.testing.assert_array_equal(x.numpy(), expected)
            np.testing.assert_array_equal(v.numpy(), expected[1:, ::2])


def test_nested_sequence_index_warns_like_torch():
    a = rand(3, 4)
    with warnings.catch_warnings(record=True) as wt:
        warnings.simplefilter("always")
        t = torch.tensor(a)[[[0, 1], [1, 2]]]
    with warnings.catch_warnings(record=True) as wj:
        warnings.simplefilter("always")
        j = jtorch.tensor(a)[[[0, 1], [1, 2]]]
    np.testing.assert_array_equal(j.numpy(), t.numpy())
    assert len(wj) == len(wt) == 1
    assert str(wt[0].message).startswith(str(wj[0].message))


ERRORS = [
    ("int_oob", lambda T: T.zeros(3, 4)[3]),
    ("int_oob_neg", lambda T: T.zeros(3, 4)[-4]),
    ("int_oob_dim1", lambda T: T.zeros(3, 4)[0, 4]),
    ("tensor_oob", lambda T: T.zeros(3, 4)[T.tensor([5])]),
    ("tensor_oob_neg", lambda T: T.zeros(3, 4)[T.tensor([0, -4])]),
    ("tensor_oob_dim1", lambda T: T.zeros(3, 4)[:, T.tensor([4])]),
    ("tensor_oob_second", lambda T: T.zeros(3, 4, 2)[T.tensor([0]), :, T.tensor([2])]),
    ("tensor_oob_after_mask", lambda T: T.zeros(2, 3, 4)[T.ones(2, 3, dtype=T.bool),
                                                         T.tensor([7])]),
    ("neg_step", lambda T: T.zeros(3)[::-1]),
    ("zero_step", lambda T: T.zeros(3)[::0]),
    ("float", lambda T: T.zeros(3)[1.5]),
    ("str", lambda T: T.zeros(3)["a"]),
    ("float_tensor", lambda T: T.zeros(3)[T.tensor([1.0])]),
    ("int16_tensor", lambda T: T.zeros(3)[T.tensor([1], dtype=T.int16)]),
    ("too_many", lambda T: T.zeros(3, 4)[0, 0, 0]),
    ("too_many_tensor", lambda T: T.zeros(3)[T.tensor([0]), T.tensor([0])]),
    ("0d_int", lambda T: T.tensor(1.0)[0]),
    ("0d_slice", lambda T: T.tensor(1.0)[:]),
    ("0d_tuple", lambda T: T.tensor(1.0)[0, 0]),
    ("mask_shape", lambda T: T.zeros(2, 3, 4)[T.tensor([True] * 5)]),
    ("mask_shape_dim1", lambda T: T.zeros(2, 3, 4)[0, T.tensor([True] * 5)]),
    ("broadcast", lambda T: T.zeros(3, 4)[T.tensor([0, 1]), T.tensor([0, 1, 2])]),
    ("float_slice", lambda T: T.zeros(3)[1.0:2]),
]


@pytest.mark.filterwarnings("ignore:Using a non-tuple sequence")  # torch reads "a" as one
@pytest.mark.parametrize("name,fn", ERRORS, ids=[c[0] for c in ERRORS])
def test_getitem_errors(name, fn):
    raises_like(lambda: fn(torch), lambda: fn(jtorch))


# ------------------------------------------------------------------------------ setitem
_ARG = object()


def _set(index, value=_ARG):
    """fn(T, x[, v]): writes v (an argument, or the constant ``value``) into a non-leaf copy
    of x."""
    def f(T, x, v=None):
        y = x * 1 if x.dtype.is_floating_point else x.clone()
        y[index] = v if value is _ARG else value
        return y
    return f


def _set_idx(T, x, i, v):
    y = x * 1
    y[i] = v
    return y


SET = [
    ("int_tensor_val", _set(1), (rand(3, 4), rand(4))),
    ("int_bcast_val", _set(1), (rand(3, 4), rand(1))),
    ("int_lead_ones_val", _set(1), (rand(3, 4), rand(1, 1, 4))),
    ("slice_step", _set((slice(None, None, 2), slice(1, None))), (rand(5, 4), rand(3, 3))),
    ("scalar", _set((0, slice(1, 3)), 2.5), (rand(3, 4),)),
    ("scalar_int_on_float", _set(-1, 3), (rand(3, 4),)),
    ("none_ellipsis", _set((None, ..., 1)), (rand(3, 4), rand(3))),
    ("ellipsis_all", _set(...), (rand(3, 4), rand(4))),
    ("full_slice", _set(slice(None)), (rand(3, 4), rand(3, 1))),
    ("0d_val", _set((1, 2)), (rand(3, 4), rand())),
    ("f64", _set(1), (rand(3, 4, dtype=F64), rand(4, dtype=F64))),
    ("cast_val", _set(1), (rand(3, 4), rand(4, dtype=F64))),
    ("int_target_float_scalar", _set(0, 2.7), (_i(3, 4),)),
    ("int_target_float_tensor", _set(0), (_i(3, 4), NoGrad(rand(4)))),
    ("bool_target", _set((0, 1), 2), (rand(3, 4, dtype=np.bool_),)),
    ("list", _set([0, 2]), (rand(3, 4), rand(2, 4))),
    ("list_bcast", _set([0, 2]), (rand(3, 4), rand(4))),
    ("list_scalar", _set(([0, 2], [1, 3]), -1.0), (rand(3, 4),)),
    ("list_dim1", _set((slice(None), [3, 0])), (rand(3, 4), rand(3, 1))),
    ("int_then_list", _set((1, [0, 2])), (rand(3, 4), rand(2))),
    ("none_list", _set((None, [0])), (rand(3, 4), rand(4))),
    ("split_adv", _set(([0, 1], slice(None), [1, 2])), (rand(3, 2, 4), rand(2, 2))),
    ("int_between", _set((slice(None), 0, slice(None), [1, 2])), (rand(2, 3, 4, 5),
                                                                   rand(2, 4, 2))),
    ("tensor_idx", _set_idx, (rand(4, 3), _i(2, 2), rand(2, 2, 3))),
    ("tensor_idx_int", lambda T, x, i: _set_idx(T, x, i, 5), (rand(4, 3), IDX)),
    ("tensor_0d_idx", _set_idx, (rand(4, 3), np.array(2), rand(3))),
    ("noncontig", lambda T, x, v: _set_idx(T, x, 1, v), (NonContig(rand(3, 4)), rand(4))),
    ("noncontig_adv", lambda T, x, v: _set_idx(T, x, [1, 0], v), (NonContig(rand(3, 4)),
                                                                  rand(4))),
    ("true_scalar", _set(True), (rand(3, 4), rand(4))),
    ("empty_list", _set([], 1.0), (rand(3, 4),)),
    # masks: NumPy constants and tensors (a where: works under jit when the value does not
    # depend on how many entries are selected)
    ("mask_np_scalar", _set(MASK3, 0.0), (rand(3, 4),)),
    ("mask_np_row", _set(MASK3), (rand(3, 4), rand(4))),
    ("mask_np_2d", _set(MASK34), (rand(3, 4, 2), rand(2))),
    ("mask_np_dim1", _set((slice(None), MASK3)), (rand(2, 3, 2), rand(2, 1, 2))),
    ("mask_tensor_scalar", lambda T, x, m: _set_idx(T, x, m, -2.0), (rand(3, 4), MASK34)),
    ("mask_tensor_val", lambda T, x, m, v: _set_idx(T, x, m > 0, v), (rand(3, 4), rand(3, 4),
                                                                      rand(1))),
    ("mask_tensor_row", lambda T, x, m, v: _set_idx(T, x, m, v), (rand(3, 4), MASK3, rand(4))),
    ("mask_0d_value_cast", lambda T, x, m, v: _set_idx(T, x, m, v),
     (rand(3, 4), MASK34, NoGrad(rand(dtype=F64)))),
]


@pytest.mark.parametrize("name,fn,args", SET, ids=[c[0] for c in SET])
def test_setitem(name, fn, args):
    parity(fn, *args)


def test_setitem_mask_values_of_selected_count():
    """Values shaped by the number of True entries: eager only (nonzero path)."""
    parity(lambda T, x, v: _set_idx(T, x, T.tensor(MASK3), v), rand(3, 4), rand(2, 4),
           jit=False)
    parity(lambda T, x, v: _set_idx(T, x, MASK34, v), rand(3, 4), rand(int(MASK34.sum())))


def test_setitem_through_views():
    def f(T, x, v):
        y = x * 1
        t = y.t()
        t[1] = v          # a view's setitem writes into its base
        z = y[1:]
        z[0, [0, 2]] = v[:2] * 2
        return y, t, z

    parity(f, rand(3, 4), rand(3))


def test_setitem_grad_fn_and_version():
    for lib in (torch, jtorch):
        x = lib.zeros(3, 4, requires_grad=True) * 1
        v0 = x._version
        x[0] = 1.0
        names = [type(x.grad_fn).__name__]
        for index, value in [([0], 2.0), ((slice(None), [1]), 2.0), (..., lib.ones(4)),
                             (slice(None), 3.0), (lib.ones(3, 4, dtype=lib.bool), 1.0)]:
            x[index] = value
            names.append(type(x.grad_fn).__name__)
        if lib is torch:
            expected, tv = names, x._version - v0
        else:
            assert names == expected
            assert x._version - v0 == tv


def test_setitem_requires_grad_from_value():
    for lib in (torch, jtorch):
        x = lib.zeros(3)
        v = lib.ones(1, requires_grad=True)
        x[1] = v[0] * 3
        assert x.requires_grad and not x.is_leaf
        x.sum().backward()
        assert v.grad.item() == 3.0


SET_ERRORS = [
    ("leaf", lambda T: T.ones(3, requires_grad=True).__setitem__([0], 1.0)),
    ("view_of_leaf", lambda T: T.ones(3, requires_grad=True).__setitem__(0, 1.0)),
    ("leaf_ellipsis", lambda T: T.ones(3, requires_grad=True).__setitem__(..., 1.0)),
    ("expand", lambda T: T.zeros(3, 4).__setitem__(0, T.ones(2))),
    ("expand_dims", lambda T: T.zeros(3, 4).__setitem__(0, T.ones(2, 4))),
    ("adv_shape", lambda T: T.zeros(3, 4).__setitem__([0, 1], T.ones(3))),
    ("adv_shape_lead", lambda T: T.zeros(3, 4).__setitem__([0], T.ones(2, 1, 4))),
    ("adv_dtype", lambda T: T.zeros(3, 4).__setitem__([0], T.ones(4, dtype=T.float64))),
    ("adv_dtype_int", lambda T: T.zeros(3, dtype=T.int64).__setitem__([0], T.tensor(1.0))),
    ("overflow_int8", lambda T: T.zeros(3, dtype=T.int8).__setitem__(0, 128)),
    ("overflow_uint8", lambda T: T.zeros(3, dtype=T.uint8).__setitem__(0, 256)),
    ("overflow_int32", lambda T: T.zeros(3, dtype=T.int32).__setitem__(0, 1e10)),
    ("overflow_long", lambda T: T.zeros(3).__setitem__(0, 2 ** 64)),
    ("overflow_float", lambda T: T.zeros(3).__setitem__(0, 1e300)),
    ("nan_to_int", lambda T: T.zeros(3, dtype=T.int64).__setitem__(0, float("nan"))),
    ("complex_to_float", lambda T: T.zeros(3).__setitem__([0], 1 + 2j)),
    ("list_value", lambda T: T.zeros(3).__setitem__(0, [1.0])),
    ("numpy_value", lambda T: T.zeros(3).__setitem__(0, np.ones(1))),
    ("oob", lambda T: T.zeros(3).__setitem__(3, 1.0)),
    ("oob_tensor", lambda T: T.zeros(3).__setitem__(T.tensor([3]), 1.0)),
    ("expanded", lambda T: T.zeros(3).expand(2, 3).__setitem__(..., 1.0)),
    ("expanded_row", lambda T: T.zeros(3, 1).expand(3, 2)[0].__setitem__(..., 1.0)),
]


@pytest.mark.parametrize("name,fn", SET_ERRORS, ids=[c[0] for c in SET_ERRORS])
def test_setitem_errors(name, fn):
    raises_like(lambda: fn(torch), lambda: fn(jtorch))


def test_setitem_unsigned_wraps_negative():
    for lib in (torch, jtorch):
        x = lib.zeros(3, dtype=lib.uint8)
        x[0] = -1
        x[1] = -128
        if lib is torch:
            expected = x.numpy()
    np.testing.assert_array_equal(x.numpy(), expected)


# ------------------------------------------------------------------------------ index_put
PUT = [
    ("index_put", lambda T, x, i, v: T.index_put(x, (i,), v), (rand(4, 3), _i(2), rand(2, 3))),
    ("index_put_two", lambda T, x, i, j, v: x.index_put((i, j), v),
     (rand(4, 3), _i(5), _i(5), rand(5))),
    ("index_put_acc_dups", lambda T, x, v: T.index_put(x, (T.tensor([0, 0, 2, 0]),), v, True),
     (rand(4, 3), rand(4, 3))),
    ("index_put_acc_bcast", lambda T, x, i, v: x.index_put((i,), v, accumulate=True),
     (rand(4, 3), _i(3), rand(3))),
    ("index_put_0d", lambda T, x, i, v: T.index_put(x, (i,), v), (rand(4, 3), np.array(1),
                                                                  rand(3))),
    ("index_put_mask", lambda T, x, v: T.index_put(x, (T.tensor(MASK34),), v),
     (rand(3, 4), rand())),
    ("index_put_mask_acc", lambda T, x, v: T.index_put(x, (T.tensor(MASK3),), v, True),
     (rand(3, 4), rand(4))),
    ("index_put_int", lambda T, x, i: T.index_put(x, (i,), T.tensor(7)), (_i(4, 3), _i(2))),
    ("index_put_", lambda T, x, i, v: (x * 1).index_put_((i,), v, accumulate=True),
     (rand(4, 3), _i(6), rand(6, 3))),
]


@pytest.mark.parametrize("name,fn,args", PUT, ids=[c[0] for c in PUT])
def test_index_put(name, fn, args):
    parity(fn, *args)


def test_index_put_errors():
    raises_like(lambda: torch.index_put(torch.zeros(3), (None,), torch.ones(1)),
                lambda: jtorch.index_put(jtorch.zeros(3), (None,), jtorch.ones(1)))
    raises_like(lambda: torch.index_put(torch.zeros(3), (torch.tensor([0]),), torch.ones(1,
                                        dtype=torch.float64)),
                lambda: jtorch.index_put(jtorch.zeros(3), (jtorch.tensor([0]),),
                                         jtorch.ones(1, dtype=jtorch.float64)))
    raises_like(lambda: torch.zeros(3, requires_grad=True).index_put_((torch.tensor([0]),),
                                                                      torch.ones(1)),
                lambda: jtorch.zeros(3, requires_grad=True).index_put_((jtorch.tensor([0]),),
                                                                       jtorch.ones(1)))


# ------------------------------------------------------------------------------ nonzero & co
NZ = [
    ("nonzero", lambda T, x: T.nonzero(x), (_i(3, 4, low=-1, high=2),)),
    ("nonzero_tuple", lambda T, x: x.nonzero(as_tuple=True), (_i(3, 4, low=-1, high=2),)),
    ("nonzero_float", lambda T, x: T.nonzero(x > 0), (rand(2, 3, 2),)),
    ("nonzero_0d", lambda T, x: T.nonzero(x), (np.array(1.5, np.float32),)),
    ("nonzero_0d_zero_tuple", lambda T, x: T.nonzero(x, as_tuple=True),
     (np.array(0, np.int64),)),
    ("nonzero_empty", lambda T, x: T.nonzero(x), (rand(0, 3),)),
    ("nonzero_bool_nc", lambda T, x: T.nonzero(x), (NonContig(rand(3, 4, dtype=np.bool_)),)),
    ("argwhere", lambda T, x: T.argwhere(x), (_i(3, 4, low=-1, high=2),)),
    ("argwhere_method", lambda T, x: x.argwhere(), (rand(3, dtype=np.bool_),)),
    ("where_1arg", lambda T, x: T.where(x > 0), (rand(3, 4),)),
    ("masked_select", lambda T, x: T.masked_select(x, x > 0), (rand(3, 4),)),
    ("masked_select_bcast", lambda T, x, m: x.masked_select(m), (rand(3, 4), MASK34[0])),
    ("masked_select_bcast_in", lambda T, x, m: T.masked_select(x, m), (rand(4), MASK34)),
    ("masked_select_f64_nc", lambda T, x, m: T.masked_select(x, m),
     (NonContig(rand(3, 4, dtype=F64)), MASK34)),
    ("masked_select_int", lambda T, x, m: T.masked_select(x, m), (_i(3, 4), MASK34)),
]


@pytest.mark.parametrize("name,fn,args", NZ, ids=[c[0] for c in NZ])
def test_nonzero_family(name, fn, args):
    parity(fn, *args, jit=False)


def test_nonzero_out_and_errors():
    a = _i(3, 4, low=-1, high=2)
    t_out, j_out = torch.empty(0, dtype=torch.int64), jtorch.empty(0, dtype=jtorch.int64)
    torch.nonzero(torch.tensor(a), out=t_out)
    jtorch.nonzero(jtorch.tensor(a), out=j_out)
    np.testing.assert_array_equal(j_out.numpy(), t_out.numpy())
    raises_like(lambda: torch.masked_select(torch.zeros(3), torch.tensor([1, 0, 1])),
                lambda: jtorch.masked_select(jtorch.zeros(3), jtorch.tensor([1, 0, 1])))
    raises_like(lambda: torch.masked_select(torch.zeros(3), torch.ones(4, dtype=torch.bool)),
                lambda: jtorch.masked_select(jtorch.zeros(3), jtorch.ones(4, dtype=jtorch.bool)))


def test_data_dependent_ops_raise_under_jit():
    import jax

    from jtorch._core.errors import TraceError

    for f in (jtorch.nonzero, jtorch.argwhere, lambda t: jtorch.masked_select(t, t > 0)):
        with pytest.raises(TraceError):
            jax.jit(lambda a, f=f: f(jtorch.Tensor._make(a))._value)(np.ones(3, np.float32))


def test_setitem_row_of_expanded():
    """A row of an expanded tensor does not overlap itself: writing to it is allowed."""
    for lib in (torch, jtorch):
        x = lib.zeros(3)
        e = x.expand(2, 3)
        e[0] = lib.tensor([1.0, 2.0, 3.0])
        if lib is torch:
            expected = x.numpy()
    np.testing.assert_array_equal(x.numpy(), expected)


def test_python_range_as_an_index():
    """``x[range(3), idx] = 1.0`` (one-hot rows), as PyTorch takes a range like a list."""
    for T in (torch, jtorch):
        x = T.zeros(4, 5)
        x[range(3), T.tensor([0, 4, 2])] = 1.0
        if T is torch:
            want = x
    assert_close(x, want)
    parity(lambda T, a: a[range(1, 4)] * 2, rand(5, 3))
