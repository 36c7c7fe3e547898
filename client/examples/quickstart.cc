// quickstart: the C++ client in a few lines, as shown in README.md.
// Creates a topic (if it is missing), produces three keyed messages, reads
// them back and prints "offset key=value" for each.
//
//   quickstart [BROKER (default 127.0.0.1:9092)] [TOPIC (default quickstart)]
//
// The test suite builds this program and runs it against a real broker.
#include <spillway/admin.h>
#include <spillway/consumer.h>
#include <spillway/producer.h>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  const std::string broker = argc > 1 ? argv[1] : "127.0.0.1:9092";
  const std::string topic = argc > 2 ? argv[2] : "quickstart";

  // Admin: create the topic (it may exist already).
  auto admin = spillway::Admin::connect(broker);
  if (!admin.ok()) {
    std::fprintf(stderr, "%s\n", admin.status().to_string().c_str());
    return 1;
  }
  spillway::TopicOptions options;
  options.partitions = 3;
  spillway::Status created = admin->create_topic(topic, options);
  if (!created.ok() && created.code() != spillway::ErrorCode::kTopicExists) {
    std::fprintf(stderr, "%s\n", created.to_string().c_str());
    return 1;
  }

  // Producer: send() returns a future with the partition and offset.
  spillway::ProducerOptions producer_options;
  producer_options.bootstrap = broker;
  auto producer = spillway::Producer::create(producer_options);
  if (!producer.ok()) return 1;
  auto sent = (*producer)->send(topic, "user-1", "hello");
  (*producer)->send(topic, "user-2", "from");
  (*producer)->send(topic, "user-1", "spillway");
  if (!(*producer)->close().ok()) return 1;  // waits for every acknowledgement
  spillway::Result<spillway::RecordMetadata> hello = sent.get();
  if (!hello.ok()) return 1;
  std::printf("hello went to partition %d offset %lld\n", hello->partition,
              static_cast<long long>(hello->offset));

  // Consumer: read every partition from the beginning.
  spillway::ConsumerOptions consumer_options;
  consumer_options.bootstrap = broker;
  auto consumer = spillway::Consumer::create(consumer_options);
  if (!consumer.ok() || !(*consumer)->assign(topic).ok()) return 1;
  for (int seen = 0; seen < 3;) {
    auto records = (*consumer)->poll(std::chrono::seconds(5));
    if (!records.ok() || records->empty()) return 1;
    for (const spillway::ConsumerRecord& r : *records) {
      std::printf("%lld %.*s=%.*s\n", static_cast<long long>(r.offset),
                  static_cast<int>(r.key_string().size()), r.key_string().data(),
                  static_cast<int>(r.value_string().size()), r.value_string().data());
      ++seen;
    }
  }
  return 0;
}
