#include "collective_options.hpp"

#include <stdexcept>
#include <string_view>
#include <utility>

#include "collsim/collectives/collective.hpp"
#include "collsim/common/units.hpp"
#include "duration_option.hpp"

namespace collsim::cli {
namespace {

// The option a make_plan() message is about, by the spec field it starts with ("channels must
// be 1..64"), so that the error names --channels rather than the collective.
std::string option_at_fault(const std::string& message, const std::string& fallback) {
  static const std::pair<std::string_view, const char*> kFields[] = {
      {"channels", "--channels"}, {"root ", "--root"},         {"nics", "--nics"},
      {"ranks_per_node", "--ranks-per-node"}, {"max_in_flight", "--in-flight"}, {"group", "--group"},
      {"rank ", "--group"},       {"tag ", "--tag"},           {"steps_per_network_message", "--steps-per-network-message"},
      {"bytes ", "--bytes"},      {"no algorithm", "--algo"},  {"the reduction bandwidth", "--reduce-bw"}};
  for (const auto& [prefix, option] : kFields)
    if (message.rfind(prefix, 0) == 0) return option;
  return fallback;
}

std::uint64_t byte_option(const std::string& option, const std::string& text) {
  std::string error;
  const auto v = parse_byte_size(text, &error);
  if (!v) throw CLI::ValidationError(option, error);
  return *v;
}

collectives::CollectiveSpec spec_from(const CollectiveCliOptions& o, const std::string& collective_option) {
  collectives::CollectiveSpec spec;
  const auto c = collectives::collective_from_name(o.collective);
  if (!c)
    throw CLI::ValidationError(collective_option, "unknown collective '" + o.collective +
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
  const auto p = collectives::protocol_from_name(o.protocol);
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
  spec.launch = latency_ns_option(o.launch_ns);
  spec.step = latency_ns_option(o.step_ns);
  spec.network_step = latency_ns_option(o.network_step_ns);
  spec.steps_per_network_message = o.steps_per_network_message;
  const auto arch = collectives::gpu_arch_from_name(o.arch);
  if (!arch) throw CLI::ValidationError("--arch", "unknown GPU generation '" + o.arch + "' (volta, ampere, hopper, blackwell)");
  spec.system.arch = *arch;
  spec.system.intra_gbytes_per_s = o.intra_gbps;
  spec.system.inter_gbytes_per_s = o.inter_gbps;
  return spec;
}

}  // namespace

void CollectiveCliOptions::add_to(CLI::App& cmd, const std::string& collective_option) {
  collective_option_ = collective_option;
  cmd.add_option(collective_option, collective,
                 "allreduce, allgather, reduce_scatter, broadcast, reduce, alltoall, barrier, sendrecv");
  cmd.add_option("--algo", algorithm, "Algorithm name (see gen --list), or auto (NCCL's tuning model)")->capture_default_str();
  cmd.add_option("--ranks", ranks, "Ranks of the schedule (the group, unless --group is given)");
  cmd.add_option("--group", group, "Schedule ranks taking part, in group order (default: all)")->delimiter(',');
  cmd.add_option("--bytes", bytes, "Size as nccl-tests reports it (e.g. 64MiB)");
  cmd.add_option("--channels", channels, "Parallel rings/trees, each on its own cpu (stream)")->capture_default_str();
  cmd.add_option("--chunk", chunk, "Data bytes per pipelined message (default: the protocol's)");
  cmd.add_option("--in-flight", in_flight, "Messages in flight per connection (default: the protocol's)");
  cmd.add_option("--proto", protocol, "LL, LL128, Simple, or auto")->capture_default_str();
  cmd.add_option("--root", root, "Root (group index) of broadcast and reduce")->capture_default_str();
  cmd.add_option("--ranks-per-node", ranks_per_node, "Consecutive ranks sharing a node (trees, hierarchical, auto)")
      ->capture_default_str();
  cmd.add_option("--nics", nics, "NICs per rank; channel c uses nic c % nics")->capture_default_str();
  cmd.add_option("--tag", tag, "First tag; the collective uses [tag, tag + channels)")->capture_default_str();
  cmd.add_option("--reduce-bw", reduce_bw, "Reduction bandwidth; a reduction of b bytes costs b / bw")->capture_default_str();
  // -1 is "not given"; beyond 10^12 ns (17 min) a latency is a typo, and ns times 1000 would
  // soon pass the end of simulated time (2^63 ps).
  const auto latency_ns = CLI::Range(std::int64_t{-1}, std::int64_t{1'000'000'000'000});
  cmd.add_option("--launch-ns", launch_ns, "Start-up latency per channel (default, -1: the protocol's)")->check(latency_ns);
  cmd.add_option("--step-ns", step_ns, "Latency before each send (default, -1: the protocol's)")->check(latency_ns);
  cmd.add_option("--network-step-ns", network_step_ns, "Latency before each send to another node (default, -1: --step-ns)")
      ->check(latency_ns);
  cmd.add_option("--steps-per-network-message", steps_per_network_message,
                 "double_binary_tree: pipeline steps each message between nodes carries (NCCL's network step when "
                 "--chunk cuts finer, as LL/LL128 stream over NVLink)")
      ->capture_default_str();
  cmd.add_option("--arch", arch, "GPU generation for auto: volta, ampere, hopper, blackwell")->capture_default_str();
  cmd.add_option("--intra-bw", intra_gbps, "GB/s per channel inside a node, for auto")
      ->capture_default_str()
      ->check(positive_real());
  cmd.add_option("--inter-bw", inter_gbps, "GB/s per channel across nodes, for auto")
      ->capture_default_str()
      ->check(positive_real());
}

collectives::Plan CollectiveCliOptions::plan() const {
  if (collective.empty()) throw CLI::ValidationError(collective_option_, "name the collective");
  if (bytes.empty()) throw CLI::ValidationError("--bytes", "is required");
  if (ranks == 0 && group.empty()) throw CLI::ValidationError("--ranks", "is required (at least 1)");
  try {
    return collectives::make_plan(spec_from(*this, collective_option_));
  } catch (const std::invalid_argument& e) {
    throw CLI::ValidationError(option_at_fault(e.what(), collective_option_), e.what());
  }
}

}  // namespace collsim::cli
