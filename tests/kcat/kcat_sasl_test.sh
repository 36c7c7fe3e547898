#!/usr/bin/env bash
# kcat (librdkafka 2.x) with security.protocol=SASL_PLAINTEXT against the
# real broker, and the `spillway` CLI with SASL, run by CTest as
# `kcat.sasl`:
#
#   1. `spillway user create --data-dir` (offline) makes alice; the
#      credential file does not contain her password;
#   2. kcat produces and consumes with PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512;
#   3. a wrong password and an unknown user fail with "Authentication
#      failed: invalid credentials", and a right client is served meanwhile;
#   4. the native CLI with --sasl-mechanism/--username/--password-file;
#      without SASL on the SASL listener it is refused;
#   5. `spillway user create|list|delete` through the broker; offline while
#      the broker runs is refused;
#   6. credentials survive a restart;
#   7. the per-address failure limit refuses even the right password.
# Every kcat call runs under `timeout` (a guard, never an assertion).
set -euo pipefail

broker_bin="" cli=""
while (($#)); do
  case "$1" in
    --broker) broker_bin=$2; shift 2 ;;
    --cli) cli=$2; shift 2 ;;
    *) echo "usage: $0 --broker PATH --cli PATH" >&2; exit 2 ;;
  esac
done
[[ -x "$broker_bin" && -x "$cli" ]] || { echo "kcat_sasl_test: --broker and --cli must name the built binaries" >&2; exit 2; }
command -v kcat >/dev/null || { echo "kcat_sasl_test: kcat is not installed (scripts/dev.sh installs it)" >&2; exit 1; }

