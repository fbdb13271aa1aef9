#!/usr/bin/env bash
# make test-tsan: the concurrency tests under ThreadSanitizer, on the build in
# $1 (compiled with -fsanitize=thread):
#  - ConcurrencyTest: one cached graph executed from 8 threads, and 8
#    compilations racing on one cache key;
#  - test/python/test_concurrency.py -k sequential: the same execution from 8
#    Python threads, the GIL released while the compiled code runs. The
#    interpreter is not instrumented, so the TSan runtime is preloaded for
#    the _jeet extension, which is; -s, so that pytest does not swallow a
#    report (halt_on_error ends the process before pytest prints it).
# Kernels run sequentially in both (libomp is not instrumented: its
# synchronisation is invisible to TSan). scripts/tsan.supp lists what is
# suppressed and why. Any report fails the run (halt_on_error).
#   scripts/test-tsan.sh build-tsan python3
set -euo pipefail
build=$(cd "$1" && pwd)
python=${2:-python3}
root=$(cd "$(dirname "$0")/.." && pwd)
# No disk cache: every compilation is counted and made in this run.
export JEET_CACHE_DIR=
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$root/scripts/tsan.supp"

echo "== ConcurrencyTest (ThreadSanitizer) =="
"$build/bin/ConcurrencyTest"

# The interpreter itself: a pyenv or venv shim may be a shell script, which
# must not get the preload.
interpreter=$("$python" -c 'import sys; print(sys.executable)')
tsan=$(gcc -print-file-name=libtsan.so)
echo "== test/python/test_concurrency.py -k sequential (ThreadSanitizer) =="
cd "$root"
LD_PRELOAD=$tsan PYTHONPATH="$build/python" JEET_BUILD_DIR="$build" \
  "$interpreter" -m pytest -q -s -p no:cacheprovider -k sequential \
  test/python/test_concurrency.py
