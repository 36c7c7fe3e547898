#!/usr/bin/env bash
# The broker's CPU time per message while `spillway perf` produces and then
# consumes a fixed number of messages (issue 18: "broker CPU per message at
# 100 B and at 1 KiB, 30 % lower than at the start"). The broker's user and
# system time come from /proc/PID/stat before and after each phase, so the
# figure is the broker's own work, not the client's; a fresh broker and data
# directory per round. Prints every round and the medians, in microseconds
# of CPU per message.
#
#   bench/broker_cpu_per_message.sh [BUILD_DIR...]
#   ROUNDS=5 SIZES="100 1024" bench/broker_cpu_per_message.sh build/release
#   ROUNDS=7 bench/broker_cpu_per_message.sh /tmp/tree-before build/release
#
# With several build trees (each with broker/spillway-broker and
# client/spillway) every round runs each tree in turn, so an A/B sees the
# same machine state: readings drift by a third over an hour on this VM,
# more than most changes move them. The medians are per tree.
#
# COUNT_100 and COUNT_1024 set the messages per phase (defaults 12,000,000
# and 2,000,000, about 1.2 and 2 GB on disk per round: the broker then uses
# 1-2 s of CPU per phase, so the 10 ms clock tick is about 1 % of a reading;
# each round line shows the CPU seconds it divided).
set -euo pipefail
builds=("$@")
((${#builds[@]})) || builds=(build/release)
ROUNDS=${ROUNDS:-3}
SIZES=${SIZES:-"100 1024"}
for build in "${builds[@]}"; do
  [[ -x "$build/broker/spillway-broker" && -x "$build/client/spillway" ]] || {
    echo "usage: $0 [BUILD_DIR...] ($build lacks broker/spillway-broker or client/spillway)" >&2
    exit 2
  }
done
work=$(mktemp -d /tmp/spillway-cpu.XXXXXX)
source "$(dirname "${BASH_SOURCE[0]}")/lib/broker.sh"
cleanup() { stop_broker KILL; rm -rf "$work"; }
trap cleanup EXIT
broker_flags=(--flush-policy interval)
tick=$(getconf CLK_TCK)

# CPU seconds (user + system) the process has used so far.
cpu_seconds() { awk -v t="$tick" '{print ($14 + $15) / t}' "/proc/$1/stat"; }

# per_message BEFORE AFTER COUNT -> "us_per_msg cpu_seconds"
per_message() { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN{printf "%.3f %.2f", (b - a) * 1e6 / n, b - a}'; }

# round BUILD SIZE COUNT: sets produce and consume to "us_per_msg cpu_seconds".
round() {
  local build=$1 size=$2 count=$3 dir before after cli="$1/client/spillway"
  broker_bin="$build/broker/spillway-broker"
  dir=$(mktemp -d "$work/run.XXXX")
  start_broker "$dir/data" "$dir/broker.log"
  before=$(cpu_seconds "$pid")
  "$cli" perf produce -b "127.0.0.1:$port" -t cpu --size "$size" -n "$count" >"$dir/produce.out"
  after=$(cpu_seconds "$pid")
  produce=$(per_message "$before" "$after" "$count")
  "$cli" perf consume -b "127.0.0.1:$port" -t cpu -n "$count" >"$dir/consume.out"
  before=$after
  after=$(cpu_seconds "$pid")
  consume=$(per_message "$before" "$after" "$count")
  stop_broker TERM
  rm -rf "$dir"
}

median() { sort -g | awk '{v[NR]=$1} END{print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

echo "broker CPU per message (us), $ROUNDS rounds, $(nproc) cores, $(uname -r)"
for build in "${builds[@]}"; do echo "  $build: $("$build/client/spillway" version 2>/dev/null | head -1)"; done
for size in $SIZES; do
  count_var="COUNT_$size"
  default=$((size <= 100 ? 12000000 : 2000000))
  count=${!count_var:-$default}
  declare -A produces=() consumes=()
  for r in $(seq "$ROUNDS"); do
    for build in "${builds[@]}"; do
      round "$build" "$size" "$count"
      read -r p pcpu <<<"$produce"
      read -r c ccpu <<<"$consume"
      echo "  $size B round $r, $build: produce $p us/msg (${pcpu} s), consume $c us/msg (${ccpu} s), $count messages"
      produces[$build]+="$p "
      consumes[$build]+="$c "
    done
  done
  for build in "${builds[@]}"; do
    # shellcheck disable=SC2086 # one reading per word
    echo "$size B median, $build: produce $(printf '%s\n' ${produces[$build]} | median) us/msg, consume $(printf '%s\n' ${consumes[$build]} | median) us/msg"
  done
  unset produces consumes
done
