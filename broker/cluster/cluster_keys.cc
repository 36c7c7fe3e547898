#include "cluster/cluster_keys.h"

#include <charconv>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "core/topic_config.h"

namespace spillway::broker::cluster {

using nlohmann::json;

namespace {

// nlohmann's parser recurses per nesting level: refuse deep input before
// it sees it (no value of ours nests deeper than 4).
constexpr int kMaxNesting = 8;

bool nesting_ok(std::string_view v) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < v.size(); ++i) {
    const char c = v[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"')
      in_string = true;
    else if (c == '[' || c == '{') {
      if (++depth > kMaxNesting) return false;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return true;
}

Status bad(std::string_view what) {
  return Status(ErrorCode::kCorruptMessage, std::string(what));
}

Result<json> parse_object(std::string_view value) {
  if (value.size() > kMaxValueBytes) return bad("value too large");
  if (!nesting_ok(value)) return bad("value nested too deep");
  json j = json::parse(value.begin(), value.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return bad("value is not a JSON object");
  return j;
}

// An integer field in [lo, hi]; `fallback` when absent and optional.
Result<int64_t> get_int(const json& j, const char* name, int64_t lo, int64_t hi,
                        const int64_t* fallback = nullptr) {
  auto it = j.find(name);
  if (it == j.end()) {
    if (fallback) return *fallback;
    return bad(std::string("missing field ") + name);
  }
  if (!it->is_number_integer()) return bad(std::string("field ") + name + " is not an integer");
  if (it->is_number_unsigned() &&
      it->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return bad(std::string("field ") + name + " out of range");
  }
  const int64_t v = it->get<int64_t>();
  if (v < lo || v > hi) return bad(std::string("field ") + name + " out of range");
  return v;
}

Result<std::string> get_string(const json& j, const char* name, size_t max, bool optional) {
  auto it = j.find(name);
  if (it == j.end()) {
    if (optional) return std::string();
    return bad(std::string("missing field ") + name);
  }
  if (!it->is_string()) return bad(std::string("field ") + name + " is not a string");
  const auto& s = it->get_ref<const std::string&>();
  if (s.size() > max) return bad(std::string("field ") + name + " too long");
  return s;
}

// A list of distinct broker ids, 1..kMaxReplicationFactor long.
Result<std::vector<BrokerId>> get_brokers(const json& list, const char* name) {
  if (!list.is_array()) return bad(std::string("field ") + name + " is not an array");
  if (list.empty() || list.size() > static_cast<size_t>(kMaxReplicationFactor)) {
    return bad(std::string("field ") + name + ": bad length");
  }
  std::vector<BrokerId> out;
  out.reserve(list.size());
  std::set<BrokerId> seen;
  for (const json& e : list) {
    if (!e.is_number_integer() || !valid_broker_id(e.get<int64_t>()) ||
        (e.is_number_unsigned() && e.get<uint64_t>() > static_cast<uint64_t>(INT32_MAX))) {
      return bad(std::string("field ") + name + ": bad broker id");
    }
    const auto id = static_cast<BrokerId>(e.get<int64_t>());
    if (!seen.insert(id).second) return bad(std::string("field ") + name + ": duplicate id");
    out.push_back(id);
  }
  return out;
}

bool parse_int(std::string_view s, int64_t lo, int64_t hi, int64_t* out) {
  if (s.empty() || s.size() > 10 || (s.size() > 1 && s[0] == '0')) return false;
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < lo || v > hi) return false;
  *out = v;
  return true;
}

}  // namespace

bool valid_broker_id(int64_t id) {
  return id >= 0 && id <= std::numeric_limits<int32_t>::max();
}

ClusterKeys::ClusterKeys(std::string_view cluster_name)
    : prefix_("/spillway/" + std::string(cluster_name) + "/"),
      groups_prefix_("/spillway-groups/" + std::string(cluster_name) + "/offsets/") {}

std::string ClusterKeys::group_offsets(std::string_view group) const {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string key = groups_prefix_;
  key.reserve(key.size() + 2 * group.size());
  for (unsigned char c : group) {
    key.push_back(kHex[c >> 4]);
    key.push_back(kHex[c & 15]);
  }
  return key;
}

std::string ClusterKeys::broker(BrokerId id) const {
  return prefix_ + "brokers/" + std::to_string(id);
}
std::string ClusterKeys::controller() const {
  return prefix_ + "controller";
}
std::string ClusterKeys::topic(std::string_view name) const {
  return prefix_ + "topics/" + std::string(name);
}
std::string ClusterKeys::partitions_of(std::string_view topic) const {
  return prefix_ + "partitions/" + std::string(topic) + "/";
}
std::string ClusterKeys::partition(std::string_view topic, int32_t p) const {
  return partitions_of(topic) + std::to_string(p);
}

ClusterKeys::Parsed ClusterKeys::parse(std::string_view key) const {
  Parsed out;
  if (key.substr(0, prefix_.size()) != prefix_) return out;
  std::string_view rest = key.substr(prefix_.size());
  auto take = [&](std::string_view head) {
    if (rest.substr(0, head.size()) != head) return false;
    rest.remove_prefix(head.size());
    return true;
  };
  int64_t n = 0;
  if (rest == "controller") {
    out.kind = Parsed::Kind::kController;
  } else if (take("brokers/")) {
    if (parse_int(rest, 0, std::numeric_limits<int32_t>::max(), &n)) {
      out.kind = Parsed::Kind::kBroker;
      out.broker = static_cast<BrokerId>(n);
    }
  } else if (take("topics/")) {
    if (validate_topic_name(rest).ok()) {
      out.kind = Parsed::Kind::kTopic;
      out.topic = std::string(rest);
    }
  } else if (take("partitions/")) {
    const size_t slash = rest.rfind('/');
    if (slash != std::string_view::npos && validate_topic_name(rest.substr(0, slash)).ok() &&
        parse_int(rest.substr(slash + 1), 0, kMaxPartitions - 1, &n)) {
      out.kind = Parsed::Kind::kPartition;
      out.topic = std::string(rest.substr(0, slash));
      out.partition = static_cast<int32_t>(n);
    }
  }
  return out;
}

std::string encode_broker(const BrokerInfo& b) {
  return json{{"native", b.native_address},
              {"kafka", b.kafka_address},
              {"rack", b.rack},
              {"shutting_down", b.shutting_down}}
      .dump();
}

Result<BrokerInfo> decode_broker(std::string_view value, BrokerId id, int64_t epoch) {
  auto j = parse_object(value);
  if (!j.ok()) return j.status();
  BrokerInfo b;
  b.id = id;
  b.epoch = epoch;
  auto native = get_string(*j, "native", kMaxAddressBytes, false);
  if (!native.ok()) return native.status();
  auto kafka = get_string(*j, "kafka", kMaxAddressBytes, true);
  if (!kafka.ok()) return kafka.status();
  auto rack = get_string(*j, "rack", kMaxRackBytes, true);
  if (!rack.ok()) return rack.status();
  b.native_address = std::move(*native);
  b.kafka_address = std::move(*kafka);
  b.rack = std::move(*rack);
  auto sd = j->find("shutting_down");
  if (sd != j->end()) {
    if (!sd->is_boolean()) return bad("field shutting_down is not a boolean");
    b.shutting_down = sd->get<bool>();
  }
  return b;
}

std::string encode_controller(BrokerId id) {
  return json{{"broker", id}}.dump();
}

Result<BrokerId> decode_controller(std::string_view value) {
  auto j = parse_object(value);
  if (!j.ok()) return j.status();
  auto id = get_int(*j, "broker", 0, std::numeric_limits<int32_t>::max());
  if (!id.ok()) return id.status();
  return static_cast<BrokerId>(*id);
}

std::string encode_topic(const TopicAssignment& t) {
  // "reassigning" keeps the shape older brokers read (the targets alone);
  // what a move adds to it goes in "moves", which they ignore.
  json moving = json::object();
  json moves = json::object();
  for (const auto& [p, move] : t.reassigning) {
    moving[std::to_string(p)] = move.target;
    if (!move.original.empty() || move.throttle_bytes_per_sec != 0) {
      json details = json::object();
      if (!move.original.empty()) details["from"] = move.original;
      details["throttle"] = move.throttle_bytes_per_sec;
      moves[std::to_string(p)] = std::move(details);
    }
  }
  const TopicSettings& s = t.settings;
  return json{{"replicas", t.replicas},
              {"reassigning", moving},
              {"moves", moves},
              {"settings",
               {{"flush_policy", s.flush_policy},
                {"retention_bytes", s.retention_bytes},
                {"retention_ms", s.retention_ms},
                {"segment_bytes", s.segment_bytes},
                {"min_insync_replicas", s.min_insync_replicas},
                {"unclean_leader_election", s.unclean_leader_election}}}}
      .dump();
}

Result<TopicAssignment> decode_topic(std::string_view value, std::string_view name) {
  auto j = parse_object(value);
  if (!j.ok()) return j.status();
  TopicAssignment t;
  t.name = std::string(name);
  auto reps = j->find("replicas");
  if (reps == j->end() || !reps->is_array()) return bad("field replicas is not an array");
  if (reps->empty() || reps->size() > static_cast<size_t>(kMaxPartitions)) {
    return bad("field replicas: bad partition count");
  }
  t.replicas.reserve(reps->size());
  for (const json& r : *reps) {
    auto list = get_brokers(r, "replicas");
    if (!list.ok()) return list.status();
    t.replicas.push_back(std::move(*list));
  }
  auto moving = j->find("reassigning");
  if (moving != j->end()) {
    if (!moving->is_object() || moving->size() > t.replicas.size()) {
      return bad("field reassigning is not a bounded object");
    }
    for (const auto& [k, v] : moving->items()) {
      int64_t p = 0;
      if (!parse_int(k, 0, static_cast<int64_t>(t.replicas.size()) - 1, &p)) {
        return bad("field reassigning: bad partition");
      }
      auto list = get_brokers(v, "reassigning");
      if (!list.ok()) return list.status();
      t.reassigning[static_cast<int32_t>(p)].target = std::move(*list);
    }
  }
  // A move's details; those of a partition not being moved are ignored.
  auto moves = j->find("moves");
  if (moves != j->end()) {
    if (!moves->is_object() || moves->size() > t.replicas.size()) {
      return bad("field moves is not a bounded object");
    }
    for (const auto& [k, v] : moves->items()) {
      int64_t p = 0;
      if (!parse_int(k, 0, static_cast<int64_t>(t.replicas.size()) - 1, &p) || !v.is_object()) {
        return bad("field moves: bad partition");
      }
      auto move = t.reassigning.find(static_cast<int32_t>(p));
      if (move == t.reassigning.end()) continue;
      if (auto from = v.find("from"); from != v.end()) {
        auto list = get_brokers(*from, "moves");
        if (!list.ok()) return list.status();
        move->second.original = std::move(*list);
      }
      const int64_t none = 0;
      auto throttle = get_int(v, "throttle", 0, std::numeric_limits<int64_t>::max(), &none);
      if (!throttle.ok()) return throttle.status();
      move->second.throttle_bytes_per_sec = *throttle;
    }
  }
  auto st = j->find("settings");
  if (st != j->end()) {
    if (!st->is_object()) return bad("field settings is not an object");
    TopicSettings& s = t.settings;
    const int64_t unset = -2, zero = 0, dflt = -1;
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    auto flush = get_string(*st, "flush_policy", 32, true);
    auto rb = get_int(*st, "retention_bytes", -2, kMax, &unset);
    auto rm = get_int(*st, "retention_ms", -2, kMax, &unset);
    auto sb = get_int(*st, "segment_bytes", -2, kMax, &unset);
    auto mi = get_int(*st, "min_insync_replicas", 0, kMaxReplicationFactor, &zero);
    auto ul = get_int(*st, "unclean_leader_election", -1, 1, &dflt);
    for (const Status& e :
         {flush.status(), rb.status(), rm.status(), sb.status(), mi.status(), ul.status()}) {
      if (!e.ok()) return e;
    }
    s.flush_policy = std::move(*flush);
    s.retention_bytes = *rb;
    s.retention_ms = *rm;
    s.segment_bytes = *sb;
    s.min_insync_replicas = static_cast<int32_t>(*mi);
    s.unclean_leader_election = static_cast<int32_t>(*ul);
  }
  return t;
}

std::string encode_partition(const PartitionState& p) {
  return json{{"leader", p.leader},
              {"leader_epoch", p.leader_epoch},
              {"isr", p.isr},
              {"controller_epoch", p.controller_epoch}}
      .dump();
}

Result<PartitionState> decode_partition(std::string_view value) {
  auto j = parse_object(value);
  if (!j.ok()) return j.status();
  PartitionState p;
  auto leader = get_int(*j, "leader", -1, std::numeric_limits<int32_t>::max());
  if (!leader.ok()) return leader.status();
  auto epoch = get_int(*j, "leader_epoch", 0, std::numeric_limits<int32_t>::max());
  if (!epoch.ok()) return epoch.status();
  auto cepoch = get_int(*j, "controller_epoch", 0, std::numeric_limits<int64_t>::max());
  if (!cepoch.ok()) return cepoch.status();
  auto isr = j->find("isr");
  if (isr == j->end()) return bad("missing field isr");
  auto list = get_brokers(*isr, "isr");
  if (!list.ok()) return list.status();
  p.leader = static_cast<BrokerId>(*leader);
  p.leader_epoch = static_cast<int32_t>(*epoch);
  p.controller_epoch = *cepoch;
  p.isr = std::move(*list);
  return p;
}

std::string encode_group_offsets(const std::vector<GroupOffset>& offsets) {
  json list = json::array();
  for (const GroupOffset& o : offsets)
    list.push_back(json::array({o.topic, o.partition, o.offset}));
  return json{{"offsets", std::move(list)}}.dump();
}

Result<std::vector<GroupOffset>> decode_group_offsets(std::string_view value) {
  auto j = parse_object(value);
  if (!j.ok()) return j.status();
  auto list = j->find("offsets");
  if (list == j->end() || !list->is_array()) return bad("field offsets is not an array");
  if (list->size() > static_cast<size_t>(kMaxPartitions)) return bad("too many offsets");
  std::vector<GroupOffset> out;
  out.reserve(list->size());
  for (const json& e : *list) {
    if (!e.is_array() || e.size() != 3 || !e[0].is_string() || !e[1].is_number_integer() ||
        !e[2].is_number_integer()) {
      return bad("an offset is not [topic, partition, offset]");
    }
    const auto& topic = e[0].get_ref<const std::string&>();
    // nlohmann keeps a non-negative number as unsigned: one above INT64_MAX
    // would wrap to a negative one here, which the range check refuses.
    const int64_t partition = e[1].get<int64_t>();
    const int64_t offset = e[2].get<int64_t>();
    if (topic.empty() || topic.size() > 255 || partition < 0 || partition >= kMaxPartitions ||
        offset < 0) {
      return bad("an offset is out of range");
    }
    out.push_back({topic, static_cast<int32_t>(partition), offset});
  }
  return out;
}

}  // namespace spillway::broker::cluster
