#include "group_checks.h"

#include <librdkafka/rdkafka.h>

#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <utility>

#include "keyed_producer.h"

namespace spillway::testing {

bool wait_until(std::chrono::milliseconds guard, const std::function<bool()>& condition) {
  const auto deadline = std::chrono::steady_clock::now() + guard;
  for (;;) {
    if (condition()) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

namespace {

// A consumer handle that never subscribes: it only asks the broker.
rd_kafka_t* query_client(const std::string& bootstrap, const std::string& group) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char error[512];
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), error, sizeof error);
  rd_kafka_conf_set(conf, "group.id", group.c_str(), error, sizeof error);
  rd_kafka_conf_set(conf, "enable.auto.commit", "false", error, sizeof error);
  rd_kafka_conf_set(conf, "log_level", "3", error, sizeof error);
  return rd_kafka_new(RD_KAFKA_CONSUMER, conf, error, sizeof error);
}

}  // namespace

std::vector<int64_t> log_end_offsets(const std::string& bootstrap, const std::string& topic,
                                     int32_t partitions) {
  rd_kafka_t* rk = query_client(bootstrap, "watermarks");
  if (rk == nullptr) return {};
  std::vector<int64_t> out;
  for (int32_t p = 0; p < partitions; ++p) {
    int64_t low = 0;
    int64_t high = 0;
    if (rd_kafka_query_watermark_offsets(rk, topic.c_str(), p, &low, &high, 10'000)) {
      out.clear();
      break;
    }
    out.push_back(high);
  }
  rd_kafka_destroy(rk);
  return out;
}

std::vector<int64_t> committed_offsets(const std::string& bootstrap, const std::string& group,
                                       const std::string& topic, int32_t partitions) {
  rd_kafka_t* rk = query_client(bootstrap, group);
  if (rk == nullptr) return {};
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(partitions);
  for (int32_t p = 0; p < partitions; ++p)
    rd_kafka_topic_partition_list_add(list, topic.c_str(), p);
  std::vector<int64_t> out;
  if (rd_kafka_committed(rk, list, 10'000) == RD_KAFKA_RESP_ERR_NO_ERROR) {
    for (int32_t p = 0; p < partitions; ++p) {
      const rd_kafka_topic_partition_t* e =
          rd_kafka_topic_partition_list_find(list, topic.c_str(), p);
      out.push_back(e == nullptr || e->err ? -1 : e->offset);
    }
  }
  rd_kafka_topic_partition_list_destroy(list);
  rd_kafka_destroy(rk);
  return out;
}

DescribedGroup describe_group(const std::string& bootstrap, const std::string& group) {
  DescribedGroup out;
  rd_kafka_t* rk = query_client(bootstrap, "describer");
  if (rk == nullptr) return {.error = "no client"};
  rd_kafka_queue_t* queue = rd_kafka_queue_new(rk);
  rd_kafka_AdminOptions_t* options =
      rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_DESCRIBECONSUMERGROUPS);
  char error[256];
  rd_kafka_AdminOptions_set_request_timeout(options, 10'000, error, sizeof error);
  const char* groups[] = {group.c_str()};
  rd_kafka_DescribeConsumerGroups(rk, groups, 1, options, queue);
  rd_kafka_event_t* event = rd_kafka_queue_poll(queue, 15'000);
  const rd_kafka_DescribeConsumerGroups_result_t* result =
      event ? rd_kafka_event_DescribeConsumerGroups_result(event) : nullptr;
  size_t count = 0;
  const rd_kafka_ConsumerGroupDescription_t** described =
      result ? rd_kafka_DescribeConsumerGroups_result_groups(result, &count) : nullptr;
  if (event == nullptr || result == nullptr) {
    out.error = "no DescribeConsumerGroups result";
  } else if (rd_kafka_event_error(event)) {
    out.error = rd_kafka_event_error_string(event);
  } else if (count != 1) {
    out.error = std::to_string(count) + " groups described";
  } else if (const rd_kafka_error_t* e = rd_kafka_ConsumerGroupDescription_error(described[0])) {
    out.error = rd_kafka_error_string(e);
  } else {
    const rd_kafka_ConsumerGroupDescription_t* g = described[0];
    out.state = rd_kafka_consumer_group_state_name(rd_kafka_ConsumerGroupDescription_state(g));
    const char* assignor = rd_kafka_ConsumerGroupDescription_partition_assignor(g);
    out.assignor = assignor ? assignor : "";
    for (size_t i = 0; i < rd_kafka_ConsumerGroupDescription_member_count(g); ++i) {
      const rd_kafka_MemberDescription_t* m = rd_kafka_ConsumerGroupDescription_member(g, i);
      DescribedMember member;
      member.member_id = rd_kafka_MemberDescription_consumer_id(m);
      const char* instance = rd_kafka_MemberDescription_group_instance_id(m);
      member.instance_id = instance ? instance : "";
      const rd_kafka_topic_partition_list_t* partitions =
          rd_kafka_MemberAssignment_partitions(rd_kafka_MemberDescription_assignment(m));
      for (int k = 0; partitions != nullptr && k < partitions->cnt; ++k) {
        member.partitions.insert(partitions->elems[k].partition);
      }
      out.members.push_back(std::move(member));
    }
  }
  if (event) rd_kafka_event_destroy(event);
  rd_kafka_AdminOptions_destroy(options);
  rd_kafka_queue_destroy(queue);
  rd_kafka_destroy(rk);
  return out;
}

std::string check_processed(const std::vector<const MemberProcess*>& members,
                            const std::vector<int64_t>& log_end, int produced) {
  // (partition, offset) -> "key value"
  std::map<std::pair<int32_t, int64_t>, std::string> seen;
  std::ostringstream problems;
  int reported = 0;
  auto problem = [&](const std::string& what) {
    if (reported++ < 10) problems << what << "\n";
  };
  for (const MemberProcess* m : members) {
    std::ifstream in(m->records_path());
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      int32_t p = -1;
      int64_t offset = -1;
      std::string key;
      std::string value;
      if (!(fields >> p >> offset >> key >> value)) continue;
      const std::string record = key + " " + value;
      auto [it, inserted] = seen.emplace(std::make_pair(p, offset), record);
      if (!inserted && it->second != record) {
        problem("partition " + std::to_string(p) + " offset " + std::to_string(offset) + ": " +
                it->second + " and " + record);
      }
    }
  }
  std::map<std::string, int> found;  // "key value" -> count
  for (const auto& [where, record] : seen) ++found[record];
  for (size_t p = 0; p < log_end.size(); ++p) {
    for (int64_t o = 0; o < log_end[p]; ++o) {
      if (seen.count({static_cast<int32_t>(p), o}) == 0) {
        problem("not processed: partition " + std::to_string(p) + " offset " + std::to_string(o));
      }
    }
  }
  for (int i = 0; i < produced; ++i) {
    if (found.count(KeyedProducer::key(i) + " " + KeyedProducer::value(i)) == 0) {
      problem("record " + std::to_string(i) + " never processed");
    }
  }
  if (reported > 10) problems << "... " << reported << " problems in all\n";
  return problems.str();
}

}  // namespace spillway::testing
