#!/bin/sh
# tests/array_api/run.sh: the array API standard's own conformance suite (data-apis/array-api-tests)
# against hipkit, on the current device (the first GPU, else the CPU device; HIPKIT_DEVICE chooses).
#
#   tests/array_api/run.sh [2023.12|2024.12] [pytest arguments]
#
# TESTS (default array_api_tests, the whole suite) names the test files or ids to run, relative to the
# suite's folder, e.g. TESTS=array_api_tests/test_set_functions.py.
# The suite lives outside the repository: ARRAY_API_TESTS_DIR (default .deps/array-api-tests) is a
# checkout of https://github.com/data-apis/array-api-tests with its array-api submodule
# (git clone --recursive ...), and it needs hypothesis >= 6.151 and ndindex >= 1.8 (pip). hipkit must be
# importable (PYTHONPATH=build/<dir>/python). The tests listed in tests/array_api/skips.txt are skipped,
# each for the reason written above it; the linalg and fft extensions are disabled (not implemented yet).
# Defaults: --max-examples 200 (MAX_EXAMPLES), no deadline.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
suite=${ARRAY_API_TESTS_DIR:-$here/../../.deps/array-api-tests}
version=2023.12
case "${1:-}" in 20[0-9][0-9].[0-9][0-9]) version=$1; shift ;; esac
if [ ! -d "$suite/array_api_tests" ]; then
  echo "run.sh: no array-api-tests checkout at $suite (set ARRAY_API_TESTS_DIR; see this file's header)" >&2
  exit 2
fi
# PYTHONPATH's relative entries (build/nv/python) name folders from here: made absolute before the cd.
abs=""; IFS_=$IFS; IFS=:
for p in ${PYTHONPATH:-}; do [ -n "$p" ] && abs="${abs:+$abs:}$(cd "$p" 2>/dev/null && pwd || echo "$p")"; done
IFS=$IFS_; export PYTHONPATH="$abs"
cd "$suite"
ARRAY_API_TESTS_MODULE=hipkit ARRAY_API_TESTS_VERSION=$version exec python3 -m pytest -p no:cacheprovider --rootdir . \
  --max-examples "${MAX_EXAMPLES:-200}" --disable-deadline --disable-extension linalg fft \
  --skips-file "$here/skips.txt" ${TESTS:-array_api_tests} "$@"
