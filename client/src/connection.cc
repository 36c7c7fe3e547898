// Connection: the public handle on a Channel, the client's one transport
// (channel.h), for calls whose response the caller keeps.
#include "spillway/connection.h"

#include "channel.h"

namespace spillway {

Result<Connection> Connection::connect(std::string_view address, ConnectionOptions options) {
  auto channel = std::make_unique<wire::Channel>();
  SPILLWAY_RETURN_IF_ERROR(channel->connect(address, options));
  return Connection(std::move(channel));
}

Status check_broker_address(std::string_view address) {
  std::string host, port;
  return wire::split_address(address, &host, &port);
}

Status check_bootstrap(std::string_view list) {
  if (list.empty()) return Status(ErrorCode::kInvalidArgument, "bootstrap: no broker address");
  for (const std::string& address : wire::split_bootstrap(list)) {
    SPILLWAY_RETURN_IF_ERROR(check_broker_address(address));
  }
  return Status::Ok();
}

std::vector<std::string> wire::split_bootstrap(std::string_view list) {
  std::vector<std::string> out;
  while (true) {
    const std::size_t comma = list.find(',');
    out.emplace_back(list.substr(0, comma));
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return out;
}

wire::Channel& wire::channel_of(Connection& connection) noexcept {
  return *connection.channel_;
}

Connection::Connection(std::unique_ptr<wire::Channel> channel) : channel_(std::move(channel)) {}
Connection::Connection(Connection&&) noexcept = default;
Connection& Connection::operator=(Connection&&) noexcept = default;
Connection::~Connection() = default;

bool Connection::is_open() const noexcept {
  return channel_ && channel_->is_open();
}

void Connection::close() noexcept {
  if (channel_) channel_->close();
}

const std::string& Connection::address() const noexcept {
  return channel_->address();
}
const ConnectionOptions& Connection::options() const noexcept {
  return channel_->options();
}

Result<std::vector<std::byte>> Connection::request(frame::ApiKey api_key, int16_t api_version,
                                                   std::span<const std::byte> body) {
  if (!channel_) return Status(ErrorCode::kNotConnected, "connection is closed");
  return channel_->call(api_key, api_version, [&](WriteBuffer& out) { return out.write(body); });
}

}  // namespace spillway
