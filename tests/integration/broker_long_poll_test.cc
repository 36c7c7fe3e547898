// Fetch long polls against the real broker: a waiting fetch is answered when
// data arrives and not before; one with no data is answered empty when its
// max wait ends; and responses on a connection keep request order even when
// an earlier request (the long poll) finishes last. The tests assert the
// order of events, never wall-clock bounds.
#include <gtest/gtest.h>
#include <poll.h>

#include "broker_process.h"
#include "broker_wire_client.h"

namespace spillway::testing {
namespace {

// True iff bytes are waiting on `fd` right now (no waiting).
bool readable_now(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) == 1;
}

std::vector<std::byte> one_record(const std::string& value) {
  return make_batch({{std::nullopt, value}});
}

class BrokerLongPoll : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    auto broker = BrokerProcess::start(BrokerProcess::Options{{"--threads", "2"}});
    ASSERT_TRUE(broker.ok()) << broker.status().to_string();
    broker_ = std::move(*broker);
    WireClient admin(broker_->port());
    ASSERT_EQ(admin.create_topic("t", 2, GetParam()), ErrorCode::kOk);
  }
  std::unique_ptr<BrokerProcess> broker_;
};

TEST_P(BrokerLongPoll, WaitingFetchIsAnsweredByTheAppendAndNotBefore) {
  WireClient consumer(broker_->port());
  WireClient producer(broker_->port());
  const auto body = consumer.fetch_body("t", 1, 0, 60'000);
  ASSERT_TRUE(consumer.send_request(static_cast<int16_t>(frame::ApiKey::kFetch), 0, 5,
                                    static_cast<uint32_t>(body.size()), body));
  // A round trip on another connection orders things: the fetch has surely
  // been read and found nothing by the time a later produce reply arrives.
  ASSERT_EQ(producer.produce("t", 0, one_record("other partition"))[0].code, ErrorCode::kOk);
  EXPECT_FALSE(producer.api_versions_round_trip(1).empty());
  EXPECT_FALSE(readable_now(consumer.fd())) << "answered before any data arrived";

  auto r = producer.produce("t", 1, one_record("wake up"), messages::Acks::kLeader);
  ASSERT_EQ(r.size(), 1u);
  ASSERT_EQ(r[0].code, ErrorCode::kOk);
  auto resp = consumer.read_response();
  ASSERT_TRUE(resp.has_value());
  EXPECT_EQ(resp->header.correlation_id, 5);
  FetchResult f = WireClient::decode_fetch(resp->body);
  ASSERT_EQ(f.code, ErrorCode::kOk);
  auto records = records_in(f.records);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].value, "wake up");
}

TEST_P(BrokerLongPoll, FetchWithNoDataIsAnsweredEmptyAfterItsWait) {
  WireClient consumer(broker_->port());
  FetchResult f = consumer.fetch("t", 0, 0, 100);
  EXPECT_EQ(f.code, ErrorCode::kOk);
  EXPECT_TRUE(f.records.empty());
  EXPECT_EQ(f.high_watermark, 0);
}

TEST_P(BrokerLongPoll, ResponsesKeepRequestOrderBehindALongPoll) {
  WireClient consumer(broker_->port());
  WireClient producer(broker_->port());
  const auto fetch = consumer.fetch_body("t", 0, 0, 60'000);
  ASSERT_TRUE(consumer.send_request(static_cast<int16_t>(frame::ApiKey::kFetch), 0, 1,
                                    static_cast<uint32_t>(fetch.size()), fetch));
  ASSERT_TRUE(consumer.send_api_versions(2));  // finishes at once, but is second
  EXPECT_FALSE(producer.api_versions_round_trip(1).empty());
  EXPECT_FALSE(readable_now(consumer.fd())) << "ApiVersions overtook the waiting fetch";
  ASSERT_EQ(producer.produce("t", 0, one_record("x"))[0].code, ErrorCode::kOk);
  auto first = consumer.read_response();
  auto second = consumer.read_response();
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->header.correlation_id, 1);
  EXPECT_EQ(second->header.correlation_id, 2);
  EXPECT_EQ(records_in(WireClient::decode_fetch(first->body).records).size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(FlushPolicies, BrokerLongPoll, ::testing::Values("interval", "durable"));

}  // namespace
}  // namespace spillway::testing
