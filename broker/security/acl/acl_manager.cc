#include "security/acl/acl_manager.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <asio/post.hpp>
#include <utility>

#include "runtime/core_set.h"

namespace spillway::broker::security {

Result<std::unique_ptr<AclManager>> AclManager::open(storage::FileSystem& fs,
                                                     const std::string& data_dir,
                                                     std::vector<std::string> super_users,
                                                     CoreSet* cores) {
  AclStore store(fs, data_dir);
  Result<std::vector<AclBinding>> rules = store.load();
  if (!rules.ok()) return rules.status();
  return std::unique_ptr<AclManager>(
      new AclManager(std::move(store), std::move(*rules), std::move(super_users), cores));
}

AclManager::AclManager(AclStore store, std::vector<AclBinding> rules,
                       std::vector<std::string> super_users, CoreSet* cores)
    : store_(std::move(store)), cores_(cores), rules_(std::move(rules)) {
  authorizer_ =
      std::make_unique<AclAuthorizer>(std::move(super_users), cores == nullptr ? 0 : cores->size(),
                                      std::make_shared<const AclSnapshot>(rules_, version_));
}

void AclManager::run_change(std::function<void()> change) {
  if (cores_ == nullptr) {
    change();
  } else {
    asio::post(cores_->sync_context(0), std::move(change));
  }
}

std::shared_ptr<const AclSnapshot> AclManager::rebuild() {
  auto snapshot = std::make_shared<const AclSnapshot>(rules_, ++version_);
  authorizer_->install_shared(snapshot);
  return snapshot;
}

void AclManager::publish(std::shared_ptr<const AclSnapshot> snapshot,
                         asio::any_io_executor executor, std::function<void()> done) {
  if (cores_ == nullptr) {
    asio::post(executor, std::move(done));
    return;
  }
  cores_->broadcast(
      [this, snapshot = std::move(snapshot)](size_t core) { authorizer_->install(core, snapshot); },
      std::move(executor), std::move(done));
}

void AclManager::create(std::vector<AclBinding> bindings, asio::any_io_executor executor,
                        std::function<void(std::vector<Status>)> done) {
  run_change([this, bindings = std::move(bindings), executor, done = std::move(done)]() mutable {
    std::vector<Status> results(bindings.size(), Status::Ok());
    std::shared_ptr<const AclSnapshot> snapshot;
    {
      const std::lock_guard lock(mutex_);
      std::vector<AclBinding> next = rules_;
      std::vector<bool> added(bindings.size(), false);
      bool changed = false;
      for (size_t i = 0; i < bindings.size(); ++i) {
        results[i] = validate_binding(bindings[i]);
        if (!results[i].ok()) continue;
        if (std::find(next.begin(), next.end(), bindings[i]) != next.end()) continue;
        if (next.size() >= kMaxStoredAcls) {
          results[i] = Status(ErrorCode::kInvalidArgument, "too many ACLs");
          continue;
        }
        next.push_back(bindings[i]);
        added[i] = true;
        changed = true;
      }
      if (changed) {
        if (Status st = store_.save(next); !st.ok()) {
          spdlog::error("ACLs not changed: {}", st.message());
          for (Status& r : results) {
            if (r.ok()) r = st;
          }
        } else {
          for (size_t i = 0; i < bindings.size(); ++i) {
            if (added[i]) spdlog::info("ACL added: {}", describe(bindings[i]));
          }
          rules_ = std::move(next);
          snapshot = rebuild();
        }
      }
    }
    auto respond = [done = std::move(done), results = std::move(results)]() mutable {
      done(std::move(results));
    };
    if (snapshot == nullptr) {
      asio::post(executor, std::move(respond));
    } else {
      publish(std::move(snapshot), executor, std::move(respond));
    }
  });
}

void AclManager::remove(std::vector<AclFilter> filters, asio::any_io_executor executor,
                        std::function<void(std::vector<Result<std::vector<AclBinding>>>)> done) {
  run_change([this, filters = std::move(filters), executor, done = std::move(done)]() mutable {
    std::vector<Result<std::vector<AclBinding>>> results;
    results.reserve(filters.size());
    std::shared_ptr<const AclSnapshot> snapshot;
    {
      const std::lock_guard lock(mutex_);
      std::vector<AclBinding> next = rules_;
      bool changed = false;
      for (const AclFilter& filter : filters) {
        if (Status st = validate_filter(filter); !st.ok()) {
          results.emplace_back(st);
          continue;
        }
        std::vector<AclBinding> removed;
        auto keep_end = std::stable_partition(
            next.begin(), next.end(), [&](const AclBinding& b) { return !matches(filter, b); });
        removed.assign(keep_end, next.end());
        next.erase(keep_end, next.end());
        changed = changed || !removed.empty();
        results.emplace_back(std::move(removed));
      }
      if (changed) {
        if (Status st = store_.save(next); !st.ok()) {
          spdlog::error("ACLs not changed: {}", st.message());
          for (auto& r : results) r = st;
        } else {
          for (const auto& r : results) {
            if (!r.ok()) continue;
            for (const AclBinding& b : *r) spdlog::info("ACL removed: {}", describe(b));
          }
          rules_ = std::move(next);
          snapshot = rebuild();
        }
      }
    }
    auto respond = [done = std::move(done), results = std::move(results)]() mutable {
      done(std::move(results));
    };
    if (snapshot == nullptr) {
      asio::post(executor, std::move(respond));
    } else {
      publish(std::move(snapshot), executor, std::move(respond));
    }
  });
}

std::vector<AclBinding> AclManager::matching(const AclFilter& filter) const {
  std::vector<AclBinding> out;
  for (const AclBinding& b : authorizer_->snapshot()->bindings()) {
    if (matches(filter, b)) out.push_back(b);
  }
  return out;
}

}  // namespace spillway::broker::security
