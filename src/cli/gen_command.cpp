#include "gen_command.hpp"

#include <CLI/CLI.hpp>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "collsim/collectives/algorithm.hpp"
#include "collsim/collectives/generate.hpp"
#include "collsim/collectives/tuning.hpp"
#include "collsim/collectives/verifier.hpp"
#include "collsim/common/units.hpp"
#include "collsim/goal/schedule_file.hpp"
#include "collsim/goal/text_format.hpp"

namespace collsim::cli {
namespace {

struct GenOptions {
  std::string collective;
  std::string algorithm = "auto";
  std::uint32_t ranks = 0;
  std::vector<std::uint32_t> group;
  std::string bytes;
  std::uint32_t channels = 1;
  std::string chunk;
  std::uint32_t in_flight = 0;
  std::string protocol = "auto";
  std::uint32_t root = 0;
  std::uint32_t ranks_per_node = 1;
  std::uint32_t nics = 1;
  std::uint32_t tag = 0;
  std::string reduce_bw = "200GB/s";
  std::int64_t launch_ns = -1;
  std::int64_t step_ns = -1;
  std::string arch = "ampere";
  double intra_gbps = 20.0;
  double inter_gbps = 12.0;
  std::string output;
  std::string format;
  bool verify = false;
  bool json = false;
  bool list = false;
};

std::uint64_t byte_option(const std::string& option, const std::string& text) {
  std::string error;
  const auto v = parse_byte_size(text, &error);
  if (!v) throw CLI::ValidationError(option, error);
  return *v;
}

coll::CollectiveSpec spec_from(const GenOptions& o) {
  coll::CollectiveSpec spec;
  const auto c = coll::collective_from_name(o.collective);
  if (!c)
    throw CLI::ValidationError("COLL", "unknown collective '" + o.collective +
                                           "' (allreduce, allgather, reduce_scatter, broadcast, reduce, alltoall, "
                                           "barrier, sendrecv)");
  spec.collective = *c;
  spec.algorithm = o.algorithm;
  spec.num_ranks = o.ranks;
  spec.group.assign(o.group.begin(), o.group.end());
  spec.bytes = byte_option("--bytes", o.bytes);
  spec.channels = o.channels;
  if (!o.chunk.empty()) spec.chunk_bytes = byte_option("--chunk", o.chunk);
  if (!o.chunk.empty() && spec.chunk_bytes == 0) throw CLI::ValidationError("--chunk", "must be at least 1 byte");
  spec.max_in_flight = o.in_flight;
  const auto p = coll::protocol_from_name(o.protocol);
  if (!p) throw CLI::ValidationError("--proto", "unknown protocol '" + o.protocol + "' (LL, LL128, Simple, auto)");
  spec.protocol = *p;
  spec.root = o.root;
  spec.ranks_per_node = o.ranks_per_node;
  spec.nics = o.nics;
  spec.tag = o.tag;
  std::string error;
  const auto bw = parse_bandwidth(o.reduce_bw, &error);
  if (!bw) throw CLI::ValidationError("--reduce-bw", error);
  spec.reduce_bytes_per_ns = bw->bytes_per_second() / 1e9;
  spec.launch_ns = o.launch_ns;
  spec.step_ns = o.step_ns;
  const auto arch = coll::gpu_arch_from_name(o.arch);
  if (!arch) throw CLI::ValidationError("--arch", "unknown GPU generation '" + o.arch + "' (volta, ampere, hopper, blackwell)");
  spec.system.arch = *arch;
  spec.system.intra_gbytes_per_s = o.intra_gbps;
  spec.system.inter_gbytes_per_s = o.inter_gbps;
  return spec;
}

void list_algorithms() {
  for (coll::Collective c : coll::kAllCollectives) {
    std::cout << coll::to_string(c) << ":\n";
    for (const coll::Algorithm* a : coll::all_algorithms())
      if (a->collective == c) std::cout << "  " << std::left << std::setw(20) << a->name << a->description << "\n";
  }
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void run_gen(const GenOptions& o) {
  if (o.list) {
    list_algorithms();
    return;
  }
  if (o.collective.empty()) throw CLI::ValidationError("COLL", "name the collective (or use --list)");
  if (o.bytes.empty()) throw CLI::ValidationError("--bytes", "is required");
  if (o.ranks == 0 && o.group.empty()) throw CLI::ValidationError("--ranks", "is required (at least 1)");
  coll::Plan plan;
  try {
    plan = coll::make_plan(spec_from(o));
  } catch (const std::invalid_argument& e) {
    throw CLI::ValidationError("gen", e.what());
  }

  const auto t0 = std::chrono::steady_clock::now();
  coll::AnnotatedSchedule annotated;
  if (o.verify) {
    annotated = coll::generate_annotated(plan);
  } else {
    annotated.plan = plan;
    annotated.schedule = coll::generate(plan);
  }
  const double generate_s = seconds_since(t0);

  if (!o.output.empty()) {
    auto format = o.format.empty() ? goal::format_from_extension(o.output) : goal::format_from_name(o.format);
    if (!format) throw CLI::ValidationError("--format", "cannot tell the format of '" + o.output + "' (text, bin, goalb)");
    goal::save_schedule(annotated.schedule, o.output, *format);
  } else if (!o.verify && !o.json) {
    goal::write_goal_text(annotated.schedule, std::cout);
    return;
  }

  coll::VerifyReport report;
  double verify_s = 0.0;
  if (o.verify) {
    const auto t1 = std::chrono::steady_clock::now();
    report = coll::verify(annotated);
    verify_s = seconds_since(t1);
  } else {
    report = coll::count_traffic(annotated.schedule);
  }

  if (o.json) {
    nlohmann::json j = {
        {"collective", std::string(coll::to_string(plan.collective))},
        {"algorithm", plan.algorithm},
        {"protocol", std::string(coll::to_string(plan.protocol))},
        {"ranks", plan.n},
        {"schedule_ranks", plan.num_ranks},
        {"bytes", plan.bytes},
        {"channels", plan.channels},
        {"chunk_bytes", plan.chunk_bytes},
        {"chunks", plan.num_units()},
        {"ops", report.ops},
        {"messages", report.messages},
        {"messages_per_rank_max", report.messages_per_rank_max},
        {"bytes_per_rank_max", report.bytes_per_rank_max},
        {"bytes_total", report.bytes_total},
        {"generate_seconds", generate_s},
    };
    if (o.verify) {
      j["ok"] = report.ok;
      j["verify_seconds"] = verify_s;
      if (!report.ok) j["error"] = report.error;
    }
    if (!o.output.empty()) j["output"] = o.output;
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << coll::to_string(plan.collective) << " " << plan.algorithm << " (" << coll::to_string(plan.protocol)
              << ") on " << plan.n << " ranks, " << format_byte_size(plan.bytes) << ": " << report.ops << " ops, "
              << report.messages << " messages, at most " << report.messages_per_rank_max << " and "
              << report.bytes_per_rank_max << " bytes per rank\n";
    if (o.verify) std::cout << (report.ok ? "verified: ok\n" : "verification FAILED: " + report.error + "\n");
  }
  if (o.verify && !report.ok) throw std::runtime_error("the generated schedule does not verify");
}

}  // namespace

void add_gen_command(CLI::App& app) {
  auto o = std::make_shared<GenOptions>();
  CLI::App* cmd = app.add_subcommand("gen", "Lower a collective to a GOAL schedule (and verify it symbolically)");
  cmd->add_option("COLL", o->collective, "allreduce, allgather, reduce_scatter, broadcast, reduce, alltoall, barrier, sendrecv");
  cmd->add_option("--algo", o->algorithm, "Algorithm name (see --list), or auto (NCCL's tuning model)")->capture_default_str();
  cmd->add_option("--ranks", o->ranks, "Ranks of the schedule (the group, unless --group is given)");
  cmd->add_option("--group", o->group, "Schedule ranks taking part, in group order (default: all)")->delimiter(',');
  cmd->add_option("--bytes", o->bytes, "Size as nccl-tests reports it (e.g. 64MiB)");
  cmd->add_option("--channels", o->channels, "Parallel rings/trees, each on its own cpu (stream)")->capture_default_str();
  cmd->add_option("--chunk", o->chunk, "Data bytes per pipelined message (default: the protocol's)");
  cmd->add_option("--in-flight", o->in_flight, "Messages in flight per connection (default: the protocol's)");
  cmd->add_option("--proto", o->protocol, "LL, LL128, Simple, or auto")->capture_default_str();
  cmd->add_option("--root", o->root, "Root (group index) of broadcast and reduce")->capture_default_str();
  cmd->add_option("--ranks-per-node", o->ranks_per_node, "Consecutive ranks sharing a node (trees, hierarchical, auto)")
      ->capture_default_str();
  cmd->add_option("--nics", o->nics, "NICs per rank; channel c uses nic c % nics")->capture_default_str();
  cmd->add_option("--tag", o->tag, "First tag; the collective uses [tag, tag + channels)")->capture_default_str();
  cmd->add_option("--reduce-bw", o->reduce_bw, "Reduction bandwidth; a reduction of b bytes costs b / bw")->capture_default_str();
  cmd->add_option("--launch-ns", o->launch_ns, "Start-up latency per channel (default: the protocol's)");
  cmd->add_option("--step-ns", o->step_ns, "Latency before each send (default: the protocol's)");
  cmd->add_option("--arch", o->arch, "GPU generation for auto: volta, ampere, hopper, blackwell")->capture_default_str();
  cmd->add_option("--intra-bw", o->intra_gbps, "GB/s per channel inside a node, for auto")->capture_default_str();
  cmd->add_option("--inter-bw", o->inter_gbps, "GB/s per channel across nodes, for auto")->capture_default_str();
  cmd->add_option("-o,--output", o->output, "Write the schedule here (.goal, .bin, .goalb); default: GOAL text on stdout");
  cmd->add_option("--format", o->format, "Output format if not from the extension: text, bin, goalb");
  cmd->add_flag("--verify", o->verify, "Run the symbolic verifier on the generated schedule");
  cmd->add_flag("--json", o->json, "Print a JSON summary");
  cmd->add_flag("--list", o->list, "List the algorithms of every collective");
  cmd->callback([o] { run_gen(*o); });
}

}  // namespace collsim::cli
