// `spillway consume --format FORMAT`: each record printed through a
// kcat-style format string (kcat -f). Placeholders:
//
//   %t topic     %p partition     %o offset     %T timestamp (ms since the epoch)
//   %k key       %s value         %h headers as name=value,name=value
//   %K key length (-1 for a null key)   %S value length (-1 for a null value)
//   %% a literal %
//
// and the escapes \n, \t, \r, \0 and \\. Keys, values and headers are
// written as their raw bytes, so "%s" round-trips binary values. A null key
// or value prints as nothing. Anything else after % or \ is an error when
// the format is parsed, so a typo is a usage error, not silent output.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/common/status.h"
#include "spillway/consumer.h"

namespace spillway::cli {

class RecordFormat {
 public:
  // Parses `format`. Error kInvalidArgument naming the unknown placeholder
  // or escape (or a trailing lone % or \).
  static Result<RecordFormat> parse(std::string_view format);

  // Appends `record` rendered through the format to *out. Error
  // (kCorruptMessage) only when %h meets malformed headers; *out then holds
  // what was rendered before them.
  Status append(const ConsumerRecord& record, std::string* out) const;

 private:
  enum class Field : uint8_t {
    kLiteral,
    kTopic,
    kPartition,
    kOffset,
    kTimestamp,
    kKey,
    kValue,
    kHeaders,
    kKeyLength,
    kValueLength,
  };
  struct Piece {
    Field field = Field::kLiteral;
    std::string literal;  // text of a kLiteral piece
  };

  std::vector<Piece> pieces_;
};

}  // namespace spillway::cli
