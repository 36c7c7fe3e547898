/* NATS JetStream peer of bench/compare (libnats, file storage).
 *
 *   nats_bench URL produce SIZE SECONDS [MAX_PENDING]
 *       (re)creates stream BENCH (subject bench.data, file storage) and
 *       publishes with js_PublishAsync for SECONDS, at most MAX_PENDING
 *       (default 4096) acks outstanding, then waits for every ack.
 *   nats_bench URL consume SIZE
 *       reads the whole stream back through a pull consumer (AckNone),
 *       fetching 1000 at a time.
 *   nats_bench URL latency SIZE RATE SECONDS
 *       fresh stream; a push consumer (AckNone, deliver new) records, for
 *       every message, receipt time minus the message's intended send time;
 *       the publisher sends message k at start + k/RATE with js_PublishAsync.
 * Prints RESULT lines (see bench_util.h). */
#include <nats/nats.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

static const char* kSubject = "bench.data";

static void die(const char* what, natsStatus s, jsErrCode jerr) {
  fprintf(stderr, "nats_bench: %s: %s (jetstream error %d) %s\n", what, natsStatus_GetText(s),
          (int)jerr, nats_GetLastError(NULL) ? nats_GetLastError(NULL) : "");
  exit(1);
}

static void connect_js(const char* url, natsConnection** nc, jsCtx** js, int64_t max_pending) {
  natsStatus s = natsConnection_ConnectTo(nc, url);
  if (s != NATS_OK) die("connect", s, 0);
  jsOptions o;
  jsOptions_Init(&o);
  o.PublishAsync.MaxPending = max_pending;
  o.Wait = 30000;
  s = natsConnection_JetStream(js, *nc, &o);
  if (s != NATS_OK) die("jetstream context", s, 0);
}

static void fresh_stream(jsCtx* js) {
  jsErrCode jerr = 0;
  js_DeleteStream(js, "BENCH", NULL, &jerr); /* absent is fine */
  jsStreamConfig cfg;
  jsStreamConfig_Init(&cfg);
  cfg.Name = "BENCH";
  cfg.Subjects = &kSubject;
  cfg.SubjectsLen = 1;
  cfg.Storage = js_FileStorage;
  jsStreamInfo* si = NULL;
  natsStatus s = js_AddStream(&si, js, &cfg, NULL, &jerr);
  if (s != NATS_OK) die("add stream", s, jerr);
  jsStreamInfo_Destroy(si);
}

static int produce(const char* url, size_t size, double seconds, int64_t max_pending) {
  natsConnection* nc = NULL;
  jsCtx* js = NULL;
  connect_js(url, &nc, &js, max_pending);
  fresh_stream(js);
  char* payload = malloc(size);
  memset(payload, 'x', size);
  uint64_t sent = 0;
  const uint64_t start = bench_now_ns();
  const uint64_t end = start + (uint64_t)(seconds * 1e9);
  while ((sent & 255) != 0 || bench_now_ns() < end) {
    natsStatus s = js_PublishAsync(js, kSubject, payload, (int)size, NULL);
    if (s != NATS_OK) die("publish", s, 0);
    ++sent;
  }
  jsPubOptions po;
  jsPubOptions_Init(&po);
  po.MaxWait = 60000;
  natsStatus s = js_PublishAsyncComplete(js, &po);
  if (s != NATS_OK) die("publish complete", s, 0);
  bench_print_rate("produce", sent, size, bench_now_ns() - start);
  free(payload);
  jsCtx_Destroy(js);
  natsConnection_Destroy(nc);
  return 0;
}

static int consume(const char* url, size_t size) {
  natsConnection* nc = NULL;
  jsCtx* js = NULL;
  connect_js(url, &nc, &js, 4096);
  jsErrCode jerr = 0;
  jsStreamInfo* si = NULL;
  natsStatus s = js_GetStreamInfo(&si, js, "BENCH", NULL, &jerr);
  if (s != NATS_OK) die("stream info", s, jerr);
  const uint64_t total = si->State.Msgs;
  jsStreamInfo_Destroy(si);
  jsSubOptions so;
  jsSubOptions_Init(&so);
  so.Config.AckPolicy = js_AckNone;
  so.Config.DeliverPolicy = js_DeliverAll;
  so.Config.MaxRequestBatch = 1000;
  natsSubscription* sub = NULL;
  s = js_PullSubscribe(&sub, js, kSubject, NULL, NULL, &so, &jerr);
  if (s != NATS_OK) die("pull subscribe", s, jerr);
  uint64_t got = 0, bytes = 0;
  const uint64_t start = bench_now_ns();
  while (got < total) {
    natsMsgList list = {0};
    s = natsSubscription_Fetch(&list, sub, 1000, 5000, &jerr);
    if (s != NATS_OK) die("fetch", s, jerr);
    for (int i = 0; i < list.Count; ++i) bytes += (uint64_t)natsMsg_GetDataLength(list.Msgs[i]);
    got += (uint64_t)list.Count;
    natsMsgList_Destroy(&list);
  }
  bench_print_rate("consume", got, size, bench_now_ns() - start);
  natsSubscription_Destroy(sub);
  jsCtx_Destroy(js);
  natsConnection_Destroy(nc);
  return 0;
}

