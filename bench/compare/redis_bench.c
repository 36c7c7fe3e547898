/* Redis Streams peer of bench/compare (hiredis).
 *
 *   redis_bench PORT produce SIZE SECONDS   pipelined XADD for SECONDS
 *   redis_bench PORT consume SIZE           XREAD COUNT 1000 the whole stream
 *   redis_bench PORT latency SIZE RATE SECONDS
 *       a producer sends every message due by now as one pipelined burst of
 *       XADDs (so it never waits on one reply per message), a consumer on a
 *       second connection blocks in XREAD; latency = consumer receipt minus
 *       the message's intended send time.
 * Prints RESULT lines (see bench_util.h). Stream key: "bench". */
#include <hiredis/hiredis.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

enum { kPipeline = 256, kHalf = kPipeline / 2, kReadCount = 1000 };

static redisContext* connect_or_die(int port) {
  redisContext* c = redisConnect("127.0.0.1", port);
  if (c == NULL || c->err) {
    fprintf(stderr, "redis_bench: connect to 127.0.0.1:%d: %s\n", port, c ? c->errstr : "oom");
    exit(1);
  }
  return c;
}

static void check_reply(redisContext* c, redisReply* r) {
  if (r == NULL) {
    fprintf(stderr, "redis_bench: %s\n", c->errstr);
    exit(1);
  }
  if (r->type == REDIS_REPLY_ERROR) {
    fprintf(stderr, "redis_bench: server error: %s\n", r->str);
    exit(1);
  }
}

/* Reads n replies; with `samples`, records for each the time from `sent_at`
 * (when its pipelined burst was handed to hiredis) to its reply. */
static void get_replies(redisContext* c, int n, bench_samples* samples, uint64_t sent_at) {
  for (int i = 0; i < n; ++i) {
    void* reply = NULL;
    if (redisGetReply(c, &reply) != REDIS_OK) check_reply(c, NULL);
    check_reply(c, (redisReply*)reply);
    freeReplyObject(reply);
    if (samples != NULL) bench_samples_add(samples, bench_now_ns() - sent_at);
  }
}

/* Queues n XADDs of `payload` (sent with the next reply read); returns when. */
static uint64_t append_xadds(redisContext* c, int n, const char* payload, size_t size) {
  const uint64_t at = bench_now_ns();
  for (int i = 0; i < n; ++i) redisAppendCommand(c, "XADD bench * d %b", payload, size);
  return at;
}

static int produce(int port, size_t size, double seconds) {
  redisContext* c = connect_or_die(port);
  redisReply* r = redisCommand(c, "DEL bench");
  check_reply(c, r);
  freeReplyObject(r);
  char* payload = malloc(size);
  memset(payload, 'x', size);
  uint64_t sent = 0;
  /* Ack latency (burst handed over to reply) of every message, for the
   * durable comparison; sized for 4M messages/s, never grown. */
  bench_samples acks;
  bench_samples_init(&acks, (size_t)(seconds * 4e6) + kPipeline);
  /* The pipe is kept full: a window of kPipeline XADDs in flight, refilled
   * by half as soon as the older half is answered. Waiting for a whole
   * burst's replies before sending the next left the connection idle for a
   * round trip each time: 398k msg/s of 100 B against redis-benchmark
   * -c 1 -P 256's 518k on one machine, where this makes 611k. */
  const uint64_t start = bench_now_ns();
  const uint64_t end = start + (uint64_t)(seconds * 1e9);
  uint64_t half_sent_at[2];
  for (int h = 0; h < 2; ++h) half_sent_at[h] = append_xadds(c, kHalf, payload, size);
  int oldest = 0;
  for (;;) {
    get_replies(c, kHalf, &acks, half_sent_at[oldest]);
    sent += kHalf;
    if (bench_now_ns() >= end) break;
    half_sent_at[oldest] = append_xadds(c, kHalf, payload, size);
    oldest ^= 1;
  }
  get_replies(c, kHalf, &acks, half_sent_at[oldest ^ 1]);  /* the half still in flight */
  sent += kHalf;
  bench_print_rate("produce", sent, size, bench_now_ns() - start);
  bench_print_latency(&acks, sent);
  free(acks.values);
  free(payload);
  redisFree(c);
  return 0;
}

/* Reads entries after *last_id (XREAD is exclusive), calls on_entry for each
 * payload; returns the number read. */
