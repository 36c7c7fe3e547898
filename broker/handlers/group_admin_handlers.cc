// The group administration handlers: decode, ask the coordinator, encode.
#include "group_admin_handlers.h"

#include <memory>
#include <string>
#include <vector>

#include "groups/group_coordinator.h"
#include "handlers/access.h"
#include "spillway/common/messages/group_admin.h"

namespace spillway::broker {

namespace {

// The most groups one DescribeGroups or DeleteGroups may name: each costs
// a hop to its owner core, and the answer is built in memory.
constexpr int32_t kMaxGroupsPerRequest = 1'000;

Status check_count(int32_t count) {
  if (count > kMaxGroupsPerRequest) {
    return Status(ErrorCode::kInvalidArgument,
                  "at most " + std::to_string(kMaxGroupsPerRequest) + " groups per request");
  }
  return Status::Ok();
}

std::vector<std::string> group_names(const messages::Array<std::string_view>& groups) {
  std::vector<std::string> names;
  names.reserve(static_cast<size_t>(groups.size()));
  for (std::string_view g : groups) names.emplace_back(g);
  return names;
}

}  // namespace

void ListGroupsHandler::handle(Exchange& exchange) {
  Result<messages::ListGroupsRequest> request =
      messages::decode_list_groups_request(exchange.body());
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  // Cluster Describe lists every group, else those the principal may
  // describe (Kafka's rule).
  const bool all = may_cluster(context_, exchange, security::AclOperation::kDescribe);
  context_.groups->list(
      exchange.executor(), [ex = &exchange, keep = exchange.keep_alive(), all,
                            broker = &context_](std::vector<groups::GroupListing> listing) {
        std::vector<messages::ListedGroup> listed;
        listed.reserve(listing.size());
        for (const groups::GroupListing& g : listing) {
          if (!all && !may_group(*broker, *ex, security::AclOperation::kDescribe, g.group_id)) {
            continue;
          }
          listed.push_back({.group = g.group_id,
                            .protocol_type = g.protocol_type,
                            .state = groups::group_state_name(g.state)});
        }
        ex->finish(messages::encode_list_groups_response({listed}, ex->out()));
      });
}

void DescribeGroupsHandler::handle(Exchange& exchange) {
  Result<messages::DescribeGroupsRequest> request =
      messages::decode_describe_groups_request(exchange.body());
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  if (Status st = check_count(request->groups.size()); !st.ok()) {
    exchange.finish(st);
    return;
  }
  // Every answer comes back on this exchange's core, so `pending` needs no
  // lock.
  struct Work {
    std::vector<groups::GroupDescription> results;
    size_t pending = 0;
  };
  auto work = std::make_shared<Work>();
  std::vector<std::string> names = group_names(request->groups);
  work->results.resize(names.size());
  work->pending = names.size();
  auto finish = [work, ex = &exchange, keep = exchange.keep_alive()] {
    std::vector<messages::DescribedMember> members;
    size_t total = 0;
    for (const groups::GroupDescription& g : work->results) total += g.members.size();
    members.reserve(total);  // views into it stay valid
    std::vector<messages::DescribedGroup> described;
    described.reserve(work->results.size());
    for (const groups::GroupDescription& g : work->results) {
      const size_t first = members.size();
      for (const groups::MemberDescription& m : g.members) {
        members.push_back(
            {.member_id = m.member_id,
             .group_instance_id = m.group_instance_id
                                      ? std::optional<std::string_view>(*m.group_instance_id)
                                      : std::nullopt,
             .client_id = m.client_id,
             .client_host = m.client_host,
             .assignment = m.assignment});
      }
      described.push_back({.group = g.group_id,
                           .error_code = g.status.code(),
                           .error_message = g.status.message(),
                           .state = groups::group_state_name(g.state),
                           .protocol_type = g.protocol_type,
                           .protocol = g.protocol_name,
                           .generation = g.generation,
                           .members = std::span<const messages::DescribedMember>(members).subspan(
                               first, g.members.size())});
    }
    ex->finish(messages::encode_describe_groups_response({described}, ex->out()));
  };
  if (names.empty()) {
    finish();
    return;
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (!may_group(context_, exchange, security::AclOperation::kDescribe, names[i])) {
      groups::GroupDescription d;
      d.group_id = names[i];
      d.status = Status(ErrorCode::kGroupAuthorizationFailed, "not allowed to describe the group");
      work->results[i] = std::move(d);
      if (--work->pending == 0) finish();
      continue;
    }
    std::string name = names[i];
    context_.groups->describe(std::move(name), exchange.executor(),
                              [work, i, finish, asked = names[i]](groups::GroupDescription d) {
                                d.group_id = asked;  // answered under the name asked for
                                work->results[i] = std::move(d);
                                if (--work->pending == 0) finish();
                              });
  }
}

void DeleteGroupsHandler::handle(Exchange& exchange) {
  Result<messages::DeleteGroupsRequest> request =
      messages::decode_delete_groups_request(exchange.body());
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  if (Status st = check_count(request->groups.size()); !st.ok()) {
    exchange.finish(st);
    return;
  }
  struct Work {
    std::vector<std::string> names;
    std::vector<Status> results;
    size_t pending = 0;
  };
  auto work = std::make_shared<Work>();
  work->names = group_names(request->groups);
  work->results.resize(work->names.size());
  work->pending = work->names.size();
  auto finish = [work, ex = &exchange, keep = exchange.keep_alive()] {
    std::vector<messages::DeletedGroup> deleted;
    deleted.reserve(work->names.size());
    for (size_t i = 0; i < work->names.size(); ++i) {
      deleted.push_back({.group = work->names[i],
                         .error_code = work->results[i].code(),
                         .error_message = work->results[i].message()});
    }
    ex->finish(messages::encode_delete_groups_response({deleted}, ex->out()));
  };
  if (work->names.empty()) {
    finish();
    return;
  }
  for (size_t i = 0; i < work->names.size(); ++i) {
    if (!may_group(context_, exchange, security::AclOperation::kDelete, work->names[i])) {
      work->results[i] =
          Status(ErrorCode::kGroupAuthorizationFailed, "not allowed to delete the group");
      if (--work->pending == 0) finish();
      continue;
    }
    context_.groups->remove(work->names[i], exchange.executor(), [work, i, finish](Status st) {
      work->results[i] = std::move(st);
      if (--work->pending == 0) finish();
    });
  }
}

}  // namespace spillway::broker
