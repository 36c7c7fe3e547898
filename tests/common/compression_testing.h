// Compressors for tests, written the way Kafka clients write each codec's
// records block, using the codec libraries directly:
//   gzip   - one gzip member (deflateInit2 with windowBits 15+16), as
//            librdkafka and Java's GZIPOutputStream write.
//   snappy - raw (librdkafka's producer: one snappy block over the whole
//            records block) and snappy-java framed (the Java client: magic,
//            versions 1/1, then [int32 length, raw chunk] per 32 KiB).
//   lz4    - one LZ4 frame with independent blocks and 64 KiB block size
//            (librdkafka and Java's KafkaLZ4BlockOutputStream), or any
//            other frame parameters.
// Plus streaming "bomb" builders that emit prefix + n zeros + suffix
// without materialising the zeros. Allocation is fine here.
#pragma once

#include <lz4frame.h>
#include <snappy-c.h>
#include <zlib.h>

#include <cstring>
#include <stdexcept>

#include "batch_testing.h"

namespace spillway::testing {

inline Bytes gzip_compress(const Bytes& in, int level = Z_DEFAULT_COMPRESSION) {
  z_stream zs{};
  if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("deflateInit2");
  }
  Bytes out(deflateBound(&zs, static_cast<uLong>(in.size())) + 64);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  if (deflate(&zs, Z_FINISH) != Z_STREAM_END) throw std::runtime_error("deflate");
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

inline Bytes snappy_raw_compress(const Bytes& in) {
  std::size_t n = snappy_max_compressed_length(in.size());
  Bytes out(n);
  if (snappy_compress(reinterpret_cast<const char*>(in.data()), in.size(),
                      reinterpret_cast<char*>(out.data()), &n) != SNAPPY_OK) {
    throw std::runtime_error("snappy_compress");
  }
  out.resize(n);
  return out;
}

inline void put_be32(Bytes& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<std::byte>(v >> shift));
}

inline Bytes snappy_java_header() {
  Bytes out = bytes_of(std::string_view("\x82SNAPPY\0", 8));
  put_be32(out, 1);  // version
  put_be32(out, 1);  // compatible version
  return out;
}

inline void append_snappy_java_chunk(Bytes& out, const Bytes& raw) {
  put_be32(out, static_cast<uint32_t>(raw.size()));
  out.insert(out.end(), raw.begin(), raw.end());
}

inline Bytes snappy_java_compress(const Bytes& in, std::size_t chunk = 32 * 1024) {
  Bytes out = snappy_java_header();
  for (std::size_t pos = 0; pos < in.size(); pos += chunk) {
    const std::size_t n = std::min(chunk, in.size() - pos);
    append_snappy_java_chunk(
        out, snappy_raw_compress(Bytes(in.begin() + static_cast<std::ptrdiff_t>(pos),
                                       in.begin() + static_cast<std::ptrdiff_t>(pos + n))));
  }
  return out;
}

inline LZ4F_preferences_t kafka_lz4_preferences() {
  LZ4F_preferences_t p{};
  p.frameInfo.blockSizeID = LZ4F_max64KB;
  p.frameInfo.blockMode = LZ4F_blockIndependent;
  return p;
}

inline Bytes lz4_compress(const Bytes& in, LZ4F_preferences_t prefs = kafka_lz4_preferences()) {
  Bytes out(LZ4F_compressFrameBound(in.size(), &prefs));
  const std::size_t n = LZ4F_compressFrame(out.data(), out.size(), in.data(), in.size(), &prefs);
  if (LZ4F_isError(n)) throw std::runtime_error(LZ4F_getErrorName(n));
  out.resize(n);
  return out;
}

// prefix + `zeros` zero bytes + suffix, gzip-compressed in one member,
// streamed so the zeros never exist in memory at once.
inline Bytes gzip_bomb(const Bytes& prefix, std::size_t zeros, const Bytes& suffix) {
  z_stream zs{};
  deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY);
  Bytes out, buf(1 << 16);
  const Bytes zero_chunk(1 << 20, std::byte{0});
  auto feed = [&](const std::byte* p, std::size_t n, int flush) {
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(p));
    zs.avail_in = static_cast<uInt>(n);
    do {
      zs.next_out = reinterpret_cast<Bytef*>(buf.data());
      zs.avail_out = static_cast<uInt>(buf.size());
      deflate(&zs, flush);
      out.insert(out.end(), buf.begin(),
                 buf.begin() + static_cast<std::ptrdiff_t>(buf.size() - zs.avail_out));
    } while (zs.avail_in > 0 || zs.avail_out == 0);
  };
  feed(prefix.data(), prefix.size(), Z_NO_FLUSH);
  for (std::size_t left = zeros; left > 0;) {
    const std::size_t n = std::min(left, zero_chunk.size());
    feed(zero_chunk.data(), n, Z_NO_FLUSH);
    left -= n;
  }
  feed(suffix.data(), suffix.size(), Z_FINISH);
  deflateEnd(&zs);
  return out;
}

// The same as an LZ4 frame with 4 MiB blocks.
inline Bytes lz4_bomb(const Bytes& prefix, std::size_t zeros, const Bytes& suffix) {
  LZ4F_cctx* cctx = nullptr;
  LZ4F_createCompressionContext(&cctx, LZ4F_VERSION);
  LZ4F_preferences_t prefs{};
  prefs.frameInfo.blockSizeID = LZ4F_max4MB;
  const Bytes zero_chunk(1 << 20, std::byte{0});
  Bytes buf(LZ4F_compressBound(zero_chunk.size(), &prefs) + 64), out;
  auto append = [&](std::size_t n) {
    if (LZ4F_isError(n)) throw std::runtime_error(LZ4F_getErrorName(n));
    out.insert(out.end(), buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n));
  };
  append(LZ4F_compressBegin(cctx, buf.data(), buf.size(), &prefs));
  append(LZ4F_compressUpdate(cctx, buf.data(), buf.size(), prefix.data(), prefix.size(), nullptr));
  for (std::size_t left = zeros; left > 0;) {
    const std::size_t n = std::min(left, zero_chunk.size());
    append(LZ4F_compressUpdate(cctx, buf.data(), buf.size(), zero_chunk.data(), n, nullptr));
    left -= n;
  }
  append(LZ4F_compressUpdate(cctx, buf.data(), buf.size(), suffix.data(), suffix.size(), nullptr));
  append(LZ4F_compressEnd(cctx, buf.data(), buf.size(), nullptr));
  LZ4F_freeCompressionContext(cctx);
  return out;
}

// The same in snappy-java framing, 1 MiB per chunk (the all-zero middle
// chunk is compressed once and repeated).
inline Bytes snappy_java_bomb(const Bytes& prefix, std::size_t zeros, const Bytes& suffix) {
  constexpr std::size_t kChunk = 1 << 20;
  Bytes out = snappy_java_header();
  append_snappy_java_chunk(out, snappy_raw_compress(prefix));
  const Bytes zero_chunk = snappy_raw_compress(Bytes(kChunk, std::byte{0}));
  for (std::size_t left = zeros; left > 0;) {
    const std::size_t n = std::min(left, kChunk);
    append_snappy_java_chunk(
        out, n == kChunk ? zero_chunk : snappy_raw_compress(Bytes(n, std::byte{0})));
    left -= n;
  }
  append_snappy_java_chunk(out, snappy_raw_compress(suffix));
  return out;
}

}  // namespace spillway::testing
