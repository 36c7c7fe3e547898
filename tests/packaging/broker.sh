# shellcheck shell=bash
# Shell helpers for the packaging tests (sourced): a scratch directory, and a
# broker binary started on ephemeral ports with a temporary data directory
# and stopped by its PID, as tests/support/broker_process.cc does for the
# C++ tests.

# make_scratch_dir: sets $scratch to a fresh directory under $TMPDIR (or
# /tmp), removed on exit with any broker still running killed first.
# SPILLWAY_TEST_KEEP_TMP=1 keeps it, as for the C++ tests.
make_scratch_dir() {
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/spillway-test-XXXXXX")
  trap cleanup_scratch EXIT
}

cleanup_scratch() {
  if [ -n "${broker_pid:-}" ] && kill -0 "$broker_pid" 2>/dev/null; then
    kill -KILL "$broker_pid" 2>/dev/null || true
    wait "$broker_pid" 2>/dev/null || true
  fi
  if [ "${SPILLWAY_TEST_KEEP_TMP:-}" = 1 ]; then
    echo "kept $scratch" >&2
  else
    rm -rf "$scratch"
  fi
}

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# start_broker BINARY LOG [ARGS...]: starts BINARY with every listener on an
# ephemeral loopback port and a data directory under $scratch, then ARGS
# (the broker takes the last of a repeated flag); returns once its log says
# "listening on HOST:PORT". Sets $broker_pid and $broker_address.
start_broker() {
  local binary=$1 log=$2
  shift 2
  "$binary" --listen 127.0.0.1:0 --kafka-listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0 \
    --data-dir "$scratch/data" "$@" >"$log" 2>&1 &
  broker_pid=$!
  local tries=0
  # The trailing space: the line is complete, the port is not cut short.
  until broker_address=$(grep -o -m1 'listening on [0-9.]*:[0-9]* ' "$log" | cut -d' ' -f3) &&
    [ -n "$broker_address" ]; do
    if ! kill -0 "$broker_pid" 2>/dev/null; then
      wait "$broker_pid" || true
      broker_pid=
      fail "$binary exited before listening:
$(cat "$log")"
    fi
    tries=$((tries + 1))
    [ "$tries" -lt 600 ] || fail "$binary did not log 'listening on' in 30 s:
$(cat "$log")"
    sleep 0.05
  done
}

# stop_broker LOG: SIGTERM to $broker_pid; the broker must exit 0 within
# 60 s (SIGKILL and failure after that).
stop_broker() {
  local log=$1 status=0 tries=0
  kill -TERM "$broker_pid"
  # bash reaps its background jobs as they end (keeping the status for
  # `wait`), so kill -0 fails once the broker has exited.
  while kill -0 "$broker_pid" 2>/dev/null; do
    tries=$((tries + 1))
    if [ "$tries" -ge 1200 ]; then
      kill -KILL "$broker_pid"
      break
    fi
    sleep 0.05
  done
  wait "$broker_pid" || status=$?
  broker_pid=
  [ "$status" -eq 0 ] || fail "the broker exited $status after SIGTERM:
$(cat "$log")"
}

# expect_contains TEXT NEEDLE WHAT: fails naming WHAT unless TEXT holds NEEDLE.
expect_contains() {
  case "$1" in
  *"$2"*) ;;
  *) fail "$3: no '$2' in:
$1" ;;
  esac
}
