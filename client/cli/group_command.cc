// `spillway group list|describe|reset-offsets|delete`: consumer group
// administration through spillway::Admin. list and describe print tables,
// or with --output json one JSON document.
#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "json_output.h"
#include "spillway/admin.h"
#include "topic_name_check.h"

namespace spillway::cli {

namespace {

struct GroupCommandOptions {
  std::string broker = kDefaultBroker;
  std::string group;
  std::string topic;
  bool to_earliest = false;
  bool to_latest = false;
  int64_t to_offset = -1;
  std::string to_datetime;
  int timeout_ms = 10'000;
  std::string output = "text";  // list and describe: text or json
};

Result<Admin> connect(const GroupCommandOptions& o) {
  return Admin::connect(o.broker, cli_connection_options(o.timeout_ms));
}

// Days from 1970-01-01 to the proleptic Gregorian date y-m-d (Howard
// Hinnant's days_from_civil).
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

// --to-datetime: milliseconds since the epoch, or ISO-8601
// YYYY-MM-DD[THH:MM[:SS[.fff]]][Z|+HH:MM|-HH:MM] (no zone: UTC). Empty
// string when `text` is valid, else why not.
std::string parse_datetime(const std::string& text, int64_t* ms) {
  const std::string why =
      "expected milliseconds since the epoch or YYYY-MM-DDTHH:MM:SS[.mmm][Z|+HH:MM]";
  if (!text.empty() && text.size() <= 15 && std::all_of(text.begin(), text.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      })) {
    *ms = std::stoll(text);
    return "";
  }
  size_t i = 0;
  // Reads exactly n digits.
  auto digits = [&](size_t n, int* out) {
    if (i + n > text.size()) return false;
    int v = 0;
    for (size_t k = 0; k < n; ++k) {
      const char c = text[i + k];
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
      v = v * 10 + (c - '0');
    }
    i += n;
    *out = v;
    return true;
  };
  auto expect = [&](char c) {
    if (i < text.size() && text[i] == c) {
      ++i;
      return true;
    }
    return false;
  };
  int year, month, day, hour = 0, minute = 0, second = 0, millis = 0;
  if (!digits(4, &year) || !expect('-') || !digits(2, &month) || !expect('-') || !digits(2, &day) ||
      month < 1 || month > 12 || day < 1 || day > 31) {
    return why;
  }
  if (expect('T') || expect(' ')) {
    if (!digits(2, &hour) || !expect(':') || !digits(2, &minute) || hour > 23 || minute > 59) {
      return why;
    }
    if (expect(':')) {
      if (!digits(2, &second) || second > 60) return why;
      if (expect('.')) {
        // Any number of fraction digits; milliseconds are kept.
        const size_t start = i;
        int scale = 100;
        while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
          millis += (text[i] - '0') * scale;
          scale /= 10;
          ++i;
        }
        if (i == start) return why;
      }
    }
  }
  int64_t offset_minutes = 0;
  if (i < text.size()) {
    if (text[i] == 'Z') {
      ++i;
    } else if (text[i] == '+' || text[i] == '-') {
      const int sign = text[i] == '+' ? 1 : -1;
      ++i;
      int oh, om;
      if (!digits(2, &oh)) return why;
      expect(':');
      if (!digits(2, &om) || oh > 23 || om > 59) return why;
      offset_minutes = sign * (oh * 60 + om);
    }
  }
  if (i != text.size()) return why;
  const int64_t seconds =
      days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day)) * 86'400 +
      hour * 3'600 + minute * 60 + second - offset_minutes * 60;
  *ms = seconds * 1'000 + millis;
  return "";
}

int fail(const char* what, const Status& st) {
  std::fprintf(stderr, "spillway group %s: %s\n", what, std::string(st.message()).c_str());
  return 1;
}

// "-" for an offset or lag that is not known.
std::string number_or_dash(int64_t v) {
  return v < 0 ? std::string("-") : std::to_string(v);
}

// A text table: columns as wide as their widest cell, two spaces apart.
class Table {
 public:
  explicit Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void print() const {
    std::vector<size_t> width;
    for (const auto& row : rows_) {
      width.resize(std::max(width.size(), row.size()));
      for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
    }
    for (const auto& row : rows_) {
      std::string line;
      for (size_t i = 0; i < row.size(); ++i) {
        line += row[i];
        if (i + 1 < row.size()) line.append(width[i] - row[i].size() + 2, ' ');
      }
      std::printf("%s\n", line.c_str());
    }
  }

