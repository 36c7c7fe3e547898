// Sender: the producer's I/O thread. One loop that (re)connects when there is
// work, fails what outlived its delivery deadline, sends at most one request
// per connection per round, waits on every socket and the wake eventfd until
// the next deadline, and reads the responses that arrived; then it runs the
// completed records' callbacks without the lock.
//
// Connections (Links): link 0 goes to the bootstrap address and carries the
// control requests (InitProducerId, DescribeCluster, Metadata); in a
// cluster there is one more per broker that leads a partition the producer
// sends to, and each partition's batches go to its leader's link. The
// routes come from DescribeCluster (cluster_routes.h), asked at start and
// again after a leader's link fails or a broker answers that it does not
// lead a partition (or that the leader epoch moved); the batch goes back to
// the front of its partition and is sent to the new leader. A standalone
// broker answers DescribeCluster with an error: every partition stays on
// link 0, as before. When the control link's broker cannot be reached it
// moves on to the next bootstrap address, then to the brokers the routes
// name ("learn the cluster from any bootstrap broker").
//
// Owns: the links (Channel + InFlightRequests each), the routes, the
// request being framed and the BatchBuilder. The queues, the metadata cache
// and the delivery tally belong to Producer::Impl, under its mutex, which
// the Sender takes around each use.
//
// Sending from the caller (send_from_caller()): with linger 0 a record
// that finds its connection ready is framed and sent by the thread that
// called send(), so the record does not wait for this thread to wake up
// (a thread wake-up on every record, the largest part of the public API's
// latency after the broker's own). The caller does it holding the
// producer's mutex and wire_mu_, which this thread holds in turn for
// everything it does to a channel or the framing buffers outside the
// mutex (connect, frame and send, read a response); closing a channel
// needs the mutex. A failed send from the caller leaves the channel open
// for this thread to close (Link::send_failed), since this thread may be
// polling its descriptor. Never over TLS, whose reads and writes share one
// session.
//
// Completion: a batch that failed retriably (connection lost, timeout,
// broker shutting down or overloaded, not the leader, not enough replicas)
// with attempts and time left goes back to the front of its partition; any
// other outcome completes its records, and a failure fences the partition
// (RecordAccumulator::fence). At most one batch per partition is in flight
// over all links, so a partition's order holds across a leader change.
#pragma once

#include <poll.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "channel.h"
#include "cluster_routes.h"
#include "in_flight_requests.h"
#include "producer_batch.h"
#include "record_accumulator.h"
#include "spillway/common/batch_builder.h"
#include "spillway/common/status.h"
#include "spillway/common/write_buffer.h"
#include "spillway/producer.h"

namespace spillway::producer_internal {

class Sender {
 public:
  // `producer` outlives the Sender. Validated options: max_in_flight >= 1,
  // a valid bootstrap list.
  explicit Sender(Producer::Impl& producer);
  Sender(const Sender&) = delete;
  Sender& operator=(const Sender&) = delete;

  // The I/O thread's body: returns once the producer is stopping and every
  // batch has completed.
  void run();

  // On the thread that called send(), holding the producer's mutex, after
  // a record started a new batch: if linger is 0 and a connection can take
  // the ready batches now (open, not encrypted, a request slot free, no
  // control request due, this thread not using the wire), frames and sends
  // them. True if the I/O thread need not be woken.
  bool send_from_caller();

 private:
  // One connection: to the bootstrap address (link 0, broker
  // wire::kBootstrapBroker) or to the leader `broker`.
  struct Link {
    Link(int32_t id, std::string to, std::size_t max_in_flight)
        : broker(id), address(std::move(to)), in_flight(max_in_flight) {}
    int32_t broker;
    std::string address;
    wire::Channel channel;
    InFlightRequests in_flight;
    Clock::time_point reconnect_at{};
    // Under the mutex: a send from the caller failed; this thread closes
    // the link (disconnect()).
    Status send_failed;
  };

