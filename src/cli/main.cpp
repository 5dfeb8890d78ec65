// The collsim program: one executable, one subcommand per task.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <new>
#include <sstream>
#include <string_view>
#include <utility>

#include "collsim/common/input_error.hpp"
#include "collsim/common/spelling.hpp"
#include "bench_command.hpp"
#include "flows_command.hpp"
#include "gen_command.hpp"
#include "replay_command.hpp"
#include "run_command.hpp"
#include "goal_command.hpp"
#include "report_command.hpp"
#include "sweep_command.hpp"
#include "jobs_command.hpp"
#include "topo_command.hpp"
#include "workload_command.hpp"
#include "validate_command.hpp"
#include "calibrate_command.hpp"
#include "run_record.hpp"
#include "log_options.hpp"
#include "parallel_context.hpp"

#ifndef COLLSIM_VERSION
#define COLLSIM_VERSION "unknown"
#endif

namespace {

// Exit statuses (README, "Errors and exit status"): 0 done; 1 an error in what an input holds or
// during the run; 2 a simulation that did not complete (the commands that simulate say which
// ops); 64 a usage error: an unknown subcommand or option, a missing option or file, or an
// option's value that cannot be used.
constexpr int kUsageError = collsim::cli::ParallelContext::kUsageError;

std::vector<std::string> subcommand_names(CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) names.push_back(sub->get_name());
  return names;
}

// A word the command line did not expect, with the nearest option of `cmd` when it looks
// like a misspelling of one: " (did you mean --topology?)".
std::string option_hint(const CLI::App& cmd, const std::string& word) {
  if (word.rfind("--", 0) != 0) return "";
  std::vector<std::string> names;
  for (const CLI::Option* o : cmd.get_options())
    for (const std::string& n : o->get_lnames()) names.push_back(n);
  const std::string near = collsim::closest_word(word.substr(2), names);
  return near.empty() ? "" : " (did you mean --" + near + "?)";
}

int usage_error(CLI::App& app, const CLI::ParseError& e) {
  const std::vector<CLI::App*> parsed = app.get_subcommands();
  const CLI::App& cmd = parsed.empty() ? app : *parsed.back();
  std::string message = e.what();
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    std::istringstream words(message.substr(message.find(':') + 1));
    for (std::string w; words >> w;) message += option_hint(cmd, w);
  }
  const std::string help = parsed.empty() ? "collsim --help" : "collsim " + cmd.get_name() + " --help";
  std::cerr << "collsim: error: " << message << "\n(" << help << " lists the options)\n";
  return kUsageError;
}

}  // namespace

int main(int argc, char** argv) {
  collsim::cli::remember_invocation(argc, argv);
  CLI::App app{"collsim: a parallel packet-level simulator for the collective communication of DNN training"};
  app.set_version_flag("--version", COLLSIM_VERSION);
  app.require_subcommand(1);
  collsim::cli::add_log_options(app);
  // A command line that names its subcommand first builds that one only: the options of all
  // of them take longer to set up (~2 ms) than a small LogGOPS run takes to read its file.
  using AddCommand = void (*)(CLI::App&);
  static constexpr std::pair<const char*, AddCommand> kCommands[] = {
      {"goal", collsim::cli::add_goal_command},         {"gen", collsim::cli::add_gen_command},
      {"run", collsim::cli::add_run_command},           {"replay", collsim::cli::add_replay_command},
      {"bench", collsim::cli::add_bench_command},       {"topo", collsim::cli::add_topo_command},
      {"flows", collsim::cli::add_flows_command},       {"workload", collsim::cli::add_workload_command},
      {"validate", collsim::cli::add_validate_command}, {"calibrate", collsim::cli::add_calibrate_command},
      {"sweep", collsim::cli::add_sweep_command},       {"jobs", collsim::cli::add_jobs_command},
      {"report", collsim::cli::add_report_command},
  };
  const auto named = std::find_if(std::begin(kCommands), std::end(kCommands),
                                  [&](const auto& c) { return argc > 1 && std::string_view(argv[1]) == c.first; });
  if (named != std::end(kCommands)) {
    named->second(app);
  } else {
    for (const auto& [name, add] : kCommands) add(app);
  }

  if (argc > 1 && argv[1][0] != '-') {
    const std::vector<std::string> names = subcommand_names(app);
    if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      const std::string near = collsim::closest_word(argv[1], names);
      std::cerr << "collsim: error: no subcommand '" << argv[1] << "'"
                << (near.empty() ? "" : " (did you mean " + near + "?)") << "\n(collsim --help lists them)\n";
      return kUsageError;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {
    return e.get_exit_code();  // a parallel run's failure, printed where it happened
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    return usage_error(app, e);
  } catch (const collsim::InputError& e) {
    std::cerr << "collsim: error: " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "collsim: error: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "collsim: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
