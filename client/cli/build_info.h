// What `spillway version` reports about the binary: the release version, the
// git commit it was built from, and the CMake build type. build_info.cc is
// generated on every build (build_info.cc.in, write_build_info.cmake), and
// rewritten only when one of these changes.
#pragma once

namespace spillway::cli {

struct BuildInfo {
  const char* version;     // "0.1.0" (the CMake project version)
  const char* commit;      // "80bf9d4e12ab", "-dirty" appended for local changes; "" unknown
  const char* build_type;  // "Release", "Debug", ...; "" when none was set
};

// The facts of this binary; the same object on every call.
const BuildInfo& build_info();

}  // namespace spillway::cli
