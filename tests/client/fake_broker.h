// An in-process, in-memory broker for client tests: serves Metadata,
// Produce, Fetch, CreateTopics, CommitOffsets and FetchOffsets with the
// common/messages codecs (so the client's own wire code is checked against
// the broker-side codecs), and can inject faults: fail the next produce
// entries with an error code, or drop every connection. With
// hand_out_producer_ids() it also answers InitProducerId and checks each
// producer's sequence per partition as the real broker does (a gap is
// refused with kOutOfOrderSequence), so an idempotent producer pipelines.
//
// Thread per connection, one mutex over all state. Not fast; correct.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "spillway/common/status.h"

namespace spillway::testing {

class FakeBroker {
 public:
  FakeBroker();
  ~FakeBroker();
  FakeBroker(const FakeBroker&) = delete;
  FakeBroker& operator=(const FakeBroker&) = delete;

  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

  void create_topic(const std::string& name, int partitions);
  // From now on InitProducerId hands out producer ids (without it the
  // request is unsupported and producers fall back to at-least-once), and
  // a numbered batch is stored only at its producer's next sequence.
  void hand_out_producer_ids();
  // The next Produce request is handled only once the next request on its
  // connection has arrived (or after 10 s, a bound that turns a client that
  // does not pipeline into a failed assertion rather than a hang).
  void hold_next_produce_until_pipelined() { hold_produce_ = true; }
  // Numbered batches refused for a gap in their producer's sequence.
  int out_of_order_refusals() const { return out_of_order_refusals_.load(); }
  // The next `n` produce entries (partition batches) fail with `code`;
  // with `partition` >= 0, only entries for that partition count.
  void fail_next_produce_entries(int n, ErrorCode code, int partition = -1);
  // The next `n` produce requests are read and then the connection is
  // closed without an answer (as a broker restart does).
  void drop_next_produce_requests(int n);
  // Closes every open connection now.
  void drop_connections();
  // Flips every bit of byte `at` of stored batch `index` (0 = oldest) of a
  // partition, as a bad disk would: fetches serve it with a CRC that no
  // longer matches.
  void flip_stored_byte(const std::string& topic, int partition, size_t index, size_t at);

  // Records stored in a partition, in offset order: (key, value) pairs.
  std::vector<std::pair<std::string, std::string>> records(const std::string& topic, int partition);
  int produce_requests() const { return produce_requests_.load(); }
  // The highest fetch offset any Fetch asked for, of any partition (-1
  // before the first).
  int64_t highest_fetch_offset() const { return highest_fetch_offset_.load(); }
  // Connections accepted since construction.
  int connections_accepted() const { return connections_accepted_.load(); }

 private:
  struct Partition {
    std::vector<std::vector<std::byte>> batches;  // base offsets assigned
    int64_t next_offset = 0;
    std::map<int64_t, int32_t> next_sequence;  // per producer id
  };
  void accept_loop();
  void serve(int fd);
  // Handles one request of `api_version`; returns false to close the
  // connection.
  bool handle(int16_t api_key, int16_t api_version, std::span<const std::byte> body,
              std::vector<std::byte>& response, ErrorCode* error);
  ErrorCode check_sequence(Partition& part, std::span<const std::byte> batch);

  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::thread acceptor_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> produce_requests_{0};
  std::atomic<int64_t> highest_fetch_offset_{-1};
  std::atomic<int> connections_accepted_{0};
  std::atomic<int> out_of_order_refusals_{0};
  std::atomic<bool> hold_produce_{false};
  bool producer_ids_ = false;
  int64_t next_producer_id_ = 1000;

  std::mutex mu_;
  std::condition_variable data_cv_;
  std::map<std::string, std::vector<Partition>> topics_;
  std::map<std::string, int64_t> committed_;  // "group/topic/partition"
  int fail_entries_ = 0;
  ErrorCode fail_code_ = ErrorCode::kOk;
  int fail_partition_ = -1;
  int drop_requests_ = 0;
  std::vector<int> open_fds_;
  std::vector<std::thread> sessions_;
};

}  // namespace spillway::testing
