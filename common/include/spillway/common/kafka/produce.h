// Produce (api key 0), v3-9, flexible from v9: record batches (RecordBatch
// v2, stored verbatim) for partitions of topics. v3 is the first version
// that carries RecordBatch v2 and a transactional id. librdkafka sends one
// partition per request and expects exactly that shape back
// (/work/shared/KAFKA-INTEROP.md). Versions 10+ (current_leader and node
// endpoints in the response, KIP-951) are not served.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "spillway/common/kafka/api_keys.h"

namespace spillway::kafka {

struct ProduceRequest {
  static constexpr ApiKey kApiKey = ApiKey::kProduce;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  struct Partition {
    int32_t index = 0;
    Records records;  // nullable

    static constexpr auto fields() {
      return std::tuple{
          Field<&Partition::index>{"index"},
          Field<&Partition::records>{"records", kAllVersions, kAllVersions},
      };
    }
  };
  struct Topic {
    std::string_view name;
    Array<Partition> partition_data;

    static constexpr auto fields() {
      return std::tuple{
          Field<&Topic::name>{"name"},
          Field<&Topic::partition_data>{"partition_data"},
      };
    }
  };

  std::optional<std::string_view> transactional_id;  // v3+, nullable
  int16_t acks = 0;  // 0: no response, 1: leader, -1: all in-sync replicas
  int32_t timeout_ms = 0;
  Array<Topic> topic_data;

  static constexpr auto fields() {
    return std::tuple{
        Field<&ProduceRequest::transactional_id>{"transactional_id", since(3), since(3)},
        Field<&ProduceRequest::acks>{"acks"},
        Field<&ProduceRequest::timeout_ms>{"timeout_ms"},
        Field<&ProduceRequest::topic_data>{"topic_data"},
    };
  }
};

struct ProduceResponse {
  static constexpr ApiKey kApiKey = ApiKey::kProduce;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  // Which batch of a partition's records failed, and why (v8+).
  struct BatchIndexAndErrorMessage {
    int32_t batch_index = 0;
    std::optional<std::string_view> batch_index_error_message;  // nullable

    static constexpr auto fields() {
      return std::tuple{
          Field<&BatchIndexAndErrorMessage::batch_index>{"batch_index"},
          Field<&BatchIndexAndErrorMessage::batch_index_error_message>{"batch_index_error_message",
                                                                       kAllVersions, kAllVersions},
      };
    }
  };
  struct Partition {
    int32_t index = 0;
    int16_t error_code = 0;
    int64_t base_offset = 0;
    int64_t log_append_time_ms = -1;                 // v2+; -1 unless the topic uses LogAppendTime
    int64_t log_start_offset = -1;                   // v5+
    Array<BatchIndexAndErrorMessage> record_errors;  // v8+
    std::optional<std::string_view> error_message;   // v8+, nullable

    static constexpr auto fields() {
      return std::tuple{
          Field<&Partition::index>{"index"},
          Field<&Partition::error_code>{"error_code"},
          Field<&Partition::base_offset>{"base_offset"},
          Field<&Partition::log_append_time_ms>{"log_append_time_ms", since(2)},
          Field<&Partition::log_start_offset>{"log_start_offset", since(5)},
          Field<&Partition::record_errors>{"record_errors", since(8)},
          Field<&Partition::error_message>{"error_message", since(8), since(8)},
      };
    }
  };
  struct Topic {
    std::string_view name;
    Array<Partition> partition_responses;

    static constexpr auto fields() {
      return std::tuple{
          Field<&Topic::name>{"name"},
          Field<&Topic::partition_responses>{"partition_responses"},
      };
    }
  };

  Array<Topic> responses;
  int32_t throttle_time_ms = 0;  // v1+

  static constexpr auto fields() {
    return std::tuple{
        Field<&ProduceResponse::responses>{"responses"},
        Field<&ProduceResponse::throttle_time_ms>{"throttle_time_ms", since(1)},
    };
  }
};

}  // namespace spillway::kafka
