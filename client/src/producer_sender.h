// Sender: the producer's I/O thread. One loop that (re)connects when there is
// work, fails what outlived its delivery deadline, sends one request per
// round (Metadata first, else a Produce request of every ready batch),
// waits on the socket and the wake eventfd until the next deadline, and
// reads one response; then it runs the completed records' callbacks without
// the lock.
//
// Owns: the connection (a Channel), the InFlightRequests, the request
// being framed and the BatchBuilder; none of them is touched by another
// thread. The queues, the metadata cache and the delivery tally belong to
// Producer::Impl, under its mutex, which the Sender takes around each use.
//
// Completion: a batch that failed retriably (connection lost, timeout,
// broker shutting down or overloaded) with attempts and time left goes back
// to the front of its partition; any other outcome completes its records,
// and a failure fences the partition (RecordAccumulator::fence).
#pragma once

#include <cstdint>

#include "channel.h"
#include "in_flight_requests.h"
#include "producer_batch.h"
#include "spillway/common/batch_builder.h"
#include "spillway/common/status.h"
#include "spillway/common/write_buffer.h"
#include "spillway/producer.h"

namespace spillway::producer_internal {

class Sender {
 public:
  // `producer` outlives the Sender. Validated options: max_in_flight >= 1.
  explicit Sender(Producer::Impl& producer);
  Sender(const Sender&) = delete;
  Sender& operator=(const Sender&) = delete;

  // The I/O thread's body: returns once the producer is stopping and every
  // batch has completed.
  void run();

 private:
  // One round's work under the mutex: fails expired batches, connects if
  // needed, and frames the next request. Returns the batches of a Produce
  // request to build (without the lock), or null.
  Batch* prepare_round(Clock::time_point now, Batch** done);
  // Frames a Produce request of `batches` (from drain_ready()) into
  // request_. Without the lock: in-flight batches belong to this thread. If
  // it cannot be framed, its batches fail.
  void build_produce_request(Batch* batches, Batch** done);
  // Waits for the socket (or the wake eventfd) until the next due time; on
  // a response or a request timeout, handles it.
  void wait_and_read(Clock::time_point due, Batch** done);
  // Under the mutex: the connection is gone; every in-flight request fails
  // with `why` (retriable, so its batches go back to their partitions).
  void disconnect(Status why, Batch** done);
  // Under the mutex: the response to the oldest request.
  void handle_response(const wire::Response& response, Batch** done);
  // Under the mutex: the answer to InitProducerId.
  void handle_producer_id(Status request_error, std::span<const std::byte> body);
  // Under the mutex: gives the drained batches without a sequence their
  // producer id, epoch and partition's next sequence numbers.
  void assign_sequences(Batch* batches);
  // Under the mutex: batch `b` (out of its queue) completed with `st`.
  void complete(Batch* b, const Status& st, Offset base_offset, Batch** done);
  // When the loop must next look at the queues. Under the mutex.
  Clock::time_point next_due(Clock::time_point now) const;
  // Runs the callbacks of the completed batches `done` (newest first)
  // oldest first without the lock, then recycles the batches and counts
  // them.
  void run_callbacks(Batch* done);

  Producer::Impl& producer_;
  wire::Channel channel_;
  InFlightRequests in_flight_;
  Clock::time_point reconnect_at_{};
  WriteBuffer request_{std::span<std::byte>()};
  batch::BatchBuilder builder_;
  // Idempotence (ProducerOptions::enable_idempotence), under the mutex:
  // the producer id and epoch new batches get (-1 until InitProducerId
  // answered; produce waits for it), and whether that request is out.
  bool idempotent_;
  int64_t producer_id_ = -1;
  int16_t producer_epoch_ = -1;
  bool producer_id_requested_ = false;
};

}  // namespace spillway::producer_internal
