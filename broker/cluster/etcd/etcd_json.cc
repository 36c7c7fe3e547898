#include "cluster/etcd/etcd_json.h"

#include <charconv>
#include <nlohmann/json.hpp>

#include "spillway/common/scram.h"

namespace spillway::broker::cluster::etcd {
namespace {

using nlohmann::json;

Status malformed(std::string what) {
  return Status(ErrorCode::kCoordinationUnavailable, "etcd: malformed response: " + what);
}

std::string b64(std::string_view bytes) {
  return scram::base64_encode(bytes);
}

// An int64 field: a JSON string of digits (the gateway's form) or a number;
// absent = 0.
Status read_int(const json& object, const char* name, int64_t* out) {
  *out = 0;
  auto it = object.find(name);
  if (it == object.end() || it->is_null()) return Status::Ok();
  if (it->is_number_integer()) {
    *out = it->get<int64_t>();
    return Status::Ok();
  }
  if (!it->is_string()) return malformed(std::string(name) + " is not an integer");
  const std::string& text = it->get_ref<const std::string&>();
  auto [p, e] = std::from_chars(text.data(), text.data() + text.size(), *out);
  if (text.empty() || e != std::errc() || p != text.data() + text.size()) {
    return malformed(std::string(name) + " is not an integer");
  }
  return Status::Ok();
}

// A bytes field (base64); absent = empty.
Status read_bytes(const json& object, const char* name, std::string* out) {
  out->clear();
  auto it = object.find(name);
  if (it == object.end() || it->is_null()) return Status::Ok();
  if (!it->is_string()) return malformed(std::string(name) + " is not a string");
  auto decoded = scram::base64_decode(it->get_ref<const std::string&>());
  if (!decoded) return malformed(std::string(name) + " is not base64");
  *out = std::move(*decoded);
  return Status::Ok();
}

Status read_bool(const json& object, const char* name, bool* out) {
  *out = false;
  auto it = object.find(name);
  if (it == object.end() || it->is_null()) return Status::Ok();
  if (!it->is_boolean()) return malformed(std::string(name) + " is not a boolean");
  *out = it->get<bool>();
  return Status::Ok();
}

// An object member; absent = nullptr (a default message), not an object = error.
Status find_object(const json& object, const char* name, const json** out) {
  *out = nullptr;
  auto it = object.find(name);
  if (it == object.end() || it->is_null()) return Status::Ok();
  if (!it->is_object()) return malformed(std::string(name) + " is not an object");
  *out = &*it;
  return Status::Ok();
}

Status find_array(const json& object, const char* name, const json** out) {
  *out = nullptr;
  auto it = object.find(name);
  if (it == object.end() || it->is_null()) return Status::Ok();
  if (!it->is_array()) return malformed(std::string(name) + " is not an array");
  *out = &*it;
  return Status::Ok();
}

Status read_kv(const json& object, KeyValue* kv) {
  if (!object.is_object()) return malformed("kv is not an object");
  SPILLWAY_RETURN_IF_ERROR(read_bytes(object, "key", &kv->key));
  SPILLWAY_RETURN_IF_ERROR(read_bytes(object, "value", &kv->value));
  SPILLWAY_RETURN_IF_ERROR(read_int(object, "create_revision", &kv->create_revision));
  SPILLWAY_RETURN_IF_ERROR(read_int(object, "mod_revision", &kv->mod_revision));
  SPILLWAY_RETURN_IF_ERROR(read_int(object, "version", &kv->version));
  SPILLWAY_RETURN_IF_ERROR(read_int(object, "lease", &kv->lease));
  return Status::Ok();
}

Status read_kvs(const json& object, std::vector<KeyValue>* out) {
  const json* kvs = nullptr;
  SPILLWAY_RETURN_IF_ERROR(find_array(object, "kvs", &kvs));
  out->clear();
  if (kvs == nullptr) return Status::Ok();
  out->resize(kvs->size());
  for (size_t i = 0; i < kvs->size(); ++i) SPILLWAY_RETURN_IF_ERROR(read_kv((*kvs)[i], &(*out)[i]));
  return Status::Ok();
}

void put_range(json& request, std::string_view key, bool prefix) {
  if (prefix && key.empty()) {
    // Every key: etcd's convention is key = range_end = "\0".
    request["key"] = b64(std::string_view("\0", 1));
    request["range_end"] = b64(std::string_view("\0", 1));
    return;
  }
  request["key"] = b64(key);
  if (prefix) request["range_end"] = b64(prefix_range_end(key));
}

json request_op(const TxnOp& op) {
  json inner = json::object();
  switch (op.kind) {
    case TxnOp::Kind::kPut:
      inner["key"] = b64(op.key);
      inner["value"] = b64(op.value);
      if (op.lease != 0) inner["lease"] = std::to_string(op.lease);
      return json{{"request_put", std::move(inner)}};
    case TxnOp::Kind::kDelete:
      put_range(inner, op.key, op.prefix);
      return json{{"request_delete_range", std::move(inner)}};
    case TxnOp::Kind::kRange:
      put_range(inner, op.key, op.prefix);
      return json{{"request_range", std::move(inner)}};
  }
  return json::object();
}

json compare_json(const Compare& c) {
  json out = json::object();
  out["key"] = b64(c.key);
  switch (c.op) {
    case Compare::Op::kEqual:
      out["result"] = "EQUAL";
      break;
    case Compare::Op::kNotEqual:
      out["result"] = "NOT_EQUAL";
      break;
    case Compare::Op::kLess:
      out["result"] = "LESS";
      break;
    case Compare::Op::kGreater:
      out["result"] = "GREATER";
      break;
  }
  switch (c.target) {
    case Compare::Target::kCreateRevision:
      out["target"] = "CREATE";
      out["create_revision"] = std::to_string(c.number);
      break;
    case Compare::Target::kModRevision:
      out["target"] = "MOD";
      out["mod_revision"] = std::to_string(c.number);
      break;
    case Compare::Target::kVersion:
      out["target"] = "VERSION";
      out["version"] = std::to_string(c.number);
      break;
    case Compare::Target::kValue:
      out["target"] = "VALUE";
      out["value"] = b64(c.value);
      break;
  }
  return out;
}

json ops_json(const std::vector<TxnOp>& ops) {
  json out = json::array();
  for (const TxnOp& op : ops) out.push_back(request_op(op));
  return out;
}

// The {"result": {...}} wrapper of a streamed message.
Status stream_result(const json& message, const json** out) {
  if (!message.is_object()) return malformed("stream message is not an object");
  auto error = message.find("error");
  if (error != message.end()) {
    return Status(
        ErrorCode::kCoordinationUnavailable,
        "etcd: stream error: " + error->dump(-1, ' ', false, json::error_handler_t::replace));
  }
  SPILLWAY_RETURN_IF_ERROR(find_object(message, "result", out));
  if (*out == nullptr) return malformed("stream message without result");
  return Status::Ok();
}

}  // namespace

std::string prefix_range_end(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    auto last = static_cast<unsigned char>(end.back());
    if (last < 0xff) {
      end.back() = static_cast<char>(last + 1);
      return end;
    }
    end.pop_back();
  }
  return std::string("\0", 1);
}

