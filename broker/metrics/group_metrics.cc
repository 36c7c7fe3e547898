// Consumer group metrics, gathered and rendered at scrape time.
#include "group_metrics.h"

#include <algorithm>
#include <asio/post.hpp>
#include <map>
#include <memory>

#include "core/offset_store.h"
#include "core/topic_registry.h"
#include "runtime/core_set.h"

namespace spillway::broker {

std::string escape_label_value(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
  return out;
}

void collect_group_metrics(groups::GroupCoordinator* groups, const OffsetStore& offsets,
                           CoreSet& cores, std::function<void(GroupMetricsInput)> done) {
  auto read_commits = [&offsets, &cores,
                       done = std::move(done)](std::vector<groups::GroupStats> stats) mutable {
    asio::post(cores.sync_context(0), [&offsets, &cores, done = std::move(done),
                                       stats = std::move(stats)]() mutable {
      GroupMetricsInput input;
      input.stats = std::move(stats);
      for (const std::string& group : offsets.groups()) {
        for (OffsetStore::Entry& e : offsets.group_offsets(group)) {
          input.commits.push_back({group, std::move(e.topic), e.partition, e.offset});
        }
      }
      asio::post(cores.context(0), [done = std::move(done), input = std::move(input)]() mutable {
        done(std::move(input));
      });
    });
  };
  if (groups == nullptr) {
    read_commits({});
    return;
  }
  groups->stats(cores.context(0).get_executor(), std::move(read_commits));
}

namespace {

void sample(std::string& out, std::string_view name, std::string_view labels, int64_t value) {
  out += name;
  out += '{';
  out += labels;
  out += "} ";
  out += std::to_string(value);
  out += '\n';
}

}  // namespace

void render_group_metrics(std::string& out, const GroupMetricsInput& input,
                          const TopicRegistry& topics) {
  std::vector<const groups::GroupStats*> stats;
  for (const groups::GroupStats& s : input.stats) stats.push_back(&s);
  std::sort(stats.begin(), stats.end(),
            [](const auto* a, const auto* b) { return a->group_id < b->group_id; });
  struct Family {
    const char* name;
    const char* help;
    const char* type;
    int64_t (*value)(const groups::GroupStats&);
  };
  const Family families[] = {
      {"spillway_group_members", "Members of a consumer group.", "gauge",
       [](const groups::GroupStats& s) { return static_cast<int64_t>(s.members); }},
      {"spillway_group_generation",
       "A consumer group's generation (-1 before its first rebalance).", "gauge",
       [](const groups::GroupStats& s) { return static_cast<int64_t>(s.generation); }},
      {"spillway_group_rebalances_total",
       "Rebalances a consumer group went through since the broker started.", "counter",
       [](const groups::GroupStats& s) { return static_cast<int64_t>(s.rebalances); }},
  };
  for (const Family& f : families) {
    out +=
        std::string("# HELP ") + f.name + " " + f.help + "\n# TYPE " + f.name + " " + f.type + "\n";
    for (const groups::GroupStats* s : stats) {
      sample(out, f.name, "group=\"" + escape_label_value(s->group_id) + "\"", f.value(*s));
    }
  }

  out +=
      "# HELP spillway_group_lag Records between a consumer group's committed offset and the "
      "partition's high watermark.\n# TYPE spillway_group_lag gauge\n";
  std::map<std::string_view, const Topic*> by_name;
  const auto all = topics.snapshot();  // keeps the topics alive while rendering
  for (const auto& topic : all) by_name.emplace(topic->name, topic.get());
  for (const GroupCommit& c : input.commits) {
    const auto t = by_name.find(c.topic);
    if (t == by_name.end() || !t->second->offline.ok() || c.partition < 0 ||
        static_cast<size_t>(c.partition) >= t->second->partitions.size()) {
      continue;
    }
    const int64_t end =
        t->second->partitions[static_cast<size_t>(c.partition)]->high_watermark().value();
    sample(out, "spillway_group_lag",
           "group=\"" + escape_label_value(c.group) + "\",topic=\"" + escape_label_value(c.topic) +
               "\",partition=\"" + std::to_string(c.partition) + "\"",
           std::max<int64_t>(0, end - c.offset));
  }
}

}  // namespace spillway::broker
