// `spillway consume --output json`: one consumed record as one line of JSON
// (RFC 8259), for scripts and jq:
//
//   {"topic":"t","partition":0,"offset":7,"timestamp":1764668400000,
//    "key":"alice","value":"order-1","headers":[{"key":"trace","value":"42"}]}
//
// Keys, values and header keys and values are bytes. Bytes that are valid
// UTF-8 are written as a JSON string (escaped as RFC 8259 requires: quote,
// backslash and every control character); any others as base64 (RFC 4648,
// padded), with a sibling field "<name>_encoding":"base64" saying so. A
// null key or value is JSON null. Layout in docs/cli.md.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "spillway/common/status.h"
#include "spillway/consumer.h"

namespace spillway::cli {

// True iff `bytes` is well-formed UTF-8 (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF). The empty sequence is.
bool is_utf8(std::span<const std::byte> bytes) noexcept;

// Appends `record` as one JSON object and a '\n' to *out. Error
// (kCorruptMessage) when its encoded headers are malformed; *out is then
// unchanged.
Status append_record_json(const ConsumerRecord& record, std::string* out);

}  // namespace spillway::cli
