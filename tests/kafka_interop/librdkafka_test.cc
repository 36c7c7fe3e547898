// librdkafka (Debian's librdkafka-dev) against the Kafka listener of a
// broker in the test process (EmbeddedBroker, the same broker code as
// spillway-broker; nothing here needs a process of its own): keyed produce
// with acks=all in each codec (gzip, snappy, lz4, zstd, none) and consume
// back with assign(): every record once, per-key order, each key in the
// partition Java's murmur2 picks, headers and timestamps kept; a 900 KiB
// record; a record over max_batch_bytes failing alone with
// MESSAGE_TOO_LARGE; ListOffsets through the watermark and offsets-for-times
// calls; and records crossing between librdkafka and the native client in
// both directions.
//
// Loops that wait for records are bounded by a deadline so a broken broker
// fails the test instead of hanging it; no assertion is about time.
#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>

#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "spillway/admin.h"
#include "spillway/consumer.h"
#include "spillway/producer.h"
#include "spillway/testing/embedded_broker.h"

namespace spillway::testing {
namespace {

constexpr int kPartitions = 3;
constexpr int kRecords = 10'000;
constexpr int64_t kBaseTimestamp = 1'700'000'000'000;
constexpr auto kGuard = std::chrono::seconds(60);  // against hanging only

// Kafka's murmur2 (the Java client's Utils.murmur2), written out here so
// the test checks the broker's and librdkafka's placement independently.
int32_t murmur2(std::string_view key) {
  const auto* data = reinterpret_cast<const uint8_t*>(key.data());
  const auto length = static_cast<uint32_t>(key.size());
  constexpr uint32_t m = 0x5bd1e995;
  constexpr int r = 24;
  uint32_t h = 0x9747b28cu ^ length;
  const uint32_t whole = length / 4;
  for (uint32_t i = 0; i < whole; ++i) {
    const uint32_t b = i * 4;
    uint32_t k = static_cast<uint32_t>(data[b]) | static_cast<uint32_t>(data[b + 1]) << 8 |
                 static_cast<uint32_t>(data[b + 2]) << 16 |
                 static_cast<uint32_t>(data[b + 3]) << 24;
    k *= m;
    k ^= k >> r;
    k *= m;
    h *= m;
    h ^= k;
  }
  const uint32_t tail = length & ~3u;
  switch (length % 4) {
    case 3:
      h ^= static_cast<uint32_t>(data[tail + 2]) << 16;
      [[fallthrough]];
    case 2:
      h ^= static_cast<uint32_t>(data[tail + 1]) << 8;
      [[fallthrough]];
    case 1:
      h ^= data[tail];
      h *= m;
  }
  h ^= h >> 13;
  h *= m;
  h ^= h >> 15;
  return static_cast<int32_t>(h);
}

int32_t murmur2_partition(std::string_view key, int32_t partitions) {
  return (murmur2(key) & 0x7fffffff) % partitions;
}

struct RdConfDeleter {
  void operator()(rd_kafka_conf_t* c) const { rd_kafka_conf_destroy(c); }
};
struct RdKafkaDeleter {
  void operator()(rd_kafka_t* k) const {
    if (rd_kafka_type(k) == RD_KAFKA_CONSUMER) rd_kafka_consumer_close(k);
    rd_kafka_destroy(k);
  }
};
using RdKafka = std::unique_ptr<rd_kafka_t, RdKafkaDeleter>;

// What the delivery reports said, per record (by the opaque index).
struct Deliveries {
  std::vector<rd_kafka_resp_err_t> errors;
  std::vector<int64_t> offsets;
  std::vector<int32_t> partitions;
  int done = 0;
};

// A consumed record, copied out of librdkafka.
struct Consumed {
  int32_t partition;
  int64_t offset;
  std::string key;
  std::string value;
  int64_t timestamp;
  rd_kafka_timestamp_type_t timestamp_type;
  std::vector<std::pair<std::string, std::string>> headers;
};

class Librdkafka : public ::testing::Test {
 protected:
  void SetUp() override {
    auto broker = EmbeddedBroker::start({.cores = 2});
    ASSERT_TRUE(broker.ok()) << broker.status().to_string();
    broker_ = std::move(*broker);
    ASSERT_NE(broker_->kafka_port(), 0);
    auto admin = Admin::connect(broker_->native_address());
    ASSERT_TRUE(admin.ok()) << admin.status().to_string();
    admin_ = std::make_unique<Admin>(std::move(*admin));
  }

