// A ClusterMember that only hands out a snapshot the test sets, and an
// Authorizer that allows a fixed set of operations on the cluster: what the
// replication handlers read, without etcd.
#pragma once

#include <mutex>
#include <set>

#include "cluster/cluster_member.h"
#include "security/authorizer.h"

namespace spillway::broker::testing {

class FakeCluster final : public cluster::ClusterMember {
 public:
  void set_snapshot(cluster::SnapshotPtr snapshot) {
    std::lock_guard lock(mu_);
    snapshot_ = std::move(snapshot);
  }
  cluster::SnapshotPtr snapshot() const override {
    std::lock_guard lock(mu_);
    return snapshot_;
  }
  int64_t broker_epoch() const override { return 1; }

  // Not used by the handlers under test.
  void start(std::function<void(Status)> ready) override { ready(Status::Ok()); }
  void set_listener(std::function<void(cluster::SnapshotPtr)>) override {}
  void set_on_fenced(std::function<void()>) override {}
  void create_topic(cluster::NewTopic, std::function<void(Status)> done) override {
    done(Status(ErrorCode::kInvalidArgument, "fake"));
  }
  void delete_topic(std::string, std::function<void(Status)> done) override {
    done(Status(ErrorCode::kInvalidArgument, "fake"));
  }
  void alter_isr(const cluster::PartitionKey&, const cluster::PartitionState&,
                 std::vector<BrokerId>,
                 std::function<void(Result<cluster::PartitionState>)> done) override {
    done(Status(ErrorCode::kInvalidArgument, "fake"));
  }
  void reassign(std::string, std::vector<cluster::ReassignOrder> orders,
                std::function<void(cluster::ReassignOutcome)> done) override {
    done(
        {.results = std::vector<Status>(orders.size(), Status(ErrorCode::kInvalidArgument, "fake")),
         .revision = 0});
  }
  void controlled_shutdown(int64_t, std::function<void(Status)> done) override {
    done(Status::Ok());
  }
  void stop(std::function<void()> done) override { done(); }

 private:
  mutable std::mutex mu_;
  cluster::SnapshotPtr snapshot_;
};

// Allows exactly the listed operations on the cluster, nothing else.
class ClusterOnlyAuthorizer final : public security::Authorizer {
 public:
  explicit ClusterOnlyAuthorizer(std::set<security::AclOperation> allowed)
      : allowed_(std::move(allowed)) {}
  bool allowed(const security::ConnectionSecurity&, security::AclOperation operation,
               security::ResourceType type, std::string_view) const noexcept override {
    return type == security::ResourceType::kCluster && allowed_.contains(operation);
  }

 private:
  std::set<security::AclOperation> allowed_;
};

}  // namespace spillway::broker::testing
