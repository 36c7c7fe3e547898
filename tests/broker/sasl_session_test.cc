// The broker's SASL pieces in process: the [sasl] settings, the credential
// store on disk, and the server side of PLAIN and SCRAM.
#include "security/sasl/sasl_session.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "broker_process.h"
#include "config/sasl_settings.h"
#include "security/sasl/credential_store.h"
#include "spillway/common/scram.h"
#include "spillway/storage/file_system.h"

namespace spillway::broker::security {
namespace {

using spillway::testing::TempDir;

TEST(SaslSettings, ParsesTheMechanismList) {
  BrokerConfig config;
  Result<SaslSettings> defaults = sasl_settings(config);
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->mechanisms,
            (std::vector<SaslMechanism>{SaslMechanism::kScramSha256, SaslMechanism::kScramSha512}));
  config.sasl_mechanisms = "PLAIN, SCRAM-SHA-512";
  ASSERT_TRUE(sasl_settings(config).ok());
  config.sasl_mechanisms = "PLAIN,GSSAPI";
  EXPECT_NE(sasl_settings(config).status().message().find("GSSAPI"), std::string_view::npos);
  config.sasl_mechanisms = "PLAIN,PLAIN";
  EXPECT_FALSE(sasl_settings(config).ok());
  config.sasl_mechanisms = ",";
  EXPECT_FALSE(sasl_settings(config).ok());
}

scram::UserCredential user(std::string name, scram::Mechanism m, std::string_view password) {
  return {std::move(name), scram::make_credential(m, password, "0123456789abcdef", 4096)};
}

TEST(CredentialStore, ChangesAreDurableAndHoldNoPassword) {
  TempDir dir;
  storage::FileSystem& fs = storage::posix_file_system();
  {
    CredentialStore store(fs, dir.path().string());
    ASSERT_TRUE(store.load().ok());  // no file yet
    ASSERT_TRUE(store.upsert(user("alice", scram::Mechanism::kSha256, "pw-one")).ok());
    ASSERT_TRUE(store.upsert(user("alice", scram::Mechanism::kSha512, "pw-one")).ok());
    ASSERT_TRUE(store.upsert(user("bob", scram::Mechanism::kSha256, "pw-two")).ok());
    ASSERT_TRUE(store.remove("bob", std::nullopt).ok());
    EXPECT_FALSE(store.remove("bob", std::nullopt).ok());
    scram::UserCredential weak = user("carol", scram::Mechanism::kSha256, "x");
    weak.credential.iterations = 1;
    EXPECT_FALSE(store.upsert(weak).ok());
    weak = user("carol", scram::Mechanism::kSha256, "x");
    weak.credential.stored_key.pop_back();
    EXPECT_FALSE(store.upsert(weak).ok());
  }
  std::ifstream in(dir.path() / "credentials", std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  EXPECT_EQ(bytes.str().find("pw-one"), std::string::npos);
  CredentialStore reopened(fs, dir.path().string());
  ASSERT_TRUE(reopened.load().ok());
  EXPECT_EQ(reopened.list().size(), 2u);
  EXPECT_TRUE(reopened.find("alice", scram::Mechanism::kSha512).has_value());
  EXPECT_FALSE(reopened.find("bob", scram::Mechanism::kSha256).has_value());
  // A damaged file is an error at load, never an empty store.
  std::string damaged = bytes.str();
  damaged[damaged.size() / 2] ^= 1;
  std::ofstream(dir.path() / "credentials", std::ios::binary | std::ios::trunc) << damaged;
  CredentialStore broken(fs, dir.path().string());
  EXPECT_EQ(broken.load().code(), ErrorCode::kCorruptMessage);
}

class SaslSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.upsert(user("alice", scram::Mechanism::kSha256, "secret")).ok());
    ASSERT_TRUE(store_.upsert(user("alice", scram::Mechanism::kSha512, "secret")).ok());
  }
  TempDir dir_;
  CredentialStore store_{storage::posix_file_system(), dir_.path().string()};
};

