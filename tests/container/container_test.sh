#!/usr/bin/env bash
# Container test of the Spillway image (issue 7), run by CTest as
# `container.image`:
#
#   tests/container/container_test.sh --cli build/release/client/spillway \
#       [--broker build/release/broker/spillway-broker] [--source DIR]
#
# With --broker (the suite's `container.image`): builds the Dockerfile's
# runtime-base stage and adds the host-built broker and CLI to it with the
# Dockerfile's own staging script (docker/stage-image-files.sh), so the
# suite does not compile the broker a second time inside the image (that
# compile was two thirds of the suite's wall time on 2 cores). Without it
# (`container.image_from_source`, label container_source, run by
# `scripts/dev.sh image`): builds the whole Dockerfile, compile stage
# included.
#
# Builds the image with podman (chroot isolation, host network, base
# image from ../shared/tools/container-base.sh, since no registry is
# reachable), checks the runtime image holds no compiler or build tree, then
# runs the image's entrypoint in buildah working containers (`podman run`
# cannot set rlimits/cgroups on these machines; `buildah run --isolation=chroot`
# can) with host networking and a podman named volume bind-mounted at
# /var/lib/spillway:
#   1. broker #1 with SPILLWAY_DISABLE_IO_URING=1: ready (`spillway ping`
#      from the host), non-root, exec'd by the entrypoint, logs its I/O line
#      once; the image's HEALTHCHECK command passes; the host CLI creates a
#      topic and produces 1000 messages; SIGTERM -> exit 0.
#   2. broker #2 on the same volume: logs its I/O line once; the host CLI
#      consumes all 1000 messages and they equal what was produced, and so
#      does the image's CLI inside a container (its gather-write fallback
#      logged at most once); SIGTERM -> exit 0; the HEALTHCHECK command now
#      fails.
#
# Exit 0: passed. Exit 77 (CTest SKIP_RETURN_CODE): podman/buildah cannot be
# installed or cannot run here, or the base image cannot be made; the reason
# is printed. Any other exit: failed. Needs root (apt-get, chroot isolation).
set -euo pipefail

cli=""
broker=""
source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
while (($#)); do
  case "$1" in
    --cli) cli=$2; shift 2 ;;
    --broker) broker=$2; shift 2 ;;
    --source) source_dir=$2; shift 2 ;;
    *) echo "usage: $0 --cli PATH [--broker PATH] [--source DIR]" >&2; exit 2 ;;
  esac
done
[[ -x "$cli" ]] || { echo "container_test: --cli must name the host-built spillway CLI" >&2; exit 2; }
cli=$(cd "$(dirname "$cli")" && pwd)/$(basename "$cli")
[[ -z "$broker" || -x "$broker" ]] || { echo "container_test: --broker must name the host-built spillway-broker" >&2; exit 2; }

image=localhost/spillway:container-test
topic=container-test
messages=1000
started=$SECONDS

say() { echo "container_test [$((SECONDS - started))s]: $*"; }
skip() { echo "container_test: SKIPPED: $*"; exit 77; }
fail() { echo "container_test: FAILED: $*" >&2; exit 1; }

# ---- tools ---------------------------------------------------------------
[[ $(id -u) -eq 0 ]] || skip "needs root (apt-get, buildah chroot isolation, volume ownership); running as uid $(id -u)"
if ! command -v podman >/dev/null || ! command -v buildah >/dev/null; then
  command -v apt-get >/dev/null || skip "podman/buildah missing and no apt-get to install them"
  say "installing podman and buildah"
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman buildah; } >/dev/null 2>&1; then
    skip "podman/buildah could not be installed with apt-get"
  fi
fi
podman info >/dev/null 2>&1 || skip "podman is installed but cannot run here (podman info fails)"
base_script=${SPILLWAY_CONTAINER_BASE_SCRIPT:-$source_dir/../shared/tools/container-base.sh}
[[ -f "$base_script" ]] || skip "no base-image script at $base_script (needs ../shared/tools/container-base.sh beside the repo)"
say "base image from $base_script"
base=$(bash "$base_script" 2>/tmp/container_test_base.$$.log | tail -n 1) || {
  cat /tmp/container_test_base.$$.log >&2
  rm -f /tmp/container_test_base.$$.log
  skip "the base image could not be made (debootstrap or podman import failed, log above)"
}
rm -f /tmp/container_test_base.$$.log
say "base image $base"

