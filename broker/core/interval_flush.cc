#include "core/interval_flush.h"

#include <utility>

#include "core/partition.h"
#include "core/task_pool.h"

namespace spillway::broker {

IntervalFlush::IntervalFlush(std::unique_ptr<storage::GroupSync> group, asio::io_context& owner,
                             asio::io_context& sync)
    : group_(std::move(group)), owner_(owner), sync_(sync) {}

void IntervalFlush::add(std::shared_ptr<Partition> partition, storage::FlushRequest request) {
  due_.push_back(Due{std::move(partition), std::move(request)});
}

void IntervalFlush::start() {
  if (due_.empty()) return;
  post_task(sync_, [group = group_, due = std::exchange(due_, {}), &owner = owner_]() mutable {
    std::vector<storage::File*> files;
    files.reserve(due.size());
    for (const Due& d : due) files.push_back(d.request.file.get());
    std::vector<Status> results(due.size());
    group->sync(files, results);
    post_task(owner, [due = std::move(due), results = std::move(results)]() mutable {
      for (size_t i = 0; i < due.size(); ++i) {
        due[i].partition->finish_flush(due[i].request, std::move(results[i]));
      }
    });
  });
}

}  // namespace spillway::broker
