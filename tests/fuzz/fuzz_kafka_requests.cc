// libFuzzer target for the Kafka listener's decoders: the request header
// (decode_request_header) and every request body described in kafka/*.h, in
// every version the description covers, on arbitrary bytes.
//
// Input layout: byte 0 picks the request type, byte 1 the version (modulo
// the type's range), the rest is the body. Each input is also tried as a
// whole frame through decode_request_header, and, when that succeeds, its
// body through the decoder the header names — as the broker does.
//
// Besides "no crash, no sanitizer report", it checks that whatever decodes
// re-encodes to a body of exactly encoded_size bytes, and that this body
// decodes again and re-encodes to the same bytes (the codec is its own
// inverse on everything it accepts).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

#include "spillway/common/kafka/header.h"
#include "spillway/common/kafka/requests.h"
#include "spillway/common/write_buffer.h"

namespace {

using namespace spillway;
using namespace spillway::kafka;

void check(bool ok) {
  if (!ok) std::abort();  // an invariant broke: libFuzzer reports the input
}

std::vector<std::byte> encode_body(const auto& request, const wire::Context& c) {
  std::array<std::byte, 256> scratch;
  WriteBuffer out{std::span<std::byte>(scratch)};
  check(wire::encode(request, c, out).ok());
  std::vector<std::byte> bytes(out.bytes_written());
  out.copy_to(bytes);
  check(bytes.size() == wire::encoded_size(request, c));
  return bytes;
}

template <typename Request>
void try_decode(std::span<const std::byte> body, int16_t version) {
  const wire::Context c = context<Request>(version);
  Result<Request> decoded = wire::decode<Request>(body, c, "fuzz");
  if (!decoded.ok()) return;
  const std::vector<std::byte> once = encode_body(*decoded, c);
  Result<Request> again = wire::decode<Request>(once, c, "fuzz again");
  check(again.ok());
  check(encode_body(*again, c) == once);
}

using Decoder = void (*)(std::span<const std::byte>, int16_t);

struct Entry {
  ApiKey key;
  wire::Versions versions;
  Decoder decode;
};

// The described request types, as a table to pick from by input byte.
std::vector<Entry> make_table() {
  std::vector<Entry> table;
  for_each_request_type([&]<typename Request>() {
    table.push_back({Request::kApiKey, Request::kVersions, &try_decode<Request>});
  });
  return table;
}

const std::vector<Entry> kRequests = make_table();

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const std::byte> input(reinterpret_cast<const std::byte*>(data), size);

  // As a whole frame: header, then the body the header names.
  if (Result<RequestFrame> frame = decode_request_header(input); frame.ok()) {
    check(frame->body.data() >= input.data() &&
          frame->body.data() + frame->body.size() <= input.data() + input.size());
    for (const Entry& e : kRequests) {
      if (static_cast<int16_t>(e.key) == frame->header.request_api_key &&
          e.versions.has(frame->header.request_api_version)) {
        e.decode(frame->body, frame->header.request_api_version);
      }
    }
  }

  // As a body of a chosen type and version.
  if (size < 2) return 0;
  const Entry& e = kRequests[data[0] % std::size(kRequests)];
  const int span = e.versions.last - e.versions.first + 1;
  const int16_t version = static_cast<int16_t>(e.versions.first + data[1] % span);
  e.decode(input.subspan(2), version);
  return 0;
}
