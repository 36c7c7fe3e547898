/* librdkafka client of bench/compare, for Spillway's Kafka listener (or any
 * Kafka-protocol broker).
 *
 *   rdkafka_bench BROKERS produce TOPIC SIZE SECONDS [keyed] [-X prop=value]...
 *       one producer, acks=1, linger.ms=5, no compression, sends SIZE-byte
 *       values to TOPIC (the partitioner picks the partition; keyless unless
 *       `keyed`, then the keys "k0".."k1023" in turn) as fast as it can for
 *       SECONDS, then waits for every delivery report. Messages not yet
 *       acknowledged are bounded like `spillway perf`'s window: about 4 MiB
 *       of payload, 1024 to 65536 messages (queue.buffering.max.messages);
 *       when the queue is full the sender serves delivery reports
 *       (rd_kafka_poll) until there is room. The rate counts acknowledged
 *       messages over the time from the first send to the last report.
 *   rdkafka_bench BROKERS consume TOPIC SIZE [batch] [-X prop=value]...
 *       queries every partition's low and high watermarks, assign()s them
 *       all from the beginning and reads with rd_kafka_consumer_poll until
 *       it has read (high - low) messages in all; with `batch`, up to 1000
 *       messages per call of rd_kafka_consume_batch_queue instead (what
 *       the per-message poll costs). librdkafka 2.0 needs a
 *       group.id for consumer_poll; offsets are never committed
 *       (enable.auto.commit=false), so no group coordination is involved.
 *       SIZE is only used for MB/s; the bytes actually read are checked
 *       against it.
 * -X sets any further librdkafka property (after the defaults above).
 * Prints RESULT lines (see bench_util.h). */
#include <librdkafka/rdkafka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

enum { kKeys = 1024, kTimeoutMs = 10000 };

static void die(const char* what, const char* detail) {
  fprintf(stderr, "rdkafka_bench: %s: %s\n", what, detail);
  exit(1);
}

static void set(rd_kafka_conf_t* conf, const char* name, const char* value) {
  char err[512];
  if (rd_kafka_conf_set(conf, name, value, err, sizeof err) != RD_KAFKA_CONF_OK) {
    die(name, err);
  }
}

/* Applies "-X name=value" pairs from argv[from..argc). */
static void set_extra(rd_kafka_conf_t* conf, int argc, char** argv, int from) {
  for (int i = from; i < argc; ++i) {
    if (strcmp(argv[i], "-X") != 0 || i + 1 >= argc) continue;
    char* eq = strchr(argv[++i], '=');
    if (eq == NULL) die("-X needs name=value", argv[i]);
    *eq = '\0';
    set(conf, argv[i], eq + 1);
    *eq = '=';
  }
}

typedef struct {
  uint64_t acked;
  uint64_t acked_bytes;
  uint64_t failed;
  rd_kafka_resp_err_t first_error;
} delivery_counts;

static void on_delivery(rd_kafka_t* rk, const rd_kafka_message_t* m, void* opaque) {
  (void)rk;
  delivery_counts* counts = opaque;
  if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
    counts->acked++;
    counts->acked_bytes += m->len;
  } else {
    if (counts->failed++ == 0) counts->first_error = m->err;
  }
}

