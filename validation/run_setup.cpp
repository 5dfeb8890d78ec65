#include "collsim/validation/run_setup.hpp"

#include <algorithm>
#include <stdexcept>

#include "collsim/validation/option_error.hpp"
#include "collsim/validation/run_facts.hpp"
#include "collsim/validation/system_file.hpp"

namespace collsim::validation {

SystemPreset system_of_option(const std::string& name_or_path) {
  try {
    return resolve_system(name_or_path);
  } catch (const std::invalid_argument& e) {
    throw OptionError("--system", e.what());
  }
}

ValidationSetup resolve_setup(const TestRun& run, const ValidationRequest& request) {
  const RunFacts facts = infer_run_facts(run);
  ValidationSetup s;
  if (!facts.unsupported_program.empty())
    throw OptionError("LOG", "nccl-tests " + facts.unsupported_program +
                                 " measures a collective that collsim does not simulate (it validates "
                                 "all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce and "
                                 "sendrecv)");
  if (!facts.collective)
    throw OptionError("LOG", "the log does not say which collective it measured (no program name, and the "
                             "columns do not tell)");
  s.collective = *facts.collective;
  s.collective_source = facts.collective_source;
  if (request.ranks != 0 && facts.ranks != 0 && request.ranks != facts.ranks)
    throw OptionError("--ranks", "the log says " + std::to_string(facts.ranks) + " ranks (" +
                                     facts.ranks_source + "), not " + std::to_string(request.ranks));
  s.ranks = request.ranks != 0 ? request.ranks : facts.ranks;
  s.ranks_source = request.ranks != 0 ? "--ranks" : facts.ranks_source;
  if (s.ranks == 0 && request.ranks_if_unknown != 0) {
    s.ranks = request.ranks_if_unknown;
    s.ranks_source = "--ranks (the log does not tell)";
  }
  if (s.ranks < 2) throw OptionError("--ranks", "the log does not tell how many ranks ran; give --ranks N");

  if (!request.system.empty()) {
    s.preset = system_of_option(request.system);
    s.preset_source = request.system_source;
  } else {
    std::string why;
    const auto p = infer_system_preset(facts.gpu, facts.gpus_per_node, &why);
    if (!p)
      throw OptionError("--system", facts.gpu.empty()
                                        ? "the log has no device lines to infer the system from; give --system"
                                        : "no preset for GPU '" + facts.gpu + "'; give --system");
    s.preset = *p;
    s.preset_source = "inferred: " + why;
  }
  if (request.gpus_per_node != 0 && facts.gpus_per_node != 0 && request.gpus_per_node != facts.gpus_per_node)
    throw OptionError("--gpus-per-node", "the log says " + std::to_string(facts.gpus_per_node) +
                                             " GPUs per node (" + facts.ranks_source + "), not " +
                                             std::to_string(request.gpus_per_node));
  s.gpus_per_node = request.gpus_per_node != 0 ? request.gpus_per_node
                    : facts.gpus_per_node != 0 ? facts.gpus_per_node
                                               : std::min(s.preset.gpus_per_node, s.ranks);
  // An NVLink domain of several servers (an NVL72 rack's trays): the device lines show the
  // servers, and the domain is the node.
  if (request.gpus_per_node == 0 && s.preset.gpus_per_host != 0 && s.preset.gpus_per_node > s.gpus_per_node)
    s.gpus_per_node = std::min(s.preset.gpus_per_node, s.ranks);
  if (s.gpus_per_node > s.preset.gpus_per_node)
    throw OptionError("--gpus-per-node", std::to_string(s.gpus_per_node) + " GPUs per node, but preset " +
                                             s.preset.name + " has " + std::to_string(s.preset.gpus_per_node));
  s.nodes = (s.ranks + s.gpus_per_node - 1) / s.gpus_per_node;
  s.nics = node_nics(s.preset, s.gpus_per_node);
  if (request.channels != 0) {
    s.channels = request.channels;
    s.channels_source = "--channels";
  } else if (run.info.coll_channels && *run.info.coll_channels > 0) {
    s.channels = static_cast<std::uint32_t>(*run.info.coll_channels);
    s.channels_source = kChannelsFromLog;
  } else if (s.nodes > 1 && s.nics.count < s.preset.nics_per_node) {
    // On part of a node NCCL's search finds one channel per NIC at the NIC's speed and then
    // duplicates them (ncclTopoPostset): 2 per NIC, as log 25's INFO lines show on 4 x 200G.
    s.channels = std::min(2 * s.nics.count, s.preset.channels);
    s.channels_source = "2 per NIC of the job's " + std::to_string(s.nics.count) + " (of " +
                        std::to_string(s.preset.nics_per_node) + ")";
  } else {
    s.channels = s.preset.channels;
    s.channels_source = "preset";
  }
  s.channels = std::min<std::uint32_t>(s.channels, 64);
  if (request.gpus_per_thread != 0) {
    if (facts.gpus_per_thread != 0 && facts.gpus_per_thread != request.gpus_per_thread)
      throw OptionError("--gpus-per-thread", "the log says " + std::to_string(facts.gpus_per_thread) +
                                                 " GPUs per thread (" + facts.gpus_per_thread_source + "), not " +
                                                 std::to_string(request.gpus_per_thread));
    if (request.gpus_per_thread > s.gpus_per_node)
      throw OptionError("--gpus-per-thread", "one nccl-tests thread drives GPUs of one node: at most " +
                                                 std::to_string(s.gpus_per_node) + ", not " +
                                                 std::to_string(request.gpus_per_thread));
    s.gpus_per_thread = request.gpus_per_thread;
    s.gpus_per_thread_source = "--gpus-per-thread";
  } else {
    s.gpus_per_thread = std::max<std::uint32_t>(1, facts.gpus_per_thread);
    s.gpus_per_thread_source = facts.gpus_per_thread != 0 ? facts.gpus_per_thread_source : "not printed (1 assumed)";
  }
  if (const auto asked = collectives::protocol_from_name(request.protocol); asked && *asked != collectives::Protocol::Auto) {
    s.protocol = request.protocol;
    s.protocol_source = "--proto";
  } else if (s.preset.network_simple_only && s.nodes > 1) {
    s.protocol = "simple";
    s.protocol_source = "the preset's network plugin sets NCCL_PROTO=simple across nodes";
  }
  const bool has_out = std::any_of(run.rows.begin(), run.rows.end(), [](const auto& r) { return r.out_of_place.has_value(); });
  s.in_place = request.column == "in-place" || (request.column == "auto" && !has_out);
  return s;
}

}  // namespace collsim::validation
