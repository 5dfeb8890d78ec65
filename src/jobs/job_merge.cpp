#include "collsim/jobs/job_merge.hpp"

#include <stdexcept>

#include "collsim/goal/schedule_builder.hpp"

namespace collsim::jobs {

MergedJobs merge_jobs(const std::vector<const goal::Schedule*>& jobs, const std::vector<SimTime>& starts) {
  MergedJobs m;
  std::uint32_t total = 0;
  std::uint64_t ops = 0, edges = 0;
  for (const goal::Schedule* s : jobs) {
    m.first_rank.push_back(total);
    total += s->num_ranks();
    ops += s->num_ops() + s->num_ranks();
  }
  m.first_rank.push_back(total);
  goal::ScheduleBuilder b(total);
  b.reserve(ops, edges);
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const goal::Schedule& s = *jobs[j];
    const SimTime start = starts[j];
    if (start.picoseconds() % 1000 != 0)
      throw std::invalid_argument("a job's start must be whole nanoseconds, not " + format_duration(start));
    const auto offset = m.first_rank[j];
    for (goal::RankId r = 0; r < s.num_ranks(); ++r) {
      b.begin_rank(offset + r);
      const goal::RankOps ops_of = s.rank(r);
      const bool delayed = start > SimTime::zero();
      const goal::LocalOp shift = delayed ? 1 : 0;
      if (delayed) b.add(goal::Op::calc(static_cast<std::uint64_t>(start.picoseconds() / 1000)));
      for (goal::LocalOp i = 0; i < ops_of.num_ops(); ++i) {
        goal::Op op = ops_of.op(i);
        if (op.kind != goal::OpKind::Calc && op.peer != goal::kAnySource) op.peer += offset;
        b.add(op);
      }
      for (goal::LocalOp i = 0; i < ops_of.num_ops(); ++i) {
        const auto req = ops_of.requires_of(i);
        const auto ireq = ops_of.irequires_of(i);
        for (const std::uint32_t p : req) b.add_requires(i + shift, p + shift);
        for (const std::uint32_t p : ireq) b.add_irequires(i + shift, p + shift);
        if (delayed && req.empty() && ireq.empty()) b.add_requires(i + shift, 0);
      }
      b.end_rank();
    }
  }
  m.schedule = b.finish();
  return m;
}

}  // namespace collsim::jobs
