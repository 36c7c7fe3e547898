// The half of a produce that the native and the Kafka protocol share: for
// each partition of a request, check the topic and partition, validate the
// batch (record_batch.h), copy it into a pooled buffer (or adopt the
// request body's, for a request of one batch) and post its append
// to the owner core with the acknowledgement the request's acks ask for,
// then collect the per-partition results (base offset, log start offset,
// or the error) in request order and call the protocol's `Done` once every
// partition has replied. Each protocol decodes its request and encodes the
// results in its own response; the native one also routes batches by key
// and creates unknown topics when auto_create is on (Kafka does both
// elsewhere: in the client, and in Metadata).
//
// Lives in an exchange (ExchangeState) and is reused request after request,
// so a steady stream of produces allocates nothing per partition. Threading:
// the exchange's thread only; replies come back there.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "broker_context.h"
#include "core/partition.h"
#include "protocol/exchange.h"
#include "spillway/common/messages/produce.h"
#include "spillway/common/record_batch.h"

namespace spillway::broker {

class ProduceCore : public ExchangeState {
 public:
  // One partition's result, in request order.
  struct Entry {
    uint32_t topic;  // index given by add_topic()
    int32_t partition;
    ErrorCode code;
    std::string message;  // only set on error
    int64_t base_offset;
    int32_t record_count;
    int64_t log_start_offset;
  };
  // Called on the exchange's thread once every posted append has replied
  // (for acks kNone: never waited for, see end()).
  using Done = void (*)(ProduceCore& core);

  // Starts a request: forgets the previous one's topics and entries.
  // `context` must outlive the request.
  void begin(Exchange& exchange, BrokerContext& context, Done done);
  // The request's timeout: how long an acks=all append waits for the
  // in-sync replicas before NOT_ENOUGH_REPLICAS_AFTER_APPEND (<= 0: no
  // limit). begin() resets it.
  void set_timeout_ms(int32_t timeout_ms) { timeout_ms_ = timeout_ms; }

  // Records a topic of the request (its name is copied: the request body
  // goes away once handle() returns) and returns its index for produce().
  uint32_t add_topic(std::string_view name);
  std::string_view topic_name(uint32_t topic) const;
  uint32_t topic_count() const { return static_cast<uint32_t>(topics_.size()); }

  // Checks that `partition` of `topic` (null when the topic is unknown)
  // takes appends (with `route_by_key`, partition kRouteByKey stands for
  // the whole topic) and validates `batch` against max_batch_bytes; counts
  // it into the topic's traffic. On error the error is this partition's
  // entry (and only its: the other partitions carry on).
  Result<batch::BatchHeader> admit(uint32_t topic_index, Topic* topic, int32_t partition,
                                   std::span<const std::byte> batch, bool route_by_key = false);

  // How produce() gets the batch into a buffer the owner core can keep.
  enum class BatchBuffer : uint8_t {
    kCopy,  // copy it into a pooled buffer of its own
    // Adopt the request body's own pooled buffer (Exchange::adopt_body())
    // when it has one, else copy: for a request whose body holds no other
    // batch, so nothing else reads the body once the owner core has it.
    kAdoptBody,
  };

  // admit(), then post_append() to that partition.
  void produce(uint32_t topic_index, Topic* topic, int32_t partition,
               std::span<const std::byte> batch, messages::Acks acks,
               BatchBuffer buffer = BatchBuffer::kCopy);

  // Posts the append of a validated `batch` (copied into a pooled buffer,
  // unless it lies in one already: `rented`, the start of that buffer,
  // which is then given away) and adds its entry. Error (nothing posted,
  // `rented` still the caller's): no pooled buffer.
  Status post_append(Partition& partition, uint32_t topic, std::span<const std::byte> batch,
                     int32_t record_count, messages::Acks acks, std::byte* rented = nullptr);

  // A partition answered with an error without an append.
  void add_error(uint32_t topic, int32_t partition, const Status& status);

  // Every partition is posted: calls `done` now if nothing is pending, else
  // once the last reply arrives. Appends with acks kNone are never waited
  // for (their results stay as posted: base offset -1).
  void end();

  const std::vector<Entry>& entries() const { return entries_; }
  Exchange& exchange() const { return *exchange_; }
  BrokerContext& context() const { return *context_; }

 private:
  static void on_append(void* ctx, uint32_t index, PartitionReply& reply);

  Exchange* exchange_ = nullptr;
  BrokerContext* context_ = nullptr;
  Done done_ = nullptr;
  std::string names_;  // topic names, copied out of the request body
  std::vector<std::pair<uint32_t, uint32_t>> topics_;  // offset and size in names_
  std::vector<Entry> entries_;
  size_t pending_ = 0;
  int32_t timeout_ms_ = 0;
  bool dispatching_ = false;
};

}  // namespace spillway::broker
