// ListGroups and DescribeGroups over the offset store's groups.
#include "group_handlers.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <string>
#include <vector>

#include "codec.h"
#include "error_map.h"
#include "spillway/common/kafka/delete_groups.h"
#include "spillway/common/kafka/describe_groups.h"
#include "spillway/common/kafka/list_groups.h"

namespace spillway::broker::kafka_listener {

namespace {

// Kafka's names for the two states a group can be in here.
constexpr std::string_view kEmpty = "Empty";
constexpr std::string_view kDead = "Dead";

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
  // Every group here is Empty: a filter without that state lists none.
  const auto& filter = request->states_filter;
  const bool wanted =
      filter.empty() || std::any_of(filter.begin(), filter.end(),
                                    [](std::string_view s) { return same_state(s, kEmpty); });
  std::vector<std::string> names;
  if (wanted) names = context_.broker.offsets.groups();
  std::vector<Response::Group> groups;
  groups.reserve(names.size());
  for (const std::string& name : names) {
    groups.push_back({.group_id = name, .protocol_type = "", .group_state = kEmpty});
  }
  Response response;
  response.groups = groups;
  respond(exchange, response);
}

void DescribeGroupsHandler::handle(Exchange& exchange) {
  using Response = kafka::DescribeGroupsResponse;
  Result<kafka::DescribeGroupsRequest> request =
      decode_request<kafka::DescribeGroupsRequest>(exchange);
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  std::vector<Response::Group> groups;
  for (std::string_view id : request->groups) {
    Response::Group g;
    g.group_id = id;
    g.protocol_type = "";
    g.protocol_data = "";
    if (id.empty()) {
      g.error_code = kafka_error(KafkaRefusal::kInvalidGroupName);
      g.group_state = "";
    } else {
      g.group_state = context_.broker.offsets.group_offsets(id).empty() ? kDead : kEmpty;
    }
    groups.push_back(g);
  }
  Response response;
  response.groups = groups;
  respond(exchange, response);
}

void DeleteGroupsHandler::handle(Exchange& exchange) {
  using Response = kafka::DeleteGroupsResponse;
  Result<kafka::DeleteGroupsRequest> request = decode_request<kafka::DeleteGroupsRequest>(exchange);
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  // Each group's file goes on the sync thread; the answer once all did.
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
    ++work->pending;
    context_.broker.offsets.remove_group_async(
        work->names[i], exchange.executor(),
        [work, i, ex = &exchange, keep = exchange.keep_alive()](Result<bool> removed) {
          if (!removed.ok()) {
            work->errors[i] = kafka_error(removed.status());
          } else if (!*removed) {
            work->errors[i] = kafka_error(KafkaRefusal::kUnknownGroup);
          }
          if (--work->pending == 0 && work->all_started) work->send(*ex);
        });
  }
  work->all_started = true;
  if (work->pending == 0) work->send(exchange);
}

}  // namespace spillway::broker::kafka_listener
