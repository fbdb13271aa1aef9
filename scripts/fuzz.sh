#!/usr/bin/env bash
# make fuzz: runs every libFuzzer target of the clang build in $1 for $3
# seconds each, at the lowest priority, then the Python graph-builder fuzzer
# on the main build in $2 for as long, three ways (compiling and running one
# program in FUZZ_EXECUTE_EVERY, default 10, and building the others' graphs;
# every program with --check-key; every program on the GPU emulator with
# --compare-cpu), then the numeric fuzzer against float64 on the CPU and the
# emulator; ends with a table of executions per target. Each target's corpus grows in $1/fuzz/live/<corpus> (seeded from the
# lit tests and the regression inputs); a crash or a timeout writes the input
# to $1/fuzz/artifacts/ and the script exits 1 naming it.
#   scripts/fuzz.sh build-fuzz build 60 python3
set -uo pipefail
fuzz_build=$1
build=$2
seconds=$3
python=${4:-python3}
root=$(cd "$(dirname "$0")/.." && pwd)
corpora="$fuzz_build/fuzz/corpus"
live="$fuzz_build/fuzz/live"
artifacts="$fuzz_build/fuzz/artifacts"
mkdir -p "$live" "$artifacts"
# Every input gets at most this long before it counts as a hang.
per_input_timeout=60
status=0
table=()

# target corpus
targets=(
  "jeet-fuzz-npy npy"
  "jeet-fuzz-tensor-text tensor-text"
  "jeet-fuzz-mlir-cpu mlir"
  "jeet-fuzz-mlir-gpu mlir"
)
for entry in "${targets[@]}"; do
  read -r target corpus <<<"$entry"
  # FUZZ_TARGETS (make fuzz) chooses some of them.
  case " ${FUZZ_TARGETS:-$target} " in
    *" $target "*) ;;
    *) continue ;;
  esac
  binary="$fuzz_build/bin/$target"
  if [ ! -x "$binary" ]; then
    echo "fuzz: $binary is not built" >&2
    status=1
    continue
  fi
  mkdir -p "$live/$target"
  dict=()
  [ -f "$root/fuzz/$corpus.dict" ] && dict=(-dict="$root/fuzz/$corpus.dict")
  log="$artifacts/$target.log"
  echo "== $target: ${seconds}s (log: $log) =="
  # The GPU target compiles to PTX only; no driver is needed or wanted.
  JEET_CUDA_DRIVER= nice -n 19 "$binary" -max_total_time="$seconds" \
    -timeout=$per_input_timeout -print_final_stats=1 "${dict[@]}" \
    -artifact_prefix="$artifacts/$target-" \
    "$live/$target" "$corpora/$corpus" "$root/fuzz/regressions/$corpus" \
    >"$log" 2>&1
  rc=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" |
         grep -o '[0-9]*$' | tail -1)
  rate=$(grep -o 'exec/s: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  result=ok
  if [ $rc -ne 0 ]; then
    result="FAILED (exit $rc): $(ls "$artifacts/$target-"* 2>/dev/null | head -1)"
    tail -30 "$log"
    status=1
  fi
  table+=("$(printf '%-24s %12s %8s  %s' "$target" "${runs:-?}" "${rate:-?}" "$result")")
done

# A Python fuzzer for $seconds: python_fuzzer NAME SCRIPT DRIVER ARGS...
# (DRIVER: the CUDA driver it sees); its log in $artifacts/NAME.log.
emulator=$(cd "$build" && pwd)/lib/libjeet_cuda_emulator.so
no_gpu=/nonexistent/libcuda.so.1
python_fuzzer() {
  local name=$1 script=$2 driver=$3
  shift 3
  echo "== $name: ${seconds}s =="
  local log="$artifacts/$name.log"
  PYTHONPATH="$build/python" JEET_BUILD_DIR=$(cd "$build" && pwd) \
    JEET_CUDA_DRIVER="$driver" \
    nice -n 19 "$python" "$root/fuzz/python/$script" \
    --seconds "$seconds" "$@" >"$log" 2>&1
  local rc=$? result=ok
  tail -3 "$log"
  if [ $rc -ne 0 ]; then
    result="FAILED (exit $rc): see $log"
    status=1
  fi
  table+=("$(printf '%-24s %12s %8s  %s' "$name" "-" "-" "$result")")
}

# The Python graph builder three ways: most programs only built; every one
# compiled, run again through the structural key's cache and by its text;
# every one on the GPU emulator, compared with the CPU. Only the GPU runs
# see the emulator (no "auto" device resolves to it).
python_fuzzer graph-builder-builder fuzz_graph_builder.py $no_gpu \
  --execute-every "${FUZZ_EXECUTE_EVERY:-10}"
python_fuzzer graph-builder-check-key fuzz_graph_builder.py $no_gpu --check-key
python_fuzzer graph-builder-gpu-vs-cpu fuzz_graph_builder.py "$emulator" \
  --device gpu --compare-cpu
# The numeric fuzzer: every program's results against float64, on the CPU
# and on the GPU emulator.
python_fuzzer numerics-cpu fuzz_numerics.py $no_gpu
python_fuzzer numerics-gpu fuzz_numerics.py "$emulator" --device gpu

echo
printf '%-24s %12s %8s  %s\n' target executions exec/s result
printf '%s\n' "${table[@]}"
exit $status
