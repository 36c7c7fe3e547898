#include "security/acl/acl_authorizer.h"

#include <algorithm>
#include <utility>

#include "runtime/core_set.h"

namespace spillway::broker::security {

AclAuthorizer::AclAuthorizer(std::vector<std::string> super_users, size_t cores,
                             std::shared_ptr<const AclSnapshot> initial)
    : super_users_(std::move(super_users)), per_core_(cores, initial), shared_(initial) {}

bool AclAuthorizer::super_user(std::string_view principal) const noexcept {
  return std::find(super_users_.begin(), super_users_.end(), principal) != super_users_.end();
}

bool AclAuthorizer::allowed(std::string_view principal, std::string_view host,
                            AclOperation operation, ResourceType type,
                            std::string_view name) const noexcept {
  if (super_user(principal)) return true;
  const size_t core = CoreSet::current();
  if (core < per_core_.size()) {
    return per_core_[core]->allowed(principal, host, operation, type, name);
  }
  const std::lock_guard lock(shared_mutex_);
  return shared_->allowed(principal, host, operation, type, name);
}

bool AclAuthorizer::allowed(const ConnectionSecurity& who, AclOperation operation,
                            ResourceType type, std::string_view name) const noexcept {
  return allowed(who.principal, who.host, operation, type, name);
}

bool AclAuthorizer::allowed_on_some(const ConnectionSecurity& who, AclOperation operation,
                                    ResourceType type) const noexcept {
  if (super_user(who.principal)) return true;
  const size_t core = CoreSet::current();
  if (core < per_core_.size()) {
    return per_core_[core]->allowed_on_some(who.principal, who.host, operation, type);
  }
  const std::lock_guard lock(shared_mutex_);
  return shared_->allowed_on_some(who.principal, who.host, operation, type);
}

void AclAuthorizer::install(size_t core, const std::shared_ptr<const AclSnapshot>& snapshot) {
  if (core >= per_core_.size()) return;
  if (per_core_[core]->version() < snapshot->version()) per_core_[core] = snapshot;
}

void AclAuthorizer::install_shared(const std::shared_ptr<const AclSnapshot>& snapshot) {
  const std::lock_guard lock(shared_mutex_);
  if (shared_->version() < snapshot->version()) shared_ = snapshot;
}

std::shared_ptr<const AclSnapshot> AclAuthorizer::snapshot() const {
  const size_t core = CoreSet::current();
  if (core < per_core_.size()) return per_core_[core];
  const std::lock_guard lock(shared_mutex_);
  return shared_;
}

Result<std::vector<std::string>> parse_super_users(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const size_t end = text.find_first_of(";,");
    std::string_view item = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item.empty()) continue;
    const size_t colon = item.find(':');
    if (colon == std::string_view::npos || colon == 0 || colon + 1 == item.size()) {
      return Status(ErrorCode::kConfig, "authorization.super_users: \"" + std::string(item) +
                                            "\" is not a principal \"Type:name\", e.g. User:admin");
    }
    out.emplace_back(item);
  }
  return out;
}

}  // namespace spillway::broker::security
