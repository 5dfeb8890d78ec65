#include "run_record.hpp"

#include <algorithm>

#ifndef COLLSIM_VERSION
#define COLLSIM_VERSION "unknown"
#endif

namespace collsim::cli {
namespace {
std::string& stored_invocation() {
  static std::string text = "collsim";
  return text;
}
}  // namespace

void remember_invocation(int argc, char** argv) {
  std::string text;
  for (int i = 0; i < argc; ++i) {
    if (i > 0) text += ' ';
    text += argv[i];
  }
  stored_invocation() = text;
}

const std::string& invocation() { return stored_invocation(); }

std::vector<out::LinkDirection> link_directions(const topo::Topology& topology) {
  std::vector<out::LinkDirection> directions;
  directions.reserve(2 * topology.links().size());
  for (const topo::Link& l : topology.links()) {
    const auto bps = static_cast<std::uint64_t>(l.bandwidth.bps());
    directions.push_back({topology.node(l.a).name, topology.node(l.b).name, bps});
    directions.push_back({topology.node(l.b).name, topology.node(l.a).name, bps});
  }
  return directions;
}

nlohmann::json fabric_configuration(const FabricCliOptions& fabric, const ObserveCliOptions& observe) {
  return {{"fabric_params_file", fabric.params_file}, {"fabric_set", fabric.set}, {"cc", fabric.cc},
          {"routing", fabric.routing}, {"lossy", fabric.lossy}, {"seed", fabric.seed}, {"link_speed", fabric.link_speed},
          {"link_down", fabric.link_down}, {"switch_down", fabric.switch_down}, {"reconvergence", fabric.reconvergence},
          {"sample_interval", observe.sample_interval}, {"max_samples", observe.max_samples}};
}

void record_identity(out::RunResults& results, const nlohmann::json& configuration) {
  results.attributes["version"] = COLLSIM_VERSION;
  results.attributes["command"] = invocation();
  results.attributes["configuration"] = configuration.dump();
}

std::vector<out::CollectiveRecord> collective_records(const goal::Schedule& schedule,
                                                      const std::vector<exec::OpTime>& times,
                                                      const std::vector<goal::OpSpan>& spans) {
  std::vector<out::CollectiveRecord> records;
  if (spans.empty() || times.empty()) return records;
  std::vector<const exec::OpTime*> time_of(schedule.num_ops(), nullptr);  // null: no time recorded
  for (const exec::OpTime& t : times) time_of[schedule.rank(t.rank).first_global_op() + t.op] = &t;
  records.reserve(spans.size());
  for (const goal::OpSpan& s : spans) {
    out::CollectiveRecord& r = records.emplace_back(out::CollectiveRecord{s.rank, s.name, std::nullopt, std::nullopt});
    const std::uint64_t base = schedule.rank(s.rank).first_global_op();
    for (goal::LocalOp op = s.first; op < s.end; ++op) {
      const exec::OpTime* t = time_of[base + op];
      if (t == nullptr) continue;
      if (t->start && (!r.start || *t->start < *r.start)) r.start = t->start;
      r.end = std::max(r.end, t->end);
    }
  }
  return records;
}

out::RunResults results_of(const topo::Topology* topology, const goal::Schedule& schedule, const exec::SimulationRun& run,
                           const ScheduleAnnotations& annotations, const nlohmann::json& configuration) {
  out::RunResults r;
  record_identity(r, configuration);
  r.schedule = &schedule;
  r.op_times = run.result.op_times;
  if (annotations.op_role.size() == schedule.num_ops()) {
    r.op_role = annotations.op_role;
    r.role_names = annotations.role_names;
  }
  if (topology != nullptr && !run.link_bytes.empty()) {
    r.links = link_directions(*topology);
    r.link_bytes_total = run.link_bytes;
    r.samples = run.link_samples;
  }
  r.flows = run.result.flows;
  r.collective_names = annotations.span_names;
  r.collectives = collective_records(schedule, run.result.op_times, annotations.spans);
  if (!r.collectives.empty()) r.collective_ops = annotations.spans;
  return r;
}

}  // namespace collsim::cli
