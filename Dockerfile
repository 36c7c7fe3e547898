# Spillway broker image: a build stage that compiles spillway-broker and the
# spillway CLI from this checkout, a runtime-base stage with their shared
# libraries, the user and the image's settings, and the final image: the
# runtime base plus the files docker/stage-image-files.sh lays out (the two
# programs, the config, the entrypoint and the healthcheck).
#
#   docker build -t spillway .
#   docker run -d --name spillway -p 9092:9092 -p 9093:9093 -p 9644:9644 \
#       -v spillway-data:/var/lib/spillway spillway
#
# Without a registry (podman/buildah, as tests/container/container_test.sh
# does):  --build-arg BASE_IMAGE=localhost/debian:bookworm-slim --format docker
# docs/operations.md describes the volume, ports, environment variables and
# the config; docker/entrypoint.sh maps the environment to broker flags.

ARG BASE_IMAGE=debian:bookworm-slim

FROM ${BASE_IMAGE} AS build
# Compiler, CMake and the -dev packages of scripts/deps.txt that the broker
# and the CLI need (no test or benchmark libraries).
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      g++ cmake ninja-build pkg-config libasio-dev liburing-dev libzstd-dev \
      zlib1g-dev libsnappy-dev liblz4-dev libssl-dev nlohmann-json3-dev \
      libspdlog-dev libfmt-dev libtomlplusplus-dev libcli11-dev \
 && rm -rf /var/lib/apt/lists/*
COPY . /src
# Release build of the two programs only; BUILD_JOBS=0 means one job per CPU.
ARG BUILD_JOBS=0
RUN jobs=${BUILD_JOBS}; [ "$jobs" -gt 0 ] || jobs=$(nproc) \
 && cmake -S /src -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DSPILLWAY_BUILD_TESTS=OFF -DSPILLWAY_BUILD_BENCH=OFF >/dev/null \
 && cmake --build /build --target spillway-broker spillway -j "$jobs" \
 && sh /src/docker/stage-image-files.sh /build/broker/spillway-broker \
      /build/client/spillway /src /out

# The runtime base: everything but the programs (the suite's container test
# builds this stage alone and adds the host-built programs to it).
FROM ${BASE_IMAGE} AS runtime-base
# Runtime libraries only: the shared objects the two binaries link
# (libstdc++ and libc come with the base image).
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      libspdlog1.10 libfmt9 libtomlplusplus3 liburing2 libzstd1 \
      zlib1g libsnappy1v5 liblz4-1 libssl3 \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/log/apt /var/log/dpkg.log \
 && groupadd --gid 10001 spillway \
 && useradd --uid 10001 --gid spillway --home-dir /var/lib/spillway \
      --no-create-home --shell /usr/sbin/nologin spillway \
 && install -d -o spillway -g spillway -m 0750 /var/lib/spillway
USER spillway:spillway
WORKDIR /var/lib/spillway
ENV SPILLWAY_CONFIG=/etc/spillway/broker.toml
VOLUME ["/var/lib/spillway"]
# 9092: Kafka protocol. 9093: native protocol. 9644: Prometheus /metrics.
EXPOSE 9092 9093 9644
# The broker handles SIGTERM itself (answers what it has read, exits 0); the
# entrypoint execs it, so it is PID 1 and receives the signal directly.
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=5s --start-period=5s --retries=3 \
  CMD ["spillway-healthcheck"]
ENTRYPOINT ["spillway-entrypoint"]
CMD []

FROM runtime-base
COPY --from=build /out/ /
