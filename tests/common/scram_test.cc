// SCRAM primitives against the RFC 7677 test vector (section 3): the
// exchange must reproduce the RFC's exact messages, the server's signature
// included.
#include "spillway/common/scram.h"

#include <gtest/gtest.h>

namespace spillway::scram {
namespace {

constexpr std::string_view kClientFirst = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
constexpr std::string_view kServerFirst =
    "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
constexpr std::string_view kClientFinal =
    "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
    "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
constexpr std::string_view kServerFinal = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";
// The RFC's server signature with its last bytes changed: a client must
// refuse it (a server that does not know the password).
constexpr std::string_view kTamperedServerFinal = "v=6rriTRBi23WpRR/wtup+mMhUZK1cjXwa2frX0NdvdUA=";

TEST(Scram, Rfc7677ClientSide) {
  ScramClient client(Mechanism::kSha256, "user", "pencil", "rOprNGfwEbeRWgbNEkqO");
  EXPECT_EQ(client.first(), kClientFirst);
  Result<std::string> final = client.final(kServerFirst);
  ASSERT_TRUE(final.ok()) << final.status().message();
  EXPECT_EQ(*final, kClientFinal);
  EXPECT_TRUE(client.verify(kServerFinal).ok());
  EXPECT_FALSE(client.verify(kTamperedServerFinal).ok());
  EXPECT_FALSE(client.verify("v=AAAA").ok());
  EXPECT_FALSE(client.verify("e=invalid-proof").ok());
}

TEST(Scram, Rfc7677ServerSide) {
  const Credential credential = make_credential(Mechanism::kSha256, "pencil",
                                                *base64_decode("W22ZaJ0SNY7soEsUEjb6gQ=="), 4096);
  Result<ClientFirst> first = parse_client_first(kClientFirst);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->user, "user");
  EXPECT_EQ(first->nonce, "rOprNGfwEbeRWgbNEkqO");
  const std::string server_first = server_first_message(
      first->nonce + "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0", credential.salt, credential.iterations);
  EXPECT_EQ(server_first, kServerFirst);
  Result<ClientFinal> final = parse_client_final(kClientFinal);
  ASSERT_TRUE(final.ok());
  EXPECT_EQ(final->channel_binding, base64_encode(first->gs2_header));
  const std::string auth = auth_message(first->bare, server_first, final->without_proof);
  EXPECT_TRUE(verify_client_proof(credential, auth, final->proof));
  EXPECT_EQ(server_final_message(server_signature(Mechanism::kSha256, credential.server_key, auth)),
            kServerFinal);
  const Credential wrong = make_credential(Mechanism::kSha256, "pencil2", credential.salt, 4096);
  EXPECT_FALSE(verify_client_proof(wrong, auth, final->proof));
}

TEST(Scram, Sha512RoundTrip) {
  const Credential credential =
      make_credential(Mechanism::kSha512, "secret", random_bytes(kSaltBytes), kMinIterations);
  EXPECT_EQ(credential.stored_key.size(), 64u);
  ScramClient client(Mechanism::kSha512, "a,b=c", "secret");
  Result<ClientFirst> first = parse_client_first(client.first());
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->user, "a,b=c");
  EXPECT_EQ(first->bare.substr(0, 12), "n=a=2Cb=3Dc,");
  const std::string server_first =
      server_first_message(first->nonce + make_nonce(), credential.salt, credential.iterations);
  Result<std::string> final_message = client.final(server_first);
  ASSERT_TRUE(final_message.ok());
  Result<ClientFinal> final = parse_client_final(*final_message);
  ASSERT_TRUE(final.ok());
  const std::string auth = auth_message(first->bare, server_first, final->without_proof);
  EXPECT_TRUE(verify_client_proof(credential, auth, final->proof));
  EXPECT_TRUE(client
                  .verify(server_final_message(
                      server_signature(Mechanism::kSha512, credential.server_key, auth)))
                  .ok());
}

TEST(Scram, RejectsMalformed) {
  EXPECT_FALSE(parse_client_first("").ok());
  EXPECT_FALSE(parse_client_first("p=tls-unique,,n=u,r=x").ok());
  EXPECT_FALSE(parse_client_first("n,,n=u=2X,r=x").ok());
  EXPECT_FALSE(parse_client_first("n,,n=,r=x").ok());
  EXPECT_FALSE(parse_client_first("n,a=other,n=u,r=x").ok());
  EXPECT_TRUE(parse_client_first("n,a=u,n=u,r=x").ok());
  EXPECT_FALSE(parse_client_first("n,,r=x,n=u").ok());
  EXPECT_FALSE(parse_client_final("c=biws,r=x").ok());
  EXPECT_FALSE(parse_client_final("c=biws,r=x,p=***").ok());
  EXPECT_FALSE(parse_server_first("r=x,s=!!,i=4096").ok());
  EXPECT_FALSE(parse_server_first("r=x,s=AAAA,i=12a").ok());
  ScramClient client(Mechanism::kSha256, "u", "p", "abc");
  client.first();
  EXPECT_FALSE(client.final("r=xyz,s=AAAA,i=4096").ok());  // nonce not extended
  EXPECT_FALSE(client.final("r=abcd,s=AAAA,i=1").ok());    // too few iterations
}

TEST(Scram, Base64) {
  for (std::string_view s : {"", "f", "fo", "foo", "foob", "fooba", "foobar"}) {
    EXPECT_EQ(base64_decode(base64_encode(s)), std::string(s));
  }
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
  EXPECT_FALSE(base64_decode("Zm9").has_value());
  EXPECT_FALSE(base64_decode("Zg=a").has_value());
}

}  // namespace
}  // namespace spillway::scram
