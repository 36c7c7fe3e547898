// The credential file's encoding: round trip, every check on decode, and
// no password in the bytes.
#include "spillway/common/credential_file.h"

#include <gtest/gtest.h>

namespace spillway::scram {
namespace {

std::vector<UserCredential> sample() {
  return {{"alice", make_credential(Mechanism::kSha256, "pw-alice-1", "salt-a", 4096)},
          {"bob,=x", make_credential(Mechanism::kSha512, "pw-bob-2", "salt-b", 8192)}};
}

TEST(CredentialFile, RoundTripWithoutPasswords) {
  const std::string bytes = encode_credentials(sample());
  EXPECT_EQ(bytes.find("pw-alice-1"), std::string::npos);
  EXPECT_EQ(bytes.find("pw-bob-2"), std::string::npos);
  Result<std::vector<UserCredential>> decoded = decode_credentials(bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  ASSERT_EQ(decoded->size(), 2u);
  EXPECT_EQ((*decoded)[1].user, "bob,=x");
  EXPECT_EQ((*decoded)[1].credential.mechanism, Mechanism::kSha512);
  EXPECT_EQ((*decoded)[1].credential.iterations, 8192u);
  EXPECT_EQ((*decoded)[0].credential.stored_key, sample()[0].credential.stored_key);
  EXPECT_EQ((*decoded)[0].credential.server_key, sample()[0].credential.server_key);
  EXPECT_TRUE(decode_credentials(encode_credentials({})).ok());
}

TEST(CredentialFile, EveryDamageIsFound) {
  const std::string bytes = encode_credentials(sample());
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string damaged = bytes;
    damaged[i] = static_cast<char>(damaged[i] ^ 0x20);
    EXPECT_FALSE(decode_credentials(damaged).ok()) << "byte " << i;
  }
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(decode_credentials(bytes.substr(0, n)).ok()) << "length " << n;
  }
  EXPECT_FALSE(decode_credentials(bytes + "x").ok());
}

TEST(CredentialFile, IterationsOutOfBoundsAreRefused) {
  std::vector<UserCredential> low = {
      {"u", make_credential(Mechanism::kSha256, "p", "s", kMinIterations - 1)}};
  EXPECT_FALSE(decode_credentials(encode_credentials(low)).ok());
}

TEST(CredentialFile, UserNames) {
  EXPECT_TRUE(check_user_name("alice").ok());
  EXPECT_FALSE(check_user_name("").ok());
  EXPECT_FALSE(check_user_name(std::string(kMaxUserBytes + 1, 'a')).ok());
  EXPECT_FALSE(check_user_name("a\nb").ok());
}

}  // namespace
}  // namespace spillway::scram
