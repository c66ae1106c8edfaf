#!/usr/bin/env bash
# GPU checks for a lent CUDA machine (CI never runs this): the test suite with device_target='GPU' wherever
# a test runs on the torch backend, then the benchmarks with openspore and the torch peers both on CUDA.
#
#   OPENSPORE_FIXTURES=/path/to/fixtures OUT=/tmp/gpu bash tools/gpu_check.sh [pytest args...]
#
# Logs land in $OUT (tests.log, bench.log, bench.json). Each stage has its own time limit so one slow
# stage cannot starve the next.
set -u
OUT=${OUT:-/tmp/openspore_gpu_check}
mkdir -p "$OUT"
PY=${PYTHON:-python3}
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"

if ! $PY -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null; then
    echo "gpu_check: $PY's torch finds no CUDA device here (torch without CUDA, or no GPU); nothing was run." >&2
    exit 2
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
$PY -c "import torch, numpy; print('torch', torch.__version__, 'cuda', torch.version.cuda,
                                     torch.cuda.get_device_name(0), 'numpy', numpy.__version__)"
$PY -c "import openspore as ms; ms.set_context(device_target='GPU')
print('openspore on', (ms.Tensor([1.0, 2.0]) * 2).asnumpy())"

echo "== tests (OPENSPORE_TEST_DEVICE=GPU)"
OPENSPORE_TEST_DEVICE=GPU timeout "${TEST_LIMIT:-240}" $PY -m pytest -q -n "${WORKERS:-8}" -p no:cacheprovider \
    -o addopts="" "${@:-tests}" >"$OUT/tests.log" 2>&1
echo "pytest exit $?"
grep -E "^(FAILED|ERROR)" "$OUT/tests.log" | sed 's/ - .*//' | sort | head -60
tail -n 3 "$OUT/tests.log"

echo "== bench (device GPU)"
timeout "${BENCH_LIMIT:-200}" $PY bench/run.py --device GPU --threads 4 --repeats 3 \
    -f openspore-pynative openspore-graph torch-eager --json "$OUT/bench.json" 2>&1 | tee "$OUT/bench.log"
echo "bench exit ${PIPESTATUS[0]}"
