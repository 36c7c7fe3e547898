#!/usr/bin/env bash
# bench/scale/run.sh: how the broker behaves as the work grows (issue 18),
# measured on this machine in one run, each figure beside its own baseline:
#
#  (a) produce throughput into a topic of 1, 100, 1,000 and 10,000
#      partitions (`spillway perf produce`, 100 B, keyed with KEYS distinct
#      keys, so the key hash spreads the records over every partition and
#      each request carries one small batch per partition), each as a
#      fraction of the 1-partition figure of the same run;
#  (b) broker RSS and open file descriptors with the largest topic holding
#      data (beside the broker's bound on open log files), and the broker's
#      CPU while that topic sits idle for IDLE_SECS (10); then, with
#      IDLE_CONNECTIONS (10,000) idle connections open, RSS per connection
#      beside the broker's RSS before them, and a ping on a new connection
#      while they are open;
#  (c) the clean stop after each (a) row (SIGTERM to exit), and start-up
#      time (exec to the "listening" log line) with the largest topic after
#      a clean stop and after kill -9.
#  (d) consume throughput of a topic read cold from the disk: COLD_MIB
#      (4,096) of 1 KiB records are written, the broker is stopped, the page
#      cache dropped (this machine has more free memory than disk bandwidth
#      makes a several-times-larger topic practical to write), the broker
#      restarted and the topic consumed from its start, then once more with
#      the files in the page cache (warm); beside it, the same segment files
#      read sequentially with dd after the cache is dropped again. Needs
#      root (/proc/sys/vm/drop_caches); says so otherwise.
#
#   bench/scale/run.sh [BUILD_DIR]
#   PARTITIONS="1 100 1000 10000" SECS=3 KEYS=100000 IDLE_CONNECTIONS=10000 COLD_MIB=4096 bench/scale/run.sh
#
# A step that fails (a topic the broker cannot create, a refused connection)
# is printed as failed with the broker's own words and the run goes on.
# Brokers listen on free ports on 127.0.0.1 with a temporary data directory
# and are stopped by PID.
set -euo pipefail
build=${1:-build/release}
PARTITIONS=${PARTITIONS:-"1 100 1000 10000"}
SECS=${SECS:-3}
KEYS=${KEYS:-100000}
IDLE_SECS=${IDLE_SECS:-10}
IDLE_CONNECTIONS=${IDLE_CONNECTIONS:-10000}
COLD_MIB=${COLD_MIB:-4096}
broker_bin="$build/broker/spillway-broker"
cli="$build/client/spillway"
[[ -x "$broker_bin" && -x "$cli" ]] || { echo "usage: $0 [BUILD_DIR] (needs broker/spillway-broker and client/spillway)" >&2; exit 2; }
work=$(mktemp -d /tmp/spillway-scale.XXXXXX)
source "$(dirname "${BASH_SOURCE[0]}")/../lib/broker.sh"
holder=""
cleanup() {
  [[ -z "$holder" ]] || kill "$holder" 2>/dev/null || true
  stop_broker KILL
  rm -rf "$work"
}
trap cleanup EXIT

rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
# The broker's own bound on open log files, from its start-up log line.
log_file_bound() { grep -oE 'log files: at most [0-9]+ open at once' "$1" | head -1 | sed 's/log files: //'; }
# Log files closed and opened again because the bound was reached, from the
# broker's /metrics (its address is in log $1).
reopens() {
  local at
  at=$(grep -oE 'metrics on [0-9.]+:[0-9]+' "$1" | head -1 | sed 's/metrics on //')
  python3 -c 'import sys, urllib.request
for line in urllib.request.urlopen(f"http://{sys.argv[1]}/metrics").read().decode().splitlines():
    if line.startswith("spillway_log_file_reopens_total "): print(line.split()[1])' "$at"
}
fds() { ls "/proc/$1/fd" | wc -l; }

