#!/usr/bin/env bash
# bench/compare/kafka_vs_native.sh: Spillway's Kafka listener against its
# native protocol, in one run on one broker (issue 13's acceptance
# benchmark). librdkafka (rdkafka_bench.c) talks to the Kafka port, `spillway
# perf` to the native port; both produce with acks=leader/acks=1 and a 5 ms
# linger, then read the topic back from the start with one consumer.
#
#   bench/compare/kafka_vs_native.sh                 # REPEATS=3 SECS=3
#   REPEATS=5 SECS=5 SIZES="100 1024" bench/compare/kafka_vs_native.sh
#   RELEASE=build/x SKIP_BUILD=1 bench/compare/kafka_vs_native.sh   # existing build
#   PARTITIONS=4 KEYED=1 bench/compare/kafka_vs_native.sh   # keyed librdkafka records
#     (`spillway perf` has no keys: its records stay keyless)
#   RDKAFKA_CONSUME=poll bench/compare/kafka_vs_native.sh   # one message per call
#
# The librdkafka consumer reads with rd_kafka_consume_batch_queue (up to
# 1000 messages a call) by default: `spillway perf consume` gets up to 2000
# records from each Consumer::poll(), so the batch call is the like-for-like
# one. With RDKAFKA_CONSUME=poll it calls rd_kafka_consumer_poll once per
# message, as most applications do; that costs librdkafka about twice the
# CPU per record (futex wake-ups between its fetcher and the caller).
#
# What it does:
#  1. builds spillway-broker and spillway in $RELEASE (unless SKIP_BUILD=1)
#     and compiles rdkafka_bench with gcc against the system librdkafka
#     (pkg-config rdkafka; Debian librdkafka-dev) into build/compare/bin;
#  2. starts ONE spillway-broker with the native, Kafka and metrics listeners
#     on ephemeral ports of 127.0.0.1 (read back from its log) and a
#     temporary data directory, and stops it by PID (also on Ctrl-C);
#  3. for each SIZE, REPEATS rounds; in each, both protocols produce for SECS
#     into a fresh topic of PARTITIONS partitions (created with `spillway
#     topic create`) and read it back; which protocol goes first alternates
#     from round to round so drift of the machine hits both alike; a
#     topic is deleted once read;
#  4. measures heap allocations per record in the broker: the
#     spillway_heap_allocations_total counter of /metrics is scraped before
#     and after a whole produce run (after a warm-up run on the same topic,
#     so connections, topic state and buffers already exist) and a whole
#     consume run (after a warm-up consume), and divided by the records the
#     broker counted in or out for that topic in between
#     (spillway_topic_messages_{in,out}_total). What one scrape itself
#     allocates is measured (two scrapes back to back) and subtracted. The
#     rest includes each run's connection setup and metadata requests, so it
#     is an upper bound of the per-record figure;
#  5. prints every round, then a table of medians with Kafka/native ratios,
#     and beside them, per protocol, the CPU time (user + system) per record
#     of the broker (from /proc/PID/stat, sync thread included) and of the
#     client (from /usr/bin/time): on a machine whose cores are shared no
#     side gets a whole core, so CPU per record, not msg/s alone, tells a
#     gap in the broker's Kafka path from one in the client library.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${OUT:-$ROOT/build/compare}
RELEASE=${RELEASE:-$ROOT/build/release}
REPEATS=${REPEATS:-3}
SECS=${SECS:-3}
SIZES=${SIZES:-"100 1024"}
PARTITIONS=${PARTITIONS:-1}
KEYED=${KEYED:-0}
BIN=$OUT/bin
SPILLWAY=$RELEASE/client/spillway
WORK=$(mktemp -d /tmp/spillway-kvn.XXXXXX)
BROKER_PID=""

log() { printf '%s\n' "$*" >&2; }

