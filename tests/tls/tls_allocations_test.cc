// Zero allocations per message over TLS, on both ends: the broker's
// spillway_heap_allocations_total (operator new in the broker) grows by a
// small constant over a produce+fetch workload on a native SSL listener,
// and no more when it doubles; the client library's producer and consumer
// over TLS make no operator-new call in their steady state. (OpenSSL's own
// record buffers come from malloc once per connection, not per request.)
// The broker's count is also taken with authorization on and the workload
// allowed by ACLs among others (tests/integration/acl_files.h): TLS and
// ACL checks together still allocate nothing per message.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>

#include "acl_files.h"
#include "alloc_counter.h"
#include "spillway/admin.h"
#include "spillway/common/buffer_pool.h"
#include "spillway/consumer.h"
#include "spillway/producer.h"
#include "steady_state_allocations.h"
#include "tls_support.h"

namespace spillway::testing {
namespace {

int64_t scrape_allocations(uint16_t port) {
  const int fd = connect_local(port);
  if (fd < 0) return -2;
  const std::string request = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
  (void)::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string page;
  char buf[65536];
  for (ssize_t r; (r = ::recv(fd, buf, sizeof(buf), 0)) > 0;)
    page.append(buf, static_cast<size_t>(r));
  ::close(fd);
  const std::string name = "\nspillway_heap_allocations_total ";
  const size_t at = page.find(name);
  return at == std::string::npos ? -2 : std::stoll(page.substr(at + name.size()));
}

void count_ok(void* context, const Status& st, const RecordMetadata&) {
  if (st.ok()) ++*static_cast<uint64_t*>(context);
}

class TlsAllocations : public TlsTest {
 protected:
  virtual bool with_acls() const { return false; }

  void SetUp() override {
    TlsTest::SetUp();
    std::vector<std::string> args = {"--threads", "2", "--metrics-listen", "127.0.0.1:0"};
    if (with_acls()) {
      // The rules go into the data directory before the broker starts.
      write_acls(acl_data_.path(), allocation_test_acls());
      args.insert(args.end(), {"--data-dir", acl_data_.path().string(), "--authorization-enabled",
                               "true", "--authorization-super-users", "User:admin"});
    }
    broker_ = start_broker(pki_.server, args);
    ASSERT_NE(broker_, nullptr);
    const std::string log = broker_->log();
    const std::string marker = "metrics on 127.0.0.1:";
    const size_t at = log.find(marker);
    ASSERT_NE(at, std::string::npos) << log;
    metrics_port_ = static_cast<uint16_t>(std::stoi(log.substr(at + marker.size())));
    security_.tls = {.enabled = true, .ca_file = pki_.ca};
    ConnectionOptions c;
    c.security = security_;
    auto admin = Admin::connect(ssl_native(*broker_), c);
    ASSERT_TRUE(admin.ok()) << admin.status().to_string();
    TopicOptions o;
    o.partitions = 2;
    ASSERT_TRUE(admin->create_topic("alloc-tls", o).ok());
    ProducerOptions p;
    p.bootstrap = ssl_native(*broker_);
    p.security = security_;
    p.linger = std::chrono::milliseconds(1);
    p.buffer_bytes = 1u << 20;
    p.batch_bytes = 64u << 10;
    auto producer = Producer::create(p);
    ASSERT_TRUE(producer.ok()) << producer.status().to_string();
    producer_ = std::move(producer).value();
    ConsumerOptions co;
    co.bootstrap = ssl_native(*broker_);
    co.security = security_;
    co.max_poll_records = 500;
    co.partition_max_bytes = 256 << 10;
    auto consumer = Consumer::create(co);
    ASSERT_TRUE(consumer.ok()) << consumer.status().to_string();
    consumer_ = std::move(consumer).value();
    ASSERT_TRUE(consumer_->assign("alloc-tls").ok());
    // A stock in the global pool above what the producer can hold (see
    // client_alloc_test.cc), so measured rounds do not see it grow.
    std::vector<std::byte*> stock;
    const int per_class[BufferPool::kNumClasses] = {256, 128, 64, 16, 8};
    for (std::size_t c2 = 0; c2 < BufferPool::kNumClasses; ++c2) {
      for (int i = 0; i < per_class[c2]; ++i) {
        stock.push_back(BufferPool::global().rent(BufferPool::kClassSizes[c2]).data());
      }
    }
    for (std::byte* b : stock) BufferPool::global().give_back(b);
  }

  // Sends n 1 KiB messages and flushes; operator-new calls meanwhile.
  uint64_t produce(int n) {
    char key[16];
    static char value[1024];
    std::memset(value, 'v', sizeof(value));
    AllocationScope scope;
    for (int i = 0; i < n; ++i) {
      const int len = std::snprintf(key, sizeof(key), "key-%d", i % 64);
      producer_->send(
          "alloc-tls", std::as_bytes(std::span<const char>(key, static_cast<size_t>(len))),
          std::as_bytes(std::span<const char>(value, sizeof(value))), {}, {&count_ok, &delivered_});
    }
    EXPECT_TRUE(producer_->flush().ok());
    return scope.process_allocations();
  }
  // Polls until n more records came back; this thread's operator-new calls.
  uint64_t consume(int n) {
    AllocationScope scope;
    uint64_t read = 0;
    while (read < static_cast<uint64_t>(n)) {
      Result<ConsumerRecords> r = consumer_->poll(std::chrono::seconds(10));
      if (!r.ok() || r->empty()) {
        ADD_FAILURE() << "poll: " << (r.ok() ? std::string("empty") : r.status().to_string());
        break;
      }
      read += r->size();
    }
    return scope.thread_allocations();
  }

  TempDir acl_data_;
  std::unique_ptr<BrokerProcess> broker_;
  uint16_t metrics_port_ = 0;
  SecurityOptions security_;
  std::unique_ptr<Producer> producer_;
  std::unique_ptr<Consumer> consumer_;
  uint64_t delivered_ = 0;
};

TEST_F(TlsAllocations, SteadyStateProduceAndFetchOverTlsDoNotAllocatePerMessage) {
  expect_no_allocations_per_message(
      [this](int n) {
        produce(n);
        consume(n);
      },
      [this] { return scrape_allocations(metrics_port_); }, "native over TLS", 6'000);
}

class TlsAllocationsWithAcls : public TlsAllocations {
 protected:
  bool with_acls() const override { return true; }
};

TEST_F(TlsAllocationsWithAcls, SteadyStateProduceAndFetchOverTlsWithAclsDoNotAllocatePerMessage) {
  expect_no_allocations_per_message(
      [this](int n) {
        produce(n);
        consume(n);
      },
      [this] { return scrape_allocations(metrics_port_); }, "native over TLS with ACLs", 6'000);
}

TEST_F(TlsAllocations, ClientOverTlsAllocatesNothingPerMessage) {
  for (int i = 0; i < 2; ++i) {  // warm-up: metadata, batches, buffers
    produce(20'000);
    consume(20'000);
  }
  const uint64_t sent = produce(40'000);
  const uint64_t polled = consume(40'000);
  std::printf("client operator new calls over TLS: %llu producing, %llu polling 40000 records\n",
              static_cast<unsigned long long>(sent), static_cast<unsigned long long>(polled));
  EXPECT_EQ(sent, 0u);
  EXPECT_EQ(polled, 0u);
  EXPECT_EQ(delivered_, 80'000u);
}

}  // namespace
}  // namespace spillway::testing
