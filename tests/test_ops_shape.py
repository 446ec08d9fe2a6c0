"""Parity of the shape and movement ops with PyTorch: values, dtypes, gradients (eager and
under jax.jit), negative dims, empty and 0-d tensors, non-contiguous inputs, errors."""

import warnings

import numpy as np
import pytest
import torch
from helpers import NoGrad, NonContig, parity, raises_like, rand

import jtorch

F32, F64 = np.float32, np.float64


_RNG = np.random.default_rng(0)
np.random.seed(0)  # the module-level inputs below are fixed


def _i(*shape):
    return _RNG.integers(-5, 5, size=shape).astype(np.int64)


def _b(*shape):
    return _RNG.random(shape) > 0.5


# (id, fn(T, *tensors), args) -- grads of every float input are compared with torch
CASES = [
    # view / reshape / flatten / unflatten / ravel
    ("view", lambda T, x: x.view(3, 8), (rand(2, 3, 4),)),
    ("view_tuple_infer", lambda T, x: x.view((-1, 4)), (rand(2, 3, 4),)),
    ("view_size", lambda T, x: x.view(T.Size([4, 6])), (rand(2, 3, 4),)),
    ("view_0d", lambda T, x: x.view(1, 1), (rand(),)),
    ("view_to_0d", lambda T, x: x.view(()), (rand(1, 1),)),
    ("view_empty", lambda T, x: x.view(2, 0, 3), (rand(0, 4),)),
    ("view_nc_split", lambda T, x: x.view(3, 2, 4), (NonContig(rand(3, 8)),)),
    ("view_int", lambda T, x: x.view(-1), (_i(2, 3),)),
    ("view_as", lambda T, x, y: x.view_as(y), (rand(2, 6), NoGrad(rand(3, 4)))),
    ("reshape", lambda T, x: T.reshape(x, (4, -1)), (rand(2, 3, 4),)),
    ("reshape_method_args", lambda T, x: x.reshape(6, 4), (rand(2, 3, 4),)),
    ("reshape_nc_copy", lambda T, x: x.reshape(-1), (NonContig(rand(3, 4)),)),
    ("reshape_nc_view", lambda T, x: x.reshape(2, 2, 3), (NonContig(rand(3, 4)),)),
    ("reshape_bool", lambda T, x: x.reshape(3, 2), (_b(2, 3),)),
    ("reshape_as", lambda T, x, y: x.reshape_as(y), (NonContig(rand(3, 4)), NoGrad(rand(12)))),
    ("flatten", lambda T, x: T.flatten(x), (rand(2, 3, 4),)),
    ("flatten_range", lambda T, x: x.flatten(1, -1), (rand(2, 3, 4),)),
    ("flatten_neg", lambda T, x: x.flatten(-3, -2), (rand(2, 3, 4),)),
    ("flatten_same", lambda T, x: x.flatten(1, 1), (rand(2, 3, 4),)),
    ("flatten_0d", lambda T, x: x.flatten(), (rand(),)),
    ("flatten_nc", lambda T, x: x.flatten(), (NonContig(rand(2, 3, 4)),)),
    ("flatten_empty", lambda T, x: x.flatten(0, 1), (rand(0, 3, 2),)),
    ("unflatten", lambda T, x: x.unflatten(1, (2, 3)), (rand(2, 6),)),
    ("unflatten_infer", lambda T, x: T.unflatten(x, -1, (-1, 2)), (NonContig(rand(3, 4)),)),
    ("ravel", lambda T, x: T.ravel(x), (rand(2, 3),)),
    ("ravel_nc", lambda T, x: x.ravel(), (NonContig(rand(2, 3)),)),
    # squeeze / unsqueeze
    ("squeeze", lambda T, x: x.squeeze(), (rand(1, 3, 1, 2),)),
    ("squeeze_dim", lambda T, x: T.squeeze(x, -2), (rand(1, 3, 1, 2),)),
    ("squeeze_dim_nop", lambda T, x: x.squeeze(1), (rand(1, 3, 1, 2),)),
    ("squeeze_tuple", lambda T, x: x.squeeze((0, 1, 2)), (rand(1, 3, 1, 2),)),
    ("squeeze_0d", lambda T, x: x.squeeze(0), (rand(),)),
    ("squeeze_empty", lambda T, x: x.squeeze(), (rand(0, 1),)),
    ("unsqueeze", lambda T, x: x.unsqueeze(1), (rand(2, 3),)),
    ("unsqueeze_end", lambda T, x: T.unsqueeze(x, -1), (NonContig(rand(2, 3)),)),
    ("unsqueeze_0d", lambda T, x: x.unsqueeze(0), (rand(),)),
    ("unsqueeze_int", lambda T, x: x.unsqueeze(0), (_i(3),)),
    # permutations
    ("permute", lambda T, x: x.permute(2, 0, 1), (rand(2, 3, 4),)),
    ("permute_tuple", lambda T, x: T.permute(x, (-1, 0, 1)), (rand(2, 3, 4),)),
    ("permute_0d", lambda T, x: x.permute(()), (rand(),)),
    ("transpose", lambda T, x: T.transpose(x, 0, -1), (rand(2, 3, 4),)),
    ("transpose_nc", lambda T, x: x.transpose(1, 0), (NonContig(rand(2, 3)),)),
    ("swapaxes", lambda T, x: T.swapaxes(x, 0, 1), (rand(2, 3, 4),)),
    ("swapdims", lambda T, x: x.swapdims(-1, 1), (rand(2, 3, 4),)),
    ("t", lambda T, x: x.t(), (rand(2, 3),)),
    ("t_1d", lambda T, x: T.t(x), (rand(3),)),
    ("t_0d", lambda T, x: x.t(), (rand(),)),
    ("T", lambda T, x: x.T, (rand(2, 3),)),
    ("mT", lambda T, x: x.mT, (rand(2, 3, 4),)),
    ("H", lambda T, x: x.H, (rand(2, 3),)),
    ("mH", lambda T, x: x.mH, (rand(5, 2, 3),)),
    ("adjoint", lambda T, x: T.adjoint(x), (rand(2, 3, 4),)),
    ("adjoint_method", lambda T, x: x.adjoint(), (rand(2, 3),)),
    ("movedim", lambda T, x: T.movedim(x, 0, -1), (rand(2, 3, 4),)),
    ("movedim_tuple", lambda T, x: x.movedim((0, 1), (2, 0)), (rand(2, 3, 4),)),
    ("moveaxis", lambda T, x: T.moveaxis(x, -1, 0), (NonContig(rand(2, 3, 4)),)),
    ("permute_bool", lambda T, x: x.permute(1, 0), (_b(2, 3),)),
    # expand / broadcast
    ("expand", lambda T, x: x.expand(2, 3, 4), (rand(3, 1),)),
    ("expand_keep", lambda T, x: x.expand(-1, 4), (rand(3, 1),)),
    ("expand_tuple", lambda T, x: x.expand((5, 3, 2)), (rand(3, 2),)),
    ("expand_0d", lambda T, x: x.expand(2, 2), (rand(),)),
    ("expand_empty", lambda T, x: x.expand(0, 3), (rand(1, 3),)),
    ("expand_as", lambda T, x, y: x.expand_as(y), (rand(1, 3), NoGrad(rand(2, 3)))),
    ("broadcast_to", lambda T, x: T.broadcast_to(x, (2, -1, 3)), (rand(4, 1),)),
    ("broadcast_to_method", lambda T, x: x.broadcast_to((3, 2, 2)), (NonContig(rand(1, 2)),)),
    ("broadcast_tensors", lambda T, x, y, z: T.broadcast_tensors(x, y, z),
     (rand(3, 1), rand(4), rand(2, 1, 1))),
    ("broadcast_tensors_same", lambda T, x, y: T.broadcast_tensors(x, y), (rand(2, 3), rand(3))),
    ("expand_int", lambda T, x: x.expand(2, 3), (_i(3),)),
    # repeat / tile / repeat_interleave
    ("repeat", lambda T, x: x.repeat(2, 1, 3), (rand(2, 3),)),
    ("repeat_tuple", lambda T, x: x.repeat((2, 2)), (NonContig(rand(2, 3)),)),
    ("repeat_zero", lambda T, x: x.repeat(0, 2), (rand(2, 3),)),
    ("repeat_0d", lambda T, x: x.repeat(3), (rand(),)),
    ("repeat_bool", lambda T, x: x.repeat(2, 2), (_b(2, 3),)),
    ("tile", lambda T, x: T.tile(x, (2,)), (rand(2, 3),)),
    ("tile_more", lambda T, x: x.tile(2, 1, 2), (rand(2, 3),)),
    ("tile_empty_dims", lambda T, x: x.tile(()), (rand(2, 3),)),
    ("repeat_interleave", lambda T, x: x.repeat_interleave(2), (rand(2, 3),)),
    ("repeat_interleave_dim", lambda T, x: T.repeat_interleave(x, 3, dim=-1), (rand(2, 3),)),
    ("repeat_interleave_0d", lambda T, x: x.repeat_interleave(2), (rand(),)),
    ("repeat_interleave_t_out", lambda T, x: x.repeat_interleave(
        T.tensor([1, 0, 2]), dim=1, output_size=3), (rand(2, 3),)),
    ("repeat_interleave_t1_out", lambda T, x: x.repeat_interleave(
        T.tensor([2]), dim=0, output_size=6), (NonContig(rand(3, 2)),)),
    ("repeat_interleave_int", lambda T, x: x.repeat_interleave(2, dim=0), (_i(2, 3),)),
    # flip / roll / rot90
    ("flip", lambda T, x: T.flip(x, (0, -1)), (rand(2, 3, 4),)),
    ("flip_method", lambda T, x: x.flip(1), (NonContig(rand(2, 3)),)),
    ("flip_0d", lambda T, x: x.flip(0), (rand(),)),
    ("flip_none", lambda T, x: T.flip(x, ()), (rand(2, 3),)),
    ("flip_bool", lambda T, x: x.flip(0), (_b(3, 2),)),
    ("fliplr", lambda T, x: T.fliplr(x), (rand(2, 3, 2),)),
    ("flipud", lambda T, x: x.flipud(), (rand(3, 2),)),
    ("roll", lambda T, x: T.roll(x, 2), (rand(2, 3),)),
    ("roll_dim", lambda T, x: x.roll(-1, 1), (rand(2, 3),)),
    ("roll_dims", lambda T, x: x.roll((1, 5), (0, -1)), (NonContig(rand(2, 3)),)),
    ("roll_empty", lambda T, x: x.roll(1, 0), (rand(0, 3),)),
    ("roll_int", lambda T, x: x.roll(1), (_i(2, 3),)),
    ("rot90", lambda T, x: T.rot90(x), (rand(2, 3),)),
    ("rot90_k2", lambda T, x: x.rot90(2, (1, 2)), (rand(2, 3, 4),)),
    ("rot90_k3", lambda T, x: x.rot90(-1, [-1, 0]), (rand(2, 3),)),
    ("rot90_k0", lambda T, x: x.rot90(4), (rand(2, 3),)),
    ("rot90_int", lambda T, x: x.rot90(1), (_i(2, 3),)),
    # cat / stack family
    ("cat", lambda T, x, y: T.cat([x, y]), (rand(2, 3), rand(1, 3))),
    ("cat_dim", lambda T, x, y: T.cat((x, y), dim=-1), (rand(2, 3), NonContig(rand(2, 2)))),
    ("cat_promote", lambda T, x, y: T.cat([x, y], 1), (rand(2, 3), _i(2, 1))),
    ("cat_promote_f64", lambda T, x, y: T.cat([x, y]), (rand(2, 3), rand(1, 3, dtype=F64))),
    ("cat_int_bool", lambda T, x, y: T.concat([x, y]), (_i(2).astype(np.int32), _b(3))),
    ("cat_skip_empty", lambda T, x, y, z: T.cat([x, y, z], 1), (rand(0), rand(2, 3), rand(2, 1))),
    ("cat_skip_empty_promote", lambda T, x, y: T.cat([x, y]), (_i(0), rand(2))),
    ("cat_all_empty", lambda T, x, y: T.cat([x, y], 3), (rand(0), rand(0))),
    ("cat_empty_2d", lambda T, x, y: T.concatenate([x, y]), (rand(0, 3), rand(2, 3))),
    ("cat_single", lambda T, x: T.cat([x]), (rand(2, 3),)),
    ("stack", lambda T, x, y: T.stack([x, y]), (rand(2, 3), rand(2, 3))),
    ("stack_dim", lambda T, x, y: T.stack((x, y), -1), (rand(2, 3), NonContig(rand(2, 3)))),
    ("stack_0d", lambda T, x, y: T.stack([x, y]), (rand(), rand())),
    ("stack_promote", lambda T, x, y: T.stack([x, y], 1), (rand(2), _i(2))),
    ("hstack", lambda T, x, y: T.hstack([x, y]), (rand(2, 3), rand(2, 1))),
    ("hstack_1d", lambda T, x, y: T.hstack((x, y)), (rand(2), rand(3))),
    ("hstack_0d", lambda T, x, y: T.hstack([x, y]), (rand(), rand(2))),
    ("vstack", lambda T, x, y: T.vstack([x, y]), (rand(3), rand(2, 3))),
    ("row_stack", lambda T, x, y: T.row_stack([x, y]), (rand(), rand())),
    ("dstack", lambda T, x, y, z: T.dstack([x, y, z]), (rand(3), rand(1, 3), rand(1, 3, 2))),
    ("column_stack", lambda T, x, y, z: T.column_stack([x, y, z]), (rand(3), rand(3, 2), rand(3))),
    ("column_stack_0d", lambda T, x, y: T.column_stack([x, y]), (rand(), rand(1))),
    # split family
    ("split", lambda T, x: T.split(x, 2), (rand(5, 3),)),
    ("split_dim", lambda T, x: x.split(2, -1), (rand(2, 5),)),
    ("split_sizes", lambda T, x: T.split(x, [1, 0, 4]), (NonContig(rand(5, 2)),)),
    ("split_with_sizes", lambda T, x: x.split_with_sizes([2, 1]), (rand(3, 2),)),
    ("split_empty", lambda T, x: x.split(0), (rand(0, 2),)),
    ("split_big", lambda T, x: x.split(10), (rand(3, 2),)),
    ("chunk", lambda T, x: T.chunk(x, 3), (rand(7, 2),)),
    ("chunk_dim", lambda T, x: x.chunk(4, -1), (rand(2, 6),)),
    ("chunk_empty", lambda T, x: x.chunk(3), (rand(0, 2),)),
    ("chunk_int", lambda T, x: x.chunk(2), (_i(5),)),
    ("unbind", lambda T, x: T.unbind(x), (rand(3, 2),)),
    ("unbind_dim", lambda T, x: x.unbind(-1), (NonContig(rand(3, 2)),)),
    ("unbind_empty", lambda T, x: x.unbind(1), (rand(2, 0),)),
    ("tensor_split", lambda T, x: T.tensor_split(x, 3), (rand(7, 2),)),
    ("tensor_split_idx", lambda T, x: x.tensor_split([1, 4], dim=1), (rand(2, 6),)),
    ("tensor_split_idx_odd", lambda T, x: x.tensor_split([4, 2, -1, 9]), (rand(6),)),
    ("tensor_split_many", lambda T, x: x.tensor_split(5), (rand(3),)),
    ("hsplit", lambda T, x: T.hsplit(x, 2), (rand(3, 4),)),
    ("hsplit_1d", lambda T, x: x.hsplit([1, 3]), (rand(5),)),
    ("vsplit", lambda T, x: T.vsplit(x, [1]), (rand(3, 4),)),
    ("dsplit", lambda T, x: x.dsplit(2), (rand(2, 1, 4),)),
    ("narrow", lambda T, x: T.narrow(x, 1, 1, 2), (rand(2, 4),)),
    ("narrow_neg", lambda T, x: x.narrow(-1, -3, 2), (NonContig(rand(2, 4)),)),
    ("narrow_empty", lambda T, x: x.narrow(0, 4, 0), (rand(4, 2),)),
    ("select", lambda T, x: T.select(x, 1, 2), (rand(2, 4),)),
    ("select_neg", lambda T, x: x.select(-1, -1), (NonContig(rand(4, 2)),)),
    ("select_1d", lambda T, x: x.select(0, 1), (rand(3),)),
    ("select_bool", lambda T, x: x.select(0, 1), (_b(3, 2),)),
    ("unfold", lambda T, x: x.unfold(1, 2, 1), (rand(2, 5),)),
    ("unfold_step", lambda T, x: x.unfold(0, 2, 3), (rand(7, 2),)),
    ("unfold_neg", lambda T, x: x.unfold(-1, 3, 2), (NonContig(rand(2, 7)),)),
    ("unfold_0d", lambda T, x: x.unfold(0, 1, 1), (rand(),)),
    ("unfold_size0", lambda T, x: x.unfold(0, 0, 1), (rand(3),)),
    ("as_strided", lambda T, x: T.as_strided(x, (3, 3), (1, 1)), (rand(12),)),
    ("as_strided_of_view", lambda T, x: x.t().as_strided((2, 2), (2, 1), 1), (rand(3, 4),)),
    ("as_strided_nc", lambda T, x: x.as_strided((2, 3), (1, 2)), (NonContig(rand(3, 4)),)),
    ("as_strided_default_offset", lambda T, x: x.select(0, 1).as_strided((2,), (2,)),
     (rand(3, 4),)),
    # triangles and diagonals
    ("tril", lambda T, x: T.tril(x), (rand(3, 4),)),
    ("tril_k", lambda T, x: x.tril(-1), (rand(2, 3, 4),)),
    ("triu", lambda T, x: T.triu(x, 1), (NonContig(rand(4, 3)),)),
    ("triu_big_k", lambda T, x: x.triu(-5), (rand(3, 3),)),
    ("tril_bool", lambda T, x: x.tril(), (_b(3, 3),)),
    ("triu_int_empty", lambda T, x: x.triu(), (_i(0, 3),)),
    ("diag_vec", lambda T, x: T.diag(x), (rand(3),)),
    ("diag_vec_k", lambda T, x: x.diag(-2), (rand(3),)),
    ("diag_mat", lambda T, x: T.diag(x, 1), (rand(3, 4),)),
    ("diag_mat_nc", lambda T, x: x.diag(), (NonContig(rand(3, 4)),)),
    ("diag_mat_far", lambda T, x: x.diag(7), (rand(3, 4),)),
    ("diag_int", lambda T, x: x.diag(), (_i(3),)),
    ("diag_embed", lambda T, x: T.diag_embed(x), (rand(2, 3),)),
    ("diag_embed_off", lambda T, x: x.diag_embed(1, 0, 2), (rand(2, 3),)),
    ("diag_embed_neg", lambda T, x: x.diag_embed(-2, -1, 0), (rand(2, 3),)),
    ("diag_embed_1d", lambda T, x: x.diag_embed(), (rand(3),)),
    ("diagonal", lambda T, x: T.diagonal(x), (rand(3, 4),)),
    ("diagonal_off", lambda T, x: x.diagonal(1, -1, 0), (rand(2, 3, 4),)),
    ("diagonal_neg", lambda T, x: x.diagonal(offset=-1, dim1=1, dim2=2),
     (NonContig(rand(2, 3, 4)),)),
    ("diagonal_far", lambda T, x: x.diagonal(9), (rand(3, 4),)),
    ("trace", lambda T, x: T.trace(x), (rand(3, 4),)),
    ("trace_nc", lambda T, x: x.trace(), (NonContig(rand(3, 4)),)),
    ("trace_int", lambda T, x: x.trace(), (_i(3, 3).astype(np.int32),)),
    ("trace_empty", lambda T, x: x.trace(), (rand(0, 3),)),
    # contiguous / clone / grids
    ("contiguous", lambda T, x: x.contiguous(), (rand(2, 3),)),
    ("contiguous_nc", lambda T, x: x.contiguous(), (NonContig(rand(2, 3)),)),
    ("clone", lambda T, x: T.clone(x), (NonContig(rand(2, 3)),)),
    ("clone_int", lambda T, x: x.clone(), (_i(2, 3),)),
    ("meshgrid_ij", lambda T, x, y: T.meshgrid(x, y, indexing="ij"), (rand(2), rand(3))),
    ("meshgrid_xy", lambda T, x, y, z: T.meshgrid([x, y, z], indexing="xy"),
     (rand(2), rand(3), rand(4))),
    ("meshgrid_0d", lambda T, x, y: T.meshgrid(x, y, indexing="ij"), (rand(), rand(3))),
    ("meshgrid_one", lambda T, x: T.meshgrid(x, indexing="xy"), (rand(3),)),
    ("cartesian_prod", lambda T, x, y: T.cartesian_prod(x, y), (rand(2), rand(3))),
    ("cartesian_prod_3", lambda T, x, y, z: T.cartesian_prod(x, y, z), (_i(2), _i(1), _i(3))),
    ("cartesian_prod_1", lambda T, x: T.cartesian_prod(x), (rand(3),)),
    ("atleast_1d", lambda T, x: T.atleast_1d(x), (rand(),)),
    ("atleast_1d_many", lambda T, x, y: T.atleast_1d(x, y), (rand(), rand(2, 3))),
    ("atleast_2d", lambda T, x, y: T.atleast_2d((x, y)), (rand(), rand(3))),
    ("atleast_3d", lambda T, x, y, z: T.atleast_3d([x, y, z]), (rand(), rand(3), rand(2, 3))),
    ("atleast_3d_4d", lambda T, x: T.atleast_3d(x), (rand(1, 2, 3, 4),)),
    ("keyword_forms", lambda T, x: (
        x.flip(dims=(0,)), x.permute(dims=(1, 0)), x.reshape(shape=(3, 2)), x.tile(dims=(2,)),
        x.repeat(repeats=(2, 1)), x.unsqueeze(0).expand(size=(4, 2, 3)),
        T.transpose(x, dim0=1, dim1=0), x.narrow(dim=1, start=1, length=1),
        x.select(dim=0, index=1), x.diagonal(offset=1, dim1=1, dim2=0)), (rand(2, 3),)),
]