work=$(mktemp -d /tmp/spillway-kcat-sasl.XXXXXX)
broker_pid=""
cleanup() {
  [[ -z "$broker_pid" ]] || kill -9 "$broker_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "kcat_sasl_test: FAIL: $*" >&2; [[ ! -f "$work/broker.log" ]] || tail -n 20 "$work/broker.log" >&2; exit 1; }
say() { echo "kcat_sasl_test: $*"; }

start_broker() {  # extra broker flags
  : >"$work/broker.log"
  "$broker_bin" --listen 127.0.0.1:0 --kafka-listen 127.0.0.1:0 --data-dir "$work/data" \
    --listeners SASL_PLAINTEXT://127.0.0.1:0 --kafka-listeners SASL_PLAINTEXT://127.0.0.1:0 \
    --sasl-mechanisms PLAIN,SCRAM-SHA-256,SCRAM-SHA-512 "$@" >"$work/broker.log" 2>&1 &
  broker_pid=$!
  kafka="" native=""
  for _ in $(seq 1 300); do
    kafka=$(sed -n 's/.* kafka SASL_PLAINTEXT on \(127\.0\.0\.1:[0-9]*\) .*/\1/p' "$work/broker.log" | head -n 1)
    native=$(sed -n 's/.* native SASL_PLAINTEXT on \(127\.0\.0\.1:[0-9]*\)$/\1/p' "$work/broker.log" | head -n 1)
    plain=$(sed -n 's/.* listening on \(127\.0\.0\.1:[0-9]*\) .*/\1/p' "$work/broker.log" | head -n 1)
    [[ -z "$kafka" || -z "$native" || -z "$plain" ]] || break
    kill -0 "$broker_pid" 2>/dev/null || fail "the broker exited before listening"
    sleep 0.1
  done
  [[ -n "$kafka" && -n "$native" && -n "$plain" ]] || fail "the broker did not log its listeners"
}
stop_broker() {
  kill -TERM "$broker_pid"
  wait "$broker_pid" || fail "the broker did not stop cleanly"
  broker_pid=""
}
kcat_as() {  # mechanism user password kcat-args...
  local m=$1 u=$2 p=$3
  shift 3
  timeout 60 kcat -b "$kafka" -X security.protocol=SASL_PLAINTEXT -X sasl.mechanism="$m" \
    -X sasl.username="$u" -X sasl.password="$p" "$@"
}

# 1. Offline bootstrap.
mkdir -p "$work/data"
printf 'alice-Secret-17\n' >"$work/alice.pw"
"$cli" user create alice --data-dir "$work/data" --user-password-file "$work/alice.pw" >/dev/null
"$cli" user list --data-dir "$work/data" | grep -q "alice *SCRAM-SHA-512 *8192" || fail "offline list does not show alice"
! grep -q "alice-Secret-17" "$work/data/credentials" || fail "the credential file contains the password"
say "offline: alice created; the credential file holds no password"

start_broker --sasl-max-failed-authentications 1000
say "broker pid $broker_pid: kafka SASL $kafka, native SASL $native, native plaintext $plain"
"$cli" topic create orders --partitions 2 --broker "$plain" >/dev/null

# 2. Produce and consume with each mechanism.
for m in PLAIN SCRAM-SHA-256 SCRAM-SHA-512; do
  seq 1 50 | sed "s/^/$m-/" >"$work/produced.$m"
  kcat_as "$m" alice alice-Secret-17 -P -t orders -X message.timeout.ms=60000 <"$work/produced.$m" 2>"$work/err" ||
    { cat "$work/err" >&2; fail "kcat -P with $m failed"; }
done
kcat_as SCRAM-SHA-256 alice alice-Secret-17 -C -e -q -t orders -o beginning >"$work/consumed" 2>"$work/err" ||
  { cat "$work/err" >&2; fail "kcat -C failed"; }
cat "$work"/produced.* | sort >"$work/a"
sort "$work/consumed" >"$work/b"
cmp -s "$work/a" "$work/b" || fail "kcat -C did not return the 150 lines produced"
say "kcat PLAIN / SCRAM-SHA-256 / SCRAM-SHA-512: 150 lines produced and consumed"

# 3. Wrong password, unknown user; another client is served meanwhile.
expect_refused() {  # name mechanism user password
  local name=$1
  shift
  if echo x | kcat_as "$@" -P -t orders >"$work/out" 2>"$work/err"; then fail "$name: kcat succeeded"; fi
  grep -q "Authentication failed: invalid credentials" "$work/err" || { cat "$work/err" >&2; fail "$name: no clear error"; }
  say "$name: $(grep -m1 -o 'SASL authentication error: [^(]*' "$work/err")"
}
expect_refused "wrong password (SCRAM-SHA-512)" SCRAM-SHA-512 alice wrong-password
expect_refused "wrong password (PLAIN)" PLAIN alice wrong-password
expect_refused "unknown user (SCRAM-SHA-256)" SCRAM-SHA-256 mallory whatever
kcat_as SCRAM-SHA-512 alice alice-Secret-17 -L -t orders >"$work/list" 2>&1 || fail "kcat -L after the failures"
grep -q 'topic "orders" with 2 partitions' "$work/list" || fail "kcat -L does not list orders"
grep -q 'user "alice" from 127.0.0.1' "$work/broker.log" || fail "the broker did not log the failure"
! grep -q "wrong-password" "$work/broker.log" || fail "the broker logged a password"

# 4. The native CLI.
"$cli" topic list --broker "$native" --sasl-mechanism SCRAM-SHA-256 --username alice --password-file "$work/alice.pw" |
  grep -q orders || fail "spillway topic list with SCRAM failed"
if "$cli" topic list --broker "$native" >"$work/out" 2>&1; then fail "the SASL listener served a client without SASL"; fi
grep -q "authenticate first" "$work/out" || { cat "$work/out" >&2; fail "no 'authenticate first' error"; }
cp "$work/out" "$work/no-sasl.out"
printf 'nope\n' >"$work/wrong.pw"
if "$cli" topic list --broker "$native" --sasl-mechanism PLAIN --username alice --password-file "$work/wrong.pw" >"$work/out" 2>&1; then
  fail "the CLI authenticated with a wrong password"
fi
grep -q "Authentication failed: invalid credentials" "$work/out" || { cat "$work/out" >&2; fail "the CLI's error is not clear"; }
say "CLI: SCRAM works; without SASL: $(head -n 1 "$work/no-sasl.out")"

# 5. Users through the broker; offline refused while it runs.
printf 'bob-Secret-99\n' >"$work/bob.pw"
"$cli" user create bob --mechanism SCRAM-SHA-512 --iterations 4096 --user-password-file "$work/bob.pw" \
  --broker "$native" --sasl-mechanism SCRAM-SHA-512 --username alice --password-file "$work/alice.pw" >/dev/null ||
  fail "online user create failed"
"$cli" user list --broker "$native" --sasl-mechanism PLAIN --username alice --password-file "$work/alice.pw" |
  grep -q "bob *SCRAM-SHA-512 *4096" || fail "online user list does not show bob"
kcat_as SCRAM-SHA-512 bob bob-Secret-99 -L >/dev/null 2>&1 || fail "bob cannot authenticate"
if "$cli" user create carol --data-dir "$work/data" --user-password-file "$work/bob.pw" >"$work/out" 2>&1; then
  fail "offline user create ran beside a running broker"
fi
grep -q "a broker is running" "$work/out" || { cat "$work/out" >&2; fail "offline refusal is not clear"; }
! grep -q "bob-Secret-99" "$work/data/credentials" || fail "the credential file contains bob's password"
say "online: bob created and listed; offline refused while the broker runs"

# 6. Restart: credentials survive; delete bob.
stop_broker
start_broker --sasl-max-failed-authentications 2
kcat_as SCRAM-SHA-512 bob bob-Secret-99 -L >/dev/null 2>&1 || fail "bob cannot authenticate after a restart"
"$cli" user delete bob --broker "$native" --sasl-mechanism SCRAM-SHA-256 --username alice --password-file "$work/alice.pw" >/dev/null ||
  fail "online user delete failed"
say "restart: bob still authenticates; deleted"

# 7. The failure limit (2 per minute here): the third attempt is refused
#    even with the right password.
for _ in 1 2; do
  "$cli" topic list --broker "$native" --sasl-mechanism PLAIN --username alice --password-file "$work/wrong.pw" >/dev/null 2>&1 || true
done
if "$cli" topic list --broker "$native" --sasl-mechanism PLAIN --username alice --password-file "$work/alice.pw" >"$work/out" 2>&1; then
  fail "the failure limit did not refuse"
fi
grep -q "too many failed authentications from 127.0.0.1" "$work/out" || { cat "$work/out" >&2; fail "no rate-limit message"; }
say "failure limit: $(cat "$work/out")"
stop_broker
say "PASS"
