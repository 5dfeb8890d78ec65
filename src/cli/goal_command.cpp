#include "goal_command.hpp"

#include <CLI/CLI.hpp>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "collsim/common/input_error.hpp"
#include "collsim/goal/schedule_file.hpp"
#include "collsim/goal/schedule_stats.hpp"

namespace collsim::cli {

namespace {

struct StatsOptions {
  std::string file;
  bool json = false;
};

struct ConvertOptions {
  std::string input;
  std::string output;
  std::string to;
};

nlohmann::json stats_json(const goal::ScheduleStats& s) {
  return {
      {"num_ranks", s.num_ranks},
      {"ops", s.ops},
      {"sends", s.sends},
      {"recvs", s.recvs},
      {"calcs", s.calcs},
      {"requires_edges", s.requires_edges},
      {"irequires_edges", s.irequires_edges},
      {"bytes_sent", s.bytes_sent},
      {"bytes_received", s.bytes_received},
      {"calc_ns", s.calc_ns},
      {"wildcard_recvs", s.wildcard_recvs},
      {"max_ops_per_rank", s.max_ops_per_rank},
      {"max_cpu", s.max_cpu},
      {"max_nic", s.max_nic},
      {"longest_chain_ops", s.longest_chain_ops},
  };
}

void run_stats(const StatsOptions& o) {
  goal::ScheduleFormat format{};
  const auto t0 = std::chrono::steady_clock::now();
  const goal::Schedule schedule = goal::load_schedule(o.file, &format);
  const double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const goal::ScheduleStats s = goal::compute_stats(schedule);
  if (o.json) {
    nlohmann::json j = stats_json(s);
    j["file"] = o.file;
    j["format"] = std::string(goal::to_string(format));
    j["memory_bytes"] = schedule.memory_bytes();
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::cout << std::fixed << std::setprecision(1);
  std::cout << "schedule          " << o.file << " (" << goal::to_string(format) << ", read in " << load_s * 1e3
            << " ms)\n"
            << "ranks             " << s.num_ranks << "\n"
            << "ops               " << s.ops << " (" << s.sends << " send, " << s.recvs << " recv, " << s.calcs
            << " calc; at most " << s.max_ops_per_rank << " on one rank)\n"
            << "dependencies      " << s.requires_edges << " requires, " << s.irequires_edges << " irequires\n"
            << "bytes             " << s.bytes_sent << " sent, " << s.bytes_received << " posted to receive\n"
            << "calc time         " << s.calc_ns << " ns in total\n"
            << "wildcard recvs    " << s.wildcard_recvs << "\n"
            << "cpus, nics        " << s.max_cpu + 1 << ", " << s.max_nic + 1 << " per rank\n"
            << "longest chain     " << s.longest_chain_ops << " ops\n"
            << "memory            " << schedule.memory_bytes() << " bytes in memory\n";
}

void run_convert(const ConvertOptions& o) {
  std::optional<goal::ScheduleFormat> to;
  if (!o.to.empty()) {
    to = goal::format_from_name(o.to);
    if (!to) throw CLI::ValidationError("--to", "unknown format '" + o.to + "' (text, loggopsim or goalb)");
  } else {
    to = goal::format_from_extension(o.output);
    if (!to)
      throw CLI::ValidationError("OUT", "cannot tell the format of '" + o.output +
                                            "' from its extension (.goal, .bin, .goalb); give --to");
  }
  goal::ScheduleFormat from{};
  const goal::Schedule schedule = goal::load_schedule(o.input, &from);
  goal::save_schedule(schedule, o.output, *to);
  std::cerr << "converted " << o.input << " (" << goal::to_string(from) << ") to " << o.output << " ("
            << goal::to_string(*to) << "): " << schedule.num_ranks() << " ranks, " << schedule.num_ops() << " ops\n";
}

}  // namespace

void add_goal_command(CLI::App& app) {
  CLI::App* goal_cmd = app.add_subcommand("goal", "Inspect and convert GOAL schedules");
  goal_cmd->require_subcommand(1);

  auto stats = std::make_shared<StatsOptions>();
  CLI::App* stats_cmd = goal_cmd->add_subcommand("stats", "Validate a schedule and print what it contains");
  stats_cmd->add_option("FILE", stats->file, "Schedule: GOAL text, LogGOPSim .bin or collsim .goalb")
      ->required()
      ->check(CLI::ExistingFile);
  stats_cmd->add_flag("--json", stats->json, "Print one JSON object");
  stats_cmd->callback([stats] { run_stats(*stats); });

  auto convert = std::make_shared<ConvertOptions>();
  CLI::App* convert_cmd = goal_cmd->add_subcommand("convert", "Convert between GOAL text, LogGOPSim binary and .goalb");
  convert_cmd->add_option("IN", convert->input, "Input schedule (format recognised from its content)")
      ->required()
      ->check(CLI::ExistingFile);
  convert_cmd->add_option("OUT", convert->output, "Output file (format from its extension unless --to)")->required();
  convert_cmd->add_option("--to", convert->to, "Output format: text, loggopsim or goalb");
  convert_cmd->callback([convert] { run_convert(*convert); });
}

}  // namespace collsim::cli