def _with_dtype(args, dtype):
    def conv(a):
        if isinstance(a, np.ndarray) and a.dtype.kind == "f":
            return a.astype(dtype)
        if isinstance(a, NonContig) and a.array.dtype.kind == "f":
            out = object.__new__(NonContig)
            out.array = a.array.astype(dtype)
            return out
        if isinstance(a, NoGrad) and a.array.dtype.kind == "f":
            return NoGrad(a.array.astype(dtype))
        return a
    return tuple(conv(a) for a in args)


# float64 reruns of a sample of the cases (the ops are dtype-agnostic; this checks nothing
# silently becomes float32 and that promotion picks float64)
F64_CASES = {"view", "reshape_nc_copy", "flatten_nc", "squeeze_tuple", "unsqueeze_end",
             "permute", "transpose_nc", "T", "mH", "movedim_tuple", "expand", "broadcast_tensors",
             "repeat", "tile_more", "repeat_interleave_dim", "flip", "roll_dims", "rot90_k3",
             "cat_dim", "cat_promote", "cat_skip_empty", "stack_dim", "stack_promote",
             "dstack", "column_stack", "split_sizes", "chunk", "unbind_dim", "tensor_split_idx",
             "narrow_neg", "select_neg", "unfold_neg", "triu", "diag_mat_nc", "diag_embed_off",
             "diagonal_neg", "trace_nc", "contiguous_nc", "meshgrid_xy", "cartesian_prod",
             "atleast_3d"}
