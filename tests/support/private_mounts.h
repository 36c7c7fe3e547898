// Test support: a private mount namespace for the calling test process, so a
// test can mount a small tmpfs (a disk that fills up) or bind-mount a
// directory onto itself (rename and rmdir of it then fail with EBUSY)
// without touching the host. A broker the test starts afterwards inherits
// the namespace. Needs CAP_SYS_ADMIN; tests skip without it.
#pragma once

#include <sched.h>
#include <sys/mount.h>

namespace spillway::testing {

// True once this process has its own mount namespace whose mounts do not
// propagate back; false when it may not have one.
inline bool enter_private_mount_namespace() {
  return ::unshare(CLONE_NEWNS) == 0 &&
         ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0;
}

}  // namespace spillway::testing