typedef struct {
  bench_samples samples;
} latency_run;

static void on_message(natsConnection* nc, natsSubscription* sub, natsMsg* msg, void* closure) {
  (void)nc, (void)sub;
  latency_run* run = closure;
  const uint64_t now = bench_now_ns();
  if (natsMsg_GetDataLength(msg) >= 8) {
    bench_samples_add(&run->samples, now - bench_read_stamp(natsMsg_GetData(msg)));
  }
  natsMsg_Destroy(msg);
}

static int latency(const char* url, size_t size, uint64_t rate, double seconds) {
  natsConnection* nc = NULL;
  jsCtx* js = NULL;
  connect_js(url, &nc, &js, 4096);
  fresh_stream(js);
  latency_run run;
  const uint64_t total = (uint64_t)(seconds * (double)rate);
  bench_samples_init(&run.samples, total);
  /* The consumer has its own connection, as a separate process would. */
  natsConnection* cnc = NULL;
  jsCtx* cjs = NULL;
  connect_js(url, &cnc, &cjs, 4096);
  jsSubOptions so;
  jsSubOptions_Init(&so);
  so.Config.AckPolicy = js_AckNone;
  so.Config.DeliverPolicy = js_DeliverNew;
  natsSubscription* sub = NULL;
  jsErrCode jerr = 0;
  natsStatus s = js_Subscribe(&sub, cjs, kSubject, on_message, &run, NULL, &so, &jerr);
  if (s != NATS_OK) die("subscribe", s, jerr);
  natsSubscription_SetPendingLimits(sub, -1, -1);
  char* payload = malloc(size);
  memset(payload, 'x', size);
  const uint64_t start = bench_now_ns() + 20000000;
  for (uint64_t k = 0; k < total; ++k) {
    const uint64_t due = bench_intended_ns(start, k, rate);
    bench_wait_until(due);
    bench_stamp(payload, due);
    s = js_PublishAsync(js, kSubject, payload, (int)size, NULL);
    if (s != NATS_OK) die("publish", s, 0);
  }
  jsPubOptions po;
  jsPubOptions_Init(&po);
  po.MaxWait = 60000;
  js_PublishAsyncComplete(js, &po);
  const uint64_t deadline = bench_now_ns() + 10000000000ull;
  while (run.samples.count < total && bench_now_ns() < deadline) nats_Sleep(5);
  natsSubscription_Unsubscribe(sub);
  natsSubscription_Destroy(sub);
  bench_print_latency(&run.samples, total);
  free(payload);
  jsCtx_Destroy(cjs);
  natsConnection_Destroy(cnc);
  jsCtx_Destroy(js);
  natsConnection_Destroy(nc);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: nats_bench URL produce|consume|latency SIZE [RATE] [SECONDS]\n");
    return 2;
  }
  const size_t size = (size_t)atol(argv[3]);
  if (size < 8) {
    fprintf(stderr, "nats_bench: SIZE must be at least 8\n");
    return 2;
  }
  int rc = 2;
  if (strcmp(argv[2], "produce") == 0 && (argc == 5 || argc == 6)) {
    rc = produce(argv[1], size, atof(argv[4]), argc == 6 ? atoll(argv[5]) : 4096);
  } else if (strcmp(argv[2], "consume") == 0) {
    rc = consume(argv[1], size);
  } else if (strcmp(argv[2], "latency") == 0 && argc == 6) {
    rc = latency(argv[1], size, (uint64_t)atoll(argv[4]), atof(argv[5]));
  } else {
    fprintf(stderr, "nats_bench: bad arguments\n");
  }
  nats_Close();
  return rc;
}
