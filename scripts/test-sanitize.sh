#!/usr/bin/env bash
# Runs the suite (lit, unit tests and the fuzzers' short runs, pytest's
# test/python) on the AddressSanitizer + UndefinedBehaviorSanitizer +
# LeakSanitizer build in $1 (make test-sanitize). What runs how:
#  - lit and ctest: the tools and tests are instrumented executables; leaks
#    are reported at exit (LSan) and fail the test.
#  - pytest: the Python interpreter is not instrumented, so the ASan runtime
#    is preloaded (LD_PRELOAD) for the _jeet extension, which is; leak
#    detection is off there (CPython keeps its objects alive at exit), and
#    the tools a test starts inherit that setting.
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
#  - intercept_tls_get_addr=0: LeakSanitizer's exit-time scan read a
#    dynamic TLS range it had recorded from __tls_get_addr with a bogus
#    start (0x46a2..., a module's slot after the JIT and libomp were
#    unloaded) and crashed ("Tracer caught signal 11") after a test that
#    had passed (CompilerCAPI.OptionsSetFusionAndTheCap, every run since
#    2026-12-07, with and without that session's compiler changes). The
#    dynamic TLS of dlopen'ed modules is then not a root of the scan; no
#    leak is reported without it.
common="halt_on_error=1:abort_on_error=1:print_stacktrace=1:allow_user_poisoning=0:intercept_tls_get_addr=0"
export ASAN_OPTIONS="$common:detect_leaks=1:strict_string_checks=1:check_initialization_order=1"
export OMP_NUM_THREADS=1
export UBSAN_OPTIONS="$common"
export LSAN_OPTIONS="suppressions=$root/scripts/lsan.supp:print_suppressions=0"
asan=$(gcc -print-file-name=libasan.so)
# libstdc++ too: the ASan runtime looks up the real __cxa_throw when it
# starts, and Python loads libstdc++ only later, with the extension (every
# C++ exception then aborts: "CHECK failed ... real___cxa_throw").
stdcxx=$(gcc -print-file-name=libstdc++.so)
export JEET_PYTEST_PRELOAD="$asan $stdcxx"
#  - allocator_may_return_null=1 (pytest only): an allocation past the
#    host's memory returns null, as without ASan, instead of aborting; NumPy
#    turns it into MemoryError, which Jeet reports as OutOfMemoryError
#    (test_numpy_functions.py asks for 8 TiB).
export JEET_PYTEST_ASAN_OPTIONS="$common:detect_leaks=0:allocator_may_return_null=1"
# pytest runs test/python (the API, the graph builder, the runtime through
# the instrumented extension), not test/numerics: those check the numbers of
# JIT-compiled kernels, which are not instrumented, and spend their time in
# LLVM, which is not either; under ASan's allocator they take most of an hour
# (docs/Reliability.md has the timing). `make test` runs them.
export JEET_PYTEST_SUITES=${JEET_PYTEST_SUITES:-test/python}
export JEET_DIFFERENTIAL_GRAPHS=${JEET_DIFFERENTIAL_GRAPHS:-50}
exec bash "$root/scripts/run-tests.sh" "$build" "$python"
