// The producer's I/O thread: one loop that (re)connects when there is work,
// fails what outlived its delivery deadline, sends one request per round
// (metadata first), waits on the socket and the wake eventfd until the next
// deadline, and reads one response. It owns the connection; callbacks run
// here, without the lock.
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>

#include "producer_impl.h"

namespace spillway {

void Producer::Impl::run() {
  for (;;) {
    Batch* done = nullptr;  // batches completed this round, callbacks pending
    std::unique_lock lk(mu);
    Clock::time_point now = Clock::now();
    fail_expired(now, &done);
    bool idle = true;
    for (auto& [name, t] : topics) {
      for (const PartitionState& p : t->parts) {
        if (p.head || p.in_flight) idle = false;
      }
    }
    if (stop && idle && ring.size() == 0) {
      lk.unlock();
      run_callbacks(done);
      break;
    }
    bool want_metadata = false;
    for (auto& [name, t] : topics) want_metadata |= t->metadata_wanted;
    // Connect when there is something to send; an idle producer whose
    // connection the broker closed stays disconnected until then.
    if (!channel.is_open() && (!idle || want_metadata)) {
      if (now >= reconnect_at) {
        lk.unlock();
        Status st =
            channel.connect(options.bootstrap, {.connect_timeout = options.connect_timeout,
                                                .request_timeout = options.request_timeout,
                                                .max_response_bytes = options.max_response_bytes,
                                                .client_id = "spillway-producer"});
        lk.lock();
        if (!st.ok()) {
          last_transport_error = st;
          reconnect_at = Clock::now() + options.retry_backoff;
        } else {
          last_transport_error = Status::Ok();
        }
      }
    }
    Batch* to_send = nullptr;
    if (channel.is_open() && !ring.full()) {
      bool need_metadata = false;
      for (auto& [name, t] : topics) {
        if (t->metadata_wanted && !t->metadata_in_flight) need_metadata = true;
      }
      if (need_metadata) {
        build_metadata_request();
      } else {
        to_send = collect_ready(now);
      }
    }
    const Clock::time_point due = next_due(Clock::now());
    lk.unlock();

    if (to_send) build_produce_request(to_send, &done);
    if (request.bytes_written() > 0) {
      Status st = channel.send(request);
      request.release();
      if (!st.ok()) {
        lk.lock();
        disconnect(std::move(st), &done);
        lk.unlock();
      }
    }
    run_callbacks(done);
    done = nullptr;

    auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(due - Clock::now());
    wait = std::clamp(wait, std::chrono::milliseconds(0), std::chrono::milliseconds(100));
    bool readable;
    if (channel.is_open()) {
      // Readable with nothing in flight means the broker closed an idle
      // connection (EOF); reading it notices and closes our side.
      readable = channel.wait_readable(wait, wake_fd);
    } else {
      pollfd pfd{wake_fd, POLLIN, 0};
      ::poll(&pfd, 1, static_cast<int>(wait.count()));
      readable = false;
    }
    uint64_t drained;
    [[maybe_unused]] ssize_t r = ::read(wake_fd, &drained, sizeof(drained));
    if (!readable && ring.size() > 0 && Clock::now() >= ring.at(0).sent + options.request_timeout) {
      lk.lock();
      disconnect(
          Status(ErrorCode::kTimeout, channel.address() + ": no response within " +
                                          std::to_string(options.request_timeout.count()) + " ms"),
          &done);
      lk.unlock();
      run_callbacks(done);
      continue;
    }
    if (readable) {
      Result<wire::Response> response = channel.read_response();
      lk.lock();
      if (!response.ok()) {
        disconnect(response.status(), &done);
      } else {
        handle_response(*response, &done);
      }
      lk.unlock();
      run_callbacks(done);
    }
  }
}

// Fails queued (not in-flight) batches past their delivery deadline, and
// everything queued once close()'s deadline has passed.
void Producer::Impl::fail_expired(Clock::time_point now, Batch** done) {
  const bool closing_over = stop && now >= stop_deadline;
  for (auto& [name, t] : topics) {
    for (PartitionState& p : t->parts) {
      while (p.head && (p.head->deadline <= now || closing_over)) {
        Batch* b = p.head;
        p.head = b->next;
        if (!p.head) p.tail = nullptr;
        b->next = nullptr;
        std::string why = closing_over ? "the producer closed before the record was acknowledged"
                                       : "record not acknowledged within the delivery timeout";
        if (!last_transport_error.ok())
          why += " (" + std::string(last_transport_error.message()) + ")";
        complete(b, Status(closing_over ? ErrorCode::kShuttingDown : ErrorCode::kTimeout, why), -1,
                 done);
      }
    }
  }
}

// When the I/O thread must next look at its queues.
Producer::Impl::Clock::time_point Producer::Impl::next_due(Clock::time_point now) {
  Clock::time_point due = now + std::chrono::milliseconds(100);
  if (!channel.is_open()) return std::min(due, reconnect_at);
  for (std::size_t i = 0; i < ring.size(); ++i) {
    due = std::min(due, ring.at(i).sent + options.request_timeout);
  }
  const bool can_send = !ring.full();
  const bool hurry = flushing > 0 || stop;
  for (auto& [name, t] : topics) {
    if (t->metadata_wanted && !t->metadata_in_flight && can_send) return now;
    for (const PartitionState& p : t->parts) {
      const Batch* b = p.head;
      if (!b) continue;
      due = std::min(due, b->deadline);
      if (p.in_flight || !can_send || b->count == 0) continue;
      if (b->sealed || hurry) {
        due = std::min(due, b->retry_at);
      } else {
        due = std::min(due, std::max(b->retry_at, b->created + options.linger));
      }
    }
  }
  return due;
}

}  // namespace spillway
