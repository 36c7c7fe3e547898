#!/usr/bin/env bash
# Packaging test 1: `cmake --install` into a temporary prefix, then, using
# that prefix only:
#  - every installed header compiles on its own;
#  - client/examples builds as an outside CMake project with
#    find_package(Spillway CONFIG REQUIRED) (static Spillway::client), and
#    with `pkg-config --cflags --libs spillway` (the shared
#    libspillway_client.so) and `pkg-config --static` (the archives);
#  - the three quickstarts run against the installed broker, started on
#    ephemeral ports with a temporary data directory and stopped by PID;
#  - testing/examples builds as an outside CMake project linking
#    Spillway::testing, Spillway::client and GTest::gtest_main, and its
#    GoogleTest (an EmbeddedBroker inside the test process, produce and
#    consume) runs and passes.
#
#   install_test.sh --build DIR --source DIR --cmake CMAKE --cxx CXX
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=broker.sh
. "$here/broker.sh"

while [ $# -gt 0 ]; do
  case "$1" in
  --build) build=$2 ;;
  --source) source=$2 ;;
  --cmake) cmake=$2 ;;
  --cxx) cxx=$2 ;;
  *) fail "unknown argument $1" ;;
  esac
  shift 2
done

make_scratch_dir
prefix=$scratch/prefix

# build_outside DIR BUILD: configures and builds $source/DIR as an outside
# CMake project into BUILD, with only the prefix to find Spillway in (no
# package registry, so nothing from the build tree), and checks that
# find_package found it there.
build_outside() {
  local dir=$1 out=$2
  "$cmake" -S "$source/$dir" -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF >"$out.configure.log" 2>&1 ||
    fail "configuring $dir: $(cat "$out.configure.log")"
  local found_at
  found_at=$(sed -n 's/^Spillway_DIR:PATH=//p' "$out/CMakeCache.txt")
  [ "$found_at" = "$prefix/lib/cmake/Spillway" ] || fail "$dir found Spillway at '$found_at'"
  "$cmake" --build "$out" >"$out.build.log" 2>&1 || fail "building $dir: $(cat "$out.build.log")"
}

"$cmake" --install "$build" --prefix "$prefix" >"$scratch/install.log" ||
  fail "cmake --install: $(cat "$scratch/install.log")"

echo "== installed files"
for f in bin/spillway-broker bin/spillway lib/libspillway_client.a lib/libspillway_common.a \
  lib/libspillway_client.so lib/libspillway_testing.a lib/libspillway_broker_core.a \
  lib/libspillway_storage.a include/spillway/testing/embedded_broker.h \
  lib/cmake/Spillway/SpillwayConfig.cmake \
  lib/cmake/Spillway/SpillwayConfigVersion.cmake lib/cmake/Spillway/SpillwayTargets.cmake \
  lib/pkgconfig/spillway.pc include/spillway/producer.h include/spillway/common/status.h; do
  [ -e "$prefix/$f" ] || fail "$f is not installed"
done
# The Debian package's files have absolute paths and stay out of a prefix.
if [ -e "$prefix/etc" ] || [ -e "$prefix/lib/systemd" ]; then
  fail "cmake --install wrote the Debian package's system files"
