// The TLS and SASL flags of every subcommand that connects, and the
// SecurityOptions they make.
#include <fstream>
#include <sstream>

#include "commands.h"

namespace spillway::cli {

namespace {

struct SecurityFlags {
  SecurityOptions options;
  std::string password_file;
  bool tls = false;
};

SecurityFlags& flags() {
  static SecurityFlags f;
  return f;
}

// The password is read from a file (never a flag: command lines are visible
// to every user of the machine in ps); a trailing newline is not part of it.
std::string read_password(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string password = text.str();
  while (!password.empty() && (password.back() == '\n' || password.back() == '\r')) {
    password.pop_back();
  }
  return password;
}

void add_to(CLI::App& cmd) {
  SecurityFlags& f = flags();
  TlsOptions& tls = f.options.tls;
  SaslOptions& sasl = f.options.sasl;
  cmd.add_flag("--tls", f.tls, "connect with TLS (implied by the other --tls-* flags)");
  cmd.add_option("--tls-ca", tls.ca_file,
                 "PEM file of the CAs that verify the broker (default: the system's)")
      ->check(CLI::ExistingFile);
  cmd.add_option("--tls-cert", tls.cert_file, "client certificate (PEM) for mutual TLS")
      ->check(CLI::ExistingFile);
  cmd.add_option("--tls-key", tls.key_file, "key of --tls-cert (PEM)")->check(CLI::ExistingFile);
  cmd.add_option("--tls-server-name", tls.server_name,
                 "name the broker's certificate must carry (default: the --broker host)");
  cmd.add_option("--sasl-mechanism", sasl.mechanism, "authenticate with SASL")
      ->check(CLI::IsMember({"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"}));
  cmd.add_option("--username", sasl.username, "SASL user name");
  cmd.add_option("--password-file", f.password_file, "file holding the SASL password (first line)")
      ->check(CLI::ExistingFile);
}

}  // namespace

const SecurityOptions& cli_security() {
  SecurityFlags& f = flags();
  f.options.tls.enabled = f.tls || !f.options.tls.ca_file.empty() ||
                          !f.options.tls.cert_file.empty() || !f.options.tls.server_name.empty();
  if (!f.password_file.empty() && f.options.sasl.password.empty()) {
    f.options.sasl.password = read_password(f.password_file);
  }
  return f.options;
}

void add_security_flags(CLI::App& app) {
  if (app.get_option_no_throw("--broker") != nullptr) add_to(app);
  for (CLI::App* sub : app.get_subcommands({})) add_security_flags(*sub);
}

}  // namespace spillway::cli
