// quickstart: the C++ client in a few lines. README.md shows the part
// between the "README" markers verbatim (a test checks that it does), and
// the test suite builds this program and runs it against a real broker.
// Creates the topic if it is missing, produces three keyed messages, reads
// them back and prints "offset key=value" for each.
//
//   spillway_quickstart [BROKER (default 127.0.0.1:9093)] [TOPIC (default quickstart)]
#include <spillway/admin.h>
#include <spillway/consumer.h>
#include <spillway/producer.h>

#include <cstdio>
#include <string>

namespace {

int fail(const spillway::Status& status) {
  std::fprintf(stderr, "quickstart: %s\n", status.to_string().c_str());
  return 1;
}

// Creates `topic` with 3 partitions unless it exists.
spillway::Status create_topic(const std::string& broker, const std::string& topic) {
  auto admin = spillway::Admin::connect(broker);
  if (!admin.ok()) return admin.status();
  spillway::TopicOptions options;
  options.partitions = 3;
  spillway::Status created = admin->create_topic(topic, options);
  if (created.code() == spillway::ErrorCode::kTopicExists) return spillway::Status::Ok();
  return created;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string broker = argc > 1 ? argv[1] : "127.0.0.1:9093";
  const std::string topic = argc > 2 ? argv[2] : "quickstart";
  if (spillway::Status st = create_topic(broker, topic); !st.ok()) return fail(st);

  // README begin
  spillway::ProducerOptions producer_options;
  producer_options.bootstrap = broker;
  auto producer = spillway::Producer::create(producer_options);
  if (!producer.ok()) return fail(producer.status());
  auto hello = (*producer)->send(topic, "user-1", "hello");  // key, value
  (*producer)->send(topic, "user-2", "from");
  (*producer)->send(topic, "user-1", "spillway");
  spillway::Status closed = (*producer)->close();  // waits for every acknowledgement
  if (!closed.ok()) return fail(closed);
  spillway::Result<spillway::RecordMetadata> where = hello.get();
  std::printf("hello went to partition %d offset %lld\n", where->partition,
              static_cast<long long>(where->offset));

  spillway::ConsumerOptions consumer_options;
  consumer_options.bootstrap = broker;  // no group_id: every partition from the beginning
  auto consumer = spillway::Consumer::create(consumer_options);
  if (!consumer.ok()) return fail(consumer.status());
  if (spillway::Status st = (*consumer)->assign(topic); !st.ok()) return fail(st);
  for (int seen = 0; seen < 3;) {
    auto records = (*consumer)->poll(std::chrono::seconds(5));
    if (!records.ok()) return fail(records.status());
    if (records->empty()) return 1;  // nothing for 5 s
    for (const spillway::ConsumerRecord& r : *records) {
      std::printf("%lld %.*s=%.*s\n", static_cast<long long>(r.offset),
                  static_cast<int>(r.key_string().size()), r.key_string().data(),
                  static_cast<int>(r.value_string().size()), r.value_string().data());
      ++seen;
    }
  }
  // README end
  return 0;
}
