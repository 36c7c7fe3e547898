// AclManager: the ACLs of a running broker. Owns the rule list, its file
// (AclStore) and the authorizer the handlers ask. A change (create,
// remove) runs on core 0's sync thread, one at a time: it edits the list,
// writes the file, builds a new snapshot and posts it to every core; its
// callback runs on the caller's executor once every core has it, so a
// request answered after a CreateAcls response sees the new rules on every
// core.
//
// Threading: create() and remove() from any core; matching() on a core
// (reads that core's snapshot) or any thread.
#pragma once

#include <asio/any_io_executor.hpp>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "security/acl/acl_authorizer.h"
#include "security/acl/acl_store.h"

namespace spillway::broker {
class CoreSet;
}

namespace spillway::broker::security {

class AclManager {
 public:
  // Loads the rules of `data_dir` (error: a damaged file, see acl_store.h).
  // `cores` may be null (tests): changes then apply inline.
  static Result<std::unique_ptr<AclManager>> open(storage::FileSystem& fs,
                                                  const std::string& data_dir,
                                                  std::vector<std::string> super_users,
                                                  CoreSet* cores);

  const AclAuthorizer& authorizer() const { return *authorizer_; }
  AclAuthorizer& authorizer() { return *authorizer_; }

  // Adds each binding; one Status per binding (kInvalidArgument for one
  // validate_binding refuses; a rule already present is Ok and not added
  // twice, as Kafka). All-or-nothing on disk: a failed write fails all.
  void create(std::vector<AclBinding> bindings, asio::any_io_executor executor,
              std::function<void(std::vector<Status>)> done);
  // Removes every rule each filter matches; per filter, the rules it
  // removed or why it could not.
  void remove(std::vector<AclFilter> filters, asio::any_io_executor executor,
              std::function<void(std::vector<Result<std::vector<AclBinding>>>)> done);
  // The rules `filter` matches, as the calling core sees them.
  std::vector<AclBinding> matching(const AclFilter& filter) const;

 private:
  AclManager(AclStore store, std::vector<AclBinding> rules, std::vector<std::string> super_users,
             CoreSet* cores);
  // Runs `change` where changes run (see the file comment).
  void run_change(std::function<void()> change);
  // After `rules_` changed (mutex_ held): the new snapshot, installed off
  // the cores at once; every core gets it via publish().
  std::shared_ptr<const AclSnapshot> rebuild();
  void publish(std::shared_ptr<const AclSnapshot> snapshot, asio::any_io_executor executor,
               std::function<void()> done);

  AclStore store_;
  CoreSet* cores_;
  std::unique_ptr<AclAuthorizer> authorizer_;
  std::mutex mutex_;  // rules_ and version_, touched by changes only
  std::vector<AclBinding> rules_;
  uint64_t version_ = 1;
};

}  // namespace spillway::broker::security