 private:
  std::vector<std::vector<std::string>> rows_;
};

int run_list(const GroupCommandOptions& o) {
  Result<Admin> admin = connect(o);
  if (!admin.ok()) return fail("list", admin.status());
  Result<std::vector<GroupListing>> groups = admin->list_groups();
  if (!groups.ok()) return fail("list", groups.status());
  if (o.output == "json") {
    JsonDocument list = JsonDocument::array();
    for (const GroupListing& g : *groups) {
      list.push_back({{"group", g.group}, {"state", g.state}, {"protocol_type", g.protocol_type}});
    }
    print_json(list);
    return 0;
  }
  Table table({"GROUP", "STATE", "PROTOCOL-TYPE"});
  for (const GroupListing& g : *groups) {
    table.add({g.group, g.state, g.protocol_type.empty() ? "-" : g.protocol_type});
  }
  table.print();
  return 0;
}

std::string assignment_text(const GroupMember& m) {
  std::string out;
  for (const GroupTopicPartitions& tp : m.assignment) {
    if (!out.empty()) out += " ";
    out += tp.topic + ":";
    for (size_t i = 0; i < tp.partitions.size(); ++i) {
      out += (i == 0 ? "" : ",") + std::to_string(tp.partitions[i]);
    }
  }
  return out.empty() ? "-" : out;
}

// null for an offset or lag that is not known (-1), for --output json.
JsonDocument number_or_null(int64_t v) {
  return v < 0 ? JsonDocument(nullptr) : JsonDocument(v);
}

JsonDocument string_or_null(const std::string& s) {
  return s.empty() ? JsonDocument(nullptr) : JsonDocument(s);
}

JsonDocument describe_json(const GroupDescription& d) {
  JsonDocument members = JsonDocument::array();
  for (const GroupMember& m : d.members) {
    JsonDocument assignment = JsonDocument::array();
    for (const GroupTopicPartitions& tp : m.assignment) {
      assignment.push_back({{"topic", tp.topic}, {"partitions", tp.partitions}});
    }
    members.push_back(
        {{"member_id", m.member_id},
         {"group_instance_id",
          m.group_instance_id ? JsonDocument(*m.group_instance_id) : JsonDocument(nullptr)},
         {"client_id", m.client_id},
         {"client_host", m.client_host},
         {"assignment", std::move(assignment)}});
  }
  JsonDocument partitions = JsonDocument::array();
  for (const GroupPartitionLag& p : d.partitions) {
    partitions.push_back({{"topic", p.topic},
                          {"partition", p.partition},
                          {"member_id", string_or_null(p.member_id)},
                          {"client_id", string_or_null(p.client_id)},
                          {"committed", number_or_null(p.committed)},
                          {"log_end_offset", p.log_end_offset},
                          {"lag", number_or_null(p.lag)}});
  }
  return {{"group", d.group},
          {"state", d.state},
          {"protocol", d.protocol},
          {"generation", d.generation},
          {"members", std::move(members)},
          {"partitions", std::move(partitions)}};
}

int run_describe(const GroupCommandOptions& o) {
  Result<Admin> admin = connect(o);
  if (!admin.ok()) return fail("describe", admin.status());
  Result<GroupDescription> d = admin->describe_group(o.group);
  if (!d.ok()) return fail("describe", d.status());
  if (o.output == "json") {
    print_json(describe_json(*d));
    return 0;
  }
  std::printf("group %s: state %s, protocol %s, generation %d, %zu member%s\n", d->group.c_str(),
              d->state.c_str(), d->protocol.empty() ? "-" : d->protocol.c_str(), d->generation,
              d->members.size(), d->members.size() == 1 ? "" : "s");
  if (!d->members.empty()) {
    std::printf("\n");
    Table members({"MEMBER", "INSTANCE", "CLIENT", "HOST", "ASSIGNMENT"});
    for (const GroupMember& m : d->members) {
      members.add({m.member_id, m.group_instance_id.value_or("-"), m.client_id,
                   m.client_host.empty() ? "-" : m.client_host, assignment_text(m)});
    }
    members.print();
  }
  if (!d->partitions.empty()) {
    std::printf("\n");
    Table partitions({"TOPIC", "PARTITION", "MEMBER", "CLIENT", "COMMITTED", "LOG-END", "LAG"});
    for (const GroupPartitionLag& p : d->partitions) {
      partitions.add({p.topic, std::to_string(p.partition), p.member_id.empty() ? "-" : p.member_id,
                      p.client_id.empty() ? "-" : p.client_id, number_or_dash(p.committed),
                      std::to_string(p.log_end_offset), number_or_dash(p.lag)});
    }
    partitions.print();
  }
  return 0;
}

