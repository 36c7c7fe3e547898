#!/bin/sh
# Writes the Debian package's /etc/spillway/broker.toml: config/broker.toml
# (every key with its comment and default) with data_dir moved to
# /var/lib/spillway, the directory the package creates for the spillway user.
# Every listener stays on 127.0.0.1, as in config/broker.toml: what a host
# exposes is the operator's choice. Fails, and so fails the build, if the
# data_dir key has moved.
#
#   sh packaging/etc-broker-config.sh config/broker.toml OUT
set -eu
src=${1:?usage: etc-broker-config.sh config/broker.toml OUT}
out=${2:?usage: etc-broker-config.sh config/broker.toml OUT}
awk '
  BEGIN {
    print "# Spillway broker configuration of the Debian package, made from"
    print "# config/broker.toml by packaging/etc-broker-config.sh; changed for the"
    print "# package: [broker] data_dir. spillway-broker.service starts the broker"
    print "# with this file: edit it, then `systemctl restart spillway-broker`."
    print ""
  }
  /^\[/ { section = $0 }
  section == "[broker]" && /^data_dir *=/ { print "data_dir = \"/var/lib/spillway\""; n++; next }
  { print }
  END {
    if (n != 1) {
      print "etc-broker-config.sh: no [broker] data_dir in " FILENAME > "/dev/stderr"
      exit 1
    }
  }
' "$src" > "$out.tmp"
mv "$out.tmp" "$out"
