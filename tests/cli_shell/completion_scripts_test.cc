// The generated bash and zsh completions, loaded by the shells themselves:
// bash sources the script and calls its function with COMP_WORDS set; zsh
// autoloads the function file with the completion system's builtins
// replaced by functions that print what they were given.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "shell_tools.h"

namespace spillway::testing {
namespace {

// A shell word in single quotes.
std::string quoted(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// What bash offers for the last of `words` (the word being completed).
std::vector<std::string> bash_offers(const std::string& script, const std::string& function,
                                     const std::vector<std::string>& words,
                                     const std::string& cwd = ".") {
  std::string array;
  for (const std::string& w : words) array += " " + quoted(w);
  const ProcessExit r =
      run_bash("cd " + quoted(cwd) + " && source " + quoted(script) + " && COMP_WORDS=(" + array +
               ") && COMP_CWORD=" + std::to_string(words.size() - 1) + " && " + function +
               " && printf '%s\\n' \"${COMPREPLY[@]}\"");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::vector<std::string> offers = lines_of(r.output);
  offers.erase(std::remove(offers.begin(), offers.end(), ""), offers.end());
  std::sort(offers.begin(), offers.end());
  return offers;
}

std::vector<std::string> spillway_offers(const std::vector<std::string>& words) {
  return bash_offers(share_file("bash-completion/completions/spillway"), "_spillway", words);
}

bool has(const std::vector<std::string>& offers, const std::string& word) {
  return std::find(offers.begin(), offers.end(), word) != offers.end();
}

TEST(BashCompletion, RegistersItsFunction) {
  const ProcessExit r = run_bash("source " + share_file("bash-completion/completions/spillway") +
                                 " && complete -p spillway");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "complete -F _spillway spillway\n");
}

TEST(BashCompletion, SubcommandsAtEachLevel) {
  const std::vector<std::string> top = spillway_offers({"spillway", ""});
  for (const char* name : {"ping", "topic", "produce", "consume", "group", "perf", "version"}) {
    EXPECT_TRUE(has(top, name)) << name;
  }
  EXPECT_FALSE(has(top, "__generate"));
  EXPECT_EQ(spillway_offers({"spillway", "top"}), std::vector<std::string>{"topic"});
  EXPECT_EQ(spillway_offers({"spillway", "topic", ""}),
            (std::vector<std::string>{"create", "delete", "describe", "list"}));
  EXPECT_EQ(spillway_offers({"spillway", "perf", "e"}), std::vector<std::string>{"e2e"});
}

TEST(BashCompletion, FlagsOfTheCommandBeingTyped) {
  const std::vector<std::string> flags =
      spillway_offers({"spillway", "topic", "create", "t", "--"});
  for (const char* flag : {"--partitions", "--broker", "--flush", "--help", "--tls-ca"}) {
    EXPECT_TRUE(has(flags, flag)) << flag;
  }
  EXPECT_FALSE(has(flags, "--from-beginning"));  // consume's
  EXPECT_EQ(spillway_offers({"spillway", "consume", "t", "--from-b"}),
            std::vector<std::string>{"--from-beginning"});
}

TEST(BashCompletion, ValuesOfAnOption) {
  EXPECT_EQ(spillway_offers({"spillway", "produce", "t", "--acks", ""}),
            (std::vector<std::string>{"all", "durable", "leader", "none"}));
  // The value of --broker is skipped on the way; "--acks=d" is three words
  // to bash.
  EXPECT_EQ(spillway_offers({"spillway", "produce", "--broker", "h:1", "t", "--acks", "d"}),
            std::vector<std::string>{"durable"});
  EXPECT_EQ(spillway_offers({"spillway", "produce", "t", "--acks", "=", "d"}),
            std::vector<std::string>{"durable"});
  // Nothing to offer for a free-form value, rather than subcommands.
  EXPECT_TRUE(spillway_offers({"spillway", "ping", "--broker", ""}).empty());
  // File names for a file.
  TempDir dir;
  std::ofstream(dir.path() / "ca.pem") << "x";
  EXPECT_EQ(bash_offers(share_file("bash-completion/completions/spillway"), "_spillway",
                        {"spillway", "ping", "--tls-ca", "c"}, dir.path().string()),
            std::vector<std::string>{"ca.pem"});
}

TEST(BashCompletion, BrokerFlags) {
  const std::string script = share_file("bash-completion/completions/spillway-broker");
  EXPECT_EQ(bash_offers(script, "_spillway_broker", {"spillway-broker", "--log-l"}),
            std::vector<std::string>{"--log-level"});
  const std::vector<std::string> flags = bash_offers(script, "_spillway_broker", {"x", "--"});
  EXPECT_TRUE(has(flags, "--data-dir"));
  EXPECT_TRUE(has(flags, "--config"));
}

// What zsh's completion function offers for `words` (the last is being
// completed), as the stubbed _describe, compadd, _files and _message print.
std::string zsh_offers(const std::vector<std::string>& words) {
  std::string array;
  for (const std::string& w : words) array += " " + quoted(w);
  return run_zsh(
             "_describe() { print -rl -- \"describe $3:\" \"${(@P)4}\" }\n"
             "compadd() { [[ $1 == -- ]] && shift; print -rl -- compadd \"$@\" }\n"
             "_files() { print -r -- files }\n"
             "_message() { print -r -- \"message $*\" }\n"
             "fpath=(" +
             quoted(share_file("zsh/vendor-completions")) +
             " $fpath)\n"
             "autoload -Uz _spillway\n"
             "words=(" +
             array + ")\nCURRENT=" + std::to_string(words.size()) + "\n_spillway\n")
      .output;
}

TEST(ZshCompletion, IsACompdefFunctionFile) {
  std::ifstream in(share_file("zsh/vendor-completions/_spillway"));
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first, "#compdef spillway");
  const ProcessExit r =
      run_zsh("zsh -n " + quoted(share_file("zsh/vendor-completions/_spillway")) + " && zsh -n " +
              quoted(share_file("zsh/vendor-completions/_spillway-broker")));
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST(ZshCompletion, SubcommandsWithDescriptions) {
  const std::string top = zsh_offers({"spillway", ""});
  EXPECT_TRUE(contains(top, "describe subcommand:\n")) << top;
  EXPECT_TRUE(contains(top, "\nping:Check that a broker answers")) << top;
  EXPECT_TRUE(contains(top, "\nversion:Print the version")) << top;
  const std::string topic = zsh_offers({"spillway", "topic", ""});
  EXPECT_TRUE(contains(topic, "\ncreate:")) << topic;
  EXPECT_FALSE(contains(topic, "\nping:")) << topic;
}

TEST(ZshCompletion, FlagsAndValues) {
  const std::string flags = zsh_offers({"spillway", "consume", "t", "--"});
  EXPECT_TRUE(contains(flags, "describe option:\n")) << flags;
  EXPECT_TRUE(contains(flags, "\n--from-beginning:")) << flags;
  EXPECT_EQ(zsh_offers({"spillway", "produce", "t", "--acks", ""}),
            "compadd\nnone\nleader\ndurable\nall\n");
  EXPECT_EQ(zsh_offers({"spillway", "ping", "--tls-ca", ""}), "files\n");
  EXPECT_EQ(zsh_offers({"spillway", "ping", "--broker", "h:1", "--count", ""}), "message value\n");
}

}  // namespace
}  // namespace spillway::testing