int run_reset(const GroupCommandOptions& o) {
  OffsetResetSpec spec;
  if (o.to_earliest) {
    spec = OffsetResetSpec::earliest();
  } else if (o.to_latest) {
    spec = OffsetResetSpec::latest();
  } else if (!o.to_datetime.empty()) {
    int64_t ms = 0;
    parse_datetime(o.to_datetime, &ms);  // checked when parsed
    spec = OffsetResetSpec::to_timestamp(ms);
  } else {
    spec = OffsetResetSpec::to_offset(o.to_offset);
  }
  Result<Admin> admin = connect(o);
  if (!admin.ok()) return fail("reset-offsets", admin.status());
  Result<std::vector<OffsetResetResult>> reset = admin->reset_offsets(o.group, o.topic, spec);
  if (!reset.ok()) return fail("reset-offsets", reset.status());
  std::printf("group %s, topic %s: offsets reset\n", o.group.c_str(), o.topic.c_str());
  for (const OffsetResetResult& r : *reset) {
    std::printf("  partition %d: %s -> %" PRId64 "\n", r.partition,
                number_or_dash(r.old_offset).c_str(), r.new_offset);
  }
  return 0;
}

int run_delete(const GroupCommandOptions& o) {
  Result<Admin> admin = connect(o);
  if (!admin.ok()) return fail("delete", admin.status());
  if (Status st = admin->delete_group(o.group); !st.ok()) return fail("delete", st);
  std::printf("deleted group %s\n", o.group.c_str());
  return 0;
}

void add_common(CLI::App* cmd, GroupCommandOptions* o) {
  cmd->add_option("-b,--broker", o->broker, "broker address HOST:PORT")->capture_default_str();
  cmd->add_option("--timeout-ms", o->timeout_ms, "connect and response timeout")
      ->check(CLI::Range(1, 3'600'000))
      ->capture_default_str();
}

}  // namespace

void add_group_command(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<GroupCommandOptions>();
  CLI::App* group =
      app.add_subcommand("group", "List, describe, delete consumer groups and reset their offsets");
  group->require_subcommand(1);

  CLI::App* list = group->add_subcommand("list", "Print every group with its state");
  add_common(list, o.get());
  add_output_option(list, &o->output);
  list->callback([o, exit_code] { *exit_code = run_list(*o); });

  CLI::App* describe = group->add_subcommand(
      "describe", "Print a group's members and, per partition, its committed offset and lag");
  describe->add_option("group", o->group, "group name")->required();
  add_common(describe, o.get());
  add_output_option(describe, &o->output);
  describe->callback([o, exit_code] { *exit_code = run_describe(*o); });

  CLI::App* reset = group->add_subcommand(
      "reset-offsets", "Set a group's committed offsets for a topic (the group must be empty)");
  reset->add_option("group", o->group, "group name")->required();
  reset->add_option("-t,--topic", o->topic, "topic whose partitions are reset")
      ->required()
      ->check(topic_name_check());
  // Exactly one target: none or two is a usage error (exit 2).
  CLI::Option_group* target = reset->add_option_group("target", "where the offsets go");
  target->add_flag("--to-earliest", o->to_earliest, "to each partition's log start");
  target->add_flag("--to-latest", o->to_latest, "to each partition's log end");
  target->add_option("--to-offset", o->to_offset, "to this offset (kept inside each log)")
      ->check(CLI::NonNegativeNumber);
  target
      ->add_option("--to-datetime", o->to_datetime,
                   "to the first record at or after this time: milliseconds since the epoch or "
                   "ISO-8601 (2026-12-01T09:30:00Z, +HH:MM; no zone: UTC). Reads each partition "
                   "from its start up to that record")
      ->check(CLI::Validator(
          [](std::string& text) {
            int64_t ms = 0;
            return parse_datetime(text, &ms);
          },
          "DATETIME", "datetime"));
  target->require_option(1);
  add_common(reset, o.get());
  reset->callback([o, exit_code] { *exit_code = run_reset(*o); });

  CLI::App* del = group->add_subcommand("delete", "Delete a group without members and its offsets");
  del->add_option("group", o->group, "group name")->required();
  add_common(del, o.get());
  del->callback([o, exit_code] { *exit_code = run_delete(*o); });
}

}  // namespace spillway::cli
