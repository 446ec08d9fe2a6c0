"""How the cost of a training step grows with work: steps/s as the batch and the width double.

    python bench/bench_scaling.py            # all points, writes docs/benchmarks.md + the PNG
    python bench/bench_scaling.py --quick    # fewer, shorter blocks
    python bench/bench_scaling.py --only mlp --no-write

The models, runners and interleaving are bench_suite.py's (its ``build``, ``handjax.make`` and
``Runner``, with a width parameter):
  mlp          784-W-W/2-10, Dropout(0.2), Adam(1e-3): W = 256, 512, 1024, 2048 at batch 64,
               and batch 64, 128, 256, 512 at W = 256
  transformer  the suite's 2-layer LM with d_model d, ff 4d, 4 heads, dropout 0.1, sequence 64,
               AdamW(1e-3): d = 64, 128, 256, 512 at batch 32, and batch 8, 16, 32, 64 at d = 128
Implementations: jtorch compiled, PyTorch eager, hand-written JAX, interleaved per point:
each repeat runs one block of steps of every implementation in turn, a block being as many
steps as take about ``--block-s`` seconds (at least one); reported are medians of per-step
times. The point shared by the two sweeps of a model is measured once. Writes the "scaling"
section of docs/benchmarks.md and docs/bench_scaling.png (log-log steps/s against batch and
against width, one panel each per model).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import bench_suite  # noqa: E402
from _page import write_section  # noqa: E402

IMPLS = ["jtorch compiled", "PyTorch eager", "hand-written JAX"]
# model -> (name of the width, the default width, the widths, the default batch, the batches)
SWEEPS = {"mlp": ("W", 256, (256, 512, 1024, 2048), 64, (64, 128, 256, 512)),
          "transformer": ("d_model", 128, (64, 128, 256, 512), 32, (8, 16, 32, 64))}
PNG = ROOT / "docs" / "bench_scaling.png"


def points(kind):
    """The (batch, width) points of ``kind``'s two sweeps, the shared one once."""
    _, w0, widths, b0, batches = SWEEPS[kind]
    return list(dict.fromkeys([(b, w0) for b in batches] + [(b0, w) for w in widths]))


def measure(kind, batch, width, repeats, block_s):
    """steps/s (median) of each implementation at one point, interleaved."""
    runners = bench_suite.make_runners(kind, {"kind": kind, "batch": batch, "width": width},
                                       IMPLS)
    sizes = {}
    for r in runners:
        r.first()
        r.block(1)  # the steady-state step time decides the block size
        sizes[r.name] = max(1, round(block_s / r.times.pop()))
    for _ in range(repeats):
        for r in runners:
            r.block(sizes[r.name])
    out = {r.name: 1 / statistics.median(r.times) for r in runners}
    print(f"{kind} batch {batch} width {width}: "
          + ", ".join(f"{k} {v:.1f}" for k, v in out.items()) + " steps/s", flush=True)
    return out


def render(results, a):
    lines = ["## Scaling with batch and width (bench/bench_scaling.py)", "",
             f"Command: `python bench/bench_scaling.py{' --quick' if a.quick else ''}`; "
             f"{bench_suite.machine_line()}.", "",
             "Training steps per second (median of interleaved blocks) as the batch doubles at "
             "the default width and as the width doubles at the default batch; the models and "
             "optimizers are the suite's (MLP 784-W-W/2-10 with Adam, transformer LM with "
             "d_model d, ff 4d, AdamW). On log-log axes a cost proportional to the work is a "
             "slope of -1 against the batch and, once the width x width matmuls dominate, "
             "about -2 against the width; flatter means a fixed per-step overhead dominates. "
             "Ratios are "
             "jtorch compiled against hand-written JAX and PyTorch eager at the same point.",
             "", "![steps/s against batch and width](bench_scaling.png)", ""]
    for kind, res in results.items():
        wname, w0, widths, b0, batches = SWEEPS[kind]
        for label, pts in ((f"batch, {wname} = {w0}", [(b, w0) for b in batches]),
                           (f"{wname}, batch = {b0}", [(b0, w) for w in widths])):
            var = label.split(",")[0]
            lines += [f"### {kind}: {label}", "",
                      f"| {var} | " + " | ".join(IMPLS) + " | jtorch / JAX | jtorch / PyTorch |",
                      "|---" * (len(IMPLS) + 3) + "|"]
            for b, w in pts:
                r = res[(b, w)]
                jt = r["jtorch compiled"]
                lines.append(f"| {b if var == 'batch' else w} | "
                             + " | ".join(f"{r[i]:.1f}" for i in IMPLS)
                             + f" | {jt / r['hand-written JAX']:.2f}x"
                             f" | {jt / r['PyTorch eager']:.2f}x |")
            lines.append("")
    return "\n".join(lines)


def plot(results, path):
    import matplotlib  # optional heavy dependency: only needed to draw the figure

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # after use("Agg"), so no display backend is chosen

    fig, axes = plt.subplots(len(results), 2, figsize=(10, 4 * len(results)), squeeze=False)
    for row, (kind, res) in zip(axes, results.items()):
        wname, w0, widths, b0, batches = SWEEPS[kind]
        for ax, xs, pts, xlabel in ((row[0], batches, [(b, w0) for b in batches],
                                     f"batch ({wname} = {w0})"),
                                    (row[1], widths, [(b0, w) for w in widths],
                                     f"{wname} (batch = {b0})")):
            for impl, marker in zip(IMPLS, "osd"):
                ax.plot(xs, [res[p][impl] for p in pts], marker=marker, label=impl)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xticks(xs, [str(x) for x in xs])
            ax.set_xlabel(xlabel)
            ax.set_ylabel("steps/s")
            ax.set_title(f"{kind}: steps/s vs {xlabel.split(' ')[0]}")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    print(f"wrote {path}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="2 repeats of ~0.05 s blocks")
    ap.add_argument("--only", choices=list(SWEEPS), default=None)
    ap.add_argument("--repeats", type=int, default=None)
    ap.add_argument("--block-s", type=float, default=None)
    ap.add_argument("--no-write", action="store_true")
    a = ap.parse_args()
    repeats = a.repeats or (2 if a.quick else 5)
    block_s = a.block_s or (0.05 if a.quick else 0.3)
    results = {}
    for kind in SWEEPS:
        if a.only and kind != a.only:
            continue
        results[kind] = {(b, w): measure(kind, b, w, repeats, block_s)
                         for b, w in points(kind)}
    text = render(results, a)
    print(text)
    if not a.no_write and not a.only:
        write_section("scaling", text)
        plot(results, PNG)


if __name__ == "__main__":
    main()
