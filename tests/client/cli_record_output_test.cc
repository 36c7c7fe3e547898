// How `spillway consume` prints a record: --output json (record_json.h) and
// --format (record_format.h), over ConsumerRecords built here, so every
// byte value, null key and value, headers and malformed headers are
// covered without a broker. The JSON is checked by parsing it back.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "record_format.h"
#include "record_json.h"
#include "spillway/common/scram.h"

namespace spillway::cli {
namespace {

std::span<const std::byte> bytes_of(std::string_view s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

// Headers as a RecordBatch v2 record carries them: zigzag-varint lengths
// (each of these is below 64, so one byte: 2 * length).
std::string encode_headers(const std::vector<std::pair<std::string, std::string>>& headers) {
  std::string out;
  for (const auto& [key, value] : headers) {
    out += static_cast<char>(2 * key.size());
    out += key;
    out += static_cast<char>(2 * value.size());
    out += value;
  }
  return out;
}

struct RecordStore {
  std::string key = "alice";
  std::string value = "order-1";
  std::string headers;
  ConsumerRecord record;

  RecordStore() {
    record.topic = "orders";
    record.partition = 3;
    record.offset = 42;
    record.timestamp = 1'764'668'400'123;
    refresh();
  }
  void refresh() {
    record.key = bytes_of(key);
    record.has_key = true;
    record.value = bytes_of(value);
    record.has_value = true;
    record.encoded_headers = bytes_of(headers);
  }
  void set_headers(const std::vector<std::pair<std::string, std::string>>& h) {
    headers = encode_headers(h);
    record.header_count = static_cast<int32_t>(h.size());
    refresh();
  }
};

nlohmann::json json_of(const ConsumerRecord& record) {
  std::string line;
  const Status st = append_record_json(record, &line);
  EXPECT_TRUE(st.ok()) << st.to_string();
  EXPECT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1) << "one line per record: " << line;
  return nlohmann::json::parse(line);  // throws (fails the test) unless valid JSON
}

TEST(RecordJson, CarriesEveryFieldInOrder) {
  RecordStore s;
  s.set_headers({{"trace", "42"}, {"origin", "eu"}});
  std::string line;
  ASSERT_TRUE(append_record_json(s.record, &line).ok());
  EXPECT_EQ(line,
            "{\"topic\":\"orders\",\"partition\":3,\"offset\":42,\"timestamp\":1764668400123,"
            "\"key\":\"alice\",\"value\":\"order-1\",\"headers\":[{\"key\":\"trace\",\"value\":"
            "\"42\"},{\"key\":\"origin\",\"value\":\"eu\"}]}\n");
}

TEST(RecordJson, EscapesQuotesBackslashesAndEveryControlCharacter) {
  RecordStore s;
  s.value = "say \"hi\"\\ ";
  for (int c = 0; c < 0x20; ++c) s.value += static_cast<char>(c);
  s.value += "\x7f é €";
  s.refresh();
  std::string line;
  ASSERT_TRUE(append_record_json(s.record, &line).ok());
  for (size_t i = 0; i + 1 < line.size(); ++i) {
    EXPECT_GE(static_cast<unsigned char>(line[i]), 0x20) << "raw control byte at " << i;
  }
  EXPECT_NE(line.find("\\\"hi\\\"\\\\"), std::string::npos) << line;
  EXPECT_NE(line.find("\\u0000\\u0001"), std::string::npos) << line;
  EXPECT_NE(line.find("\\n"), std::string::npos) << line;
  const nlohmann::json j = nlohmann::json::parse(line);
  EXPECT_EQ(j["value"], s.value);  // UTF-8 stays text, whatever it holds
  EXPECT_FALSE(j.contains("value_encoding"));
}

TEST(RecordJson, BytesThatAreNotUtf8AreBase64AndSaySo) {
  RecordStore s;
  s.value.clear();
  for (int b = 0; b < 256; ++b) s.value += static_cast<char>(b);
  s.key = "\xff\xfe";
  s.set_headers({{"bin", "\x80"}, {"text", "ok"}});
  const nlohmann::json j = json_of(s.record);
  EXPECT_EQ(j["value_encoding"], "base64");
  EXPECT_EQ(scram::base64_decode(j["value"].get<std::string>()), s.value);
  EXPECT_EQ(j["key_encoding"], "base64");
  EXPECT_EQ(j["key"], "//4=");
  EXPECT_EQ(j["headers"][0]["value_encoding"], "base64");
  EXPECT_EQ(j["headers"][0]["value"], "gA==");
  EXPECT_EQ(j["headers"][1]["value"], "ok");
  EXPECT_FALSE(j["headers"][1].contains("value_encoding"));
}

TEST(RecordJson, NullKeyAndValueAreNullAndEmptyIsEmpty) {
  RecordStore s;
  s.record.has_key = false;
  s.record.key = {};
  s.record.has_value = false;
  s.record.value = {};
  nlohmann::json j = json_of(s.record);
  EXPECT_TRUE(j["key"].is_null());
  EXPECT_TRUE(j["value"].is_null());
  EXPECT_EQ(j["headers"], nlohmann::json::array());
  s.value.clear();
  s.refresh();
  j = json_of(s.record);
  EXPECT_EQ(j["value"], "");
}

TEST(RecordJson, MalformedHeadersAreAnErrorAndWriteNothing) {
  RecordStore s;
  s.set_headers({{"a", "b"}});
  s.record.header_count = 2;  // one more than encoded
  std::string line = "kept";
  EXPECT_FALSE(append_record_json(s.record, &line).ok());
  EXPECT_EQ(line, "kept");
}

TEST(RecordJson, Utf8ValidityFollowsRfc3629) {
  auto utf8 = [](std::string_view s) { return is_utf8(bytes_of(s)); };
  EXPECT_TRUE(utf8(""));
  EXPECT_TRUE(utf8("plain ascii \x7f"));
  EXPECT_TRUE(utf8("\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf"));  // é € 😀 U+10FFFF
  EXPECT_FALSE(utf8("\x80"));                  // a lone continuation byte
  EXPECT_FALSE(utf8("\xc0\xaf"));              // overlong '/'
  EXPECT_FALSE(utf8("\xe0\x80\xaf"));          // overlong, three bytes
  EXPECT_FALSE(utf8("\xed\xa0\x80"));          // a UTF-16 surrogate
  EXPECT_FALSE(utf8("\xf4\x90\x80\x80"));      // above U+10FFFF
  EXPECT_FALSE(utf8("\xe2\x82"));              // cut short
  EXPECT_FALSE(utf8("\xc3\x28"));              // bad continuation
  EXPECT_FALSE(utf8("\xf8\x88\x80\x80\x80"));  // five-byte form
}

std::string render(std::string_view format, const ConsumerRecord& record) {
  Result<RecordFormat> parsed = RecordFormat::parse(format);
  EXPECT_TRUE(parsed.ok()) << format << ": " << parsed.status().to_string();
  std::string out;
  if (parsed.ok()) {
    const Status st = parsed->append(record, &out);
    EXPECT_TRUE(st.ok()) << st.to_string();
  }
  return out;
}

TEST(RecordFormat, EveryPlaceholderAndEscape) {
  RecordStore s;
  s.set_headers({{"trace", "42"}, {"origin", "eu"}});
  EXPECT_EQ(render("%t/%p@%o %T %k=%s [%h] %K %S 100%%\\n", s.record),
            "orders/3@42 1764668400123 alice=order-1 [trace=42,origin=eu] 5 7 100%\n");
  EXPECT_EQ(render("a\\tb\\rc\\\\d\\0e", s.record), std::string("a\tb\rc\\d\0e", 9));
  EXPECT_EQ(render("", s.record), "");
  EXPECT_EQ(render("no placeholders", s.record), "no placeholders");
}

TEST(RecordFormat, BinaryValuesPassThroughByteForByte) {
  RecordStore s;
  s.value.clear();
  for (int b = 0; b < 256; ++b) s.value += static_cast<char>(b);
  s.refresh();
  EXPECT_EQ(render("%s", s.record), s.value);
  EXPECT_EQ(render("%S", s.record), "256");
}

TEST(RecordFormat, NullKeyAndValuePrintNothingAndLengthMinusOne) {
  RecordStore s;
  s.record.has_key = false;
  s.record.key = {};
  s.record.has_value = false;
  s.record.value = {};
  EXPECT_EQ(render("[%k][%s] %K %S [%h]", s.record), "[][] -1 -1 []");
}

TEST(RecordFormat, UnknownPlaceholdersAndEscapesAreRefusedWithTheirName) {
  for (const char* bad : {"%x", "%s %q", "%", "value %", "\\", "\\x", "%S\\e"}) {
    Result<RecordFormat> parsed = RecordFormat::parse(bad);
    EXPECT_FALSE(parsed.ok()) << bad;
    if (!parsed.ok()) {
      EXPECT_EQ(parsed.status().code(), ErrorCode::kInvalidArgument) << bad;
    }
  }
  EXPECT_NE(std::string(RecordFormat::parse("%x").status().message()).find("%x"),
            std::string::npos);
  EXPECT_NE(std::string(RecordFormat::parse("\\q").status().message()).find("\\q"),
            std::string::npos);
}

TEST(RecordFormat, MalformedHeadersAreAnError) {
  RecordStore s;
  s.set_headers({{"a", "b"}});
  s.record.header_count = 2;
  Result<RecordFormat> parsed = RecordFormat::parse("%h");
  ASSERT_TRUE(parsed.ok());
  std::string out;
  EXPECT_EQ(parsed->append(s.record, &out).code(), ErrorCode::kCorruptMessage);
}

}  // namespace
}  // namespace spillway::cli
