// GroupConsumer.
#include "group_consumer.h"

#include <gtest/gtest.h>

#include <chrono>

namespace spillway::testing {

GroupConsumer::GroupConsumer(const std::string& bootstrap, const std::string& group,
                             std::string topic, const std::string& reset)
    : topic_(std::move(topic)) {
  char errstr[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  const std::vector<std::pair<std::string, std::string>> settings = {
      {"bootstrap.servers", bootstrap},
      {"group.id", group},
      {"auto.offset.reset", reset},
      {"enable.auto.commit", "true"},
      {"auto.commit.interval.ms", "200"},
      {"topic.metadata.refresh.interval.ms", "1000"},
      {"log_level", "3"},
  };
  for (const auto& [k, v] : settings) {
    EXPECT_EQ(rd_kafka_conf_set(conf, k.c_str(), v.c_str(), errstr, sizeof(errstr)),
              RD_KAFKA_CONF_OK)
        << k << ": " << errstr;
  }
  rk_ = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
  EXPECT_NE(rk_, nullptr) << errstr;
  if (rk_ != nullptr) rd_kafka_poll_set_consumer(rk_);
}

std::string GroupConsumer::commit_start(const std::string& bootstrap, const std::string& group,
                                        const std::string& topic, int partitions, int64_t offset) {
  char errstr[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), errstr, sizeof(errstr));
  rd_kafka_conf_set(conf, "group.id", group.c_str(), errstr, sizeof(errstr));
  rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof(errstr));
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
  if (rk == nullptr) return errstr;
  rd_kafka_topic_partition_list_t* offsets = rd_kafka_topic_partition_list_new(partitions);
  for (int p = 0; p < partitions; ++p) {
    rd_kafka_topic_partition_list_add(offsets, topic.c_str(), p)->offset = offset;
  }
  std::string error;
  // The coordinator may be moving (or loading the group): retriable errors
  // are tried again.
  for (int attempt = 0; attempt < 50; ++attempt) {
    const rd_kafka_resp_err_t err = rd_kafka_commit(rk, offsets, /*async=*/0);
    error = err == RD_KAFKA_RESP_ERR_NO_ERROR ? "" : rd_kafka_err2str(err);
    if (error.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  rd_kafka_topic_partition_list_destroy(offsets);
  rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);
  return error;
}

GroupConsumer::~GroupConsumer() {
  stop();
  if (rk_ != nullptr) rd_kafka_destroy(rk_);
}

void GroupConsumer::start() {
  rd_kafka_topic_partition_list_t* topics = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(topics, topic_.c_str(), RD_KAFKA_PARTITION_UA);
  const rd_kafka_resp_err_t err = rd_kafka_subscribe(rk_, topics);
  rd_kafka_topic_partition_list_destroy(topics);
  EXPECT_EQ(err, RD_KAFKA_RESP_ERR_NO_ERROR) << rd_kafka_err2str(err);
  thread_ = std::thread([this] { run(); });
}

void GroupConsumer::stop() {
  stop_.store(true);
  if (thread_.joinable()) {
    thread_.join();
    rd_kafka_consumer_close(rk_);
  }
}

void GroupConsumer::run() {
  while (!stop_.load()) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk_, 100);
    rd_kafka_topic_partition_list_t* assignment = nullptr;
    if (rd_kafka_assignment(rk_, &assignment) == RD_KAFKA_RESP_ERR_NO_ERROR) {
      assigned_.store(assignment->cnt);
      rd_kafka_topic_partition_list_destroy(assignment);
    }
    if (m == nullptr) continue;
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      ConsumedRecord r{.partition = m->partition,
                       .offset = m->offset,
                       .value = std::string(static_cast<const char*>(m->payload), m->len)};
      std::lock_guard lock(mu_);
      records_.push_back(std::move(r));
      consumed_.fetch_add(1);
    } else if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      std::lock_guard lock(mu_);
      if (first_error_.empty()) first_error_ = rd_kafka_message_errstr(m);
    }
    rd_kafka_message_destroy(m);
  }
}

std::string GroupConsumer::first_error() const {
  std::lock_guard lock(mu_);
  return first_error_;
}

std::vector<ConsumedRecord> GroupConsumer::records() const {
  std::lock_guard lock(mu_);
  return records_;
}

}  // namespace spillway::testing
