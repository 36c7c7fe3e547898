// Body codec of InitProducerId (api key 9), version 0: an idempotent
// producer's id and epoch, asked for once per producer session before its
// first produce. Errors travel in the response frame, as for every native
// request. Layout in docs/protocol.md ("InitProducerId").
#pragma once

#include <cstdint>
#include <span>

#include "spillway/common/messages/native.h"

namespace spillway::messages {

inline constexpr int16_t kInitProducerIdVersion = 0;

struct InitProducerIdRequest {
  // The id and epoch the producer had, -1 for none. Reserved for an epoch
  // bump; version 0 always hands out a new id with epoch 0 (what Kafka does
  // for a producer without a transactional id).
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;

  static constexpr auto fields() {
    return std::tuple{
        Field<&InitProducerIdRequest::producer_id>{"producer_id"},
        Field<&InitProducerIdRequest::producer_epoch>{"producer_epoch"},
    };
  }
};

struct InitProducerIdResponse {
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;

  static constexpr auto fields() {
    return std::tuple{
        Field<&InitProducerIdResponse::producer_id>{"producer_id"},
        Field<&InitProducerIdResponse::producer_epoch>{"producer_epoch"},
    };
  }
};

Result<InitProducerIdRequest> decode_init_producer_id_request(std::span<const std::byte> body);
Status encode_init_producer_id_request(const InitProducerIdRequest& request,
                                       WriteBuffer& out) noexcept;
Result<InitProducerIdResponse> decode_init_producer_id_response(std::span<const std::byte> body);
Status encode_init_producer_id_response(const InitProducerIdResponse& response,
                                        WriteBuffer& out) noexcept;

}  // namespace spillway::messages