  // Under the mutex: whether `link` has anything to send (so should
  // connect): batches of partitions it leads, or (link 0) a control request.
  bool has_work(const Link& link) const;
  // Connects `link` (unlocking `lk` while it does).
  void connect(Link& link, std::unique_lock<std::mutex>& lk);
  // Under the mutex: frames the control request due on link 0 into
  // request_, if any; true if it did.
  bool frame_control_request(Link& link, Clock::time_point now);
  // Under the mutex: the ready batches `link` can take now
  // (RecordAccumulator::drain_ready), numbered (assign_sequences()) and
  // entered as its newest request in flight; null if none.
  Batch* take_ready(Link& link, Clock::time_point now, Linger linger);
  // Frames a Produce request of `batches` (from drain_ready()) into
  // request_. Without the lock: in-flight batches belong to this thread. If
  // it cannot be framed, its batches fail.
  void build_produce_request(Link& link, Batch* batches, Batch** done);
  // The framing itself, holding wire_mu_ (and the mutex or not).
  Status frame_produce_request(Link& link, Batch* batches);
  // Under the mutex: `batches`, the newest request of `link`, could not be
  // framed (`st`): they fail.
  void fail_unframed(Link& link, Batch* batches, const Status& st, Batch** done);
  // Waits for the sockets (or the wake eventfd) until `due`; reads each
  // response that arrived, and fails the links whose oldest request timed
  // out.
  void wait_and_read(Clock::time_point due, Batch** done);
  // Under the mutex: `link`'s connection is gone; every in-flight request
  // fails with `why` (retriable, so its batches go back to their
  // partitions).
  void disconnect(Link& link, Status why, Batch** done);
  // Under the mutex: the response to `link`'s oldest request.
  void handle_response(Link& link, const wire::Response& response, Batch** done);
  // Under the mutex: the answer to InitProducerId.
  void handle_producer_id(Status request_error, std::span<const std::byte> body);
  // Under the mutex: the answer to DescribeCluster.
  void handle_routes(const Status& request_error, std::span<const std::byte> body);
  // Under the mutex: gives each partition queue its leader from routes_
  // (topics not routed by the current routes only), and makes the leaders'
  // links.
  void apply_routes(Batch** done);
  // Under the mutex: asks for new routes (DescribeCluster) soon.
  void want_routes(Clock::time_point at);
  // The link to `broker` at `address`, made if there is none.
  Link& link_to(int32_t broker, const std::string& address);
  // Under the mutex: gives the drained batches without a sequence their
  // producer id, epoch and partition's next sequence numbers.
  void assign_sequences(Batch* batches);
  // Under the mutex: batch `b` (out of its queue) completed with `st`.
  void complete(Batch* b, const Status& st, Offset base_offset, Batch** done);
  // When the loop must next look at the queues. Under the mutex.
  Clock::time_point next_due(Clock::time_point now);
  // Runs the callbacks of the completed batches `done` (newest first)
  // oldest first without the lock, then recycles the batches and counts
  // them.
  void run_callbacks(Batch* done);

  Producer::Impl& producer_;
  // Link 0 first; links are never removed (at most one per broker).
  std::vector<std::unique_ptr<Link>> links_;
  // The bootstrap addresses; link 0 tries them in turn, then the brokers
  // the routes name.
  std::vector<std::string> bootstrap_;
  std::size_t next_control_address_ = 0;
  // Held for every channel operation made outside the mutex and for the
  // framing buffers below: by this thread blocking, by a caller only with
  // the mutex held and only by try_lock (so neither waits for the other
  // in a cycle).
  std::mutex wire_mu_;
  WriteBuffer request_{std::span<std::byte>()};
  batch::BatchBuilder builder_;
  // Under the mutex: batches a caller completed (a request it could not
  // frame), whose callbacks this thread runs.
  Batch* caller_done_ = nullptr;
  // ProducerOptions: linger 0, so callers may send (send_from_caller()).
  const bool callers_send_;
  // Routing (under the mutex).
  wire::ClusterRoutes routes_;
  uint64_t routes_version_ = 1;  // bumped by every answer applied
  bool routes_wanted_ = true;    // ask DescribeCluster at routes_at_
  bool routes_asked_ = false;    // the request is outstanding
  Clock::time_point routes_at_{};
  // Reused per round, so the steady state allocates nothing.
  std::vector<pollfd> pollfds_;
  std::vector<Link*> polled_;
  std::vector<int32_t> sendable_;
  // Idempotence (ProducerOptions::enable_idempotence), under the mutex:
  // the producer id and epoch new batches get (-1 until InitProducerId
  // answered; produce waits for it), and whether that request is out.
  bool idempotent_;
  int64_t producer_id_ = -1;
  int16_t producer_epoch_ = -1;
  bool producer_id_requested_ = false;
};

}  // namespace spillway::producer_internal
