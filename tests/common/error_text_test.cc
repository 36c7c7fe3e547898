// The safe form of error messages (error_text.h): what a peer may read.
#include "spillway/common/error_text.h"

#include <gtest/gtest.h>

#include <array>

#include "spillway/common/wire/codec.h"
#include "spillway/common/write_buffer.h"

namespace spillway {
namespace {

TEST(ErrorText, PlainTextAndPrintableUtf8PassUnchanged) {
  EXPECT_EQ(error_text(""), "");
  EXPECT_EQ(error_text("unknown topic orders.v2"), "unknown topic orders.v2");
  EXPECT_EQ(error_text("gruppe \xc3\xbc \xe2\x82\xac \xf0\x9f\x98\x80"),
            "gruppe \xc3\xbc \xe2\x82\xac \xf0\x9f\x98\x80");       // ü € 😀
  EXPECT_EQ(error_text("a/b 1/2 x=y, (ok)"), "a/b 1/2 x=y, (ok)");  // not absolute paths
}

TEST(ErrorText, BytesThatAreNotPrintableUtf8AreEscaped) {
  EXPECT_EQ(error_text(std::string_view("unknown topic \xff\xfe", 16)), "unknown topic \\xff\\xfe");
  EXPECT_EQ(error_text("line\nbreak\ttab\x1b[31m\x7f"), "line\\x0abreak\\x09tab\\x1b[31m\\x7f");
  EXPECT_EQ(error_text(std::string_view("nul\0x", 5)), "nul\\x00x");
  EXPECT_EQ(error_text("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(error_text("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");           // overlong, 3 bytes
  EXPECT_EQ(error_text("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a surrogate
  EXPECT_EQ(error_text("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
  EXPECT_EQ(error_text("\xc2\x9b"), "\\xc2\\x9b");                    // C1 control (CSI)
  EXPECT_EQ(error_text("cut \xe2\x82"), "cut \\xe2\\x82");            // truncated sequence
}

TEST(ErrorText, AbsolutePathsAreShortenedToTheirLastComponent) {
  EXPECT_EQ(error_text("pwrite /srv/spill/topics/t/0/00000000000000000000.log: No space left on "
                       "device"),
            "pwrite 00000000000000000000.log: No space left on device");
  EXPECT_EQ(error_text("/data/offsets/6162.offsets.tmp: Is a directory"),
            "6162.offsets.tmp: Is a directory");
  EXPECT_EQ(error_text("data_dir \"/var/lib/spillway/\" (x=/a/b, [/c/d])"),
            "data_dir \"spillway\" (x=b, [d])");
  EXPECT_EQ(error_text("just / and //"), "just / and //");
  // The component is escaped like everything else.
  EXPECT_EQ(error_text("open /d/\xff\x01"), "open \\xff\\x01");
}

TEST(ErrorText, LongTextIsCutAtAPieceBoundaryAndMarked) {
  const std::string fits(kMaxErrorTextBytes, 'x');
  EXPECT_EQ(error_text(fits), fits);
  const std::string cut = error_text(std::string(5000, 'y'));
  EXPECT_EQ(cut.size(), kMaxErrorTextBytes);
  EXPECT_EQ(cut.substr(cut.size() - 4), "y...");
  // Never half an escape or half a UTF-8 character.
  const std::string escapes = error_text(std::string(1000, '\x01'));
  EXPECT_LE(escapes.size(), kMaxErrorTextBytes);
  EXPECT_EQ(escapes.substr(escapes.size() - 7), "\\x01...");
  std::string euros;
  for (int i = 0; i < 500; ++i) euros += "\xe2\x82\xac";
  const std::string cut_euros = error_text(euros);
  EXPECT_EQ(cut_euros.size(), kMaxErrorTextBytes - 1);  // 340 whole characters + "..."
  EXPECT_EQ(error_text(cut_euros.substr(0, cut_euros.size() - 3)),
            cut_euros.substr(0, cut_euros.size() - 3));
  EXPECT_EQ(write_error_text(euros, nullptr, nullptr), cut_euros.size());
}

TEST(ErrorText, WireErrorMessagesAreWrittenInTheSafeForm) {
  struct Body {
    wire::ErrorText message;
    static constexpr auto fields() { return std::tuple{wire::Field<&Body::message>{"message"}}; }
  };
  std::array<std::byte, 64> scratch;
  WriteBuffer buf(scratch);
  for (bool flexible : {false, true}) {
    SCOPED_TRACE(flexible);
    const wire::Context c{0, flexible};
    buf.release();
    ASSERT_TRUE(wire::encode(Body{"bad \xff at /x/y/z"}, c, buf).ok());
    std::vector<std::byte> bytes(buf.bytes_written());
    buf.copy_to(bytes);
    Result<Body> back = wire::decode<Body>(bytes, c, "Body");
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->message.text, "bad \\xff at z");
  }
}

}  // namespace
}  // namespace spillway
