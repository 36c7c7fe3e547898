#!/usr/bin/env bash
# The broker's CPU time per message while `spillway perf` produces and then
# consumes a fixed number of messages (issue 18: "broker CPU per message at
# 100 B and at 1 KiB, 30 % lower than at the start"). The broker's user and
# system time come from /proc/PID/stat before and after each phase, so the
# figure is the broker's own work, not the client's; a fresh broker and data
# directory per round. Prints every round and the medians, in microseconds
# of CPU per message.
#
#   bench/broker_cpu_per_message.sh [BUILD_DIR]
#   ROUNDS=5 SIZES="100 1024" bench/broker_cpu_per_message.sh build/release
#
# COUNT_100 and COUNT_1024 set the messages per phase (defaults 12,000,000
# and 2,000,000, about 1.2 and 2 GB on disk per round: the broker then uses
# 1-2 s of CPU per phase, so the 10 ms clock tick is about 1 % of a reading;
# each round line shows the CPU seconds it divided).
set -euo pipefail
build=${1:-build/release}
ROUNDS=${ROUNDS:-3}
SIZES=${SIZES:-"100 1024"}
broker_bin="$build/broker/spillway-broker"
cli="$build/client/spillway"
[[ -x "$broker_bin" && -x "$cli" ]] || { echo "usage: $0 [BUILD_DIR] (needs broker/spillway-broker and client/spillway)" >&2; exit 2; }
work=$(mktemp -d /tmp/spillway-cpu.XXXXXX)
pid=""
cleanup() { [[ -z "$pid" ]] || kill -9 "$pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
tick=$(getconf CLK_TCK)

# CPU seconds (user + system) the process has used so far.
cpu_seconds() { awk -v t="$tick" '{print ($14 + $15) / t}' "/proc/$1/stat"; }

# round SIZE COUNT -> "produce_us_per_msg produce_cpu_s consume_us_per_msg consume_cpu_s"
round() {
  local size=$1 count=$2 dir port before after produce consume
  dir=$(mktemp -d "$work/run.XXXX")
  "$broker_bin" --listen 127.0.0.1:0 --kafka-listen "" --data-dir "$dir/data" \
    --flush-policy interval >"$dir/broker.log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do
    port=$(grep -oE 'listening on 127\.0\.0\.1:[0-9]+' "$dir/broker.log" | head -1 | sed 's/.*://') || true
    [[ -n "$port" ]] && break
    sleep 0.05
  done
  [[ -n "$port" ]] || { echo "the broker did not start:" >&2; cat "$dir/broker.log" >&2; exit 1; }
  before=$(cpu_seconds "$pid")
  "$cli" perf produce -b "127.0.0.1:$port" -t cpu --size "$size" -n "$count" >"$dir/produce.out"
  after=$(cpu_seconds "$pid")
  produce=$(awk -v a="$before" -v b="$after" -v n="$count" 'BEGIN{printf "%.3f %.2f", (b - a) * 1e6 / n, b - a}')
  before=$after
  "$cli" perf consume -b "127.0.0.1:$port" -t cpu -n "$count" >"$dir/consume.out"
  after=$(cpu_seconds "$pid")
  consume=$(awk -v a="$before" -v b="$after" -v n="$count" 'BEGIN{printf "%.3f %.2f", (b - a) * 1e6 / n, b - a}')
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  pid=""
  rm -rf "$dir"
  echo "$produce $consume"
}

median() { sort -g | awk '{v[NR]=$1} END{print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

echo "broker CPU per message (us), $ROUNDS rounds, $(nproc) cores, $(uname -r), $("$cli" version 2>/dev/null | head -1)"
for size in $SIZES; do
  count_var="COUNT_$size"
  default=$((size <= 100 ? 12000000 : 2000000))
  count=${!count_var:-$default}
  produces=()
  consumes=()
  for r in $(seq "$ROUNDS"); do
    read -r p pcpu c ccpu < <(round "$size" "$count")
    echo "  $size B round $r: produce $p us/msg (${pcpu} s), consume $c us/msg (${ccpu} s), $count messages"
    produces+=("$p")
    consumes+=("$c")
  done
  echo "$size B median: produce $(printf '%s\n' "${produces[@]}" | median) us/msg, consume $(printf '%s\n' "${consumes[@]}" | median) us/msg"
done
