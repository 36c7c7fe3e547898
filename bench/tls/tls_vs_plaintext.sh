#!/usr/bin/env bash
# TLS vs plaintext produce throughput, same broker, same run (issue 15):
# one broker with the PLAINTEXT native listener and an SSL native listener;
# `spillway perf produce` at 1 KiB records against each, alternating, and
# the ratio TLS / plaintext (target >= 0.70).
#
# Usage: bench/tls/tls_vs_plaintext.sh [BUILD_DIR] [SECONDS] [ROUNDS]
#   BUILD_DIR defaults to build/release; SECONDS per measurement (10);
#   ROUNDS of (plaintext, TLS) pairs (2). Certificates are made with openssl.
set -euo pipefail
build=${1:-build/release}
seconds=${2:-10}
rounds=${3:-2}
broker_bin="$build/broker/spillway-broker"
cli="$build/client/spillway"
work=$(mktemp -d)
broker_pid=""
cleanup() {
  if [[ -n "$broker_pid" ]]; then kill "$broker_pid" 2>/dev/null || true; wait "$broker_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# A CA and a server certificate for 127.0.0.1 (EC P-256).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=bench CA" \
  -keyout "$work/ca.key" -out "$work/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=localhost" \
  -keyout "$work/server.key" -out "$work/server.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$work/san.ext"
openssl x509 -req -in "$work/server.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial \
  -days 2 -extfile "$work/san.ext" -out "$work/server.pem" 2>/dev/null

# Retention keeps each topic to a few segments: a run writes gigabytes, and
# without it the page cache's dirty limit is reached in the first run, after
# which every run measures the disk's writeback instead of the listener
# (plaintext 434k msg/s in a first round, 166-195k in the next ones, while
# TLS stayed at 153-166k: the comparison was of a fast first round against
# disk-bound ones). Deleted segments' dirty pages are dropped, not written.
"$broker_bin" --data-dir "$work/data" --listen 127.0.0.1:0 --kafka-listen "" \
  --segment-bytes 67108864 --retention-bytes 268435456 --retention-check-interval-ms 200 \
  --listeners "SSL://127.0.0.1:0" --tls-native-cert-file "$work/server.pem" \
  --tls-native-key-file "$work/server.key" >"$work/broker.log" 2>&1 &
broker_pid=$!
for _ in $(seq 1 100); do
  grep -q "listening on" "$work/broker.log" && break
  sleep 0.1
done
plain=$(sed -n 's/.* listening on \([0-9.:]*\) .*/\1/p' "$work/broker.log" | head -1)
tls=$(sed -n 's/.*native SSL on \([0-9.:]*\).*/\1/p' "$work/broker.log" | head -1)
[[ -n "$plain" && -n "$tls" ]] || { cat "$work/broker.log"; exit 1; }

rate() {  # messages/s of one run: perf produce --json "messages_per_s"
  "$cli" perf produce --json -s 1024 -d "${dur:-$seconds}" --topic "$1" "${@:2}" |
    sed -n 's/.*"messages_per_s": *\([0-9.]*\).*/\1/p'
}
read_rate() {  # messages/s reading a topic back from its start (fetch path)
  "$cli" perf consume --json -s 1024 --topic "$1" "${@:2}" |
    sed -n 's/.*"messages_per_s": *\([0-9.]*\).*/\1/p'
}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# A warm-up of each (topics created, pools and page cache in use), not counted.
dur=3 rate bench-plain -b "$plain" >/dev/null
dur=3 rate bench-tls -b "$tls" --tls-ca "$work/ca.pem" >/dev/null
plain_sum=0 tls_sum=0
for r in $(seq 1 "$rounds"); do
  # Alternating which goes first, so neither always meets the other's
  # writeback.
  if ((r % 2)); then
    p=$(rate bench-plain -b "$plain")
    t=$(rate bench-tls -b "$tls" --tls-ca "$work/ca.pem")
  else
    t=$(rate bench-tls -b "$tls" --tls-ca "$work/ca.pem")
    p=$(rate bench-plain -b "$plain")
  fi
  echo "round $r: plaintext $p msg/s, TLS $t msg/s, ratio $(echo "scale=2; $t / $p" | bc -l)"
  plain_sum=$(echo "$plain_sum + $p" | bc -l)
  tls_sum=$(echo "$tls_sum + $t" | bc -l)
done
# The fetch side (responses of many segments over TLS): read each topic back.
cp=$(read_rate bench-plain -b "$plain")
ct=$(read_rate bench-tls -b "$tls" --tls-ca "$work/ca.pem")
echo "consume (whole topic): plaintext $cp msg/s, TLS $ct msg/s, ratio $(echo "scale=2; $ct / $cp" | bc -l)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
printf 'plaintext: %.0f msg/s (%.1f MiB/s)\n' "$(echo "$plain_sum / $rounds" | bc -l)" \
  "$(echo "$plain_sum / $rounds / 1024" | bc -l)"
printf 'TLS:       %.0f msg/s (%.1f MiB/s)\n' "$(echo "$tls_sum / $rounds" | bc -l)" \
  "$(echo "$tls_sum / $rounds / 1024" | bc -l)"
printf 'ratio TLS/plaintext: %.2f (target >= 0.70)\n' "$(echo "$tls_sum / $plain_sum" | bc -l)"
