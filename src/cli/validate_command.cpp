#include "validate_command.hpp"

#include <cstdio>
#include <iostream>
#include <memory>

#include "collsim/common/units.hpp"
#include "collsim/validation/nccl_tests_log.hpp"
#include "collsim/validation/system_file.hpp"
#include "observe_options.hpp"
#include "validation_options.hpp"
#include "validation_report.hpp"
#include "validation_simulator.hpp"

namespace collsim::cli {
namespace {

struct ValidateOptions {
  std::string log;
  validation::ValidationRequest request;
  std::string min_bytes, max_bytes;
  int run = -1;  // -1: every run of the file
  std::string calibration;
  bool json = false;
  std::string plot;
  bool list_systems = false;
  bool help_system = false;
  SimulationCliOptions sim;
};

void list_systems() {
  for (const validation::SystemPreset& p : validation::system_presets())
    std::printf("%-16s %s\n", p.name.c_str(), p.description.c_str());
}

std::uint64_t bytes_option(const std::string& text, const char* option) {
  const auto b = parse_byte_size(text);
  if (!b) throw CLI::ValidationError(option, "expected a size such as 1MiB, not '" + text + "'");
  return *b;
}

void run_validate(ValidateOptions o) {
  if (o.list_systems) return list_systems();
  if (o.help_system) {
    std::fputs(std::string(validation::system_file_help()).c_str(), stdout);
    return;
  }
  if (o.log.empty()) throw CLI::ValidationError("LOG", "give the nccl-tests log to validate");
  if (!o.min_bytes.empty()) o.request.min_bytes = bytes_option(o.min_bytes, "--min-bytes");
  if (!o.max_bytes.empty()) o.request.max_bytes = bytes_option(o.max_bytes, "--max-bytes");
  if (o.request.column != "auto" && o.request.column != "in-place" && o.request.column != "out-of-place")
    throw CLI::ValidationError("--column", "auto, in-place or out-of-place");
  check_run_choice_options(o.request);
  check_output_path("--plot", o.plot);
  std::string calibration_note;
  if (!o.calibration.empty())
    calibration_note = apply_calibration(validation::read_calibration(o.calibration), o.calibration, o.request);
  const validation::LogFile log = validation::read_nccl_tests_log(o.log);
  if (o.run >= static_cast<int>(log.runs.size()))
    throw CLI::ValidationError("--run", o.log + " has " + std::to_string(log.runs.size()) + " run(s)");

  ParallelContext parallel;
  std::vector<validation::RunValidation> results;
  const int rc = parallel.guarded([&] {
    std::uint64_t rows = 0;
    for (std::size_t i = 0; i < log.runs.size(); ++i)
      if (o.run < 0 || static_cast<std::size_t>(o.run) == i) rows += log.runs[i].rows.size();
    PacketValidationSimulator simulator(o.sim, parallel);
    RunWatch watch(o.sim.observe, parallel.is_root(), parallel.transport().size(), nullptr, "sizes", rows);
    for (std::size_t i = 0; i < log.runs.size(); ++i) {
      if (o.run >= 0 && static_cast<std::size_t>(o.run) != i) continue;
      validation::RunValidation v = with_option_errors([&] {
        const validation::ValidationSetup setup = validation::resolve_setup(log.runs[i], o.request);
        return validation::validate_run(log.runs[i], i, setup, o.request, simulator,
                                        [&](std::uint64_t done, std::uint64_t events) { watch.advance(done, events); });
      });
      if (!parallel.is_root()) continue;
      if (!o.json) print_validation_human(log, v);
      results.push_back(std::move(v));
    }
    watch.finish();
    if (!parallel.is_root()) return;
    const nlohmann::json j = validation_json(log, results);
    if (o.json) std::cout << j.dump(2) << std::endl;
    if (!calibration_note.empty()) std::cerr << calibration_note;
    if (!o.plot.empty()) plot_validation(j, o.plot);
  });
  if (rc != 0) throw CLI::RuntimeError(rc);
}

}  // namespace

void add_validate_command(CLI::App& app) {
  auto o = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "validate", "Simulate every size of an nccl-tests log as NCCL would run it on a system and compare busbw");
  cmd->footer(
      "To bound the work, NCCL's chunks grow to at most ~8 per block and channel (and --max-ops ops in all),\n"
      "packets to 1/64 of a chunk (4 KiB..32 KiB), and sizes whose traffic would exceed --max-packets packets\n"
      "are not simulated: the same algorithm is simulated at the two largest powers of two below that bound\n"
      "and the time extrapolated linearly (the output says so for each such size), adding no byte faster than\n"
      "the busiest GPU link carries it; when the slope below the line differs by over 20% (also simulated at a\n"
      "quarter of the bound), the size is marked 'not yet linear'.");
  cmd->add_option("LOG", o->log, "nccl-tests output")->check(CLI::ExistingFile);
  cmd->add_option("--system", o->request.system,
                  "System preset (--list-systems) or system file (--help-system); inferred from the device lines if omitted");
  cmd->add_flag("--list-systems", o->list_systems, "List the system presets and exit");
  cmd->add_flag("--help-system", o->help_system, "Describe the system file, for hardware no preset has, and exit");
  cmd->add_option("--run", o->run, "Only this run of the file (0-based; default every run)");
  cmd->add_option("--ranks", o->request.ranks, "Ranks, when the log does not tell")->check(CLI::Range(2u, 1u << 24));
  add_run_choice_options(*cmd, o->request);
  cmd->add_option("--column", o->request.column, "Which measurement: out-of-place, in-place, auto")->capture_default_str();
  cmd->add_option("--min-bytes", o->min_bytes, "Skip sizes below this");
  cmd->add_option("--max-bytes", o->max_bytes, "Skip sizes above this");
  cmd->add_flag("--streaming-hops", o->request.streaming_hops,
                "LL/LL128 trees and chains stream over NVLink: a step's latency paid once per hop, not "
                "before each send (an NVL72 rack's deep chains; not the default, see validation/REPORT.md)");
  cmd->add_option("--calibration", o->calibration, "Model parameters from `collsim calibrate`")->check(CLI::ExistingFile);
  cmd->add_flag("--json", o->json, "Print the comparison as JSON");
  cmd->add_option("--plot", o->plot, "Draw measured vs simulated busbw over size to this PNG (python3-matplotlib)");
  o->sim.fabric.add_to(*cmd);
  o->sim.observe.add_to(*cmd, false, false);
  cmd->callback([o] { run_validate(*o); });
}

}  // namespace collsim::cli
