// CRC-32C (Castagnoli), the checksum of Kafka RecordBatch v2 and of our
// on-disk format (docs/storage-format.md). One entry point, `crc32c`, picks
// (once, at first call) carry-less multiplication folding where the CPU has
// AVX-512 VPCLMULQDQ, else the SSE4.2 instruction, else a table-driven
// portable path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace spillway {

// CRC-32C of `data`, continuing from `crc`, the value a previous call
// returned for the bytes before `data` (0 to start). So
//   crc32c(b, crc32c(a)) == crc32c(a ++ b)
// which lets callers checksum a batch that sits in several segments.
// Never allocates; safe from any thread.
uint32_t crc32c(std::span<const std::byte> data, uint32_t crc = 0) noexcept;

// The two implementations behind `crc32c`, exposed so tests and benchmarks
// can check each one. Same contract as `crc32c`.
uint32_t crc32c_portable(std::span<const std::byte> data, uint32_t crc = 0) noexcept;
// Precondition: crc32c_hardware_available().
uint32_t crc32c_hardware(std::span<const std::byte> data, uint32_t crc = 0) noexcept;

// True iff this CPU has the SSE4.2 CRC32 instruction (x86-64 only).
bool crc32c_hardware_available() noexcept;

// Carry-less multiplication folding over 256-byte blocks (AVX-512
// VPCLMULQDQ), the crc32 instruction for the rest: 1.8x (256 KiB) to 4.3x
// (1 KiB) the speed of crc32c_hardware on this project's test machine
// (common_bench). Same contract as `crc32c`.
// Precondition: crc32c_folding_available().
uint32_t crc32c_folding(std::span<const std::byte> data, uint32_t crc = 0) noexcept;

// True iff this CPU (and the kernel, for the 512-bit registers) supports
// crc32c_folding.
bool crc32c_folding_available() noexcept;

}  // namespace spillway
