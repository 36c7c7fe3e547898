#include "keyed_producer.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

namespace spillway::testing {

KeyedProducer::KeyedProducer(const std::string& bootstrap, std::string topic)
    : topic_(std::move(topic)) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char error[512];
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
           {"bootstrap.servers", bootstrap},
           {"enable.idempotence", "true"},
           {"acks", "all"},
           {"linger.ms", "5"},
           // Survives a broker kill -9 and restart (the kill test).
           {"message.timeout.ms", "180000"},
           {"retry.backoff.ms", "50"},
           {"reconnect.backoff.ms", "50"},
           {"reconnect.backoff.max.ms", "500"},
           {"log_level", "3"},
       }) {
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), error, sizeof error) != RD_KAFKA_CONF_OK) {
      std::fprintf(stderr, "%s: %s\n", k.c_str(), error);
      std::abort();
    }
  }
  rd_kafka_conf_set_dr_msg_cb(conf, &KeyedProducer::on_delivery);
  rd_kafka_conf_set_opaque(conf, this);
  rk_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, error, sizeof error);
  if (rk_ == nullptr) {
    std::fprintf(stderr, "producer: %s\n", error);
    std::abort();
  }
  thread_ = std::thread([this] { run(); });
}

KeyedProducer::~KeyedProducer() {
  stop_.store(true);
  thread_.join();
  rd_kafka_purge(rk_, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
  rd_kafka_flush(rk_, 1000);
  rd_kafka_destroy(rk_);
}

void KeyedProducer::on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
  auto& self = *static_cast<KeyedProducer*>(opaque);
  if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
    self.delivered_.fetch_add(1);
  } else if (self.failed_.fetch_add(1) == 0) {
    self.first_error_.store(m->err);
  }
}

void KeyedProducer::trickle(int per_second, int limit) {
  trickle_start_ = std::chrono::steady_clock::now();
  trickle_base_ = allowed_.load();
  trickle_limit_ = limit;
  trickle_rate_.store(per_second);
}

void KeyedProducer::run() {
  while (!stop_.load()) {
    const int i = sent_.load();
    if (const int rate = trickle_rate_.load(); rate > 0 && i < trickle_limit_) {
      const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::steady_clock::now() - trickle_start_);
      const int64_t paced = trickle_base_ + int64_t{rate} * elapsed.count() / 1000;
      const int target = static_cast<int>(std::min<int64_t>(paced, trickle_limit_));
      int current = allowed_.load();
      while (current < target && !allowed_.compare_exchange_weak(current, target)) {
      }
    }
    if (i >= allowed_.load()) {
      rd_kafka_poll(rk_, 20);  // serves delivery reports while idle
      continue;
    }
    const std::string key = KeyedProducer::key(i);
    const std::string value = KeyedProducer::value(i);
    const rd_kafka_resp_err_t err = rd_kafka_producev(
        rk_, RD_KAFKA_V_TOPIC(topic_.c_str()), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
        RD_KAFKA_V_KEY(key.data(), key.size()),
        RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()), RD_KAFKA_V_END);
    if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
      rd_kafka_poll(rk_, 10);
      continue;
    }
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      if (failed_.fetch_add(1) == 0) first_error_.store(err);
    }
    sent_.store(i + 1);
    rd_kafka_poll(rk_, 0);
  }
}

bool KeyedProducer::wait_delivered(std::chrono::milliseconds guard) {
  const auto deadline = std::chrono::steady_clock::now() + guard;
  while (delivered_.load() + failed_.load() < allowed_.load() &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return delivered_.load() == allowed_.load() && failed_.load() == 0;
}

std::string KeyedProducer::first_error() const {
  return rd_kafka_err2str(static_cast<rd_kafka_resp_err_t>(first_error_.load()));
}

}  // namespace spillway::testing
