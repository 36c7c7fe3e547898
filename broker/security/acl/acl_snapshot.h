// AclSnapshot: an immutable copy of every ACL, indexed for the check each
// request makes. A change to the ACLs builds a new snapshot; each core then
// swaps its pointer (AclAuthorizer), so checks never see a half-made change
// and never lock.
//
// The check allocates nothing: names are looked up as string_views in
// hash maps with heterogeneous lookup, prefixed rules by the lengths of the
// prefixes present (one lookup per distinct prefix length).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "security/acl/acl_binding.h"

namespace spillway::broker::security {

class AclSnapshot {
 public:
  AclSnapshot() = default;
  // `bindings` must be valid (validate_binding) and without duplicates.
  AclSnapshot(std::vector<AclBinding> bindings, uint64_t version);

  // Every rule, in the order they were added.
  const std::vector<AclBinding>& bindings() const noexcept { return bindings_; }
  // Grows by one with each change (so a core never installs an older one).
  uint64_t version() const noexcept { return version_; }

  // Kafka's decision without super-users: no if a deny rule for
  // `operation` (or All) applies, else yes if an allow rule applies for
  // `operation`, All, or an operation that implies it (Describe by Read,
  // Write, Delete, Alter; DescribeConfigs by AlterConfigs). Rules apply
  // when their principal is `principal` or "User:*", their host `host` or
  // "*", and their resource pattern names `name`.
  bool allowed(std::string_view principal, std::string_view host, AclOperation operation,
               ResourceType type, std::string_view name) const noexcept;
  // Whether `operation` is allowed on at least one resource of `type`
  // (Kafka's authorizeByResourceType, used for "Write on any topic"): some
  // allow rule applies to the principal, and no deny rule on every name
  // (literal "*") takes it away.
  bool allowed_on_some(std::string_view principal, std::string_view host, AclOperation operation,
                       ResourceType type) const noexcept;

 private:
  struct Entry {
    std::string principal;
    std::string host;
    AclOperation operation;
    AclPermission permission;
  };
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const noexcept {
      return std::hash<std::string_view>{}(s);
    }
  };
  using Entries = std::unordered_map<std::string, std::vector<Entry>, Hash, std::equal_to<>>;
  struct TypeIndex {
    Entries literal;                     // by exact name
    std::vector<Entry> wildcard;         // literal "*"
    Entries prefixed;                    // by prefix
    std::vector<size_t> prefix_lengths;  // distinct, ascending
  };
  // The verdict of one rule list, folded into `allow`; false when a deny
  // rule applies.
  static bool scan(const std::vector<Entry>& entries, std::string_view principal,
                   std::string_view host, AclOperation operation, bool& allow) noexcept;

  std::vector<AclBinding> bindings_;
  uint64_t version_ = 0;
  std::array<TypeIndex, 6> by_type_;  // by ResourceType value
};

}  // namespace spillway::broker::security
