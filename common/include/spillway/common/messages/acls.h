// Body codecs of DescribeAcls (api key 20), CreateAcls (21) and DeleteAcls
// (22), version 0: the access control rules of the broker (`spillway acl`,
// spillway::Admin). Fields and codes mirror Kafka's requests of the same
// names (resource type, pattern type, operation and permission as i8 with
// Kafka's numbers, broker/security/acl_types.h). In a filter a null
// string matches any value. Layouts in docs/protocol.md ("DescribeAcls,
// CreateAcls, DeleteAcls").
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "spillway/common/messages/native.h"

namespace spillway::messages {

inline constexpr int16_t kDescribeAclsVersion = 0;
inline constexpr int16_t kCreateAclsVersion = 0;
inline constexpr int16_t kDeleteAclsVersion = 0;

// One rule: `principal` from `host` is allowed/denied `operation` on the
// resources `pattern_type` + `resource_name` name.
struct AclBindingBody {
  int8_t resource_type = 0;
  std::string_view resource_name;
  int8_t pattern_type = 0;
  std::string_view principal;
  std::string_view host;
  int8_t operation = 0;
  int8_t permission = 0;

  static constexpr auto fields() {
    return std::tuple{
        Field<&AclBindingBody::resource_type>{"resource_type"},
        Field<&AclBindingBody::resource_name>{"resource_name"},
        Field<&AclBindingBody::pattern_type>{"pattern_type"},
        Field<&AclBindingBody::principal>{"principal"},
        Field<&AclBindingBody::host>{"host"},
        Field<&AclBindingBody::operation>{"operation"},
        Field<&AclBindingBody::permission>{"permission"},
    };
  }
};

// Selects rules: the enums' Any (1) and a null string match any value;
// pattern_type Match (2) selects every rule that applies to resource_name.
struct AclFilterBody {
  int8_t resource_type = 1;
  std::optional<std::string_view> resource_name;
  int8_t pattern_type = 1;
  std::optional<std::string_view> principal;
  std::optional<std::string_view> host;
  int8_t operation = 1;
  int8_t permission = 1;

  static constexpr auto fields() {
    return std::tuple{
        Field<&AclFilterBody::resource_type>{"resource_type"},
        Field<&AclFilterBody::resource_name>{"resource_name", wire::kAllVersions,
                                             wire::kAllVersions},
        Field<&AclFilterBody::pattern_type>{"pattern_type"},
        Field<&AclFilterBody::principal>{"principal", wire::kAllVersions, wire::kAllVersions},
        Field<&AclFilterBody::host>{"host", wire::kAllVersions, wire::kAllVersions},
        Field<&AclFilterBody::operation>{"operation"},
        Field<&AclFilterBody::permission>{"permission"},
    };
  }
};

// DescribeAcls: the rules one filter selects.
struct DescribeAclsRequest {
  AclFilterBody filter;

  static constexpr auto fields() {
    return std::tuple{Field<&DescribeAclsRequest::filter>{"filter"}};
  }
};

struct DescribeAclsResponse {
  Array<AclBindingBody> bindings;

  static constexpr auto fields() {
    return std::tuple{Field<&DescribeAclsResponse::bindings>{"bindings"}};
  }
};

Result<DescribeAclsRequest> decode_describe_acls_request(std::span<const std::byte> body);
Status encode_describe_acls_request(const DescribeAclsRequest& request, WriteBuffer& out) noexcept;
Result<DescribeAclsResponse> decode_describe_acls_response(std::span<const std::byte> body);
Status encode_describe_acls_response(const DescribeAclsResponse& response,
                                     WriteBuffer& out) noexcept;

// CreateAcls: adds rules; one result per binding, in order.
struct CreateAclsRequest {
  Array<AclBindingBody> bindings;

  static constexpr auto fields() {
    return std::tuple{Field<&CreateAclsRequest::bindings>{"bindings"}};
  }
};

struct AclCreationResult {
  ErrorCode error_code = ErrorCode::kOk;  // kInvalidArgument, ...
  ErrorText error_message;

  static constexpr auto fields() {
    return std::tuple{
        Field<&AclCreationResult::error_code>{"error_code"},
        Field<&AclCreationResult::error_message>{"error_message"},
    };
  }
};

struct CreateAclsResponse {
  Array<AclCreationResult> results;

  static constexpr auto fields() {
    return std::tuple{Field<&CreateAclsResponse::results>{"results"}};
  }
};

Result<CreateAclsRequest> decode_create_acls_request(std::span<const std::byte> body);
Status encode_create_acls_request(const CreateAclsRequest& request, WriteBuffer& out) noexcept;
Result<CreateAclsResponse> decode_create_acls_response(std::span<const std::byte> body);
Status encode_create_acls_response(const CreateAclsResponse& response, WriteBuffer& out) noexcept;

// DeleteAcls: removes every rule each filter selects; per filter, in order,
// an error or the rules it removed.
struct DeleteAclsRequest {
  Array<AclFilterBody> filters;

  static constexpr auto fields() {
    return std::tuple{Field<&DeleteAclsRequest::filters>{"filters"}};
  }
};

struct AclDeletionResult {
  ErrorCode error_code = ErrorCode::kOk;
  ErrorText error_message;
  Array<AclBindingBody> removed;

  static constexpr auto fields() {
    return std::tuple{
        Field<&AclDeletionResult::error_code>{"error_code"},
        Field<&AclDeletionResult::error_message>{"error_message"},
        Field<&AclDeletionResult::removed>{"removed"},
    };
  }
};

struct DeleteAclsResponse {
  Array<AclDeletionResult> results;

  static constexpr auto fields() {
    return std::tuple{Field<&DeleteAclsResponse::results>{"results"}};
  }
};

Result<DeleteAclsRequest> decode_delete_acls_request(std::span<const std::byte> body);
Status encode_delete_acls_request(const DeleteAclsRequest& request, WriteBuffer& out) noexcept;
Result<DeleteAclsResponse> decode_delete_acls_response(std::span<const std::byte> body);
Status encode_delete_acls_response(const DeleteAclsResponse& response, WriteBuffer& out) noexcept;

}  // namespace spillway::messages
