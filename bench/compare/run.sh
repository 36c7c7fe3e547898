#!/usr/bin/env bash
# bench/compare/run.sh: Spillway beside NATS JetStream and Redis Streams and
# beside the machine's own ceilings (TCP loopback, buffered file appends,
# timer wake-up lateness), all measured in one run on this machine. Prints a
# table of medians, absolute and as ratios.
#
#   bench/compare/run.sh            # REPEATS=3 SECS=2 LAT_SECS=3 by default
#   RELEASE=build/x SKIP_BUILD=1 bench/compare/run.sh   # use an existing build
#
# What it does (docs/performance.md explains the choices):
#  1. installs what is missing (apt-get: nats-server libnats-dev redis-server
#     libhiredis-dev), compiles its small clients and baselines with gcc/g++
#     into build/compare/ (they are not CMake targets, so the main build
#     never depends on the peers' libraries), and builds spillway-broker and
#     spillway in build/release;
#  2. starts each server on 127.0.0.1 on a free port with a temporary data
#     directory, and stops it by PID (also on Ctrl-C or error);
#  3. repeats each measurement REPEATS times and reports medians:
#     raw TCP 1 KiB and 64 KiB writes; produce and consume of 100 B and
#     1 KiB messages (one producer, one consumer); end-to-end latency at
#     20,000 msg/s of 1 KiB; Spillway `durable` with 1 and 8 producers.
#  4. measures two more ceilings of the machine itself, because raw TCP alone
#     cannot judge every target on a small VM:
#     - raw file append (file_append.cc): 256 KiB pwrite()s to a new file in
#       $WORK, the directory the brokers store into, for SECS, then one
#       fdatasync (timed, not counted in the rate) and the file is deleted.
#       It runs right before each Spillway produce run, under the same
#       conditions; writing new page-cache pages is sometimes very slow on
#       this VM, and any broker that stores data is bounded by it. Produce
#       rows show their fraction of it in the "of file" column.
#     - timer wake-up lateness (wake_jitter.c): a thread paced at RATE on
#       absolute deadlines with the peers' own wait (bench_util.h: timer
#       slack 1 us, clock_nanosleep TIMER_ABSTIME, no spinning), recording
#       how late each wake-up is, for LAT_SECS in every latency round. It is
#       the floor of the latency table: no system's latency, measured from
#       the intended send time, can be lower.
# The Spillway rows are skipped, with a message, while `spillway perf`
# cannot run yet.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${OUT:-$ROOT/build/compare}
RELEASE=${RELEASE:-$ROOT/build/release}
REPEATS=${REPEATS:-3}
SECS=${SECS:-2}          # each throughput measurement
LAT_SECS=${LAT_SECS:-3}  # each fixed-rate latency measurement
RATE=${RATE:-20000}      # messages/s of the latency run
BIN=$OUT/bin
WORK=$(mktemp -d /tmp/spillway-compare.XXXXXX)
PIDS=()

log() { printf '%s\n' "$*" >&2; }

