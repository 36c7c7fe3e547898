// The in-memory fake broker of the client tests (see fake_broker.h).
#include "fake_broker.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>

#include "socket_io.h"
#include "spillway/common/frame.h"
#include "spillway/common/messages/fetch.h"
#include "spillway/common/messages/metadata.h"
#include "spillway/common/messages/offsets.h"
#include "spillway/common/messages/produce.h"
#include "spillway/common/messages/producer_id.h"
#include "spillway/common/messages/topics.h"
#include "spillway/common/record_batch.h"

namespace spillway::testing {

namespace {

// The topic results of a response: one per request topic, in order, the
// i-th viewing results[i], the partition results made for that topic.
template <typename TopicResult, typename Topics, typename PartitionResult>
std::vector<TopicResult> by_topic(const Topics& request_topics,
                                  const std::vector<std::vector<PartitionResult>>& results) {
  std::vector<TopicResult> out;
  for (size_t i = 0; const auto& t : request_topics) {
    out.push_back({.name = t.name, .results = results[i++]});
  }
  return out;
}

// Where committed_ keeps a group's offset of a partition.
std::string committed_key(std::string_view group, std::string_view topic, int32_t partition) {
  return std::string(group) + "/" + std::string(topic) + "/" + std::to_string(partition);
}

// Copies a WriteBuffer's bytes out.
std::vector<std::byte> bytes_of(WriteBuffer& w) {
  std::vector<std::byte> v(w.bytes_written());
  w.copy_to(v);
  return v;
}

}  // namespace

FakeBroker::FakeBroker() {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  ::listen(listen_fd_, 64);
  socklen_t len = sizeof(addr);
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { accept_loop(); });
}

FakeBroker::~FakeBroker() {
  stopping_ = true;
  ::shutdown(listen_fd_, SHUT_RDWR);
  acceptor_.join();
  drop_connections();
  data_cv_.notify_all();
  for (std::thread& t : sessions_) t.join();
  ::close(listen_fd_);
}

void FakeBroker::accept_loop() {
  for (;;) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0 || stopping_) {
      if (fd >= 0) ::close(fd);
      return;
    }
    int one = 1;  // answers go out as two sends: no Nagle delay between them
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    connections_accepted_.fetch_add(1);
    std::lock_guard lk(mu_);
    open_fds_.push_back(fd);
    sessions_.emplace_back([this, fd] { serve(fd); });
  }
}

void FakeBroker::drop_connections() {
  std::lock_guard lk(mu_);
  for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
}

