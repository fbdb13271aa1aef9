#!/usr/bin/env bash
# Runs the whole suite (lit, unit tests and the fuzzers' short runs, pytest)
# on the AddressSanitizer + UndefinedBehaviorSanitizer + LeakSanitizer build
# in $1 (make test-sanitize). What runs how:
#  - lit and ctest: the tools and tests are instrumented executables; leaks
#    are reported at exit (LSan) and fail the test.
#  - pytest: the Python interpreter is not instrumented, so the ASan runtime
#    is preloaded (LD_PRELOAD) for the _jeet extension, which is; leak
#    detection is off there (CPython keeps its objects alive at exit), and
#    jeet-run, which the numerics tests start, inherits that setting.
#  - JIT-compiled kernels are not instrumented (their loads and stores are
#    not checked); the runtime's allocator, which they call, is.
set -uo pipefail
build=$1
python=${2:-python3}
root=$(cd "$(dirname "$0")/.." && pwd)
#  - allow_user_poisoning=0: LLVM's headers poison and unpoison the slabs of
#    its bump allocators when the including code is built with ASan, but the
#    installed libLLVM/libMLIR, which allocate from the same slabs, are not:
#    their (correct) accesses to memory our inlined code poisoned are false
#    reports (use-after-poison in StringAttr::get). Every check of our own
#    code stays.
#  - OMP_NUM_THREADS=1: LeakSanitizer's exit-time scan crashes ("Tracer
#    caught signal 11") in a process where libomp (loaded with dlopen by the
#    JIT or as an artifact's dependency) has started its worker threads;
#    OpenMP regions still run, on the calling thread. (lit passes the
#    variable on: test/lit.cfg.py.)
common="halt_on_error=1:abort_on_error=1:print_stacktrace=1:allow_user_poisoning=0"
export ASAN_OPTIONS="$common:detect_leaks=1:strict_string_checks=1:check_initialization_order=1"
export OMP_NUM_THREADS=1
export UBSAN_OPTIONS="$common"
export LSAN_OPTIONS="suppressions=$root/scripts/lsan.supp:print_suppressions=0"
asan=$(gcc -print-file-name=libasan.so)
export JEET_PYTEST_PRELOAD="$asan"
export JEET_PYTEST_ASAN_OPTIONS="$common:detect_leaks=0"
# The differential test's graphs spend their time in LLVM (not instrumented)
# compiling kernels; 50 of them exercise Jeet's instrumented code as 200 do
# and keep the run within CI's budget (docs/Reliability.md).
export JEET_DIFFERENTIAL_GRAPHS=${JEET_DIFFERENTIAL_GRAPHS:-50}
exec bash "$root/scripts/run-tests.sh" "$build" "$python"
