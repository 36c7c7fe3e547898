#!/usr/bin/env bash
# kcat (Debian's `kcat`, librdkafka 2.x) against the real broker's Kafka
# listener, run by CTest as `kcat.round_trip`:
#
#   tests/kcat/kcat_test.sh --broker build/release/broker/spillway-broker \
#                           --cli build/release/client/spillway
#
#   1. `kcat -L` lists the broker at its advertised address and a topic the
#      native CLI created, with its 3 partitions;
#   2. `kcat -P -K:` produces 300 keyed lines; `kcat -C -e -f` reads them
#      back: the same lines, each key's values in the order produced;
#   3. the native CLI consumes the same 300 lines (cross-protocol);
#   4. lines produced with the native CLI come out of `kcat -C`;
#   5. SIGTERM stops the broker with exit 0;
#   6. a broker with a further Kafka listener ([kafka] listeners) tells a
#      client the advertised address of the listener it came in on.
# Every kcat call runs under `timeout` so that a broker that never answers
# fails the test instead of hanging it (no time is asserted).
# kcat is installed by scripts/dev.sh (scripts/deps.txt); a missing kcat
# fails the test rather than skipping it.
set -euo pipefail

broker_bin="" cli=""
while (($#)); do
  case "$1" in
    --broker) broker_bin=$2; shift 2 ;;
    --cli) cli=$2; shift 2 ;;
    *) echo "usage: $0 --broker PATH --cli PATH" >&2; exit 2 ;;
  esac
done
[[ -x "$broker_bin" && -x "$cli" ]] || { echo "kcat_test: --broker and --cli must name the built binaries" >&2; exit 2; }
command -v kcat >/dev/null || { echo "kcat_test: kcat is not installed (scripts/dev.sh installs it)" >&2; exit 1; }

