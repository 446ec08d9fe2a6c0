"""Losses: every F.<loss> against PyTorch (values, input gradients, jit), modules, error texts.

Each parity case returns the loss for reduction 'none', 'mean' and 'sum' at once (one parity
call, one jit check, the gradient of all three checked together).
"""

import warnings

import numpy as np
import pytest
import torch
from helpers import NoGrad, NonContig, parity, raises_like, rand
from nn_helpers import module_parity

import jtorch
from tests.helpers import NoGrad as MNoGrad  # the class nn_helpers' _convert recognises

RED = ("none", "mean", "sum")


def _all(f):
    return lambda T, *a: tuple(f(T, r, *a) for r in RED)


def _idx(*shape, high, low=0, seed=3):
    return rand(*shape, dtype=np.int64, low=low, high=high, seed=seed)


def _pm1(*shape, dtype=np.float32):
    return np.where(rand(*shape, seed=5) > 0, 1, -1).astype(dtype)


def _pos(*shape, dt, low=0.1, high=1.0):
    return rand(*shape, dtype=dt, low=low, high=high)


def _cases(dt):
    r = lambda *s, **k: rand(*s, dtype=dt, **k)  # noqa: E731
    F = "nn.functional"
    t3 = np.array([1, 4, 0])
    ct = np.array([[1, 2, 2], [3, 3, 0]])
    kink = np.array([[0.5, 1.0, -1.0, 2.0], [0.0, 0.25, -0.5, 3.0]], dtype=dt)
    return {
        "mse": (lambda T, red, a, b: T.nn.functional.mse_loss(a, b, reduction=red),
                r(3, 4), NonContig(r(3, 4))),
        "mse_bcast": (lambda T, red, a, b: T.nn.functional.mse_loss(a, b, reduction=red),
                      r(3, 4), r(4)),
        "mse_weight": (lambda T, red, a, b, w: T.nn.functional.mse_loss(a, b, reduction=red,
                                                                         weight=w),
                       r(3, 4), r(3, 4), _pos(3, 4, dt=dt)),
        "l1_kink": (lambda T, red, a, b: T.nn.functional.l1_loss(a, b, reduction=red),
                    kink, np.where(kink > 1, kink, 0.5).astype(dt)),
        "l1_weight": (lambda T, red, a, b, w: T.nn.functional.l1_loss(a, b, reduction=red,
                                                                       weight=w),
                      r(3, 4), r(3, 4), _pos(3, 4, dt=dt)),
        "smooth_l1": (lambda T, red, a, b: T.nn.functional.smooth_l1_loss(a, b, reduction=red),
                      r(3, 4), r(3, 4)),
        "smooth_l1_beta_kink": (lambda T, red, a, b: T.nn.functional.smooth_l1_loss(
            a, b, reduction=red, beta=0.5), kink, np.zeros_like(kink)),
        "smooth_l1_beta0": (lambda T, red, a, b: T.nn.functional.smooth_l1_loss(
            a, b, reduction=red, beta=0.0), r(3, 4), r(3, 4)),
        "huber": (lambda T, red, a, b: T.nn.functional.huber_loss(a, b, reduction=red,
                                                                   delta=0.5),
                  kink, np.zeros_like(kink)),
        "huber_weight": (lambda T, red, a, b, w: T.nn.functional.huber_loss(
            a, b, reduction=red, weight=w), r(3, 4), r(3, 4), _pos(3, 4, dt=dt)),
        "nll": (lambda T, red, a, b: T.nn.functional.nll_loss(a, b, reduction=red),
                r(3, 5), t3),
        "nll_weight_ignore": (lambda T, red, a, b, w: T.nn.functional.nll_loss(
            a, b, w, ignore_index=4, reduction=red), r(3, 5), t3, NoGrad(_pos(5, dt=dt))),
        "nll_1d": (lambda T, red, a, b: T.nn.functional.nll_loss(a, b, reduction=red),
                   r(5), np.array(2)),
        "nll_3d": (lambda T, red, a, b: T.nn.functional.nll_loss(a, b, reduction=red),
                   r(2, 3, 4), _idx(2, 4, high=3)),
        "ce": (lambda T, red, a, b: T.nn.functional.cross_entropy(a, b, reduction=red),
               NonContig(r(3, 5)), t3),
        "ce_weight_ignore": (lambda T, red, a, b, w: T.nn.functional.cross_entropy(
            a, b, w, ignore_index=0, reduction=red), r(3, 5), t3, NoGrad(_pos(5, dt=dt))),
        "ce_1d": (lambda T, red, a, b: T.nn.functional.cross_entropy(a, b, reduction=red),
                  r(5), np.array(3)),
        "ce_4d_smooth": (lambda T, red, a, b: T.nn.functional.cross_entropy(
            a, b, reduction=red, label_smoothing=0.1), r(2, 3, 4, 2), _idx(2, 4, 2, high=3)),
        "ce_smooth_ignore": (lambda T, red, a, b: T.nn.functional.cross_entropy(
            a, b, ignore_index=4, reduction=red, label_smoothing=0.2), r(3, 5), t3),
        "ce_smooth_weight": (lambda T, red, a, b, w: T.nn.functional.cross_entropy(
            a, b, w, ignore_index=4, reduction=red, label_smoothing=0.3), r(3, 5), t3,
            NoGrad(_pos(5, dt=dt))),
        "ce_prob": (lambda T, red, a, b: T.nn.functional.cross_entropy(a, b, reduction=red),
                    r(3, 5), _pos(3, 5, dt=dt, low=0)),
        "ce_prob_weight_smooth": (lambda T, red, a, b, w: T.nn.functional.cross_entropy(
            a, b, w, reduction=red, label_smoothing=0.25), r(2, 4, 3), _pos(2, 4, 3, dt=dt),
            _pos(4, dt=dt)),
        "bce": (lambda T, red, a, b: T.nn.functional.binary_cross_entropy(a, b, reduction=red),
                _pos(3, 4, dt=dt, low=0.01, high=0.99), _pos(3, 4, dt=dt, low=0)),
        "bce_weight": (lambda T, red, a, b, w: T.nn.functional.binary_cross_entropy(
            a, b, w, reduction=red), _pos(3, 4, dt=dt, low=0.01, high=0.99),
            _pos(3, 4, dt=dt, low=0), NoGrad(_pos(4, dt=dt))),
        "bce_edges": (lambda T, red, a, b: T.nn.functional.binary_cross_entropy(
            a, b, reduction=red), np.array([0.0, 1.0, 0.5, 1e-30, 1.0], dt),
            NoGrad(np.array([0.3, 0.2, 1.0, 0.5, 1.0], dt))),
        "bce_logits": (lambda T, red, a, b: T.nn.functional.binary_cross_entropy_with_logits(
            a, b, reduction=red), r(3, 4, low=-8, high=8), _pos(3, 4, dt=dt, low=0)),
        "bce_logits_weights": (lambda T, red, a, b, w, pw:
                               T.nn.functional.binary_cross_entropy_with_logits(
                                   a, b, w, reduction=red, pos_weight=pw),
                               r(3, 4), _pos(3, 4, dt=dt, low=0), NoGrad(_pos(3, 1, dt=dt)),
                               NoGrad(_pos(4, dt=dt, high=3))),
        "kl": (lambda T, red, a, b: T.nn.functional.kl_div(a, b, reduction=red),
               r(3, 4), _pos(3, 4, dt=dt)),
        "kl_log_target_batchmean": (lambda T, red, a, b: T.nn.functional.kl_div(
            a, b, reduction="batchmean" if red == "mean" else red, log_target=True),
            r(3, 4), r(3, 4)),
        "soft_margin": (lambda T, red, a, b: T.nn.functional.soft_margin_loss(a, b,
                                                                             reduction=red),
                        r(3, 4), NoGrad(_pm1(3, 4, dtype=dt))),
        "multilabel_soft_margin": (lambda T, red, a, b, w:
                                   T.nn.functional.multilabel_soft_margin_loss(
                                       a, b, w, reduction=red),
                                   r(3, 4), _pos(3, 4, dt=dt, low=0), r(4)),
        "cosine_embedding": (lambda T, red, a, b, t: T.nn.functional.cosine_embedding_loss(
            a, b, t, margin=0.2, reduction=red), r(4, 5), r(4, 5), np.array([1, -1, -1, 1])),
        "cosine_embedding_1d": (lambda T, red, a, b, t: T.nn.functional.cosine_embedding_loss(
            a, b, t, margin=-0.5, reduction=red), r(5), r(5), np.array(-1.0, dt)),
        "margin_ranking": (lambda T, red, a, b, t: T.nn.functional.margin_ranking_loss(
            a, b, t, margin=0.1, reduction=red), r(6), r(6), _pm1(6, dtype=dt)),
        "margin_ranking_kink": (lambda T, red, a, b, t: T.nn.functional.margin_ranking_loss(
            a, b, t, margin=0.5, reduction=red), np.array([1.0, 2.0], dt),
            np.array([0.5, 1.0], dt), np.array([1.0, -1.0], dt)),
        "hinge_embedding": (lambda T, red, a, t: T.nn.functional.hinge_embedding_loss(
            a, t, margin=1.0, reduction=red), np.array([[1.0, 0.3, -2.0], [0.5, 2.0, 1.0]], dt),
            np.array([[-1.0, -1.0, 1.0], [1.0, -1.0, -1.0]], dt)),
        "triplet": (lambda T, red, a, p, n: T.nn.functional.triplet_margin_loss(
            a, p, n, reduction=red), r(4, 5), r(4, 5), r(4, 5)),
        "triplet_p1_swap": (lambda T, red, a, p, n: T.nn.functional.triplet_margin_loss(
            a, p, n, margin=2.0, p=1, swap=True, reduction=red), r(4, 5), r(4, 5), r(4, 5)),
        "triplet_p3_1d": (lambda T, red, a, p, n: T.nn.functional.triplet_margin_loss(
            a, p, n, p=3, eps=1e-3, reduction=red), r(5), r(5), r(5)),
        "triplet_distance": (lambda T, red, a, p, n:
                             T.nn.functional.triplet_margin_with_distance_loss(
                                 a, p, n, swap=True, reduction=red), r(4, 5), r(4, 5), r(4, 5)),
        "triplet_custom_distance": (lambda T, red, a, p, n:
                                    T.nn.functional.triplet_margin_with_distance_loss(
                                        a, p, n, margin=0.5, reduction=red,
                                        distance_function=lambda x, y: (x - y).abs().sum(-1)),
                                    r(4, 5), r(4, 5), r(4, 5)),
        "poisson": (lambda T, red, a, b: T.nn.functional.poisson_nll_loss(a, b, reduction=red),
                    r(3, 4), _pos(3, 4, dt=dt, high=3)),
        "poisson_full_prob": (lambda T, red, a, b: T.nn.functional.poisson_nll_loss(
            a, b, log_input=False, full=True, eps=1e-4, reduction=red),
            _pos(3, 4, dt=dt, high=3), _pos(3, 4, dt=dt, high=3)),
        "gaussian": (lambda T, red, a, b, v: T.nn.functional.gaussian_nll_loss(
            a, b, v, reduction=red), r(3, 4), r(3, 4), _pos(3, 4, dt=dt)),
        "gaussian_homo_full": (lambda T, red, a, b, v: T.nn.functional.gaussian_nll_loss(
            a, b, v, full=True, reduction=red), r(3, 4), r(3, 4), _pos(3, dt=dt)),
        "gaussian_bcast_eps": (lambda T, red, a, b, v: T.nn.functional.gaussian_nll_loss(
            a, b, v, eps=0.3, reduction=red), r(3, 4), r(3, 4), _pos(3, 1, dt=dt, low=0)),
        "gaussian_float_var": (lambda T, red, a, b: T.nn.functional.gaussian_nll_loss(
            a, b, 0.7, reduction=red), r(3, 4), r(3, 4)),
        "multilabel_margin": (lambda T, red, a, b: T.nn.functional.multilabel_margin_loss(
            a, b, reduction=red), r(3, 5),
            np.array([[1, 3, -1, 0, 0], [0, 1, 2, 3, 4], [-1, 1, 1, 1, 1]])),
        "multilabel_margin_1d": (lambda T, red, a, b: T.nn.functional.multilabel_margin_loss(
            a, b, reduction=red), r(4), np.array([2, 0, -1, 3])),
        "multi_margin": (lambda T, red, a, b: T.nn.functional.multi_margin_loss(
            a, b, reduction=red), r(3, 5), t3),
        "multi_margin_p2_weight": (lambda T, red, a, b, w: T.nn.functional.multi_margin_loss(
            a, b, p=2, margin=0.7, weight=w, reduction=red), r(3, 5), t3,
            NoGrad(_pos(5, dt=dt))),
        "ctc": (lambda T, red, a, b: T.nn.functional.ctc_loss(
            a.log_softmax(2), b, [6, 5], [3, 2], reduction=red), r(6, 2, 4), ct),
        "ctc_raw_log_probs": (lambda T, red, a, b: T.nn.functional.ctc_loss(
            a, b, T.tensor([6, 4]), T.tensor([3, 2]), reduction=red), r(6, 2, 4), ct),
        "ctc_zero_infinity": (lambda T, red, a, b: T.nn.functional.ctc_loss(
            a.log_softmax(-1), b, (2, 5), (3, 0), reduction=red, zero_infinity=True),
            r(6, 2, 4), ct),
        "ctc_concat_blank": (lambda T, red, a, b: T.nn.functional.ctc_loss(
            a.log_softmax(-1), b, T.tensor([6, 4]), T.tensor([3, 2]), blank=3,
            reduction=red), r(6, 2, 4), np.array([1, 2, 2, 0, 1])),
        "ctc_unbatched": (lambda T, red, a, b: T.nn.functional.ctc_loss(
            a.log_softmax(-1), b, T.tensor(6), T.tensor(3), reduction=red), r(6, 4),
            np.array([1, 2, 2])),
    }, F


