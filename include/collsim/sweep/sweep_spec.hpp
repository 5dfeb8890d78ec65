#pragma once
// A parameter sweep: which collsim command each point runs, the arguments every point shares,
// and the points, as a grid (the product of named values) or a list. A parameter NAME becomes
// the option --NAME VALUE of the command (a value true: the flag --NAME; false: left out); for
// `workload`, a dotted name (parallelism.dp) sets that key of the workload file instead.

#include <optional>
#include <string>
#include <vector>

namespace collsim::sweep {

struct Parameter {
  std::string name;
  std::string value;
  bool operator==(const Parameter&) const = default;
};

// One point: its parameters in the order the spec names them.
using Point = std::vector<Parameter>;

// "bytes=1MiB routing=ecmp": how results files and the table name a point.
std::string point_key(const Point& p);

struct PlotSpec {
  std::string x;  // a parameter
  std::string y;  // a metric
};

struct SweepSpec {
  std::string file;
  std::string command;             // run, workload, replay, flows or validate
  std::vector<std::string> args;   // before each point's options (for workload: the workload first)
  std::vector<Point> points;
  std::vector<std::string> metrics;  // dotted paths into the command's JSON; empty: its top-level numbers
  std::optional<PlotSpec> plot;
};

// The commands a sweep can run: those that print their result with --json.
const std::vector<std::string>& sweepable_commands();

// Throws collsim::InputError naming the file, line and column of what is wrong.
SweepSpec load_sweep_spec(const std::string& path);

// Whether a parameter sets a key of the workload file rather than an option.
inline bool is_workload_key(const std::string& name) { return name.find('.') != std::string::npos; }
// Whether any point sets one: then args start with the workload, which each such point edits.
bool edits_workload(const SweepSpec& spec);

}  // namespace collsim::sweep
