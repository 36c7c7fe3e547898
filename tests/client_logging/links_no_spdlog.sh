#!/bin/sh
# links_no_spdlog.sh BINARY: fails if BINARY holds or calls any spdlog code,
# i.e. if something it links could configure or write to a process-wide
# spdlog logger. nm lists what the static libraries contributed.
set -eu
symbols=$(nm -C "$1")
[ -n "$symbols" ] || { echo "links_no_spdlog: no symbols in $1" >&2; exit 1; }
if printf '%s\n' "$symbols" | grep 'spdlog::'; then
  echo "links_no_spdlog: $1 links spdlog code (above)" >&2
  exit 1
fi
echo "links_no_spdlog: $(printf '%s\n' "$symbols" | wc -l) symbols in $1, none of spdlog"
