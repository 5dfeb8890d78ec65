#include "loggops_schedule_store.hpp"

#include <stdexcept>
#include <string>

namespace collsim::exec::loggops {

using goal::LocalOp;
using goal::OpKind;
using goal::RankId;

ScheduleStore::ScheduleStore(const goal::Schedule& schedule, bool record_times)
    : schedule_(schedule), c_(schedule.columns()) {
  const RankId ranks = schedule.num_ranks();
  records_ = HugePageArray<Record>(schedule.num_ops() + ranks + kPrefetchRecords);
  dependents_ = HugePageArray<std::uint32_t>(schedule.num_requires() + schedule.num_irequires() + kPrefetchDependents);
  ranks_.resize(std::size_t{ranks} + 1);
  for (RankId r = 0; r <= ranks; ++r)
    ranks_[r] = {records_.data() + first_record(r), dependents_.data() + dependent_base(r)};
  std::uint8_t max_cpu = 0, max_nic = 0;
  std::vector<std::uint32_t> scratch;
  // What a mapped .goalb holds of the ranks copied so far is given back as the copy goes:
  // the file and the records are never both in memory whole.
  RankId copied = 0;
  for (RankId r = 0; r < ranks; ++r) {
    if (c_.op_begin[r] - c_.op_begin[copied] >= kDropEvery) {
      schedule.drop_resident(copied, r);
      copied = r;
    }
    const goal::RankOps ops = schedule.rank(r);
    const LocalOp n = ops.num_ops();
    if (n >= kMessageBit) throw std::invalid_argument("LogGOPS mode: rank " + std::to_string(r) + " has 2^31 ops or more");
    if (ops.num_requires() + ops.num_irequires() > 0xFFFFFFFFull)
      throw std::invalid_argument("LogGOPS mode: rank " + std::to_string(r) + " has 2^32 dependencies or more");
    const std::uint64_t g0 = ops.first_global_op();
    Record* rank = ranks_[r].records;
    const goal::RankOps::Rows req = ops.requires_rows(), ireq = ops.irequires_rows();
    for (LocalOp i = 0; i < n; ++i) {
      const std::uint64_t g = g0 + i;
      // The record is written whole: a first access that reads would map the zero page,
      // and the write after it fault again.
      Record o;
      const std::uint64_t size = c_.size[g];
      if (size >= kSizeBeside) [[unlikely]] {
        o.size = kSizeBeside;
        sizes_beside_.push_back({g, size});
      } else {
        o.size = static_cast<std::uint32_t>(size);
      }
      o.peer = c_.peer[g];
      o.tag = c_.tag[g];
      o.set_kind(c_.kind[g]);
      o.cpu = c_.cpu[g];
      o.nic = c_.nic[g];
      max_cpu = std::max(max_cpu, o.cpu);
      max_nic = std::max(max_nic, o.nic);
      o.pending = (req.offset[i + 1] - req.offset[i]) + (ireq.offset[i + 1] - ireq.offset[i]);
      rank[i] = o;
    }
    const std::uint32_t next = reverse_dependencies(
        ops, dependents_.data() + dependent_base(r), scratch,
        [&](LocalOp i, std::uint32_t first, std::uint32_t start, std::uint32_t end) {
          rank[i].first_dependent = first;
          const std::uint32_t starting = end - start;
          if (starting >= kStartDependentsBeside) [[unlikely]] {
            rank[i].start_dependents = kStartDependentsBeside;
            start_dependents_beside_.push_back({g0 + i, starting});
          } else {
            rank[i].start_dependents = static_cast<std::uint8_t>(starting);
          }
        });
    rank[n].first_dependent = next;
  }
  schedule.drop_resident(copied, ranks);
  num_cpus_ = max_cpu + 1u;
  num_nics_ = max_nic + 1u;
  if (record_times) {
    start_.assign(schedule.num_ops(), kNever);
    end_.assign(schedule.num_ops(), kNever);
  }
}

void ScheduleStore::report_blocked(LogGOPSResult& res, std::size_t max_reported) const {
  if (completed_ == schedule_.num_ops()) return;
  for (RankId r = 0; r < num_ranks(); ++r) {
    const goal::RankOps ops = schedule_.rank(r);
    for (LocalOp i = 0; i < ops.num_ops(); ++i) {
      const OpState s = state(r, i);
      if (s == OpState::Finished) continue;
      ++res.num_blocked;
      if (res.blocked.size() >= max_reported) continue;
      BlockedOp b;
      b.rank = r;
      b.op = i;
      b.kind = ops.kind(i);
      b.peer = ops.peer(i);
      b.tag = ops.tag(i);
      b.size = ops.size(i);
      if (s == OpState::Started) {
        b.reason = b.kind == OpKind::Recv ? BlockReason::NoMatchingSend : BlockReason::NoMatchingRecv;
      } else {
        b.reason = BlockReason::Prerequisites;
        for (LocalOp p : ops.requires_of(i))
          if (state(r, p) != OpState::Finished) b.unfinished_requires.push_back(p);
        for (LocalOp p : ops.irequires_of(i))
          if (state(r, p) != OpState::Started && state(r, p) != OpState::Finished) b.unstarted_irequires.push_back(p);
      }
      res.blocked.push_back(std::move(b));
    }
  }
}

}  // namespace collsim::exec::loggops
