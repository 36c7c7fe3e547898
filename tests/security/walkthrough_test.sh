#!/usr/bin/env bash
# Runs the walk-through of docs/security.md as written: every ```sh block of
# its "## Walk-through" section, in order, in one bash (set -euo pipefail)
# in an empty directory, with the built spillway-broker and spillway first
# on the PATH. A line "! COMMAND" must fail (bash's own `!` would not stop
# set -e when the command succeeds). CTest runs it as security.walkthrough:
#
#   tests/security/walkthrough_test.sh --doc docs/security.md \
#       --bin-dir build/release/broker --bin-dir build/release/client
#
# The walk-through uses fixed ports (19092-19094, 19193), outside the
# kernel's ephemeral range, so the test runs serially (RUN_SERIAL).
set -euo pipefail

doc="" bins=()
while (($#)); do
  case "$1" in
    --doc) doc=$2; shift 2 ;;
    --bin-dir) bins+=("$2"); shift 2 ;;
    *) echo "usage: $0 --doc docs/security.md --bin-dir DIR..." >&2; exit 2 ;;
  esac
done
[[ -f "$doc" && ${#bins[@]} -gt 0 ]] || { echo "walkthrough_test: --doc and --bin-dir are required" >&2; exit 2; }
for tool in openssl kcat; do
  command -v "$tool" >/dev/null || { echo "walkthrough_test: $tool is not installed (scripts/dev.sh installs it)" >&2; exit 1; }
done

work=$(mktemp -d /tmp/spillway-walkthrough.XXXXXX)
cleanup() {
  [[ ! -f "$work/broker.pid" ]] || kill -9 "$(cat "$work/broker.pid")" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# The section's shell blocks, "! cmd" lines turned into checked failures.
awk '
  /^## / { in_section = ($0 == "## Walk-through") }
  in_section && /^```sh$/ { in_block = 1; next }
  in_block && /^```$/ { in_block = 0; print ""; next }
  in_block && /^! / {
    cmd = substr($0, 3)
    gsub(/'\''/, "'\''\\'\'''\''", cmd)
    print "if " substr($0, 3) "; then echo '\''walkthrough: expected a failure: " cmd "'\'' >&2; exit 1; fi"
    next
  }
  in_block { print }
' "$doc" >"$work/walkthrough.sh"
[[ $(grep -c . "$work/walkthrough.sh") -gt 10 ]] || { echo "walkthrough_test: no walk-through found in $doc" >&2; exit 1; }

path=""
for b in "${bins[@]}"; do path="$(cd "$b" && pwd):$path"; done
cd "$work"
status=0
PATH="$path$PATH" bash -euo pipefail -x walkthrough.sh >"$work/output" 2>&1 || status=$?
if [[ $status -ne 0 ]]; then
  cat "$work/output" >&2
  [[ ! -f broker.log ]] || { echo "--- broker.log" >&2; tail -n 30 broker.log >&2; }
  echo "walkthrough_test: FAIL (exit $status)" >&2
  exit 1
fi
echo "walkthrough_test: every command of the walk-through ran as written"
