#include "collsim/collectives/spec.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_set>

#include "collsim/collectives/algorithm.hpp"
#include "collsim/collectives/tuning.hpp"

namespace collsim::collectives {
namespace {

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument(what); }

std::string algorithm_names(Collective c) {
  std::string names;
  for (const Algorithm* a : all_algorithms()) {
    if (a->collective != c) continue;
    if (!names.empty()) names += ", ";
    names += a->name;
  }
  return names.empty() ? "none" : names;
}

void resolve_group(const CollectiveSpec& spec, Plan& plan) {
  if (spec.group.empty()) {
    if (spec.num_ranks == 0) bad("a collective needs at least one rank (give num_ranks or a group)");
    plan.num_ranks = spec.num_ranks;
    plan.group.resize(spec.num_ranks);
    for (std::uint32_t i = 0; i < spec.num_ranks; ++i) plan.group[i] = i;
  } else {
    plan.group = spec.group;
    const goal::RankId highest = *std::max_element(plan.group.begin(), plan.group.end());
    plan.num_ranks = spec.num_ranks == 0 ? highest + 1 : spec.num_ranks;
    if (highest >= plan.num_ranks)
      bad("group member " + std::to_string(highest) + " is not a rank of a " + std::to_string(plan.num_ranks) +
          "-rank schedule");
    std::unordered_set<goal::RankId> seen;
    for (goal::RankId r : plan.group)
      if (!seen.insert(r).second) bad("rank " + std::to_string(r) + " appears twice in the group");
  }
  if (plan.group.size() > 0xFFFFFFFEu) bad("the group is too large");
  plan.n = static_cast<std::uint32_t>(plan.group.size());
}

// The helpers' schedule ranks: as given, or the ranks after every other.
void resolve_helpers(const CollectiveSpec& spec, Plan& plan) {
  const std::size_t count = plan.helper_nodes.size();
  if (spec.helper_ranks.empty()) {
    for (std::size_t h = 0; h < count; ++h) plan.helpers.push_back(plan.num_ranks + static_cast<goal::RankId>(h));
    plan.num_ranks += static_cast<std::uint32_t>(count);
    return;
  }
  if (spec.helper_ranks.size() != count)
    bad(plan.algorithm + " needs " + std::to_string(count) + " helper rank(s), not " +
        std::to_string(spec.helper_ranks.size()));
  std::unordered_set<goal::RankId> taken(plan.group.begin(), plan.group.end());
  for (goal::RankId r : spec.helper_ranks) {
    if (!taken.insert(r).second) bad("helper rank " + std::to_string(r) + " is a member or another helper");
    plan.num_ranks = std::max(plan.num_ranks, r + 1);
  }
  plan.helpers = spec.helper_ranks;
}

}  // namespace

std::uint64_t Plan::pipeline_steps(std::uint64_t bytes_in_all_channels) const {
  const std::uint64_t per_step = std::uint64_t{channels} * chunk_bytes;
  return std::max<std::uint64_t>(1, (bytes_in_all_channels + per_step - 1) / per_step);
}

