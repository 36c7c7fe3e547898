#!/usr/bin/env bash
# bench/compare/before_after.sh: two builds of Spillway (e.g. before and after
# a change) measured in one run, alternating, so that the machine's drift
# hits both alike. Each round starts build A's broker and runs A's
# `spillway perf produce` then `perf consume` against it, then the same for
# build B, each on a fresh data directory; it prints every round and the
# medians, with B/A ratios.
#
#   bench/compare/before_after.sh OLD_RELEASE_DIR NEW_RELEASE_DIR
#   ROUNDS=5 SECS=3 SIZES="100 1024" bench/compare/before_after.sh A B
#
# Each RELEASE_DIR is a CMake build tree holding broker/spillway-broker and
# client/spillway. Brokers listen on free ports on 127.0.0.1 and are stopped
# by PID.
set -euo pipefail
a=${1:?usage: before_after.sh A_RELEASE B_RELEASE}
b=${2:?usage: before_after.sh A_RELEASE B_RELEASE}
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-3}
SIZES=${SIZES:-"100 1024"}
work=$(mktemp -d /tmp/spillway-ab.XXXXXX)
pid=""
cleanup() { [[ -z "$pid" ]] || kill -9 "$pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

# run_one RELEASE SIZE -> "produce_msgs_per_s consume_msgs_per_s"
run_one() {
  local release=$1 size=$2 dir port=""
  dir=$(mktemp -d "$work/run.XXXX")
  # The Kafka listener (newer builds) is moved off its fixed port; older
  # builds have no such flag and no such listener.
  local extra=()
  "$release/broker/spillway-broker" --help | grep -q -- --kafka-listen && extra=(--kafka-listen 127.0.0.1:0)
  "$release/broker/spillway-broker" --listen 127.0.0.1:0 --data-dir "$dir/data" "${extra[@]}" \
    >"$dir/log" 2>&1 &
  pid=$!
  for _ in $(seq 1 100); do
    port=$(sed -n 's/.* listening on 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$dir/log" | head -n 1)
    [[ -z "$port" ]] || break
    sleep 0.1
  done
  [[ -n "$port" ]] || { cat "$dir/log" >&2; exit 1; }
  local cli=$release/client/spillway p c
  p=$("$cli" perf produce --broker "127.0.0.1:$port" --topic t --size "$size" --duration "$SECS" 2>&1 |
    sed -n 's/^produce: .*  \([0-9,]*\) msg\/s.*/\1/p' | tr -d ,)
  c=$("$cli" perf consume --broker "127.0.0.1:$port" --topic t 2>&1 |
    sed -n 's/^consume: .*  \([0-9,]*\) msg\/s.*/\1/p' | tr -d ,)
  kill -TERM "$pid"; wait "$pid" 2>/dev/null || true; pid=""
  rm -rf "$dir"
  echo "${p:-0} ${c:-0}"
}

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

for size in $SIZES; do
  : >"$work/a.$size"; : >"$work/b.$size"
  for r in $(seq 1 "$ROUNDS"); do
    ra=$(run_one "$a" "$size"); rb=$(run_one "$b" "$size")
    echo "$ra" >>"$work/a.$size"; echo "$rb" >>"$work/b.$size"
    echo "size $size round $r: A produce/consume $ra msg/s   B $rb msg/s"
  done
  for col in 1 2; do
    what=$([[ $col == 1 ]] && echo produce || echo consume)
    ma=$(cut -d' ' -f$col "$work/a.$size" | median)
    mb=$(cut -d' ' -f$col "$work/b.$size" | median)
    printf 'size %5s %-8s median A %12.0f  B %12.0f msg/s  B/A %.3f\n' "$size" "$what" "$ma" "$mb" \
      "$(awk -v a="$ma" -v b="$mb" 'BEGIN {print (a > 0) ? b / a : 0}')"
  done
done
