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
#include "collective_options.hpp"
#include "observe_options.hpp"

namespace collsim::cli {
namespace {

struct GenOptions {
  CollectiveCliOptions collective;
  std::string output;
  std::string format;
  bool verify = false;
  bool json = false;
  bool list = false;
};

void list_algorithms() {
  for (collectives::Collective c : collectives::kAllCollectives) {
    std::cout << collectives::to_string(c) << ":\n";
    for (const collectives::Algorithm* a : collectives::all_algorithms())
      if (a->collective == c) std::cout << "  " << std::left << std::setw(20) << a->name << a->description << "\n";
  }
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void run_gen(const GenOptions& o) {
  check_output_path("--output", o.output);
  if (o.list) {
    list_algorithms();
    return;
  }
  const collectives::Plan plan = o.collective.plan();

  const auto t0 = std::chrono::steady_clock::now();
  collectives::AnnotatedSchedule annotated;
  if (o.verify) {
    annotated = collectives::generate_annotated(plan);
  } else {
    annotated.plan = plan;
    annotated.schedule = collectives::generate(plan);
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

  collectives::VerifyReport report;
  double verify_s = 0.0;
  if (o.verify) {
    const auto t1 = std::chrono::steady_clock::now();
    report = collectives::verify(annotated);
    verify_s = seconds_since(t1);
  } else {
    report = collectives::count_traffic(annotated.schedule);
  }

  if (o.json) {
    nlohmann::json j = {
        {"collective", std::string(collectives::to_string(plan.collective))},
        {"algorithm", plan.algorithm},
        {"protocol", std::string(collectives::to_string(plan.protocol))},
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
    std::cout << collectives::to_string(plan.collective) << " " << plan.algorithm << " (" << collectives::to_string(plan.protocol)
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
  o->collective.add_to(*cmd, "COLL");
  cmd->add_option("-o,--output", o->output, "Write the schedule here (.goal, .bin, .goalb); default: GOAL text on stdout");
  cmd->add_option("--format", o->format, "Output format if not from the extension: text, bin, goalb");
  cmd->add_flag("--verify", o->verify, "Run the symbolic verifier on the generated schedule");
  cmd->add_flag("--json", o->json, "Print a JSON summary");
  cmd->add_flag("--list", o->list, "List the algorithms of every collective");
  cmd->callback([o] { run_gen(*o); });
}

}  // namespace collsim::cli