CTC = [("ctc", RED, np.float32), ("ctc", ("sum",), np.float64),
       ("ctc_raw_log_probs", ("sum",), np.float32), ("ctc_zero_infinity", ("none",), np.float32),
       ("ctc_concat_blank", ("mean",), np.float32), ("ctc_unbatched", ("none",), np.float32)]
CASES = [(n, np.float32) for n in sorted(_cases(np.float32)[0]) if not n.startswith("ctc")]
# float64 (every kernel compiles again per dtype): one or two cases per loss, kinks included
CASES += [(n, np.float64) for n in [
    "mse_weight", "l1_kink", "smooth_l1_beta_kink", "huber_weight", "nll_weight_ignore",
    "nll_3d", "ce_smooth_weight", "ce_4d_smooth", "ce_prob_weight_smooth", "bce_weight",
    "bce_edges", "bce_logits_weights", "kl", "kl_log_target_batchmean", "soft_margin",
    "multilabel_soft_margin", "cosine_embedding", "margin_ranking_kink", "hinge_embedding",
    "triplet_p1_swap", "triplet_distance", "poisson_full_prob", "gaussian_homo_full",
    "gaussian_float_var", "multilabel_margin", "multi_margin_p2_weight"]]


def _tol(name, dtype):
    tol = {"atol": 1e-4, "rtol": 1e-4} if dtype == np.float32 else {}
    if name == "bce_edges":  # gradients ~1e11 at x = 0 and 1 (PyTorch's 1e-12 clamp)
        tol = {"rtol": 1e-4 if dtype == np.float32 else 1e-8}
    return tol


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name,dtype", CASES,
                         ids=[f"{n}-{np.dtype(d).name}" for n, d in CASES])
