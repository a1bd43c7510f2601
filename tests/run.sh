#!/usr/bin/env bash
# tests/run.sh: build hipkit for each platform whose compiler is here, run the
# C suite (ctest) and the Python suite (pytest) against each build, and print
# one closing line with the totals. GPU tests skip with a reason when there is
# no GPU; with HIPKIT_REQUIRE_GPU=1 a missing GPU fails them instead.
#
#   bash tests/run.sh                        # every platform found
#   HIPKIT_TEST_PLATFORMS=nvidia bash tests/run.sh
#   HIPKIT_REQUIRE_GPU=1 bash tests/run.sh   # on a GPU machine: nothing may skip
#
# Environment: PYTHON (default python3), HIPKIT_GTEST_SOURCE_DIR, HIPKIT_BUILD_ROOT (default build/),
# HIPKIT_GPU_TARGETS (default: the CMake default list).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
# The virtual environment examples/setup.sh makes, when there is one.
if [ -z "${PYTHON:-}" ] && [ -x "$root/.venv/bin/python" ]; then PYTHON="$root/.venv/bin/python"; fi
PYTHON=${PYTHON:-python3}
build_root=${HIPKIT_BUILD_ROOT:-$root/build}
mkdir -p "$build_root/reports"

have() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/local/cuda/bin/$1" ] || [ -x "/opt/rocm/bin/$1" ]; }

platforms=${HIPKIT_TEST_PLATFORMS:-}
if [ -z "$platforms" ]; then
  have hipcc && platforms="$platforms amd"
  have nvcc && platforms="$platforms nvidia"
  if [ "${CI:-}" = "true" ] && [ "$platforms" != " amd nvidia" ]; then
    echo "tests/run.sh: CI must build for both platforms, found only:$platforms" >&2
    exit 1
  fi
fi
[ -n "$platforms" ] || { echo "tests/run.sh: neither hipcc nor nvcc found; run examples/setup.sh first" >&2; exit 1; }

gtest_args=()
[ -n "${HIPKIT_GTEST_SOURCE_DIR:-}" ] && gtest_args=(-DHIPKIT_GTEST_SOURCE_DIR="$HIPKIT_GTEST_SOURCE_DIR")
# HIPKIT_GPU_TARGETS=90 (say) builds for one architecture only: quicker on a GPU machine.
[ -n "${HIPKIT_GPU_TARGETS:-}" ] && gtest_args+=(-DHIPKIT_GPU_TARGETS="$HIPKIT_GPU_TARGETS")
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)

status=0
for p in $platforms; do
  dir="$build_root/test-$p"
  echo "=== $p: configure and build ($dir)"
  cmake -S "$root" -B "$dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DHIPKIT_PLATFORM="$p" -DHIPKIT_BUILD_TESTS=ON -DHIPKIT_BUILD_PYTHON=ON -DHIPKIT_BUILD_BENCH=ON \
        -DHIPKIT_WARNINGS_AS_ERRORS=ON -DPython3_EXECUTABLE="$(command -v "$PYTHON")" "${gtest_args[@]}" >"$dir.configure.log" 2>&1 \
    || { cat "$dir.configure.log"; exit 1; }
  cmake --build "$dir" --parallel
  echo "=== $p: C tests (ctest)"
  ctest --test-dir "$dir" --output-on-failure --output-junit "$build_root/reports/ctest-$p.xml" || status=1
  echo "=== $p: Python tests (pytest)"
  PYTHONPATH="$dir/python${PYTHONPATH:+:$PYTHONPATH}" "$PYTHON" -m pytest -q -rs tests/python --junitxml="$build_root/reports/pytest-$p.xml" \
    || status=1
done

# One closing line over every runner and platform.
"$PYTHON" - "$build_root/reports" $platforms <<'PY'
import re, sys, xml.etree.ElementTree as ET
folder, platforms = sys.argv[1], sys.argv[2:]
passed = failed = skipped = 0
for p in platforms:
    for kind in ("ctest", "pytest"):
        try:
            tree = ET.parse(f"{folder}/{kind}-{p}.xml")
        except (OSError, ET.ParseError):
            failed += 1  # a runner that left no report did not pass
            continue
        for case in tree.iter("testcase"):
            tags = {child.tag for child in case}
            status = case.get("status", "")
            if "failure" in tags or "error" in tags or status == "fail":
                failed += 1
            elif "skipped" in tags or status in ("notrun", "disabled"):
                skipped += 1
                if kind == "ctest":  # ctest says only "Skipped": the reason is in GoogleTest's output
                    out = "".join(child.text or "" for child in case if child.tag == "system-out")
                    reason = re.search(r": Skipped\n(.*)", out)
                    print(f"SKIPPED [C, {p}] {case.get('name')}: "
                          f"{reason.group(1).strip() if reason and reason.group(1).strip() else '(no reason given)'}")
            else:
                passed += 1
line = f"hipkit: {passed} passed, {failed} failed, {skipped} skipped"
print(line)
with open(f"{folder}/summary.txt", "w") as summary:
    summary.write(line + "\n")
PY
exit $status
