// The native protocol's bodies are descriptions (wire/schema.h) encoded in
// one context: version 0, never flexible (docs/protocol.md, "Conventions").
// Each message header in this directory describes its structs once; the
// decode_*/encode_* functions are that description run one way or the
// other, for the broker, the client and the tests alike.
#pragma once

#include "spillway/common/wire/codec.h"

namespace spillway::messages {

using wire::Array;
using wire::ErrorText;
using wire::Field;
using wire::Records;

inline constexpr wire::Context kNative{0, false};

// Error results carry an i16 on the wire; unknown numbers pass through.
inline ErrorCode error_code_from_wire(int16_t v) noexcept {
  return static_cast<ErrorCode>(v);
}

}  // namespace spillway::messages