cleanup() {
  for pid in "${PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- setup
install_missing() {
  local missing=()
  for pkg in nats-server libnats-dev redis-server libhiredis-dev gcc g++ cmake ninja-build; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$pkg")
  done
  if ((${#missing[@]})); then
    log "installing: ${missing[*]}"
    local sudo=""
    [[ $(id -u) -eq 0 ]] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
      "${missing[@]}" >/dev/null
  fi
}

build_clients() {
  mkdir -p "$BIN"
  local here=$ROOT/bench/compare
  g++ -std=c++20 -O2 -Wall -Wextra -pthread -o "$BIN/tcp_loopback" "$here/tcp_loopback.cc"
  gcc -O2 -Wall -Wextra -o "$BIN/nats_bench" "$here/nats_bench.c" -lnats -lpthread
  gcc -O2 -Wall -Wextra -o "$BIN/redis_bench" "$here/redis_bench.c" -lhiredis -lpthread
  g++ -std=c++20 -O2 -Wall -Wextra -o "$BIN/file_append" "$here/file_append.cc"
  gcc -O2 -Wall -Wextra -o "$BIN/wake_jitter" "$here/wake_jitter.c"
}

build_spillway() {
  mkdir -p "$OUT"
  if [[ ${SKIP_BUILD:-0} == 1 ]]; then return 0; fi  # use the binaries in $RELEASE as they are
  # An existing build tree keeps its own options (configuring it here with
  # tests off would flip the cache of the tree scripts/dev.sh uses); only the
  # two targets are built.
  local configure=(true)
  [[ -f $RELEASE/CMakeCache.txt ]] ||
    configure=(cmake -S "$ROOT" -B "$RELEASE" -G Ninja -DCMAKE_BUILD_TYPE=Release)
  if ! { "${configure[@]}" &&
    cmake --build "$RELEASE" --target spillway-broker spillway -j"$(nproc)"; } \
    >"$OUT/spillway-build.log" 2>&1; then
    SPILLWAY_WHY="spillway did not build (see $OUT/spillway-build.log)"
    return 1
  fi
}

# A port nothing listens on (bash's /dev/tcp: a refused connect means free).
free_port() {
  local port
  for _ in $(seq 100); do
    port=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return
    fi
  done
  log "no free port found"
  exit 1
}

wait_for_port() {
  local port=$1 pid=$2
  for _ in $(seq 200); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || { log "server (pid $pid) exited before listening"; return 1; }
    sleep 0.05
  done
  log "nothing listens on port $port"
  return 1
}

# start_server NAME PORT COMMAND...: runs it in the background, logs to
# $WORK/NAME.log, sets SERVER_PID once the port accepts.
start_server() {
  local name=$1 port=$2
  shift 2
  "$@" >"$WORK/$name.log" 2>&1 &
  SERVER_PID=$!
  PIDS+=("$SERVER_PID")
  if ! wait_for_port "$port" "$SERVER_PID"; then
    tail -5 "$WORK/$name.log" >&2
    return 1
  fi
}

stop_server() {
  local pid=$1
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# ----------------------------------------------------------- collection
# Every sample goes to $WORK/samples as "KEY VALUE"; medians are taken at
# the end. field LINE NAME: the value of NAME=... in a RESULT line; jfield
# JSON NAME: the number after "NAME": in `spillway perf --json` output.
# A missing value (a failed run) adds no sample; its row then reads
# "pending" or uses the runs that worked.
add_sample() { [[ -z $2 ]] || echo "$1 $2" >>"$WORK/samples"; }
field() { sed -n "s/.* $2=\([0-9.]*\).*/\1/p" <<<"$1" | head -1; }      # RESULT lines
jfield() { sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p" <<<"$1" | head -1; }  # --json output
median() {
  local values
  values=$(awk -v k="$1" '$1 == k { print $2 }' "$WORK/samples" 2>/dev/null | sort -g)
  [[ -n $values ]] || { echo ""; return; }
  awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }' <<<"$values"
}

run_raw() {
  local size=$1 line
  line=$("$BIN/tcp_loopback" "$size" "$SECS") || log "failed: $BIN/tcp_loopback "
  add_sample "raw.$size.mbs" "$(field "$line" mb_per_s)"
}

# Buffered appends to a new file in $WORK (the brokers' filesystem), then one
# fdatasync that is timed but not counted in the rate.
run_file_append() {
  local line
  line=$("$BIN/file_append" "$WORK" "$SECS") || log "failed: $BIN/file_append"
  add_sample file.mbs "$(field "$line" mb_per_s)"
  add_sample file.bytes "$(field "$line" bytes)"
  add_sample file.sync_ms "$(field "$line" fdatasync_ms)"
}

# How late a thread paced at RATE wakes up, with nothing else in the path.
run_wake_jitter() {
  local out
  out=$("$BIN/wake_jitter" "$RATE" "$LAT_SECS") || log "failed: $BIN/wake_jitter"
  for p in p50_us p99_us p999_us max_us; do add_sample "machine.lat.$p" "$(field "$out" $p)"; done
}

# ---------------------------------------------------------------- Redis
REDIS_PORT=""
start_redis() {
  REDIS_PORT=$(free_port)
  mkdir -p "$WORK/redis"
  # AOF with fsync every second: the same guarantee as Spillway's
  # `interval` flush (page cache now, fsync on a timer).
  start_server redis "$REDIS_PORT" redis-server --port "$REDIS_PORT" --bind 127.0.0.1 \
    --dir "$WORK/redis" --save "" --appendonly yes --appendfsync everysec
  REDIS_PID=$SERVER_PID
}

run_redis() {
  local size=$1 out
  out=$("$BIN/redis_bench" "$REDIS_PORT" produce "$size" "$SECS") || log "failed: $BIN/redis_bench "
  add_sample "redis.produce.$size.mps" "$(field "$(grep 'RESULT produce' <<<"$out")" msg_per_s)"
  add_sample "redis.produce.$size.p99" "$(field "$(grep 'RESULT latency' <<<"$out")" p99_us)"
  out=$("$BIN/redis_bench" "$REDIS_PORT" consume "$size") || log "failed: $BIN/redis_bench "
  add_sample "redis.consume.$size.mps" "$(field "$out" msg_per_s)"
}

run_redis_latency() {
  local out
  out=$("$BIN/redis_bench" "$REDIS_PORT" latency 1024 "$RATE" "$LAT_SECS") || log "failed: $BIN/redis_bench "
  for p in p50_us p99_us p999_us max_us; do add_sample "redis.lat.$p" "$(field "$out" $p)"; done
}

# ----------------------------------------------------------------- NATS
NATS_URL=""
start_nats() {
  local port
  port=$(free_port)
  NATS_URL=nats://127.0.0.1:$port
  start_server nats "$port" nats-server -js -a 127.0.0.1 -p "$port" -sd "$WORK/nats"
  NATS_PID=$SERVER_PID
}

run_nats() {
  local size=$1 out
  out=$("$BIN/nats_bench" "$NATS_URL" produce "$size" "$SECS") || log "failed: $BIN/nats_bench "
  add_sample "nats.produce.$size.mps" "$(field "$out" msg_per_s)"
  out=$("$BIN/nats_bench" "$NATS_URL" consume "$size") || log "failed: $BIN/nats_bench "
  add_sample "nats.consume.$size.mps" "$(field "$out" msg_per_s)"
}

run_nats_latency() {
  local out
  out=$("$BIN/nats_bench" "$NATS_URL" latency 1024 "$RATE" "$LAT_SECS") || log "failed: $BIN/nats_bench "
  for p in p50_us p99_us p999_us max_us; do add_sample "nats.lat.$p" "$(field "$out" $p)"; done
}

# ------------------------------------------------------------- Spillway
SPILLWAY_BROKER=""
SPILLWAY_PID=""
SPILLWAY=$RELEASE/client/spillway
start_spillway() {  # start_spillway FLUSH_POLICY
  local port
  port=$(free_port)
  SPILLWAY_BROKER=127.0.0.1:$port
  rm -rf "$WORK/spillway"
  mkdir -p "$WORK/spillway"
  start_server spillway "$port" "$RELEASE/broker/spillway-broker" --listen "$SPILLWAY_BROKER" \
    --data-dir "$WORK/spillway" --flush-policy "$1" --auto-create-topics true \
    --default-partitions 1 --log-level warn
  SPILLWAY_PID=$SERVER_PID
}

# spillway_perf ARGS...: one `spillway perf` run against the running broker, JSON out.
spillway_perf() { "$SPILLWAY" perf "$@" --broker "$SPILLWAY_BROKER" --json; }

SPILLWAY_TOPIC_SEQ=0
run_spillway() {
  local size=$1 out topic
  SPILLWAY_TOPIC_SEQ=$((SPILLWAY_TOPIC_SEQ + 1))
  topic=bench-$size-$SPILLWAY_TOPIC_SEQ
  out=$(spillway_perf produce --topic "$topic" --size "$size" --duration "$SECS" --acks leader) || log "failed: spillway perf"
  add_sample "spillway.produce.$size.mps" "$(jfield "$out" messages_per_s)"
  out=$(spillway_perf consume --topic "$topic" --size "$size") || log "failed: spillway perf"
  add_sample "spillway.consume.$size.mps" "$(jfield "$out" messages_per_s)"
}

run_spillway_latency() {
  local out
  SPILLWAY_TOPIC_SEQ=$((SPILLWAY_TOPIC_SEQ + 1))
  # linger 0: a batch leaves as soon as the connection is free, as NATS and
  # Redis send each message at once (batches still form behind a request).
  out=$(spillway_perf e2e --topic "lat-$SPILLWAY_TOPIC_SEQ" --size 1024 --rate "$RATE" \
    --duration "$LAT_SECS" --acks leader --linger-ms 0) || log "failed: spillway perf e2e"
  add_sample spillway.lat.p50_us "$(jfield "$out" p50)"
  add_sample spillway.lat.p99_us "$(jfield "$out" p99)"
  add_sample spillway.lat.p999_us "$(jfield "$out" p99.9)"
  add_sample spillway.lat.max_us "$(jfield "$out" max)"
}

# Each producer keeps at most 256 messages unacknowledged, as deep as the
# Redis client's XADD pipeline, so the two p99s are measured alike.
run_spillway_durable() {
  local producers=$1 out
  SPILLWAY_TOPIC_SEQ=$((SPILLWAY_TOPIC_SEQ + 1))
  out=$(spillway_perf produce --topic "durable-$SPILLWAY_TOPIC_SEQ" --size 1024 \
    --duration "$SECS" --producers "$producers" --acks durable --window 256) || log "failed: spillway perf produce (durable)"
  add_sample "spillway.durable.$producers.mps" "$(jfield "$out" messages_per_s)"
  add_sample "spillway.durable.$producers.p99" "$(jfield "$out" p99)"
}

# True when this tree's `spillway perf` can produce to a broker.
spillway_available() {
  [[ -x $SPILLWAY && -x $RELEASE/broker/spillway-broker ]] || return 1
  "$SPILLWAY" perf --help 2>/dev/null | grep -q produce || {
    SPILLWAY_WHY="this tree's spillway has no perf subcommand"
    return 1
  }
  start_spillway interval || return 1
  local out
  out=$(spillway_perf produce --topic probe --size 100 --count 100 --acks leader \
    2>"$WORK/probe.err") || {
    SPILLWAY_WHY=$(tail -1 "$WORK/probe.err")
    stop_server "$SPILLWAY_PID"
    return 1
  }
  [[ -n $(jfield "$out" messages_per_s) ]]
}

# ---------------------------------------------------------------- main
START=$(date +%s)
install_missing
log "building the peer clients in $BIN"
build_clients
HAVE_SPILLWAY=0
SPILLWAY_WHY="spillway perf is not functional in this tree yet"
log "building spillway-broker and spillway in $RELEASE"
if build_spillway && spillway_available; then
  HAVE_SPILLWAY=1
else
  log "SKIPPING the Spillway rows: $SPILLWAY_WHY"
fi

MEASURE_START=$(date +%s)
start_redis
start_nats
for r in $(seq "$REPEATS"); do
  log "round $r/$REPEATS: throughput"
  run_raw 1024
  run_raw 65536
  for size in 100 1024; do
    run_redis "$size"
    run_nats "$size"
    run_file_append  # the storage ceiling, right before Spillway's produce run
    if ((HAVE_SPILLWAY)); then run_spillway "$size"; fi
  done
done
for r in $(seq "$REPEATS"); do
  log "round $r/$REPEATS: latency at $RATE msg/s"
  run_wake_jitter
  run_redis_latency
  run_nats_latency
  if ((HAVE_SPILLWAY)); then run_spillway_latency; fi
done
stop_server "$NATS_PID"
if ((HAVE_SPILLWAY)); then
  stop_server "$SPILLWAY_PID"
  start_spillway durable
  for r in $(seq "$REPEATS"); do
    log "round $r/$REPEATS: durable flush"
    run_spillway_durable 1
    run_spillway_durable 8
  done
  stop_server "$SPILLWAY_PID"
fi
stop_server "$REDIS_PID"

# ---------------------------------------------------------------- table
RAW64=$(median raw.65536.mbs)
RAW1=$(median raw.1024.mbs)
FILE=$(median file.mbs)
# ratio A B: A/B to two decimals, "-" when either is missing.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "-"; else printf "%.2fx", a / b }'; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "-"; else printf "%.1f%%", 100 * a / b }'; }
num() { awk -v v="$1" -v d="${2:-0}" 'BEGIN { if (v == "") print "pending"; else printf "%.*f", d, v }'; }
mbs() { awk -v m="$1" -v s="$2" 'BEGIN { if (m == "") print ""; else printf "%.1f", m * s / 1e6 }'; }

echo
echo "bench/compare: medians of $REPEATS runs ($SECS s throughput, $LAT_SECS s latency) on $(nproc) cores, $(uname -r)"
echo "NATS $(nats-server --version 2>/dev/null | head -1 | awk '{print $NF}'), Redis $(redis-server --version | sed -n 's/.*v=\([^ ]*\).*/\1/p'); Redis AOF appendfsync everysec, Spillway flush interval, acks=leader"
echo
printf '%-34s %12s %10s %10s %9s %9s %8s\n' "throughput" "msg/s" "MB/s" "of raw64K" "x NATS" "x Redis" "of file"
printf '%-34s %12s %10s %10s\n' "raw TCP loopback, 1 KiB writes" "-" "$(num "$RAW1" 1)" "$(pct "$RAW1" "$RAW64")"
printf '%-34s %12s %10s %10s\n' "raw TCP loopback, 64 KiB writes" "-" "$(num "$RAW64" 1)" "100.0%"
printf '%-34s %12s %10s %10s %9s %9s %8s\n' "raw file append, 256 KiB pwrite" "-" "$(num "$FILE" 1)" \
  "$(pct "$FILE" "$RAW64")" "" "" "$([[ -n $FILE ]] && echo 100.0%)"
for op in produce consume; do
  for size in 100 1024; do
    label="$op $( ((size == 100)) && echo "100 B" || echo "1 KiB")"
    nats=$(median "nats.$op.$size.mps")
    redis=$(median "redis.$op.$size.mps")
    spill=$(median "spillway.$op.$size.mps")
    for sys in Spillway "NATS JetStream" "Redis Streams"; do
      case $sys in
        Spillway) v=$spill x1=$(ratio "$spill" "$nats") x2=$(ratio "$spill" "$redis") ;;
        NATS*) v=$nats x1="" x2=$(ratio "$nats" "$redis") ;;
        Redis*) v=$redis x1=$(ratio "$redis" "$nats") x2="" ;;
      esac
      m=$(mbs "$v" "$size")
      of_file=""  # only produce stores data; consume reads it back
      [[ $op == produce ]] && of_file=$(pct "$m" "$FILE")
      printf '%-34s %12s %10s %10s %9s %9s %8s\n' "$label, $sys" "$(num "$v")" "$(num "$m" 1)" \
        "$(pct "$m" "$RAW64")" "$x1" "$x2" "$of_file"
    done
  done
done
if [[ -n $FILE ]]; then
  file_range=$(awk '$1 == "file.mbs" { v = $2 + 0; if (n++ == 0 || v < lo) lo = v; if (v > hi) hi = v }
    END { printf "%.0f-%.0f", lo, hi }' "$WORK/samples")
  echo "raw file append: $file_range MB/s over $(grep -c '^file.mbs ' "$WORK/samples") runs (it varies on this VM);" \
    "a median $(num "$(mbs "$(median file.bytes)" 1)" 0) MB per run"
  echo "  to a new file on $(df --output=fstype "$WORK" | tail -1) under /tmp; the final fdatasync (not counted)" \
    "took a median $(num "$(median file.sync_ms)" 0) ms"
fi
echo
printf '%-34s %10s %10s %10s %10s %12s\n' "latency, $RATE msg/s of 1 KiB (us)" p50 p99 p99.9 max "p99 vs best"
printf '%-34s %10s %10s %10s %10s %12s\n' "machine: timer wake-up lateness" \
  "$(num "$(median machine.lat.p50_us)" 1)" "$(num "$(median machine.lat.p99_us)" 1)" \
  "$(num "$(median machine.lat.p999_us)" 1)" "$(num "$(median machine.lat.max_us)" 1)" "(floor)"
best_peer=$(awk -v a="$(median nats.lat.p99_us)" -v b="$(median redis.lat.p99_us)" 'BEGIN { if (a == "") print b; else if (b == "" || a < b) print a; else print b }')
for sys in spillway nats redis; do
  case $sys in spillway) name=Spillway ;; nats) name="NATS JetStream" ;; redis) name="Redis Streams" ;; esac
  printf '%-34s %10s %10s %10s %10s %12s\n' "$name" "$(num "$(median $sys.lat.p50_us)" 1)" \
    "$(num "$(median $sys.lat.p99_us)" 1)" "$(num "$(median $sys.lat.p999_us)" 1)" \
    "$(num "$(median $sys.lat.max_us)" 1)" "$(ratio "$(median $sys.lat.p99_us)" "$best_peer")"
done
echo
printf '%-34s %12s %10s %12s\n' "durable, 1 KiB produce" "msg/s" "p99 (us)" "vs 1 prod."
d1=$(median spillway.durable.1.mps)
d8=$(median spillway.durable.8.mps)
printf '%-34s %12s %10s %12s\n' "Spillway durable, 1 producer" "$(num "$d1")" "$(num "$(median spillway.durable.1.p99)" 1)" "1.00x"
printf '%-34s %12s %10s %12s\n' "Spillway durable, 8 producers" "$(num "$d8")" "$(num "$(median spillway.durable.8.p99)" 1)" "$(ratio "$d8" "$d1")"
printf '%-34s %12s %10s\n' "Redis Streams, appendfsync everysec" "$(num "$(median redis.produce.1024.mps)")" "$(num "$(median redis.produce.1024.p99)" 1)"
if ((HAVE_SPILLWAY == 0)); then echo "Spillway rows pending: $SPILLWAY_WHY"; fi
echo
echo "finished in $(($(date +%s) - START)) s ($(($(date +%s) - MEASURE_START)) s measuring, the rest installing and building)"