  void create_topic(const std::string& name, int32_t partitions) {
    TopicOptions options;
    options.partitions = partitions;
    const Status st = admin_->create_topic(name, options);
    ASSERT_TRUE(st.ok()) << st.to_string();
  }

  std::unique_ptr<rd_kafka_conf_t, RdConfDeleter> conf(
      const std::vector<std::pair<std::string, std::string>>& settings) {
    std::unique_ptr<rd_kafka_conf_t, RdConfDeleter> c(rd_kafka_conf_new());
    char error[512];
    set(c.get(), "bootstrap.servers", broker_->kafka_address(), error);
    set(c.get(), "log_level", "3", error);  // errors only: keep test output readable
    for (const auto& [k, v] : settings) set(c.get(), k, v, error);
    return c;
  }

  static void set(rd_kafka_conf_t* c, const std::string& key, const std::string& value,
                  char* error) {
    ASSERT_EQ(rd_kafka_conf_set(c, key.c_str(), value.c_str(), error, 512), RD_KAFKA_CONF_OK)
        << key << ": " << error;
  }

  RdKafka producer(const std::vector<std::pair<std::string, std::string>>& settings) {
    auto c = conf(settings);
    rd_kafka_conf_set_dr_msg_cb(c.get(), &Librdkafka::delivered);
    char error[512];
    rd_kafka_t* k = rd_kafka_new(RD_KAFKA_PRODUCER, c.get(), error, sizeof error);
    EXPECT_NE(k, nullptr) << error;
    if (k) (void)c.release();  // owned by the handle now
    return RdKafka(k);
  }

  // A consumer for assign(): librdkafka's consumer API needs a group id,
  // but nothing is committed (the test seeks to the beginning itself).
  RdKafka consumer(const std::vector<std::pair<std::string, std::string>>& settings = {}) {
    auto c = conf(settings);
    char group_error[512];
    set(c.get(), "group.id", "interop", group_error);
    set(c.get(), "enable.auto.commit", "false", group_error);
    char error[512];
    rd_kafka_t* k = rd_kafka_new(RD_KAFKA_CONSUMER, c.get(), error, sizeof error);
    EXPECT_NE(k, nullptr) << error;
    if (k) (void)c.release();
    if (k) rd_kafka_poll_set_consumer(k);
    return RdKafka(k);
  }

  // The delivery report: the record's index travels as its opaque.
  static void delivered(rd_kafka_t*, const rd_kafka_message_t* m, void*) {
    const auto index = reinterpret_cast<intptr_t>(m->_private);
    Deliveries& d = *current_;
    d.errors[static_cast<size_t>(index)] = m->err;
    d.offsets[static_cast<size_t>(index)] = m->offset;
    d.partitions[static_cast<size_t>(index)] = m->partition;
    ++d.done;
  }

  // Produces record `index` (key, value, one header, timestamp) with
  // partition RD_KAFKA_PARTITION_UA (the partitioner picks) unless given.
  static void produce(rd_kafka_t* k, const std::string& topic, intptr_t index,
                      const std::string& key, const std::string& value, int64_t timestamp,
                      int32_t partition = RD_KAFKA_PARTITION_UA) {
    rd_kafka_headers_t* headers = rd_kafka_headers_new(1);
    const std::string h = "h-" + std::to_string(index);
    rd_kafka_header_add(headers, "idx", -1, h.data(), static_cast<ssize_t>(h.size()));
    rd_kafka_resp_err_t err;
    for (;;) {
      err = rd_kafka_producev(k, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(partition),
                              RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                              RD_KAFKA_V_KEY(key.data(), key.size()),
                              RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
                              RD_KAFKA_V_TIMESTAMP(timestamp), RD_KAFKA_V_HEADERS(headers),
                              RD_KAFKA_V_OPAQUE(reinterpret_cast<void*>(index)), RD_KAFKA_V_END);
      if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL) break;
      rd_kafka_poll(k, 100);  // the local queue drains as the broker answers
    }
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) rd_kafka_headers_destroy(headers);
    ASSERT_EQ(err, RD_KAFKA_RESP_ERR_NO_ERROR) << rd_kafka_err2str(err);
  }

