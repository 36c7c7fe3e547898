// CredentialStore: the credential file, in memory and on disk.
#include "security/sasl/credential_store.h"

namespace spillway::broker::security {

Status CredentialStore::load() {
  if (!fs_.exists(path_)) return Status::Ok();
  Result<std::string> bytes = fs_.read_file(path_);
  if (!bytes.ok()) return bytes.status();
  Result<std::vector<scram::UserCredential>> decoded = scram::decode_credentials(*bytes);
  if (!decoded.ok()) {
    return Status(decoded.status().code(), path_ + ": " + std::string(decoded.status().message()));
  }
  Map loaded;
  for (scram::UserCredential& u : *decoded) {
    const scram::Mechanism mechanism = u.credential.mechanism;
    loaded[Key{std::move(u.user), mechanism}] = std::move(u.credential);
  }
  std::lock_guard lock(mutex_);
  credentials_ = std::move(loaded);
  return Status::Ok();
}

std::optional<scram::Credential> CredentialStore::find(std::string_view user,
                                                       scram::Mechanism mechanism) const {
  std::lock_guard lock(mutex_);
  auto it = credentials_.find(Key{std::string(user), mechanism});
  if (it == credentials_.end()) return std::nullopt;
  return it->second;
}

std::vector<scram::UserCredential> CredentialStore::list() const {
  std::lock_guard lock(mutex_);
  std::vector<scram::UserCredential> out;
  out.reserve(credentials_.size());
  for (const auto& [key, credential] : credentials_) out.push_back({key.first, credential});
  return out;
}

Status CredentialStore::write(const Map& next) {
  std::vector<scram::UserCredential> all;
  all.reserve(next.size());
  for (const auto& [key, credential] : next) all.push_back({key.first, credential});
  SPILLWAY_RETURN_IF_ERROR(fs_.create_dirs(dir_));
  return storage::write_file_atomically(fs_, path_, scram::encode_credentials(all));
}

Status CredentialStore::upsert(const scram::UserCredential& credential) {
  SPILLWAY_RETURN_IF_ERROR(scram::check_user_name(credential.user));
  const scram::Credential& c = credential.credential;
  const size_t keys = scram::key_bytes(c.mechanism);
  if (c.iterations < scram::kMinIterations || c.iterations > scram::kMaxIterations) {
    return Status(ErrorCode::kInvalidArgument, "iterations must be between " +
                                                   std::to_string(scram::kMinIterations) + " and " +
                                                   std::to_string(scram::kMaxIterations));
  }
  if (c.salt.empty() || c.salt.size() > 255 || c.stored_key.size() != keys ||
      c.server_key.size() != keys) {
    return Status(ErrorCode::kInvalidArgument,
                  "a SCRAM credential needs a salt of 1 to 255 bytes and keys of " +
                      std::to_string(keys) + " bytes");
  }
  std::lock_guard writing(write_mutex_);
  Map next;
  {
    std::lock_guard lock(mutex_);
    next = credentials_;
  }
  if (next.size() >= scram::kMaxCredentials && !next.contains(Key{credential.user, c.mechanism})) {
    return Status(ErrorCode::kInvalidArgument, "too many credentials");
  }
  next[Key{credential.user, c.mechanism}] = c;
  SPILLWAY_RETURN_IF_ERROR(write(next));
  std::lock_guard lock(mutex_);
  credentials_ = std::move(next);
  return Status::Ok();
}

Status CredentialStore::remove(std::string_view user, std::optional<scram::Mechanism> mechanism) {
  std::lock_guard writing(write_mutex_);
  Map next;
  {
    std::lock_guard lock(mutex_);
    next = credentials_;
  }
  size_t removed = 0;
  for (scram::Mechanism m : {scram::Mechanism::kSha256, scram::Mechanism::kSha512}) {
    if (mechanism && *mechanism != m) continue;
    removed += next.erase(Key{std::string(user), m});
  }
  if (removed == 0) {
    return Status(
        ErrorCode::kInvalidArgument,
        "user \"" + std::string(user) + "\" has no " +
            (mechanism ? std::string(scram::mechanism_name(*mechanism)) + " " : std::string()) +
            "credential");
  }
  SPILLWAY_RETURN_IF_ERROR(write(next));
  std::lock_guard lock(mutex_);
  credentials_ = std::move(next);
  return Status::Ok();
}

}  // namespace spillway::broker::security
