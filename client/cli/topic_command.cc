// `spillway topic create|delete|list|describe`: topic management through
// spillway::Admin. list and describe print text for people (sizes and
// retention in human units) or, with --output json, one JSON document.
#include <cstdio>
#include <memory>
#include <string>

#include "commands.h"
#include "human_units.h"
#include "json_output.h"
#include "spillway/admin.h"
#include "topic_name_check.h"

namespace spillway::cli {

namespace {

struct TopicCommandOptions {
  std::string broker = kDefaultBroker;
  std::string name;
  int partitions = 1;
  std::string flush;
  int64_t retention_bytes = TopicOptions::kBrokerDefault;
  int64_t retention_ms = TopicOptions::kBrokerDefault;
  int replication_factor = -1;
  int timeout_ms = 10'000;
  std::string output = "text";  // list and describe: text or json
};

Result<Admin> connect(const TopicCommandOptions& o) {
  return Admin::connect(o.broker, cli_connection_options(o.timeout_ms));
}

int fail(const char* what, const Status& st) {
  std::fprintf(stderr, "spillway topic %s: %s\n", what, std::string(st.message()).c_str());
  return 1;
}

int run_create(const TopicCommandOptions& o) {
  Result<Admin> admin = connect(o);
  if (!admin.ok()) return fail("create", admin.status());
  TopicOptions t;
  t.partitions = o.partitions;
  t.flush_policy = o.flush;
  t.retention_bytes = o.retention_bytes;
  t.retention_ms = o.retention_ms;
  t.replication_factor = o.replication_factor;
  Status st = admin->create_topic(o.name, t);
  if (!st.ok()) return fail("create", st);
  std::printf("created topic %s with %d partition%s\n", o.name.c_str(), o.partitions,
              o.partitions == 1 ? "" : "s");
  return 0;
}

int run_delete(const TopicCommandOptions& o) {
  Result<Admin> admin = connect(o);
  if (!admin.ok()) return fail("delete", admin.status());
  Status st = admin->delete_topic(o.name);
  if (!st.ok()) return fail("delete", st);
  std::printf("deleted topic %s\n", o.name.c_str());
  return 0;
}

int run_list(const TopicCommandOptions& o) {
  Result<Admin> admin = connect(o);
  if (!admin.ok()) return fail("list", admin.status());
  Result<std::vector<TopicDescription>> topics = admin->list_topics();
  if (!topics.ok()) return fail("list", topics.status());
  if (o.output == "json") {
    JsonDocument list = JsonDocument::array();
    for (const TopicDescription& t : *topics) {
      list.push_back({{"name", t.name}, {"partitions", t.partitions.size()}});
    }
    print_json(list);
    return 0;
  }
  for (const TopicDescription& t : *topics) std::printf("%s\n", t.name.c_str());
  return 0;
}

// --output json of describe: the broker's numbers as they are (-1 =
// unlimited).
JsonDocument describe_json(const TopicDescription& t) {
  JsonDocument partitions = JsonDocument::array();
  for (const PartitionDescription& p : t.partitions) {
    JsonDocument partition = {
        {"partition", p.partition},
        {"log_start_offset", p.log_start_offset},
        {"high_watermark", p.high_watermark},
        {"size_bytes", p.size_bytes >= 0 ? JsonDocument(p.size_bytes) : JsonDocument(nullptr)}};
    if (p.error != ErrorCode::kOk) {
      partition["error"] = {{"code", error_code_name(p.error)}, {"message", p.error_message}};
    } else {
      partition["error"] = nullptr;
    }
    partitions.push_back(std::move(partition));
  }
  return {{"name", t.name},
          {"flush_policy", t.flush_policy},
          {"retention_bytes", t.retention_bytes},
          {"retention_ms", t.retention_ms},
          {"partitions", std::move(partitions)}};
}

int run_describe(const TopicCommandOptions& o) {
  Result<Admin> admin = connect(o);
  if (!admin.ok()) return fail("describe", admin.status());
  Result<TopicDescription> t = admin->describe_topic(o.name);
  if (!t.ok()) return fail("describe", t.status());
  if (o.output == "json") {
    print_json(describe_json(*t));
    return 0;
  }
  std::printf("topic %s: %zu partitions, flush %s, retention %s by size, %s by age\n",
              t->name.c_str(), t->partitions.size(), t->flush_policy.c_str(),
              human_bytes(t->retention_bytes).c_str(), human_duration_ms(t->retention_ms).c_str());
  for (const PartitionDescription& p : t->partitions) {
    std::printf("  partition %d: log start %lld, high watermark %lld", p.partition,
                static_cast<long long>(p.log_start_offset),
                static_cast<long long>(p.high_watermark));
    // An older broker does not say (Metadata v0).
    if (p.size_bytes >= 0) std::printf(", %s on disk", human_bytes(p.size_bytes).c_str());
    if (p.error == ErrorCode::kCorruptMessage) {
      std::printf(", CORRUPT: %s\n", p.error_message.c_str());
    } else if (p.error != ErrorCode::kOk) {
      std::printf(", %s: %s\n", error_code_name(p.error), p.error_message.c_str());
    } else {
      std::printf("\n");
    }
  }
  return 0;
}

void add_common(CLI::App* cmd, TopicCommandOptions* o) {
  cmd->add_option("-b,--broker", o->broker, "broker address HOST:PORT")->capture_default_str();
  cmd->add_option("--timeout-ms", o->timeout_ms, "connect and response timeout")
      ->check(CLI::Range(1, 3'600'000))
      ->capture_default_str();
}

}  // namespace

void add_topic_command(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<TopicCommandOptions>();
  CLI::App* topic = app.add_subcommand("topic", "Create, delete, list and describe topics");
  topic->require_subcommand(1);

  CLI::App* create = topic->add_subcommand("create", "Create a topic");
  create->add_option("name", o->name, "topic name")->required()->check(topic_name_check());
  add_common(create, o.get());
  create->add_option("-p,--partitions", o->partitions, "number of partitions")
      ->check(CLI::Range(1, 100'000))
      ->capture_default_str();
  create
      ->add_option("--flush", o->flush,
                   "durable (fsync before acknowledging) or interval (default: broker's)")
      ->check(CLI::IsMember({"durable", "interval"}));
  create
      ->add_option("--retention-bytes", o->retention_bytes,
                   "bytes kept per partition (-1 unlimited; default: broker's)")
      ->check(CLI::Range(TopicOptions::kUnlimited, INT64_MAX));
  create
      ->add_option("--retention-ms", o->retention_ms,
                   "age of records kept (-1 unlimited; default: broker's)")
      ->check(CLI::Range(TopicOptions::kUnlimited, INT64_MAX));
  create
      ->add_option("-r,--replication-factor", o->replication_factor,
                   "replicas of each partition in a cluster (-1: the cluster's default)")
      ->check(CLI::Range(-1, 16));
  create->callback([o, exit_code] { *exit_code = run_create(*o); });

  CLI::App* del = topic->add_subcommand("delete", "Delete a topic and its data");
  del->add_option("name", o->name, "topic name")->required()->check(topic_name_check());
  add_common(del, o.get());
  del->callback([o, exit_code] { *exit_code = run_delete(*o); });

  CLI::App* list = topic->add_subcommand("list", "Print every topic's name, one per line");
  add_common(list, o.get());
  add_output_option(list, &o->output);
  list->callback([o, exit_code] { *exit_code = run_list(*o); });

  CLI::App* describe =
      topic->add_subcommand("describe", "Print a topic's settings and partition offsets");
  describe->add_option("name", o->name, "topic name")->required()->check(topic_name_check());
  add_common(describe, o.get());
  add_output_option(describe, &o->output);
  describe->callback([o, exit_code] { *exit_code = run_describe(*o); });
}

}  // namespace spillway::cli
