// `spillway user create|delete|list`: SCRAM credentials, through the broker
// (spillway::Admin; needs Alter/Describe on the cluster when ACLs are on)
// or, with --data-dir, directly in a stopped broker's data directory, to
// create the first user before any can authenticate.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "commands.h"
#include "spillway/admin.h"
#include "spillway/common/credential_file.h"
#include "spillway/common/scram.h"
#include "spillway/storage/file_system.h"

namespace spillway::cli {

namespace {

struct UserCommandOptions {
  std::string broker = kDefaultBroker;
  std::string data_dir;  // offline when set
  std::string user;
  std::string mechanism = "all";
  int iterations = static_cast<int>(scram::kDefaultIterations);
  std::string password_file;
  int timeout_ms = 10'000;
};

std::vector<std::string> mechanisms_of(const std::string& flag) {
  if (flag == "all") return {"SCRAM-SHA-256", "SCRAM-SHA-512"};
  return {flag};
}

Result<std::string> read_user_password(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status(ErrorCode::kInvalidArgument, "cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  std::string password = text.str();
  const size_t newline = password.find_first_of("\r\n");
  if (newline != std::string::npos) password.resize(newline);  // the first line
  if (password.empty())
    return Status(ErrorCode::kInvalidArgument, path + ": the password is empty");
  return password;
}

int report(const Status& st) {
  if (st.ok()) return 0;
  std::fprintf(stderr, "spillway user: %s\n", std::string(st.message()).c_str());
  return 1;
}

// The data directory's lock (the broker's DataDirLock: flock on
// DATA_DIR/LOCK), held while the file is rewritten, so that a broker
// cannot start meanwhile and a running one is refused.
class OfflineLock {
 public:
  // `create`: make the directory when it does not exist yet, as the broker
  // does at its first start (the first user is made before it).
  static Result<OfflineLock> take(const std::string& dir, bool create = false) {
    const std::string path = dir + "/LOCK";
    if (create) {
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      if (ec) return Status(ErrorCode::kIoError, "cannot create " + dir + ": " + ec.message());
    }
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      return Status(ErrorCode::kInvalidArgument, dir + " is not a directory");
    }
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
      return Status(ErrorCode::kIoError, "cannot open " + path + ": " + std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      return Status(ErrorCode::kInvalidArgument,
                    "a broker is running on " + dir +
                        " (it holds the data directory's lock): stop it, or manage users through "
                        "it with --broker");
    }
    return OfflineLock(fd);
  }
  OfflineLock(OfflineLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  OfflineLock& operator=(OfflineLock&&) = delete;
  ~OfflineLock() {
    if (fd_ >= 0) ::close(fd_);
  }

 private:
  explicit OfflineLock(int fd) : fd_(fd) {}
  int fd_;
};

Result<std::vector<scram::UserCredential>> read_offline(const std::string& dir) {
  storage::FileSystem& fs = storage::posix_file_system();
  const std::string path = dir + "/credentials";
  if (!fs.exists(path)) return std::vector<scram::UserCredential>{};
  Result<std::string> bytes = fs.read_file(path);
  if (!bytes.ok()) return bytes.status();
  return scram::decode_credentials(*bytes);
}

Status write_offline(const std::string& dir, const std::vector<scram::UserCredential>& all) {
  return storage::write_file_atomically(storage::posix_file_system(), dir + "/credentials",
                                        scram::encode_credentials(all));
}

int create(const UserCommandOptions& o) {
  Result<std::string> password = read_user_password(o.password_file);
  if (!password.ok()) return report(password.status());
  if (o.data_dir.empty()) {
    Result<Admin> admin = Admin::connect(o.broker, cli_connection_options(o.timeout_ms));
    if (!admin.ok()) return report(admin.status());
    for (const std::string& m : mechanisms_of(o.mechanism)) {
      if (Status st = admin->upsert_user(o.user, m, *password, o.iterations); !st.ok()) {
        return report(st);
      }
      std::printf("user %s: %s credential set\n", o.user.c_str(), m.c_str());
    }
    return 0;
  }
  if (Status st = scram::check_user_name(o.user); !st.ok()) return report(st);
  Result<OfflineLock> lock = OfflineLock::take(o.data_dir, /*create=*/true);
  if (!lock.ok()) return report(lock.status());
  Result<std::vector<scram::UserCredential>> all = read_offline(o.data_dir);
  if (!all.ok()) return report(all.status());
  for (const std::string& name : mechanisms_of(o.mechanism)) {
    const scram::Mechanism m = *scram::parse_mechanism(name);
    std::erase_if(*all, [&](const scram::UserCredential& u) {
      return u.user == o.user && u.credential.mechanism == m;
    });
    all->push_back(
        {o.user, scram::make_credential(m, *password, scram::random_bytes(scram::kSaltBytes),
                                        static_cast<uint32_t>(o.iterations))});
    std::printf("user %s: %s credential set in %s\n", o.user.c_str(), name.c_str(),
                o.data_dir.c_str());
  }
  return report(write_offline(o.data_dir, *all));
}

int remove(const UserCommandOptions& o) {
  const std::string mechanism = o.mechanism == "all" ? std::string() : o.mechanism;
  if (o.data_dir.empty()) {
    Result<Admin> admin = Admin::connect(o.broker, cli_connection_options(o.timeout_ms));
    if (!admin.ok()) return report(admin.status());
    if (Status st = admin->delete_user(o.user, mechanism); !st.ok()) return report(st);
    std::printf("user %s deleted\n", o.user.c_str());
    return 0;
  }
  Result<OfflineLock> lock = OfflineLock::take(o.data_dir);
  if (!lock.ok()) return report(lock.status());
  Result<std::vector<scram::UserCredential>> all = read_offline(o.data_dir);
  if (!all.ok()) return report(all.status());
  const size_t removed = std::erase_if(*all, [&](const scram::UserCredential& u) {
    return u.user == o.user &&
           (mechanism.empty() || scram::mechanism_name(u.credential.mechanism) == mechanism);
  });
  if (removed == 0) {
    return report(Status(ErrorCode::kInvalidArgument, "user \"" + o.user + "\" has no credential"));
  }
  std::printf("user %s deleted from %s\n", o.user.c_str(), o.data_dir.c_str());
  return report(write_offline(o.data_dir, *all));
}

int list(const UserCommandOptions& o) {
  std::vector<UserListing> users;
  if (o.data_dir.empty()) {
    Result<Admin> admin = Admin::connect(o.broker, cli_connection_options(o.timeout_ms));
    if (!admin.ok()) return report(admin.status());
    Result<std::vector<UserListing>> listed = admin->list_users();
    if (!listed.ok()) return report(listed.status());
    users = std::move(*listed);
  } else {
    Result<OfflineLock> lock = OfflineLock::take(o.data_dir);
    if (!lock.ok()) return report(lock.status());
    Result<std::vector<scram::UserCredential>> all = read_offline(o.data_dir);
    if (!all.ok()) return report(all.status());
    for (const scram::UserCredential& u : *all) {
      users.push_back({u.user, std::string(scram::mechanism_name(u.credential.mechanism)),
                       static_cast<int32_t>(u.credential.iterations)});
    }
  }
  std::printf("%-32s %-14s %s\n", "USER", "MECHANISM", "ITERATIONS");
  for (const UserListing& u : users) {
    std::printf("%-32s %-14s %d\n", u.user.c_str(), u.mechanism.c_str(), u.iterations);
  }
  return 0;
}

// A name the credential file cannot hold (empty, too long, a control
// character) is a usage error, found before anything connects.
CLI::Validator user_name_check() {
  return CLI::Validator(
      [](std::string& name) {
        const Status st = scram::check_user_name(name);
        return st.ok() ? std::string() : std::string(st.message());
      },
      "NAME", "user name");
}

}  // namespace

void add_user_command(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<UserCommandOptions>();
  CLI::App* user = app.add_subcommand("user", "manage SCRAM users (SASL credentials)");
  user->require_subcommand(1);
  auto common = [o](CLI::App* cmd) {
    cmd->add_option("--broker", o->broker, "broker address (native protocol)")
        ->capture_default_str();
    cmd->add_option("--data-dir", o->data_dir,
                    "work offline on this stopped broker's data directory instead of --broker");
    cmd->add_option("--timeout-ms", o->timeout_ms, "connect and request timeout")
        ->check(CLI::Range(1, 3'600'000))
        ->capture_default_str();
  };
  CLI::App* create_cmd = user->add_subcommand("create", "create a user or change its password");
  create_cmd->add_option("name", o->user, "user name")->required()->check(user_name_check());
  create_cmd->add_option("--mechanism", o->mechanism, "SCRAM-SHA-256, SCRAM-SHA-512 or all")
      ->check(CLI::IsMember({"SCRAM-SHA-256", "SCRAM-SHA-512", "all"}))
      ->capture_default_str();
  create_cmd->add_option("--iterations", o->iterations, "PBKDF2 iterations")
      ->check(CLI::Range(static_cast<int>(scram::kMinIterations),
                         static_cast<int>(scram::kMaxIterations)))
      ->capture_default_str();
  create_cmd
      ->add_option("--user-password-file", o->password_file,
                   "file holding the new user's password (first line)")
      ->required()
      ->check(CLI::ExistingFile);
  common(create_cmd);
  create_cmd->callback([o, exit_code] { *exit_code = create(*o); });

  CLI::App* delete_cmd = user->add_subcommand("delete", "delete a user's credentials");
  delete_cmd->add_option("name", o->user, "user name")->required()->check(user_name_check());
  delete_cmd->add_option("--mechanism", o->mechanism, "SCRAM-SHA-256, SCRAM-SHA-512 or all")
      ->check(CLI::IsMember({"SCRAM-SHA-256", "SCRAM-SHA-512", "all"}))
      ->capture_default_str();
  common(delete_cmd);
  delete_cmd->callback([o, exit_code] { *exit_code = remove(*o); });

  CLI::App* list_cmd = user->add_subcommand("list", "list users and their mechanisms");
  common(list_cmd);
  list_cmd->callback([o, exit_code] { *exit_code = list(*o); });
}

}  // namespace spillway::cli
