// The fault runs' checker.
#include "log_checker.h"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace spillway::testing {

namespace {

constexpr int kGuardMs = 60'000;

int64_t sequence_of(const std::string& value) {
  const size_t colon = value.rfind(':');
  if (colon == std::string::npos) return -1;
  return std::stoll(value.substr(colon + 1));
}

}  // namespace

TopicContents read_topic(const std::string& bootstrap, const std::string& topic,
                         int32_t partitions) {
  TopicContents out;
  char errstr[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  for (const auto& [k, v] :
       std::vector<std::pair<std::string, std::string>>{{"bootstrap.servers", bootstrap},
                                                        {"group.id", "spillway-checker"},
                                                        {"enable.auto.commit", "false"},
                                                        {"enable.partition.eof", "true"},
                                                        {"log_level", "3"}}) {
    rd_kafka_conf_set(conf, k.c_str(), v.c_str(), errstr, sizeof(errstr));
  }
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
  if (rk == nullptr) {
    out.error = errstr;
    return out;
  }
  // Where each partition ends now (its high watermark).
  std::vector<int64_t> end(static_cast<size_t>(partitions), 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kGuardMs);
  for (int32_t p = 0; p < partitions; ++p) {
    int64_t low = 0;
    int64_t high = 0;
    rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR__TIMED_OUT;
    while (std::chrono::steady_clock::now() < deadline) {
      err = rd_kafka_query_watermark_offsets(rk, topic.c_str(), p, &low, &high, 5'000);
      if (err == RD_KAFKA_RESP_ERR_NO_ERROR) break;
    }
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      out.error = "partition " + std::to_string(p) + ": no watermarks: " + rd_kafka_err2str(err);
      rd_kafka_destroy(rk);
      return out;
    }
    end[static_cast<size_t>(p)] = high;
  }
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(partitions);
  for (int32_t p = 0; p < partitions; ++p) {
    rd_kafka_topic_partition_list_add(list, topic.c_str(), p)->offset = RD_KAFKA_OFFSET_BEGINNING;
  }
  rd_kafka_assign(rk, list);
  rd_kafka_topic_partition_list_destroy(list);
  std::set<int32_t> done;
  for (int32_t p = 0; p < partitions; ++p) {
    if (end[static_cast<size_t>(p)] == 0) done.insert(p);
  }
  // The guard is against a read that stops making progress, not against
  // a long one: a soak run acknowledges millions of records, and reading
  // them back takes as long as it takes on the machine.
  auto idle_deadline = deadline;
  while (static_cast<int32_t>(done.size()) < partitions &&
         std::chrono::steady_clock::now() < idle_deadline) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk, 500);
    if (m == nullptr) continue;
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      idle_deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kGuardMs);
      ReadRecord r;
      if (m->key) r.key.assign(static_cast<const char*>(m->key), m->key_len);
      if (m->payload) r.value.assign(static_cast<const char*>(m->payload), m->len);
      auto& part = out.partitions[m->partition];
      if (part.emplace(m->offset, std::move(r)).second) ++out.records;
      if (m->offset + 1 >= end[static_cast<size_t>(m->partition)]) done.insert(m->partition);
    } else if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      // Transient errors during a failover: the consumer retries.
    }
    rd_kafka_message_destroy(m);
  }
  if (static_cast<int32_t>(done.size()) < partitions) {
    out.error = "the topic was not read to its end: nothing new for " +
                std::to_string(kGuardMs / 1000) + " s;";
    for (int32_t p = 0; p < partitions; ++p) {
      if (done.count(p) == 0) {
        auto read = out.partitions.find(p);
        const int64_t next = read == out.partitions.end() || read->second.empty()
                                 ? 0
                                 : read->second.rbegin()->first + 1;
        out.error += " partition " + std::to_string(p) + " read to " + std::to_string(next) +
                     " of " + std::to_string(end[static_cast<size_t>(p)]) + ";";
      }
    }
  }
  rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);
  return out;
}

