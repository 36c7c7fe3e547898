// quiet_client: a program built as an application would build it, linking
// the client library and nothing else. It creates a topic, produces records,
// reads them back and exits; client_logging_test.cc runs it against a real
// broker with its stderr captured, to see what the library prints.
//
//   quiet_client BROKER TOPIC MODE
//
// MODE says what it does about the library's log lines before it starts:
//   default         nothing (the library's defaults);
//   handler         sets the level to info and a handler that keeps the
//                   lines, then prints each to stdout as "handler LEVEL LINE";
//   info-to-stderr  sets the level to info and keeps the default handler.
// Prints "consumed N" once the N records it produced came back; exits 1 with
// the error on stdout otherwise.
#include <spillway/admin.h>
#include <spillway/consumer.h>
#include <spillway/log.h>
#include <spillway/producer.h>

#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr int kRecords = 100;

// The lines the "handler" mode's handler received, in order.
struct KeptLines {
  std::mutex mutex;
  std::vector<std::string> lines;
};

int fail(std::string_view what, const spillway::Status& status) {
  std::printf("%.*s: %s\n", static_cast<int>(what.size()), what.data(), status.to_string().c_str());
  return 1;
}

// Produces kRecords records to `topic` and reads them back from the start.
int produce_and_consume(const std::string& broker, const std::string& topic) {
  auto admin = spillway::Admin::connect(broker);
  if (!admin.ok()) return fail("admin", admin.status());
  spillway::TopicOptions topic_options;
  topic_options.partitions = 2;
  if (spillway::Status st = admin->create_topic(topic, topic_options); !st.ok()) {
    return fail("create topic", st);
  }

  spillway::ProducerOptions producer_options;
  producer_options.bootstrap = broker;
  auto producer = spillway::Producer::create(producer_options);
  if (!producer.ok()) return fail("producer", producer.status());
  for (int i = 0; i < kRecords; ++i) {
    (*producer)->send(topic, "key-" + std::to_string(i % 7), "value-" + std::to_string(i));
  }
  if (spillway::Status st = (*producer)->close(); !st.ok()) return fail("produce", st);

  spillway::ConsumerOptions consumer_options;
  consumer_options.bootstrap = broker;
  auto consumer = spillway::Consumer::create(consumer_options);
  if (!consumer.ok()) return fail("consumer", consumer.status());
  if (spillway::Status st = (*consumer)->assign(topic); !st.ok()) return fail("assign", st);
  int consumed = 0;
  while (consumed < kRecords) {
    auto records = (*consumer)->poll(std::chrono::seconds(10));
    if (!records.ok()) return fail("poll", records.status());
    if (records->empty()) break;
    consumed += static_cast<int>(records->size());
  }
  std::printf("consumed %d\n", consumed);
  return consumed == kRecords ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: quiet_client BROKER TOPIC default|handler|info-to-stderr\n");
    return 2;
  }
  const std::string_view mode = argv[3];
  KeptLines kept;
  if (mode == "handler") {
    spillway::set_log_level(spillway::LogLevel::kInfo);
    spillway::set_log_handler([&kept](spillway::LogLevel level, std::string_view line) {
      std::lock_guard<std::mutex> lock(kept.mutex);
      kept.lines.push_back(std::string(spillway::log_level_name(level)) + " " + std::string(line));
    });
  } else if (mode == "info-to-stderr") {
    spillway::set_log_level(spillway::LogLevel::kInfo);
  } else if (mode != "default") {
    std::fprintf(stderr, "quiet_client: unknown mode\n");
    return 2;
  }
  const int result = produce_and_consume(argv[1], argv[2]);
  // The handler refers to `kept`: take it away before `kept` goes.
  spillway::set_log_handler({});
  for (const std::string& line : kept.lines) std::printf("handler %s\n", line.c_str());
  return result;
}
