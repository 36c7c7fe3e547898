#!/bin/sh
# Prints the image's /etc/spillway/broker.toml: config/broker.toml (every key
# with its comment and default) with the three values a container needs
# changed — listen on all interfaces, keep data on the volume, serve metrics.
# Fails, and so fails the image build, if one of those keys has moved.
#
#   sh docker/container-config.sh config/broker.toml > broker.toml
set -eu
src=${1:?usage: container-config.sh config/broker.toml}
awk '
  BEGIN {
    print "# Spillway broker configuration of the container image, made from"
    print "# config/broker.toml by docker/container-config.sh. Changed for the"
    print "# container: [broker] listen, [broker] data_dir, [kafka] listen and"
    print "# advertised_listener, [metrics] listen and allow_unauthenticated."
    print "# Environment variables (SPILLWAY_LISTEN, ...) and flags override it;"
    print "# see docs/operations.md."
    print "#"
    print "# Security: these listeners are PLAINTEXT and unauthenticated, and the"
    print "# image ships no user and no password. To serve SASL_SSL instead (see"
    print "# docs/security.md): mount a certificate and key, set [kafka] listeners ="
    print "# \"SASL_SSL://0.0.0.0:9094\" (and advertised_listeners), [tls]"
    print "# kafka_cert_file / kafka_key_file, [authorization] enabled = true and"
    print "# super_users, keep the PLAINTEXT listens on 127.0.0.1, and create the"
    print "# first user offline in the data volume before the first start:"
    print "#   spillway user create admin --data-dir /var/lib/spillway --user-password-file FILE"
    print ""
  }
  /^\[/ { section = $0 }
  section == "[broker]" && /^listen *=/ { print "listen = \"0.0.0.0:9093\""; n++; next }
  section == "[broker]" && /^data_dir *=/ { print "data_dir = \"/var/lib/spillway\""; n++; next }
  section == "[kafka]" && /^listen *=/ { print "listen = \"0.0.0.0:9092\""; n++; next }
  # Kafka clients connect to what Metadata names: by default the host
  # localhost, as with `-p 9092:9092`; SPILLWAY_KAFKA_ADVERTISED_LISTENER
  # sets another.
  section == "[kafka]" && /^advertised_listener *=/ { print "advertised_listener = \"localhost:9092\""; n++; next }
  section == "[metrics]" && /^listen *=/ { print "listen = \"0.0.0.0:9644\""; n++; next }
  # Inside the container every address is "non-loopback"; what reaches 9644
  # is decided by the port mapping (compose.yaml publishes it on the host).
  section == "[metrics]" && /^allow_unauthenticated *=/ { print "allow_unauthenticated = true"; n++; next }
  { print }
  END {
    if (n != 6) {
      print "container-config.sh: expected [broker] listen, [broker] data_dir, [kafka] listen, [kafka] advertised_listener, [metrics] listen and [metrics] allow_unauthenticated" > "/dev/stderr"
      exit 1
    }
  }
' "$src"