CheckResult check_acked(const std::vector<AckedRecord>& acked, const TopicContents& contents) {
  CheckResult result;
  result.acked = static_cast<int64_t>(acked.size());
  auto note = [&](const std::string& problem) {
    if (result.first_problem.empty()) result.first_problem = problem;
  };
  struct Place {
    int32_t partition;
    int64_t offset;
    bool operator<(const Place& o) const {
      return std::tie(partition, offset) < std::tie(o.partition, o.offset);
    }
  };
  // Every place each value was read at, in log order.
  std::unordered_map<std::string, std::vector<Place>> places;
  for (const auto& [partition, records] : contents.partitions) {
    for (const auto& [offset, r] : records) places[r.value].push_back({partition, offset});
  }
  auto record_at = [&](const Place& at) -> const ReadRecord* {
    auto part = contents.partitions.find(at.partition);
    if (part == contents.partitions.end()) return nullptr;
    auto it = part->second.find(at.offset);
    return it == part->second.end() ? nullptr : &it->second;
  };
  std::set<Place> acked_at;  // where each acknowledgement was found
  for (const AckedRecord& a : acked) {
    Place at{a.partition, a.offset};
    if (a.offset < 0) {
      // librdkafka acknowledges some records without an offset (-1001): a
      // record "implicitly acked" because the partition took a later batch of
      // the idempotent producer in sequence, so it must hold this one too, at an
      // offset librdkafka does not know. Those are looked for by value: its
      // first place, in the partition it was sent to.
      auto it = places.find(a.value);
      at.offset = it != places.end() && it->second.front().partition == a.partition
                      ? it->second.front().offset
                      : -1;
    }
    const ReadRecord* found = at.offset >= 0 ? record_at(at) : nullptr;
    if (found == nullptr || found->key != a.key || found->value != a.value) {
      ++result.lost;
      note("acknowledged " + a.value + " at " + std::to_string(a.partition) + "/" +
           std::to_string(a.offset) + " reads back as " +
           (found ? found->value : std::string("nothing")));
    } else {
      acked_at.insert(at);
    }
  }
  // A value at several places: copies no acknowledgement points to that
  // another producer id or epoch stored are resent (left out of the order
  // check below); every other copy beyond the first is a duplicate.
  std::set<Place> resent;
  for (const auto& [value, at] : places) {
    if (at.size() < 2) continue;
    auto acked_copy =
        std::find_if(at.begin(), at.end(), [&](const Place& p) { return acked_at.count(p) != 0; });
    const ReadRecord* kept = acked_copy == at.end() ? nullptr : record_at(*acked_copy);
    const Place* first = nullptr;
    for (const Place& p : at) {
      const ReadRecord* copy = record_at(p);
      if (kept != nullptr && acked_at.count(p) == 0 && copy->producer_id >= 0 &&
          kept->producer_id >= 0 &&
          (copy->producer_id != kept->producer_id ||
           copy->producer_epoch != kept->producer_epoch)) {
        resent.insert(p);
        ++result.resent;
      } else if (first == nullptr) {
        first = &p;
      } else {
        ++result.duplicates;
        note(value + " read at " + std::to_string(p.partition) + "/" + std::to_string(p.offset) +
             " and " + std::to_string(first->partition) + "/" + std::to_string(first->offset));
      }
    }
  }
  for (const auto& [partition, records] : contents.partitions) {
    std::unordered_map<std::string, int64_t> last_of_key;
    for (const auto& [offset, r] : records) {
      if (resent.count(Place{partition, offset}) != 0) continue;
      const int64_t seq = sequence_of(r.value);
      auto last = last_of_key.find(r.key);
      if (last != last_of_key.end() && seq <= last->second) {
        ++result.out_of_order;
        note("key " + r.key + ": " + r.value + " after sequence " + std::to_string(last->second));
      }
      last_of_key[r.key] = seq;
    }
  }
  return result;
}

}  // namespace spillway::testing
