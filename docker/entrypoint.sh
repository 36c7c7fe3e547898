#!/bin/sh
# Entrypoint of the Spillway image (installed as spillway-entrypoint).
#
# Starts spillway-broker with, in increasing precedence:
#   1. the config file $SPILLWAY_CONFIG (default /etc/spillway/broker.toml;
#      mount your own over it, or set SPILLWAY_CONFIG="" for built-in
#      defaults; a --config/-c argument replaces it),
#   2. environment variables SPILLWAY_<FLAG> (the flag name in upper case with
#      '-' as '_', e.g. SPILLWAY_LOG_LEVEL=debug -> --log-level debug),
#   3. flags given as the container's arguments (`docker run IMAGE --threads 2`).
# A variable whose flag is also among the arguments is skipped, so arguments
# win. A first argument that is not a flag is run instead of the broker
# (`docker run IMAGE spillway ping --broker host:9093`, `... IMAGE sh`).
#
# The broker is exec'd, so it is PID 1 and gets `docker stop`'s SIGTERM
# itself; it installs its own handler, answers the requests it has read and
# exits 0. SPILLWAY_DISABLE_IO_URING=1 is read by the broker itself.
set -eu

if [ "$#" -gt 0 ] && [ "${1#-}" = "$1" ]; then
  exec "$@"
fi

# Every broker flag that takes a value, as `spillway-broker --help` lists
# them, so a new setting gets its variable without editing this file.
flags=$(spillway-broker --help | sed -n 's/^ *--\([a-z0-9-]*\) VALUE.*/\1/p')
if [ -z "$flags" ]; then
  echo "spillway-entrypoint: cannot read the flags from spillway-broker --help" >&2
  exit 2
fi

given_as_argument() {
  want=$1
  shift
  for arg in "$@"; do
    case "$arg" in
      "--$want" | "--$want="* | "-$want") return 0 ;;
    esac
  done
  return 1
}

# Collected as positional parameters: flags from the environment first, then
# the arguments, then the config file in front of all of them.
count=$#
for flag in $flags; do
  var=SPILLWAY_$(echo "$flag" | tr 'a-z-' 'A-Z_')
  eval "is_set=\${$var+x}"
  [ -n "$is_set" ] || continue
  if given_as_argument "$flag" "$@"; then
    continue
  fi
  value=""
  eval "value=\$$var"
  set -- "$@" "--$flag" "$value"
done
# Rotate the original arguments behind the environment's flags (POSIX sh has
# no arrays), so the command line reads config, environment, arguments.
while [ "$count" -gt 0 ]; do
  first=$1
  shift
  set -- "$@" "$first"
  count=$((count - 1))
done

config=${SPILLWAY_CONFIG-/etc/spillway/broker.toml}
if [ -n "$config" ] && ! given_as_argument config "$@" && ! given_as_argument c "$@"; then
  set -- --config "$config" "$@"
fi
exec spillway-broker "$@"
