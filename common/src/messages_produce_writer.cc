// ProduceRequestWriter: the Produce request body written incrementally (see
// messages/produce_writer.h).
#include <cassert>

#include "spillway/common/messages/produce_writer.h"

namespace spillway::messages {

ProduceRequestWriter::ProduceRequestWriter(WriteBuffer& out, Acks acks, int32_t timeout_ms) noexcept
    : w_(out) {
  w_.i8(static_cast<int8_t>(acks));
  w_.i32(timeout_ms);
  topic_count_pos_ = w_.position();
  w_.i32(0);
}

void ProduceRequestWriter::end_topic() noexcept {
  if (topic_count_ > 0) w_.patch_i32(partition_count_pos_, partition_count_);
}

void ProduceRequestWriter::begin_topic(std::string_view name) noexcept {
  if (!ok()) return;
  end_topic();
  ++topic_count_;
  partition_count_ = 0;
  wire::write_value(w_, name, kNative, false);
  partition_count_pos_ = w_.position();
  w_.i32(0);
}

void ProduceRequestWriter::begin_partition(int32_t partition) noexcept {
  assert(topic_count_ > 0);
  if (!ok()) return;
  ++partition_count_;
  w_.i32(partition);
  batch_length_pos_ = w_.position();
  w_.i32(0);  // the batch's length, patched by end_partition()
}

void ProduceRequestWriter::end_partition() noexcept {
  if (!ok()) return;
  const uint64_t length = w_.position() - batch_length_pos_ - sizeof(int32_t);
  if (length > static_cast<uint64_t>(INT32_MAX)) {
    too_large_ = Status(ErrorCode::kInvalidArgument, "record batch longer than 2 GiB");
    return;
  }
  w_.patch_i32(batch_length_pos_, static_cast<int32_t>(length));
}

Status ProduceRequestWriter::finish() noexcept {
  if (ok()) {
    end_topic();
    w_.patch_i32(topic_count_pos_, topic_count_);
  }
  return status();
}

}  // namespace spillway::messages
