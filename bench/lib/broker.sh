# Sourced by the bench scripts that run their own spillway-broker: start one
# on a free port of 127.0.0.1 and stop it by PID. Expects `broker_bin`; the
# caller's EXIT trap should call stop_broker KILL.

pid=""          # the running broker, or empty
port=""         # its native port
started_ms=""   # exec to its "listening" log line
broker_flags=() # more flags for the next start_broker

now_ms() { date +%s%3N; }

# start_broker DATA_DIR LOG: sets pid, port and started_ms. Called in the
# script's own shell (not in $(...)), so that pid and port are the script's.
start_broker() {
  local dir=$1 log=$2 t0
  t0=$(now_ms)
  "$broker_bin" --listen 127.0.0.1:0 --kafka-listen "" --data-dir "$dir" "${broker_flags[@]}" \
    >"$log" 2>&1 &
  pid=$!
  port=""
  for _ in $(seq 6000); do  # a guard of 60 s, never an assertion
    port=$(grep -oE 'listening on 127\.0\.0\.1:[0-9]+' "$log" | head -1 | sed 's/.*://') || true
    [[ -n "$port" ]] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.01
  done
  [[ -n "$port" ]] || { echo "the broker did not start:" >&2; tail -5 "$log" >&2; exit 1; }
  started_ms=$(($(now_ms) - t0))
}

# stop_broker SIGNAL: signals the broker and waits for it to exit.
stop_broker() {
  [[ -n "$pid" ]] || return 0
  kill "-$1" "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  pid=""
}