def test_loss_parity(name, dtype):
    fn, *args = _cases(dtype)[0][name]
    parity(_all(fn), *args, **_tol(name, dtype))


@pytest.mark.parametrize("name,reds,dtype", CTC,
                         ids=[f"{n}-{'-'.join(r)}-{np.dtype(d).name}" for n, r, d in CTC])
def test_ctc_parity(name, reds, dtype):
    """CTC kernels compile slowly (a scan and its vjp): fewer reductions per case here."""
    fn, *args = _cases(dtype)[0][name]
    parity(lambda T, *a: tuple(fn(T, r, *a) for r in reds), *args, **_tol(name, dtype))


def test_ctc_runs_under_jit_with_traced_lengths():
    """The length checks need values: with traced lengths they are skipped, the loss runs."""
    import jax

    lp = jtorch.tensor(rand(6, 2, 4)).log_softmax(2)
    tg = jtorch.tensor([[1, 2, 2], [3, 3, 0]])

    def f(il, tl):
        return jtorch.nn.functional.ctc_loss(lp, tg, jtorch.Tensor._make(il),
                                             jtorch.Tensor._make(tl))._value

    il, tl = np.array([6, 5]), np.array([3, 2])
    eager = jtorch.nn.functional.ctc_loss(lp, tg, jtorch.tensor(il), jtorch.tensor(tl))
    np.testing.assert_allclose(np.asarray(jax.jit(f)(il, tl)), eager.numpy(), rtol=1e-6)