  static void flush(rd_kafka_t* k) {
    const auto deadline = std::chrono::steady_clock::now() + kGuard;
    while (rd_kafka_outq_len(k) > 0 && std::chrono::steady_clock::now() < deadline) {
      rd_kafka_flush(k, 1000);
    }
    ASSERT_EQ(rd_kafka_outq_len(k), 0) << "records still queued";
  }

  // Assigns every partition of `topic` from the beginning and reads
  // `count` records.
  static std::vector<Consumed> consume(rd_kafka_t* k, const std::string& topic, int32_t partitions,
                                       size_t count) {
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(partitions);
    for (int32_t p = 0; p < partitions; ++p) {
      rd_kafka_topic_partition_list_add(list, topic.c_str(), p)->offset = RD_KAFKA_OFFSET_BEGINNING;
    }
    EXPECT_EQ(rd_kafka_assign(k, list), RD_KAFKA_RESP_ERR_NO_ERROR);
    rd_kafka_topic_partition_list_destroy(list);
    std::vector<Consumed> out;
    const auto deadline = std::chrono::steady_clock::now() + kGuard;
    while (out.size() < count && std::chrono::steady_clock::now() < deadline) {
      rd_kafka_message_t* m = rd_kafka_consumer_poll(k, 500);
      if (m == nullptr) continue;
      if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        rd_kafka_message_destroy(m);
        continue;
      }
      EXPECT_EQ(m->err, RD_KAFKA_RESP_ERR_NO_ERROR) << rd_kafka_message_errstr(m);
      if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
        Consumed c;
        c.partition = m->partition;
        c.offset = m->offset;
        c.key.assign(static_cast<const char*>(m->key), m->key_len);
        c.value.assign(static_cast<const char*>(m->payload), m->len);
        c.timestamp = rd_kafka_message_timestamp(m, &c.timestamp_type);
        rd_kafka_headers_t* headers = nullptr;
        if (rd_kafka_message_headers(m, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR) {
          const char* name;
          const void* value;
          size_t size;
          for (size_t i = 0; rd_kafka_header_get_all(headers, i, &name, &value, &size) ==
                             RD_KAFKA_RESP_ERR_NO_ERROR;
               ++i) {
            c.headers.emplace_back(name, std::string(static_cast<const char*>(value), size));
          }
        }
        out.push_back(std::move(c));
      }
      rd_kafka_message_destroy(m);
    }
    return out;
  }

  static inline Deliveries* current_ = nullptr;
  std::unique_ptr<EmbeddedBroker> broker_;
  std::unique_ptr<Admin> admin_;
};

std::string key_of(int i) {
  return "key-" + std::to_string(i % 97);
}
std::string value_of(int i) {
  return "value-" + std::to_string(i);
}

