// Producer: the public facade (see spillway/producer.h). It validates the
// options, starts the I/O thread, and implements flush() and close() by
// waiting on the shared state; the work is done by Producer::Impl
// (producer_impl.h lists the files that define it).
#include "spillway/producer.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "producer_impl.h"

namespace spillway {

Producer::Impl::~Impl() {
  if (wake_fd >= 0) ::close(wake_fd);
  for (Batch* b : all_batches) delete b;
}

Result<std::unique_ptr<Producer>> Producer::create(ProducerOptions options) {
  std::string host, port;
  SPILLWAY_RETURN_IF_ERROR(wire::split_address(options.bootstrap, &host, &port));
  if (options.max_in_flight < 1) {
    return Status(ErrorCode::kInvalidArgument, "max_in_flight must be at least 1");
  }
  if (options.batch_bytes < 1 || options.buffer_bytes < 1 || options.retries < 0 ||
      options.linger.count() < 0 || options.delivery_timeout.count() <= 0 ||
      options.request_timeout.count() <= 0) {
    return Status(ErrorCode::kInvalidArgument,
                  "batch_bytes, retries, linger and the timeouts must not be negative");
  }
  auto impl = std::make_unique<Impl>(std::move(options));
  impl->wake_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (impl->wake_fd < 0) {
    return Status(ErrorCode::kResourceExhausted, std::string("eventfd: ") + std::strerror(errno));
  }
  // Batch objects are recycled; a first stock keeps the early sends (and
  // the steady state of most workloads) from allocating them.
  impl->all_batches.reserve(1'024);
  for (int i = 0; i < 64; ++i) {
    Impl::Batch* b = new Impl::Batch;
    impl->all_batches.push_back(b);
    b->next = impl->free_batches;
    impl->free_batches = b;
  }
  impl->io = std::thread([i = impl.get()] { i->run(); });
  return std::unique_ptr<Producer>(new Producer(std::move(impl)));
}

Producer::Producer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Producer::~Producer() {
  (void)close();
}

void Producer::send(std::string_view topic, std::span<const std::byte> key,
                    std::span<const std::byte> value, std::span<const Header> headers,
                    DeliveryCallback cb, int32_t partition) {
  impl_->send(topic, key, value, headers, cb, partition);
}

std::future<Result<RecordMetadata>> Producer::send(std::string_view topic, std::string_view key,
                                                   std::string_view value, int32_t partition) {
  auto* promise = new std::promise<Result<RecordMetadata>>();
  std::future<Result<RecordMetadata>> future = promise->get_future();
  DeliveryCallback cb;
  cb.context = promise;
  cb.fn = [](void* context, const Status& st, const RecordMetadata& m) {
    auto* p = static_cast<std::promise<Result<RecordMetadata>>*>(context);
    if (st.ok()) {
      p->set_value(m);
    } else {
      p->set_value(st);
    }
    delete p;
  };
  send(topic, std::as_bytes(std::span<const char>(key.data(), key.size())),
       std::as_bytes(std::span<const char>(value.data(), value.size())), {}, cb, partition);
  return future;
}

Status Producer::flush() {
  Impl& i = *impl_;
  std::unique_lock lk(i.mu);
  const uint64_t target = i.accepted;
  ++i.flushing;
  i.wake();
  i.cv.wait(lk, [&] { return i.completed >= target; });
  --i.flushing;
  Status st = std::move(i.first_error_in_flush);
  i.first_error_in_flush = Status::Ok();
  return st;
}

Status Producer::close() {
  Impl& i = *impl_;
  {
    std::unique_lock lk(i.mu);
    if (i.closed) return i.first_error;
    i.closed = true;
    i.stop = true;
    i.stop_deadline = Impl::Clock::now() + i.options.delivery_timeout;
    i.cv.notify_all();
  }
  i.wake();
  if (i.io.joinable()) i.io.join();
  std::lock_guard lk(i.mu);
  return i.first_error;
}

}  // namespace spillway
