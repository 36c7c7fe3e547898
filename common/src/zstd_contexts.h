// Per-thread zstd contexts, created on first use and reused, so that
// compressing and decompressing batches allocates nothing in the steady
// state. Private to spillway_common.
#pragma once

#include <zstd.h>

namespace spillway::zstd {

// Largest zstd window (log2 bytes) we accept when decompressing: 8 MiB. A
// frame that asks for more is rejected instead of making us allocate it.
constexpr int kWindowLogMax = 23;

// This thread's decompression context, reset for a new stream; nullptr only
// if zstd could not allocate it. Valid until the thread exits; do not keep
// it across calls that may decompress on this thread.
ZSTD_DCtx* thread_dctx() noexcept;

// A compression context lent to one builder at a time. The thread's cached
// context is handed out when free; a second concurrent borrower on the same
// thread gets a fresh one (allocated, rare). Returns nullptr on allocation
// failure. Every borrowed context must go back through give_back_cctx.
ZSTD_CCtx* borrow_cctx() noexcept;
void give_back_cctx(ZSTD_CCtx* cctx) noexcept;

}  // namespace spillway::zstd
