#!/usr/bin/env bash
# bench/scale/startup.sh: broker start-up time with many partitions holding
# data (issue 18, "start-up proportional to what needs recovery"), from exec
# to the first answered `spillway ping`, after each kind of stop:
#
#   clean, after writes  produce SECS s, stop with SIGTERM, start
#   clean, idle          stop with SIGTERM again (nothing written), start
#   kill -9, after writes  produce SECS s, kill -9, start
#   kill -9, idle        kill -9 again (nothing written), start
#
# A start after writes also checks the bytes written since the last start
# (docs/log-storage.md, "Verified point"); an idle start has nothing new to
# check, so it shows the fixed cost per partition. ROUNDS rounds of the four
# on one data directory; the medians are printed last, with the RSS after
# the last start of each kind.
#
#   bench/scale/startup.sh [BUILD_DIR]
#   PARTITIONS=5000 SECS=3 ROUNDS=3 bench/scale/startup.sh build/release
#
# The broker listens on a free port of 127.0.0.1 (chosen once, kept across
# restarts so that ping can be polled from exec on) with a temporary data
# directory, and is stopped by PID.
set -euo pipefail
build=${1:-build/release}
PARTITIONS=${PARTITIONS:-5000}
SECS=${SECS:-3}
ROUNDS=${ROUNDS:-3}
broker_bin="$build/broker/spillway-broker"
cli="$build/client/spillway"
[[ -x "$broker_bin" && -x "$cli" ]] || { echo "usage: $0 [BUILD_DIR]" >&2; exit 2; }
work=$(mktemp -d /tmp/spillway-startup.XXXXXX)
source "$(dirname "${BASH_SOURCE[0]}")/../lib/broker.sh"
trap 'stop_broker KILL; rm -rf "$work"' EXIT
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# start_at_port LOG: starts the broker on $work/data and sets pid and
# started_ms (exec to the first answered ping).
start_at_port() {
  local log=$1 t0
  t0=$(now_ms)
  "$broker_bin" --listen "127.0.0.1:$port" --kafka-listen "" --data-dir "$work/data" >"$log" 2>&1 &
  pid=$!
  for _ in $(seq 12000); do  # a guard of about 120 s, never an assertion
    "$cli" ping --broker "127.0.0.1:$port" --timeout-ms 1000 >/dev/null 2>&1 && break
    kill -0 "$pid" 2>/dev/null || { echo "the broker did not start:" >&2; tail -5 "$log" >&2; exit 1; }
    sleep 0.01
  done
  started_ms=$(($(now_ms) - t0))
}
rss_mib() { awk '/^VmRSS:/ {print int($2 / 1024)}' "/proc/$pid/status"; }
produce() {
  "$cli" perf produce -b "127.0.0.1:$port" -t scale --size 100 -d "$SECS" >/dev/null 2>&1
}
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

echo "bench/scale/startup: $(nproc) cores, $(uname -r), ulimit -n $(ulimit -n)," \
  "$PARTITIONS partitions, $SECS s of 100 B records before each 'after writes' stop"
start_at_port "$work/create.log"
"$cli" topic create scale --partitions "$PARTITIONS" --broker "127.0.0.1:$port" \
  --timeout-ms 600000 >/dev/null
declare -A times rss
kinds=("clean, after writes" "clean, idle" "kill -9, after writes" "kill -9, idle")
for round in $(seq "$ROUNDS"); do
  line="  round $round:"
  for kind in "${kinds[@]}"; do
    [[ "$kind" == *"after writes"* ]] && produce
    if [[ "$kind" == clean* ]]; then stop_broker TERM; else stop_broker KILL; fi
    start_at_port "$work/start-$round.log"
    times[$kind]+="$started_ms "
    rss[$kind]=$(rss_mib)
    line+=" $kind ${started_ms} ms;"
  done
  echo "$line"
done
echo "medians of $ROUNDS (exec to the first answered ping), RSS after the last start:"
for kind in "${kinds[@]}"; do
  printf '  %-22s %6s ms  RSS %s MiB\n' "$kind" \
    "$(tr ' ' '\n' <<<"${times[$kind]}" | grep . | median)" "${rss[$kind]}"
done
stop_broker TERM