PARAMS = [pytest.param(name, fn, args, F32, id=name) for name, fn, args in CASES] + \
         [pytest.param(name, fn, args, F64, id=name + "-f64") for name, fn, args in CASES
          if name in F64_CASES]


@pytest.mark.filterwarnings("ignore:The use of `x.T`")
@pytest.mark.parametrize("name,fn,args,dtype", PARAMS)
def test_parity(name, fn, args, dtype):
    parity(fn, *_with_dtype(args, dtype))


def test_f64_cases_exist():
    assert F64_CASES <= {c[0] for c in CASES}


def test_tensor_valued_arguments_eager():
    # repeats / indices / start given as tensors are read eagerly (see the traced test below)
    parity(lambda T, x: x.repeat_interleave(T.tensor([1, 0, 2]), dim=0), rand(3, 2), jit=False)
    parity(lambda T, x: x.repeat_interleave(T.tensor([1, 0, 2, 1, 1, 3])), rand(3, 2),
           jit=False)
    parity(lambda T, x: T.repeat_interleave(x, T.tensor(2)), rand(2, 3), jit=False)
    parity(lambda T, x: T.repeat_interleave(x, T.tensor([3], dtype=T.int32), dim=1),
           rand(2, 3), jit=False)
    r = parity(lambda T, x: T.repeat_interleave(T.tensor([1, 3, 0, 2])), rand(1), jit=False)
    assert r.dtype == jtorch.int64
    parity(lambda T, x: x.tensor_split(T.tensor([1, 3])), rand(5), jit=False)
    parity(lambda T, x: x.tensor_split(T.tensor(2), 1), rand(2, 5), jit=False)
    parity(lambda T, x: x.narrow(0, T.tensor(1), 2), rand(4, 2), jit=False)
    parity(lambda T, x: x.select(T.tensor(1), T.tensor(-1)), rand(4, 2), jit=False)
    parity(lambda T, x: x.split(T.tensor(2)), rand(5), jit=False)


