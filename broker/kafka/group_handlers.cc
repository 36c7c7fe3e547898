// ListGroups, DescribeGroups and DeleteGroups through the group coordinator.
#include "group_handlers.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "codec.h"
#include "core/offset_store.h"
#include "error_map.h"
#include "group_ownership.h"
#include "groups/group_coordinator.h"
#include "handlers/access.h"
#include "spillway/common/kafka/delete_groups.h"
#include "spillway/common/kafka/describe_groups.h"
#include "spillway/common/kafka/list_groups.h"

namespace spillway::broker::kafka_listener {

namespace {

bool same_state(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

}  // namespace

void ListGroupsHandler::handle(Exchange& exchange) {
  using Response = kafka::ListGroupsResponse;
  Result<kafka::ListGroupsRequest> request = decode_request<kafka::ListGroupsRequest>(exchange);
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  // The filter's states, kept past the request body.
  auto filter = std::make_shared<std::vector<std::string>>();
  for (std::string_view s : request->states_filter) filter->emplace_back(s);
  // Cluster Describe lists every group; otherwise those the principal may
  // describe (Kafka's rule). Checked on this core, where the answer comes.
  const bool all = may_cluster(context_.broker, exchange, security::AclOperation::kDescribe);
  context_.broker.groups->list(
      exchange.executor(), [ex = &exchange, keep = exchange.keep_alive(), filter, all,
                            broker = &context_.broker](std::vector<groups::GroupListing> listing) {
        std::vector<Response::Group> groups;
        groups.reserve(listing.size());
        for (const groups::GroupListing& g : listing) {
          if (!all && !may_group(*broker, *ex, security::AclOperation::kDescribe, g.group_id)) {
            continue;
          }
          const std::string_view state = groups::group_state_name(g.state);
          if (!filter->empty() &&
              std::none_of(filter->begin(), filter->end(),
                           [&](const std::string& s) { return same_state(s, state); })) {
            continue;
          }
          groups.push_back(
              {.group_id = g.group_id, .protocol_type = g.protocol_type, .group_state = state});
        }
        Response response;
        response.groups = groups;
        respond(*ex, response);
      });
}

void DescribeGroupsHandler::handle(Exchange& exchange) {
  using Response = kafka::DescribeGroupsResponse;
  Result<kafka::DescribeGroupsRequest> request =
      decode_request<kafka::DescribeGroupsRequest>(exchange);
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  // One description per group asked, in the request's order; the answer
  // once all are in (they come back on this connection's core).
  struct Work {
    std::vector<groups::GroupDescription> described;
    std::vector<bool> elsewhere;  // coordinated by another broker: NOT_COORDINATOR
    size_t pending = 0;
    bool all_started = false;

    void send(Exchange& ex) const {
      std::vector<std::vector<Response::Member>> members(described.size());
      std::vector<Response::Group> out;
      out.reserve(described.size());
      for (size_t i = 0; i < described.size(); ++i) {
        const groups::GroupDescription& d = described[i];
        Response::Group g;
        g.group_id = d.group_id;
        g.protocol_type = d.protocol_type;
        g.protocol_data = d.protocol_name;
        if (elsewhere[i]) {
          g.error_code = kafka::errors::kNotCoordinator;
          g.group_state = "";
        } else if (d.status.code() == ErrorCode::kUnknownGroup) {
          g.group_state = "Dead";  // as Kafka describes a group it does not have
        } else if (d.status.code() == ErrorCode::kInvalidArgument) {
          g.error_code = kafka_error(KafkaRefusal::kInvalidGroupName);
          g.group_state = "";
        } else if (!d.status.ok()) {
          g.error_code = kafka_error(d.status);
          g.group_state = "";
        } else {
          g.group_state = groups::group_state_name(d.state);
        }
        for (const groups::MemberDescription& m : d.members) {
          members[i].push_back(
              {.member_id = m.member_id,
               .group_instance_id = m.group_instance_id
                                        ? std::optional<std::string_view>(*m.group_instance_id)
                                        : std::nullopt,
               .client_id = m.client_id,
               .client_host = m.client_host,
               .member_metadata = m.metadata,
               .member_assignment = m.assignment});
        }
        g.members = members[i];
        out.push_back(g);
      }
      Response response;
      response.groups = out;
      respond(ex, response);
    }
  };
  auto work = std::make_shared<Work>();
  work->described.resize(static_cast<size_t>(request->groups.size()));
  work->elsewhere.resize(work->described.size());
  size_t i = 0;
  for (std::string_view id : request->groups) {
    groups::GroupDescription& d = work->described[i];
    d.group_id = id;
    if (!OffsetStore::validate_group(id).ok()) {
      d.status = Status(ErrorCode::kInvalidArgument, "invalid group id");
      ++i;
      continue;
    }
    if (!may_group(context_.broker, exchange, security::AclOperation::kDescribe, id)) {
      d.status = Status(ErrorCode::kGroupAuthorizationFailed, "not allowed to describe the group");
      ++i;
      continue;
    }
    if (!coordinates_group(context_, id)) {
      work->elsewhere[i] = true;
      ++i;
      continue;
    }
    ++work->pending;
    context_.broker.groups->describe(
        std::string(id), exchange.executor(),
        [work, i, ex = &exchange, keep = exchange.keep_alive()](groups::GroupDescription got) {
          work->described[i] = std::move(got);
          if (--work->pending == 0 && work->all_started) work->send(*ex);
        });
    ++i;
  }
  work->all_started = true;
  if (work->pending == 0) work->send(exchange);
}

void DeleteGroupsHandler::handle(Exchange& exchange) {
  using Response = kafka::DeleteGroupsResponse;
  Result<kafka::DeleteGroupsRequest> request = decode_request<kafka::DeleteGroupsRequest>(exchange);
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  struct Work {
    std::vector<std::string> names;
    std::vector<int16_t> errors;
    size_t pending = 0;
    bool all_started = false;

    void send(Exchange& ex) const {
      std::vector<Response::GroupResult> results;
      results.reserve(names.size());
      for (size_t i = 0; i < names.size(); ++i) {
        results.push_back({.group_id = names[i], .error_code = errors[i]});
      }
      Response response;
      response.results = results;
      respond(ex, response);
    }
  };
  auto work = std::make_shared<Work>();
  for (std::string_view id : request->groups_names) {
    work->names.emplace_back(id);
    work->errors.push_back(0);
  }
  for (size_t i = 0; i < work->names.size(); ++i) {
    if (!OffsetStore::validate_group(work->names[i]).ok()) {
      work->errors[i] = kafka_error(KafkaRefusal::kInvalidGroupName);
      continue;
    }
    if (!may_group(context_.broker, exchange, security::AclOperation::kDelete, work->names[i])) {
      work->errors[i] = kafka_error(ErrorCode::kGroupAuthorizationFailed);
      continue;
    }
    if (!coordinates_group(context_, work->names[i])) {
      work->errors[i] = kafka::errors::kNotCoordinator;
      continue;
    }
    ++work->pending;
    context_.broker.groups->remove(
        work->names[i], exchange.executor(),
        [work, i, ex = &exchange, keep = exchange.keep_alive()](Status st) {
          work->errors[i] = kafka_error(st);
          if (--work->pending == 0 && work->all_started) work->send(*ex);
        });
  }
  work->all_started = true;
  if (work->pending == 0) work->send(exchange);
}

}  // namespace spillway::broker::kafka_listener
