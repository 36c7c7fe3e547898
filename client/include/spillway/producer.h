// Producer: sends records to a Spillway broker or cluster, batched per
// partition (in a cluster, to each partition's leader: see
// ProducerOptions::bootstrap).
//
// send() picks the partition on the client (Kafka's murmur2 of the key, the
// same as Java and librdkafka; keyless records stick to one partition per
// batch, then move round-robin), copies the record into the partition's
// pooled staging buffer and returns. A background I/O thread, which owns the
// socket, turns ready batches (full, lingered, or flushed) into RecordBatch
// v2 batches built by BatchBuilder in pooled WriteBuffers (optionally zstd),
// frames them as Produce requests and writes them with the GatherWriter. It
// keeps at most `max_in_flight` requests outstanding per connection and,
// per partition, ONE batch in flight, or with enable_idempotence up to
// min(max_in_flight, 5) (the broker then stores them only in sequence
// order); a retried batch goes back in its place and is never overtaken:
// per-partition order is send order even across retries and reconnects (a
// batch whose response was lost is sent again; with enable_idempotence the
// broker stores it once, see below).
//
// Every send completes exactly once, with the partition and offset or an
// error: on the I/O thread, or inside send() when send() fails the record
// itself. close() delivers or fails everything still pending. In the steady
// state send and delivery allocate nothing.
//
// No holes: a partition's acknowledged records are always the records sent
// to it up to its first failure, never records from both sides of a failed
// one. Once a record that send() accepted for a partition fails (delivery
// timeout, retries used up, an error from the broker, buffer space not
// freed within delivery_timeout), the producer FENCES the partition, as
// Kafka's idempotent producer does: the records queued behind the failed one
// fail too, without being sent, and every later send to the partition fails
// at once (keyless records placed on it included). Those records fail with
// the first failure's code and a message saying the partition is fenced.
// fenced_partitions() lists the fenced partitions with their first failure;
// reset_partition() lifts a fence once the application has dealt with the
// failed records (typically: re-send them, in order, right after the reset).
// A send that fails before it has a partition (producer closed, record too
// large or malformed, unknown topic or partition, no partition count from
// the broker) fences nothing; its callback runs inside send(). Delivery is
// still at least once: a failed record may have been stored all the same
// (its answer was lost), and re-sending it stores it again.
//
// Exactly once per partition (enable_idempotence, the default): the
// producer gets a producer id from the broker (InitProducerId) and stamps
// every batch with it and with per-partition sequence numbers; a retry
// re-sends the same batch with the same numbers, which the broker answers
// with the offsets it stored the batch at the first time instead of storing
// it again, across broker restarts too. So within a producer's life a
// record acknowledged is stored exactly once, in send order. A batch that
// fails for good (the broker's OUT_OF_ORDER_SEQUENCE_NUMBER or
// INVALID_PRODUCER_EPOCH included) fences its partition as above, and the
// producer takes a new producer id for the batches after it, whose
// numbering starts again. A broker that serves no InitProducerId gets
// at-least-once delivery.
//
// Concurrency: send(), flush() and close() may be called from any thread.
// Callbacks run on the I/O thread; they may call send() for a topic the
// producer already knows, but must not call flush() or close() (those wait
// for the I/O thread).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <future>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/common/status.h"
#include "spillway/connection.h"

