// The generated man pages of spillway and spillway-broker, formatted by
// groff as man(1) does: no warnings at the strictest level (-ww), and the
// sections and entries man-pages(7) asks for.
#include <gtest/gtest.h>

#include "shell_tools.h"

namespace spillway::testing {
namespace {

// groff's plain-text rendering of a page: no hyphenation and long lines, so
// words and flags are found whole; no overstriking for bold and italics.
ProcessExit render(const std::string& page) {
  Result<ProcessExit> r =
      run_process("groff", {"-man", "-Tascii", "-ww", "-rHY=0", "-rLL=400n", "-P-cbou", page});
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  return r.ok() ? *r : ProcessExit{};
}

TEST(ManPages, FormatWithoutWarnings) {
  for (const char* page : {"man/man1/spillway.1", "man/man1/spillway-broker.1"}) {
    Result<ProcessExit> r = run_process("groff", {"-man", "-Tutf8", "-ww", "-z", share_file(page)});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    EXPECT_EQ(r->exit_code, 0) << page << "\n" << r->output;
    EXPECT_EQ(r->output, "") << page;  // -z: only warnings would be printed
  }
}

TEST(ManPages, SpillwayPageHasEverySectionAndSubcommand) {
  const ProcessExit r = render(share_file("man/man1/spillway.1"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* text :
       {"NAME\n       spillway - command-line tool for a Spillway broker", "SYNOPSIS",
        "DESCRIPTION", "OPTIONS", "SUBCOMMANDS", "EXIT STATUS", "SEE ALSO", "spillway-broker(1)",
        "spillway topic create NAME", "spillway group reset-offsets GROUP", "spillway perf e2e",
        "spillway version", "-b, --broker HOST:PORT", "--acks {none,leader,durable,all}",
        "Default: 127.0.0.1:9093.", "--to-datetime", "A usage error"}) {
    EXPECT_TRUE(contains(r.output, text)) << text << "\n" << r.output;
  }
  EXPECT_FALSE(contains(r.output, "__generate ")) << r.output;
}

TEST(ManPages, BrokerPageListsItsSettings) {
  const ProcessExit r = render(share_file("man/man1/spillway-broker.1"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* text : {"NAME\n       spillway-broker - the Spillway message broker", "OPTIONS",
                           "Settings (override the config file)", "--config FILE",
                           "--data-dir VALUE", "--listen VALUE", "--log-level VALUE",
                           "spillway-broker repair", "EXIT STATUS", "spillway(1)"}) {
    EXPECT_TRUE(contains(r.output, text)) << text << "\n" << r.output;
  }
}

}  // namespace
}  // namespace spillway::testing
