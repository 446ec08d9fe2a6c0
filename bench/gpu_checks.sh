#!/usr/bin/env bash
# The GPU checks, for a machine with a CUDA GPU, JAX's CUDA plugin, optax, flax and a CUDA
# PyTorch (the reference), run from the repository root. Two parts, each under 10 minutes (on an
# H200 part 1 took 6.2 minutes, part 2 4.3 with the checkpoint benchmark cut off at 70 s):
#   bash bench/gpu_checks.sh 1   # versions, the fp32 suite
#   bash bench/gpu_checks.sh 2   # tests/test_cuda.py, recompilations of a compiled step,
#                                # checkpoint memory, the suite under bf16 autocast
# Logs and the rewritten docs/benchmarks.md go to $OUT (default gpu-out/).
set -uo pipefail
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
PY=${PYTHON:-python3}
if [ "${1:-1}" = 1 ]; then
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
