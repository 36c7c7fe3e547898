#!/bin/sh
# HEALTHCHECK of the Spillway image (installed as spillway-healthcheck):
# `spillway ping` against the broker in this container; exit 0 iff it answers.
#
# The address is, first found: $SPILLWAY_HEALTHCHECK_BROKER; the --listen
# flag of PID 1 when PID 1 is the broker (the entrypoint turns SPILLWAY_LISTEN
# into that flag); $SPILLWAY_LISTEN; [broker] listen in $SPILLWAY_CONFIG;
# 0.0.0.0:9093. A wildcard host (0.0.0.0, [::]) is pinged on loopback.
set -eu

listen_from_pid1() {
  [ -r /proc/1/cmdline ] || return 0
  tr '\0' '\n' < /proc/1/cmdline | awk '
    NR == 1 && $0 !~ /spillway-broker$/ { exit }
    take { print; exit }
    $0 == "--listen" { take = 1 }
    /^--listen=/ { sub(/^--listen=/, ""); print; exit }'
}

listen_from_config() {
  file=${SPILLWAY_CONFIG-/etc/spillway/broker.toml}
  [ -n "$file" ] && [ -r "$file" ] || return 0
  awk -F '"' '/^\[/ { s = $0 } s == "[broker]" && /^listen *=/ { print $2; exit }' "$file"
}

broker=${SPILLWAY_HEALTHCHECK_BROKER:-}
if [ -z "$broker" ]; then
  listen=$(listen_from_pid1)
  [ -n "$listen" ] || listen=${SPILLWAY_LISTEN:-}
  [ -n "$listen" ] || listen=$(listen_from_config)
  [ -n "$listen" ] || listen=0.0.0.0:9093
  host=${listen%:*}
  port=${listen##*:}
  case "$host" in
    0.0.0.0 | "") host=127.0.0.1 ;;
    "[::]") host="[::1]" ;;
  esac
  broker=$host:$port
fi
exec spillway ping --broker "$broker" --timeout-ms 3000