def test_mH_complex_values():
    x = rand(2, 3, 4, dtype=np.complex64)
    for f in [lambda t: t.mH, lambda t: t.adjoint(), lambda t: t[0].H]:
        t = f(torch.tensor(x)).resolve_conj()
        j = f(jtorch.tensor(x))
        assert j.dtype == jtorch.complex64
        np.testing.assert_array_equal(j.numpy(), t.numpy())


def test_repeat_interleave_traced_needs_output_size():
    import jax

    from jtorch._core.errors import TraceError

    def f(a, r):
        x, rep = jtorch.Tensor._make(a), jtorch.Tensor._make(r)
        return x.repeat_interleave(rep)._value

    with pytest.raises(TraceError, match="repeat_interleave"):
        jax.jit(f)(np.ones(3, np.float32), np.array([1, 2, 0]))


def test_T_on_other_ndims_warns():
    # PyTorch warns once per process, so compare shapes with torch and the text with its own
    for shape, text in [((), "Tensor.T is deprecated on 0-D tensors"),
                        ((3,), "The use of `x.T` on tensors of dimension other than 2"),
                        ((2, 3, 4), "The use of `x.T` on tensors of dimension other than 2")]:
        with pytest.warns(UserWarning, match=text.replace("(", r"\(").replace("`", ".")):
            j = jtorch.zeros(shape).T
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert tuple(j.shape) == tuple(torch.zeros(shape).T.shape)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jtorch.zeros(2, 3).T  # noqa: B018 - no warning for 2-D


