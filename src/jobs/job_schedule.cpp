#include "collsim/jobs/job_schedule.hpp"

#include <stdexcept>

#include "collsim/collectives/generate.hpp"
#include "collsim/collectives/spec.hpp"
#include "collsim/config/preset_file.hpp"
#include "collsim/goal/schedule_builder.hpp"
#include "collsim/goal/schedule_file.hpp"
#include "collsim/traces/replay_lowering.hpp"
#include "collsim/traces/trace_format.hpp"
#include "collsim/common/units.hpp"
#include "collsim/workload/parallel_layout.hpp"
#include "collsim/workload/step_lowering.hpp"
#include "collsim/workload/workload_loader.hpp"

namespace collsim::jobs {

namespace {

std::string workload_path(const JobSpec& job, const std::string& workload_dir) {
  return config::resolve_preset(job.file, workload_dir, "workload").string();
}

// `times` copies of `one`, each waiting for the previous one's last ops on its rank.
goal::Schedule repeated(const goal::Schedule& one, std::uint32_t times) {
  if (times == 1) return one;
  goal::ScheduleBuilder b(one.num_ranks());
  for (goal::RankId r = 0; r < one.num_ranks(); ++r) {
    b.begin_rank(r);
    const goal::RankOps ops = one.rank(r);
    const std::uint32_t n = ops.num_ops();
    // The ops nothing on this rank depends on end a copy; the next copy's ops without
    // prerequisites wait for them.
    std::vector<bool> needed(n, false);
    for (goal::LocalOp i = 0; i < n; ++i) {
      for (const std::uint32_t p : ops.requires_of(i)) needed[p] = true;
      for (const std::uint32_t p : ops.irequires_of(i)) needed[p] = true;
    }
    for (std::uint32_t copy = 0; copy < times; ++copy) {
      const goal::LocalOp base = copy * n;
      for (goal::LocalOp i = 0; i < n; ++i) b.add(ops.op(i));
      for (goal::LocalOp i = 0; i < n; ++i) {
        const auto req = ops.requires_of(i);
        const auto ireq = ops.irequires_of(i);
        for (const std::uint32_t p : req) b.add_requires(base + i, base + p);
        for (const std::uint32_t p : ireq) b.add_irequires(base + i, base + p);
        if (copy > 0 && req.empty() && ireq.empty())
          for (goal::LocalOp last = 0; last < n; ++last)
            if (!needed[last]) b.add_requires(base + i, base - n + last);
      }
    }
    b.end_rank();
  }
  return b.finish();
}

// How many consecutive ranks share each server (what the algorithms plan for), or 1 when
// the ranks do not come in such groups.
std::uint32_t consecutive_on_a_server(const topo::Topology& t, const std::vector<std::uint32_t>& hosts) {
  auto server = [&](std::size_t i) { return t.node(t.host(hosts[i])).server; };
  std::size_t k = 1;
  while (k < hosts.size() && server(k) == server(0)) ++k;
  if (hosts.size() % k != 0) return 1;
  for (std::size_t i = 0; i < hosts.size(); ++i)
    if (server(i) != server(i - i % k) || (i % k == 0 && i > 0 && server(i) == server(i - 1))) return 1;
  return static_cast<std::uint32_t>(k);
}

}  // namespace

std::uint32_t ranks_needed(const JobSpec& job, const std::string& workload_dir) {
  switch (job.kind) {
    case JobKind::Workload: return workload::load_workload(workload_path(job, workload_dir)).world();
    case JobKind::Schedule: return goal::load_schedule(job.file).num_ranks();
    case JobKind::Trace: return traces::read_traces(job.traces).num_ranks;
    case JobKind::Collective: return 0;
  }
  return 0;
}

LoadedJob load_job(const JobSpec& job, const std::string& workload_dir, const topo::Topology& t,
                   const std::vector<std::uint32_t>& hosts) {
  LoadedJob out;
  switch (job.kind) {
    case JobKind::Schedule:
      out.schedule = goal::load_schedule(job.file);
      out.description = job.file + " (" + std::to_string(out.schedule.num_ranks()) + " ranks)";
      break;
    case JobKind::Workload: {
      const workload::WorkloadSpec w = workload::load_workload(workload_path(job, workload_dir));
      workload::LoweringOptions lowering;
      lowering.gpus_per_node = std::max(1u, t.hosts_per_server());
      // The lowering keeps a TP group on one server's NVLink: its ranks' GPUs must be.
      const workload::ParallelLayout layout(w.parallel);
      for (goal::RankId r = 0; r < w.world(); ++r)
        for (const goal::RankId m : layout.tp_group(r))
          if (t.node(t.host(hosts[m])).server != t.node(t.host(hosts[r])).server)
            throw std::invalid_argument("job '" + job.name + "': its TP group of rank " + std::to_string(r) +
                                        " spans GPUs " + std::to_string(hosts[r]) + " and " + std::to_string(hosts[m]) +
                                        " of different servers (give it whole nodes, or a packed policy)");
      out.schedule = workload::lower_step(w, lowering).schedule;
      out.description = w.name + " (" + std::to_string(w.world()) + " GPUs, one step)";
      break;
    }
    case JobKind::Trace: {
      const traces::ReplayProgram program = traces::read_traces(job.traces);
      collectives::CollectiveSpec shape;
      shape.ranks_per_node = consecutive_on_a_server(t, hosts);
      out.schedule = traces::lower_replay(program, shape).schedule;
      out.description = program.description;
      break;
    }
    case JobKind::Collective: {
      const CollectiveJob& c = job.collective;
      collectives::CollectiveSpec spec;
      spec.collective = c.collective;
      spec.algorithm = c.algorithm;
      spec.num_ranks = static_cast<std::uint32_t>(hosts.size());
      spec.bytes = c.bytes;
      spec.channels = c.channels;
      spec.ranks_per_node = consecutive_on_a_server(t, hosts);
      out.schedule = repeated(collectives::generate(spec), c.repeat);
      out.description = std::string(collectives::to_string(c.collective)) + " " + format_byte_size(c.bytes) +
                        (c.repeat > 1 ? " x" + std::to_string(c.repeat) : "") + " (" + c.algorithm + ", " +
                        std::to_string(hosts.size()) + " ranks)";
      break;
    }
  }
  if (out.schedule.num_ranks() != hosts.size())
    throw std::invalid_argument("job '" + job.name + "' runs " + std::to_string(out.schedule.num_ranks()) +
                                " ranks but has " + std::to_string(hosts.size()) + " GPUs");
  return out;
}

}  // namespace collsim::jobs