namespace spillway {

enum class Acks : int8_t {
  kNone = 0,     // the broker answers once the request is validated; offset -1
  kLeader = 1,   // after the append
  kDurable = 2,  // after fdatasync covers the records
  // In a cluster, after every in-sync replica has the records (Kafka's
  // acks=all; refused with kNotEnoughReplicas while the ISR is below the
  // topic's min_insync_replicas, and retried). A standalone broker treats
  // it as kDurable.
  kAll = -1,
};

enum class ProducerCompression : int8_t { kNone = 0, kZstd = 4 };

struct ProducerOptions {
  // "host:port" of a broker, or several separated by commas. In a cluster
  // the producer learns every broker and each partition's leader from the
  // first that answers (DescribeCluster) and sends each partition's batches
  // to its leader, following leadership as it moves; a standalone broker
  // gets everything.
  std::string bootstrap = "127.0.0.1:9093";
  Acks acks = Acks::kLeader;
  // How long a partition's batch waits for more records before it is sent.
  std::chrono::milliseconds linger{5};
  // A batch is sent once its records reach this many bytes (estimated).
  std::size_t batch_bytes = 256u << 10;
  // Bytes of records queued or in flight at most; send() waits (up to
  // delivery_timeout, then fails with kResourceExhausted) while a record
  // would pass it. Bounds the producer's memory.
  std::size_t buffer_bytes = 32u << 20;
  ProducerCompression compression = ProducerCompression::kNone;
  int zstd_level = 3;
  // Produce requests outstanding on each connection at once (>= 1); with
  // idempotence also the batches of one partition in flight (at most 5).
  int max_in_flight = 5;
  // Sends of a batch after the first, on retriable errors (connection
  // lost, timeout, broker shutting down or overloaded; in a cluster also
  // a leader that moved and an ISR short of min_insync_replicas). As
  // Kafka's: unbounded by default, so delivery_timeout is what gives up
  // (a failover takes a few seconds).
  int retries = INT32_MAX;
  std::chrono::milliseconds retry_backoff{100};
  // A record not acknowledged this long after send() fails with kTimeout.
  std::chrono::milliseconds delivery_timeout{30'000};
  // A request with no response for this long counts as a lost connection.
  std::chrono::milliseconds request_timeout{10'000};
  std::chrono::milliseconds connect_timeout{5'000};
  // TLS and SASL (spillway/connection.h); default plaintext, unauthenticated.
  SecurityOptions security;
  // Largest response frame accepted.
  uint32_t max_response_bytes = 16u << 20;
  // Idempotence (as Kafka's enable.idempotence, on by default): the
  // producer asks the broker for a producer id before its first produce
  // and numbers each partition's batches, so a batch re-sent after a lost
  // response is stored once. See "Exactly once per partition" above.
  bool enable_idempotence = true;
};

// A record header: a string key and a byte value (Kafka's record headers).
struct Header {
  std::string_view key;
  std::span<const std::byte> value;
};

// Where a record landed. `topic` is valid during the callback only.
struct RecordMetadata {
  std::string_view topic;
  int32_t partition = -1;
  int64_t offset = -1;    // -1 with Acks::kNone or on error
  int64_t timestamp = 0;  // milliseconds since the epoch, as sent
};

// A partition that takes no records because one of them failed (see "No
// holes" on Producer).
struct FencedPartition {
  std::string topic;
  int32_t partition = -1;
  Status cause;  // the first failure, which fenced it
};

// Completion of one send: a plain function and its context, so that
// passing one allocates nothing. `status` is ok iff the record was
// acknowledged; `metadata.partition` is set whenever it was known.
struct DeliveryCallback {
  void (*fn)(void* context, const Status& status, const RecordMetadata& metadata) = nullptr;
  void* context = nullptr;
};

class Producer {
 public:
  // Largest record (key + value + headers) a Producer accepts; larger ones
  // fail their callback with kBatchTooLarge.
  static constexpr std::size_t kMaxRecordBytes = (1u << 20) - 256;
  // Most headers on one record.
  static constexpr std::size_t kMaxHeaders = 64;

  // Validates the options and starts the I/O thread. The connection is made
  // by the I/O thread (and re-made after a failure), so create() succeeds
  // even when the broker is down; sends then fail after delivery_timeout.
  // Error: kInvalidArgument for bad options.
  static Result<std::unique_ptr<Producer>> create(ProducerOptions options);

  // close()s.
  ~Producer();
  Producer(const Producer&) = delete;
  Producer& operator=(const Producer&) = delete;

  // Queues one record; `cb` is called exactly once with the outcome. The
  // bytes are copied before send returns. Waits while buffer_bytes are in
  // use (not when called from a callback: there it never waits). An empty key means no key (the
  // record is placed sticky); `partition` >= 0 overrides the partitioner.
  // The first send to a topic waits (up to delivery_timeout) for its
  // partition count from the broker; an unknown topic fails the callback
  // with kUnknownTopic. After close(), fails with kShuttingDown.
  void send(std::string_view topic, std::span<const std::byte> key,
            std::span<const std::byte> value, std::span<const Header> headers, DeliveryCallback cb,
            int32_t partition = -1);

  // Convenience: the outcome as a future (allocates its shared state).
  std::future<Result<RecordMetadata>> send(std::string_view topic, std::string_view key,
                                           std::string_view value, int32_t partition = -1);

  // Sends every queued record now and waits until as many records have
  // completed as had been sent when flush was called (with no concurrent
  // sends: every record). Returns the first error any of them got, or ok.
  Status flush();

  // The partitions fenced now (see "No holes" above), in no particular
  // order; empty when none is. Allocates: for error handling.
  std::vector<FencedPartition> fenced_partitions() const;

  // Lifts the fence of `partition` of `topic`: records sent after this call
  // are appended to it again, after whatever it holds (the records before
  // the failure, and any failed record that was stored all the same). Ok
  // also when the partition is not fenced. Errors: kUnknownTopic when the
  // producer has not learnt the topic's partitions, kUnknownPartition.
  Status reset_partition(std::string_view topic, int32_t partition);

  // Flushes, then stops the I/O thread: records still not acknowledged when
  // delivery_timeout ends fail with kShuttingDown or their own error. Every
  // callback has run when close() returns. Idempotent. Returns ok iff every
  // record sent on this producer was acknowledged.
  Status close();

  struct Impl;

 private:
  explicit Producer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace spillway