def test_meshgrid_warns_without_indexing():
    with pytest.warns(UserWarning, match="it will be required to pass the indexing argument"):
        g = jtorch.meshgrid(jtorch.zeros(2), jtorch.zeros(3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.meshgrid(torch.zeros(2), torch.zeros(3))
    assert [tuple(x.shape) for x in g] == [tuple(x.shape) for x in t]


def test_meshgrid_rejects_2d():
    with pytest.raises(RuntimeError, match="Expected 0D or 1D tensor in the tensor list"):
        jtorch.meshgrid(jtorch.zeros(2, 3), indexing="ij")


def test_broadcast_shapes():
    for shapes in [((2,), (3, 1), (1, 1, 1)), ((), (2, 3)), (3, (2, 1)), ((0, 1), (4,)),
                   (torch.Size([2, 1]), [1, 5]), ()]:
        assert jtorch.broadcast_shapes(*shapes) == torch.broadcast_shapes(*shapes)
        assert type(jtorch.broadcast_shapes(*shapes)).__name__ == "Size"


def test_out_and_inplace_forms():
    for name in ["cat", "stack", "hstack", "vstack", "dstack", "column_stack"]:
        ta, tb = torch.ones(2, 3), torch.zeros(2, 3)
        ja, jb = jtorch.ones(2, 3), jtorch.zeros(2, 3)
        to, jo = torch.empty(0), jtorch.empty(0)
        getattr(torch, name)([ta, tb], out=to)
        getattr(jtorch, name)([ja, jb], out=jo)
        np.testing.assert_array_equal(jo.numpy(), to.numpy())
    x = rand(3, 3)
    for name in ["tril", "triu"]:
        t, j = torch.tensor(x), jtorch.tensor(x)
        getattr(t, name + "_")(1)
        getattr(j, name + "_")(1)
        np.testing.assert_array_equal(j.numpy(), t.numpy())
        to, jo = torch.empty(3, 3), jtorch.empty(3, 3)
        getattr(torch, name)(torch.tensor(x), -1, out=to)
        getattr(jtorch, name)(jtorch.tensor(x), -1, out=jo)
        np.testing.assert_array_equal(jo.numpy(), to.numpy())
    for args in [(rand(3),), (rand(3, 4), 1)]:
        to, jo = torch.empty(0), jtorch.empty(0)
        torch.diag(torch.tensor(args[0]), *args[1:], out=to)
        jtorch.diag(jtorch.tensor(args[0]), *args[1:], out=jo)
        np.testing.assert_array_equal(jo.numpy(), to.numpy())
    for name, a in [("flip", ((0,),)), ("roll", (1,)), ("rot90", ()), ("clone", ()),
                    ("trace", ()), ("diag_embed", ()), ("tile", ((2,),))]:
        # PyTorch has no out= on these: neither has jtorch
        with pytest.raises(TypeError, match="unexpected keyword argument 'out'"):
            getattr(torch, name)(torch.ones(2, 2), *a, out=torch.empty(0))
        with pytest.raises(TypeError, match="unexpected keyword argument 'out'"):
            getattr(jtorch, name)(jtorch.ones(2, 2), *a, out=jtorch.empty(0))


def test_swapaxes_and_swapdims_take_their_own_keyword_names():
    """torch.swapaxes/Tensor.swapaxes(_) take NumPy's ``axis0``/``axis1``, swapdims(_) and
    transpose(_) ``dim0``/``dim1``: values, strides, the view's base and the gradient as PyTorch."""
    x = rand(2, 3, 4)
    t = torch.tensor(x, requires_grad=True)
    j = jtorch.tensor(x, requires_grad=True)
    forms = [lambda T, a: T.swapaxes(a, axis0=0, axis1=2),
             lambda T, a: a.swapaxes(axis1=-1, axis0=1),
             lambda T, a: T.swapdims(a, dim0=0, dim1=1), lambda T, a: a.swapdims(dim1=2, dim0=0)]
    for k, form in enumerate(forms):
        rt, rj = form(torch, t), form(jtorch, j)
        np.testing.assert_array_equal(rj.detach().numpy(), rt.detach().numpy())
        assert rj.stride() == rt.stride() and rj._base is j
        (rt * (k + 1)).sum().backward()
        (rj * (k + 1)).sum().backward()
    np.testing.assert_array_equal(j.grad.numpy(), t.grad.numpy())
    for T in (torch, jtorch):
        a = T.ones(2, 3)
        assert a.swapaxes_(axis0=0, axis1=1).stride() == (1, 3)
        assert a.swapdims_(dim0=0, dim1=1).stride() == (3, 1)
    for T in (torch, jtorch):   # swapaxes has no dim0/dim1 (PyTorch's wording is its binder's)
        with pytest.raises(TypeError, match="swapaxes"):
            T.swapaxes(T.ones(2, 3), dim0=0, dim1=1)


def test_a_float_dim_is_a_type_error():
    """A dim that is not an integer raises TypeError, as PyTorch's argument parser does (jtorch's
    wording is Python's: "'float' object cannot be interpreted as an integer")."""
    for fn in (lambda T, x: x.transpose(0.5, 1), lambda T, x: x.unsqueeze(0.5),
               lambda T, x: x.select(1.0, 0), lambda T, x: T.softmax(x, 0.5),
               lambda T, x: x.cumsum(0.5), lambda T, x: x.movedim(0.5, 1)):
        for T in (torch, jtorch):
            with pytest.raises(TypeError):
                fn(T, T.ones(2, 3))


GRAD_FNS = [
    ("view", lambda T, x: x.view(6)), ("reshape", lambda T, x: x.reshape(3, 2)),
    ("reshape_copy", lambda T, x: x.t().reshape(6)), ("flatten", lambda T, x: x.flatten()),
    ("unflatten", lambda T, x: x.unflatten(1, (3, 1))), ("ravel", lambda T, x: x.ravel()),
    ("squeeze", lambda T, x: x.squeeze()), ("squeeze1", lambda T, x: x.squeeze(0)),
    ("squeeze2", lambda T, x: x.squeeze((0,))), ("unsqueeze", lambda T, x: x.unsqueeze(0)),
    ("permute", lambda T, x: x.permute(1, 0)), ("transpose", lambda T, x: x.transpose(0, 1)),
    ("swapaxes", lambda T, x: x.swapaxes(0, 1)), ("t", lambda T, x: x.t()),
    ("T", lambda T, x: x.T), ("mT", lambda T, x: x.mT), ("mH", lambda T, x: x.mH),
    ("movedim", lambda T, x: x.movedim(0, 1)), ("expand", lambda T, x: x.expand(4, 2, 3)),
    ("expand_as", lambda T, x: x.expand_as(T.zeros(2, 2, 3))),
    ("broadcast_to", lambda T, x: T.broadcast_to(x, (2, 2, 3))),
    ("narrow", lambda T, x: x.narrow(1, 0, 2)), ("select", lambda T, x: x.select(1, 0)),
    ("diagonal", lambda T, x: x.diagonal()), ("split", lambda T, x: x.split(1)[1]),
    ("split_sizes", lambda T, x: x.split([2, 1], 1)[0]), ("chunk", lambda T, x: x.chunk(2)[0]),
    ("unbind", lambda T, x: x.unbind()[0]), ("tensor_split", lambda T, x: x.tensor_split(2)[0]),
    ("hsplit", lambda T, x: x.hsplit(3)[0]), ("unfold", lambda T, x: x.unfold(1, 2, 1)),
    ("contiguous", lambda T, x: x.t().contiguous()), ("clone", lambda T, x: x.clone()),
    ("cat", lambda T, x: T.cat([x, x])), ("stack", lambda T, x: T.stack([x, x])),
    ("hstack", lambda T, x: T.hstack([x, x])), ("repeat", lambda T, x: x.repeat(2, 1)),
    ("tile", lambda T, x: x.tile(2)), ("flip", lambda T, x: x.flip(0)),
    ("fliplr", lambda T, x: x.fliplr()), ("roll", lambda T, x: x.roll(1)),
    ("rot90", lambda T, x: x.rot90()), ("tril", lambda T, x: x.tril()),
    ("diag", lambda T, x: x.diag()), ("diag1d", lambda T, x: x[0].diag()),
    ("diag_embed", lambda T, x: x.diag_embed()), ("trace", lambda T, x: x.trace()),
    ("repeat_interleave", lambda T, x: x.repeat_interleave(2)),
    ("repeat_interleave_t", lambda T, x: x.repeat_interleave(T.tensor([1, 2]), dim=0)),
    ("meshgrid", lambda T, x: T.meshgrid(x[0], x[1], indexing="ij")[0]),
    ("cartesian_prod", lambda T, x: T.cartesian_prod(x[0], x[1])),
    ("atleast_2d", lambda T, x: T.atleast_2d(x[0, 0])),
    ("atleast_3d", lambda T, x: T.atleast_3d(x)),
    ("as_strided", lambda T, x: x.as_strided((2, 2), (1, 1))),
]


@pytest.mark.parametrize("name,fn", GRAD_FNS, ids=[g[0] for g in GRAD_FNS])
def test_grad_fn_names(name, fn):
    x = rand(2, 3)
    t = torch.tensor(x, requires_grad=True) * 1
    j = jtorch.tensor(x, requires_grad=True) * 1
    assert fn(jtorch, j).grad_fn.name() == fn(torch, t).grad_fn.name()


def test_identity_returns():
    x = jtorch.zeros(2, 3)
    assert x.flatten(1, 1) is x
    assert x.contiguous() is x
    assert jtorch.atleast_1d(x) is x and jtorch.atleast_2d(x) is x
    y = jtorch.zeros(3)
    a, b = jtorch.broadcast_tensors(x, y)
    assert a is x and b._base is y
    assert jtorch.cartesian_prod(y) is y
    c = x.t().contiguous()
    assert c._base is None and c.is_contiguous()


X = np.zeros((2, 3), np.float32)
S = np.zeros((), np.float32)
ERRORS = [
    lambda T: T.tensor(X).view(4, -1), lambda T: T.tensor(X).view(-1, -1),
    lambda T: T.tensor(X).view(-2, 3), lambda T: T.zeros(0, 3).view(-1, 0),
    lambda T: T.tensor(X).t().view(6), lambda T: T.tensor(X).reshape(7),
    lambda T: T.tensor(X).flatten(1, 0), lambda T: T.tensor(X).flatten(2),
    lambda T: T.tensor(X).unflatten(1, ()), lambda T: T.tensor(X).unflatten(1, (2, 2)),
    lambda T: T.tensor(X).unflatten(1, (2, -1)), lambda T: T.tensor(X).unflatten(1, (-1, -1)),
    lambda T: T.tensor(X).squeeze(2), lambda T: T.tensor(X).squeeze((0, 5)),
    lambda T: T.tensor(X).unsqueeze(3), lambda T: T.tensor(X).permute(0),
    lambda T: T.tensor(X).permute(0, 0), lambda T: T.tensor(X).permute(0, 2),
    lambda T: T.tensor(X).transpose(0, 2), lambda T: T.zeros(2, 3, 4).t(),
    lambda T: T.zeros(3).mT, lambda T: T.zeros(3).mH, lambda T: T.zeros(2, 3, 4).H,
    lambda T: T.zeros(3).H, lambda T: T.zeros(3).adjoint(),
    lambda T: T.tensor(X).movedim(0, 5), lambda T: T.tensor(X).movedim((0, 1), (0,)),
    lambda T: T.tensor(X).movedim((0, 0), (0, 1)), lambda T: T.tensor(X).movedim((0, 1), (1, 1)),
    lambda T: T.tensor(X).expand(4), lambda T: T.tensor(X).expand(2, 5),
    lambda T: T.tensor(X).expand(-1, 2, 3), lambda T: T.tensor(X).expand(2, -2),
    lambda T: T.broadcast_to(T.tensor(X), (3,)),
    lambda T: T.broadcast_tensors(T.zeros(2, 3), T.zeros(4)),
    lambda T: T.broadcast_shapes((2, 3), (4,)), lambda T: T.broadcast_shapes((2, 3), -1),
    lambda T: T.broadcast_shapes((1, 3), (5, 1), (4, 1)),
    lambda T: T.tensor(X).repeat(2), lambda T: T.tensor(X).repeat(-1, 2),
    lambda T: T.tensor(X).tile(-1),
    lambda T: T.tensor(X).repeat_interleave(-1),
    lambda T: T.tensor(X).repeat_interleave(2, dim=2),
    lambda T: T.tensor(X).repeat_interleave(T.tensor([1, 2]), dim=1),
    lambda T: T.tensor(X).repeat_interleave(T.tensor([1, -2]), dim=0),
    lambda T: T.tensor(X).repeat_interleave(T.tensor([[1, 2]]), dim=0),
    lambda T: T.tensor(X).repeat_interleave(T.tensor([1.0, 2]), dim=0),
    lambda T: T.tensor(X).repeat_interleave(T.tensor([1, 2]), dim=0, output_size=4),
    lambda T: T.tensor(X).repeat_interleave(T.tensor([1, 2])),
    lambda T: T.repeat_interleave(T.tensor([[1, 2]])),
    lambda T: T.tensor(X).flip(0, 0), lambda T: T.tensor(X).flip(0, -2),
    lambda T: T.tensor(X).flip(2), lambda T: T.zeros(3).fliplr(), lambda T: T.tensor(S).flipud(),
    lambda T: T.tensor(X).roll(1, (0, 1)), lambda T: T.tensor(X).roll((1, 1), (0,)),
    lambda T: T.tensor(X).roll(()), lambda T: T.tensor(X).roll(1, 2),
    lambda T: T.tensor(X).rot90(1, (0, 1, 2)), lambda T: T.zeros(3).rot90(),
    lambda T: T.tensor(X).rot90(1, (0, 2)), lambda T: T.tensor(X).rot90(1, (0, 0)),
    lambda T: T.tensor(X).rot90(1, (0, -2)),
    lambda T: T.cat([T.tensor(X), T.zeros(2, 3, 1)]), lambda T: T.cat([T.zeros(3), T.tensor(X)]),
    lambda T: T.cat([T.tensor(X), T.tensor(X)], 2),
    lambda T: T.cat([T.zeros(0, 3), T.tensor(X)], 1),
    lambda T: T.cat((T.tensor(X), T.tensor(S))), lambda T: T.cat([]),
    lambda T: T.cat(T.tensor(X)), lambda T: T.stack([T.tensor(X), T.zeros(2, 2)]),
    lambda T: T.stack([]), lambda T: T.stack([T.tensor(X)], dim=3), lambda T: T.hstack([]),
    lambda T: T.column_stack([T.tensor(S), T.zeros(3)]),
    lambda T: T.tensor(X).split(0), lambda T: T.tensor(X).split(-1),
    lambda T: T.tensor(X).split([1, 2, -1], 1), lambda T: T.tensor(X).split([1, 1], 1),
    lambda T: T.tensor(S).split(1), lambda T: T.tensor(X).chunk(0), lambda T: T.tensor(S).chunk(1),
    lambda T: T.tensor(S).unbind(), lambda T: T.tensor(X).unbind(2),
    lambda T: T.tensor(X).tensor_split(0), lambda T: T.tensor(S).tensor_split(1),
    lambda T: T.tensor(X).tensor_split(T.tensor([[1]])),
    lambda T: T.tensor(X).tensor_split(T.tensor([1.0])),
    lambda T: T.tensor(X).hsplit(2), lambda T: T.tensor(S).hsplit(1),
    lambda T: T.zeros(3).vsplit(2), lambda T: T.tensor(X).dsplit(1),
    lambda T: T.tensor(X).narrow(0, 3, 1), lambda T: T.tensor(X).narrow(0, -3, 1),
    lambda T: T.tensor(X).narrow(0, 1, 2), lambda T: T.tensor(X).narrow(0, 0, -1),
    lambda T: T.tensor(S).narrow(0, 0, 1), lambda T: T.tensor(X).select(0, 2),
    lambda T: T.tensor(X).select(1, -4), lambda T: T.tensor(S).select(0, 0),
    lambda T: T.tensor(X).diagonal(0, 0, 0), lambda T: T.tensor(X).diagonal(0, 0, 2),
    lambda T: T.tensor(X).unfold(1, 4, 1), lambda T: T.tensor(X).unfold(1, 2, 0),
    lambda T: T.tensor(X).unfold(2, 1, 1), lambda T: T.tensor(X).unfold(1, -1, 1),
    lambda T: T.zeros(3).tril(), lambda T: T.tensor(S).triu(),
    lambda T: T.diag(T.zeros(2, 2, 2)), lambda T: T.diag(T.tensor(S)),
    lambda T: T.tensor(S).diag_embed(), lambda T: T.tensor(X).diag_embed(0, 0, 0),
    lambda T: T.tensor(X).diag_embed(0, 0, 3), lambda T: T.zeros(3).trace(),
    lambda T: T.zeros(2, 2, 2).trace(), lambda T: T.zeros(2, 2, dtype=T.bool).trace(),
    lambda T: T.meshgrid([T.zeros(2), T.zeros(3)], indexing="foo"),
    lambda T: T.meshgrid(indexing="ij"),
    lambda T: T.meshgrid(T.zeros(2), T.zeros(2, dtype=T.float64), indexing="ij"),
    lambda T: T.tensor(X).select(-1, 5), lambda T: T.tensor(X).narrow(-1, 1, 5),
    lambda T: T.tensor(X).split([1, 1], -1), lambda T: T.tensor(X).unflatten(-1, (2, 2)),
    lambda T: T.tensor(X).unfold(-1, 5, 1), lambda T: T.cat([T.tensor(X), T.zeros(3, 3)], -1),
    lambda T: T.tensor(X).repeat_interleave(T.tensor([1, 2]), dim=-1),
    lambda T: T.tensor(X).flip(), lambda T: T.tensor(X).permute(), lambda T: T.tensor(X).tile(),
    lambda T: T.tensor(X).reshape(), lambda T: T.tensor(X).repeat(), lambda T: T.tensor(X).expand(),
    lambda T: T.tensor(X).as_strided((4, 4), (4, 1)),
    lambda T: T.tensor(X).as_strided((4,), (1, -1)),
    lambda T: T.tensor(X).as_strided((4,), (-1,)),
    lambda T: T.tensor(X).as_strided((2, 2), (0, 2)).add_(1),
    lambda T: T.cartesian_prod(T.tensor(X)),
    lambda T: T.cartesian_prod(T.zeros(2), T.zeros(2, dtype=T.int32)),
]


@pytest.mark.parametrize("fn", ERRORS, ids=[f"e{i}" for i in range(len(ERRORS))])
def test_errors(fn):
    raises_like(lambda: fn(torch), lambda: fn(jtorch))
