#pragma once
// Runs programs as child processes, at most `parallel` at once, each with its standard output
// and error kept in memory: the sweep's points run as separate collsim processes, so that one
// that fails (or crashes) cannot take the others down.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace collsim::sweep {

struct ChildOutcome {
  int exit_status = -1;   // the program's exit status, or -1 when it was killed by a signal
  int signal = 0;         // the signal that killed it
  std::string out, err;
  double wall_s = 0;
};

// Starts job i as `program` with jobs[i] as its arguments, keeps `parallel` running, and calls
// `done(i, outcome)` in the calling thread as each ends. Throws std::runtime_error when a
// process cannot be started.
void run_children(const std::string& program, const std::vector<std::vector<std::string>>& jobs, std::size_t parallel,
                  const std::function<void(std::size_t, const ChildOutcome&)>& done,
                  const std::function<void(std::size_t running)>& started = {});

}  // namespace collsim::sweep