TEST_F(SaslSessionTest, Plain) {
  SaslSession ok(SaslMechanism::kPlain);
  SaslSession::Step step = ok.step(std::string("\0alice\0secret", 13), store_);
  EXPECT_TRUE(step.status.ok());
  EXPECT_TRUE(step.done);
  EXPECT_EQ(ok.user(), "alice");
  EXPECT_EQ(ok.step("again", store_).status.code(), ErrorCode::kIllegalSaslState);
  for (std::string token : {std::string("\0alice\0wrong", 12), std::string("\0nobody\0secret", 14),
                            std::string("alice"), std::string("bob\0alice\0secret", 16)}) {
    SaslSession s(SaslMechanism::kPlain);
    SaslSession::Step r = s.step(token, store_);
    EXPECT_EQ(r.status.code(), ErrorCode::kAuthenticationFailed);
    EXPECT_FALSE(r.done);
  }
  SaslSession authzid(SaslMechanism::kPlain);
  EXPECT_TRUE(authzid.step(std::string("alice\0alice\0secret", 18), store_).done);
}

// One SCRAM exchange; `mangle` may change the client-final message.
SaslSession::Step scram_exchange(CredentialStore& store, std::string_view user,
                                 std::string_view password,
                                 std::string (*mangle)(std::string, const std::string&)) {
  SaslSession session(SaslMechanism::kScramSha512);
  scram::ScramClient client(scram::Mechanism::kSha512, std::string(user), std::string(password),
                            "clientnonce");
  SaslSession::Step first = session.step(client.first(), store);
  if (!first.status.ok()) return first;
  EXPECT_FALSE(first.done);
  Result<std::string> final = client.final(first.response);
  EXPECT_TRUE(final.ok());
  SaslSession::Step last = session.step(mangle(*final, first.response), store);
  if (last.done) {
    EXPECT_TRUE(client.verify(last.response).ok());
  }
  return last;
}

TEST_F(SaslSessionTest, Scram) {
  auto same = [](std::string f, const std::string&) { return f; };
  EXPECT_TRUE(scram_exchange(store_, "alice", "secret", same).done);
  EXPECT_EQ(scram_exchange(store_, "alice", "wrong", same).status.message(),
            "Authentication failed: invalid credentials");
  EXPECT_EQ(scram_exchange(store_, "nobody", "secret", same).status.message(),
            "Authentication failed: invalid credentials");
  // librdkafka's form (the client nonce again in front) is accepted: the
  // proof is over the message as sent, so it is recomputed here.
  {
    SaslSession session(SaslMechanism::kScramSha512);
    const std::string first = "n,,n=alice,r=cn";
    SaslSession::Step s1 = session.step(first, store_);
    ASSERT_TRUE(s1.status.ok());
    Result<scram::ServerFirst> sf = scram::parse_server_first(s1.response);
    ASSERT_TRUE(sf.ok());
    const std::string without = "c=biws,r=cn" + sf->nonce;
    const std::string salted =
        scram::salted_password(scram::Mechanism::kSha512, "secret", sf->salt, sf->iterations);
    const std::string auth = scram::auth_message("n=alice,r=cn", s1.response, without);
    const std::string proof = scram::client_proof(scram::Mechanism::kSha512, salted, auth);
    EXPECT_TRUE(session.step(without + ",p=" + scram::base64_encode(proof), store_).done);
  }
  // Any other nonce is not.
  auto other_nonce = [](std::string f, const std::string&) {
    return f.replace(f.find("r=") + 2, 1, "X");
  };
  EXPECT_FALSE(scram_exchange(store_, "alice", "secret", other_nonce).done);
  EXPECT_FALSE(scram_exchange(store_, "alice", "secret", [](std::string, const std::string&) {
                 return std::string("garbage");
               }).done);
}

}  // namespace
}  // namespace spillway::broker::security