work=$(mktemp -d /tmp/spillway-kcat.XXXXXX)
broker_pid=""
cleanup() {
  [[ -z "$broker_pid" ]] || kill -9 "$broker_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "kcat_test: FAIL: $*" >&2; [[ ! -f "$work/broker.log" ]] || tail -n 20 "$work/broker.log" >&2; exit 1; }
say() { echo "kcat_test: $*"; }

"$broker_bin" --listen 127.0.0.1:0 --kafka-listen 127.0.0.1:0 --data-dir "$work/data" \
  >"$work/broker.log" 2>&1 &
broker_pid=$!
kafka="" native=""
for _ in $(seq 1 300); do
  kafka=$(sed -n 's/.* kafka on \(127\.0\.0\.1:[0-9]*\) .*/\1/p' "$work/broker.log" | head -n 1)
  native=$(sed -n 's/.* listening on \(127\.0\.0\.1:[0-9]*\) .*/\1/p' "$work/broker.log" | head -n 1)
  [[ -z "$kafka" || -z "$native" ]] || break
  kill -0 "$broker_pid" 2>/dev/null || fail "the broker exited before listening"
  sleep 0.1
done
[[ -n "$kafka" && -n "$native" ]] || fail "the broker did not log its listeners"
say "broker pid $broker_pid: kafka $kafka, native $native"

# 1. Metadata.
"$cli" topic create orders --partitions 3 --broker "$native" >/dev/null
timeout 120 kcat -b "$kafka" -L -t orders >"$work/list" 2>&1 || { cat "$work/list" >&2; fail "kcat -L failed"; }
grep -q "broker 0 at $kafka" "$work/list" || { cat "$work/list" >&2; fail "kcat -L does not name broker 0 at $kafka"; }
grep -q 'topic "orders" with 3 partitions' "$work/list" || { cat "$work/list" >&2; fail "kcat -L does not list orders with 3 partitions"; }
say "kcat -L: $(grep -c 'partition [0-9]*, leader 0' "$work/list") partitions led by broker 0"

# 2. kcat round trip: 300 lines over 7 keys.
for i in $(seq 1 300); do echo "key$((i % 7)):value-$i"; done >"$work/produced"
timeout 120 kcat -b "$kafka" -P -K: -t orders -X partitioner=murmur2_random -X message.timeout.ms=60000 <"$work/produced" 2>"$work/produce.err" ||
  { cat "$work/produce.err" >&2; fail "kcat -P failed"; }
timeout 120 kcat -b "$kafka" -C -e -q -t orders -o beginning -f '%k:%s\n' >"$work/consumed" 2>"$work/consume.err" ||
  { cat "$work/consume.err" >&2; fail "kcat -C failed"; }
sort "$work/produced" >"$work/a"
sort "$work/consumed" >"$work/b"
cmp -s "$work/a" "$work/b" || { diff "$work/a" "$work/b" | head >&2; fail "kcat -C did not return the 300 lines produced"; }
for k in $(seq 0 6); do
  grep "^key$k:" "$work/produced" >"$work/want"
  grep "^key$k:" "$work/consumed" >"$work/got"
  cmp -s "$work/want" "$work/got" || fail "key$k's values came back out of order"
done
say "kcat -P / kcat -C: 300 lines, each key in order"

# 3. The same records through the native protocol.
"$cli" consume orders --from-beginning --exit-at-end --print-key --broker "$native" \
  | tr '\t' ':' | sort >"$work/native" || fail "spillway consume failed"
cmp -s "$work/a" "$work/native" || { diff "$work/a" "$work/native" | head >&2; fail "the native consumer saw other records"; }
say "spillway consume (native) read the 300 lines kcat produced"

# 4. And the other way round.
"$cli" topic create native --partitions 1 --broker "$native" >/dev/null
printf 'a:1\nb:2\na:3\n' | "$cli" produce native --key-separator : --broker "$native" >/dev/null
timeout 120 kcat -b "$kafka" -C -e -q -t native -o beginning -f '%k:%s\n' >"$work/from_native" 2>&1 ||
  { cat "$work/from_native" >&2; fail "kcat -C of natively produced records failed"; }
[[ "$(cat "$work/from_native")" == $'a:1\nb:2\na:3' ]] || { cat "$work/from_native" >&2; fail "kcat read other records than the native CLI produced"; }
say "kcat -C read the 3 lines the native CLI produced"

# 5. Clean stop.
kill -TERM "$broker_pid"
status=0
wait "$broker_pid" || status=$?
broker_pid=""
[[ $status -eq 0 ]] || fail "the broker exited $status on SIGTERM"

# 6. Two Kafka listeners, each advertising its own address.
"$broker_bin" --listen 127.0.0.1:0 --kafka-listen 127.0.0.1:0 --data-dir "$work/data2" \
  --kafka-listeners PLAINTEXT://127.0.0.1:0 \
  --kafka-advertised-listeners PLAINTEXT://second.example.com:19092 >"$work/broker2.log" 2>&1 &
broker_pid=$!
first="" second=""
for _ in $(seq 1 300); do
  first=$(sed -n 's/.* kafka on \(127\.0\.0\.1:[0-9]*\) .*/\1/p' "$work/broker2.log" | head -n 1)
  second=$(sed -n 's/.* kafka PLAINTEXT on \(127\.0\.0\.1:[0-9]*\) .*/\1/p' "$work/broker2.log" | head -n 1)
  [[ -z "$first" || -z "$second" ]] || break
  kill -0 "$broker_pid" 2>/dev/null || fail "the broker with two Kafka listeners exited"
  sleep 0.1
done
[[ -n "$first" && -n "$second" ]] || fail "the broker did not log both Kafka listeners"
timeout 120 kcat -b "$second" -L >"$work/list2" 2>&1 || { cat "$work/list2" >&2; fail "kcat -L on the second listener failed"; }
grep -q "broker 0 at second.example.com:19092" "$work/list2" || { cat "$work/list2" >&2; fail "the second listener did not advertise its own address"; }
timeout 120 kcat -b "$first" -L >"$work/list1" 2>&1 || { cat "$work/list1" >&2; fail "kcat -L on the first listener failed"; }
grep -q "broker 0 at $first" "$work/list1" || { cat "$work/list1" >&2; fail "the first listener did not advertise its bound address"; }
kill -TERM "$broker_pid"
wait "$broker_pid" || fail "the broker with two Kafka listeners did not stop cleanly"
broker_pid=""
say "two Kafka listeners: each advertises its own address"
say "passed"