def test_out_of_range_target_check_skipped_when_traced():
    """Eager: IndexError like PyTorch. Traced: no value, no check (documented); no crash."""
    import jax

    x = jtorch.tensor(rand(3, 5))
    with pytest.raises(IndexError, match="Target 10 is out of bounds."):
        jtorch.nn.functional.cross_entropy(x, jtorch.tensor([1, 10, 2]))
    out = jax.jit(lambda t: jtorch.nn.functional.cross_entropy(
        x, jtorch.Tensor._make(t))._value)(np.array([1, 10, 2]))
    assert np.shape(out) == ()


def test_target_check_of_a_view_while_the_queue_is_busy():
    """The bounds check reads a view target (``y.view(-1)``, ``y[:, :2]``) from its base's host
    copy when the view's own array still waits behind queued work: the same error as PyTorch
    when the view holds the bad target, the same loss when it leaves it out."""
    xn, yn = rand(6, 5), np.array([[1, 2, 10], [0, 4, 3]])
    big = jtorch.ones(400, 400)

    def run(T, view, n):
        busy = big @ big @ big if T is jtorch else None  # work queued before the view's
        loss = T.nn.functional.cross_entropy(T.tensor(xn[:n]), view(T.tensor(yn)))
        del busy
        return loss

    for view in (lambda y: y.view(-1), lambda y: y.t().reshape(-1)):
        raises_like(lambda v=view: run(torch, v, 6), lambda v=view: run(jtorch, v, 6))
    view = lambda y: y[:, :2].flatten()  # noqa: E731
    np.testing.assert_allclose(run(jtorch, view, 4).item(), run(torch, view, 4).item(), rtol=1e-6)


def test_empty_batch_mean_is_nan():
    for T in (torch, jtorch):
        x = T.zeros(0, 5)
        t = T.zeros(0, dtype=T.long)
        assert np.isnan(T.nn.functional.cross_entropy(x, t).item())
        assert np.isnan(T.nn.functional.mse_loss(T.zeros(0), T.zeros(0)).item())