Plan make_plan(const CollectiveSpec& spec) {
  Plan plan;
  plan.collective = spec.collective;
  resolve_group(spec, plan);
  plan.bytes = spec.bytes;
  if (spec.bytes > goal::kMaxSize / 4) bad("bytes " + std::to_string(spec.bytes) + " is too large");
  plan.root = spec.root;
  if (has_root(spec.collective) && spec.root >= plan.n)
    bad("root " + std::to_string(spec.root) + " is not a member of a group of " + std::to_string(plan.n));
  if (spec.channels < 1 || spec.channels > 64) bad("channels must be 1..64 (NCCL's MAXCHANNELS), not " +
                                                    std::to_string(spec.channels));
  plan.channels = spec.channels;
  if (spec.first_cpu + spec.channels > 256) bad("first_cpu + channels must not exceed 256 (GOAL's cpu is a byte)");
  plan.first_cpu = spec.first_cpu;
  if (spec.nics < 1 || spec.nics > 256) bad("nics must be 1..256, not " + std::to_string(spec.nics));
  plan.nics = spec.nics;
  plan.nic_of_rank = spec.nic_of_rank;
  for (std::size_t r = 0; r < spec.rank_nics.size(); ++r) {
    if (spec.rank_nics[r].empty()) bad("rank_nics[" + std::to_string(r) + "] lists no NIC");
    for (std::uint32_t k : spec.rank_nics[r])
      if (k >= spec.nics)
        bad("rank_nics[" + std::to_string(r) + "] lists NIC " + std::to_string(k) + " of " + std::to_string(spec.nics));
  }
  plan.rank_nics = spec.rank_nics;
  if (spec.ranks_per_node < 1) bad("ranks_per_node must be at least 1");
  plan.ranks_per_node = spec.ranks_per_node;
  if (spec.tag >= goal::kAnyTag - spec.channels)
    bad("tag " + std::to_string(spec.tag) + " leaves no room for " + std::to_string(spec.channels) + " channel tags");
  plan.tag = spec.tag;
  if (!(spec.reduce_bytes_per_ns >= 0.0)) bad("the reduction bandwidth must not be negative");
  plan.reduce_bytes_per_ns = spec.reduce_bytes_per_ns;
  plan.system = spec.system;

  plan.protocol = spec.protocol == Protocol::Auto ? Protocol::Simple : spec.protocol;
  if (spec.algorithm == "auto") {
    choose_automatically(plan, spec.protocol != Protocol::Auto);
  } else {
    plan.algorithm = spec.algorithm;
  }
  const ProtocolCosts costs = protocol_costs(plan.protocol);
  plan.chunk_bytes = spec.chunk_bytes == 0 ? costs.chunk_bytes : spec.chunk_bytes;
  plan.max_in_flight = spec.max_in_flight == 0 ? costs.max_in_flight : spec.max_in_flight;
  if (plan.max_in_flight > 64) bad("max_in_flight must be 1..64");
  if (spec.steps_per_network_message < 1) bad("steps_per_network_message must be at least 1");
  plan.steps_per_network_message = spec.steps_per_network_message;
  for (const std::optional<SimTime>& latency : {spec.launch, spec.step, spec.network_step})
    if (latency && *latency < SimTime::zero()) bad("latencies must not be negative");
  plan.launch = spec.launch.value_or(costs.launch);
  plan.step = spec.step.value_or(costs.step);
  plan.network_step = spec.network_step.value_or(plan.step);

  const Algorithm* algorithm = find_algorithm(plan.collective, plan.algorithm);
  if (algorithm == nullptr)
    bad("no algorithm '" + plan.algorithm + "' for " + std::string(to_string(plan.collective)) +
        " (there are: " + algorithm_names(plan.collective) + ", auto)");
  if (algorithm->unsupported != nullptr) {
    const std::string why = algorithm->unsupported(plan);
    if (!why.empty()) bad(std::string(to_string(plan.collective)) + " " + plan.algorithm + ": " + why);
  }
  if (plan.steps_per_network_message > 1 && algorithm->path != ChunkPath::Tree)
    bad("steps_per_network_message applies to the double binary tree only, not " + plan.algorithm);
  plan.channels_per_nic = algorithm->channels_per_nic;
  if (spec.max_in_flight == 0 && algorithm->one_step_chunks) plan.max_in_flight = kNcclSteps;
  if (spec.chunk_bytes == 0 && algorithm->default_chunk != nullptr) plan.chunk_bytes = algorithm->default_chunk(plan);
  if (algorithm->helpers != nullptr) {
    plan.helper_nodes = algorithm->helpers(plan);
    resolve_helpers(spec, plan);
  } else if (!spec.helper_ranks.empty()) {
    bad(plan.algorithm + " has no helpers, but helper_ranks lists " + std::to_string(spec.helper_ranks.size()));
  }
  plan.slices = algorithm->slices(plan);
  if (plan.slices < 1) bad("internal: algorithm " + plan.algorithm + " chose no slices");
  const std::uint64_t blocks = plan.blocks_per_slice();
  if (plan.slices > (std::uint64_t{1} << 40) / blocks)
    bad("the collective would be cut into more than 2^40 pieces; use a larger chunk");
  return plan;
}

}  // namespace collsim::collectives
