#!/usr/bin/env bash
# The broker's system calls per message while `spillway perf e2e` sends a
# fixed rate of messages (issue 18: "read with one recv ... instead of header
# and body separately (today about 5 recvfrom per message at 20k msg/s, a
# third of them EAGAIN)"). `perf stat` counts the syscall tracepoints of
# every broker thread during the run (strace would slow each call enough to
# change how the client batches). Each broker given is run in turn, fresh
# data directory each, so two builds compare in one run:
#
#   bench/broker_syscalls_per_message.sh BUILD_DIR [OTHER_BROKER_BINARY]
#   RATE=20000 SIZE=1024 COUNT=60000 ROUNDS=5 bench/broker_syscalls_per_message.sh build/release /tmp/old-broker
#
# Prints the median over ROUNDS interleaved rounds of each call per message,
# and the e2e p50 and p99.9 (µs).
#
# The client (BUILD_DIR/client/spillway) is the same for both.
set -euo pipefail
build=${1:-build/release}
other=${2:-}
RATE=${RATE:-20000}
SIZE=${SIZE:-1024}
COUNT=${COUNT:-60000}
ROUNDS=${ROUNDS:-1}
cli="$build/client/spillway"
[[ -x "$cli" ]] || { echo "usage: $0 BUILD_DIR [OTHER_BROKER_BINARY]" >&2; exit 2; }
command -v perf >/dev/null || { echo "$0: needs perf (apt-get install linux-perf)" >&2; exit 2; }
work=$(mktemp -d /tmp/spillway-syscalls.XXXXXX)
source "$(dirname "${BASH_SOURCE[0]}")/lib/broker.sh"
tracer=""
cleanup() {
  [[ -n "$tracer" ]] && kill -INT "$tracer" 2>/dev/null || true
  stop_broker KILL
  rm -rf "$work"
}
trap cleanup EXIT

# The calls counted one by one (the rest show only in "all"): the read and
# write paths, the reactor, and the wake-ups between threads.
calls=(recvfrom sendmsg sendto writev write pwrite64 pwritev fdatasync epoll_wait epoll_ctl
  futex io_uring_enter read timerfd_settime)

measure() {
  broker_bin=$1
  local dir events=() c
  dir=$(mktemp -d "$work/run.XXXX")
  start_broker "$dir/data" "$dir/broker.log"
  "$cli" topic create -b "127.0.0.1:$port" perf >/dev/null
  for c in "${calls[@]}"; do events+=(-e "syscalls:sys_enter_$c"); done
  perf stat -x, -o "$dir/stat.txt" -p "$pid" "${events[@]}" \
    -e syscalls:sys_exit_recvfrom --filter 'ret == -11' -e raw_syscalls:sys_enter &
  tracer=$!
  sleep 0.5  # perf attaches to every thread before the run starts
  "$cli" perf e2e -b "127.0.0.1:$port" -t perf --size "$SIZE" --rate "$RATE" -n "$COUNT" \
    --linger-ms 0 >"$dir/e2e.out"
  kill -INT "$tracer"
  wait "$tracer" 2>/dev/null || true
  tracer=""
  stop_broker TERM
  # perf stat -x, lines: COUNT,UNIT,EVENT,...; one line per call, per message.
  awk -F, -v b="$2" -v n="$COUNT" '
    $3 == "syscalls:sys_exit_recvfrom" { printf "%s recvfrom-EAGAIN %.3f\n", b, $1 / n; next }
    $3 == "raw_syscalls:sys_enter" { printf "%s all %.3f\n", b, $1 / n; next }
    $3 ~ /^syscalls:sys_enter_/ { c = $3; sub(/.*sys_enter_/, "", c); printf "%s %s %.3f\n", b, c, $1 / n }
  ' "$dir/stat.txt" >>"$work/counts"
  awk -v b="$2" '/p50/ {
      for (i = 1; i < NF; i++) if ($i == "p50" || $i == "p99.9") {
        us = $(i + 1) * ($(i + 2) == "ms" ? 1000 : $(i + 2) == "s" ? 1000000 : 1)
        printf "%s e2e-%s-us %.0f\n", b, $i, us
      }
    }' "$dir/e2e.out" >>"$work/counts"
}

brokers=("$build/broker/spillway-broker")
[[ -n "$other" ]] && brokers+=("$other")
echo "broker system calls per message: perf e2e $COUNT x $SIZE B at $RATE msg/s, linger 0, $ROUNDS round(s)"
for ((r = 0; r < ROUNDS; r++)); do  # interleaved, so drift hits both alike
  for i in "${!brokers[@]}"; do measure "${brokers[$i]}" "$i"; done
done
# Medians over the rounds, one column per broker.
for i in "${!brokers[@]}"; do echo "  [$i] ${brokers[$i]}"; done
# (POSIX awk: Debian's default mawk has no asort, hence the insertion sort.)
awk 'function median(s,    xs, k, i, j, t) {
    k = split(s, xs, " ")
    for (i = 2; i <= k; i++) {
      t = xs[i] + 0
      for (j = i - 1; j >= 1 && xs[j] + 0 > t; j--) xs[j + 1] = xs[j]
      xs[j + 1] = t
    }
    return k ? xs[int((k + 1) / 2)] : "-"
  }
  { v[$2, $1] = v[$2, $1] " " $3; names[$2] = 1; if ($1 + 1 > nb) nb = $1 + 1 }
  END {
    for (c in names) {
      line = sprintf("  %-16s", c)
      for (b = 0; b < nb; b++) line = line sprintf(" %10s", median(substr(v[c, b], 2)))
      print line
    }
  }' "$work/counts" | sort
exit 0
