// AclAuthorizer: security::Authorizer over ACL snapshots (acl_snapshot.h),
// one pointer per core. A core reads only its own pointer and only that
// core's thread replaces it (AclManager posts the new snapshot to every
// core), so allowed() takes no lock, bumps no reference count and allocates
// nothing. Threads that are not cores (tests, main before the cores run)
// read a shared copy under a mutex.
//
// Super-users (the config's [authorization] super_users) are allowed
// everything, rules or not.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "security/acl/acl_snapshot.h"
#include "security/authorizer.h"

namespace spillway::broker::security {

class AclAuthorizer final : public Authorizer {
 public:
  // `cores` per-core slots, each starting with `initial`.
  AclAuthorizer(std::vector<std::string> super_users, size_t cores,
                std::shared_ptr<const AclSnapshot> initial);

  bool allowed(const ConnectionSecurity& who, AclOperation operation, ResourceType type,
               std::string_view name) const noexcept override;
  // The same for a principal and host given directly.
  bool allowed(std::string_view principal, std::string_view host, AclOperation operation,
               ResourceType type, std::string_view name) const noexcept;
  bool super_user(std::string_view principal) const noexcept;
  // AclSnapshot::allowed_on_some for the calling core (super-users: yes).
  bool allowed_on_some(const ConnectionSecurity& who, AclOperation operation,
                       ResourceType type) const noexcept;

  // On core `core`'s thread (or before the cores run): that core's
  // snapshot becomes `snapshot`, unless it already has a newer one.
  void install(size_t core, const std::shared_ptr<const AclSnapshot>& snapshot);
  // Any thread: the snapshot threads other than cores see.
  void install_shared(const std::shared_ptr<const AclSnapshot>& snapshot);
  // The calling core's snapshot; off the cores, the shared one.
  std::shared_ptr<const AclSnapshot> snapshot() const;

 private:
  const std::vector<std::string> super_users_;
  // Slot i is read and written on core i only.
  std::vector<std::shared_ptr<const AclSnapshot>> per_core_;
  mutable std::mutex shared_mutex_;
  std::shared_ptr<const AclSnapshot> shared_;
};

// The super-user list of the config ("User:admin;User:ops"): entries
// separated by ';' (',' also accepted), blanks trimmed, each "Type:name".
Result<std::vector<std::string>> parse_super_users(std::string_view text);

}  // namespace spillway::broker::security