std::string range_request(std::string_view key, bool prefix) {
  json request = json::object();
  put_range(request, key, prefix);
  return request.dump();
}

std::string txn_request(const std::vector<Compare>& compares, const std::vector<TxnOp>& success,
                        const std::vector<TxnOp>& failure) {
  json request = json::object();
  json list = json::array();
  for (const Compare& c : compares) list.push_back(compare_json(c));
  request["compare"] = std::move(list);
  request["success"] = ops_json(success);
  request["failure"] = ops_json(failure);
  return request.dump();
}

std::string lease_grant_request(int64_t ttl_seconds) {
  return json{{"TTL", std::to_string(ttl_seconds)}}.dump();
}

std::string lease_id_request(int64_t lease) {
  return json{{"ID", std::to_string(lease)}}.dump();
}

std::string watch_create_request(std::string_view key, bool prefix, int64_t start_revision) {
  json create = json::object();
  put_range(create, key, prefix);
  if (start_revision > 0) create["start_revision"] = std::to_string(start_revision);
  return json{{"create_request", std::move(create)}}.dump();
}

std::string compaction_request(int64_t revision) {
  return json{{"revision", std::to_string(revision)}, {"physical", true}}.dump();
}

Result<int64_t> parse_header_revision(const json& body) {
  if (!body.is_object()) return malformed("body is not an object");
  const json* header = nullptr;
  SPILLWAY_RETURN_IF_ERROR(find_object(body, "header", &header));
  if (header == nullptr) return malformed("no header");
  int64_t revision = 0;
  SPILLWAY_RETURN_IF_ERROR(read_int(*header, "revision", &revision));
  return revision;
}

Result<RangeResult> parse_range_response(const json& body) {
  RangeResult result;
  auto revision = parse_header_revision(body);
  if (!revision) return revision.status();
  result.revision = *revision;
  SPILLWAY_RETURN_IF_ERROR(read_kvs(body, &result.kvs));
  return result;
}

