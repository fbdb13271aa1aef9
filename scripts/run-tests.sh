#!/usr/bin/env bash
# Runs every test suite (lit, unit tests, pytest) and ends with one honest
# count over all of them: "N passed, N failed, N skipped".
set -uo pipefail
build=${1:-build}
python=${2:-python3}
root=$(cd "$(dirname "$0")/.." && pwd)
results=$(mktemp -d)
status=0
# No suite reads or fills the user's disk cache of compiled graphs: every test
# compiles what it checks (the disk cache's own tests give it a directory).
export JEET_CACHE_DIR=
# Every buffer of the host allocator is NaN bytes when handed out and again
# once freed, and every block of a CUDA device's (the GPU emulator's here)
# when handed out (README, JEET_POISON_HOST_MEMORY and
# JEET_POISON_DEVICE_MEMORY): a kernel reading memory before writing it or
# after its free fails its test instead of reading a stale value that may
# look right.
export JEET_POISON_HOST_MEMORY=${JEET_POISON_HOST_MEMORY:-1}
export JEET_POISON_DEVICE_MEMORY=${JEET_POISON_DEVICE_MEMORY:-1}

echo "== lit (FileCheck) =="
"$python" -c pass
/usr/lib/llvm-22/bin/lit -sv --xunit-xml-output "$results/lit.xml" "$build/test" || status=1

if [ -f "$build/CTestTestfile.cmake" ] || [ -d "$build/unittests" ]; then
  echo "== unit tests (GoogleTest) =="
  ctest --test-dir "$build" --output-on-failure --output-junit "$results/ctest.xml" || status=1
fi

suites=()
# JEET_PYTEST_SUITES: the pytest folders to run (make test-sanitize runs
# test/python only).
for d in ${JEET_PYTEST_SUITES:-test/numerics test/python}; do
  [ -d "$root/$d" ] && suites+=("$root/$d")
done
if [ ${#suites[@]} -gt 0 ]; then
  export JEET_BUILD_DIR=$(cd "$build" && pwd)
  export PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}"
  # GPU tests (marker `gpu`) run where a GPU answers, and again on the GPU
  # emulator below; without a GPU they are left to that run, not skipped.
  gpu_here=$(env -u JEET_CUDA_DRIVER "$python" -c \
    'import jeet; print(int(jeet.gpu_available()))' 2>/dev/null || echo 0)
  markers=()
  [ "$gpu_here" = 1 ] || markers=(-m "not gpu")
  echo "== pytest =="
  # make test-sanitize: the ASan runtime preloaded into Python (see
  # scripts/test-sanitize.sh).
  preload=()
  if [ -n "${JEET_PYTEST_PRELOAD:-}" ]; then
    preload=(LD_PRELOAD="$JEET_PYTEST_PRELOAD"
             ASAN_OPTIONS="${JEET_PYTEST_ASAN_OPTIONS:-}")
  fi
  env -u JEET_CUDA_DRIVER "${preload[@]}" "$python" -m pytest -q -p no:cacheprovider \
    "${markers[@]}" "${suites[@]}" --junitxml="$results/pytest.xml"
  rc=$?
  # 5: no tests collected, which the count below reports as zero.
  [ $rc -eq 0 ] || [ $rc -eq 5 ] || status=1
  emulator="$JEET_BUILD_DIR/lib/libjeet_cuda_emulator.so"
  if [ -f "$emulator" ] && [ -d "$root/test/python" ]; then
    echo "== pytest, GPU tests on the GPU emulator =="
    env JEET_CUDA_DRIVER="$emulator" "${preload[@]}" "$python" -m pytest -q -p no:cacheprovider \
      -m gpu "$root/test/python" --junitxml="$results/pytest-emulator.xml"
    rc=$?
    [ $rc -eq 0 ] || [ $rc -eq 5 ] || status=1
  fi
fi

"$python" "$root/scripts/count-tests.py" "$results"/*.xml || status=1
rm -rf "$results"
exit $status
