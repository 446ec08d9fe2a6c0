"""LBFGS: PyTorch's algorithm in eager Python (its control flow reads loss and curvature
values), with the flattening, parameter updates and vector maths on jax arrays; 0-d values
that PyTorch keeps as tensors stay 0-d arrays of the parameter dtype, so the float32
arithmetic is PyTorch's."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .._core.state import grad_mode
from .._tensor import Tensor
from . import _transforms as transforms
from .optimizer import Optimizer, check_lr, closure_with_grad

__all__ = ["LBFGS"]


def _cubic_arrays(x1, f1, g1, x2, f2, g2, bounds=None):
    if bounds is not None:
        lo, hi = bounds
    else:
        lo, hi = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square >= 0:
        d2 = jnp.sqrt(d2_square)
        if x1 <= x2:
            pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(pos, lo), hi)
    return (lo + hi) / 2.0


def _strong_wolfe_arrays(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9,
                         tolerance_change=1e-9, max_ls=25):
    """PyTorch's strong-Wolfe line search on jax arrays; ``br``, ``br_f``, ``br_g``, ``br_gtd``
    are its ``bracket`` (two step sizes around the minimum) and their losses, gradients and
    directional derivatives; ``low``/``high`` index the bracket's lower/higher loss."""
    d_norm = jnp.max(jnp.abs(d))
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = jnp.dot(g_new, d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            br, br_f, br_g, br_gtd = [t_prev, t], [f_prev, f_new], [g_prev, g_new], \
                [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            br, br_f, br_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            br, br_f, br_g, br_gtd = [t_prev, t], [f_prev, f_new], [g_prev, g_new], \
                [gtd_prev, gtd_new]
            break
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = _cubic_arrays(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                          bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new, gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = jnp.dot(g_new, d)
        ls_iter += 1
    if ls_iter == max_ls:
        br, br_f, br_g = [0, t], [f, f_new], [g, g_new]
    insuf_progress = False
    low, high = (0, 1) if br_f[0] <= br_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(br[1] - br[0]) * d_norm < tolerance_change:
            break
        t = _cubic_arrays(br[0], br_f[0], br_gtd[0], br[1], br_f[1], br_gtd[1])
        eps = 0.1 * (max(br) - min(br))
        if min(max(br) - t, t - min(br)) < eps:
            if insuf_progress or t >= max(br) or t <= min(br):
                t = max(br) - eps if abs(t - max(br)) < abs(t - min(br)) else min(br) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = jnp.dot(g_new, d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= br_f[low]:
            br[high], br_f[high], br_g[high], br_gtd[high] = t, f_new, g_new, gtd_new
            low, high = (0, 1) if br_f[0] <= br_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (br[high] - br[low]) >= 0:
                br[high], br_f[high], br_g[high], br_gtd[high] = \
                    br[low], br_f[low], br_g[low], br_gtd[low]
            br[low], br_f[low], br_g[low], br_gtd[low] = t, f_new, g_new, gtd_new
    return br_f[low], br_g[low], br[low], ls_func_evals


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """``torch.optim.lbfgs._cubic_interpolate`` on Tensors or floats, as libraries call it
    (pytorch-minimize's line searches): a Tensor where PyTorch's gives one."""
    bounds = None if bounds is None else tuple(_as_array(b) for b in bounds)
    return _as_tensors(_cubic_arrays(*(_as_array(v) for v in (x1, f1, g1, x2, f2, g2)),
                                     bounds=bounds))


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    """``torch.optim.lbfgs._strong_wolfe`` on Tensors, as libraries call it (pytorch-minimize):
    ``obj_func(x, t, d)`` gets ``x`` and ``d`` as given and returns (loss, flat gradient);
    returns (loss, gradient, step, evaluations) with Tensors where PyTorch's has them."""
    def on_arrays(_x, t_, _d):
        f_new, g_new = obj_func(x, _as_tensors(t_), d)
        return _as_array(f_new), _as_array(g_new)

    f, g, t, evals = _strong_wolfe_arrays(
        on_arrays, x, _as_array(t), _as_array(d), _as_array(f), _as_array(g), _as_array(gtd),
        c1, c2, tolerance_change, max_ls)
    return _as_tensors(f), _as_tensors(g), _as_tensors(t), evals


@jax.jit
def _flatten(arrays):
    return jnp.concatenate([jnp.ravel(_real_view(a)) for a in arrays])


def _real_view(a):
    return jnp.stack([a.real, a.imag], -1) if jnp.iscomplexobj(a) else a


@jax.jit
def _add_flat(params, step, flat):
    out, off = [], 0
    for p in params:
        r = _real_view(p)
        n = r.size
        r = r + step * flat[off:off + n].reshape(r.shape).astype(r.dtype)
        off += n
        out.append((r[..., 0] + 1j * r[..., 1]).astype(p.dtype) if jnp.iscomplexobj(p) else r)
    return out


def _as_array(x):
    """A state value as LBFGS computes with it: a tensor's array (other values as they are)."""
    return x._value if isinstance(x, Tensor) else x


def _as_tensors(x):
    """Arrays (also in a list) as the tensors LBFGS keeps in its state."""
    if isinstance(x, jax.Array):
        return Tensor._make(x)
    if isinstance(x, list):
        return [_as_tensors(v) for v in x]
    return x


class LBFGS(Optimizer):
    """``torch.optim.LBFGS`` (one parameter group; ``step(closure)`` is required)."""

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(params, {"lr": lr, "max_iter": max_iter, "max_eval": max_eval,
                                  "tolerance_grad": tolerance_grad,
                                  "tolerance_change": tolerance_change,
                                  "history_size": history_size,
                                  "line_search_fn": line_search_fn})
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _flat_grad(self):
        return _flatten([p._grad._value if p._grad is not None else transforms.zeros_like(p._value)
                         for p in self._params])

    def _add_grad(self, step, flat):
        for p, v in zip(self._params, _add_flat([p._value for p in self._params], step, flat)):
            transforms.write(p, v)

    def _evaluate(self, closure, x, t, d):
        self._add_grad(t, d)
        loss = float(closure_with_grad(closure))
        g = self._flat_grad()
        for p, v in zip(self._params, x):
            transforms.write(p, v)
        return loss, g

    def step(self, closure):
        """One LBFGS step (up to ``max_iter`` iterations); returns the first loss."""
        with grad_mode(False):
            return self._step(closure)

    def _step(self, closure):
        group = self.param_groups[0]
        lr = group["lr"]
        if isinstance(lr, Tensor):   # (a 1-element tensor lr: its value)
            lr = float(lr)
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tol_grad, tol_change = group["tolerance_grad"], group["tolerance_change"]
        history_size = group["history_size"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = closure_with_grad(closure)
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if jnp.max(jnp.abs(flat_grad)) <= tol_grad:
            return orig_loss
        d, t = _as_array(state.get("d")), _as_array(state.get("t"))
        old_dirs = [_as_array(v) for v in state.get("old_dirs") or []]
        old_stps = [_as_array(v) for v in state.get("old_stps") or []]
        ro = [_as_array(v) for v in state.get("ro") or []]
        h_diag = _as_array(state.get("H_diag"))
        prev_flat_grad = _as_array(state.get("prev_flat_grad"))
        prev_loss = state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro, h_diag = [], [], [], 1
            else:
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = jnp.dot(y, s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / jnp.dot(y, y)
                num_old = len(old_dirs)
                al = [None] * history_size
                q = -flat_grad
                for i in range(num_old - 1, -1, -1):
                    al[i] = jnp.dot(old_stps[i], q) * ro[i]
                    q = q + old_dirs[i] * -al[i]
                d = r = q * h_diag
                for i in range(num_old):
                    be_i = jnp.dot(old_dirs[i], r) * ro[i]
                    r = r + old_stps[i] * (al[i] - be_i)
                d = r
                state["al"] = _as_tensors(al)
            prev_flat_grad = flat_grad
            prev_loss = loss
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / jnp.sum(jnp.abs(flat_grad))) * lr
            else:
                t = lr
            gtd = jnp.dot(flat_grad, d)
            if gtd > -tol_change:
                break
            ls_evals = 0
            if group["line_search_fn"] is not None:
                if group["line_search_fn"] != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = [p._value for p in self._params]
                loss, flat_grad, t, ls_evals = _strong_wolfe_arrays(
                    lambda x, t_, d_: self._evaluate(closure, x, t_, d_), x_init, t, d, loss,
                    flat_grad, gtd, max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = jnp.max(jnp.abs(flat_grad)) <= tol_grad
            else:
                self._add_grad(t, d)
                if n_iter != max_iter:
                    loss = float(closure_with_grad(closure))
                    flat_grad = self._flat_grad()
                    opt_cond = jnp.max(jnp.abs(flat_grad)) <= tol_grad
                    ls_evals = 1
            current_evals += ls_evals
            state["func_evals"] += ls_evals
            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if jnp.max(jnp.abs(d * t)) <= tol_change:
                break
            if abs(loss - prev_loss) < tol_change:
                break
        state.update({"d": _as_tensors(d), "t": _as_tensors(t),
                      "old_dirs": _as_tensors(old_dirs), "old_stps": _as_tensors(old_stps),
                      "ro": _as_tensors(ro), "H_diag": _as_tensors(h_diag),
                      "prev_flat_grad": _as_tensors(prev_flat_grad), "prev_loss": prev_loss})
        return orig_loss
