// A consumed record as one JSON line (record_json.h). nlohmann::json (the
// project's one JSON library, also behind the etcd gateway) does the
// escaping; this file decides how bytes become JSON values.
#include "record_json.h"

#include <nlohmann/json.hpp>
#include <string_view>

#include "spillway/common/scram.h"

namespace spillway::cli {

namespace {

using Json = nlohmann::ordered_json;  // fields in the documented order

std::string_view chars_of(std::span<const std::byte> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// Sets object[name] to the bytes as a string when they are UTF-8, else to
// their base64 with object[name + "_encoding"] = "base64".
void put_bytes(Json& object, const std::string& name, std::span<const std::byte> bytes) {
  if (is_utf8(bytes)) {
    object[name] = chars_of(bytes);
    return;
  }
  object[name] = scram::base64_encode(chars_of(bytes));
  object[name + "_encoding"] = "base64";
}

}  // namespace

bool is_utf8(std::span<const std::byte> bytes) noexcept {
  size_t i = 0;
  const size_t n = bytes.size();
  while (i < n) {
    const auto lead = static_cast<unsigned char>(bytes[i]);
    if (lead < 0x80) {
      ++i;
      continue;
    }
    // The length of the sequence and the range of its second byte, which
    // rules out overlong forms (E0, F0), surrogates (ED) and code points
    // above U+10FFFF (F4) (RFC 3629, section 4).
    size_t length;
    unsigned char low = 0x80, high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) low = 0xA0;
      if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) low = 0x90;
      if (lead == 0xF4) high = 0x8F;
    } else {
      return false;  // a continuation byte, C0, C1 or F5..FF
    }
    if (n - i < length) return false;
    const auto second = static_cast<unsigned char>(bytes[i + 1]);
    if (second < low || second > high) return false;
    for (size_t k = 2; k < length; ++k) {
      const auto next = static_cast<unsigned char>(bytes[i + k]);
      if (next < 0x80 || next > 0xBF) return false;
    }
    i += length;
  }
  return true;
}

Status append_record_json(const ConsumerRecord& record, std::string* out) {
  Json headers = Json::array();
  const Status read =
      record.for_each_header([&](std::string_view key, std::span<const std::byte> value) {
        Json header = Json::object();
        put_bytes(header, "key", std::as_bytes(std::span<const char>(key.data(), key.size())));
        put_bytes(header, "value", value);
        headers.push_back(std::move(header));
      });
  if (!read.ok()) return read;
  Json line = Json::object();
  line["topic"] = record.topic;
  line["partition"] = record.partition;
  line["offset"] = record.offset;
  line["timestamp"] = record.timestamp;
  if (record.has_key) {
    put_bytes(line, "key", record.key);
  } else {
    line["key"] = nullptr;
  }
  if (record.has_value) {
    put_bytes(line, "value", record.value);
  } else {
    line["value"] = nullptr;
  }
  line["headers"] = std::move(headers);
  // Every string put above is valid UTF-8, so dump() cannot throw.
  *out += line.dump();
  *out += '\n';
  return Status::Ok();
}

}  // namespace spillway::cli