void FakeBroker::serve(int fd) {
  std::vector<std::byte> body, response;
  for (;;) {
    std::array<std::byte, frame::kRequestHeaderBytes> h;
    frame::RequestHeader header;
    if (!read_exactly(fd, h.data(), h.size())) break;
    if (!frame::decode_request_header(h, 64 << 20, &header).ok()) break;
    body.resize(header.body_bytes);
    if (!read_exactly(fd, body.data(), body.size())) break;
    if (header.api_key == static_cast<int16_t>(frame::ApiKey::kProduce) &&
        hold_produce_.exchange(false)) {
      pollfd next{.fd = fd, .events = POLLIN, .revents = 0};
      (void)::poll(&next, 1, 10'000);
    }
    response.clear();
    ErrorCode error = ErrorCode::kOk;
    if (!handle(header.api_key, header.api_version, body, response, &error)) break;
    std::array<std::byte, frame::kResponseHeaderBytes> rh;
    frame::encode_response_header({.correlation_id = header.correlation_id,
                                   .error_code = error,
                                   .body_bytes = static_cast<uint32_t>(response.size())},
                                  rh);
    if (::send(fd, rh.data(), rh.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(rh.size())) break;
    if (!response.empty() && ::send(fd, response.data(), response.size(), MSG_NOSIGNAL) !=
                                 static_cast<ssize_t>(response.size())) {
      break;
    }
  }
  std::lock_guard lk(mu_);
  open_fds_.erase(std::remove(open_fds_.begin(), open_fds_.end(), fd), open_fds_.end());
  ::close(fd);
}

void FakeBroker::create_topic(const std::string& name, int partitions) {
  std::lock_guard lk(mu_);
  topics_[name].resize(static_cast<size_t>(partitions));
}

void FakeBroker::fail_next_produce_entries(int n, ErrorCode code, int partition) {
  std::lock_guard lk(mu_);
  fail_entries_ = n;
  fail_code_ = code;
  fail_partition_ = partition;
}

void FakeBroker::drop_next_produce_requests(int n) {
  std::lock_guard lk(mu_);
  drop_requests_ = n;
}

void FakeBroker::flip_stored_byte(const std::string& topic, int partition, size_t index,
                                  size_t at) {
  std::lock_guard lk(mu_);
  std::vector<std::byte>& b =
      topics_.at(topic).at(static_cast<size_t>(partition)).batches.at(index);
  b.at(at) = ~b.at(at);
}

std::vector<std::pair<std::string, std::string>> FakeBroker::records(const std::string& topic,
                                                                     int partition) {
  std::lock_guard lk(mu_);
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& b : topics_.at(topic).at(static_cast<size_t>(partition)).batches) {
    Result<batch::BatchHeader> h = batch::parse_header(b);
    std::vector<std::byte> plain;
    std::span<const std::byte> block = batch::records_block(b);
    if (h->compression() == batch::Compression::kZstd) {
      plain.resize(4 << 20);
      block = *batch::decompress_records(b, plain);
    }
    batch::RecordReader reader(block, h->record_count);
    batch::RecordView v;
    while (reader.next(&v)) {
      out.emplace_back(std::string(reinterpret_cast<const char*>(v.key.data()), v.key.size()),
                       std::string(reinterpret_cast<const char*>(v.value.data()), v.value.size()));
    }
  }
  return out;
}

void FakeBroker::hand_out_producer_ids() {
  std::lock_guard lk(mu_);
  producer_ids_ = true;
}

// Under mu_. The real broker's rule, without duplicates: a producer's first
// batch in a partition starts at sequence 0, each next one where the last
// ended; advances the sequence when the batch will be stored.
ErrorCode FakeBroker::check_sequence(Partition& part, std::span<const std::byte> batch) {
  Result<batch::BatchHeader> h = batch::parse_header(batch);
  if (!h.ok() || h->producer_id < 0) return ErrorCode::kOk;
  auto [it, first] = part.next_sequence.try_emplace(h->producer_id, 0);
  if (h->base_sequence != it->second) {
    if (first) part.next_sequence.erase(it);
    out_of_order_refusals_.fetch_add(1);
    return first ? ErrorCode::kUnknownProducerId : ErrorCode::kOutOfOrderSequence;
  }
  it->second += h->record_count;
  return ErrorCode::kOk;
}

bool FakeBroker::handle(int16_t api_key, int16_t api_version, std::span<const std::byte> body,
                        std::vector<std::byte>& response, ErrorCode* error) {
  std::byte scratch[256];
  WriteBuffer out(scratch);
  std::unique_lock lk(mu_);
  switch (static_cast<frame::ApiKey>(api_key)) {
    case frame::ApiKey::kMetadata: {
      Result<messages::MetadataRequest> req = messages::decode_metadata_request(body);
      if (!req.ok()) return false;
      std::vector<std::string_view> names;
      if (req->all_topics) {
        for (auto& [name, parts] : topics_) names.push_back(name);
      } else {
        for (std::string_view n : req->topics) names.push_back(n);
      }
      std::vector<std::vector<messages::MetadataPartition>> parts(names.size());
      std::vector<messages::MetadataTopic> topics(names.size());
      for (size_t i = 0; i < names.size(); ++i) {
        topics[i].name = names[i];
        auto it = topics_.find(std::string(names[i]));
        if (it == topics_.end()) {
          topics[i].error_code = ErrorCode::kUnknownTopic;
          topics[i].error_message = "unknown topic";
          continue;
        }
        topics[i].flush_policy = "interval";
        for (size_t p = 0; p < it->second.size(); ++p) {
          parts[i].push_back({.partition = static_cast<int32_t>(p),
                              .log_start_offset = 0,
                              .high_watermark = it->second[p].next_offset,
                              .error_code = ErrorCode::kOk,
                              .error_message = {}});
        }
        topics[i].partitions = parts[i];
      }
      messages::MetadataResponse resp;
      resp.topics = topics;
      // As a broker does: the answer at the request's version (v1 adds sizes).
      if (!messages::encode_metadata_response(resp, out, api_version).ok()) return false;
      break;
    }
    case frame::ApiKey::kCreateTopics: {
      Result<messages::CreateTopicsRequest> req = messages::decode_create_topics_request(body);
      if (!req.ok()) return false;
      topics_[std::string(req->name)].resize(static_cast<size_t>(req->partitions));
      break;
    }
    case frame::ApiKey::kProduce: {
      produce_requests_.fetch_add(1);
      if (drop_requests_ > 0) {
        --drop_requests_;
        return false;
      }
      Result<messages::ProduceRequest> req = messages::decode_produce_request(body);
      if (!req.ok()) return false;
      std::vector<std::vector<messages::ProducePartitionResult>> results;
      std::vector<messages::ProduceTopicResult> topics;
      for (const messages::ProduceTopicData& t : req->topics) {
        results.emplace_back();
        for (const messages::ProducePartitionData& p : t.partitions) {
          messages::ProducePartitionResult r;
          r.partition = p.partition;
          auto it = topics_.find(std::string(t.name));
          Status valid = batch::validate(p.record_batch, 64 << 20);
          if (fail_entries_ > 0 && (fail_partition_ < 0 || fail_partition_ == p.partition)) {
            --fail_entries_;
            r.error_code = fail_code_;
            r.error_message = "injected failure";
          } else if (it == topics_.end()) {
            r.error_code = ErrorCode::kUnknownTopic;
          } else if (p.partition < 0 || static_cast<size_t>(p.partition) >= it->second.size()) {
            r.error_code = ErrorCode::kUnknownPartition;
          } else if (!valid.ok()) {
            r.error_code = valid.code();
          } else if (ErrorCode gap = check_sequence(it->second[static_cast<size_t>(p.partition)],
                                                    p.record_batch);
                     gap != ErrorCode::kOk) {
            r.error_code = gap;
          } else {
            Partition& part = it->second[static_cast<size_t>(p.partition)];
            std::vector<std::byte> stored(p.record_batch.begin(), p.record_batch.end());
            batch::set_base_offset(stored, part.next_offset);
            Result<batch::BatchHeader> h = batch::parse_header(stored);
            r.base_offset = req->acks == messages::Acks::kNone ? -1 : part.next_offset;
            r.record_count = h->record_count;
            r.log_start_offset = 0;
            part.next_offset += h->last_offset_delta + 1;
            part.batches.push_back(std::move(stored));
          }
          results.back().push_back(r);
        }
      }
      topics = by_topic<messages::ProduceTopicResult>(req->topics, results);
      messages::ProduceResponse resp;
      resp.topics = topics;
      if (!messages::encode_produce_response(resp, out).ok()) return false;
      data_cv_.notify_all();
      break;
    }
    case frame::ApiKey::kFetch: {
      Result<messages::FetchRequest> req = messages::decode_fetch_request(body);
      if (!req.ok()) return false;
      for (const messages::FetchTopicRequest& t : req->topics) {
        for (const messages::FetchPartitionRequest& p : t.partitions) {
          int64_t seen = highest_fetch_offset_.load();
          while (p.fetch_offset > seen &&
                 !highest_fetch_offset_.compare_exchange_weak(seen, p.fetch_offset)) {
          }
        }
      }
      const auto deadline =
          std::chrono::steady_clock::now() + std::chrono::milliseconds(req->max_wait_ms);
      std::vector<std::vector<std::byte>> data;
      std::vector<std::vector<messages::FetchPartitionResult>> results;
      std::vector<messages::FetchTopicResult> topics;
      for (;;) {
        data.clear();
        results.clear();
        size_t total = 0;
        data.reserve(1024);
        for (const messages::FetchTopicRequest& t : req->topics) {
          results.emplace_back();
          auto it = topics_.find(std::string(t.name));
          for (const messages::FetchPartitionRequest& p : t.partitions) {
            messages::FetchPartitionResult r;
            r.partition = p.partition;
            if (it == topics_.end() || p.partition < 0 ||
                static_cast<size_t>(p.partition) >= it->second.size()) {
              r.error_code = ErrorCode::kUnknownPartition;
              results.back().push_back(r);
              continue;
            }
            Partition& part = it->second[static_cast<size_t>(p.partition)];
            r.high_watermark = part.next_offset;
            r.log_start_offset = 0;
            if (p.fetch_offset > part.next_offset) {
              r.error_code = ErrorCode::kOffsetOutOfRange;
              results.back().push_back(r);
              continue;
            }
            data.emplace_back();
            for (const auto& b : part.batches) {
              Result<batch::BatchHeader> h = batch::parse_header(b);
              if (h->last_offset() < p.fetch_offset) continue;
              if (data.back().size() + b.size() > static_cast<size_t>(p.partition_max_bytes) &&
                  !data.back().empty()) {
                break;
              }
              data.back().insert(data.back().end(), b.begin(), b.end());
            }
            total += data.back().size();
            r.records.bytes = data.back();
            results.back().push_back(r);
          }
        }
        if (total > 0 || std::chrono::steady_clock::now() >= deadline || stopping_) break;
        data_cv_.wait_until(lk, deadline);
      }
      topics = by_topic<messages::FetchTopicResult>(req->topics, results);
      messages::FetchResponse resp;
      resp.topics = topics;
      if (!messages::encode_fetch_response(resp, out).ok()) return false;
      break;
    }
    case frame::ApiKey::kCommitOffsets: {
      Result<messages::CommitOffsetsRequest> req = messages::decode_commit_offsets_request(body);
      if (!req.ok()) return false;
      std::vector<std::vector<messages::PartitionError>> results;
      std::vector<messages::CommitOffsetsTopicResult> topics;
      for (const messages::CommitOffsetsTopic& t : req->topics) {
        results.emplace_back();
        for (const messages::CommitOffsetEntry& e : t.entries) {
          committed_[committed_key(req->group, t.name, e.partition)] = e.offset;
          results.back().push_back(
              {.partition = e.partition, .error_code = ErrorCode::kOk, .error_message = {}});
        }
      }
      topics = by_topic<messages::CommitOffsetsTopicResult>(req->topics, results);
      messages::CommitOffsetsResponse resp;
      resp.topics = topics;
      if (!messages::encode_commit_offsets_response(resp, out).ok()) return false;
      break;
    }
    case frame::ApiKey::kFetchOffsets: {
      Result<messages::FetchOffsetsRequest> req = messages::decode_fetch_offsets_request(body);
      if (!req.ok()) return false;
      std::vector<std::vector<messages::FetchOffsetsResult>> results;
      std::vector<messages::FetchOffsetsTopicResult> topics;
      for (const messages::FetchOffsetsTopic& t : req->topics) {
        results.emplace_back();
        for (int32_t p : t.partitions) {
          auto it = committed_.find(committed_key(req->group, t.name, p));
          results.back().push_back({.partition = p,
                                    .offset = it == committed_.end() ? -1 : it->second,
                                    .error_code = ErrorCode::kOk,
                                    .error_message = {}});
        }
      }
      topics = by_topic<messages::FetchOffsetsTopicResult>(req->topics, results);
      messages::FetchOffsetsResponse resp;
      resp.topics = topics;
      if (!messages::encode_fetch_offsets_response(resp, out).ok()) return false;
      break;
    }
    case frame::ApiKey::kInitProducerId:
      if (producer_ids_) {
        messages::InitProducerIdResponse resp{.producer_id = next_producer_id_++,
                                              .producer_epoch = 0};
        if (!messages::encode_init_producer_id_response(resp, out).ok()) return false;
        break;
      }
      [[fallthrough]];  // unsupported, as by a broker older than idempotence
    default:
      *error = ErrorCode::kUnsupportedVersion;
      response.clear();
      response.push_back(std::byte{0});
      response.push_back(std::byte{0});
      return true;
  }
  response = bytes_of(out);
  return true;
}

}  // namespace spillway::testing
