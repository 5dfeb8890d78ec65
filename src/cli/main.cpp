// The collsim program: one executable, one subcommand per task.

#include <CLI/CLI.hpp>
#include <iostream>
#include <new>

#include "collsim/common/input_error.hpp"
#include "bench_command.hpp"
#include "flows_command.hpp"
#include "gen_command.hpp"
#include "replay_command.hpp"
#include "run_command.hpp"
#include "goal_command.hpp"
#include "topo_command.hpp"
#include "workload_command.hpp"
#include "validate_command.hpp"
#include "calibrate_command.hpp"
#include "run_record.hpp"
#include "log_options.hpp"

#ifndef COLLSIM_VERSION
#define COLLSIM_VERSION "unknown"
#endif

int main(int argc, char** argv) {
  collsim::cli::remember_invocation(argc, argv);
  CLI::App app{"collsim: a parallel packet-level simulator for the collective communication of DNN training"};
  app.set_version_flag("--version", COLLSIM_VERSION);
  app.require_subcommand(1);
  collsim::cli::add_log_options(app);
  collsim::cli::add_goal_command(app);
  collsim::cli::add_gen_command(app);
  collsim::cli::add_run_command(app);
  collsim::cli::add_replay_command(app);
  collsim::cli::add_bench_command(app);
  collsim::cli::add_topo_command(app);
  collsim::cli::add_flows_command(app);
  collsim::cli::add_workload_command(app);
  collsim::cli::add_validate_command(app);
  collsim::cli::add_calibrate_command(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
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
