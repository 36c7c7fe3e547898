// The kcat-style record format of `spillway consume --format` (record_format.h).
#include "record_format.h"

namespace spillway::cli {

namespace {

void append_bytes(std::span<const std::byte> bytes, std::string* out) {
  out->append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

}  // namespace

Result<RecordFormat> RecordFormat::parse(std::string_view format) {
  RecordFormat parsed;
  auto literal = [&](char c) {
    if (parsed.pieces_.empty() || parsed.pieces_.back().field != Field::kLiteral) {
      parsed.pieces_.push_back({});
    }
    parsed.pieces_.back().literal += c;
  };
  for (size_t i = 0; i < format.size(); ++i) {
    const char c = format[i];
    if (c != '%' && c != '\\') {
      literal(c);
      continue;
    }
    if (i + 1 == format.size()) {
      return Status(ErrorCode::kInvalidArgument,
                    std::string("the format ends in a lone '") + c + "' (write " +
                        (c == '%' ? "%% for a literal %" : "\\\\ for a literal \\") + ")");
    }
    const char next = format[++i];
    if (c == '\\') {
      switch (next) {
        case 'n':
          literal('\n');
          break;
        case 't':
          literal('\t');
          break;
        case 'r':
          literal('\r');
          break;
        case '0':
          literal('\0');
          break;
        case '\\':
          literal('\\');
          break;
        default:
          return Status(ErrorCode::kInvalidArgument,
                        std::string("unknown escape \\") + next + " (known: \\n \\t \\r \\0 \\\\)");
      }
      continue;
    }
    Field field;
    switch (next) {
      case '%':
        literal('%');
        continue;
      case 't':
        field = Field::kTopic;
        break;
      case 'p':
        field = Field::kPartition;
        break;
      case 'o':
        field = Field::kOffset;
        break;
      case 'T':
        field = Field::kTimestamp;
        break;
      case 'k':
        field = Field::kKey;
        break;
      case 's':
        field = Field::kValue;
        break;
      case 'h':
        field = Field::kHeaders;
        break;
      case 'K':
        field = Field::kKeyLength;
        break;
      case 'S':
        field = Field::kValueLength;
        break;
      default:
        return Status(ErrorCode::kInvalidArgument, std::string("unknown placeholder %") + next +
                                                       " (known: %t %p %o %T %k %s %h %K %S %%)");
    }
    parsed.pieces_.push_back({.field = field, .literal = {}});
  }
  return parsed;
}

Status RecordFormat::append(const ConsumerRecord& record, std::string* out) const {
  for (const Piece& piece : pieces_) {
    switch (piece.field) {
      case Field::kLiteral:
        *out += piece.literal;
        break;
      case Field::kTopic:
        *out += record.topic;
        break;
      case Field::kPartition:
        *out += std::to_string(record.partition);
        break;
      case Field::kOffset:
        *out += std::to_string(record.offset);
        break;
      case Field::kTimestamp:
        *out += std::to_string(record.timestamp);
        break;
      case Field::kKey:
        append_bytes(record.key, out);
        break;
      case Field::kValue:
        append_bytes(record.value, out);
        break;
      case Field::kKeyLength:
        *out += record.has_key ? std::to_string(record.key.size()) : "-1";
        break;
      case Field::kValueLength:
        *out += record.has_value ? std::to_string(record.value.size()) : "-1";
        break;
      case Field::kHeaders: {
        bool first = true;
        const Status read =
            record.for_each_header([&](std::string_view key, std::span<const std::byte> value) {
              if (!first) *out += ',';
              first = false;
              *out += key;
              *out += '=';
              append_bytes(value, out);
            });
        if (!read.ok()) return read;
        break;
      }
    }
  }
  return Status::Ok();
}

}  // namespace spillway::cli