TEST_F(Librdkafka, KeyedRecordsRoundTripInEveryCodecInMurmur2Partitions) {
  for (const char* codec : {"gzip", "snappy", "lz4", "zstd", "none"}) {
    SCOPED_TRACE(codec);
    const std::string topic = std::string("keyed-") + codec;
    ASSERT_NO_FATAL_FAILURE(create_topic(topic, kPartitions));
    Deliveries d;
    d.errors.assign(kRecords, RD_KAFKA_RESP_ERR__FAIL);
    d.offsets.assign(kRecords, -1);
    d.partitions.assign(kRecords, -1);
    current_ = &d;
    {
      RdKafka p = producer({{"acks", "all"},
                            {"partitioner", "murmur2_random"},
                            {"compression.codec", codec},
                            {"linger.ms", "5"}});
      ASSERT_NE(p, nullptr);
      for (int i = 0; i < kRecords; ++i) {
        ASSERT_NO_FATAL_FAILURE(
            produce(p.get(), topic, i, key_of(i), value_of(i), kBaseTimestamp + i));
        rd_kafka_poll(p.get(), 0);
      }
      ASSERT_NO_FATAL_FAILURE(flush(p.get()));
    }
    current_ = nullptr;
    ASSERT_EQ(d.done, kRecords);
    for (int i = 0; i < kRecords; ++i) {
      ASSERT_EQ(d.errors[i], RD_KAFKA_RESP_ERR_NO_ERROR)
          << i << ": " << rd_kafka_err2str(d.errors[i]);
      ASSERT_EQ(d.partitions[i], murmur2_partition(key_of(i), kPartitions)) << i;
    }

    RdKafka c = consumer();
    ASSERT_NE(c, nullptr);
    std::vector<Consumed> got = consume(c.get(), topic, kPartitions, kRecords);
    ASSERT_EQ(got.size(), static_cast<size_t>(kRecords));
    std::vector<int> seen(kRecords, 0);
    std::map<std::string, int> last_of_key;
    std::map<int32_t, int64_t> last_offset;
    for (const Consumed& r : got) {
      ASSERT_EQ(r.value.rfind("value-", 0), 0u) << r.value;
      const int i = std::stoi(r.value.substr(6));
      ASSERT_GE(i, 0);
      ASSERT_LT(i, kRecords);
      ++seen[i];
      EXPECT_EQ(r.key, key_of(i));
      EXPECT_EQ(r.partition, murmur2_partition(r.key, kPartitions)) << r.key;
      EXPECT_EQ(r.offset, d.offsets[i]);
      EXPECT_EQ(r.timestamp, kBaseTimestamp + i);
      EXPECT_EQ(r.timestamp_type, RD_KAFKA_TIMESTAMP_CREATE_TIME);
      ASSERT_EQ(r.headers.size(), 1u);
      EXPECT_EQ(r.headers[0].first, "idx");
      EXPECT_EQ(r.headers[0].second, "h-" + std::to_string(i));
      auto [k, fresh] = last_of_key.emplace(r.key, i);
      if (!fresh) {
        EXPECT_LT(k->second, i) << "key " << r.key << " out of order";
        k->second = i;
      }
      auto [o, first] = last_offset.emplace(r.partition, r.offset);
      if (!first) {
        EXPECT_EQ(o->second + 1, r.offset) << "partition " << r.partition;
        o->second = r.offset;
      }
    }
    for (int i = 0; i < kRecords; ++i) ASSERT_EQ(seen[i], 1) << "record " << i;

    // ListOffsets: earliest and latest, then by timestamp, against what
    // was consumed.
    std::map<int32_t, int64_t> end_of;
    for (const Consumed& r : got) end_of[r.partition] = std::max(end_of[r.partition], r.offset + 1);
    for (int32_t p = 0; p < kPartitions; ++p) {
      int64_t low = -9, high = -9;
      ASSERT_EQ(rd_kafka_query_watermark_offsets(c.get(), topic.c_str(), p, &low, &high, 10'000),
                RD_KAFKA_RESP_ERR_NO_ERROR);
      EXPECT_EQ(low, 0);
      EXPECT_EQ(high, end_of[p]);
    }
    for (int64_t at : {kBaseTimestamp - 1, kBaseTimestamp + 5'000, kBaseTimestamp + 9'999,
                       kBaseTimestamp + kRecords + 1}) {
      rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(kPartitions);
      for (int32_t p = 0; p < kPartitions; ++p) {
        rd_kafka_topic_partition_list_add(list, topic.c_str(), p)->offset = at;
      }
      ASSERT_EQ(rd_kafka_offsets_for_times(c.get(), list, 10'000), RD_KAFKA_RESP_ERR_NO_ERROR);
      for (int i = 0; i < list->cnt; ++i) {
        const rd_kafka_topic_partition_t& tp = list->elems[i];
        EXPECT_EQ(tp.err, RD_KAFKA_RESP_ERR_NO_ERROR);
        int64_t expected = -1;  // none that late: librdkafka reports the end as -1
        for (const Consumed& r : got) {
          if (r.partition == tp.partition && r.timestamp >= at &&
              (expected == -1 || r.offset < expected)) {
            expected = r.offset;
          }
        }
        EXPECT_EQ(tp.offset, expected) << "partition " << tp.partition << " at " << at;
      }
      rd_kafka_topic_partition_list_destroy(list);
    }
  }
}

TEST_F(Librdkafka, A900KiBRecordRoundTripsAndOneOverMaxBatchBytesFailsAlone) {
  ASSERT_NO_FATAL_FAILURE(create_topic("big", 1));
  Deliveries d;
  d.errors.assign(3, RD_KAFKA_RESP_ERR__FAIL);
  d.offsets.assign(3, -1);
  d.partitions.assign(3, -1);
  current_ = &d;
  std::string big(900 << 10, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>('a' + (i * 7919) % 26);
  const std::string too_big(3 << 19, 'x');  // 1.5 MiB: over the broker's 1 MiB max_batch_bytes
  {
    RdKafka p = producer({{"acks", "all"},
                          {"compression.codec", "none"},
                          {"message.max.bytes", "4000000"},
                          {"batch.size", "4000000"}});
    ASSERT_NE(p, nullptr);
    ASSERT_NO_FATAL_FAILURE(produce(p.get(), "big", 0, "k0", big, kBaseTimestamp, 0));
    ASSERT_NO_FATAL_FAILURE(flush(p.get()));
    ASSERT_NO_FATAL_FAILURE(produce(p.get(), "big", 1, "k1", too_big, kBaseTimestamp + 1, 0));
    ASSERT_NO_FATAL_FAILURE(flush(p.get()));
    // The producer carries on.
    ASSERT_NO_FATAL_FAILURE(produce(p.get(), "big", 2, "k2", "small", kBaseTimestamp + 2, 0));
    ASSERT_NO_FATAL_FAILURE(flush(p.get()));
  }
  current_ = nullptr;
  EXPECT_EQ(d.errors[0], RD_KAFKA_RESP_ERR_NO_ERROR) << rd_kafka_err2str(d.errors[0]);
  EXPECT_EQ(d.errors[1], RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE) << rd_kafka_err2str(d.errors[1]);
  EXPECT_EQ(d.errors[2], RD_KAFKA_RESP_ERR_NO_ERROR) << rd_kafka_err2str(d.errors[2]);
  EXPECT_EQ(d.offsets[0], 0);
  EXPECT_EQ(d.offsets[2], 1);

  RdKafka c = consumer({{"fetch.max.bytes", "2000000"},
                        {"max.partition.fetch.bytes", "2000000"},
                        {"receive.message.max.bytes", "4000000"}});
  ASSERT_NE(c, nullptr);
  std::vector<Consumed> got = consume(c.get(), "big", 1, 2);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].key, "k0");
  EXPECT_TRUE(got[0].value == big) << "the 900 KiB value differs";
  EXPECT_EQ(got[1].value, "small");
}

// librdkafka produces, the native Consumer reads; the native Producer
// produces, librdkafka reads. Keys, values, headers and timestamps cross.
TEST_F(Librdkafka, RecordsCrossBetweenLibrdkafkaAndTheNativeClient) {
  constexpr int kCount = 200;
  ASSERT_NO_FATAL_FAILURE(create_topic("from-kafka", 2));
  ASSERT_NO_FATAL_FAILURE(create_topic("from-native", 2));
  Deliveries d;
  d.errors.assign(kCount, RD_KAFKA_RESP_ERR__FAIL);
  d.offsets.assign(kCount, -1);
  d.partitions.assign(kCount, -1);
  current_ = &d;
  {
    // gzip: the native consumer reads whatever codec a Kafka client chose.
    RdKafka p = producer(
        {{"acks", "all"}, {"partitioner", "murmur2_random"}, {"compression.codec", "gzip"}});
    ASSERT_NE(p, nullptr);
    for (int i = 0; i < kCount; ++i) {
      ASSERT_NO_FATAL_FAILURE(
          produce(p.get(), "from-kafka", i, key_of(i), value_of(i), kBaseTimestamp + 3 * i));
    }
    ASSERT_NO_FATAL_FAILURE(flush(p.get()));
  }
  current_ = nullptr;

  ConsumerOptions options;
  options.bootstrap = broker_->native_address();
  auto native = Consumer::create(options);
  ASSERT_TRUE(native.ok()) << native.status().to_string();
  ASSERT_TRUE((*native)->assign("from-kafka").ok());
  int received = 0;
  const auto deadline = std::chrono::steady_clock::now() + kGuard;
  while (received < kCount && std::chrono::steady_clock::now() < deadline) {
    auto records = (*native)->poll(std::chrono::milliseconds(500));
    ASSERT_TRUE(records.ok()) << records.status().to_string();
    for (const ConsumerRecord& r : *records) {
      const int i = std::stoi(std::string(r.value_string().substr(6)));
      EXPECT_EQ(r.key_string(), key_of(i));
      EXPECT_EQ(r.partition, murmur2_partition(key_of(i), 2));
      EXPECT_EQ(r.offset, d.offsets[i]);
      EXPECT_EQ(r.timestamp, kBaseTimestamp + 3 * i);
      std::vector<std::pair<std::string, std::string>> headers;
      ASSERT_TRUE(r.for_each_header([&](std::string_view k, std::span<const std::byte> v) {
                     headers.emplace_back(
                         std::string(k),
                         std::string(reinterpret_cast<const char*>(v.data()), v.size()));
                   }).ok());
      ASSERT_EQ(headers.size(), 1u);
      EXPECT_EQ(headers[0].first, "idx");
      EXPECT_EQ(headers[0].second, "h-" + std::to_string(i));
      ++received;
    }
  }
  ASSERT_EQ(received, kCount);

  // The other way round.
  ProducerOptions producer_options;
  producer_options.bootstrap = broker_->native_address();
  auto sender = Producer::create(producer_options);
  ASSERT_TRUE(sender.ok()) << sender.status().to_string();
  struct Sent {
    std::vector<int64_t> timestamps;
    std::vector<int32_t> partitions;
    std::vector<int> failures;
  } sent;
  sent.timestamps.assign(kCount, -1);
  sent.partitions.assign(kCount, -1);
  std::vector<std::string> keys, values, header_values;
  for (int i = 0; i < kCount; ++i) {
    keys.push_back(key_of(i));
    values.push_back(value_of(i));
    header_values.push_back("n-" + std::to_string(i));
  }
  struct Ctx {
    Sent* sent;
    int index;
  };
  std::vector<Ctx> contexts(kCount);
  for (int i = 0; i < kCount; ++i) {
    contexts[i] = {&sent, i};
    const Header header{"origin", std::as_bytes(std::span(header_values[i]))};
    (*sender)->send("from-native", std::as_bytes(std::span(keys[i])),
                    std::as_bytes(std::span(values[i])), std::span(&header, 1),
                    DeliveryCallback{[](void* ctx, const Status& st, const RecordMetadata& m) {
                                       auto* c = static_cast<Ctx*>(ctx);
                                       if (!st.ok()) c->sent->failures.push_back(c->index);
                                       c->sent->timestamps[c->index] = m.timestamp;
                                       c->sent->partitions[c->index] = m.partition;
                                     },
                                     &contexts[i]});
  }
  ASSERT_TRUE((*sender)->flush().ok());
  ASSERT_TRUE(sent.failures.empty());

  RdKafka c = consumer();
  ASSERT_NE(c, nullptr);
  std::vector<Consumed> got = consume(c.get(), "from-native", 2, kCount);
  ASSERT_EQ(got.size(), static_cast<size_t>(kCount));
  for (const Consumed& r : got) {
    const int i = std::stoi(r.value.substr(6));
    EXPECT_EQ(r.key, key_of(i));
    EXPECT_EQ(r.partition, sent.partitions[i]);
    // The broker routes native keyed records with murmur2 too.
    EXPECT_EQ(r.partition, murmur2_partition(r.key, 2));
    EXPECT_EQ(r.timestamp, sent.timestamps[i]);
    ASSERT_EQ(r.headers.size(), 1u);
    EXPECT_EQ(r.headers[0].first, "origin");
    EXPECT_EQ(r.headers[0].second, "n-" + std::to_string(i));
  }
}

}  // namespace
}  // namespace spillway::testing
