#include "validation_report.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "plot_script.hpp"

#ifndef COLLSIM_SOURCE_DIR
#define COLLSIM_SOURCE_DIR "."
#endif

namespace collsim::cli {
namespace {

std::string percent(double v) {
  if (v < 0) return "none";
  char b[32];
  std::snprintf(b, sizeof b, "%.1f%%", 100 * v);
  return b;
}

nlohmann::json or_null(double v) { return v < 0 ? nlohmann::json(nullptr) : nlohmann::json(v); }

// The system files' latencies, in the unit of their keys.
double nanoseconds(SimTime t) { return static_cast<double>(t.picoseconds()) / 1e3; }

nlohmann::json sizes_json(const validation::RunValidation& v) {
  nlohmann::json a = nlohmann::json::array();
  for (const validation::SizeComparison& s : v.sizes)
    a.push_back({{"bytes", s.bytes},
                 {"measured_us", s.measured.microseconds()},
                 {"simulated_us", s.simulated.microseconds()},
                 {"measured_busbw", s.measured_busbw},
                 {"simulated_busbw", s.simulated_busbw},
                 {"error", s.error},
                 {"run", v.run_index},
                 {"algorithm", s.algorithm},
                 {"wall_s", s.wall_s},
                 {"events", s.events}});
  return a;
}

void add_summary(nlohmann::json& j, const validation::ErrorSummary& e) {
  j["median_abs_error_large"] = or_null(e.median_abs_large);
  j["max_abs_error_large"] = or_null(e.max_abs_large);
  j["median_abs_error_small"] = or_null(e.median_abs_small);
  j["max_abs_error_small"] = or_null(e.max_abs_small);
}

std::string run_title(const validation::TestRun& run) {
  std::string t = run.header.program.value_or("(no program name)");
  if (run.header.tests_version) t += ", nccl-tests " + *run.header.tests_version;
  if (run.header.nccl_version) t += ", NCCL " + *run.header.nccl_version;
  else if (run.header.nccl_library) t += ", NCCL code " + std::to_string(*run.header.nccl_library);
  return t;
}

}  // namespace

void print_validation_human(const validation::LogFile& log, const validation::RunValidation& v) {
  const validation::ValidationSetup& s = v.setup;
  const validation::SystemPreset& p = s.preset;
  const validation::TestRun& run = log.runs[v.run_index];
  std::printf("log         %s, run %zu of %zu (lines %zu-%zu): %s\n", log.path.c_str(), v.run_index + 1, log.runs.size(),
              run.first_line, run.last_line, run_title(run).c_str());
  std::printf("collective  %s (%s), %s column\n", std::string(collectives::to_string(s.collective)).c_str(),
              s.collective_source.c_str(), s.in_place ? "in-place" : "out-of-place");
  std::printf("system      %s (%s)\n            %s\n", p.name.c_str(), s.preset_source.c_str(), p.description.c_str());
  const std::uint32_t last_node = s.ranks - (s.nodes - 1) * s.gpus_per_node;
  const std::string uneven = last_node == s.gpus_per_node ? "" : ", the last with " + std::to_string(last_node);
  std::printf("ranks       %u (%s) on %u node(s) x %u GPU(s)%s; %u channel(s) (%s)\n", s.ranks, s.ranks_source.c_str(),
              s.nodes, s.gpus_per_node, uneven.c_str(), s.channels, s.channels_source.c_str());
  if (s.nodes > 1) {
    std::string which;
    for (std::uint32_t k : s.nics.physical) which += (which.empty() ? "" : ",") + std::to_string(k);
    std::printf("nics        %u of the node's %u (NIC(s) %s: closest to the job's GPUs)\n", s.nics.count,
                p.nics_per_node, which.c_str());
  }
  std::printf("host        %u GPU(s) per nccl-tests thread (%s)\n", s.gpus_per_thread, s.gpus_per_thread_source.c_str());
  if (s.protocol != "auto") std::printf("protocol    %s (%s)\n", s.protocol.c_str(), s.protocol_source.c_str());
  if (v.findings.empty()) {
    std::printf("log check   every value agrees with nccl-tests' formulas\n");
  } else {
    std::printf("log check   %zu disagreement(s) with nccl-tests' formulas:\n", v.findings.size());
    for (const auto& f : v.findings) std::printf("            line %zu: %s\n", f.line, f.message.c_str());
  }
  std::printf("%14s %12s %12s %10s %10s %8s  %s\n", "size (B)", "meas. us", "sim. us", "meas. bus", "sim. bus", "error",
              "simulated as");
  for (const validation::SizeComparison& c : v.sizes)
    std::printf("%14llu %12.2f %12.2f %10.2f %10.2f %+7.1f%%  %s\n", static_cast<unsigned long long>(c.bytes),
                c.measured.microseconds(), c.simulated.microseconds(), c.measured_busbw, c.simulated_busbw, 100 * c.error, c.algorithm.c_str());
  for (const std::string& k : v.skipped) std::printf("skipped     %s\n", k.c_str());
  const validation::ErrorSummary& e = v.summary;
  std::printf("summary     >= 1 MiB: median |error| %s, max %s (%zu sizes); < 1 MiB: median %s, max %s (%zu sizes)\n",
              percent(e.median_abs_large).c_str(), percent(e.max_abs_large).c_str(), e.large_sizes,
              percent(e.median_abs_small).c_str(), percent(e.max_abs_small).c_str(), e.small_sizes);
  std::printf("preset      %s\n", v.preset_check.consistent ? "the run is consistent with the preset"
                                                             : ("INCONSISTENT: " + v.preset_check.reason).c_str());
  std::printf("simulation  %zu size(s) in %.2f s; chunks, packets and extrapolation: see --help\n\n",
              v.sizes.size(), v.wall_s);
}

nlohmann::json validation_json(const validation::LogFile& log, const std::vector<validation::RunValidation>& runs) {
  nlohmann::json j;
  j["log"] = log.path;
  j["runs"] = nlohmann::json::array();
  nlohmann::json all = nlohmann::json::array();
  std::vector<validation::SizeComparison> every;
  double wall = 0;
  for (const validation::RunValidation& v : runs) {
    const validation::ValidationSetup& s = v.setup;
    nlohmann::json r;
    r["run"] = v.run_index;
    r["program"] = log.runs[v.run_index].header.program.value_or("");
    r["collective"] = collectives::to_string(s.collective);
    r["collective_source"] = s.collective_source;
    r["ranks"] = s.ranks;
    r["ranks_source"] = s.ranks_source;
    r["nodes"] = s.nodes;
    r["gpus_per_node"] = s.gpus_per_node;
    // One node sends nothing through its NICs.
    r["nics_used_per_node"] = s.nodes > 1 ? s.nics.physical : std::vector<std::uint32_t>{};
    r["system"] = s.preset.name;
    r["system_source"] = s.preset_source;
    // The hardware that was simulated, with the keys of a system file (--help-system), so that
    // a result says what it stands for whichever preset or file it came from.
    const validation::SystemPreset& p = s.preset;
    r["system_hardware"] = {{"description", p.description},
                            {"gpu", p.gpu},
                            {"arch", std::string(collectives::to_string(p.arch))},
                            {"gpus_per_node", p.gpus_per_node},
                            {"intra_node", std::string(validation::to_string(p.intra))},
                            {"gpu_link_gbytes_per_s", p.gpu_link_gbytes},
                            {"gpu_link_latency_ns", nanoseconds(p.gpu_link_latency)},
                            {"nvls", p.nvls},
                            {"nics_per_node", p.nics_per_node},
                            {"nic_gpus", validation::nic_gpus_of(p)},
                            {"sharp", p.sharp},
                            {"transport", std::string(validation::to_string(p.transport))},
                            {"net_efficiency", p.net_efficiency},
                            {"gpus_per_host", p.gpus_per_host},
                            {"nic_gbits_per_s", p.nic_gbits},
                            {"nic_latency_ns", nanoseconds(p.nic_latency)},
                            {"channels", p.channels},
                            {"net_message_latency_us", p.net_message_latency.microseconds()},
                            {"network_simple_only", p.network_simple_only}};
    r["channels"] = s.channels;
    r["gpus_per_thread"] = s.gpus_per_thread;
    r["protocol"] = s.protocol;
    if (!s.protocol_source.empty()) r["protocol_source"] = s.protocol_source;
    r["column"] = s.in_place ? "in-place" : "out-of-place";
    r["findings"] = nlohmann::json::array();
    for (const auto& f : v.findings) r["findings"].push_back({{"line", f.line}, {"message", f.message}});
    r["sizes"] = sizes_json(v);
    r["skipped"] = v.skipped;
    add_summary(r, v.summary);
    r["consistent_with_preset"] = v.preset_check.consistent;
    r["preset_reason"] = v.preset_check.reason;
    r["wall_s"] = v.wall_s;
    for (const auto& x : r["sizes"]) all.push_back(x);
    every.insert(every.end(), v.sizes.begin(), v.sizes.end());
    wall += v.wall_s;
    j["runs"].push_back(std::move(r));
  }
  j["sizes"] = std::move(all);
  add_summary(j, validation::summarize(every));
  j["wall_s"] = wall;
  return j;
}

void plot_validation(const nlohmann::json& j, const std::string& png) {
  const char* env_script = std::getenv("COLLSIM_PLOT_SCRIPT");
  const std::string script = env_script ? env_script : std::string(COLLSIM_SOURCE_DIR) + "/validation/plot_validation.py";
  const std::filesystem::path data = std::filesystem::path(png).replace_extension(".plot.json");
  {
    std::ofstream out(data);
    out << j.dump();
    if (!out) throw std::runtime_error("--plot: cannot write " + data.string());
  }
  try {
    run_plot_script(script, {data.string(), png});
  } catch (...) {
    std::filesystem::remove(data);
    throw;
  }
  std::filesystem::remove(data);
}

}  // namespace collsim::cli
