// Thread-per-core acceptor and shutdown. Each shard is an io_context run by
// one thread; a connection lives on one shard from accept to close.
#include "server.h"

#include <spdlog/spdlog.h>

#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <asio/signal_set.hpp>
#include <asio/steady_timer.hpp>
#include <optional>
#include <thread>

#include "listener.h"
#include "session.h"

namespace spillway::broker {

struct Server::Shard {
  // Declared first so it is destroyed last: sessions still pending in the
  // context unregister from it when the context destroys them.
  SessionHost host;
  asio::io_context context{1};  // one thread runs it: no internal locking
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work{
      context.get_executor()};
};

Server::Server(ServerOptions options, const Dispatcher& dispatcher)
    : options_(std::move(options)), dispatcher_(dispatcher) {
  if (options_.threads == 0) options_.threads = 1;
  for (size_t i = 0; i < options_.threads; ++i) {
    auto shard = std::make_unique<Shard>();
    shard->host.dispatcher = &dispatcher_;
    shard->host.context = &shard->context;
    shard->host.max_frame_bytes = options_.max_frame_bytes;
    shard->host.queue_depth = options_.queue_depth;
    shard->host.idle_timeout = options_.idle_timeout;
    shard->host.open_connections = &open_connections_;
    shards_.push_back(std::move(shard));
  }
}

Server::~Server() {
  // Sessions left by a cut shutdown are destroyed with their io_context and
  // unregister from their shard's host, which must still exist then.
  acceptor_.reset();
  signals_.reset();
  for (auto& shard : shards_) {
    shard->work.reset();
    shard->context.stop();
  }
  // No thread runs the contexts now. Their unanswered exchanges hold the
  // sessions alive; let go so the sessions die with their queued work.
  for (auto& shard : shards_) {
    std::vector<std::shared_ptr<Session>> live;
    for (Session* session : shard->host.sessions) live.push_back(session->shared_from_this());
    for (auto& session : live) session->abandon();
  }
}

Status Server::open() {
  auto acceptor = open_listener(shards_[0]->context, options_.listen, "listen address");
  if (!acceptor.ok()) return acceptor.status();
  acceptor_ = std::move(acceptor).value();
  if (options_.handle_signals) {
    // Installed here, before the caller logs that it listens, so a signal
    // sent right after that line is never lost to the default action.
    signals_ = std::make_unique<asio::signal_set>(shards_[0]->context, SIGINT, SIGTERM);
    signals_->async_wait([this](asio::error_code ec, int signo) {
      if (ec) return;
      spdlog::info("received {}, stopping: no new connections, finishing in-flight requests",
                   signo == SIGINT ? "SIGINT" : "SIGTERM");
      stop();
    });
  }
  return Status::Ok();
}

asio::io_context& Server::shard_context(size_t shard) {
  return shards_[shard]->context;
}

asio::ip::tcp::endpoint Server::local_endpoint() const {
  asio::error_code ec;
  return acceptor_->local_endpoint(ec);
}

void Server::accept_next() {
  Shard& target = *shards_[next_shard_];
  next_shard_ = (next_shard_ + 1) % shards_.size();
  // The accepted socket is created on the target shard's context, so the
  // session never touches another thread's reactor.
  acceptor_->async_accept(target.context, [this, &target](asio::error_code ec,
                                                          asio::ip::tcp::socket socket) {
    if (ec == asio::error::operation_aborted || stop_requested_.load()) return;
    if (ec) {
      // EMFILE and friends: log and retry shortly instead of spinning.
      spdlog::warn("accept failed: {}", ec.message());
      auto timer =
          std::make_shared<asio::steady_timer>(shards_[0]->context, std::chrono::milliseconds(50));
      timer->async_wait([this, timer](asio::error_code) {
        if (!stop_requested_.load()) accept_next();
      });
      return;
    }
    if (open_connections_.fetch_add(1) >= options_.max_connections) {
      open_connections_.fetch_sub(1);
      spdlog::warn("refusing a connection: max_connections ({}) reached", options_.max_connections);
      asio::error_code ignored;
      socket.close(ignored);
    } else {
      asio::post(target.context, [this, &target, socket = std::move(socket)]() mutable {
        // A stop that reached this shard first has already stopped its
        // sessions; a session started now would keep the shard running.
        if (stop_requested_.load()) {
          open_connections_.fetch_sub(1);
          return;  // the socket closes as the lambda is destroyed
        }
        std::make_shared<Session>(std::move(socket), target.host)->start();
      });
    }
    accept_next();
  });
}

void Server::stop() {
  if (stop_requested_.exchange(true)) return;
  asio::post(shards_[0]->context, [this] {
    asio::error_code ignored;
    acceptor_->close(ignored);
  });
  for (size_t i = 0; i < shards_.size(); ++i) {
    Shard* s = shards_[i].get();
    asio::post(s->context, [this, s, i] {
      if (options_.on_shard_stop) options_.on_shard_stop(i);
      // Copy first: a stop may end a session and erase it while iterating.
      std::vector<Session*> live(s->host.sessions.begin(), s->host.sessions.end());
      for (Session* session : live) session->stop();
      s->work.reset();  // run() returns once the last session has ended
    });
  }
  std::lock_guard lock(mu_);
  stopping_ = true;
  cv_.notify_all();
}

void Server::run() {
  accept_next();

  std::vector<std::thread> threads;
  for (auto& shard : shards_) {
    Shard* s = shard.get();
    threads.emplace_back([this, s] {
      s->context.run();
      std::lock_guard lock(mu_);
      ++threads_done_;
      cv_.notify_all();
    });
  }

  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return stopping_ || threads_done_ == threads.size(); });
  if (signals_) {
    // The signal set must not keep shard 0 alive; cancel it on its thread.
    asio::post(shards_[0]->context, [this] { signals_->cancel(); });
  }
  const bool drained = cv_.wait_for(lock, options_.shutdown_timeout,
                                    [&] { return threads_done_ == threads.size(); });
  lock.unlock();
  if (!drained) {
    spdlog::warn("shutdown_timeout_ms ({}) passed with {} connection(s) still busy; closing them",
                 options_.shutdown_timeout.count(), open_connections_.load());
    for (auto& shard : shards_) shard->context.stop();
  }
  for (std::thread& t : threads) t.join();
}

}  // namespace spillway::broker
