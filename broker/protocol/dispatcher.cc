// The api-key dispatch table.
#include "dispatcher.h"

#include <spdlog/spdlog.h>

#include <cassert>
#include <string>

#include "security/connection_security.h"
#include "spillway/common/kafka/header.h"

namespace spillway::broker {

void Dispatcher::add(frame::ApiKey key, int16_t min_version, int16_t max_version,
                     Handler* handler) {
  assert(protocol_ == Protocol::kNative);
  // Every served key has a name in frame::api_name (and a row in protocol.md).
  assert(frame::api_name(static_cast<int16_t>(key)) != nullptr);
  add_entry(static_cast<int16_t>(key), min_version, max_version, handler, false);
}

void Dispatcher::add(kafka::ApiKey key, int16_t min_version, int16_t max_version, Handler* handler,
                     bool any_version) {
  assert(protocol_ == Protocol::kKafka);
  add_entry(static_cast<int16_t>(key), min_version, max_version, handler, any_version);
}

void Dispatcher::add_entry(int16_t key, int16_t min_version, int16_t max_version, Handler* handler,
                           bool any_version) {
  const auto index = static_cast<size_t>(key);
  assert(index < kMaxApiKeys && table_[index].handler == nullptr && min_version <= max_version &&
         handler != nullptr);
  table_[index] = Entry{handler, min_version, max_version, any_version};
}

const char* Dispatcher::api_name(int16_t key) const {
  if (protocol_ == Protocol::kNative) return frame::api_name(key);
  const kafka::ApiInfo* api = kafka::find_api(key);
  return api != nullptr ? api->name.data() : nullptr;
}

Status Dispatcher::check(const frame::RequestHeader& header) const {
  if (header.api_key < 0 || static_cast<size_t>(header.api_key) >= kMaxApiKeys ||
      table_[header.api_key].handler == nullptr) {
    return Status(ErrorCode::kUnsupportedVersion,
                  "unknown api key " + std::to_string(header.api_key));
  }
  const Entry& entry = table_[header.api_key];
  if (header.api_version < entry.min_version || header.api_version > entry.max_version) {
    const char* name = api_name(header.api_key);
    return Status(
        ErrorCode::kUnsupportedVersion,
        std::string(name != nullptr ? name : "api") + " version " +
            std::to_string(header.api_version) + " is not served; this broker serves versions " +
            std::to_string(entry.min_version) + " to " + std::to_string(entry.max_version));
  }
  return Status::Ok();
}

Exchange::Framing Dispatcher::framing(const frame::RequestHeader& header) const {
  if (protocol_ == Protocol::kNative) return Exchange::Framing::kNative;
  return kafka::response_header_version(header.api_key, header.api_version) >= 1
             ? Exchange::Framing::kKafkaV1
             : Exchange::Framing::kKafkaV0;
}

bool Dispatcher::served_before_authentication(int16_t key) const {
  if (protocol_ == Protocol::kNative) {
    return key == static_cast<int16_t>(frame::ApiKey::kApiVersions) ||
           key == static_cast<int16_t>(frame::ApiKey::kSaslHandshake) ||
           key == static_cast<int16_t>(frame::ApiKey::kSaslAuthenticate);
  }
  return key == static_cast<int16_t>(kafka::ApiKey::kApiVersions) ||
         key == static_cast<int16_t>(kafka::ApiKey::kSaslHandshake) ||
         key == static_cast<int16_t>(kafka::ApiKey::kSaslAuthenticate);
}

void Dispatcher::dispatch(Exchange& exchange) const {
  const frame::RequestHeader& header = exchange.header();
  if (const security::ConnectionSecurity* security = exchange.security();
      security != nullptr && !security->authenticated &&
      !served_before_authentication(header.api_key)) {
    // A SASL listener serves nothing else before authentication. Native:
    // an error frame, then the connection closes; Kafka has no error frame
    // for it: no response, the connection closes (as Kafka does).
    spdlog::debug("{} request {} from {} before authentication; closing the connection",
                  protocol_ == Protocol::kNative ? "native" : "Kafka", header.api_key,
                  exchange.peer());
    exchange.close_after_response();
    exchange.finish(Status(ErrorCode::kAuthenticationFailed,
                           "authenticate first: this listener requires SASL authentication "
                           "before any request other than ApiVersions, SaslHandshake and "
                           "SaslAuthenticate"));
    return;
  }
  const Status servable = check(header);
  const Entry* entry = servable.ok() ? &table_[header.api_key] : nullptr;
  if (protocol_ == Protocol::kKafka) {
    if (entry == nullptr && header.api_key >= 0 &&
        static_cast<size_t>(header.api_key) < kMaxApiKeys && table_[header.api_key].any_version) {
      entry = &table_[header.api_key];
    }
    dispatch_kafka(exchange, entry, servable);
    return;
  }
  if (!servable.ok()) {
    exchange.finish(servable);
    return;
  }
  entry->handler->handle(exchange);
}

void Dispatcher::dispatch_kafka(Exchange& exchange, const Entry* entry,
                                const Status& servable) const {
  const frame::RequestHeader& header = exchange.header();
  // The rest of Kafka's request header: client id, and tags from v2 on.
  const kafka::RequestHeader start{header.api_key, header.api_version, header.correlation_id,
                                   std::nullopt};
  Result<kafka::RequestFrame> frame = kafka::decode_request_header_tail(
      start, kafka::request_header_version(header.api_key, header.api_version), exchange.body());
  if (!frame.ok() || entry == nullptr) {
    // Nothing in Kafka's protocol answers these: the connection closes
    // after the responses before it (the client sees the connection go).
    spdlog::debug("Kafka request {} v{} (correlation id {}): {}; closing the connection",
                  header.api_key, header.api_version, header.correlation_id,
                  frame.ok() ? servable.message() : frame.status().message());
    exchange.finish(frame.ok() ? servable : frame.status());
    return;
  }
  exchange.set_body(frame->body);
  exchange.set_client_id(frame->header.client_id.value_or(std::string_view()));
  entry->handler->handle(exchange);
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
