# Spillway broker image (first version; docker deployment has its own issue).
#
#   docker build -t spillway .
#   docker run --rm -p 9092:9092 -v spillway-data:/var/lib/spillway spillway
#   build/release/client/spillway ping --broker 127.0.0.1:9092
#
# Settings: flags appended to `docker run ... spillway` override the config,
# e.g. `--log-level debug`. `docker stop` sends SIGTERM: the broker finishes
# in-flight requests and exits 0. io_uring is not needed: Docker's default
# seccomp profile forbids it and Spillway falls back to plain syscalls.

FROM debian:bookworm-slim AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential cmake ninja-build pkg-config libasio-dev liburing-dev libzstd-dev \
      libspdlog-dev libfmt-dev libtomlplusplus-dev libcli11-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DSPILLWAY_BUILD_TESTS=OFF -DSPILLWAY_BUILD_BENCH=OFF \
 && cmake --build /build --target spillway-broker spillway

FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libspdlog1.10 libfmt9 libtomlplusplus3 liburing2 libzstd1 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /var/lib/spillway spillway \
 && mkdir -p /var/lib/spillway /etc/spillway \
 && chown spillway /var/lib/spillway
COPY --from=build /build/broker/spillway-broker /build/client/spillway /usr/local/bin/
COPY config/broker.toml /etc/spillway/broker.toml
USER spillway
VOLUME /var/lib/spillway
EXPOSE 9092
HEALTHCHECK --interval=10s --timeout=5s \
  CMD ["spillway", "ping", "--broker", "127.0.0.1:9092", "--timeout-ms", "3000"]
ENTRYPOINT ["spillway-broker", "--config", "/etc/spillway/broker.toml", \
            "--listen", "0.0.0.0:9092", "--data-dir", "/var/lib/spillway"]
