// libFuzzer target for the SASL bytes a broker or client takes from an
// unauthenticated peer, and the credential file the broker reads at start:
// SCRAM's four messages (RFC 5802), base64 and saslname unescaping, and
// decode_credentials. Byte 0 picks the parser, the rest is its input.
//
// Besides "no crash, no sanitizer report": what parses must survive the
// round trip its builder defines (a client-first message rebuilt from its
// user and nonce parses to the same user and nonce; decoded base64 bytes
// survive an encode and a decode; decoded credentials re-encode to bytes
// that decode to the same users).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "spillway/common/credential_file.h"
#include "spillway/common/scram.h"

namespace {

using namespace spillway;

void check(bool ok) {
  if (!ok) std::abort();  // an invariant broke: libFuzzer reports the input
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 7) {
    case 0: {
      auto first = scram::parse_client_first(input);
      if (first.ok() && first->gs2_header == "n,,") {
        auto again =
            scram::parse_client_first(scram::client_first_message(first->user, first->nonce));
        check(again.ok() && again->user == first->user && again->nonce == first->nonce);
      }
      break;
    }
    case 1: {
      auto server_first = scram::parse_server_first(input);
      if (server_first.ok()) check(server_first->iterations > 0);
      break;
    }
    case 2:
      (void)scram::parse_client_final(input);
      break;
    case 3:
      (void)scram::parse_server_final(input);
      break;
    case 4: {
      // The decoder accepts a final character whose unused bits are set
      // (RFC 4648 allows either), so the text is not a fixed point; the
      // bytes are.
      auto bytes = scram::base64_decode(input);
      if (bytes) check(scram::base64_decode(scram::base64_encode(*bytes)) == bytes);
      break;
    }
    case 5: {
      auto name = scram::unescape_name(input);
      if (name) check(scram::unescape_name(scram::escape_name(*name)) == name);
      break;
    }
    default: {
      auto users = scram::decode_credentials(input);
      if (users.ok()) {
        auto again = scram::decode_credentials(scram::encode_credentials(*users));
        check(again.ok() && again->size() == users->size());
        for (size_t i = 0; i < users->size(); ++i) check((*again)[i].user == (*users)[i].user);
      }
      break;
    }
  }
  return 0;
}
