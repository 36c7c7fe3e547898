// Per-thread zstd contexts (see zstd_contexts.h).
#include "zstd_contexts.h"

namespace spillway::zstd {
namespace {

struct ThreadContexts {
  ZSTD_DCtx* dctx = nullptr;
  ZSTD_CCtx* cctx = nullptr;
  bool cctx_lent = false;
  ~ThreadContexts() {
    ZSTD_freeDCtx(dctx);
    if (!cctx_lent) ZSTD_freeCCtx(cctx);
  }
};

ThreadContexts& contexts() {
  thread_local ThreadContexts c;
  return c;
}

}  // namespace

ZSTD_DCtx* thread_dctx() noexcept {
  ThreadContexts& c = contexts();
  if (!c.dctx) {
    c.dctx = ZSTD_createDCtx();
    if (!c.dctx) return nullptr;
    ZSTD_DCtx_setParameter(c.dctx, ZSTD_d_windowLogMax, kWindowLogMax);
  }
  ZSTD_DCtx_reset(c.dctx, ZSTD_reset_session_only);
  return c.dctx;
}

ZSTD_CCtx* borrow_cctx() noexcept {
  ThreadContexts& c = contexts();
  if (c.cctx_lent) return ZSTD_createCCtx();
  if (!c.cctx) c.cctx = ZSTD_createCCtx();
  if (!c.cctx) return nullptr;
  c.cctx_lent = true;
  ZSTD_CCtx_reset(c.cctx, ZSTD_reset_session_and_parameters);
  return c.cctx;
}

void give_back_cctx(ZSTD_CCtx* cctx) noexcept {
  ThreadContexts& c = contexts();
  if (cctx == c.cctx && c.cctx_lent) {
    c.cctx_lent = false;
    return;
  }
  ZSTD_freeCCtx(cctx);
}

}  // namespace spillway::zstd