Result<TxnResult> parse_txn_response(const json& body) {
  TxnResult result;
  auto revision = parse_header_revision(body);
  if (!revision) return revision.status();
  result.revision = *revision;
  SPILLWAY_RETURN_IF_ERROR(read_bool(body, "succeeded", &result.succeeded));
  const json* responses = nullptr;
  SPILLWAY_RETURN_IF_ERROR(find_array(body, "responses", &responses));
  if (responses == nullptr) return result;
  for (const json& op : *responses) {
    if (!op.is_object()) return malformed("txn response op is not an object");
    const json* range = nullptr;
    SPILLWAY_RETURN_IF_ERROR(find_object(op, "response_range", &range));
    if (range == nullptr) continue;
    result.ranges.emplace_back();
    SPILLWAY_RETURN_IF_ERROR(read_kvs(*range, &result.ranges.back()));
  }
  return result;
}

Result<int64_t> parse_lease_grant_response(const json& body) {
  if (!body.is_object()) return malformed("body is not an object");
  auto error = body.find("error");
  if (error != body.end() && error->is_string() && !error->get_ref<const std::string&>().empty()) {
    return Status(ErrorCode::kCoordinationUnavailable,
                  "etcd: lease grant: " + error->get<std::string>());
  }
  int64_t id = 0;
  SPILLWAY_RETURN_IF_ERROR(read_int(body, "ID", &id));
  if (id == 0) return malformed("lease grant without ID");
  return id;
}

Result<int64_t> parse_keep_alive_message(const json& message) {
  const json* result = nullptr;
  SPILLWAY_RETURN_IF_ERROR(stream_result(message, &result));
  int64_t ttl = 0;
  SPILLWAY_RETURN_IF_ERROR(read_int(*result, "TTL", &ttl));
  return ttl < 0 ? 0 : ttl;
}

Result<WatchMessage> parse_watch_message(const json& message) {
  const json* result = nullptr;
  SPILLWAY_RETURN_IF_ERROR(stream_result(message, &result));
  WatchMessage out;
  const json* header = nullptr;
  SPILLWAY_RETURN_IF_ERROR(find_object(*result, "header", &header));
  if (header != nullptr)
    SPILLWAY_RETURN_IF_ERROR(read_int(*header, "revision", &out.batch.revision));
  SPILLWAY_RETURN_IF_ERROR(read_bool(*result, "created", &out.created));
  SPILLWAY_RETURN_IF_ERROR(read_bool(*result, "canceled", &out.canceled));
  SPILLWAY_RETURN_IF_ERROR(read_int(*result, "compact_revision", &out.compact_revision));
  auto reason = result->find("cancel_reason");
  if (reason != result->end() && reason->is_string())
    out.cancel_reason = reason->get<std::string>();
  const json* events = nullptr;
  SPILLWAY_RETURN_IF_ERROR(find_array(*result, "events", &events));
  if (events == nullptr) return out;
  out.batch.events.resize(events->size());
  for (size_t i = 0; i < events->size(); ++i) {
    const json& event = (*events)[i];
    if (!event.is_object()) return malformed("watch event is not an object");
    WatchEvent& e = out.batch.events[i];
    auto type = event.find("type");
    if (type == event.end() || type->is_null() || *type == "PUT" || *type == 0) {
      e.type = WatchEvent::Type::kPut;
    } else if (*type == "DELETE" || *type == 1) {
      e.type = WatchEvent::Type::kDelete;
    } else {
      return malformed("unknown watch event type");
    }
    const json* kv = nullptr;
    SPILLWAY_RETURN_IF_ERROR(find_object(event, "kv", &kv));
    if (kv == nullptr) return malformed("watch event without kv");
    SPILLWAY_RETURN_IF_ERROR(read_kv(*kv, &e.kv));
  }
  return out;
}

std::string error_message(std::string_view body, int* grpc_code) {
  *grpc_code = 0;
  json parsed = json::parse(body, nullptr, false);
  if (parsed.is_object()) {
    auto code = parsed.find("code");
    if (code != parsed.end() && code->is_number_integer()) *grpc_code = code->get<int>();
    for (const char* name : {"message", "error"}) {
      auto it = parsed.find(name);
      if (it != parsed.end() && it->is_string() && !it->get_ref<const std::string&>().empty()) {
        return it->get<std::string>();
      }
    }
  }
  constexpr size_t kShown = 200;
  std::string shown(body.substr(0, kShown));
  for (char& c : shown) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  }
  return shown;
}

}  // namespace spillway::broker::cluster::etcd
