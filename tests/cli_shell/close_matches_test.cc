// Edit distance and the choice of "did you mean" names (close_matches.h).
#include "app_tree/close_matches.h"

#include <gtest/gtest.h>

namespace spillway::cli {
namespace {

TEST(EditDistance, CountsInsertionsDeletionsSubstitutionsAndSwaps) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("ping", "ping"), 0u);
  EXPECT_EQ(edit_distance("pnig", "ping"), 1u);       // one swap of neighbours
  EXPECT_EQ(edit_distance("lst", "list"), 1u);        // one insertion
  EXPECT_EQ(edit_distance("brokerr", "broker"), 1u);  // one deletion
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

const std::vector<std::string> kSubcommands = {"ping",  "topic", "produce", "consume",
                                               "group", "user",  "cluster", "partition",
                                               "acl",   "perf",  "version"};

TEST(CloseMatches, OffersTheNearestNames) {
  EXPECT_EQ(close_matches("pnig", kSubcommands), std::vector<std::string>{"ping"});
  EXPECT_EQ(close_matches("consme", kSubcommands), std::vector<std::string>{"consume"});
  EXPECT_EQ(close_matches("partiton", kSubcommands), std::vector<std::string>{"partition"});
}

TEST(CloseMatches, OffersEveryNameAtTheSameSmallestDistance) {
  EXPECT_EQ(close_matches("pert", {"perf", "port", "partition"}),
            (std::vector<std::string>{"perf", "port"}));
}

TEST(CloseMatches, FallsBackToNamesTheWordBegins) {
  EXPECT_EQ(close_matches("desc", {"create", "describe", "delete"}),
            std::vector<std::string>{"describe"});
  // Two letters are too few to guess from.
  EXPECT_TRUE(close_matches("de", {"create", "describe", "delete"}).empty());
}

TEST(CloseMatches, OffersNothingWhenNothingIsClose) {
  EXPECT_TRUE(close_matches("xyzzy", kSubcommands).empty());
  // Short words allow one edit only: "usr" is one from "user", "uxx" two.
  EXPECT_EQ(close_matches("usr", kSubcommands), std::vector<std::string>{"user"});
  EXPECT_TRUE(close_matches("uxx", kSubcommands).empty());
}

}  // namespace
}  // namespace spillway::cli
