// HttpResponseParser: framing decoded the same however the bytes are split,
// and every bound enforced before anything is kept.
#include "cluster/etcd/http_response_parser.h"

#include <gtest/gtest.h>

#include <string>

namespace spillway::broker::cluster::etcd {
namespace {

struct Parsed {
  Status status;
  std::string body;
  int code = 0;
  bool complete = false;
  bool keep_alive = false;
};

Parsed parse(std::string_view wire, size_t step, HttpLimits limits = {}) {
  HttpResponseParser parser(limits);
  Parsed out;
  parser.reset([&](int, std::string_view bytes) {
    out.body.append(bytes);
    return true;
  });
  for (size_t i = 0; i < wire.size() && out.status.ok(); i += step) {
    out.status = parser.feed(wire.substr(i, step));
  }
  out.code = parser.status_code();
  out.complete = parser.complete();
  out.keep_alive = parser.keep_alive();
  return out;
}

TEST(HttpResponseParser, ChunkedBodyAnySplit) {
  std::string wire =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n"
      "5\r\nhello\r\n1;ext=1\r\n \r\nA\r\n0123456789\r\n0\r\nX-Trailer: 1\r\n\r\n";
  for (size_t step : {1, 2, 3, 7, 1000}) {
    Parsed p = parse(wire, step);
    ASSERT_TRUE(p.status.ok()) << p.status.to_string();
    EXPECT_TRUE(p.complete);
    EXPECT_TRUE(p.keep_alive);
    EXPECT_EQ(p.code, 200);
    EXPECT_EQ(p.body, "hello 0123456789");
  }
}

TEST(HttpResponseParser, ContentLengthAndConnectionClose) {
  Parsed p =
      parse("HTTP/1.1 404 Not Found\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc", 4);
  ASSERT_TRUE(p.status.ok());
  EXPECT_TRUE(p.complete);
  EXPECT_FALSE(p.keep_alive);
  EXPECT_EQ(p.code, 404);
  EXPECT_EQ(p.body, "abc");
}

TEST(HttpResponseParser, RefusesOversizedAndMalformed) {
  HttpLimits limits;
  limits.max_header_bytes = 256;
  limits.max_body_bytes = 1024;
  const char* cases[] = {
      "HTTP/1.1 200 OK\r\nContent-Length: 1025\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n401\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffffff\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
      "SMTP ready\r\n\r\n",
      "HTTP/1.1 2x0 OK\r\n\r\n",
      "HTTP/1.1 200 OK\r\nNoColon\r\n\r\n",
  };
  for (const char* wire : cases) {
    Parsed p = parse(wire, 3, limits);
    EXPECT_EQ(p.status.code(), ErrorCode::kCoordinationUnavailable) << wire;
  }
  std::string long_headers = "HTTP/1.1 200 OK\r\n" + std::string(300, 'x');
  Parsed p = parse(long_headers, 50, limits);
  EXPECT_EQ(p.status.code(), ErrorCode::kCoordinationUnavailable);

  std::string long_chunk_line =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + std::string(2000, '0');
  p = parse(long_chunk_line, 100, limits);
  EXPECT_EQ(p.status.code(), ErrorCode::kCoordinationUnavailable);
}

}  // namespace
}  // namespace spillway::broker::cluster::etcd