static int produce(const char* brokers, const char* topic, size_t size, double seconds, int keyed,
                   int argc, char** argv) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  set(conf, "bootstrap.servers", brokers);
  set(conf, "acks", "1");
  set(conf, "linger.ms", "5");
  set(conf, "compression.codec", "none");
  /* The same bound as `spillway perf produce --window`'s default. */
  size_t window = (4u << 20) / size;
  window = window < 1024 ? 1024 : window > 65536 ? 65536 : window;
  char window_text[32];
  snprintf(window_text, sizeof window_text, "%zu", window);
  set(conf, "queue.buffering.max.messages", window_text);
  set_extra(conf, argc, argv, 0);
  delivery_counts counts = {0, 0, 0, RD_KAFKA_RESP_ERR_NO_ERROR};
  rd_kafka_conf_set_opaque(conf, &counts);
  rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (rk == NULL) die("new producer", err);
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, topic, NULL);
  if (rkt == NULL) die("topic", rd_kafka_err2str(rd_kafka_last_error()));

  char* payload = malloc(size);
  memset(payload, 'x', size);
  char keys[kKeys][8];
  size_t key_len[kKeys];
  for (int k = 0; k < kKeys; ++k) key_len[k] = (size_t)snprintf(keys[k], sizeof keys[k], "k%d", k);

  uint64_t sent = 0;
  const uint64_t start = bench_now_ns();
  const uint64_t end = start + (uint64_t)(seconds * 1e9);
  /* The clock is read once every 64 messages: at millions of messages/s
   * a read per message would be a noticeable share of the sender's time. */
  while ((sent & 63) != 0 || bench_now_ns() < end) {
    const int k = (int)(sent % kKeys);
    if (rd_kafka_produce(rkt, RD_KAFKA_PARTITION_UA, RD_KAFKA_MSG_F_COPY, payload, size,
                         keyed ? keys[k] : NULL, keyed ? key_len[k] : 0, NULL) == -1) {
      const rd_kafka_resp_err_t e = rd_kafka_last_error();
      if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) die("produce", rd_kafka_err2str(e));
      rd_kafka_poll(rk, 1); /* the window is full: serve delivery reports */
      continue;
    }
    ++sent;
    if ((sent & 1023) == 0) rd_kafka_poll(rk, 0);
  }
  const rd_kafka_resp_err_t flushed = rd_kafka_flush(rk, 60000);
  const uint64_t elapsed = bench_now_ns() - start;
  if (flushed != RD_KAFKA_RESP_ERR_NO_ERROR) die("flush", rd_kafka_err2str(flushed));
  if (counts.failed != 0) {
    fprintf(stderr, "rdkafka_bench: %llu of %llu deliveries failed, first: %s\n",
            (unsigned long long)counts.failed, (unsigned long long)sent,
            rd_kafka_err2str(counts.first_error));
  }
  bench_print_rate("produce", counts.acked, size, elapsed);
  free(payload);
  rd_kafka_topic_destroy(rkt);
  rd_kafka_destroy(rk);
  return counts.failed == 0 && counts.acked == sent ? 0 : 1;
}

enum { kBatch = 1000 };

