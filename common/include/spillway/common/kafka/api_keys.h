// Kafka's api keys, and for each API that Spillway describes the versions it
// serves and the version its bodies turn flexible (KIP-482: compact strings
// and arrays, tag buffers, request header v2 and response header v1).
// This table is the one place those numbers live: every message type in
// kafka/*.h takes its kApiKey, kVersions and kFlexibleFrom from it, and an
// ApiVersions response announces it. docs/kafka.md lists it for people.
//
// It also brings the description vocabulary of wire/schema.h into
// spillway::kafka for the per-API headers.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "spillway/common/wire/codec.h"
#include "spillway/common/wire/schema.h"

namespace spillway::kafka {

using wire::Array;
using wire::between;
using wire::Context;
using wire::Field;
using wire::kAllVersions;
using wire::Records;
using wire::since;
using wire::Uuid;
using wire::Versions;

// Kafka's numbering (the protocol guide's "Api Keys" table).
enum class ApiKey : int16_t {
  kProduce = 0,
  kFetch = 1,
  kListOffsets = 2,
  kMetadata = 3,
  kOffsetCommit = 8,
  kOffsetFetch = 9,
  kFindCoordinator = 10,
  kJoinGroup = 11,
  kHeartbeat = 12,
  kLeaveGroup = 13,
  kSyncGroup = 14,
  kDescribeGroups = 15,
  kListGroups = 16,
  kSaslHandshake = 17,
  kApiVersions = 18,
  kCreateTopics = 19,
  kDeleteTopics = 20,
  kInitProducerId = 22,
  kOffsetForLeaderEpoch = 23,
  kDescribeAcls = 29,
  kCreateAcls = 30,
  kDeleteAcls = 31,
  kDescribeConfigs = 32,
  kSaslAuthenticate = 36,
  kCreatePartitions = 37,
  kDeleteGroups = 42,
  kDescribeCluster = 60,
};

// flexible_from of an API that has no flexible version (SaslHandshake).
inline constexpr int16_t kNeverFlexible = INT16_MAX;

struct ApiInfo {
  ApiKey key;
  std::string_view name;  // as in Kafka's protocol guide
  Versions versions;      // the versions Spillway describes and serves
  int16_t flexible_from;  // first flexible version (Kafka's, may exceed versions.last)
};

// Sorted by api key.
inline constexpr std::array<ApiInfo, 27> kApis = {{
    {ApiKey::kProduce, "Produce", between(3, 9), 9},
    {ApiKey::kFetch, "Fetch", between(4, 12), 12},
    {ApiKey::kListOffsets, "ListOffsets", between(1, 7), 6},
    {ApiKey::kMetadata, "Metadata", between(0, 12), 9},
    {ApiKey::kOffsetCommit, "OffsetCommit", between(2, 8), 8},
    {ApiKey::kOffsetFetch, "OffsetFetch", between(1, 8), 6},
    {ApiKey::kFindCoordinator, "FindCoordinator", between(0, 4), 3},
    {ApiKey::kJoinGroup, "JoinGroup", between(0, 9), 6},
    {ApiKey::kHeartbeat, "Heartbeat", between(0, 4), 4},
    {ApiKey::kLeaveGroup, "LeaveGroup", between(0, 5), 4},
    {ApiKey::kSyncGroup, "SyncGroup", between(0, 5), 4},
    {ApiKey::kDescribeGroups, "DescribeGroups", between(0, 5), 5},
    {ApiKey::kListGroups, "ListGroups", between(0, 4), 3},
    {ApiKey::kSaslHandshake, "SaslHandshake", between(0, 1), kNeverFlexible},
    {ApiKey::kApiVersions, "ApiVersions", between(0, 3), 3},
    {ApiKey::kCreateTopics, "CreateTopics", between(2, 7), 5},
    {ApiKey::kDeleteTopics, "DeleteTopics", between(1, 6), 4},
    {ApiKey::kInitProducerId, "InitProducerId", between(0, 4), 2},
    {ApiKey::kOffsetForLeaderEpoch, "OffsetForLeaderEpoch", between(0, 4), 4},
    {ApiKey::kDescribeAcls, "DescribeAcls", between(0, 3), 2},
    {ApiKey::kCreateAcls, "CreateAcls", between(0, 3), 2},
    {ApiKey::kDeleteAcls, "DeleteAcls", between(0, 3), 2},
    {ApiKey::kDescribeConfigs, "DescribeConfigs", between(0, 4), 4},
    {ApiKey::kSaslAuthenticate, "SaslAuthenticate", between(0, 2), 2},
    {ApiKey::kCreatePartitions, "CreatePartitions", between(0, 3), 2},
    {ApiKey::kDeleteGroups, "DeleteGroups", between(0, 2), 2},
    {ApiKey::kDescribeCluster, "DescribeCluster", between(0, 1), 0},
}};

// The entry for a raw api key off the wire; nullptr for keys not in kApis.
constexpr const ApiInfo* find_api(int16_t key) noexcept {
  for (const ApiInfo& api : kApis) {
    if (static_cast<int16_t>(api.key) == key) return &api;
  }
  return nullptr;
}

// The entry for a described API (a compile error in constant evaluation
// for one that is not in the table).
constexpr const ApiInfo& api_info(ApiKey key) {
  const ApiInfo* api = find_api(static_cast<int16_t>(key));
  if (api == nullptr) throw "api key missing from kApis";  // not a constant: fails to compile
  return *api;
}

// Whether `version` of an API's request and response bodies is flexible.
// Flexible ranges are open-ended ("9+"), so this also answers for versions
// above the served range (the request header of such a request still
// follows it). Unknown api keys are not flexible.
constexpr bool is_flexible(int16_t api_key, int16_t version) noexcept {
  const ApiInfo* api = find_api(api_key);
  return api != nullptr && version >= api->flexible_from;
}

// The body context of version `version` of message type `M` (a type with
// kFlexibleFrom, as every message in kafka/*.h has).
template <typename M>
constexpr Context context(int16_t version) noexcept {
  return Context{version, version >= M::kFlexibleFrom};
}

}  // namespace spillway::kafka
