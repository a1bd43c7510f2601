#!/usr/bin/env bash
# bench/run.sh BUILD_DIR: run every benchmark against a build made with
# -DHIPKIT_BUILD_BENCH=ON -DHIPKIT_BUILD_PYTHON=ON; each prints its own table
# with the raw vendor figure and the peers measured in the same run.
set -uo pipefail
build=${1:-build/test-nvidia}
here=$(dirname "$0")
"$build/bench/pool_bench"
echo "--- the same launch rows with user kernels launched through the CUDA runtime instead of the driver:"
HIPKIT_LAUNCH_API=runtime "$build/bench/pool_bench" 20000 3 | grep -E "empty|hk_fill, n = 1 "
"$build/bench/transfer_bench"
PYTHONPATH="$build/python:${PYTHONPATH:-}" python3 "$here/ops_bench.py" "$build"
PYTHONPATH="$build/python:${PYTHONPATH:-}" python3 "$here/library_bench.py" "$build"
PYTHONPATH="$build/python:${PYTHONPATH:-}" python3 "$here/kernel_bench.py" "$build"
PYTHONPATH="$build/python:${PYTHONPATH:-}" python3 "$here/percall_bench.py" "$build"
PYTHONPATH="$build/python:${PYTHONPATH:-}" python3 "$here/import_bench.py" "$build"
PYTHONPATH="$build/python:${PYTHONPATH:-}" python3 "$here/dtype_bench.py" "$build"
PYTHONPATH="$build/python:${PYTHONPATH:-}" python3 "$here/fuse_bench.py"