def _warn_texts(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = fn()
    return out, [str(x.message) for x in w]


@pytest.mark.parametrize("size_average,reduce", [(False, None), (None, False), (True, True),
                                                 (False, True)])
def test_legacy_size_average_reduce(size_average, reduce):
    x, y = rand(3, 4), rand(3, 4)
    t = np.array([1, 0, 3])
    for name, args in [("mse_loss", (x, y)), ("nll_loss", (x, t)), ("cross_entropy", (x, t)),
                       ("soft_margin_loss", (x, np.sign(y))), ("kl_div", (x, np.abs(y)))]:
        def call(T, name=name, args=args):
            return getattr(T.nn.functional, name)(*[T.tensor(a) for a in args],
                                                  size_average=size_average, reduce=reduce)

        to, tw = _warn_texts(lambda: call(torch))
        jo, jw = _warn_texts(lambda: call(jtorch))
        np.testing.assert_allclose(jo.numpy(), to.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)
        assert jw == tw, name
    tm, tw = _warn_texts(lambda: torch.nn.MSELoss(size_average, reduce))
    jm, jw = _warn_texts(lambda: jtorch.nn.MSELoss(size_average, reduce))
    assert jm.reduction == tm.reduction and jw == tw


def test_warnings_match():
    x, y = rand(3), rand(3, 1)
    for fn in [lambda T: T.nn.functional.mse_loss(T.tensor(x), T.tensor(y)),
               lambda T: T.nn.functional.l1_loss(T.tensor(x), T.tensor(y)),
               lambda T: T.nn.functional.huber_loss(T.tensor(x), T.tensor(y)),
               lambda T: T.nn.functional.kl_div(T.tensor(x), T.tensor(x)),
               lambda T: T.nn.functional.mse_loss(T.tensor(x), T.tensor(x),
                                                  reduction="elementwise_mean")]:
        (to, tw), (jo, jw) = _warn_texts(lambda f=fn: f(torch)), \
            _warn_texts(lambda f=fn: f(jtorch))
        assert jw == tw
        np.testing.assert_allclose(jo.numpy(), to.numpy(), rtol=1e-5)


R = rand


def _err_cases():
    L = np.array
    i64 = lambda *v: L(v, dtype=np.int64)  # noqa: E731
    return {
        "ce_oob": lambda T: T.nn.functional.cross_entropy(T.tensor(R(3, 5)),
                                                          T.tensor(i64(1, 10, 2))),
        "ce_negative": lambda T: T.nn.functional.cross_entropy(T.tensor(R(3, 5)),
                                                               T.tensor(i64(1, -1, 2))),
        "ce_1d_oob": lambda T: T.nn.functional.cross_entropy(T.tensor(R(5)), T.tensor(7)),
        "ce_spatial_oob": lambda T: T.nn.functional.cross_entropy(
            T.tensor(R(2, 5, 2)), T.tensor(L([[1, 9], [8, 1]]))),
        "nll_oob": lambda T: T.nn.functional.nll_loss(T.tensor(R(3, 5)), T.tensor(i64(7, 6, -3))),
        "ce_float_target": lambda T: T.nn.functional.cross_entropy(
            T.tensor(R(3, 5)), T.tensor(L([1.0, 0, 2], np.float32))),
        "ce_int32_target": lambda T: T.nn.functional.cross_entropy(
            T.tensor(R(3, 5)), T.tensor(L([1, 0, 2], np.int32))),
        "nll_float_target": lambda T: T.nn.functional.nll_loss(
            T.tensor(R(3, 5)), T.tensor(L([1.0, 0, 2], np.float32))),
        "ce_batch": lambda T: T.nn.functional.cross_entropy(T.tensor(R(3, 5)),
                                                            T.tensor(i64(1, 0))),
        "ce_multitarget": lambda T: T.nn.functional.cross_entropy(T.tensor(R(3, 5)),
                                                                  T.tensor(R(3, 4))),
        "ce_prob_long": lambda T: T.nn.functional.cross_entropy(
            T.tensor(R(2, 5)), T.zeros(2, 5, dtype=T.long)),
        "ce_weight_size": lambda T: T.nn.functional.cross_entropy(
            T.tensor(R(2, 5)), T.tensor(i64(1, 2)), weight=T.ones(3)),
        "ce_prob_weight_size": lambda T: T.nn.functional.cross_entropy(
            T.tensor(R(2, 5)), T.tensor(R(2, 5)), weight=T.ones(3)),
        "ce_weight_dtype": lambda T: T.nn.functional.cross_entropy(
            T.tensor(R(2, 5)), T.tensor(i64(1, 2)), weight=T.ones(5, dtype=T.float64)),
        "ce_weight_requires_grad": lambda T: T.nn.functional.cross_entropy(
            T.tensor(R(2, 5)), T.tensor(i64(1, 2)), weight=T.ones(5, requires_grad=True)),
        "ce_label_smoothing": lambda T: T.nn.functional.cross_entropy(
            T.tensor(R(3, 5)), T.tensor(i64(1, 0, 2)), label_smoothing=1.5),
        "ce_0d_input": lambda T: T.nn.functional.cross_entropy(T.tensor(1.0), T.tensor(1)),
        "ce_1d_vec_target": lambda T: T.nn.functional.cross_entropy(T.tensor(R(5)),
                                                                    T.tensor(i64(1, 2))),
        "ce_3d_target": lambda T: T.nn.functional.cross_entropy(T.tensor(R(2, 5, 3)),
                                                                T.zeros(2, 4, dtype=T.long)),
        "ce_4d_target": lambda T: T.nn.functional.cross_entropy(T.tensor(R(2, 5, 3, 4)),
                                                                T.zeros(2, 3, 5, dtype=T.long)),
        "ce_4d_target_dims": lambda T: T.nn.functional.nll_loss(T.tensor(R(2, 5, 3, 4)),
                                                                T.zeros(2, 3, dtype=T.long)),
        "ce_int_input": lambda T: T.nn.functional.cross_entropy(T.ones(2, 5, dtype=T.long),
                                                                T.tensor(i64(1, 2))),
        "nll_0d": lambda T: T.nn.functional.nll_loss(T.tensor(1.0), T.tensor(1)),
        "reduction": lambda T: T.nn.functional.cross_entropy(T.tensor(R(3, 5)),
                                                             T.tensor(i64(1, 0, 2)),
                                                             reduction="foo"),
        "mse_reduction": lambda T: T.nn.functional.mse_loss(T.tensor(R(3)), T.tensor(R(3)),
                                                            reduction="foo"),
        "mse_weight_reduction": lambda T: T.nn.functional.mse_loss(
            T.tensor(R(3)), T.tensor(R(3)), reduction="foo", weight=T.ones(3)),
        "mse_weight_size": lambda T: T.nn.functional.mse_loss(T.tensor(R(3, 4)),
                                                              T.tensor(R(3, 4)),
                                                              weight=T.ones(4)),
        "mse_shape": lambda T: T.nn.functional.mse_loss(T.tensor(R(3)), T.tensor(R(5))),
        "smooth_l1_beta": lambda T: T.nn.functional.smooth_l1_loss(T.tensor(R(3)),
                                                                   T.tensor(R(3)), beta=-1),
        "huber_delta": lambda T: T.nn.functional.huber_loss(T.tensor(R(3)), T.tensor(R(3)),
                                                            delta=0),
        "bce_size": lambda T: T.nn.functional.binary_cross_entropy(T.tensor(R(3, low=0, high=1)),
                                                                   T.tensor(R(4, low=0, high=1))),
        "bce_range": lambda T: T.nn.functional.binary_cross_entropy(
            T.tensor(L([0.5, 1.5], np.float32)), T.tensor(R(2, low=0, high=1))),
        "bce_nan": lambda T: T.nn.functional.binary_cross_entropy(
            T.tensor(L([0.5, np.nan], np.float32)), T.tensor(R(2, low=0, high=1))),
        "bce_target_dtype": lambda T: T.nn.functional.binary_cross_entropy(
            T.tensor(R(3, low=0, high=1)), T.tensor(i64(1, 0, 1))),
        "bce_weight_bcast": lambda T: T.nn.functional.binary_cross_entropy(
            T.tensor(R(3, low=0, high=1)), T.tensor(R(3, low=0, high=1)), weight=T.ones(4)),
        "bce_logits_size": lambda T: T.nn.functional.binary_cross_entropy_with_logits(
            T.tensor(R(3)), T.tensor(R(4))),
        "bce_logits_pos_weight": lambda T: T.nn.functional.binary_cross_entropy_with_logits(
            T.tensor(R(3, 4)), T.tensor(R(3, 4)), pos_weight=T.ones(3)),
        "kl_shape": lambda T: T.nn.functional.kl_div(T.tensor(R(3, 4)), T.tensor(R(3, 5)),
                                                     reduction="sum"),
        "soft_margin_target_grad": lambda T: T.nn.functional.soft_margin_loss(
            T.tensor(R(3)), T.ones(3, requires_grad=True)),
        "multi_margin_p": lambda T: T.nn.functional.multi_margin_loss(T.tensor(R(3, 4)),
                                                                      T.tensor(i64(1, 2, 3)),
                                                                      p=3),
        "multi_margin_oob": lambda T: T.nn.functional.multi_margin_loss(
            T.tensor(R(3, 4)), T.tensor(i64(1, 2, 4))),
        "multi_margin_target_size": lambda T: T.nn.functional.multi_margin_loss(
            T.tensor(R(3, 4)), T.tensor(i64(1, 2))),
        "multi_margin_3d": lambda T: T.nn.functional.multi_margin_loss(
            T.tensor(R(3, 4, 2)), T.tensor(i64(1, 2, 3))),
        "multi_margin_weight": lambda T: T.nn.functional.multi_margin_loss(
            T.tensor(R(3, 4)), T.tensor(i64(1, 2, 3)), weight=T.ones(3)),
        "multi_margin_weight_2d": lambda T: T.nn.functional.multi_margin_loss(
            T.tensor(R(3, 4)), T.tensor(i64(1, 2, 3)), weight=T.ones(4, 1)),
        "multi_margin_float_target": lambda T: T.nn.functional.multi_margin_loss(
            T.tensor(R(3, 4)), T.tensor(L([1.0, 2, 3], np.float32))),
        "multilabel_margin_oob": lambda T: T.nn.functional.multilabel_margin_loss(
            T.tensor(R(2, 4)), T.tensor(L([[1, 5, -1, 0], [0, 1, 2, 3]]))),
        "multilabel_margin_shape": lambda T: T.nn.functional.multilabel_margin_loss(
            T.tensor(R(2, 4)), T.tensor(L([[1, 2, -1], [0, 1, 2]]))),
        "multilabel_margin_int32": lambda T: T.nn.functional.multilabel_margin_loss(
            T.tensor(R(2, 4)), T.tensor(L([[1, 2, -1, 0]] * 2, np.int32))),
        "cosine_3d": lambda T: T.nn.functional.cosine_embedding_loss(
            T.tensor(R(3, 4, 2)), T.tensor(R(3, 4, 2)), T.tensor(R(3, 4))),
        "cosine_1d_target": lambda T: T.nn.functional.cosine_embedding_loss(
            T.tensor(R(4)), T.tensor(R(4)), T.tensor(R(1))),
        "cosine_bcast": lambda T: T.nn.functional.cosine_embedding_loss(
            T.tensor(R(3, 4)), T.tensor(R(3, 5)), T.tensor(R(3))),
        "margin_ranking_dims": lambda T: T.nn.functional.margin_ranking_loss(
            T.tensor(R(3)), T.tensor(R(3)), T.tensor(R(3, 1))),
        "triplet_dims": lambda T: T.nn.functional.triplet_margin_loss(
            T.tensor(R(3, 4)), T.tensor(R(4)), T.tensor(R(3, 4))),
        "triplet_margin": lambda T: T.nn.functional.triplet_margin_loss(
            T.tensor(R(3, 4)), T.tensor(R(3, 4)), T.tensor(R(3, 4)), margin=0),
        "triplet_distance_reduction": lambda T: T.nn.functional.triplet_margin_with_distance_loss(
            T.tensor(R(3, 4)), T.tensor(R(3, 4)), T.tensor(R(3, 4)), reduction="x"),
        "gaussian_negative_var": lambda T: T.nn.functional.gaussian_nll_loss(
            T.tensor(R(3, 4)), T.tensor(R(3, 4)), -T.ones(3, 4)),
        "gaussian_negative_float_var": lambda T: T.nn.functional.gaussian_nll_loss(
            T.tensor(R(3, 4)), T.tensor(R(3, 4)), -1.0),
        "gaussian_var_size": lambda T: T.nn.functional.gaussian_nll_loss(
            T.tensor(R(3, 4)), T.tensor(R(3, 4)), T.ones(2, 4)),
        "gaussian_reduction": lambda T: T.nn.functional.gaussian_nll_loss(
            T.tensor(R(3, 4)), T.tensor(R(3, 4)), T.ones(3, 4), reduction="x"),
        "poisson_reduction": lambda T: T.nn.functional.poisson_nll_loss(
            T.tensor(R(3)), T.tensor(R(3)), reduction="x"),
        "multilabel_soft_margin_reduction": lambda T: T.nn.functional.multilabel_soft_margin_loss(
            T.tensor(R(3, 2)), T.tensor(R(3, 2)), reduction="x"),
        "ctc_input_length": lambda T: T.nn.functional.ctc_loss(
            T.tensor(R(6, 2, 4)), T.tensor(L([[1, 2, 3], [2, 2, 0]])), [7, 5], [3, 2]),
        "ctc_negative_input_length": lambda T: T.nn.functional.ctc_loss(
            T.tensor(R(6, 2, 4)), T.tensor(L([[1, 2, 3], [2, 2, 0]])), [6, -1], [3, 2]),
        "ctc_target_length": lambda T: T.nn.functional.ctc_loss(
            T.tensor(R(6, 2, 4)), T.tensor(L([[1, 2, 3], [2, 2, 0]])), [6, 5], [4, 2]),
        "ctc_negative_target_length": lambda T: T.nn.functional.ctc_loss(
            T.tensor(R(6, 2, 4)), T.tensor(L([[1, 2, 3], [2, 2, 0]])), [6, 5], [3, -1]),
        "ctc_lengths_size": lambda T: T.nn.functional.ctc_loss(
            T.tensor(R(6, 2, 4)), T.tensor(L([[1, 2, 3], [2, 2, 0]])), [6], [3, 2]),
        "ctc_target_lengths_size": lambda T: T.nn.functional.ctc_loss(
            T.tensor(R(6, 2, 4)), T.tensor(L([[1, 2, 3], [2, 2, 0]])), [6, 5], [3]),
        "ctc_blank": lambda T: T.nn.functional.ctc_loss(
            T.tensor(R(6, 2, 4)), T.tensor(L([[1, 2, 3], [2, 2, 0]])), [6, 5], [3, 2],
            blank=4),
        "ctc_concat_size": lambda T: T.nn.functional.ctc_loss(
            T.tensor(R(6, 2, 4)), T.tensor(L([1, 2, 3, 2])), [6, 5], [3, 2]),
        "ctc_4d": lambda T: T.nn.functional.ctc_loss(
            T.tensor(R(1, 6, 2, 4)), T.tensor(L([[1, 2, 3], [2, 2, 0]])), [6, 5], [3, 2]),
        "ctc_reduction": lambda T: T.nn.functional.ctc_loss(
            T.tensor(R(6, 2, 4)), T.tensor(L([[1, 2, 3], [2, 2, 0]])), [6, 5], [3, 2],
            reduction="x"),
        "module_multi_margin_weight": lambda T: T.nn.MultiMarginLoss(weight=T.ones(2, 2)),
        "module_triplet_margin": lambda T: T.nn.TripletMarginLoss(margin=-1),
        "module_huber_delta": lambda T: T.nn.HuberLoss(delta="1"),
    }


ERRS = _err_cases()


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", sorted(ERRS))
def test_errors_match_torch(name):
    fn = ERRS[name]
    raises_like(lambda: fn(torch), lambda: fn(jtorch))


# ------------------------------------------------------------------ modules
def _mods():
    t3 = np.array([1, 4, 0])
    w5 = rand(5, low=0.1, high=1.0)
    p01 = rand(3, 5, low=0.05, high=0.95)
    two = lambda m, x, y: m(x, y)  # noqa: E731
    three = lambda m, x, y, z: m(x, y, z)  # noqa: E731
    return {
        "L1Loss": (lambda T: T.nn.L1Loss(reduction="sum"), two, rand(3, 5), rand(3, 5)),
        "MSELoss": (lambda T: T.nn.MSELoss(), two, rand(3, 5), rand(3, 5)),
        "SmoothL1Loss": (lambda T: T.nn.SmoothL1Loss(beta=0.3), two, rand(3, 5), rand(3, 5)),
        "HuberLoss": (lambda T: T.nn.HuberLoss(delta=0.3, reduction="none"), two, rand(3, 5),
                      rand(3, 5)),
        "NLLLoss": (lambda T: T.nn.NLLLoss(weight=T.tensor(w5), ignore_index=1), two,
                    rand(3, 5), t3),
        "CrossEntropyLoss": (lambda T: T.nn.CrossEntropyLoss(weight=T.tensor(w5),
                                                             label_smoothing=0.1), two,
                             rand(3, 5), t3),
        "BCELoss": (lambda T: T.nn.BCELoss(weight=T.tensor(w5)), two, p01,
                    rand(3, 5, low=0, high=1)),
        "BCEWithLogitsLoss": (lambda T: T.nn.BCEWithLogitsLoss(
            weight=T.tensor(w5), pos_weight=T.tensor(w5 * 2)), two, rand(3, 5),
            rand(3, 5, low=0, high=1)),
        "KLDivLoss": (lambda T: T.nn.KLDivLoss(reduction="batchmean", log_target=True), two,
                      rand(3, 5), rand(3, 5)),
        "PoissonNLLLoss": (lambda T: T.nn.PoissonNLLLoss(full=True), two, rand(3, 5),
                           rand(3, 5, low=0.1, high=3)),
        "GaussianNLLLoss": (lambda T: T.nn.GaussianNLLLoss(full=True), three, rand(3, 5),
                            rand(3, 5), rand(3, 5, low=0.1, high=1)),
        "HingeEmbeddingLoss": (lambda T: T.nn.HingeEmbeddingLoss(margin=0.5), two, rand(3, 5),
                               np.sign(rand(3, 5)).astype(np.float32)),
        "MultiLabelMarginLoss": (lambda T: T.nn.MultiLabelMarginLoss(), two, rand(2, 4),
                                 np.array([[3, 0, -1, 1], [1, -1, 2, 2]])),
        "SoftMarginLoss": (lambda T: T.nn.SoftMarginLoss(), two, rand(3, 5),
                           MNoGrad(np.sign(rand(3, 5)).astype(np.float32))),
        "MultiLabelSoftMarginLoss": (lambda T: T.nn.MultiLabelSoftMarginLoss(
            weight=T.tensor(w5)), two, rand(3, 5), rand(3, 5, low=0, high=1)),
        "CosineEmbeddingLoss": (lambda T: T.nn.CosineEmbeddingLoss(margin=0.1), three,
                                rand(3, 5), rand(3, 5), np.array([1, -1, 1])),
        "MarginRankingLoss": (lambda T: T.nn.MarginRankingLoss(margin=0.2), three, rand(5),
                              rand(5), np.sign(rand(5)).astype(np.float32)),
        "MultiMarginLoss": (lambda T: T.nn.MultiMarginLoss(p=2, weight=T.tensor(w5)), two,
                            rand(3, 5), t3),
        "TripletMarginLoss": (lambda T: T.nn.TripletMarginLoss(margin=0.5, swap=True), three,
                              rand(3, 5), rand(3, 5), rand(3, 5)),
        "TripletMarginWithDistanceLoss": (lambda T: T.nn.TripletMarginWithDistanceLoss(
            distance_function=lambda a, b: (a - b).abs().sum(-1), margin=0.5), three,
            rand(3, 5), rand(3, 5), rand(3, 5)),
        "CTCLoss": (lambda T: T.nn.CTCLoss(blank=1, zero_infinity=True),
                    lambda m, x, y: m(x.log_softmax(2), y, [6, 5], [3, 2]), rand(6, 2, 4),
                    np.array([[0, 2, 2], [3, 3, 0]])),
    }


MODS = _mods()


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", sorted(MODS))
def test_module_parity_and_repr(name):
    make, call, *inputs = MODS[name]
    jm, _ = module_parity(make, *inputs, call=call)
    tm = make(torch)
    assert repr(jm) == repr(tm)
    assert jm.reduction == tm.reduction
    assert sorted(k for k, _ in jm.named_buffers()) == sorted(k for k, _ in tm.named_buffers())


@pytest.mark.parametrize("name", ["L1Loss", "NLLLoss", "PoissonNLLLoss", "GaussianNLLLoss",
                                  "KLDivLoss", "MSELoss", "BCELoss", "BCEWithLogitsLoss",
                                  "HingeEmbeddingLoss", "MultiLabelMarginLoss", "SmoothL1Loss",
                                  "HuberLoss", "SoftMarginLoss", "CrossEntropyLoss",
                                  "MultiLabelSoftMarginLoss", "CosineEmbeddingLoss",
                                  "MarginRankingLoss", "MultiMarginLoss", "TripletMarginLoss",
                                  "CTCLoss"])
def test_module_defaults(name):
    import inspect

    tm, jm = getattr(torch.nn, name)(), getattr(jtorch.nn, name)()
    assert repr(jm) == repr(tm)
    ts = inspect.signature(getattr(torch.nn, name).__init__).parameters
    js = inspect.signature(getattr(jtorch.nn, name).__init__).parameters
    assert list(js) == list(ts)
    assert [p.default for p in js.values()] == [p.default for p in ts.values()]
    for k in ("reduction", "ignore_index", "label_smoothing", "margin", "p", "eps", "swap",
              "blank", "zero_infinity", "log_input", "full", "beta", "delta", "log_target"):
        assert getattr(jm, k, None) == getattr(tm, k, None), k


def test_module_double_and_nll2d():
    module_parity(lambda T: T.nn.CrossEntropyLoss(weight=T.ones(4)), rand(3, 4, dtype=np.float64),
                  np.array([0, 3, 1]), call=lambda m, x, y: m(x, y), double=True)
    with pytest.warns(FutureWarning):
        m = jtorch.nn.NLLLoss2d()
    assert isinstance(m, jtorch.nn.NLLLoss)
