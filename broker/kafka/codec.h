// Decoding a Kafka request body and encoding its response in the version
// the request header named: one place for the context (flexible or not)
// and the error a malformed body gets.
#pragma once

#include "protocol/exchange.h"
#include "spillway/common/kafka/api_keys.h"
#include "spillway/common/wire/codec.h"

namespace spillway::broker::kafka_listener {

// The request body of `exchange` as a `Request`, in the request's version.
// Error (kCorruptMessage naming the field): Kafka has no way to answer a
// body it cannot read; finishing with it closes the connection.
template <typename Request>
Result<Request> decode_request(const Exchange& exchange) {
  const int16_t version = exchange.header().api_version;
  return wire::decode<Request>(exchange.body(), kafka::context<Request>(version),
                               kafka::api_info(Request::kApiKey).name);
}

// Encodes `response` in the request's version and finishes the exchange.
template <typename Response>
void respond(Exchange& exchange, const Response& response) {
  const int16_t version = exchange.header().api_version;
  exchange.finish(wire::encode(response, kafka::context<Response>(version), exchange.out()));
}

}  // namespace spillway::broker::kafka_listener