echo "bench/scale: $(nproc) cores, $(uname -r), ulimit -n $(ulimit -n), $("$cli" version 2>/dev/null | head -1)"
echo
echo "(a) produce 100 B for ${SECS} s, ${KEYS} keys, into a topic of N partitions (one fresh broker per N)"
base=""
largest=""
for n in $PARTITIONS; do
  dir="$work/a-$n"
  broker_flags=(--metrics-listen 127.0.0.1:0)
  start_broker "$dir/data" "$dir.log"
  t0=$(now_ms)
  if ! out=$("$cli" topic create "scale" --partitions "$n" --broker "127.0.0.1:$port" \
    --timeout-ms 600000 2>&1); then
    echo "  $n partitions: create failed after $(($(now_ms) - t0)) ms: $out"
    stop_broker TERM
    rm -rf "$dir"
    continue
  fi
  created_ms=$(($(now_ms) - t0))
  rate=$("$cli" perf produce -b "127.0.0.1:$port" -t scale --size 100 --keys "$KEYS" -d "$SECS" 2>&1 |
    grep -oE '[0-9,]+ msg/s' | head -1 | tr -d ', msg/')
  [[ -n "$base" ]] || base=$rate
  ratio=$(awk -v r="$rate" -v b="$base" 'BEGIN{printf "%.2f", r / b}')
  echo "  $n partitions: ${rate} msg/s (${ratio}x the first row), created in ${created_ms} ms," \
    "RSS $(($(rss_kib "$pid") / 1024)) MiB, $(fds "$pid") open fds ($(log_file_bound "$dir.log")," \
    "$(reopens "$dir.log") reopens)"
  # The clean stop: every partition's log synced and marked closed.
  t0=$(now_ms)
  stop_broker TERM
  echo "    then SIGTERM to exit: $(($(now_ms) - t0)) ms"
  # The largest topic created so far is kept for (b) and (c).
  [[ -z "$largest" ]] || rm -rf "$work/a-$largest"
  largest=$n
done
[[ -n "$largest" ]] || { echo "no topic could be created"; exit 1; }

echo
echo "(b, c) the ${largest}-partition topic holding data"
dir="$work/a-$largest"
start_broker "$dir/data" "$dir.restart.log"
echo "  start-up after a clean stop: ${started_ms} ms; then RSS $(($(rss_kib "$pid") / 1024)) MiB," \
  "$(fds "$pid") open fds ($(log_file_bound "$dir.restart.log"))"
# What the idle topic costs: per-partition timers or scans would show here
# as CPU with nothing to do.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
c0=$(cpu_ticks "$pid")
sleep "$IDLE_SECS"
echo "  idle for ${IDLE_SECS} s: broker CPU $(awk -v t="$(($(cpu_ticks "$pid") - c0))" \
  -v hz="$(getconf CLK_TCK)" -v s="$IDLE_SECS" 'BEGIN { printf "%.2f %%", 100 * t / hz / s }') of one core"
stop_broker KILL
start_broker "$dir/data" "$dir.killed.log"
echo "  start-up after kill -9: ${started_ms} ms"
stop_broker TERM

# A broker of its own: the topic's descriptors and the connections' together
# would pass the machine's ulimit -n before either limit is measured. Every
# connection comes from 127.0.0.1, so the per-address limit is raised too.
echo
echo "(b) ${IDLE_CONNECTIONS} idle connections to a fresh broker"
broker_flags=(--max-connections "$((IDLE_CONNECTIONS + 10))"
              --max-connections-per-ip "$((IDLE_CONNECTIONS + 10))")
start_broker "$work/idle" "$work/idle.log"
before=$(rss_kib "$pid")
fds_before=$(fds "$pid")
# The idle connections live in one Python process (a socket each, nothing
# sent), held open until it is killed.
python3 - "$port" "$IDLE_CONNECTIONS" >"$work/holder.out" 2>&1 <<'EOF' &
import socket, sys, time
port, count = int(sys.argv[1]), int(sys.argv[2])
held = []
for i in range(count):
    try:
        held.append(socket.create_connection(("127.0.0.1", port)))
    except OSError as e:
        print(f"connection {i + 1}: {e}", flush=True)
        break
