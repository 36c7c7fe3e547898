// The half of a fetch that the native and the Kafka protocol share: reads
// of whole stored batches on each partition's owner core, the long poll
// (a waiter on every partition, woken by the next append or durable
// advance, and a timer for max_wait), the response sized to the memory
// budget, and the records copied from the segment files straight into the
// response as it is encoded (pread into the pooled response buffer), or, on
// a connection that can send file ranges, left in the file and sent from it
// with sendfile(2) (Exchange::add_file_range, docs/architecture.md). Each
// protocol decodes its request into add_topic()/add_partition() and encodes
// the parts in its own response from its `Encode` callback.
//
// Limits, as Kafka's: the response holds at most max_bytes and a partition
// at most its max_bytes, except that the first batch of the first partition
// with data is sent whole however large it is (KIP-74), or the consumer
// could never get past it. The request waits up to max_wait_ms for
// min_bytes of data.
//
// Lives in an exchange (ExchangeState), reused request after request.
// Threading: the exchange's thread; reads run on owner cores and reply here.
#pragma once

#include <asio/steady_timer.hpp>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker_context.h"
#include "core/partition.h"
#include "core/topic_registry.h"
#include "protocol/exchange.h"
#include "spillway/common/wire/codec.h"

namespace spillway::broker {

namespace replication {
class ReplicationThrottle;
}

class FetchCore : public ExchangeState {
 public:
  // Largest response a fetch builds, whatever the client asks (plus the
  // first batch, always sent whole). Responses are held in pooled memory
  // until written; what they may hold in all is the memory budget's
  // business.
  static constexpr int64_t kMaxResponseBytes = 8 << 20;
  // Slices shorter than this are copied even where sendfile could send
  // them: for a few KiB a pread costs about what the extra sendfile call
  // and the split gather write would, and the copy keeps the response one
  // write.
  static constexpr uint64_t kMinSendfileBytes = 16 << 10;

  struct Part {
    uint32_t topic;  // index given by add_topic()
    int32_t partition;
    int64_t fetch_offset;
    int64_t max_bytes;
    std::shared_ptr<Partition> log;  // null on error
    ErrorCode code;
    std::string message;  // only set on error
    int64_t high_watermark;
    int64_t log_start_offset;
    storage::FileSlice slice;
    bool include;  // set for Encode: the slice goes in the response
    // The epoch the follower follows (replica fetches, set_replica()) or
    // the client names (KIP-320; -1: none), and for replica fetches the
    // leader's epoch from the reply (-1 otherwise).
    int32_t current_leader_epoch = -1;
    int32_t leader_epoch = -1;
    // Reassignment traffic (throttle_last_partition()): read and sent as
    // far as the throttle grants; `held` when it granted nothing this time.
    replication::ReplicationThrottle* throttle = nullptr;
    bool held = false;
    // The request's exchange, where records(part) places a file range.
    Exchange* exchange = nullptr;
  };
  // Encodes the response into exchange().out(): every part, in order, with
  // records(part) for the included ones.
  using Encode = Status (*)(FetchCore& core);

  // Starts a request. max_bytes is clamped to [1, kMaxResponseBytes];
  // min_bytes <= 1 answers as soon as any partition has data.
  void begin(Exchange& exchange, Encode encode, int32_t max_wait_ms, int32_t min_bytes,
             int64_t max_bytes);
  // How a follower's fetch reads a partition: Partition::replica_read on
  // the owner core. Given by the ReplicaFetch handler, so that the client
  // fetch path (this file) does not depend on the replication methods.
  using ReplicaRead = void (*)(Partition& partition, const replication::ReplicaReadRequest& request,
                               Reply reply);
  // Makes this request a follower's fetch (ReplicaFetch, after begin()):
  // partitions are read with `read` on behalf of `replica`, which the
  // leader records as that follower's log end, and the bytes are not
  // counted as the topics' client traffic.
  void set_replica(BrokerId replica, int64_t broker_epoch, ReplicaRead read);
  // Records a topic of the request (looked up in `topics`; held against a
  // delete while the fetch runs) and returns its index for add_partition().
  uint32_t add_topic(TopicRegistry& topics, std::string_view name);
  // A partition to read from `fetch_offset`, at most `max_bytes` of it.
  // An unknown topic or partition becomes its error; so does a client's
  // `current_leader_epoch` that is not the partition's (KIP-320; -1: not
  // checked). A follower's epoch is checked by its read instead.
  void add_partition(uint32_t topic, int32_t partition, int64_t fetch_offset, int64_t max_bytes,
                     int32_t current_leader_epoch = -1);
  // Makes the partition added last reassignment traffic (a follower's
  // fetch for a replica a move is adding, not in sync yet; the ReplicaFetch
  // handler decides): it is read and sent only as far as `throttle` grants.
  // While the throttle grants nothing the partition counts as having no
  // data, so the request waits as a long poll does and answers it without
  // records, never with an error (replication/replication_throttle.h).
  void throttle_last_partition(replication::ReplicationThrottle* throttle);
  // A partition answered with `code` and nothing read (e.g. the principal
  // may not read the topic: kTopicAuthorizationFailed).
  void add_refused_partition(uint32_t topic, int32_t partition, ErrorCode code,
                             std::string_view message);
  // Reads (and long-polls) and answers through `Encode`.
  void start();

  std::string_view topic_name(uint32_t topic) const;
  uint32_t topic_count() const { return static_cast<uint32_t>(topics_.size()); }
  const std::vector<Part>& parts() const { return parts_; }
  Exchange& exchange() const { return *exchange_; }
  // The RECORDS of an included part: its slice, copied from the segment
  // file as the response is encoded, or sent from it by sendfile when the
  // exchange takes file ranges and the slice is at least
  // kMinSendfileBytes. Valid during Encode.
  static wire::Records records(const Part& part);

 private:
  struct TopicRef {
    uint32_t name_offset;
    uint32_t name_size;
    std::shared_ptr<Topic> topic;  // null when unknown
  };
  static void on_read(void* ctx, uint32_t index, PartitionReply& reply);
  // A partition's read, into its Part (on_read's first half).
  void take_read(Part& part, PartitionReply& reply);
  // Once every read is in: respond or long-poll (on_read's second half).
  void reads_done();
  static void on_wake(void* ctx, uint64_t token);
  // After a wait ended: the partitions it waited on drop its waiter.
  void drop_waiters();
  void read_all();
  void wait();
  void respond();

  Exchange* exchange_ = nullptr;
  Encode encode_ = nullptr;
  std::string names_;
  std::vector<TopicRef> topics_;
  std::vector<Part> parts_;
  int64_t max_bytes_ = 0;
  uint64_t min_bytes_ = 1;
  // Bytes of the memory budget granted for this round of reads (see
  // read_all()); given back before a long poll waits.
  uint64_t granted_ = 0;
  int32_t max_wait_ms_ = 0;
  BrokerId replica_ = kNoBroker;  // a follower's fetch when set
  int64_t replica_broker_epoch_ = 0;
  ReplicaRead replica_read_ = nullptr;
  size_t pending_ = 0;
  bool waited_ = false;
  uint64_t bytes_before_wake_ = 0;  // data seen by the reads before the last wake
  bool timer_running_ = false;
  bool expired_ = false;  // max_wait_ms passed
  // The token of the wait in progress; 0 when not waiting. Read by owner
  // cores to drop stale waiters.
  std::atomic<uint64_t> armed_{0};
  uint64_t last_token_ = 0;  // tokens are never reused by this object
  std::optional<asio::steady_timer> timer_;
};

}  // namespace spillway::broker
