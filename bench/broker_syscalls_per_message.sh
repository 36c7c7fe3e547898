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
#   RATE=20000 SIZE=1024 COUNT=60000 bench/broker_syscalls_per_message.sh build/release /tmp/old-broker
#
# The client (BUILD_DIR/client/spillway) is the same for both.
set -euo pipefail
build=${1:-build/release}
other=${2:-}
RATE=${RATE:-20000}
SIZE=${SIZE:-1024}
COUNT=${COUNT:-60000}
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

measure() {
  broker_bin=$1
  local dir
  dir=$(mktemp -d "$work/run.XXXX")
  start_broker "$dir/data" "$dir/broker.log"
  "$cli" topic create -b "127.0.0.1:$port" perf >/dev/null
  perf stat -x, -o "$dir/stat.txt" -p "$pid" \
    -e syscalls:sys_enter_recvfrom -e syscalls:sys_exit_recvfrom --filter 'ret == -11' \
    -e syscalls:sys_enter_epoll_wait -e syscalls:sys_enter_sendmsg -e raw_syscalls:sys_enter &
  tracer=$!
  sleep 0.5  # perf attaches to every thread before the run starts
  "$cli" perf e2e -b "127.0.0.1:$port" -t perf --size "$SIZE" --rate "$RATE" -n "$COUNT" \
    --linger-ms 0 >"$dir/e2e.out"
  kill -INT "$tracer"
  wait "$tracer" 2>/dev/null || true
  tracer=""
  stop_broker TERM
  # perf stat -x, lines: COUNT,UNIT,EVENT,...
  awk -F, -v b="$broker_bin" -v n="$COUNT" '
    $3 == "syscalls:sys_enter_recvfrom" { r = $1 }
    $3 == "syscalls:sys_exit_recvfrom" { e = $1 }
    $3 == "syscalls:sys_enter_epoll_wait" { w = $1 }
    $3 == "syscalls:sys_enter_sendmsg" { s = $1 }
    $3 == "raw_syscalls:sys_enter" { t = $1 }
    END { printf "%-40s recvfrom %.2f (EAGAIN %.2f)  epoll_wait %.2f  sendmsg %.2f  all %.2f per message\n",
            b, r / n, e / n, w / n, s / n, t / n }' "$dir/stat.txt"
  grep -E "p50|p99" "$dir/e2e.out" | head -3 | sed 's/^/    /'
}

echo "broker system calls per message: perf e2e $COUNT x $SIZE B at $RATE msg/s, linger 0"
measure "$build/broker/spillway-broker"
[[ -n "$other" ]] && measure "$other"
exit 0
