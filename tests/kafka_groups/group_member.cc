// kafka_group_member: one member of a Kafka consumer group, run by the
// consumer-group tests as its own process (so a test can SIGKILL it). It
// subscribes through librdkafka, writes every record it processes to the
// records file, commits what it processed (synchronously, after each batch,
// and for the partitions it loses, in the revoke callback) and reports its
// assignment on every rebalance callback to the events file.
//
// Both files are appended one whole line per write(2), so a SIGKILL leaves
// complete lines behind. Times are CLOCK_MONOTONIC milliseconds, the clock
// the test (std::chrono::steady_clock) reads too, so the test can put its
// own events (a kill, a close) on the same time line.
//
//   records: "PARTITION OFFSET KEY VALUE"
//   events:  "MS START PID"            started
//            "MS REVOKE p,p,..."       revoke callback (partitions given up)
//            "MS LOST p,p,..."         the same when the assignment was lost
//            "MS ASSIGN p,p,..."       assign callback (partitions added)
//            "MS ASSIGNMENT p,p,..."   the whole assignment after a callback
//            "MS GENERATION N MEMBER"  the group generation and member id then
//            "MS CONSUMED p OFFSET"    first record of p since it was assigned
//            "MS COMMIT_FAILED error"  a commit the group refused
//            "MS ERROR error"          a consumer error reported by poll
//            "MS CLOSING" / "MS CLOSED"  SIGTERM: commit, leave, exit
//
// Usage: kafka_group_member --bootstrap H:P --topic T --group G
//          --strategy range|roundrobin|cooperative-sticky --records FILE
//          --events FILE [--instance-id ID] [--session-timeout-ms N]
//          [--heartbeat-ms N] [--revoke-delay-ms N] [--process-us N] [--debug]
// --process-us is the time processing one record takes (a sleep), so that
// a member dies or gives partitions up with a batch half processed.
// --revoke-delay-ms makes the member slow to give partitions up (it sleeps
// in its revoke callback, after reporting REVOKE), which holds a rebalance
// open: the broker waits for its JoinGroup meanwhile.
// Without --session-timeout-ms / --heartbeat-ms librdkafka's defaults
// apply (45000 / 3000 ms in librdkafka 2.0).
#include <fcntl.h>
#include <librdkafka/rdkafka.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace {

volatile std::sig_atomic_t g_stop = 0;
void on_sigterm(int) {
  g_stop = 1;
}

int64_t monotonic_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}

// An append-only file written one whole line per write(2).
class LineFile {
 public:
  explicit LineFile(const std::string& path)
      : fd_(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) {
    if (fd_ < 0) {
      std::fprintf(stderr, "cannot open %s: %s\n", path.c_str(), std::strerror(errno));
      std::exit(2);
    }
  }
  ~LineFile() { ::close(fd_); }
  LineFile(const LineFile&) = delete;
  LineFile& operator=(const LineFile&) = delete;

  void write_line(std::string line) {
    line.push_back('\n');
    const char* p = line.data();
    size_t left = line.size();
    while (left > 0) {
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        std::fprintf(stderr, "write failed: %s\n", std::strerror(errno));
        std::exit(2);
      }
      p += n;
      left -= static_cast<size_t>(n);
    }
  }

 private:
  int fd_;
};

struct Member {
  rd_kafka_t* rk = nullptr;
  std::string topic;
  bool cooperative = false;
  int revoke_delay_ms = 0;
  int process_us = 0;
  LineFile* records = nullptr;
  LineFile* events = nullptr;
  std::set<int32_t> assignment;
  // Partitions assigned since their last record was reported as CONSUMED.
  std::set<int32_t> fresh;
  // partition -> the offset after the last record processed, not yet
  // committed. Only partitions in `assignment` are kept.
  std::map<int32_t, int64_t> processed;
  int64_t last_commit_ms = 0;

  void event(const std::string& what) {
    events->write_line(std::to_string(monotonic_ms()) + " " + what);
  }
};

std::string partitions_text(const rd_kafka_topic_partition_list_t* list) {
  std::string out;
  for (int i = 0; list != nullptr && i < list->cnt; ++i) {
    if (!out.empty()) out += ',';
    out += std::to_string(list->elems[i].partition);
  }
  return out.empty() ? "-" : out;
}

std::string partitions_text(const std::set<int32_t>& set) {
  std::string out;
  for (int32_t p : set) {
    if (!out.empty()) out += ',';
    out += std::to_string(p);
  }
  return out.empty() ? "-" : out;
}

