// The JSON of etcd 3.4's v3 HTTP gateway (grpc-gateway over the gRPC API,
// api/etcdserverpb/rpc.proto): request bodies built from the KvStore types
// and responses read back into them. Keys and values travel in base64,
// int64 fields as JSON strings, and fields equal to their default (0, "",
// false, PUT) are left out of responses, so an absent field reads as its
// default. Every reader checks types and fails with kCoordinationUnavailable
// ("etcd: ...") instead of throwing.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/kv_store.h"
#include "spillway/common/status.h"

namespace spillway::broker::cluster::etcd {

// etcd's range end for "every key starting with `prefix`": the prefix with
// its last byte below 0xff incremented (the 0xff bytes after it dropped);
// "\0" (no end: every key from `prefix` on) when there is no such byte.
std::string prefix_range_end(std::string_view prefix);

// Request bodies.
std::string range_request(std::string_view key, bool prefix);
std::string txn_request(const std::vector<Compare>& compares, const std::vector<TxnOp>& success,
                        const std::vector<TxnOp>& failure);
std::string lease_grant_request(int64_t ttl_seconds);
std::string lease_id_request(int64_t lease);  // keep-alive, revoke
std::string watch_create_request(std::string_view key, bool prefix, int64_t start_revision);
std::string compaction_request(int64_t revision);

// Responses (the parsed body of a 200 answer).
Result<RangeResult> parse_range_response(const nlohmann::json& body);
Result<TxnResult> parse_txn_response(const nlohmann::json& body);
Result<int64_t> parse_lease_grant_response(const nlohmann::json& body);  // the lease id
// One message of the keep-alive stream ({"result": {...}}): the TTL in
// seconds, 0 when the lease no longer exists.
Result<int64_t> parse_keep_alive_message(const nlohmann::json& message);
// The header's revision of any response.
Result<int64_t> parse_header_revision(const nlohmann::json& body);

// One message of the watch stream.
struct WatchMessage {
  bool created = false;
  bool canceled = false;
  int64_t compact_revision = 0;
  std::string cancel_reason;
  WatchBatch batch;  // events (possibly none) and the header's revision
};
Result<WatchMessage> parse_watch_message(const nlohmann::json& message);

// The message of an error body ({"error": "...", "code": N, "message": ...})
// or the start of the body when it is not one; `code` gets the gRPC code
// (0 when absent).
std::string error_message(std::string_view body, int* grpc_code);

}  // namespace spillway::broker::cluster::etcd