# ---- cleanup -------------------------------------------------------------
work=$(mktemp -d /tmp/spillway-container-test.XXXXXX)
containers=()
running_broker_pid=""  # only while its `buildah run` has not been reaped
volume=""
cleanup() {
  local c
  # Only a broker still under our own `buildah run` (a PID is never reused
  # while its parent chain stands).
  if [[ -n "$running_broker_pid" &&
        $(descendant_named "$broker_run_pid" spillway-broker) == "$running_broker_pid" ]]; then
    kill -TERM "$running_broker_pid" 2>/dev/null || true
    sleep 1
    kill -KILL "$running_broker_pid" 2>/dev/null || true
  fi
  for c in "${containers[@]}"; do
    buildah rm "$c" >/dev/null 2>&1 || true
  done
  [[ -z "$volume" ]] || podman volume rm -f "$volume" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# ---- build ---------------------------------------------------------------
if [[ -n "$broker" ]]; then
  say "building the runtime-base stage of $source_dir/Dockerfile, then $image with the host-built programs"
  runtime_base=localhost/spillway-runtime-base:container-test
  if ! podman build --isolation=chroot --network=host --format docker --target runtime-base \
    --build-arg BASE_IMAGE="$base" -t "$runtime_base" -f "$source_dir/Dockerfile" "$source_dir" \
    >"$work/build.log" 2>&1; then
    tail -n 60 "$work/build.log" >&2
    fail "podman build --target runtime-base failed (last lines above)"
  fi
  mkdir -p "$work/context"
  sh "$source_dir/docker/stage-image-files.sh" "$broker" "$cli" "$source_dir" "$work/context/out" ||
    fail "docker/stage-image-files.sh failed"
  printf 'FROM %s\nCOPY out/ /\n' "$runtime_base" >"$work/context/Containerfile"
  if ! podman build --isolation=chroot --network=host --format docker --pull=never \
    -t "$image" "$work/context" >>"$work/build.log" 2>&1; then
    tail -n 60 "$work/build.log" >&2
    fail "podman build of the image with the host-built programs failed (last lines above)"
  fi
else
  say "building $image from $source_dir/Dockerfile"
  if ! podman build --isolation=chroot --network=host --format docker \
    --build-arg BASE_IMAGE="$base" -t "$image" -f "$source_dir/Dockerfile" "$source_dir" \
    >"$work/build.log" 2>&1; then
    tail -n 60 "$work/build.log" >&2
    fail "podman build failed (last lines above)"
  fi
fi
say "built: $(podman image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' "$image")"

inspect() { podman image inspect --format "$1" "$image"; }
entrypoint=$(inspect '{{range .Config.Entrypoint}}{{.}} {{end}}')
healthcheck=$(inspect '{{if .Config.Healthcheck}}{{range .Config.Healthcheck.Test}}{{.}} {{end}}{{end}}')
user=$(inspect '{{.Config.User}}')
say "entrypoint [$entrypoint] healthcheck [$healthcheck] user [$user]"
[[ -n "$entrypoint" ]] || fail "the image has no ENTRYPOINT"
[[ "$healthcheck" == CMD* ]] || fail "the image has no HEALTHCHECK CMD (built with --format docker?)"
healthcheck=${healthcheck#CMD }
[[ -n "$user" && "$user" != root* && "$user" != 0* ]] || fail "the image's USER is '$user', not a non-root user"
inspect '{{json .Config.Volumes}}' | grep -q '"/var/lib/spillway"' || fail "no VOLUME /var/lib/spillway"
ports=$(inspect '{{json .Config.ExposedPorts}}')
[[ "$ports" == *'"9092/tcp"'* && "$ports" == *'"9093/tcp"'* && "$ports" == *'"9644/tcp"'* ]] ||
  fail "the image exposes $ports, not 9092, 9093 and 9644"

new_container() {
  local c
  c=$(buildah from --pull-never "$image") || fail "buildah from $image failed"
  containers+=("$c")
  echo "$c"
}

# ---- the runtime image holds no compiler or build tree -------------------
probe=$(new_container)
in_image() { buildah run --isolation=chroot --network=host "$probe" -- "$@"; }
# shellcheck disable=SC2016  # expanded inside the container
in_image sh -c 'for t in gcc g++ cc c++ cmake ninja make ld as; do command -v $t; done
                ls -d /src /build /out 2>/dev/null; true' >"$work/tools.txt"
[[ ! -s "$work/tools.txt" ]] || fail "the runtime image holds build tools or trees: $(tr '\n' ' ' <"$work/tools.txt")"
# shellcheck disable=SC2016
in_image dpkg-query -W -f='${Package}\n' >"$work/packages.txt"
if grep -E '^(gcc|g\+\+|cpp|cmake|ninja-build|binutils|make)(-[0-9]+)?$|-dev$' "$work/packages.txt" >"$work/bad.txt"; then
  fail "the runtime image holds build packages: $(tr '\n' ' ' <"$work/bad.txt")"
fi
uid=$(in_image id -u)
[[ "$uid" != 0 ]] || fail "the image runs as root"
say "runtime image: $(wc -l <"$work/packages.txt") packages, no compiler or build tree; user uid $uid"

# ---- the volume ----------------------------------------------------------
volume=spillway-container-test-$$
if podman volume create "$volume" >/dev/null 2>&1; then
  data=$(podman volume inspect --format '{{.Mountpoint}}' "$volume")
else
  volume=""
  data=$work/data
  mkdir -p "$data"
fi
# Docker gives a fresh named volume the image's ownership of the mount point;
# a bind mount under buildah does not, so do it here.
chown "$uid:$uid" "$data"
chmod 0750 "$data"
say "data volume ${volume:-(bind dir)} at $data"

# ---- a broker container --------------------------------------------------
# start_broker NAME [ENV=VALUE...] [-- ARG...]: runs the image's entrypoint
# with ARGs in a new working container, its environment as `docker run -e`
# would set it; sets broker_pid, broker_port and broker_run_pid.
start_broker() {
  local name=$1 c env_args=() i
  shift
  c=$(new_container)
  env_args=(--env SPILLWAY_LISTEN=127.0.0.1:0 --env SPILLWAY_KAFKA_LISTEN=127.0.0.1:0
            --env SPILLWAY_METRICS_LISTEN=127.0.0.1:0
            --env SPILLWAY_THREADS=2)
  while (($#)) && [[ "$1" != -- ]]; do env_args+=(--env "$1"); shift; done
  (($# == 0)) || shift
  buildah config "${env_args[@]}" "$c"
  # Made here, not by the background job's redirection: the polling below
  # must never read a log that does not exist yet (under pipefail that sed
  # failure ended the test on a loaded machine).
  : >"$work/$name.log"
  # shellcheck disable=SC2086  # the entrypoint is a word list
  buildah run --isolation=chroot --network=host -v "$data:/var/lib/spillway" "$c" -- \
    $entrypoint "$@" >>"$work/$name.log" 2>&1 &
  broker_run_pid=$!
  broker_pid=""
  broker_port=""
  for ((i = 0; i < 300; i++)); do
    broker_port=$(sed -n 's/.* listening on 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$work/$name.log" | head -n 1)
    if [[ -n "$broker_port" ]]; then
      # The broker is a descendant of `buildah run` (chroot isolation has no
      # PID namespace, so these are host PIDs). Looked up only once it has
      # logged its port: before that, the entrypoint's short-lived
      # `spillway-broker --help` (how it learns the flags) has the same name.
      broker_pid=$(descendant_named "$broker_run_pid" spillway-broker)
      running_broker_pid=$broker_pid
    fi
    [[ -z "$broker_pid" || -z "$broker_port" ]] || break
    kill -0 "$broker_run_pid" 2>/dev/null || { cat "$work/$name.log" >&2; fail "$name exited before listening"; }
    sleep 0.2
  done
  [[ -n "$broker_pid" && -n "$broker_port" ]] || { cat "$work/$name.log" >&2; fail "$name did not start within 60 s"; }
  for ((i = 0; i < 100; i++)); do
    "$cli" ping --broker "127.0.0.1:$broker_port" --timeout-ms 2000 >/dev/null 2>&1 && break
    sleep 0.2
  done
  "$cli" ping --broker "127.0.0.1:$broker_port" --timeout-ms 2000 >"$work/$name.ping" 2>&1 ||
    { cat "$work/$name.ping" "$work/$name.log" >&2; fail "$name does not answer spillway ping"; }
  say "$name: pid $broker_pid, port $broker_port, ping: $(head -n 1 "$work/$name.ping")"
}

# descendant_named PID COMM: the first descendant process of PID named COMM.
descendant_named() {
  ps -e -o pid=,ppid=,comm= | awk -v root="$1" -v name="$2" '
    { parent[$1] = $2; comm[$1] = $3 }
    END {
      for (p in comm) {
        if (comm[p] != name) continue
        for (q = parent[p]; q != "" && q > 1; q = parent[q]) if (q == root) { print p; exit }
      }
    }'
}

# stop_broker NAME: SIGTERM to the broker; its container must exit 0.
stop_broker() {
  local name=$1 rc=0
  kill -TERM "$broker_pid"
  wait "$broker_run_pid" || rc=$?
  running_broker_pid=""
  [[ $rc -eq 0 ]] || { cat "$work/$name.log" >&2; fail "$name exited $rc after SIGTERM, not 0"; }
  grep -q "stopped cleanly" "$work/$name.log" || { cat "$work/$name.log" >&2; fail "$name did not log a clean stop"; }
  say "$name: SIGTERM -> exit 0"
}

check_running_as_non_root() {
  local name=$1 real parent_comm
  real=$(awk '/^Uid:/ { print $2 }' "/proc/$broker_pid/status")
  [[ "$real" == "$uid" ]] || fail "$name runs as uid $real, not the image user $uid"
  # The entrypoint must exec the broker (so that in Docker it is PID 1 and
  # gets SIGTERM): no shell may stay between buildah and the broker.
  parent_comm=$(ps -o comm= -p "$(ps -o ppid= -p "$broker_pid" | tr -d ' ')")
  [[ "$parent_comm" != sh && "$parent_comm" != spillway-entryp* ]] ||
    fail "$name's parent is '$parent_comm': the entrypoint does not exec the broker"
  say "$name: runs as uid $real, exec'd by the entrypoint (parent: $parent_comm)"
}

# run_healthcheck: the image's HEALTHCHECK command in its own container, with
# the broker's address in the environment as `docker run -e` would give it.
run_healthcheck() {
  local c
  c=$(new_container)
  buildah config --env "SPILLWAY_LISTEN=127.0.0.1:$broker_port" "$c"
  # shellcheck disable=SC2086
  buildah run --isolation=chroot --network=host "$c" -- $healthcheck
}

# backend_lines LOG: the log lines that report the gather-write backend (the
# client library's); io_lines LOG: the broker's line saying what it uses.
backend_lines() { grep -E 'gather writes: ' "$1" || true; }
io_lines() { grep -E '\] I/O: ' "$1" || true; }
# check_io_line NAME: the broker logged what it uses exactly once, and no
# gather-write backend (it has none).
check_io_line() {
  local lines
  lines=$(io_lines "$work/$1.log")
  [[ $(grep -c . <<<"$lines") -eq 1 ]] || { cat "$work/$1.log" >&2; fail "$1 must log its I/O line exactly once"; }
  [[ -z $(backend_lines "$work/$1.log") ]] || { cat "$work/$1.log" >&2; fail "$1 logged a gather-write backend it does not use"; }
  say "$1: ${lines#*] }"
}

# ---- broker #1: io_uring disabled, produce ------------------------------
start_broker broker1 SPILLWAY_DISABLE_IO_URING=1
check_running_as_non_root broker1
# The entrypoint turned SPILLWAY_THREADS=2 into --threads 2.
grep -q ' 2 thread(s)' "$work/broker1.log" || { cat "$work/broker1.log" >&2; fail "SPILLWAY_THREADS=2 did not reach the broker"; }
run_healthcheck >"$work/health1.txt" 2>&1 || { cat "$work/health1.txt" >&2; fail "the HEALTHCHECK command fails against a running broker"; }
say "broker1: HEALTHCHECK ($healthcheck) passes"
for ((i = 0; i < messages; i++)); do
  printf 'message %04d from the host, %s\n' "$i" "$(printf '%*s' $((i % 37)) '' | tr ' ' x)"
done >"$work/produced.txt"
"$cli" topic create "$topic" --partitions 1 --broker "127.0.0.1:$broker_port" ||
  { cat "$work/broker1.log" >&2; fail "topic create failed"; }
"$cli" produce "$topic" --file "$work/produced.txt" --acks leader --broker "127.0.0.1:$broker_port" \
  2>"$work/produce.err" || { cat "$work/produce.err" "$work/broker1.log" >&2; fail "produce failed"; }
grep -q "produced $messages messages" "$work/produce.err" || { cat "$work/produce.err" >&2; fail "produce did not report $messages messages"; }
say "broker1: $(tr '\n' ' ' <"$work/produce.err")"
stop_broker broker1
check_io_line broker1
owner=$(find "$data" -mindepth 1 ! -uid "$uid" -print -quit)
[[ -z "$owner" ]] || fail "$owner in the volume is not owned by the image user $uid"

# ---- broker #2: same volume, consume -------------------------------------
start_broker broker2 -- --threads 1
check_running_as_non_root broker2
# A flag given as the container's argument wins over SPILLWAY_THREADS=2.
grep -q ' 1 thread(s)' "$work/broker2.log" || { cat "$work/broker2.log" >&2; fail "--threads 1 did not override SPILLWAY_THREADS"; }
# SPILLWAY_METRICS_LISTEN reached it too: /metrics answers over HTTP.
metrics_port=$(sed -n 's/.*metrics on 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$work/broker2.log" | head -n 1)
[[ -n "$metrics_port" ]] || { cat "$work/broker2.log" >&2; fail "broker2 did not log its metrics address"; }
exec 3<>"/dev/tcp/127.0.0.1/$metrics_port"
printf 'GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n' >&3
timeout 10 cat <&3 >"$work/metrics.txt" || true
exec 3<&-
head -n 1 "$work/metrics.txt" | grep -q ' 200' || { head -n 5 "$work/metrics.txt" >&2; fail "GET /metrics did not answer 200"; }
say "broker2: /metrics on port $metrics_port answers 200 ($(grep -vc '^#' "$work/metrics.txt") lines)"
"$cli" consume "$topic" --from-beginning --exit-at-end --timeout-ms 20000 \
  --broker "127.0.0.1:$broker_port" >"$work/consumed.txt" 2>"$work/consume.err" ||
  { cat "$work/consume.err" "$work/broker2.log" >&2; fail "consume failed"; }
if ! cmp -s "$work/produced.txt" "$work/consumed.txt"; then
  diff "$work/produced.txt" "$work/consumed.txt" | head -n 20 >&2
  fail "consumed $(wc -l <"$work/consumed.txt") lines that differ from the $messages produced"
fi
say "broker2: consumed all $messages messages back, identical"
# The image's own CLI, inside a container (its seccomp profile), too.
cli_container=$(new_container)
buildah run --isolation=chroot --network=host "$cli_container" -- spillway consume "$topic" \
  --from-beginning --exit-at-end --timeout-ms 20000 --broker "127.0.0.1:$broker_port" \
  >"$work/consumed-inside.txt" 2>"$work/consume-inside.err" ||
  { cat "$work/consume-inside.err" >&2; fail "consume with the image's CLI failed"; }
cmp -s "$work/produced.txt" "$work/consumed-inside.txt" ||
  fail "the image's CLI consumed $(wc -l <"$work/consumed-inside.txt") lines that differ from those produced"
say "broker2: the image's CLI consumed the same $messages messages inside a container"
stop_broker broker2
check_io_line broker2
# The CLI shows warnings only: where the container forbids io_uring it says
# so once (its writev fallback), and otherwise nothing.
cli_lines=$(backend_lines "$work/consume-inside.err")
if [[ -n "$cli_lines" ]] &&
   ! { [[ $(grep -c . <<<"$cli_lines") -eq 1 ]] && grep -q 'writev (io_uring unavailable' <<<"$cli_lines"; }; then
  cat "$work/consume-inside.err" >&2
  fail "the CLI in the container logged its gather-write backend more than once, or not as its writev fallback"
fi
say "CLI in the container: ${cli_lines:-(io_uring, nothing logged)}"
if run_healthcheck >"$work/health2.txt" 2>&1; then
  fail "the HEALTHCHECK command passes with no broker running"
fi
say "HEALTHCHECK fails once the broker is gone: $(head -n 1 "$work/health2.txt")"

echo "container_test: PASSED in $((SECONDS - started)) s"
