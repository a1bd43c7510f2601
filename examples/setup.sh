#!/usr/bin/env bash
# examples/setup.sh: set up a fresh Debian/Ubuntu machine for hipkit and run
# the demo. Installs the build tools and the AMD toolchain from Debian (the
# NVIDIA toolchain is the CUDA toolkit, used when nvcc is found), makes a
# Python virtual environment in .venv, installs hipkit into it with pip (which
# builds the C library and the cffi module together), and runs examples/demo.py.
#
#   bash examples/setup.sh            # set up, then run the demo
#   bash examples/setup.sh --no-demo  # set up only
# HIPKIT_PLATFORM=amd|nvidia picks the vendor; by default the one whose GPU
# is present, else nvidia when nvcc is installed, else amd.
set -euo pipefail
cd "$(dirname "$0")/.."
run_demo=1
[ "${1:-}" = "--no-demo" ] && run_demo=0

sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
packages="cmake ninja-build g++ pkg-config python3-venv python3-dev hipcc libamdhip64-dev rocm-device-libs googletest libdlpack-dev valgrind"
missing=""
for p in $packages; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "== installing Debian packages:$missing"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
fi

export PATH="$PATH:/usr/local/cuda/bin"
if [ -z "${HIPKIT_PLATFORM:-}" ]; then
  if [ -e /dev/kfd ]; then HIPKIT_PLATFORM=amd
  elif [ -e /dev/nvidiactl ] || command -v nvcc >/dev/null 2>&1; then HIPKIT_PLATFORM=nvidia
  else HIPKIT_PLATFORM=amd
  fi
fi
export HIPKIT_PLATFORM
command -v nvcc >/dev/null 2>&1 || echo "== note: nvcc not found; NVIDIA builds need the CUDA toolkit (12 or 13) in /usr/local/cuda"

if [ ! -x .venv/bin/python ]; then
  echo "== creating .venv"
  python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q numpy pytest cffi scikit-build-core array-api-strict==2.6.1  # the last: test_array_api's reference
echo "== pip install . (HIPKIT_PLATFORM=$HIPKIT_PLATFORM): compiles the C library, its GPU kernels and the Python"
echo "   module: about 4 minutes on 2 cores; progress every 10 build steps below, the whole log in build/pip-install.log"
mkdir -p build
# Every core for the kernel compiles (pip's CMake build is otherwise one job at a time). pip -v prints the
# build's [step/steps] lines; the filter keeps every tenth and the last (a read loop: awk would buffer).
if ! CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)} .venv/bin/python -m pip install -v . \
     2>&1 | tee build/pip-install.log | { grep --line-buffered -oE '^ *\[[0-9]+/[0-9]+\]' || true; } \
     | while IFS='[]/' read -r _ step total _; do
         if (( step % 10 == 0 || step == total )); then echo "   build step $step of $total"; fi
       done; then
  tail -n 40 build/pip-install.log
  echo "== pip install . failed: the whole log is build/pip-install.log" >&2
  exit 1
fi
echo "== installed into .venv: activate it (. .venv/bin/activate) to import hipkit from your own scripts"

if [ "$run_demo" = 1 ]; then
  echo "== demo"
  .venv/bin/python examples/demo.py
fi