fi
soname=$(readelf -d "$prefix/lib/libspillway_client.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[[ "$soname" == libspillway_client.so.[0-9]*.[0-9]* ]] || fail "SONAME is '$soname'"
[ -e "$prefix/lib/$soname" ] || fail "no $soname beside libspillway_client.so"
# The shared library carries spillway_common: it leaves nothing of it (nor
# of itself) to be found elsewhere.
undefined=$(nm -D --undefined-only -C "$prefix/lib/libspillway_client.so" | grep 'spillway::' || true)
[ -z "$undefined" ] || fail "libspillway_client.so needs symbols it does not carry:
$undefined"
echo "SONAME $soname"

echo "== each installed header compiles on its own"
headers=$(cd "$prefix/include" && find spillway -name '*.h' | sort)
count=0
for h in $headers; do
  printf '#include <%s>\n' "$h" |
    "$cxx" -std=c++20 -fsyntax-only -I"$prefix/include" -x c++ - 2>"$scratch/header.log" ||
    fail "$h does not compile on its own: $(cat "$scratch/header.log")"
  count=$((count + 1))
done
echo "$count headers"

echo "== client/examples as an outside CMake project"
build_outside client/examples "$scratch/examples"
# The example's CMakeLists.txt sets no standard: C++20 came from Spillway::client.
grep -q -- '-std=\(gnu\|c\)++20' "$scratch/examples/build.ninja" ||
  fail "the example was not compiled as C++20"

echo "== client/examples through pkg-config"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
read -r -a pc_flags <<<"$(pkg-config --cflags --libs spillway)"
"$cxx" "$source/client/examples/quickstart.cc" "${pc_flags[@]}" -o "$scratch/quickstart-pc" \
  2>"$scratch/pc-build.log" || fail "pkg-config build: $(cat "$scratch/pc-build.log")"
readelf -d "$scratch/quickstart-pc" | grep -q "NEEDED.*\[$soname\]" ||
  fail "the pkg-config build does not link $soname"
echo "pkg-config --cflags --libs spillway: ${pc_flags[*]}"
# Static: a copy of the prefix without the shared library, so that
# -lspillway_client can only mean the archive and the link must be completed
# by Requires.private and Libs.private alone.
cp -a "$prefix" "$scratch/prefix-static"
rm "$scratch/prefix-static/lib/libspillway_client.so"*
read -r -a pc_static_flags <<<"$(PKG_CONFIG_PATH=$scratch/prefix-static/lib/pkgconfig \
  pkg-config --static --cflags --libs spillway)"
"$cxx" "$source/client/examples/quickstart.cc" "${pc_static_flags[@]}" \
  -o "$scratch/quickstart-pc-static" 2>"$scratch/pc-static-build.log" ||
  fail "pkg-config --static build: $(cat "$scratch/pc-static-build.log")"
if readelf -d "$scratch/quickstart-pc-static" | grep -q 'NEEDED.*libspillway'; then
  fail "the pkg-config --static build links a libspillway shared library"
fi

echo "== the quickstarts against the installed broker"
start_broker "$prefix/bin/spillway-broker" "$scratch/broker.log"
echo "broker (pid $broker_pid) at $broker_address"
check_quickstart() {
  local what=$1 output
  shift
  output=$("$@" 2>&1) || fail "$what exited $?: $output"
  expect_contains "$output" "hello went to partition " "$what"
  for line in "user-1=hello" "user-2=from" "user-1=spillway"; do
    expect_contains "$output" "$line" "$what"
  done
  # Records of one key come back in the order they were produced.
  local before=${output%%user-1=spillway*}
  expect_contains "$before" "user-1=hello" "$what (order of user-1's records)"
  echo "$what: ok"
}
check_quickstart "quickstart (CMake, static)" \
  "$scratch/examples/spillway_quickstart" "$broker_address" quickstart-cmake
check_quickstart "quickstart (pkg-config, shared)" \
  env LD_LIBRARY_PATH="$prefix/lib" "$scratch/quickstart-pc" "$broker_address" quickstart-pc
check_quickstart "quickstart (pkg-config --static)" \
  "$scratch/quickstart-pc-static" "$broker_address" quickstart-pc-static
stop_broker "$scratch/broker.log"

echo "== testing/examples (Spillway::testing, GoogleTest) as an outside CMake project"
# The broker's own headers stay in the source tree: only the public header
# of Spillway::testing (and what it includes) is installed.
for dir in storage cluster security; do
  if [ -e "$prefix/include/spillway/$dir" ] || [ -e "$prefix/include/$dir" ]; then
    fail "broker headers ($dir) were installed"
  fi
done
build_outside testing/examples "$scratch/testing-examples"
# Linked from the prefix's archives, not from the build tree's.
grep -q -- "$prefix/lib/libspillway_broker_core.a" "$scratch/testing-examples/build.ninja" ||
  fail "testing/examples does not link the installed libspillway_broker_core.a"
if grep -q -- "$build/" "$scratch/testing-examples/build.ninja"; then
  fail "testing/examples refers to the build tree $build"
fi
output=$(cd "$scratch/testing-examples" && ./spillway_testing_examples 2>&1) ||
  fail "the EmbeddedBroker GoogleTest failed: $output"
# A binary whose tests were all left out would also exit 0: at least one ran.
passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\{0,1\}\.$/\1/p' <<<"$output")
[ "${passed:-0}" -ge 1 ] || fail "the EmbeddedBroker GoogleTest ran no test: $output"
echo "EmbeddedBroker GoogleTest: $passed passed"
echo "PASS"
