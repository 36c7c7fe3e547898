#!/usr/bin/env bash
# acks=all produce throughput with replication factor 3 beside replication
# factor 1, same cluster, same run (issue 16): one etcd member and three
# brokers on 127.0.0.1, a topic of one partition with each factor (led by
# whichever broker the placement picks; all share the machine), and kcat
# (librdkafka) producing 1 KiB records with acks=all to each in turn.
# Prints msg/s per run, the medians and the ratio RF3 / RF1.
#
# Usage: bench/replication/acks_all_rf3_vs_rf1.sh [BUILD_DIR] [RECORDS] [ROUNDS]
#   BUILD_DIR defaults to build/release; RECORDS per run (200000); ROUNDS
#   of (RF1, RF3) pairs (3). Needs etcd (etcd-server) and kcat.
set -euo pipefail
build=${1:-build/release}
records=${2:-200000}
rounds=${3:-3}
broker_bin="$build/broker/spillway-broker"
cli="$build/client/spillway"
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

client_port=$(free_port)
peer_port=$(free_port)
etcd --data-dir "$work/etcd" --listen-client-urls "http://127.0.0.1:$client_port" \
  --advertise-client-urls "http://127.0.0.1:$client_port" \
  --listen-peer-urls "http://127.0.0.1:$peer_port" >"$work/etcd.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$client_port/health" >/dev/null 2>&1 && break
  sleep 0.1
done

bootstrap=""
for id in 1 2 3; do
  native=$(free_port)
  kafka=$(free_port)
  # Retention keeps the page cache's dirty pages bounded across runs.
  "$broker_bin" --data-dir "$work/b$id" --node-id "$id" --listen "127.0.0.1:$native" \
    --kafka-listen "127.0.0.1:$kafka" --cluster-etcd-endpoints "http://127.0.0.1:$client_port" \
    --segment-bytes 67108864 --retention-bytes 268435456 --retention-check-interval-ms 200 \
    >"$work/broker$id.log" 2>&1 &
  pids+=($!)
  eval "native$id=$native"
  bootstrap="$bootstrap${bootstrap:+,}127.0.0.1:$kafka"
done
for id in 1 2 3; do
  for _ in $(seq 200); do grep -q "listening on" "$work/broker$id.log" && break; sleep 0.1; done
done

# One partition each (librdkafka sends each to its leader).
create() {  # NAME RF
  "$cli" topic create "$1" -p 1 -r "$2" -b "127.0.0.1:$native1" >/dev/null
}
create rf1 1
create rf3 3
sleep 2
"$cli" cluster describe --all -b "127.0.0.1:$native1"

head -c $((records * 768)) /dev/urandom | base64 -w 1024 | head -n "$records" >"$work/records"

run() {  # TOPIC -> msg/s
  local start end
  start=$(date +%s.%N)
  kcat -P -b "$bootstrap" -t "$1" -X acks=all -X linger.ms=5 -X batch.num.messages=10000 \
    -X queue.buffering.max.messages=200000 -l "$work/records"
  end=$(date +%s.%N)
  python3 -c "print(round($records / ($end - $start)))"
}

rf1=()
rf3=()
for r in $(seq "$rounds"); do
  a=$(run rf1); b=$(run rf3)
  rf1+=("$a"); rf3+=("$b")
  echo "round $r: RF1 $a msg/s, RF3 $b msg/s"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
m1=$(median "${rf1[@]}")
m3=$(median "${rf3[@]}")
echo "median: RF1 $m1 msg/s, RF3 $m3 msg/s, RF3/RF1 $(python3 -c "print(round($m3/$m1, 2))")"
