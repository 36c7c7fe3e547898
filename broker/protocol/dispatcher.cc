// The api-key dispatch table.
#include "dispatcher.h"

#include <cassert>
#include <string>

namespace spillway::broker {

void Dispatcher::add(frame::ApiKey key, int16_t min_version, int16_t max_version, Handler handler) {
  const auto index = static_cast<size_t>(key);
  // Every served key has a name in frame::api_name (and a row in protocol.md).
  assert(index < kMaxApiKeys && !table_[index].served() && min_version <= max_version &&
         frame::api_name(static_cast<int16_t>(key)) != nullptr);
  table_[index] = Entry{std::move(handler), nullptr, min_version, max_version};
}

void Dispatcher::add(frame::ApiKey key, int16_t min_version, int16_t max_version,
                     AsyncHandler* handler) {
  const auto index = static_cast<size_t>(key);
  assert(index < kMaxApiKeys && !table_[index].served() && min_version <= max_version &&
         handler != nullptr && frame::api_name(static_cast<int16_t>(key)) != nullptr);
  table_[index] = Entry{Handler(), handler, min_version, max_version};
}

Status Dispatcher::check(const frame::RequestHeader& header) const {
  if (header.api_key < 0 || static_cast<size_t>(header.api_key) >= kMaxApiKeys ||
      !table_[header.api_key].served()) {
    return Status(ErrorCode::kUnsupportedVersion,
                  "unknown api key " + std::to_string(header.api_key));
  }
  const Entry& entry = table_[header.api_key];
  if (header.api_version < entry.min_version || header.api_version > entry.max_version) {
    return Status(
        ErrorCode::kUnsupportedVersion,
        std::string(frame::api_name(header.api_key)) + " version " +
            std::to_string(header.api_version) + " is not served; this broker serves versions " +
            std::to_string(entry.min_version) + " to " + std::to_string(entry.max_version));
  }
  return Status::Ok();
}

void Dispatcher::dispatch(Exchange& exchange) const {
  const frame::RequestHeader& header = exchange.header();
  if (Status st = check(header); !st.ok()) {
    exchange.finish(st);
    return;
  }
  const Entry& entry = table_[header.api_key];
  if (entry.async) {
    entry.async->handle(exchange);
    return;
  }
  // Synchronous handlers serve small control requests; their vector is not
  // on the produce/fetch path.
  std::vector<std::byte> body;
  Status st = entry.handler(Request{header, exchange.body()}, body);
  if (st.ok()) st = exchange.out().write(body);
  exchange.finish(st);
}

void Dispatcher::dispatch(const frame::RequestHeader& header, std::span<const std::byte> body,
                          std::vector<std::byte>& out) const {
  out.clear();
  if (Status st = check(header); !st.ok()) {
    encode_error_frame(header.correlation_id, st, out);
    return;
  }
  const Entry& entry = table_[header.api_key];
  if (!entry.handler) {
    encode_error_frame(header.correlation_id,
                       Status(ErrorCode::kUnsupportedVersion, "asynchronous handler"), out);
    return;
  }
  out.resize(frame::kResponseHeaderBytes);
  Status st = entry.handler(Request{header, body}, out);
  if (!st.ok()) {
    encode_error_frame(header.correlation_id, st, out);
    return;
  }
  frame::ResponseHeader response{header.correlation_id, ErrorCode::kOk,
                                 static_cast<uint32_t>(out.size() - frame::kResponseHeaderBytes)};
  frame::encode_response_header(response, std::span(out).first<frame::kResponseHeaderBytes>());
}

std::vector<ApiVersionRange> Dispatcher::served() const {
  std::vector<ApiVersionRange> out;
  for (size_t key = 0; key < kMaxApiKeys; ++key) {
    if (!table_[key].served()) continue;
    out.push_back({static_cast<int16_t>(key), table_[key].min_version, table_[key].max_version});
  }
  return out;
}

void encode_error_frame(int32_t correlation_id, const Status& status, std::vector<std::byte>& out) {
  std::array<std::byte, frame::kMaxErrorFrameBytes> buffer;
  const ErrorCode code = status.ok() ? ErrorCode::kUnknown : status.code();
  const size_t n = frame::encode_error_response(correlation_id, code, status.message(), buffer);
  out.assign(buffer.begin(), buffer.begin() + static_cast<ptrdiff_t>(n));
}

}  // namespace spillway::broker