// Commits what was processed on `only` (all assigned partitions when
// null), synchronously. What the group refuses stays pending and is tried
// again (a later commit of the partition covers it; a partition that moves
// to another member is processed again from its last commit there).
void commit_processed(Member& m, const std::set<int32_t>* only) {
  rd_kafka_topic_partition_list_t* offsets = rd_kafka_topic_partition_list_new(6);
  for (const auto& [p, next] : m.processed) {
    if (only != nullptr && only->count(p) == 0) continue;
    rd_kafka_topic_partition_list_add(offsets, m.topic.c_str(), p)->offset = next;
  }
  if (offsets->cnt > 0) {
    m.last_commit_ms = monotonic_ms();
    const rd_kafka_resp_err_t err = rd_kafka_commit(m.rk, offsets, 0);
    rd_kafka_resp_err_t failed = err;
    for (int i = 0; i < offsets->cnt; ++i) {
      const rd_kafka_topic_partition_t& e = offsets->elems[i];
      if (err == RD_KAFKA_RESP_ERR_NO_ERROR && e.err == RD_KAFKA_RESP_ERR_NO_ERROR) {
        m.processed.erase(e.partition);
      } else if (failed == RD_KAFKA_RESP_ERR_NO_ERROR) {
        failed = e.err;
      }
    }
    if (failed != RD_KAFKA_RESP_ERR_NO_ERROR) {
      m.event(std::string("COMMIT_FAILED ") + rd_kafka_err2name(failed));
    }
  }
  rd_kafka_topic_partition_list_destroy(offsets);
}

// The generation this member joined in. librdkafka 2.0 has no getter for
// it; its serialised group metadata (rd_kafka_consumer_group_metadata_write,
// "for client binding use") starts with the magic "CGMDv2:" and the
// generation as a host-order int32. -1 when the format is not that one.
int32_t generation(rd_kafka_t* rk) {
  int32_t out = -1;
  rd_kafka_consumer_group_metadata_t* metadata = rd_kafka_consumer_group_metadata(rk);
  if (metadata == nullptr) return out;
  void* buffer = nullptr;
  size_t size = 0;
  if (rd_kafka_error_t* error = rd_kafka_consumer_group_metadata_write(metadata, &buffer, &size)) {
    rd_kafka_error_destroy(error);
  } else {
    static constexpr char kMagic[] = "CGMDv2:";
    constexpr size_t kMagicSize = sizeof kMagic - 1;
    if (size >= kMagicSize + sizeof out && std::memcmp(buffer, kMagic, kMagicSize) == 0) {
      std::memcpy(&out, static_cast<const char*>(buffer) + kMagicSize, sizeof out);
    }
    rd_kafka_mem_free(rk, buffer);
  }
  rd_kafka_consumer_group_metadata_destroy(metadata);
  return out;
}

void on_rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                  rd_kafka_topic_partition_list_t* partitions, void* opaque) {
  Member& m = *static_cast<Member*>(opaque);
  if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
    m.event("ASSIGN " + partitions_text(partitions));
    rd_kafka_error_t* error = nullptr;
    if (m.cooperative) {
      error = rd_kafka_incremental_assign(rk, partitions);
    } else if (rd_kafka_resp_err_t e = rd_kafka_assign(rk, partitions); e) {
      m.event(std::string("ERROR assign ") + rd_kafka_err2name(e));
    }
    if (error != nullptr) {
      m.event(std::string("ERROR assign ") + rd_kafka_error_name(error));
      rd_kafka_error_destroy(error);
    }
    if (!m.cooperative) m.assignment.clear();
    for (int i = 0; i < partitions->cnt; ++i) {
      m.assignment.insert(partitions->elems[i].partition);
      m.fresh.insert(partitions->elems[i].partition);
    }
  } else {
    const bool lost = rd_kafka_assignment_lost(rk) != 0;
    m.event((lost ? "LOST " : "REVOKE ") + partitions_text(partitions));
    if (m.revoke_delay_ms > 0) ::usleep(static_cast<useconds_t>(m.revoke_delay_ms) * 1000);
    std::set<int32_t> revoked;
    for (int i = 0; i < partitions->cnt; ++i) revoked.insert(partitions->elems[i].partition);
    // Commit on revoke: the next owner starts where this one stopped. A
    // lost assignment cannot commit (the group has moved on).
    if (!lost) commit_processed(m, &revoked);
    for (int32_t p : revoked) {
      m.processed.erase(p);
      m.assignment.erase(p);
      m.fresh.erase(p);
    }
    rd_kafka_error_t* error = nullptr;
    if (m.cooperative) {
      error = rd_kafka_incremental_unassign(rk, partitions);
    } else {
      rd_kafka_assign(rk, nullptr);
      m.assignment.clear();
      m.processed.clear();
      m.fresh.clear();
    }
    if (error != nullptr) {
      m.event(std::string("ERROR unassign ") + rd_kafka_error_name(error));
      rd_kafka_error_destroy(error);
    }
  }
  m.event("ASSIGNMENT " + partitions_text(m.assignment));
  char* member_id = rd_kafka_memberid(rk);
  m.event("GENERATION " + std::to_string(generation(rk)) + " " +
          (member_id != nullptr ? member_id : "-"));
  if (member_id != nullptr) rd_kafka_mem_free(rk, member_id);
}

