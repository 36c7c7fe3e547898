// `spillway acl add|remove|list`: the broker's access control rules
// (spillway::Admin; needs Alter/Describe on the cluster). The flags follow
// Kafka's kafka-acls tool: principals by permission, operations and one
// resource; `add` creates one rule per principal and operation, `remove`
// and `list` select rules with the same flags as filters.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "spillway/acl.h"
#include "spillway/admin.h"

namespace spillway::cli {

namespace {

struct AclCommandOptions {
  std::string broker = kDefaultBroker;
  int timeout_ms = 10'000;
  std::vector<std::string> allow_principals;
  std::vector<std::string> deny_principals;
  std::vector<std::string> operations;
  std::optional<std::string> topic;
  std::optional<std::string> group;
  bool cluster = false;
  std::optional<std::string> pattern_type;  // unset: literal, or any for an unfiltered list
  std::optional<std::string> host;          // unset: "*" for add, any for remove/list
};

int report(const Status& st) {
  if (st.ok()) return 0;
  std::fprintf(stderr, "spillway acl: %s\n", std::string(st.message()).c_str());
  return 1;
}

// "User:alice ALLOW Write on topic orders (literal) from *".
std::string line_of(const AclRule& r) {
  std::string permission(acl_name(r.permission));
  for (char& c : permission) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string type(acl_name(r.resource_type));
  std::string pattern(acl_name(r.pattern_type));
  for (char& c : type) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (char& c : pattern) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string line =
      r.principal + " " + permission + " " + std::string(acl_name(r.operation)) + " on " + type;
  if (r.resource_type != AclResourceType::kCluster) {
    line += " " + r.resource_name + " (" + pattern + ")";
  }
  return line + " from " + r.host;
}

// The resource the flags name, or nullopt when none does; a usage error
// (exit 2) for an unknown pattern type or one a rule cannot have.
struct Resource {
  AclResourceType type = AclResourceType::kAny;
  std::optional<std::string> name;
  AclPatternType pattern = AclPatternType::kAny;
};

Resource resource_of(const AclCommandOptions& o, bool for_rule) {
  Resource r;
  if (o.topic) {
    r.type = AclResourceType::kTopic;
    r.name = *o.topic;
  } else if (o.group) {
    r.type = AclResourceType::kGroup;
    r.name = *o.group;
  } else if (o.cluster) {
    r.type = AclResourceType::kCluster;
    r.name = std::string(kAclClusterName);
  }
  const bool named = r.type != AclResourceType::kAny;
  if (o.pattern_type) {
    r.pattern = parse_acl_pattern_type(*o.pattern_type);
    if (r.pattern == AclPatternType::kUnknown) {
      throw CLI::ValidationError("--resource-pattern-type",
                                 "must be literal, prefixed, any or match");
    }
    if (for_rule && r.pattern != AclPatternType::kLiteral &&
        r.pattern != AclPatternType::kPrefixed) {
      throw CLI::ValidationError("--resource-pattern-type", "a rule is literal or prefixed");
    }
  } else {
    r.pattern = named ? AclPatternType::kLiteral : AclPatternType::kAny;
  }
  if (r.type == AclResourceType::kCluster && r.pattern == AclPatternType::kPrefixed) {
    throw CLI::ValidationError("--cluster", "the cluster resource is literal");
  }
  return r;
}

std::vector<AclOperation> operations_of(const AclCommandOptions& o) {
  std::vector<AclOperation> ops;
  for (const std::string& text : o.operations) {
    const AclOperation op = parse_acl_operation(text);
    if (op == AclOperation::kUnknown || op == AclOperation::kAny) {
      throw CLI::ValidationError("--operation",
                                 "unknown operation \"" + text +
                                     "\" (Read, Write, Create, Delete, Alter, Describe, "
                                     "ClusterAction, DescribeConfigs, AlterConfigs, "
                                     "IdempotentWrite, All)");
    }
    ops.push_back(op);
  }
  return ops;
}

struct Principal {
  std::string name;
  AclPermission permission;
};

std::vector<Principal> principals_of(const AclCommandOptions& o) {
  std::vector<Principal> out;
  for (const std::string& p : o.allow_principals) out.push_back({p, AclPermission::kAllow});
  for (const std::string& p : o.deny_principals) out.push_back({p, AclPermission::kDeny});
  for (const Principal& p : out) {
    if (p.name.find(':') == std::string::npos) {
      throw CLI::ValidationError(
          "--allow-principal/--deny-principal",
          "a principal is Type:name, e.g. User:alice (got \"" + p.name + "\")");
    }
  }
  return out;
}

// The filters `remove` and `list` use: one per principal × operation the
// flags give, kAny for what they leave out.
std::vector<AclRuleFilter> filters_of(const AclCommandOptions& o) {
  const Resource resource = resource_of(o, false);
  AclRuleFilter base;
  base.resource_type = resource.type;
  base.resource_name = resource.name;
  base.pattern_type = resource.pattern;
  base.host = o.host;
  std::vector<Principal> principals = principals_of(o);
  if (principals.empty()) principals.push_back({std::string(), AclPermission::kAny});
  std::vector<AclOperation> ops = operations_of(o);
  if (ops.empty()) ops.push_back(AclOperation::kAny);
  std::vector<AclRuleFilter> filters;
  for (const Principal& p : principals) {
    for (AclOperation op : ops) {
      AclRuleFilter f = base;
      if (!p.name.empty()) f.principal = p.name;
      f.permission = p.permission;
      f.operation = op;
      filters.push_back(std::move(f));
    }
  }
  return filters;
}

Result<Admin> connect(const AclCommandOptions& o) {
  return Admin::connect(o.broker, cli_connection_options(o.timeout_ms));
}

int add(const AclCommandOptions& o) {
  const Resource resource = resource_of(o, true);
  if (resource.type == AclResourceType::kAny) {
    throw CLI::ValidationError("acl add", "needs one resource: --topic, --group or --cluster");
  }
  const std::vector<Principal> principals = principals_of(o);
  if (principals.empty()) {
    throw CLI::ValidationError("acl add", "needs --allow-principal or --deny-principal");
  }
  const std::vector<AclOperation> ops = operations_of(o);
  if (ops.empty()) throw CLI::ValidationError("acl add", "needs --operation");
  std::vector<AclRule> rules;
  for (const Principal& p : principals) {
    for (AclOperation op : ops) {
      rules.push_back({.resource_type = resource.type,
                       .resource_name = *resource.name,
                       .pattern_type = resource.pattern,
                       .principal = p.name,
                       .host = o.host.value_or("*"),
                       .operation = op,
                       .permission = p.permission});
    }
  }
  Result<Admin> admin = connect(o);
  if (!admin.ok()) return report(admin.status());
  Result<std::vector<Status>> results = admin->create_acls(rules);
  if (!results.ok()) return report(results.status());
  int exit_code = 0;
  for (size_t i = 0; i < rules.size() && i < results->size(); ++i) {
    if ((*results)[i].ok()) {
      std::printf("added: %s\n", line_of(rules[i]).c_str());
    } else {
      std::fprintf(stderr, "spillway acl: %s: %s\n", line_of(rules[i]).c_str(),
                   std::string((*results)[i].message()).c_str());
      exit_code = 1;
    }
  }
  return exit_code;
}

int remove(const AclCommandOptions& o) {
  // An empty filter would remove every rule: make that explicit.
  if (!o.topic && !o.group && !o.cluster && o.allow_principals.empty() &&
      o.deny_principals.empty() && o.operations.empty() && !o.host && !o.pattern_type) {
    throw CLI::ValidationError("acl remove",
                               "select rules with a resource, principal, operation or host "
                               "(--resource-pattern-type any alone removes every rule)");
  }
  const std::vector<AclRuleFilter> filters = filters_of(o);
  Result<Admin> admin = connect(o);
  if (!admin.ok()) return report(admin.status());
  Result<std::vector<AclDeletion>> results = admin->delete_acls(filters);
  if (!results.ok()) return report(results.status());
  int exit_code = 0;
  size_t removed = 0;
  for (const AclDeletion& d : *results) {
    if (!d.status.ok()) {
      exit_code = report(d.status);
      continue;
    }
    for (const AclRule& r : d.removed) {
      std::printf("removed: %s\n", line_of(r).c_str());
      ++removed;
    }
  }
  if (exit_code == 0 && removed == 0) std::printf("no matching rules\n");
  return exit_code;
}

int list(const AclCommandOptions& o) {
  const std::vector<AclRuleFilter> filters = filters_of(o);
  Result<Admin> admin = connect(o);
  if (!admin.ok()) return report(admin.status());
  std::vector<AclRule> rules;
  for (const AclRuleFilter& f : filters) {
    Result<std::vector<AclRule>> found = admin->describe_acls(f);
    if (!found.ok()) return report(found.status());
    for (AclRule& r : *found) {
      if (std::find(rules.begin(), rules.end(), r) == rules.end()) rules.push_back(std::move(r));
    }
  }
  for (const AclRule& r : rules) std::printf("%s\n", line_of(r).c_str());
  return 0;
}

}  // namespace

void add_acl_command(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<AclCommandOptions>();
  CLI::App* acl = app.add_subcommand("acl", "manage access control rules (ACLs)");
  acl->require_subcommand(1);
  auto common = [o](CLI::App* cmd) {
    cmd->add_option("--broker", o->broker, "broker address (native protocol)")
        ->capture_default_str();
    cmd->add_option("--timeout-ms", o->timeout_ms, "connect and request timeout")
        ->check(CLI::Range(1, 3'600'000))
        ->capture_default_str();
    cmd->add_option("--allow-principal", o->allow_principals,
                    "principal the rule allows, e.g. User:alice or User:* (repeatable)");
    cmd->add_option("--deny-principal", o->deny_principals,
                    "principal the rule denies (repeatable)");
    cmd->add_option("--operation", o->operations,
                    "Read, Write, Create, Delete, Alter, Describe, ClusterAction, "
                    "DescribeConfigs, AlterConfigs, IdempotentWrite or All (repeatable)");
    CLI::Option* topic = cmd->add_option("--topic", o->topic, "the topic (or prefix)");
    CLI::Option* group = cmd->add_option("--group", o->group, "the consumer group (or prefix)");
    CLI::Option* cluster = cmd->add_flag("--cluster", o->cluster, "the cluster");
    topic->excludes(group)->excludes(cluster);
    group->excludes(cluster);
    cmd->add_option("--resource-pattern-type", o->pattern_type,
                    "literal or prefixed (remove and list also: any, match)");
    cmd->add_option("--host", o->host, "host the rule applies to (add: default *)");
  };
  CLI::App* add_cmd = acl->add_subcommand("add", "add rules: each principal × each operation");
  common(add_cmd);
  add_cmd->callback([o, exit_code] { *exit_code = add(*o); });

  CLI::App* remove_cmd = acl->add_subcommand("remove", "remove the rules the flags select");
  common(remove_cmd);
  remove_cmd->callback([o, exit_code] { *exit_code = remove(*o); });

  CLI::App* list_cmd = acl->add_subcommand("list", "list rules (all, or those the flags select)");
  common(list_cmd);
  list_cmd->callback([o, exit_code] { *exit_code = list(*o); });
}

}  // namespace spillway::cli
