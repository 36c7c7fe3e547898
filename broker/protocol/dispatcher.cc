// The api-key dispatch table.
#include "dispatcher.h"

#include <cassert>
#include <string>

namespace spillway::broker {

void Dispatcher::add(frame::ApiKey key, int16_t min_version, int16_t max_version,
                     Handler* handler) {
  const auto index = static_cast<size_t>(key);
  // Every served key has a name in frame::api_name (and a row in protocol.md).
  assert(index < kMaxApiKeys && table_[index].handler == nullptr && min_version <= max_version &&
         handler != nullptr && frame::api_name(static_cast<int16_t>(key)) != nullptr);
  table_[index] = Entry{handler, min_version, max_version};
}

Status Dispatcher::check(const frame::RequestHeader& header) const {
  if (header.api_key < 0 || static_cast<size_t>(header.api_key) >= kMaxApiKeys ||
      table_[header.api_key].handler == nullptr) {
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
  table_[header.api_key].handler->handle(exchange);
}

size_t Dispatcher::served(std::array<ApiVersionRange, kMaxApiKeys>& out) const {
  size_t count = 0;
  for (size_t key = 0; key < kMaxApiKeys; ++key) {
    if (table_[key].handler == nullptr) continue;
    out[count++] = {static_cast<int16_t>(key), table_[key].min_version, table_[key].max_version};
  }
  return count;
}

}  // namespace spillway::broker
