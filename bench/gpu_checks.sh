#!/usr/bin/env bash
# The GPU checks, for a machine with a CUDA GPU, JAX's CUDA plugin, optax, flax and a CUDA
# PyTorch (the reference), run from the repository root. Two parts, each under 10 minutes (on an
# H200 part 1 took 6.2 minutes, part 2 4.3 with the checkpoint benchmark cut off at 70 s):
#   bash bench/gpu_checks.sh 1   # versions, the fp32 suite
#   bash bench/gpu_checks.sh 2   # tests/test_cuda.py, recompilations of a compiled step,
#                                # checkpoint memory, the suite under bf16 autocast
#   bash bench/gpu_checks.sh suite    # one lease's two calls: versions, tests/test_cuda.py
#   bash bench/gpu_checks.sh bf16     # and every fp32 row; then every bf16 row and
#                                     # checkpointing's memory (about 4 + 5 minutes on an H200)
#   bash bench/gpu_checks.sh profile   # where a step's host time goes (bench/profile_step.py):
#                                      # eager, compiled and hand-written JAX steps, and eager
#                                      # first calls with XLA:GPU's autotuning off
#   bash bench/gpu_checks.sh recheck   # after changes: the fp32 suite (no flax row),
#                                      # tests/test_cuda.py, the MLP's eager step profiled
#                                      # (about 7 minutes; CALL_BUFFERS=1 adds a jitted call's
#                                      # cost per array)
# Logs and the rewritten docs/benchmarks.md go to $OUT (default gpu-out/).
# Run it on the working tree as it was copied: the device's copy of .git can be older than the
# tree (one lease's `git checkout HEAD -- jtorch` there put back an older jtorch).
set -uo pipefail
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
PY=${PYTHON:-python3}
if [ "${1:-1}" = profile ]; then
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 | tee "$OUT/env.txt"
    prof() {   # name, then profile_step.py's arguments
        local name=$1; shift
        timeout 120 $PY bench/profile_step.py --device gpu --top 30 "$@" > "$OUT/prof_$name.log" 2>&1
        echo "== $name (rc $?)"; head -3 "$OUT/prof_$name.log"
    }
    for mode in eager compiled handjax; do prof "mlp64_$mode" --kind mlp --mode $mode; done
    XLA_FLAGS=--xla_gpu_autotune_level=0 prof mlp64_eager_autotune0 --kind mlp --mode eager
    # the eager step without the host reads of cross_entropy's target bounds check
    timeout 120 $PY - --device gpu --kind mlp --mode eager --top 30 > "$OUT/prof_mlp64_eager_nocheck.log" 2>&1 <<'PY'
import sys
sys.path.insert(0, "bench")
import jtorch._ops.nn_loss as L
L._check_targets = lambda *a: None
import profile_step
profile_step.main()
PY
    echo "== mlp64_eager_nocheck"; head -3 "$OUT/prof_mlp64_eager_nocheck.log"
    for mode in eager compiled; do prof "cnn_$mode" --kind cnn --mode $mode; done
    for mode in compiled handjax; do prof "transformer_$mode" --kind transformer --batch 32 --mode $mode; done
elif [ "${1:-1}" = recheck ]; then
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 | tee "$OUT/env.txt"
    JAX_PLATFORMS=cuda,cpu timeout 120 $PY -m pytest -q -p no:cacheprovider -p no:benchmark \
        -W "ignore::DeprecationWarning" tests/test_cuda.py 2>&1 | tail -15 | tee "$OUT/test_cuda.log"
    timeout 330 $PY bench/bench_suite.py --device gpu --quick 2>&1 | tee "$OUT/suite.log"
    cp docs/benchmarks.md "$OUT/benchmarks.md"
    if [ -n "${CALL_BUFFERS:-}" ]; then
        timeout 40 $PY bench/bench_call_buffers.py 2>&1 | tee "$OUT/call_buffers.log"
    fi
    timeout 60 $PY bench/profile_step.py --device gpu --kind mlp --mode eager --top 30 \
        > "$OUT/prof_mlp64_eager.log" 2>&1; head -3 "$OUT/prof_mlp64_eager.log"
