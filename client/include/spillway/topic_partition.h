// A topic's partition, as consumer group assignments name them.
#pragma once

#include <compare>
#include <cstdint>
#include <string>

namespace spillway {

struct TopicPartition {
  std::string topic;
  int32_t partition = 0;
  friend auto operator<=>(const TopicPartition&, const TopicPartition&) = default;
  friend bool operator==(const TopicPartition&, const TopicPartition&) = default;
};

}  // namespace spillway