print(f"open {len(held)}", flush=True)
time.sleep(3600)
EOF
holder=$!
for _ in $(seq 6000); do grep -q '^open\|^connection' "$work/holder.out" && break; sleep 0.01; done
opened=$(grep -oE '^open [0-9]+' "$work/holder.out" | awk '{print $2}')
# Measured once the broker holds every connection the kernel queued for it
# (a descriptor each); the wait is bounded, never an assertion.
for _ in $(seq 1000); do
  (($(fds "$pid") >= fds_before + ${opened:-0})) && break
  sleep 0.01
done
after=$(rss_kib "$pid")
grep '^connection' "$work/holder.out" | sed 's/^/  failed: /' || true
if [[ "${opened:-0}" -gt 0 ]]; then
  echo "  ${opened} idle connections: RSS $((before / 1024)) -> $((after / 1024)) MiB," \
    "$(awk -v a="$after" -v b="$before" -v n="$opened" 'BEGIN{printf "%.1f", (a - b) / n}') KiB each," \
    "$(fds "$pid") open fds"
fi
if ping=$("$cli" ping --broker "127.0.0.1:$port" 2>&1 | head -1) && [[ "$ping" == *"round trip"* ]]; then
  echo "  a ping on a new connection meanwhile: ${ping}"
else
  echo "  a ping on a new connection meanwhile failed: ${ping}"
fi
kill "$holder" 2>/dev/null || true
holder=""
stop_broker TERM
broker_flags=()

echo
echo "(d) consume ${COLD_MIB} MiB of 1 KiB records read cold from the disk"
drop_caches() { sync && echo 3 >/proc/sys/vm/drop_caches 2>/dev/null; }
if ! drop_caches; then
  echo "  skipped: cannot drop the page cache here (needs root and a writable /proc/sys/vm)"
  exit 0
fi
count=$((COLD_MIB * 1024))
start_broker "$work/cold" "$work/cold.log"
"$cli" topic create cold --broker "127.0.0.1:$port" >/dev/null
"$cli" perf produce -b "127.0.0.1:$port" -t cold --size 1024 -n "$count" >/dev/null
stop_broker TERM
drop_caches
start_broker "$work/cold" "$work/cold.restart.log"
t0=$(now_ms)
"$cli" perf consume -b "127.0.0.1:$port" -t cold -n "$count" >"$work/cold.consume" 2>&1
consume_ms=$(($(now_ms) - t0))
# The same read again with the files now in the page cache: what the
# consumer and the broker manage when the disk is not in the way.
t0=$(now_ms)
"$cli" perf consume -b "127.0.0.1:$port" -t cold -n "$count" >"$work/warm.consume" 2>&1
warm_ms=$(($(now_ms) - t0))
stop_broker TERM
log_bytes=$(cat "$work"/cold/topics/cold/0/*.log | wc -c)
drop_caches
t0=$(now_ms)
for f in "$work"/cold/topics/cold/0/*.log; do dd if="$f" of=/dev/null bs=1M status=none; done
read_ms=$(($(now_ms) - t0))
awk -v b="$log_bytes" -v c="$consume_ms" -v w="$warm_ms" -v r="$read_ms" 'BEGIN {
  printf "  broker consume, cold: %.0f MB/s of log (%.1f s, client start-up included); dd of the same files, cold: %.0f MB/s; ratio %.2f\n",
    b / c / 1000, c / 1000, b / r / 1000, (b / c) / (b / r)
  printf "  broker consume again, warm (page cache): %.0f MB/s (%.1f s)\n", b / w / 1000, w / 1000 }'
