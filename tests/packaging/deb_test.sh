#!/usr/bin/env bash
# Packaging test 2: `cpack -G DEB` from the build directory, the package
# unpacked with `dpkg -x` into a scratch root; its control files, systemd
# unit and conffile checked, then its broker run from the scratch root
# (--version, and a real start on ephemeral ports with a temporary data
# directory and the packaged /etc/spillway/broker.toml), pinged with the
# packaged CLI, and stopped by PID.
#
#   deb_test.sh --build DIR --cpack CPACK --version VERSION
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=broker.sh
. "$here/broker.sh"

while [ $# -gt 0 ]; do
  case "$1" in
  --build) build=$2 ;;
  --cpack) cpack=$2 ;;
  --version) version=$2 ;;
  *) fail "unknown argument $1" ;;
  esac
  shift 2
done

make_scratch_dir

echo "== cpack -G DEB"
# -B: the package and CPack's staging go to the scratch directory, not the
# build tree.
(cd "$build" && "$cpack" -G DEB -B "$scratch/cpack") >"$scratch/cpack.log" 2>&1 ||
  fail "cpack: $(cat "$scratch/cpack.log")"
debs=("$scratch"/cpack/*.deb)
if [ ${#debs[@]} -ne 1 ] || [ ! -f "${debs[0]}" ]; then
  fail "expected one .deb, got: ${debs[*]}"
fi
deb=${debs[0]}
echo "$(basename "$deb"), $(stat -c %s "$deb") bytes"

echo "== control"
[ "$(dpkg-deb -f "$deb" Package)" = spillway ] || fail "Package: $(dpkg-deb -f "$deb" Package)"
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "Version: $(dpkg-deb -f "$deb" Version)"
depends=$(dpkg-deb -f "$deb" Depends)
# adduser for postinst; the shared libraries the binaries link, found by
# dpkg-shlibdeps.
for dep in adduser libc6 libssl3 liburing2 libspdlog; do
  expect_contains "$depends" "$dep" "Depends"
done
dpkg-deb -e "$deb" "$scratch/control"
[ "$(cat "$scratch/control/conffiles")" = /etc/spillway/broker.toml ] ||
  fail "conffiles: $(cat "$scratch/control/conffiles")"
for script in postinst prerm postrm; do
  [ -x "$scratch/control/$script" ] || fail "no executable $script"
  sh -n "$scratch/control/$script" || fail "$script is not valid sh"
done
postinst=$(cat "$scratch/control/postinst")
expect_contains "$postinst" "adduser --system --group --home /var/lib/spillway" "postinst"
expect_contains "$postinst" "install -d -o spillway -g spillway -m 0750 /var/lib/spillway" "postinst"

echo "== contents"
contents=$(dpkg-deb -c "$deb" | awk '{print $NF}')
for f in ./usr/bin/spillway-broker ./usr/bin/spillway ./lib/systemd/system/spillway-broker.service \
  ./etc/spillway/broker.toml; do
  grep -qx -- "$f" <<<"$contents" || fail "$f is not in the package:
$contents"
done
# The client library, headers and CMake files are for `cmake --install`.
! grep -E '/include/|\.a$|\.so|/cmake/|pkgconfig' <<<"$contents" ||
  fail "development files in the package"

root=$scratch/root
dpkg -x "$deb" "$root"
unit=$(cat "$root/lib/systemd/system/spillway-broker.service")
for line in "User=spillway" "Group=spillway" \
  "ExecStart=/usr/bin/spillway-broker --config /etc/spillway/broker.toml" \
  "WorkingDirectory=/var/lib/spillway" "ReadWritePaths=/var/lib/spillway" "NoNewPrivileges=yes" \
  "ProtectSystem=strict" "ProtectHome=yes" "PrivateTmp=yes" "LimitNOFILE=" \
  "WantedBy=multi-user.target"; do
  expect_contains "$unit" "$line" "spillway-broker.service"
done
config=$(cat "$root/etc/spillway/broker.toml")
expect_contains "$config" 'data_dir = "/var/lib/spillway"' "/etc/spillway/broker.toml"
# systemd's own check of the unit, its ExecStart pointed at the scratch root.
sed "s#ExecStart=/usr/bin/#ExecStart=$root/usr/bin/#" "$root/lib/systemd/system/spillway-broker.service" \
  >"$scratch/spillway-broker.service"
if ! systemd-analyze verify "$scratch/spillway-broker.service" 2>"$scratch/verify.log" ||
  [ -s "$scratch/verify.log" ]; then
  fail "systemd-analyze verify: $(cat "$scratch/verify.log")"
fi

echo "== the packaged broker, from the scratch root"
out=$("$root/usr/bin/spillway-broker" --version 2>&1) || fail "spillway-broker --version: $out"
expect_contains "$out" "$version" "spillway-broker --version"
echo "spillway-broker --version: $out"
# The packaged config with the test's own data directory and ports.
# (Flags override the file, whatever their order.)
start_broker "$root/usr/bin/spillway-broker" "$scratch/broker.log" \
  --config "$root/etc/spillway/broker.toml"
echo "broker (pid $broker_pid) at $broker_address"
out=$("$root/usr/bin/spillway" ping --broker "$broker_address" 2>&1) || fail "spillway ping: $out"
expect_contains "$out" "at $broker_address" "spillway ping"
echo "spillway ping: $(head -1 <<<"$out")"
stop_broker "$scratch/broker.log"
[ -e "$scratch/data" ] || fail "the broker did not create its data directory"
echo "PASS"
