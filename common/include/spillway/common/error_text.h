// The form of an error message that may leave the broker (docs/protocol.md,
// "Error messages"). Messages are built from whatever caused the error:
// client-supplied names (any bytes), storage errors that name files under
// the data directory. Before a message goes on the wire it is made safe:
//
// - every absolute path (a token that starts with '/' at the start of the
//   message or after a space, quote, '(', '[', '<' or '=', up to whitespace,
//   a quote, ':', ',', ';', ')', ']' or '>') is shortened to its last
//   component: "pwrite /srv/data/topics/t/0/00000000000000000000.log: ..."
//   becomes "pwrite 00000000000000000000.log: ...", so the server's layout
//   never reaches a client (the broker's log keeps the full path);
// - every byte that is not printable ASCII or part of a well-formed,
//   printable UTF-8 sequence (controls, DEL, C1 controls, invalid or
//   overlong sequences, surrogates) is written as \xNN, so a message is one
//   line of valid UTF-8 whatever the client sent;
// - the result is cut, at a piece boundary and marked "...", to
//   kMaxErrorTextBytes.
//
// Nothing here allocates except error_text().
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace spillway {

// Longest safe error text sent (the frame-level error body has the same
// limit, frame::kMaxErrorMessageBytes).
inline constexpr size_t kMaxErrorTextBytes = 1024;

// Calls emit(ctx, piece) with consecutive pieces of the safe form of
// `message` (their concatenation is the whole safe form) and returns its
// size. emit may be null (only the size is computed).
size_t write_error_text(std::string_view message, void (*emit)(void* ctx, std::string_view piece),
                        void* ctx) noexcept;

// The safe form as a string (tests, logs).
std::string error_text(std::string_view message);

}  // namespace spillway