static size_t read_batch(redisContext* c, char* last_id, size_t last_id_cap, int block_ms,
                         void (*on_entry)(const char*, size_t, void*), void* closure) {
  redisReply* r = block_ms >= 0
                      ? redisCommand(c, "XREAD COUNT %d BLOCK %d STREAMS bench %s", kReadCount,
                                     block_ms, last_id)
                      : redisCommand(c, "XREAD COUNT %d STREAMS bench %s", kReadCount, last_id);
  check_reply(c, r);
  size_t n = 0;
  if (r->type == REDIS_REPLY_ARRAY && r->elements == 1) {
    redisReply* entries = r->element[0]->element[1];
    for (size_t i = 0; i < entries->elements; ++i) {
      redisReply* entry = entries->element[i];
      redisReply* fields = entry->element[1];
      if (fields->elements >= 2)
        on_entry(fields->element[1]->str, fields->element[1]->len, closure);
      snprintf(last_id, last_id_cap, "%s", entry->element[0]->str);
      ++n;
    }
  }
  freeReplyObject(r);
  return n;
}

static void count_bytes(const char* data, size_t len, void* closure) {
  (void)data;
  *(uint64_t*)closure += len;
}

static int consume(int port, size_t size) {
  redisContext* c = connect_or_die(port);
  redisReply* r = redisCommand(c, "XLEN bench");
  check_reply(c, r);
  const uint64_t total = (uint64_t)r->integer;
  freeReplyObject(r);
  char last_id[64] = "0-0";
  uint64_t got = 0, bytes = 0;
  const uint64_t start = bench_now_ns();
  while (got < total) {
    size_t n = read_batch(c, last_id, sizeof last_id, -1, count_bytes, &bytes);
    if (n == 0) break;
    got += n;
  }
  bench_print_rate("consume", got, size, bench_now_ns() - start);
  redisFree(c);
  return got == total ? 0 : 1;
}

typedef struct {
  int port;
  size_t size;
  uint64_t rate, total, start;
  bench_samples samples;
  volatile int producer_done;
} latency_run;

static void record_latency(const char* data, size_t len, void* closure) {
  latency_run* run = closure;
  const uint64_t now = bench_now_ns();
  if (len >= 8) bench_samples_add(&run->samples, now - bench_read_stamp(data));
}

static void* latency_consumer(void* arg) {
  latency_run* run = arg;
  redisContext* c = connect_or_die(run->port);
  char last_id[64] = "0-0";
  while (run->samples.count < run->total) {
    if (read_batch(c, last_id, sizeof last_id, 1000, record_latency, run) == 0 &&
        run->producer_done)
      break;
  }
  redisFree(c);
  return NULL;
}

static int latency(int port, size_t size, uint64_t rate, double seconds) {
  latency_run run = {.port = port, .size = size, .rate = rate};
  run.total = (uint64_t)(seconds * (double)rate);
  bench_samples_init(&run.samples, run.total);
  redisContext* c = connect_or_die(port);
  redisReply* r = redisCommand(c, "DEL bench");
  check_reply(c, r);
  freeReplyObject(r);
  char* payload = malloc(size);
  memset(payload, 'x', size);
  pthread_t consumer;
  pthread_create(&consumer, NULL, latency_consumer, &run);
  run.start = bench_now_ns() + 20000000; /* let the consumer block first */
  for (uint64_t k = 0; k < run.total;) {
    bench_wait_until(bench_intended_ns(run.start, k, rate));
    /* Everything due by now goes out as one pipelined burst. */
    const uint64_t now = bench_now_ns();
    int burst = 0;
    while (k < run.total && bench_intended_ns(run.start, k, rate) <= now) {
      bench_stamp(payload, bench_intended_ns(run.start, k, rate));
      redisAppendCommand(c, "XADD bench * d %b", payload, size);
      ++k, ++burst;
    }
    get_replies(c, burst, NULL, 0);
  }
  run.producer_done = 1;
  pthread_join(consumer, NULL);
  bench_print_latency(&run.samples, run.total);
  free(payload);
  redisFree(c);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: redis_bench PORT produce|consume|latency SIZE [RATE] [SECONDS]\n");
    return 2;
  }
  const int port = atoi(argv[1]);
  const size_t size = (size_t)atol(argv[3]);
  if (size < 8) {
    fprintf(stderr, "redis_bench: SIZE must be at least 8\n");
    return 2;
  }
  if (strcmp(argv[2], "produce") == 0 && argc == 5) return produce(port, size, atof(argv[4]));
  if (strcmp(argv[2], "consume") == 0) return consume(port, size);
  if (strcmp(argv[2], "latency") == 0 && argc == 6)
    return latency(port, size, (uint64_t)atoll(argv[4]), atof(argv[5]));
  fprintf(stderr, "redis_bench: bad arguments\n");
  return 2;
}
