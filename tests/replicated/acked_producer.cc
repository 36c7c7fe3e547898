// AckedProducer.
#include "acked_producer.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace spillway::testing {

AckedProducer::AckedProducer(const std::string& bootstrap, std::string topic, int keys,
                             std::vector<std::pair<std::string, std::string>> extra)
    : topic_(std::move(topic)), keys_(keys) {
  char errstr[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  std::vector<std::pair<std::string, std::string>> settings = {
      {"bootstrap.servers", bootstrap},
      {"acks", "all"},
      {"enable.idempotence", "true"},
      {"message.timeout.ms", "120000"},
      {"linger.ms", "2"},
      {"queue.buffering.max.messages", "20000"},
      {"topic.metadata.refresh.interval.ms", "1000"},
      {"retry.backoff.ms", "50"},
      {"log_level", "3"},
  };
  // librdkafka's own debug log (e.g. "eos,msg,protocol") when a fault run
  // needs explaining; unset in the suite.
  if (const char* debug = std::getenv("SPILLWAY_RDKAFKA_DEBUG"); debug != nullptr && *debug) {
    settings.emplace_back("debug", debug);
    settings.emplace_back("log_level", "7");
  }
  for (auto& kv : extra) settings.push_back(std::move(kv));
  for (const auto& [k, v] : settings) {
    EXPECT_EQ(rd_kafka_conf_set(conf, k.c_str(), v.c_str(), errstr, sizeof(errstr)),
              RD_KAFKA_CONF_OK)
        << k << ": " << errstr;
  }
  rd_kafka_conf_set_dr_msg_cb(conf, &AckedProducer::on_delivery);
  rd_kafka_conf_set_opaque(conf, this);
  rk_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
  EXPECT_NE(rk_, nullptr) << errstr;
}

AckedProducer::~AckedProducer() {
  stop(std::chrono::seconds(30));
  if (rk_ != nullptr) rd_kafka_destroy(rk_);
}

void AckedProducer::start() {
  thread_ = std::thread([this] { run(); });
}

void AckedProducer::stop(std::chrono::milliseconds guard) {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  if (rk_ == nullptr) return;
  rd_kafka_flush(rk_, static_cast<int>(guard.count()));
  // Whatever is still queued was never acknowledged.
  const int left = rd_kafka_outq_len(rk_);
  if (left > 0) {
    rd_kafka_purge(rk_, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
    rd_kafka_poll(rk_, 0);
  }
}

void AckedProducer::run() {
  int64_t i = 0;
  while (!stop_.load()) {
    const std::string key = "k" + std::to_string(i % keys_);
    const std::string value = key + ":" + std::to_string(i);
    const rd_kafka_resp_err_t err =
        rd_kafka_producev(rk_, RD_KAFKA_V_TOPIC(topic_.c_str()),
                          RD_KAFKA_V_KEY(const_cast<char*>(key.data()), key.size()),
                          RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
                          RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
    if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
      rd_kafka_poll(rk_, 10);
      continue;
    }
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      failed_.fetch_add(1);
      std::lock_guard lock(mu_);
      if (first_error_.empty()) first_error_ = rd_kafka_err2str(err);
      continue;
    }
    {
      std::lock_guard lock(mu_);
      sent_at_.push_back(std::chrono::steady_clock::now());
    }
    ++i;
    rd_kafka_poll(rk_, 0);
  }
}

void AckedProducer::on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
  auto* self = static_cast<AckedProducer*>(opaque);
  if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    self->failed_.fetch_add(1);
    std::lock_guard lock(self->mu_);
    if (self->first_error_.empty()) self->first_error_ = rd_kafka_err2str(m->err);
    return;
  }
  AckedRecord r;
  r.partition = m->partition;
  r.offset = m->offset;
  r.key.assign(static_cast<const char*>(m->key), m->key_len);
  r.value.assign(static_cast<const char*>(m->payload), m->len);
  r.acked_at = std::chrono::steady_clock::now();
  std::lock_guard lock(self->mu_);
  const size_t colon = r.value.rfind(':');
  const size_t seq = colon == std::string::npos ? 0 : std::stoull(r.value.substr(colon + 1));
  if (seq < self->sent_at_.size()) r.sent_at = self->sent_at_[seq];
  self->records_.push_back(std::move(r));
  self->acked_count_.fetch_add(1);
}

std::string AckedProducer::first_error() const {
  std::lock_guard lock(mu_);
  return first_error_;
}

std::vector<AckedRecord> AckedProducer::records() const {
  std::lock_guard lock(mu_);
  return records_;
}

bool AckedProducer::first_ack_after(std::chrono::steady_clock::time_point t, int32_t partition,
                                    std::chrono::steady_clock::time_point* at) const {
  std::lock_guard lock(mu_);
  bool found = false;
  for (const AckedRecord& r : records_) {
    if (r.sent_at >= t && r.partition == partition && (!found || r.acked_at < *at)) {
      *at = r.acked_at;
      found = true;
    }
  }
  return found;
}

}  // namespace spillway::testing