static int consume(const char* brokers, const char* topic, size_t size, int batch, int argc,
                   char** argv) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  set(conf, "bootstrap.servers", brokers);
  set(conf, "group.id", "rdkafka-bench");
  set(conf, "enable.auto.commit", "false");
  set(conf, "enable.auto.offset.store", "false");
  set(conf, "auto.offset.reset", "earliest");
  set_extra(conf, argc, argv, 0);
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
  if (rk == NULL) die("new consumer", err);
  rd_kafka_poll_set_consumer(rk);

  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, topic, NULL);
  const struct rd_kafka_metadata* md = NULL;
  rd_kafka_resp_err_t e = rd_kafka_metadata(rk, 0, rkt, &md, kTimeoutMs);
  if (e != RD_KAFKA_RESP_ERR_NO_ERROR) die("metadata", rd_kafka_err2str(e));
  if (md->topic_cnt != 1 || md->topics[0].err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    die("metadata", md->topic_cnt == 1 ? rd_kafka_err2str(md->topics[0].err) : "no such topic");
  }
  const int partitions = md->topics[0].partition_cnt;
  rd_kafka_topic_partition_list_t* assignment = rd_kafka_topic_partition_list_new(partitions);
  uint64_t total = 0;
  for (int i = 0; i < partitions; ++i) {
    const int32_t p = md->topics[0].partitions[i].id;
    int64_t low = 0, high = 0;
    e = rd_kafka_query_watermark_offsets(rk, topic, p, &low, &high, kTimeoutMs);
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR) die("watermarks", rd_kafka_err2str(e));
    total += (uint64_t)(high - low);
    rd_kafka_topic_partition_list_add(assignment, topic, p)->offset = RD_KAFKA_OFFSET_BEGINNING;
  }
  rd_kafka_metadata_destroy(md);
  rd_kafka_topic_destroy(rkt);

  uint64_t got = 0, bytes = 0;
  const uint64_t start = bench_now_ns();
  e = rd_kafka_assign(rk, assignment);
  if (e != RD_KAFKA_RESP_ERR_NO_ERROR) die("assign", rd_kafka_err2str(e));
  rd_kafka_topic_partition_list_destroy(assignment);
  /* Progress is checked only when a poll comes back empty: a clock read
   * per message would be a noticeable share of this thread's time. */
  uint64_t last_progress = start, got_then = 0;
  rd_kafka_queue_t* queue = rd_kafka_queue_get_consumer(rk);
  static rd_kafka_message_t* messages[kBatch];
  while (got < total) {
    ssize_t n = 0;
    if (batch) {
      /* It waits for a full batch (or the timeout): ask for no more than
       * are left, so the last call does not wait out the timeout. */
      const uint64_t left = total - got;
      n = rd_kafka_consume_batch_queue(queue, 100, messages, left < kBatch ? (size_t)left : kBatch);
      if (n < 0) die("consume batch", rd_kafka_err2str(rd_kafka_last_error()));
    } else {
      messages[0] = rd_kafka_consumer_poll(rk, 100);
      n = messages[0] != NULL;
    }
    if (n == 0) {
      const uint64_t now = bench_now_ns();
      if (got != got_then) got_then = got, last_progress = now;
      if (now - last_progress > (uint64_t)kTimeoutMs * 1000000u) {
        fprintf(stderr, "rdkafka_bench: nothing read for %d ms after %llu of %llu messages\n",
                kTimeoutMs, (unsigned long long)got, (unsigned long long)total);
        return 1;
      }
      continue;
    }
    for (ssize_t i = 0; i < n; ++i) {
      rd_kafka_message_t* m = messages[i];
      if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
        ++got;
        bytes += m->len;
      } else if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        die("consume", rd_kafka_message_errstr(m));
      }
      rd_kafka_message_destroy(m);
    }
  }
  rd_kafka_queue_destroy(queue);
  const uint64_t elapsed = bench_now_ns() - start;
  if (got != 0 && bytes != got * size) {
    fprintf(stderr, "rdkafka_bench: read %llu bytes in %llu messages, not %zu each\n",
            (unsigned long long)bytes, (unsigned long long)got, size);
  }
  bench_print_rate("consume", got, size, elapsed);
  rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 5) {
    fprintf(stderr,
            "usage: rdkafka_bench BROKERS produce TOPIC SIZE SECONDS [keyed] [-X prop=value]...\n"
            "       rdkafka_bench BROKERS consume TOPIC SIZE [batch] [-X prop=value]...\n");
    return 2;
  }
  const size_t size = (size_t)atol(argv[4]);
  if (size < 1 || size > (64u << 20)) {
    fprintf(stderr, "rdkafka_bench: SIZE must be 1 to 64 MiB\n");
    return 2;
  }
  if (strcmp(argv[2], "produce") == 0 && argc >= 6) {
    const int keyed = argc >= 7 && strcmp(argv[6], "keyed") == 0;
    const int extra = keyed ? 7 : 6;
    return produce(argv[1], argv[3], size, atof(argv[5]), keyed, argc - extra, argv + extra);
  }
  if (strcmp(argv[2], "consume") == 0) {
    const int batch = argc >= 6 && strcmp(argv[5], "batch") == 0;
    const int extra = batch ? 6 : 5;
    return consume(argv[1], argv[3], size, batch, argc - extra, argv + extra);
  }
  fprintf(stderr, "rdkafka_bench: bad arguments\n");
  return 2;
}
