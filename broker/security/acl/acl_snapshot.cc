#include "security/acl/acl_snapshot.h"

#include <algorithm>
#include <utility>

namespace spillway::broker::security {

namespace {

// Whether a rule for `granted` allows `wanted` (Kafka's implied operations).
bool grants(AclOperation granted, AclOperation wanted) noexcept {
  if (granted == AclOperation::kAll || granted == wanted) return true;
  switch (wanted) {
    case AclOperation::kDescribe:
      return granted == AclOperation::kRead || granted == AclOperation::kWrite ||
             granted == AclOperation::kDelete || granted == AclOperation::kAlter;
    case AclOperation::kDescribeConfigs:
      return granted == AclOperation::kAlterConfigs;
    default:
      return false;
  }
}

}  // namespace

AclSnapshot::AclSnapshot(std::vector<AclBinding> bindings, uint64_t version)
    : bindings_(std::move(bindings)), version_(version) {
  for (const AclBinding& b : bindings_) {
    const auto t = static_cast<size_t>(b.resource_type);
    if (t >= by_type_.size()) continue;
    TypeIndex& index = by_type_[t];
    Entry e{b.principal, b.host, b.operation, b.permission};
    if (b.pattern_type == PatternType::kPrefixed) {
      index.prefixed[b.resource_name].push_back(std::move(e));
      index.prefix_lengths.push_back(b.resource_name.size());
    } else if (b.resource_name == kWildcardResource) {
      index.wildcard.push_back(std::move(e));
    } else {
      index.literal[b.resource_name].push_back(std::move(e));
    }
  }
  for (TypeIndex& index : by_type_) {
    std::sort(index.prefix_lengths.begin(), index.prefix_lengths.end());
    index.prefix_lengths.erase(
        std::unique(index.prefix_lengths.begin(), index.prefix_lengths.end()),
        index.prefix_lengths.end());
  }
}

bool AclSnapshot::scan(const std::vector<Entry>& entries, std::string_view principal,
                       std::string_view host, AclOperation operation, bool& allow) noexcept {
  for (const Entry& e : entries) {
    if (e.principal != principal && e.principal != kWildcardPrincipal) continue;
    if (e.host != host && e.host != kWildcardHost) continue;
    if (e.permission == AclPermission::kDeny) {
      // A deny applies to its own operation only (denying Read does not
      // deny Describe), or to every one for All.
      if (e.operation == AclOperation::kAll || e.operation == operation) return false;
    } else if (grants(e.operation, operation)) {
      allow = true;
    }
  }
  return true;
}

bool AclSnapshot::allowed(std::string_view principal, std::string_view host, AclOperation operation,
                          ResourceType type, std::string_view name) const noexcept {
  const auto t = static_cast<size_t>(type);
  if (t >= by_type_.size()) return false;
  const TypeIndex& index = by_type_[t];
  bool allow = false;
  if (auto it = index.literal.find(name); it != index.literal.end()) {
    if (!scan(it->second, principal, host, operation, allow)) return false;
  }
  if (!scan(index.wildcard, principal, host, operation, allow)) return false;
  for (size_t length : index.prefix_lengths) {
    if (length > name.size()) break;
    if (auto it = index.prefixed.find(name.substr(0, length)); it != index.prefixed.end()) {
      if (!scan(it->second, principal, host, operation, allow)) return false;
    }
  }
  return allow;
}

bool AclSnapshot::allowed_on_some(std::string_view principal, std::string_view host,
                                  AclOperation operation, ResourceType type) const noexcept {
  const auto t = static_cast<size_t>(type);
  if (t >= by_type_.size()) return false;
  const TypeIndex& index = by_type_[t];
  bool allow = false;
  if (!scan(index.wildcard, principal, host, operation, allow)) return false;
  // Any other rule that allows: a deny there covers its own names only.
  for (const Entries* entries : {&index.literal, &index.prefixed}) {
    for (const auto& [name, list] : *entries) {
      bool here = false;
      if (scan(list, principal, host, operation, here) && here) allow = true;
    }
  }
  return allow;
}

}  // namespace spillway::broker::security
