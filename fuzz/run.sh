#!/usr/bin/env bash
# Runs the cargo-fuzz targets and sums their executions (make fuzz, make fuzz-smoke).
#   fuzz/run.sh SECONDS_PER_TARGET [MIN_TOTAL_EXECS]
# Env: FUZZ_JOBS (targets run at once, default 2), FUZZ_TARGETS (default: all five),
#      FUZZ_SANITIZER (default none; `address` for AddressSanitizer, about 4x slower).
# Each target starts from the seeds in fuzz/corpus/<target>/ and keeps what it finds in
# fuzz/target/corpus/<target>/ (not committed); a crash is written to
# fuzz/artifacts/<target>/ and fails the run. Logs: fuzz/target/logs/<target>.log.
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:?seconds per target}
min_total=${2:-0}
jobs=${FUZZ_JOBS:-2}
targets=${FUZZ_TARGETS:-graph cluster scenario link onnx}
# -a: debug assertions and overflow checks on, so arithmetic overflow is a crash too.
# -s none: placesim has no `unsafe`, so AddressSanitizer looks only at dependencies' unsafe
# code, and it cost 4x in executions (graph target: 4,500 against 17,600 exec/s).
sanitizer=${FUZZ_SANITIZER:-none}
cargo +nightly fuzz build -a -s "$sanitizer"
mkdir -p target/logs
run() {
  local t=$1
  mkdir -p "target/corpus/$t"
  # -timeout: one input taking 10 s is a crash (inputs are capped to stay far below).
  cargo +nightly fuzz run -a -s "$sanitizer" "$t" "target/corpus/$t" "corpus/$t" -- \
    -dict=json.dict -max_total_time="$seconds" -timeout=10 -print_final_stats=1 \
    >"target/logs/$t.log" 2>&1
}
pids=()
names=()
status=0
for t in $targets; do
  run "$t" &
  pids+=($!)
  names+=("$t")
  if [ "${#pids[@]}" -ge "$jobs" ]; then
    wait "${pids[0]}" || { echo "fuzz target ${names[0]} failed: see fuzz/target/logs/${names[0]}.log"; status=1; }
    pids=("${pids[@]:1}")
    names=("${names[@]:1}")
  fi
done
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || { echo "fuzz target ${names[$i]} failed: see fuzz/target/logs/${names[$i]}.log"; status=1; }
done
total=0
printf '%-10s %12s %8s %8s\n' target execs seconds exec/s
for t in $targets; do
  line=$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "target/logs/$t.log" | tail -1 || true)
  execs=$(echo "$line" | awk '{print $2}')
  secs=$(echo "$line" | awk '{print $5}')
  execs=${execs:-0}
  secs=${secs:-0}
  rate=$([ "$secs" -gt 0 ] && echo $((execs / secs)) || echo -)
  printf '%-10s %12d %8d %8s\n' "$t" "$execs" "$secs" "$rate"
  grep -E 'panicked at|ERROR: libFuzzer|SUMMARY|Test unit written' "target/logs/$t.log" || true
  total=$((total + execs))
done
echo "total executions: $total"
if [ "$total" -lt "$min_total" ]; then
  echo "fewer than $min_total executions"
  status=1
fi
exit $status
