// Consumer groups through librdkafka's admin side: a subscribing consumer
// is assigned the topic's partitions by the group coordinator; the simple
// groups (commits without members) are listed and described as Empty.
#include <gtest/gtest.h>

#include "broker_process.h"
#include "kafka_wire_client.h"
#include "rdkafka_support.h"
#include "spillway/admin.h"
#include "spillway/common/kafka/describe_groups.h"
#include "spillway/common/kafka/error_codes.h"
#include "spillway/common/kafka/list_groups.h"
#include "spillway/consumer.h"

namespace spillway::testing {
namespace {

class KafkaGroupsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto started = BrokerProcess::start();
    ASSERT_TRUE(started.ok()) << started.status().to_string();
    broker_ = std::move(*started);
    Result<Admin> native = Admin::connect(broker_->address());
    ASSERT_TRUE(native.ok());
    ASSERT_TRUE(native->create_topic("grouped").ok());
  }
  std::unique_ptr<BrokerProcess> broker_;
};

TEST_F(KafkaGroupsTest, ASubscribingConsumerIsAssignedThePartitions) {
  KafkaHandle rk =
      make_client(RD_KAFKA_CONSUMER, broker_->kafka_address(), {{"group.id", "subscribers"}});
  rd_kafka_poll_set_consumer(rk.get());
  rd_kafka_topic_partition_list_t* topics = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(topics, "grouped", RD_KAFKA_PARTITION_UA);
  ASSERT_EQ(rd_kafka_subscribe(rk.get(), topics), RD_KAFKA_RESP_ERR_NO_ERROR);
  rd_kafka_topic_partition_list_destroy(topics);
  // JoinGroup, SyncGroup and the client's own assignor: the consumer ends
  // up with the topic's partition (the loop bound is a hang guard only).
  int assigned = 0;
  for (int i = 0; i < 120 && assigned == 0; ++i) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk.get(), 250);
    if (m != nullptr) rd_kafka_message_destroy(m);
    rd_kafka_topic_partition_list_t* assignment = nullptr;
    ASSERT_EQ(rd_kafka_assignment(rk.get(), &assignment), RD_KAFKA_RESP_ERR_NO_ERROR);
    assigned = assignment->cnt;
    rd_kafka_topic_partition_list_destroy(assignment);
  }
  EXPECT_EQ(assigned, 1);
  rd_kafka_consumer_close(rk.get());
}

TEST_F(KafkaGroupsTest, ListsAndDescribesTheGroupsThatCommitted) {
  ConsumerOptions options;
  options.bootstrap = broker_->address();
  options.group_id = "native-group";
  Result<std::unique_ptr<Consumer>> native = Consumer::create(options);
  ASSERT_TRUE(native.ok());
  const TopicPartitionOffset commit[] = {{"grouped", 0, 1}};
  ASSERT_TRUE((*native)->commit(commit).ok());

  // librdkafka's group listing: ListGroups, then DescribeGroups.
  KafkaHandle rk = make_client(RD_KAFKA_PRODUCER, broker_->kafka_address());
  const rd_kafka_group_list* list = nullptr;
  ASSERT_EQ(rd_kafka_list_groups(rk.get(), nullptr, &list, kGuardMs), RD_KAFKA_RESP_ERR_NO_ERROR);
  ASSERT_EQ(list->group_cnt, 1);
  EXPECT_STREQ(list->groups[0].group, "native-group");
  EXPECT_STREQ(list->groups[0].state, "Empty");
  EXPECT_EQ(list->groups[0].member_cnt, 0);
  rd_kafka_group_list_destroy(list);

  KafkaWireClient client(broker_->kafka_port());
  ASSERT_TRUE(client.connected());
  const std::string_view ids[] = {"native-group", "never-committed", ""};
  kafka::DescribeGroupsRequest describe;
  describe.groups = ids;
  for (int16_t version : {0, 5}) {
    Result<kafka::DescribeGroupsResponse> got =
        client.try_call<kafka::DescribeGroupsResponse>(describe, version);
    ASSERT_TRUE(got.ok()) << got.status().to_string();
    std::vector<kafka::DescribeGroupsResponse::Group> groups(got->groups.begin(),
                                                             got->groups.end());
    ASSERT_EQ(groups.size(), 3u);
    EXPECT_EQ(groups[0].group_state, "Empty");
    EXPECT_EQ(groups[0].members.size(), 0);
    EXPECT_EQ(groups[1].error_code, 0);
    EXPECT_EQ(groups[1].group_state, "Dead");
    EXPECT_EQ(groups[2].error_code, kafka::errors::kInvalidGroupId);
  }

  const std::string_view stable[] = {"Stable"};
  kafka::ListGroupsRequest filtered;
  filtered.states_filter = stable;
  Result<kafka::ListGroupsResponse> none = client.try_call<kafka::ListGroupsResponse>(filtered, 4);
  ASSERT_TRUE(none.ok()) << none.status().to_string();
  EXPECT_EQ(none->groups.size(), 0);
}

// rd_kafka_DeleteGroups on `group`: the group's error code.
rd_kafka_resp_err_t delete_group(KafkaAdmin& admin, const std::string& group) {
  rd_kafka_DeleteGroup_t* g = rd_kafka_DeleteGroup_new(group.c_str());
  rd_kafka_AdminOptions_t* opts = admin.options(RD_KAFKA_ADMIN_OP_DELETEGROUPS);
  rd_kafka_DeleteGroups(admin.handle(), &g, 1, opts, admin.queue());
  rd_kafka_AdminOptions_destroy(opts);
  rd_kafka_DeleteGroup_destroy(g);
  KafkaEvent ev = admin.wait(RD_KAFKA_EVENT_DELETEGROUPS_RESULT);
  EXPECT_TRUE(ev) << "no DeleteGroups result";
  if (!ev) return RD_KAFKA_RESP_ERR__TIMED_OUT;
  size_t n = 0;
  const rd_kafka_group_result_t** results =
      rd_kafka_DeleteGroups_result_groups(rd_kafka_event_DeleteGroups_result(ev.get()), &n);
  EXPECT_EQ(n, 1u);
  if (n != 1) return RD_KAFKA_RESP_ERR__FAIL;
  const rd_kafka_error_t* error = rd_kafka_group_result_error(results[0]);
  return error == nullptr ? RD_KAFKA_RESP_ERR_NO_ERROR : rd_kafka_error_code(error);
}

TEST_F(KafkaGroupsTest, DeletesAGroupsCommittedOffsets) {
  ConsumerOptions options;
  options.bootstrap = broker_->address();
  options.group_id = "doomed";
  Result<std::unique_ptr<Consumer>> native = Consumer::create(options);
  ASSERT_TRUE(native.ok());
  const TopicPartitionOffset commit[] = {{"grouped", 0, 4}};
  ASSERT_TRUE((*native)->commit(commit).ok());

  KafkaAdmin admin(broker_->kafka_address());
  EXPECT_EQ(delete_group(admin, "doomed"), RD_KAFKA_RESP_ERR_NO_ERROR);
  Result<int64_t> committed = (*native)->committed("grouped", 0);
  ASSERT_TRUE(committed.ok()) << committed.status().to_string();
  EXPECT_EQ(*committed, -1);
  EXPECT_EQ(delete_group(admin, "doomed"), RD_KAFKA_RESP_ERR_GROUP_ID_NOT_FOUND);
}

}  // namespace
}  // namespace spillway::testing
