"""Generate docs/ops.md: every op PyTorch's core API names, implemented or not, parity-tested
or not.

    python scripts/gen_ops_md.py            # runs the test suite recording coverage, then writes
    python scripts/gen_ops_md.py --no-run   # reuses the last recording

"Parity-tested" means the op's kernel ran inside ``tests/helpers.parity`` (which compares with
real PyTorch, values and gradients, eagerly and under jax.jit), as recorded by the dispatcher.
Functions that are not table ops (factories, random sampling, data-dependent ops that run
eagerly) are marked "tested" when a test calls them as ``T.<name>(`` or ``.<name>(``.
"""

from __future__ import annotations

import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECORD = os.path.join(ROOT, ".ops_record")

FAMILIES = {
    "creation": "tensor as_tensor from_numpy zeros ones full empty eye arange linspace logspace "
                "zeros_like ones_like full_like empty_like rand randn randint randperm normal "
                "bernoulli multinomial rand_like randn_like randint_like",
    "pointwise": "add sub mul div true_divide floor_divide remainder fmod pow neg abs exp exp2 "
                 "expm1 log log1p log2 log10 sqrt rsqrt square sin cos tan asin acos atan atan2 "
                 "sinh cosh tanh asinh acosh atanh sigmoid logit relu erf erfc erfinv clamp clip "
                 "sign sgn floor ceil round trunc frac reciprocal lerp addcmul addcdiv where "
                 "maximum minimum fmax fmin hypot eq ne lt le gt ge isclose allclose equal "
                 "logical_and logical_or logical_xor logical_not bitwise_and bitwise_or "
                 "bitwise_xor bitwise_not bitwise_left_shift bitwise_right_shift isnan isinf "
                 "isfinite nan_to_num",
    "reduction": "sum nansum mean nanmean prod std var std_mean var_mean min max amin amax "
                 "aminmax argmin argmax logsumexp norm linalg.norm linalg.vector_norm "
                 "linalg.matrix_norm cumsum cumprod cummax cummin all any count_nonzero median "
                 "mode quantile softmax log_softmax",
    "linear algebra": "matmul mm bmm mv dot vdot outer einsum tensordot kron addmm addmv "
                      "baddbmm linalg.inv linalg.det linalg.slogdet linalg.solve linalg.svd "
                      "linalg.qr linalg.cholesky linalg.eigh linalg.pinv linalg.matrix_rank",
    "shape and movement": "view view_as reshape reshape_as flatten unflatten squeeze unsqueeze "
                          "permute transpose swapaxes t movedim expand expand_as broadcast_to "
                          "broadcast_tensors repeat repeat_interleave tile flip fliplr flipud "
                          "roll rot90 cat concat stack hstack vstack dstack split tensor_split "
                          "chunk unbind narrow select tril triu diag diag_embed diagonal trace "
                          "contiguous is_contiguous clone meshgrid cartesian_prod atleast_1d "
                          "atleast_2d atleast_3d",
    "indexing and selection": "gather scatter scatter_add scatter_reduce index_select index_add "
                              "index_copy index_fill masked_fill masked_scatter masked_select "
                              "take take_along_dim nonzero argwhere sort argsort msort topk "
                              "kthvalue unique unique_consecutive bincount histc searchsorted "
                              "bucketize nn.functional.one_hot",
}

# method-only names (Tensor.<name>) that are not torch.<name> functions
METHOD_ONLY = {"view", "view_as", "reshape_as", "expand", "expand_as", "contiguous",
               "is_contiguous"}


def resolve(name):
    import jtorch

    for root in ((jtorch.Tensor,) if name in METHOD_ONLY else (jtorch, jtorch.Tensor)):
        obj = root
        for part in name.split("."):
            obj = getattr(obj, part, None)
            if obj is None:
                break
        if obj is not None:
            return obj
    return None


def run_tests():
    for f in glob.glob(RECORD + ".*"):
        os.remove(f)
    env = dict(os.environ, JTORCH_RECORD_OPS=RECORD)
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "2", "tests"], cwd=ROOT,
                   env=env, check=False)


def recorded():
    names = set()
    for f in glob.glob(RECORD + ".*"):
        names.update(line.strip() for line in open(f) if line.strip())
    return names


def test_text():
    return "\n".join(open(f).read() for f in glob.glob(os.path.join(ROOT, "tests", "*.py")))


def status(name, rec, text):
    fn = resolve(name)
    if fn is None:
        return "no", "no"
    opdef = getattr(fn, "_opdef", None)
    short = name.rsplit(".", 1)[-1]
    if opdef is not None and opdef.name in rec:
        return "yes", "yes"
    if re.search(rf"\.{re.escape(short)}\(", text):
        return "yes", "tested" if opdef is None else "called in tests"
    return "yes", "no"


def main():
    if "--no-run" not in sys.argv:
        run_tests()
    rec, text = recorded(), test_text()
    note = "" if rec else ("\n> This version was generated without a recorded test run "
                           "(`--no-run` and no recording on disk): `called in tests` below only "
                           "says that a test calls the op; run the script without `--no-run` "
                           "to record which ops parity tests exercise.\n")
    lines = ["# Ops\n",
             "Generated by `python scripts/gen_ops_md.py` from the code and a recorded run of "
             "the test suite. **parity** = `yes`: the op ran inside `tests/helpers.parity`, "
             "which compares values, dtypes and input gradients with PyTorch 2.13, eagerly and "
             "under `jax.jit`; `tested`: a function outside the op table (factory, random "
             "sampling, data-dependent op) that tests call; `no`: not covered.\n"]
    total = impl = par = 0
    for fam, names in FAMILIES.items():
        lines.append(f"\n## {fam}\n\n| op | implemented | parity |\n|---|---|---|")
        for name in names.split():
            i, p = status(name, rec, text)
            total += 1
            impl += i == "yes"
            par += p in ("yes", "tested")
            lines.append(f"| `{name}` | {i} | {p} |")
    import jtorch
    from jtorch._ops._registry import OPS

    extra = sorted(n for n in OPS if not n.startswith("_") and
                   not any(n == x or n == x.split(".")[-1]
                           for v in FAMILIES.values() for x in v.split()))
    if note:
        lines.insert(2, note)
    lines.insert(2, f"Summary: {impl} of {total} listed ops implemented, {par} parity-tested. "
                    f"{len(OPS)} ops in the table in all; beyond the list: "
                    f"{', '.join(f'`{n}`' for n in extra)}.\n")
    out = os.path.join(ROOT, "docs", "ops.md")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {out}: {impl}/{total} implemented, {par} parity-tested")
    del jtorch


if __name__ == "__main__":
    main()
