// Thread-per-core acceptor and shutdown. Each core (CoreSet) is run by one
// thread; a connection lives on one core from accept to close, unless it
// moves to the core of its partitions (move_session()).
#include "server.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <asio/signal_set.hpp>
#include <asio/steady_timer.hpp>
#include <optional>
#include <thread>

#include "listener.h"
#include "session.h"

namespace spillway::broker {

// The search for the connection to close: every core is visited in turn
// (each looks at its own sessions on its own thread), then the one idle
// longest is closed on its core.
struct Server::Eviction {
  asio::ip::tcp::socket socket;
  asio::ip::address address;
  size_t listener = 0;
  size_t target = 0;  // the new connection's core
  size_t visited = 0;
  std::weak_ptr<Session> idlest;
  size_t idlest_core = 0;
  std::chrono::steady_clock::time_point idlest_since = std::chrono::steady_clock::time_point::max();
};

Server::Server(CoreSet& cores, ServerOptions options)
    : cores_(cores),
      options_(std::move(options)),
      limits_(options_.max_connections, options_.max_connections_per_address),
      memory_(options_.memory_budget_bytes, cores.size()) {
  for (size_t i = 0; i < cores_.size(); ++i) {
    auto host = std::make_unique<SessionHost>();
    host->context = &cores_.context(i);
    host->core = i;
    host->max_frame_bytes = options_.max_frame_bytes;
    host->queue_depth = options_.queue_depth;
    host->idle_timeout = options_.idle_timeout;
    host->memory = &memory_;
    host->connection_memory_bytes = options_.connection_memory_bytes;
    host->limits = &limits_;
    host->paused_at_max_in_flight = &paused_at_max_in_flight_;
    host->peers = &hosts_;
    host->move_session = [this](SessionHost& target, MovedConnection moved) {
      move_session(target, std::move(moved));
    };
    memory_.set_waker(i, &cores_.context(i), &wake_memory_waiters, host.get());
    hosts_.push_back(std::move(host));
  }
}

Server::~Server() {
  // Sessions left by a cut shutdown sit in handlers queued on the cores and
  // unregister from their core's host (and from limits_) when destroyed:
  // that must happen here, while both still exist.
  acceptors_.clear();
  signals_.reset();
  cores_.halt();
  // No thread runs the cores now. Their unanswered exchanges hold the
  // sessions alive; let go so the sessions die with their queued work.
  for (auto& host : hosts_) {
    std::vector<std::shared_ptr<Session>> live;
    for (Session* session : host->sessions) live.push_back(session->shared_from_this());
    for (auto& session : live) session->abandon();
  }
  cores_.discard_queued_work();
}

Status Server::open() {
  for (const ListenerOptions& listener : options_.listeners) {
    auto acceptor =
        open_listener(cores_.context(0), listener.address, listener.name + " listen address");
    if (!acceptor.ok()) return acceptor.status();
    acceptors_.push_back(Acceptor{std::move(acceptor).value(),
                                  std::make_unique<SessionListener>(SessionListener{
                                      .dispatcher = listener.dispatcher,
                                      .index = acceptors_.size(),
                                      .security = listener.security,
                                      .tls = listener.tls,
                                      .principal_mapper = listener.principal_mapper,
                                      .handshake_timeout = listener.handshake_timeout})});
  }
  if (options_.handle_signals) {
    // Installed here, before the caller logs that it listens, so a signal
    // sent right after that line is never lost to the default action.
    signals_ = std::make_unique<asio::signal_set>(cores_.context(0), SIGINT, SIGTERM);
    if (options_.on_reload) signals_->add(SIGHUP);
    wait_for_signal();
  }
  return Status::Ok();
}

void Server::wait_for_signal() {
  signals_->async_wait([this](asio::error_code ec, int signo) {
    if (ec) return;
    if (signo == SIGHUP) {
      spdlog::info("received SIGHUP, reloading TLS certificates");
      options_.on_reload();
      if (!stop_requested_.load()) wait_for_signal();
      return;
    }
    const char* name = signo == SIGINT ? "SIGINT" : "SIGTERM";
    if (options_.before_stop && !stop_announced_) {
      stop_announced_ = true;
      spdlog::info("received {}, preparing to stop (a second signal stops at once)", name);
      wait_for_signal();
      options_.before_stop([this] { asio::post(cores_.context(0), [this] { stop(); }); });
      return;
    }
    spdlog::info("received {}, stopping: no new connections, finishing in-flight requests", name);
    stop();
  });
}

asio::ip::tcp::endpoint Server::local_endpoint(size_t index) const {
  asio::error_code ec;
  return acceptors_[index].socket->local_endpoint(ec);
}

void Server::accept_next(size_t listener) {
  const size_t target = next_core_;
  next_core_ = (next_core_ + 1) % cores_.size();
  // The accepted socket is created on the target core's context, so the
  // session never touches another thread's reactor.
  acceptors_[listener].socket->async_accept(
      cores_.context(target),
      [this, listener, target](asio::error_code ec, asio::ip::tcp::socket socket) {
        if (ec == asio::error::operation_aborted || stop_requested_.load()) return;
        if (ec) {
          // EMFILE and friends: log and retry shortly instead of spinning.
          spdlog::warn("accept failed: {}", ec.message());
          auto timer = std::make_shared<asio::steady_timer>(cores_.context(0),
                                                            std::chrono::milliseconds(50));
          timer->async_wait([this, timer, listener](asio::error_code) {
            if (!stop_requested_.load()) accept_next(listener);
          });
          return;
        }
        admit(std::move(socket), listener, target);
        accept_next(listener);
      });
}

void Server::admit(asio::ip::tcp::socket socket, size_t listener, size_t target) {
  asio::error_code ec;
  asio::ip::address address = socket.remote_endpoint(ec).address();
  if (ec) return;  // already gone; the socket closes here
  switch (limits_.admit(address)) {
    case ConnectionLimits::Admission::kAdmitted:
      start_session(std::move(socket), std::move(address), listener, target);
      return;
    case ConnectionLimits::Admission::kAddressFull:
      if (uint64_t held_back = 0; allow_refusal_log(&held_back)) {
        spdlog::warn(
            "refusing a connection from {}: max_connections_per_ip ({}) reached ({} more "
            "refusal(s) not logged)",
            address.to_string(), limits_.max_per_address(), held_back);
      }
      return;
    case ConnectionLimits::Admission::kTotalFull:
      evict_idle_for(std::make_shared<Eviction>(
          Eviction{.socket = std::move(socket),
                   .address = std::move(address),
                   .listener = listener,
                   .target = target,
                   .visited = 0,
                   .idlest = {},
                   .idlest_core = 0,
                   .idlest_since = std::chrono::steady_clock::time_point::max()}));
      return;
  }
}

void Server::evict_idle_for(std::shared_ptr<Eviction> eviction) {
  if (eviction->visited == cores_.size()) {
    if (eviction->idlest.expired()) {
      refuse_at_limit(eviction->address);
      return;
    }
    asio::post(cores_.context(eviction->idlest_core), [this, eviction] {
      std::shared_ptr<Session> idlest = eviction->idlest.lock();
      if (stop_requested_.load()) return;
      // It may have woken up meanwhile; then the new connection is refused
      // rather than searching again (a crowd of new connections must not
      // turn into a crowd of searches).
      if (idlest == nullptr || !idlest->evictable() ||
          limits_.replace(idlest->address(), eviction->address) !=
              ConnectionLimits::Admission::kAdmitted) {
        refuse_at_limit(eviction->address);
        return;
      }
      idlest->evict();
      start_session(std::move(eviction->socket), std::move(eviction->address), eviction->listener,
                    eviction->target);
    });
    return;
  }
  const size_t core = eviction->visited++;
  SessionHost& host = *hosts_[core];
  asio::post(cores_.context(core), [this, &host, core, eviction] {
    if (stop_requested_.load()) return;
    for (Session* session : host.sessions) {
      if (session->evictable() && session->last_read() < eviction->idlest_since) {
        eviction->idlest = session->weak_from_this();
        eviction->idlest_core = core;
        eviction->idlest_since = session->last_read();
      }
    }
    evict_idle_for(eviction);
  });
}

bool Server::allow_refusal_log(uint64_t* held_back) {
  std::lock_guard lock(refused_log_mu_);
  return refused_log_.allow(held_back);
}

void Server::refuse_at_limit(const asio::ip::address& address) {
  if (uint64_t held_back = 0; allow_refusal_log(&held_back)) {
    spdlog::warn(
        "refusing a connection from {}: max_connections ({}) reached and no connection is idle "
        "({} more refusal(s) not logged)",
        address.to_string(), limits_.max_total(), held_back);
  }
}

void Server::start_session(asio::ip::tcp::socket socket, asio::ip::address address, size_t listener,
                           size_t target) {
  SessionHost& host = *hosts_[target];
  const SessionListener& from = *acceptors_[listener].listener;
  asio::post(cores_.context(target), [this, &host, &from, socket = std::move(socket),
                                      address = std::move(address)]() mutable {
    // A stop that reached this core first has already stopped its
    // sessions; a session started now would keep the core running.
    if (stop_requested_.load()) {
      limits_.release(address);
      return;  // the socket closes as the lambda is destroyed
    }
    std::make_shared<Session>(std::move(socket), std::move(address), host, from)->start();
  });
}

void Server::move_session(SessionHost& target, MovedConnection moved) {
  // The socket is registered with the target core's reactor here, as
  // async_accept does for the core it hands a new connection to.
  asio::ip::tcp::socket socket(*target.context);
  asio::error_code ec;
  socket.assign(moved.address.is_v4() ? asio::ip::tcp::v4() : asio::ip::tcp::v6(), moved.fd, ec);
  if (ec) {
    spdlog::warn("connection from {}: could not move it to another core ({}); closing it",
                 moved.address.to_string(), ec.message());
    ::close(moved.fd);
    limits_.release(moved.address);
    return;
  }
  connections_moved_.fetch_add(1, std::memory_order_relaxed);
  asio::post(*target.context, [this, host = &target, socket = std::move(socket),
                               moved = std::move(moved)]() mutable {
    // As in start_session(): a core that has stopped its sessions takes no
    // new one.
    if (stop_requested_.load()) {
      limits_.release(moved.address);
      return;  // the socket closes as the lambda is destroyed
    }
    asio::ip::address address = moved.address;
    const SessionListener& listener = *moved.listener;
    std::make_shared<Session>(std::move(socket), std::move(address), *host, listener)
        ->start_moved(std::move(moved));
  });
}

void Server::stop() {
  if (stop_requested_.exchange(true)) return;
  asio::post(cores_.context(0), [this] {
    asio::error_code ignored;
    for (Acceptor& acceptor : acceptors_) acceptor.socket->close(ignored);
  });
  for (size_t i = 0; i < cores_.size(); ++i) {
    asio::post(cores_.context(i), [this, i] {
      if (options_.on_core_stop) options_.on_core_stop(i);
      // Copy first: a stop may end a session and erase it while iterating.
      SessionHost& host = *hosts_[i];
      std::vector<Session*> live(host.sessions.begin(), host.sessions.end());
      for (Session* session : live) session->stop();
      // The core keeps running until every core's sessions have ended: a
      // request still being answered on another core may post work here
      // (a fetch's read of a partition this core owns), and a core whose
      // run() had returned would never run it.
      host.on_drained = [this] { core_drained(); };
      if (host.sessions.empty()) std::exchange(host.on_drained, nullptr)();
    });
  }
  std::lock_guard lock(mu_);
  stopping_ = true;
  cv_.notify_all();
}

void Server::core_drained() {
  if (cores_drained_.fetch_add(1) + 1 != cores_.size()) return;
  // Every session has ended: run() returns on each core once its queued
  // work is done.
  for (size_t i = 0; i < cores_.size(); ++i) {
    asio::post(cores_.context(i), [this, i] { cores_.stop_core(i); });
  }
}

void Server::run() {
  for (size_t i = 0; i < acceptors_.size(); ++i) accept_next(i);

  std::vector<std::thread> threads;
  for (size_t i = 0; i < cores_.size(); ++i) {
    threads.emplace_back([this, i] {
      cores_.run(i);
      std::lock_guard lock(mu_);
      ++threads_done_;
      cv_.notify_all();
    });
  }

  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return stopping_ || threads_done_ == threads.size(); });
  if (signals_) {
    // The signal set must not keep core 0 alive; cancel it on its thread.
    asio::post(cores_.context(0), [this] { signals_->cancel(); });
  }
  const bool drained = cv_.wait_for(lock, options_.shutdown_timeout,
                                    [&] { return threads_done_ == threads.size(); });
  lock.unlock();
  if (!drained) {
    spdlog::warn("shutdown_timeout_ms ({}) passed with {} connection(s) still busy; closing them",
                 options_.shutdown_timeout.count(), limits_.open());
    cores_.halt();
  }
  for (std::thread& t : threads) t.join();
}

}  // namespace spillway::broker
