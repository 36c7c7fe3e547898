#!/usr/bin/env bash
# bench/compare/consumers_ab.sh: the consumers of several builds of Spillway
# (e.g. before and after a client change) reading the same data from one
# broker, alternating. before_after.sh starts a fresh broker per run and
# consumes right after producing, while the page cache is still writing the
# data back, which spreads consume figures by +-15 % between rounds; here
# the data is written once, the first build's broker serves every round
# from a warm page cache, and only the consumer changes.
#
#   bench/compare/consumers_ab.sh RELEASE_DIR RELEASE_DIR [RELEASE_DIR...]
#   ROUNDS=8 SECS=3 SIZES="100 1024" bench/compare/consumers_ab.sh A B
#
# Each RELEASE_DIR is a CMake build tree holding client/spillway (the first
# one also broker/spillway-broker). Per size, SECS seconds of
# `spillway perf produce` fill a topic; then each round runs every build's
# `spillway perf consume` of the whole topic once, in the order given.
# Prints every round and each build's median, with its ratio to the first.
# The broker listens on a free port on 127.0.0.1 and is stopped by PID.
set -euo pipefail
(($# >= 2)) || { echo "usage: consumers_ab.sh RELEASE_DIR RELEASE_DIR [RELEASE_DIR...]" >&2; exit 2; }
builds=("$@")
ROUNDS=${ROUNDS:-8}
SECS=${SECS:-3}
SIZES=${SIZES:-"100 1024"}
work=$(mktemp -d /tmp/spillway-consumers-ab.XXXXXX)
broker_bin=${builds[0]}/broker/spillway-broker
source "$(dirname "${BASH_SOURCE[0]}")/../lib/broker.sh"
cleanup() { stop_broker KILL; rm -rf "$work"; }
trap cleanup EXIT

start_broker "$work/data" "$work/log"

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

for size in $SIZES; do
  topic="ab-$size"
  "${builds[0]}/client/spillway" perf produce --broker "127.0.0.1:$port" --topic "$topic" \
    --size "$size" --duration "$SECS" | head -n 1
  for i in "${!builds[@]}"; do : >"$work/m.$size.$i"; done
  for r in $(seq 1 "$ROUNDS"); do
    line="size $size round $r:"
    for i in "${!builds[@]}"; do
      m=$("${builds[$i]}/client/spillway" perf consume --broker "127.0.0.1:$port" \
        --topic "$topic" 2>&1 | sed -n 's/^consume: .*  \([0-9,]*\) msg\/s.*/\1/p' | tr -d ,)
      echo "${m:-0}" >>"$work/m.$size.$i"
      line+=" ${m:-0}"
    done
    echo "$line msg/s"
  done
  first=$(median <"$work/m.$size.0")
  for i in "${!builds[@]}"; do
    m=$(median <"$work/m.$size.$i")
    printf 'size %5s consume median %12.0f msg/s  x%.3f  %s\n' "$size" "$m" \
      "$(awk -v a="$first" -v b="$m" 'BEGIN {print (a > 0) ? b / a : 0}')" "${builds[$i]}"
  done
done
stop_broker TERM
