#include "collsim/traces/replay_lowering.hpp"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include "collsim/collectives/generate.hpp"
#include "collsim/goal/schedule_builder.hpp"

namespace collsim::traces {
namespace {

std::vector<collectives::Plan> plan_collectives(const ReplayProgram& p, const collectives::CollectiveSpec& shape) {
  std::vector<collectives::Plan> plans;
  plans.reserve(p.collectives.size());
  // Tags above every tag the trace's own messages use; each collective takes [tag, tag + channels).
  std::uint64_t next_tag = std::uint64_t{p.max_tag} + 1;
  for (const CollectiveCall& c : p.collectives) {
    collectives::CollectiveSpec spec = shape;
    spec.collective = c.collective;
    spec.num_ranks = p.num_ranks;
    spec.group = c.group;
    spec.bytes = c.bytes;
    spec.root = c.root;
    spec.first_cpu = kCommunicationCpu;
    spec.tag = static_cast<std::uint32_t>(next_tag);
    try {
      plans.push_back(collectives::make_plan(spec));
    } catch (const std::invalid_argument& e) {
      throw c.origin.error(std::string("cannot lower ") + std::string(collectives::to_string(c.collective)) + ": " + e.what());
    }
    next_tag += plans.back().channels;
    if (next_tag >= goal::kAnyTag)
      throw c.origin.error("the collectives need more than 2^32 - 1 tags");
  }
  return plans;
}

void append_unique(std::vector<goal::LocalOp>& to, const std::vector<goal::LocalOp>& ops) {
  to.insert(to.end(), ops.begin(), ops.end());
}

}  // namespace

LoweredReplay lower_replay(const ReplayProgram& p, const collectives::CollectiveSpec& shape) {
  const std::vector<collectives::Plan> plans = plan_collectives(p, shape);
  LoweredReplay out;
  for (std::size_t i = 0; i < p.collectives.size(); ++i) {
    const CollectiveCall& c = p.collectives[i];
    out.collectives.push_back({std::string(collectives::to_string(c.collective)), plans[i].algorithm, c.bytes, c.group,
                               c.origin.text(), {}});
  }
  for (const Transfer& t : p.transfers) out.collectives.push_back({"send", "", t.bytes, {t.from, t.to}, t.origin.text(), {}});

  // Member index of (rank, collective).
  std::unordered_map<std::uint64_t, std::uint32_t> member;
  for (std::uint32_t ci = 0; ci < p.collectives.size(); ++ci)
    for (std::uint32_t m = 0; m < p.collectives[ci].group.size(); ++m)
      member[(std::uint64_t{p.collectives[ci].group[m]} << 32) | ci] = m;

  goal::ScheduleBuilder builder(p.num_ranks);
  collectives::BuilderSink sink(builder);
  for (goal::RankId r = 0; r < p.num_ranks; ++r) {
    builder.begin_rank(r);
    const std::vector<ReplayTask>& tasks = p.ranks[r];
    std::vector<std::vector<goal::LocalOp>> exits(tasks.size());  // what later work waits for
    std::vector<goal::LocalOp> first(tasks.size(), collectives::kNoOp);   // the task's first op
    for (std::uint32_t i = 0; i < tasks.size(); ++i) {
      const ReplayTask& task = tasks[i];
      std::vector<goal::LocalOp> entry;
      for (std::uint32_t d : task.after) append_unique(entry, exits[d]);
      // "Started" of a task that added nothing (a member with no part) falls back to finished.
      for (std::uint32_t d : task.after_start)
        if (first[d] == collectives::kNoOp) append_unique(entry, exits[d]);
      std::sort(entry.begin(), entry.end());
      entry.erase(std::unique(entry.begin(), entry.end()), entry.end());

      if (task.kind == ReplayTask::Kind::Collective) {
        const goal::LocalOp begin = builder.ops_in_current_rank();
        std::vector<goal::LocalOp> done =
            collectives::emit_member(plans[task.collective], member.at((std::uint64_t{r} << 32) | task.collective), sink, entry);
        goal::LocalOp end = builder.ops_in_current_rank();
        if (end == begin && p.collectives[task.collective].group.size() == 1) {
          // A collective of one member moves nothing and ends as soon as what it waits for
          // has: an op of no time stands for it, so that it has a time like any other.
          const goal::LocalOp index = builder.add(goal::Op::calc(0, plans[task.collective].first_cpu));
          for (goal::LocalOp e : entry) builder.add_requires(index, e);
          done = {index};
          end = index + 1;
        }
        out.collectives[task.collective].ops.push_back({r, begin, end});
        if (end > begin) first[i] = begin;
        exits[i] = done.empty() ? std::move(entry) : std::move(done);
        continue;
      }
      goal::Op op;
      switch (task.kind) {
        case ReplayTask::Kind::Compute: op = goal::Op::calc(task.ns, kComputeCpu); break;
        case ReplayTask::Kind::Send: op = goal::Op::send(task.bytes, task.peer, task.tag, kCommunicationCpu); break;
        case ReplayTask::Kind::Recv: op = goal::Op::recv(task.bytes, task.peer, task.tag, kCommunicationCpu); break;
        case ReplayTask::Kind::Collective: break;
      }
      const goal::LocalOp index = builder.add(op);
      for (goal::LocalOp e : entry) builder.add_requires(index, e);
      for (std::uint32_t d : task.after_start)
        if (first[d] != collectives::kNoOp) builder.add_irequires(index, first[d]);
      if (task.transfer != kNoIndex) out.collectives[p.collectives.size() + task.transfer].ops.push_back({r, index, index + 1});
      first[i] = index;
      exits[i] = {index};
    }
    builder.end_rank();
  }
  out.schedule = builder.finish();
  return out;
}

}  // namespace collsim::traces