void process(Member& m, const rd_kafka_message_t* msg) {
  const int32_t p = msg->partition;
  // A record fetched before a revoke may still be queued: not ours any more.
  if (m.assignment.count(p) == 0) return;
  std::string line = std::to_string(p) + " " + std::to_string(msg->offset) + " ";
  line.append(static_cast<const char*>(msg->key), msg->key_len);
  line += ' ';
  line.append(static_cast<const char*>(msg->payload), msg->len);
  if (m.process_us > 0) ::usleep(static_cast<useconds_t>(m.process_us));
  m.records->write_line(std::move(line));
  m.processed[p] = msg->offset + 1;
  if (m.fresh.erase(p) > 0) {
    m.event("CONSUMED " + std::to_string(p) + " " + std::to_string(msg->offset));
  }
}

void set(rd_kafka_conf_t* conf, const char* key, const std::string& value) {
  char error[512];
  if (rd_kafka_conf_set(conf, key, value.c_str(), error, sizeof error) != RD_KAFKA_CONF_OK) {
    std::fprintf(stderr, "%s: %s\n", key, error);
    std::exit(2);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> args;
  bool debug = false;
  for (int i = 1; i < argc; ++i) {
    const std::string name = argv[i];
    if (name == "--debug") {
      debug = true;
    } else if (name.rfind("--", 0) == 0 && i + 1 < argc) {
      args[name.substr(2)] = argv[++i];
    } else {
      std::fprintf(stderr, "bad argument %s\n", argv[i]);
      return 2;
    }
  }
  for (const char* required : {"bootstrap", "topic", "group", "strategy", "records", "events"}) {
    if (args.count(required) == 0) {
      std::fprintf(stderr, "--%s is required\n", required);
      return 2;
    }
  }
  LineFile records(args["records"]);
  LineFile events(args["events"]);
  Member m;
  m.topic = args["topic"];
  m.cooperative = args["strategy"] == "cooperative-sticky";
  if (args.count("process-us")) m.process_us = std::atoi(args["process-us"].c_str());
  if (args.count("revoke-delay-ms")) m.revoke_delay_ms = std::atoi(args["revoke-delay-ms"].c_str());
  m.records = &records;
  m.events = &events;

  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  set(conf, "bootstrap.servers", args["bootstrap"]);
  set(conf, "group.id", args["group"]);
  set(conf, "partition.assignment.strategy", args["strategy"]);
  set(conf, "enable.auto.commit", "false");
  set(conf, "auto.offset.reset", "earliest");
  set(conf, "reconnect.backoff.ms", "50");
  set(conf, "reconnect.backoff.max.ms", "500");
  set(conf, "log_level", debug ? "7" : "4");
  if (debug) set(conf, "debug", "cgrp,protocol");
  if (args.count("instance-id")) set(conf, "group.instance.id", args["instance-id"]);
  if (args.count("session-timeout-ms")) {
    set(conf, "session.timeout.ms", args["session-timeout-ms"]);
  }
  if (args.count("heartbeat-ms")) set(conf, "heartbeat.interval.ms", args["heartbeat-ms"]);
  rd_kafka_conf_set_rebalance_cb(conf, &on_rebalance);
  rd_kafka_conf_set_opaque(conf, &m);
  char error[512];
  m.rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, error, sizeof error);
  if (m.rk == nullptr) {
    std::fprintf(stderr, "rd_kafka_new: %s\n", error);
    return 2;
  }
  rd_kafka_poll_set_consumer(m.rk);

  struct sigaction action {};
  action.sa_handler = &on_sigterm;
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);

  m.event("START " + std::to_string(::getpid()));
  rd_kafka_topic_partition_list_t* topics = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(topics, m.topic.c_str(), RD_KAFKA_PARTITION_UA);
  if (rd_kafka_resp_err_t err = rd_kafka_subscribe(m.rk, topics); err) {
    std::fprintf(stderr, "subscribe: %s\n", rd_kafka_err2str(err));
    return 2;
  }
  rd_kafka_topic_partition_list_destroy(topics);

  // Process a batch (what is ready, up to 500 records), then commit it; a
  // refused commit is tried again every half second.
  while (!g_stop) {
    int batch = 0;
    for (rd_kafka_message_t* msg = rd_kafka_consumer_poll(m.rk, 100); msg != nullptr;
         msg = batch < 500 ? rd_kafka_consumer_poll(m.rk, 0) : nullptr) {
      if (msg->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
        process(m, msg);
        ++batch;
      } else if (msg->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        m.event(std::string("ERROR ") + rd_kafka_err2name(msg->err) + " " +
                rd_kafka_message_errstr(msg));
      }
      rd_kafka_message_destroy(msg);
    }
    if (batch > 0 || (!m.processed.empty() && monotonic_ms() - m.last_commit_ms >= 500)) {
      commit_processed(m, nullptr);
    }
  }
  // A clean close: the revoke callback commits, then LeaveGroup (a static
  // member does not leave; its session times out unless it comes back).
  m.event("CLOSING");
  commit_processed(m, nullptr);
  rd_kafka_consumer_close(m.rk);
  rd_kafka_destroy(m.rk);
  m.event("CLOSED");
  return 0;
}