elif [ "${1:-1}" = suite ]; then
    # a whole lease's first call: versions, tests/test_cuda.py, every fp32 row (no flax)
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 | tee "$OUT/env.txt"
    $PY -c "import jax, optax, torch; print('jax', jax.__version__, jax.devices(), 'optax',
optax.__version__, 'torch', torch.__version__, 'torch cuda', torch.cuda.is_available())" \
        2>&1 | tee -a "$OUT/env.txt"
    JAX_PLATFORMS=cuda,cpu timeout 100 $PY -m pytest -q -p no:cacheprovider -p no:benchmark \
        -W "ignore::DeprecationWarning" tests/test_cuda.py 2>&1 | tail -15 | tee "$OUT/test_cuda.log"
    timeout 330 $PY bench/bench_suite.py --device gpu --quick 2>&1 | tee "$OUT/suite.log"
elif [ "${1:-1}" = bf16 ]; then
    # its second call: every row under bf16 autocast, then checkpointing's memory on the GPU
    # (XLA's memory analysis; autotuning off to fit the lease: a matmul's workspace may differ)
    timeout 250 $PY bench/bench_suite.py --device gpu --amp-only --quick 2>&1 \
        | tee "$OUT/suite_bf16.log"
    XLA_FLAGS=--xla_gpu_autotune_level=0 timeout 80 $PY bench/bench_checkpoint_memory.py \
        --device gpu 2>&1 | tee "$OUT/ckpt.log"
elif [ "${1:-1}" = 1 ]; then
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 | tee "$OUT/env.txt"
    $PY -c "import jax, optax, torch; print('jax', jax.__version__, jax.devices(), 'optax',
optax.__version__, 'torch', torch.__version__, 'torch cuda', torch.cuda.is_available())" \
        2>&1 | tee -a "$OUT/env.txt"
    timeout 330 $PY bench/bench_suite.py --device gpu --flax --quick 2>&1 | tee "$OUT/suite.log"
else
    JAX_PLATFORMS=cuda,cpu timeout 130 $PY -m pytest -q -p no:cacheprovider -p no:benchmark \
        -W "ignore::DeprecationWarning" \
        tests/test_cuda.py 2>&1 | tee "$OUT/test_cuda.log"
    # which calls of a compiled step compile (jtorch's guards, then JAX's cache misses)
    JTORCH_LOGS=recompiles JAX_EXPLAIN_CACHE_MISSES=1 timeout 40 $PY - <<'PY' 2>&1 \
        | tee "$OUT/recompiles.log"
import time, jtorch as T
m = T.nn.Sequential(T.nn.Flatten(), T.nn.Linear(784, 256), T.nn.ReLU(), T.nn.Linear(256, 10))
m.to("cuda")
opt = T.optim.Adam(m.parameters(), lr=1e-3)
def step(x, y):
    opt.zero_grad(); loss = T.nn.functional.cross_entropy(m(x), y); loss.backward(); opt.step()
    return loss
f = T.compile(step)
x, y = T.randn(64, 1, 28, 28, device="cuda"), T.randint(0, 10, (64,), device="cuda")
for i in range(3):
    t = time.perf_counter(); loss = f(x, y); v = loss.item()
    print(f"call {i + 1}: {time.perf_counter() - t:.3f} s, loss {v:.4f} on {loss.device}")
PY
    timeout 150 $PY bench/bench_checkpoint_memory.py --device gpu 2>&1 | tee "$OUT/ckpt.log"
    timeout 150 $PY bench/bench_suite.py --device gpu --amp-only --quick \
        --skip "jtorch eager,torch.compile" 2>&1 | tee "$OUT/suite_bf16.log"
fi
cp docs/benchmarks.md "$OUT/benchmarks.md"
