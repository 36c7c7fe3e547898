#!/bin/sh
# Lays out every file the image adds to its runtime base under OUT: the two
# stripped programs, the entrypoint, the healthcheck and the container's
# broker.toml. One script for both ways the image is made: the Dockerfile's
# build stage runs it on the programs it compiled, and the suite's container
# test (tests/container/container_test.sh) on the programs the host build
# made, so the two images differ only in where the programs were compiled.
#
#   sh docker/stage-image-files.sh BROKER CLI SOURCE_DIR OUT
set -eu
broker=${1:?usage: stage-image-files.sh BROKER CLI SOURCE_DIR OUT}
cli=${2:?usage: stage-image-files.sh BROKER CLI SOURCE_DIR OUT}
src=${3:?usage: stage-image-files.sh BROKER CLI SOURCE_DIR OUT}
out=${4:?usage: stage-image-files.sh BROKER CLI SOURCE_DIR OUT}
install -D -m 0755 -s "$broker" "$out/usr/local/bin/spillway-broker"
install -D -m 0755 -s "$cli" "$out/usr/local/bin/spillway"
install -D -m 0755 "$src/docker/entrypoint.sh" "$out/usr/local/bin/spillway-entrypoint"
install -D -m 0755 "$src/docker/healthcheck.sh" "$out/usr/local/bin/spillway-healthcheck"
install -d -m 0755 "$out/etc/spillway"
sh "$src/docker/container-config.sh" "$src/config/broker.toml" >"$out/etc/spillway/broker.toml"
chmod 0644 "$out/etc/spillway/broker.toml"