cleanup() {
  if [[ -n $BROKER_PID ]]; then
    kill "$BROKER_PID" 2>/dev/null || true
    wait "$BROKER_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- build
mkdir -p "$BIN"
if [[ ${SKIP_BUILD:-0} != 1 ]]; then
  log "building spillway-broker and spillway in $RELEASE"
  [[ -f $RELEASE/CMakeCache.txt ]] ||
    cmake -S "$ROOT" -B "$RELEASE" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$OUT/kvn-build.log" 2>&1
  cmake --build "$RELEASE" --target spillway-broker spillway -j"$(nproc)" >>"$OUT/kvn-build.log" 2>&1 ||
    { log "build failed, see $OUT/kvn-build.log"; exit 1; }
fi
[[ -x $RELEASE/broker/spillway-broker && -x $SPILLWAY ]] ||
  { log "no spillway-broker or spillway in $RELEASE"; exit 1; }
pkg-config --exists rdkafka || { log "librdkafka not found: apt-get install librdkafka-dev"; exit 1; }
# shellcheck disable=SC2046  # pkg-config prints several words on purpose
gcc -O2 -Wall -Wextra -o "$BIN/rdkafka_bench" "$ROOT/bench/compare/rdkafka_bench.c" \
  $(pkg-config --cflags --libs rdkafka) -lpthread

# --------------------------------------------------------------- broker
"$RELEASE/broker/spillway-broker" --listen 127.0.0.1:0 --kafka-listen 127.0.0.1:0 \
  --metrics-listen 127.0.0.1:0 --data-dir "$WORK/data" >"$WORK/broker.log" 2>&1 &
BROKER_PID=$!
# addr_after WORDS: the HOST:PORT following "WORDS " in the broker's log.
addr_after() { sed -n "s/.*$1 \(127\.0\.0\.1:[0-9]*\).*/\1/p" "$WORK/broker.log" | head -1; }
NATIVE="" KAFKA="" METRICS=""
for _ in $(seq 200); do
  NATIVE=$(addr_after "listening on")
  [[ -n $NATIVE ]] && break
  kill -0 "$BROKER_PID" 2>/dev/null || break
  sleep 0.05
done
KAFKA=$(addr_after "kafka on")
METRICS=$(addr_after "metrics on")
if [[ -z $NATIVE || -z $KAFKA || -z $METRICS ]]; then
  log "the broker did not start:"
  tail -5 "$WORK/broker.log" >&2
  exit 1
fi
log "broker pid $BROKER_PID: native $NATIVE, kafka $KAFKA, metrics $METRICS"

# ----------------------------------------------------------- collection
# Samples go to $WORK/samples as "KEY VALUE"; medians at the end.
add_sample() { [[ -z $2 ]] || echo "$1 $2" >>"$WORK/samples"; }
median() {
  awk -v k="$1" '$1 == k { print $2 }' "$WORK/samples" 2>/dev/null | sort -g |
    awk '{ v[NR] = $1 } END { if (NR == 0) print ""; else if (NR % 2) print v[(NR + 1) / 2];
                              else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
field() { sed -n "s/.* $2=\([0-9.]*\).*/\1/p" <<<"$1" | head -1; }  # RESULT lines

topic_create() { "$SPILLWAY" topic create "$1" --partitions "$PARTITIONS" --broker "$NATIVE" >/dev/null; }
topic_delete() { "$SPILLWAY" topic delete "$1" --broker "$NATIVE" >/dev/null 2>&1 || true; }
keyed_arg=()
((KEYED)) && keyed_arg=(keyed)

# Each client run sets RATE (msg/s), MSGS (records), BROKER_NS and
# CLIENT_NS (the broker's and the client's CPU time, user + system, per
# record) and CLIENT_CPU (the client's CPU time over its wall time, in
# cores): what each side spends per record tells whether a gap is the
# broker's or the client library's, also when the machine is shared and no
# side gets a whole core. All empty when the run failed.
TICK_NS=$((1000000000 / $(getconf CLK_TCK)))
broker_ticks() { awk '{ print $14 + $15 }' "/proc/$BROKER_PID/stat"; }
client_run() {  # client_run COMMAND... (output in $WORK/out)
  local t0
  RATE="" MSGS="" BROKER_NS="" CLIENT_NS="" CLIENT_CPU=""
  t0=$(broker_ticks)
  if ! /usr/bin/time -o "$WORK/time" -f "%U %S %e" "$@" >"$WORK/out" 2>&1; then
    log "failed: $*: $(tail -3 "$WORK/out")"
    return 1
  fi
  BROKER_TICKS=$(($(broker_ticks) - t0))
  CLIENT_CPU=$(awk '{ if ($3 > 0) printf "%.2f", ($1 + $2) / $3 }' "$WORK/time")
}
per_record() {
  BROKER_NS=$(awk -v t="$BROKER_TICKS" -v ns="$TICK_NS" -v n="$MSGS" \
    'BEGIN { if (n > 0) printf "%.0f", t * ns / n }')
  CLIENT_NS=$(awk -v n="$MSGS" '{ if (n > 0) printf "%.0f", ($1 + $2) * 1e9 / n }' "$WORK/time")
}
spillway_run() {  # spillway_run produce|consume ARGS...
  local op=$1
  shift
  client_run "$SPILLWAY" perf "$op" --broker "$NATIVE" "$@" || return 0
  RATE=$(sed -n "s/^$op: .*  \([0-9,]*\) msg\/s.*/\1/p" "$WORK/out" | head -1 | tr -d ,)
  MSGS=$(sed -n "s/^$op: \([0-9,]*\) msgs.*/\1/p" "$WORK/out" | head -1 | tr -d ,)
  per_record
}
rdkafka_run() {  # rdkafka_run produce|consume ARGS...
  client_run "$BIN/rdkafka_bench" "$KAFKA" "$@" || return 0
  RATE=$(field "$(cat "$WORK/out")" msg_per_s)
  MSGS=$(field "$(cat "$WORK/out")" msgs)
  per_record
}
native_produce() { spillway_run produce --topic "$1" --size "$2" --duration "$3" --acks leader --linger-ms 5; }
native_consume() { spillway_run consume --topic "$1"; }
kafka_produce() { rdkafka_run produce "$1" "$2" "$3" "${keyed_arg[@]}"; }
RDKAFKA_CONSUME=${RDKAFKA_CONSUME:-batch}
consume_mode=()
[[ $RDKAFKA_CONSUME == batch ]] && consume_mode=(batch)
kafka_consume() { rdkafka_run consume "$1" "$2" "${consume_mode[@]}"; }

run_protocol() {  # run_protocol native|kafka SIZE ROUND
  local proto=$1 size=$2 round=$3 topic op
  topic=${proto:0:1}-$size-$round
  topic_create "$topic"
  for op in produce consume; do
    if [[ $op == produce ]]; then "${proto}_produce" "$topic" "$size" "$SECS"; else "${proto}_consume" "$topic" "$size"; fi
    add_sample "$proto.$op.$size" "$RATE"
    add_sample "$proto.$op.$size.broker_ns" "$BROKER_NS"
    add_sample "$proto.$op.$size.client_ns" "$CLIENT_NS"
    printf '  %-6s %-7s %10s msg/s  CPU ns/record: broker %5s, client %5s (client %4s cores)\n' \
      "$proto" "$op" "${RATE:--}" "${BROKER_NS:--}" "${CLIENT_NS:--}" "${CLIENT_CPU:--}" >&2
  done
  topic_delete "$topic"
}

# ---------------------------------------------------------- allocations
scrape() { curl -sf "http://$METRICS/metrics"; }
metric() {  # metric PAGE NAME [TOPIC]
  if [[ -n ${3:-} ]]; then
    awk -v n="$2{topic=\"$3\"}" '$1 == n { print $2 }' <<<"$1"
  else
    awk -v n="$2" '$1 == n { print $2 }' <<<"$1"
  fi
}
SCRAPE_COST=0
measure_scrape_cost() {
  local a b
  scrape >/dev/null
  a=$(metric "$(scrape)" spillway_heap_allocations_total)
  b=$(metric "$(scrape)" spillway_heap_allocations_total)
  SCRAPE_COST=$((b - a))
}
# allocs_per_record PROTO SIZE: a warm-up produce and consume, then one
# produce and one consume each between two scrapes.
allocs_per_record() {
  local proto=$1 size=$2 topic before after
  topic=alloc-${proto:0:1}-$size
  topic_create "$topic"
  "${proto}_produce" "$topic" "$size" 1 >/dev/null
  for op in produce consume; do
    local dir=in
    [[ $op == consume ]] && { dir=out; "${proto}_consume" "$topic" "$size" >/dev/null; }
    before=$(scrape)
    if [[ $op == produce ]]; then
      "${proto}_produce" "$topic" "$size" "$SECS" >/dev/null
    else
      "${proto}_consume" "$topic" "$size" >/dev/null
    fi
    after=$(scrape)
    local allocs records
    allocs=$(($(metric "$after" spillway_heap_allocations_total) -
      $(metric "$before" spillway_heap_allocations_total) - SCRAPE_COST))
    records=$(($(metric "$after" spillway_topic_messages_${dir}_total "$topic") -
      $(metric "$before" spillway_topic_messages_${dir}_total "$topic")))
    echo "$proto.$op.$size $allocs $records" >>"$WORK/allocs"
    log "  allocations, $proto $op $size B: $allocs over $records records"
  done
  topic_delete "$topic"
}

# ---------------------------------------------------------------- main
START=$(date +%s)
for size in $SIZES; do
  for r in $(seq "$REPEATS"); do
    log "size $size B, round $r/$REPEATS"
    if ((r % 2)); then
      run_protocol native "$size" "$r"
      run_protocol kafka "$size" "$r"
    else
      run_protocol kafka "$size" "$r"
      run_protocol native "$size" "$r"
    fi
  done
done
measure_scrape_cost
log "allocations (one /metrics scrape itself: $SCRAPE_COST, subtracted)"
for size in $SIZES; do
  allocs_per_record native "$size"
  allocs_per_record kafka "$size"
done
kill "$BROKER_PID" 2>/dev/null || true
wait "$BROKER_PID" 2>/dev/null || true
BROKER_PID=""

# ---------------------------------------------------------------- table
num() { awk -v v="$1" 'BEGIN { if (v == "") print "-"; else printf "%.0f", v }'; }
mbs() { awk -v m="$1" -v s="$2" 'BEGIN { if (m == "") print "-"; else printf "%.1f", m * s / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "-"; else printf "%.1f%%", 100 * a / b }'; }
lc_load=$(cut -d' ' -f1-3 /proc/loadavg)
echo
echo "Kafka port (librdkafka $(pkg-config --modversion rdkafka)) vs native port (spillway perf), one broker,"
echo "medians of $REPEATS runs of $SECS s, $PARTITIONS partition(s), $( ((KEYED)) && echo keyed || echo keyless) records," \
  "acks=1/leader, linger 5 ms, librdkafka consumes with $( [[ $RDKAFKA_CONSUME == batch ]] && echo rd_kafka_consume_batch_queue || echo rd_kafka_consumer_poll);" \
  "$(nproc) cores, load average $lc_load at the end"
echo
printf '%-16s %11s %8s %11s %8s %9s   %s\n' "" "Kafka" "" "native" "" "" "broker CPU ns/record   client CPU ns/record"
printf '%-16s %11s %8s %11s %8s %9s   %7s %7s   %7s %7s\n' "workload" "msg/s" "MB/s" "msg/s" "MB/s" \
  "Kafka/nat" "Kafka" "native" "Kafka" "native"
for op in produce consume; do
  for size in $SIZES; do
    k=$(median "kafka.$op.$size")
    n=$(median "native.$op.$size")
    printf '%-16s %11s %8s %11s %8s %9s   %7s %7s   %7s %7s\n' "$op $size B" "$(num "$k")" \
      "$(mbs "$k" "$size")" "$(num "$n")" "$(mbs "$n" "$size")" "$(ratio "$k" "$n")" \
      "$(num "$(median "kafka.$op.$size.broker_ns")")" "$(num "$(median "native.$op.$size.broker_ns")")" \
      "$(num "$(median "kafka.$op.$size.client_ns")")" "$(num "$(median "native.$op.$size.client_ns")")"
  done
done
echo
printf '%-22s %14s %12s %14s\n' "broker allocations" "allocations" "records" "per record"
while read -r key allocs records; do
  IFS=. read -r proto op size <<<"$key"
  printf '%-22s %14s %12s %14s\n' "$proto $op $size B" "$allocs" "$records" \
    "$(awk -v a="$allocs" -v r="$records" 'BEGIN { if (r == 0) print "-"; else printf "%.6f", a / r }')"
done <"$WORK/allocs"
echo "(one run each after a warm-up; includes the run's connection setup; one scrape's own $SCRAPE_COST subtracted)"
echo
echo "finished in $(($(date +%s) - START)) s"
