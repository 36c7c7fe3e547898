#!/usr/bin/env bash
# The project's one entry point for people and CI.
#
#   scripts/dev.sh run    install what is missing, build, start the broker
#                         in the foreground with config/broker.toml
#   scripts/dev.sh test   install what is missing, build, run every test
#   scripts/dev.sh build  install what is missing and build only
#   scripts/dev.sh soak   long fault-injection runs (label soak)
#   scripts/dev.sh image  the container image built wholly from source
#                         (label container_source; the suite builds it from
#                         the host-built programs)
#
# Works on a fresh Debian 12 machine as root (or with sudo available).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
jobs=$(nproc 2>/dev/null || echo 2)

install_missing() {
  local want=() missing=()
  mapfile -t want < <(grep -v -E '^\s*(#|$)' scripts/deps.txt)
  for pkg in "${want[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' ||
      missing+=("$pkg")
  done
  ((${#missing[@]})) || return 0
  echo "dev.sh: installing missing packages: ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# The libFuzzer targets need clang; they live in their own build tree and the
# main test suite runs them (see tests/fuzz/).
build_fuzzers() {
  cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
    -DSPILLWAY_FUZZ_ONLY=ON >/dev/null
  cmake --build build/fuzz -j "$jobs"
}

build_release() {
  cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DSPILLWAY_FUZZER_DIR="$root/build/fuzz" "$@" >/dev/null
  cmake --build build/release -j "$jobs"
}

cmd=${1:-}
case "$cmd" in
  run)
    install_missing
    build_release -DSPILLWAY_BUILD_TESTS=OFF -DSPILLWAY_BUILD_BENCH=OFF
    mkdir -p data
    exec build/release/broker/spillway-broker --config config/broker.toml "${@:2}"
    ;;
  test)
    install_missing
    build_fuzzers
    build_release -DSPILLWAY_BUILD_TESTS=ON
    cd build/release
    # The soak run (long fault injection, label "soak") has its own command.
    exec ctest --output-on-failure -j "$jobs" -LE 'soak|container_source' "${@:2}"
    ;;
  soak)
    install_missing
    build_release -DSPILLWAY_BUILD_TESTS=ON
    cd build/release
    # Verbose: the run's totals ("[fault-run] ... rounds N, records
    # acknowledged ..., lost 0") are what a soak is for, pass or fail.
    exec ctest --output-on-failure --verbose -L soak "${@:2}"
    ;;
  image)
    install_missing
    build_release -DSPILLWAY_BUILD_TESTS=ON
    cd build/release
    exec ctest --output-on-failure --verbose -L container_source "${@:2}"
    ;;
  build)
    install_missing
    build_release
    ;;
  *)
    echo "usage: scripts/dev.sh run|test|soak|image|build" >&2
    exit 2
    ;;
esac
