#!/usr/bin/env bash
# bench/compare/e2e_ab.sh: end-to-end latency of several Spillway brokers
# (and Redis Streams) in interleaved rounds, the A/B that issue 18's public
# API target needs: the rounds of one build spread over 100-300 µs between
# runs on this VM, so builds are compared only inside one run.
#
#   bench/compare/e2e_ab.sh BROKER_A BROKER_B ...
#   bench/compare/e2e_ab.sh BROKER,CLI_A BROKER,CLI_B   (client builds)
#   ROUNDS=8 SECS=3 RATE=20000 CLI=build/release/client/spillway bench/compare/e2e_ab.sh A B
#
# Each BROKER is a spillway-broker binary (copy one aside before rebuilding
# to keep it), optionally with the `spillway` CLI to drive it (CLI by
# default). Every round starts each broker in turn on a free port with a
# fresh data directory (`--flush-policy interval`, the compare run's), runs
# `spillway perf e2e --size 1024 --rate RATE --acks leader --linger-ms 0`,
# stops it by PID, then
# runs `redis_bench latency` against one Redis server started for the run
# (REDIS=0 leaves Redis out). Prints every round and the medians of p50,
# p99 and p99.9 per broker.
set -euo pipefail
(($# >= 1)) || { echo "usage: e2e_ab.sh BROKER_A [BROKER_B ...]" >&2; exit 2; }
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ROUNDS=${ROUNDS:-6}
SECS=${SECS:-3}
RATE=${RATE:-20000}
REDIS=${REDIS:-1}
CLI=${CLI:-$root/build/release/client/spillway}
work=$(mktemp -d /tmp/spillway-e2e-ab.XXXXXX)
# Brokers start and stop through bench/lib/broker.sh (pid, port).
broker_flags=(--flush-policy interval)
source "$root/bench/lib/broker.sh"
pids=()
cleanup() {
  stop_broker KILL
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

redis_bench=""
redis_port=""
if [[ $REDIS == 1 ]]; then
  command -v redis-server >/dev/null && [[ -f /usr/include/hiredis/hiredis.h ]] || {
    echo "e2e_ab.sh: Redis needs redis-server and libhiredis-dev (bench/compare/run.sh installs both)" >&2
    exit 1
  }
  redis_bench=$work/redis_bench
  gcc -O2 -o "$redis_bench" "$root/bench/compare/redis_bench.c" -lhiredis -lpthread
  # A port nothing listens on: a refused connect means free.
  for _ in $(seq 1 50); do
    p=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then redis_port=$p; break; fi
  done
  mkdir -p "$work/redis-data"
  # AOF with fsync every second, as bench/compare/run.sh runs it.
  redis-server --port "$redis_port" --bind 127.0.0.1 --dir "$work/redis-data" --save "" \
    --appendonly yes --appendfsync everysec >"$work/redis.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$redis_port") 2>/dev/null && break
    sleep 0.1
  done
fi

# run_broker INDEX BROKER[,CLI]: sets res to "p50 p99 p999" in µs. In this
# shell, not in $(...), so that cleanup() can stop the broker it started.
run_broker() {
  local i=$1 cli=$CLI dir out
  broker_bin=${2%%,*}
  [[ $2 != *,* ]] || cli=${2#*,}
  dir=$(mktemp -d "$work/run.XXXX")
  start_broker "$dir/data" "$dir/log"
  out=$("$cli" perf e2e --broker "127.0.0.1:$port" --topic "lat-$i" --size 1024 --rate "$RATE" \
    --duration "$SECS" --acks leader --linger-ms 0 --json)
  stop_broker TERM
  rm -rf "$dir"
  res=$(python3 -c 'import json,sys; d=json.loads(sys.argv[1])["latency_us"]; print(d["p50"], d["p99"], d["p99.9"])' "$out")
}

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

for r in $(seq 1 "$ROUNDS"); do
  line="round $r:"
  for i in $(seq 1 $#); do
    bin=${!i}
    run_broker "$i" "$bin"
    echo "$res" >>"$work/b$i"
    line+="  [$i] $res"
  done
  if [[ -n $redis_bench ]]; then
    out=$("$redis_bench" "$redis_port" latency 1024 "$RATE" "$SECS")
    res=$(python3 -c '
import re, sys
f = dict(re.findall(r"(\w+)=([0-9.]+)", sys.argv[1]))
print(f["p50_us"], f["p99_us"], f["p999_us"])' "$out")
    echo "$res" >>"$work/redis"
    line+="  [redis] $res"
  fi
  echo "$line  (p50 p99 p99.9 µs)"
done

names=()
for i in $(seq 1 $#); do names+=("b$i"); done
[[ -n $redis_bench ]] && names+=(redis)
for n in "${names[@]}"; do
  label=$n
  [[ $n == b* ]] && { idx=${n#b}; label="[$idx] ${!idx}"; }
  printf 'median %-50s p50 %7.0f  p99 %7.0f  p99.9 %7.0f µs\n' "$label" \
    "$(cut -d' ' -f1 "$work/$n" | median)" "$(cut -d' ' -f2 "$work/$n" | median)" \
    "$(cut -d' ' -f3 "$work/$n" | median)"
done
