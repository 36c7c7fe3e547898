#include "cluster/etcd/etcd_kv_store.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "cluster/etcd/etcd_json.h"
#include "cluster/etcd/etcd_stream_call.h"
#include "cluster/etcd/etcd_unary_queue.h"

namespace spillway::broker::cluster::etcd {
namespace {

using nlohmann::json;

// Adapts a parsed-body completion to a typed one.
template <typename T, typename Parse>
EtcdUnaryQueue::Done typed(KvStore::Callback<T> done, Parse parse) {
  return [done = std::move(done), parse](Result<json> body) {
    if (!body) {
      done(std::move(body).take_status());
      return;
    }
    done(parse(*body));
  };
}

class EtcdWatchHandle final : public WatchHandle {
 public:
  explicit EtcdWatchHandle(std::shared_ptr<EtcdStreamCall> call) : call_(std::move(call)) {}
  ~EtcdWatchHandle() override { call_->cancel(); }

 private:
  std::shared_ptr<EtcdStreamCall> call_;
};

}  // namespace

EtcdKvStore::EtcdKvStore(asio::io_context& io, std::vector<std::string> endpoints,
                         EtcdOptions options)
    : session_(std::make_shared<EtcdSession>(io, endpoints, options)),
      unary_(std::make_shared<EtcdUnaryQueue>(session_)) {}

EtcdKvStore::~EtcdKvStore() {
  unary_->shutdown();
  for (auto& weak : keep_alives_) {
    if (auto call = weak.lock()) call->cancel();
  }
}

const std::string& EtcdKvStore::current_endpoint() const {
  static const std::string kNone;
  return session_->endpoints.empty() ? kNone : session_->endpoint().text;
}

void EtcdKvStore::range(std::string key, bool prefix, Callback<RangeResult> done) {
  unary_->call("/v3/kv/range", range_request(key, prefix),
               typed<RangeResult>(std::move(done),
                                  [](const json& body) { return parse_range_response(body); }));
}

void EtcdKvStore::txn(std::vector<Compare> compares, std::vector<TxnOp> success,
                      std::vector<TxnOp> failure, Callback<TxnResult> done) {
  unary_->call(
      "/v3/kv/txn", txn_request(compares, success, failure),
      typed<TxnResult>(std::move(done), [](const json& body) { return parse_txn_response(body); }));
}

void EtcdKvStore::lease_grant(int64_t ttl_ms, Callback<int64_t> done) {
  int64_t seconds = std::max<int64_t>(1, (ttl_ms + 999) / 1000);
  unary_->call("/v3/lease/grant", lease_grant_request(seconds),
               typed<int64_t>(std::move(done),
                              [](const json& body) { return parse_lease_grant_response(body); }));
}

void EtcdKvStore::lease_revoke(int64_t lease, Callback<bool> done) {
  unary_->call("/v3/lease/revoke", lease_id_request(lease),
               [done = std::move(done)](Result<json> body) {
                 if (body) {
                   done(true);
                   return;
                 }
                 // The gateway's NotFound (HTTP 404) for a lease that expired
                 // or was revoked already.
                 if (body.status().message().find("lease not found") != std::string_view::npos) {
                   done(false);
                   return;
                 }
                 done(std::move(body).take_status());
               });
}

void EtcdKvStore::compact(int64_t revision, Callback<int64_t> done) {
  unary_->call("/v3/kv/compaction", compaction_request(revision),
               typed<int64_t>(std::move(done),
                              [](const json& body) { return parse_header_revision(body); }));
}

void EtcdKvStore::lease_keep_alive(int64_t lease, Callback<int64_t> done) {
  // One request on a stream of its own: the first answer is the renewal's.
  auto call =
      std::make_shared<EtcdStreamCall>(session_, "/v3/lease/keepalive", lease_id_request(lease));
  keep_alives_.erase(std::remove_if(keep_alives_.begin(), keep_alives_.end(),
                                    [](const auto& weak) { return weak.expired(); }),
                     keep_alives_.end());
  keep_alives_.push_back(call);
  auto shared_done = std::make_shared<Callback<int64_t>>(std::move(done));
  // The call keeps itself alive through its pending completions.
  call->start(
      [shared_done](const json& message) {
        auto ttl = parse_keep_alive_message(message);
        if (!ttl) {
          (*shared_done)(ttl.status());
        } else {
          (*shared_done)(*ttl * 1000);
        }
        return false;
      },
      [shared_done](Status status) { (*shared_done)(std::move(status)); });
}

std::unique_ptr<WatchHandle> EtcdKvStore::watch(std::string key, bool prefix,
                                                int64_t start_revision,
                                                std::function<void(Result<WatchBatch>)> on_events) {
  auto call = std::make_shared<EtcdStreamCall>(session_, "/v3/watch",
                                               watch_create_request(key, prefix, start_revision));
  auto shared_events =
      std::make_shared<std::function<void(Result<WatchBatch>)>>(std::move(on_events));
  call->start(
      [shared_events, start_revision](const json& raw) {
        auto message = parse_watch_message(raw);
        if (!message) {
          (*shared_events)(message.status());
          return false;
        }
        if (message->compact_revision > 0) {
          (*shared_events)(Status(ErrorCode::kCompacted,
                                  "etcd: watch from revision " + std::to_string(start_revision) +
                                      " refused: history compacted up to revision " +
                                      std::to_string(message->compact_revision)));
          return false;
        }
        if (message->canceled) {
          (*shared_events)(Status(ErrorCode::kCoordinationUnavailable,
                                  "etcd: watch canceled by the server: " +
                                      (message->cancel_reason.empty() ? std::string("no reason")
                                                                      : message->cancel_reason)));
          return false;
        }
        // The created message and progress notifications carry no events.
        if (message->batch.events.empty()) return true;
        (*shared_events)(std::move(message->batch));
        return true;
      },
      [shared_events](Status status) { (*shared_events)(std::move(status)); });
  return std::make_unique<EtcdWatchHandle>(std::move(call));
}

}  // namespace spillway::broker::cluster::etcd
