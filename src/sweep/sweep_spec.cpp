#include "collsim/sweep/sweep_spec.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <string_view>

#include "collsim/common/input_error.hpp"
#include "collsim/config/yaml_map.hpp"

namespace collsim::sweep {

std::string point_key(const Point& p) {
  std::string key;
  for (const Parameter& q : p) key += (key.empty() ? "" : " ") + q.name + "=" + q.value;
  return key;
}

const std::vector<std::string>& sweepable_commands() {
  static const std::vector<std::string> commands = {"run", "workload", "replay", "flows", "validate"};
  return commands;
}

namespace {

constexpr std::array<std::string_view, 6> kKeys = {"command", "args", "grid", "points", "metrics", "plot"};

std::string scalar(const config::Reader& r, const YAML::Node& n, const std::string& what) {
  if (!n.IsScalar()) r.fail(n, what + " must be a single value, not " + config::describe(n));
  return n.Scalar();
}

void check_name(const config::Reader& r, const config::Field& f, const std::string& command) {
  const std::string& name = f.key;
  const bool plain = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
  if (!plain || name.front() == '-')
    r.fail(f.key_node, "parameter '" + name + "' must be an option's name without dashes (bytes for --bytes)");
  if (is_workload_key(name) && command != "workload")
    r.fail(f.key_node, "parameter '" + name + "' names a workload file's key, which only the workload command has");
}

std::vector<std::string> values_of(const config::Reader& r, const config::Field& f) {
  std::vector<std::string> out;
  if (f.value.IsScalar()) return {f.value.Scalar()};
  if (!f.value.IsSequence() || f.value.size() == 0)
    r.fail(f.value, "the values of '" + f.key + "' must be a non-empty list, not " + config::describe(f.value));
  for (const YAML::Node& v : f.value) out.push_back(scalar(r, v, "a value of '" + f.key + "'"));
  return out;
}

std::vector<Point> grid_points(const config::Reader& r, const YAML::Node& node, const std::string& command) {
  const config::Map grid(r, node, "'grid'", "a map of parameters to lists of values, such as {bytes: [1MiB, 16MiB]}");
  if (grid.fields().empty()) r.fail(node, "'grid' names no parameter");
  std::vector<Point> points{Point{}};
  for (const config::Field& f : grid.fields()) {
    check_name(r, f, command);
    const std::vector<std::string> values = values_of(r, f);
    std::vector<Point> next;
    for (const Point& p : points)
      for (const std::string& v : values) {
        Point q = p;
        q.push_back({f.key, v});
        next.push_back(std::move(q));
      }
    points = std::move(next);
  }
  return points;
}

std::vector<Point> listed_points(const config::Reader& r, const YAML::Node& node, const std::string& command) {
  if (!node.IsSequence() || node.size() == 0)
    r.fail(node, "'points' must be a non-empty list of maps such as {bytes: 1MiB, routing: spray}, not " +
                     config::describe(node));
  std::vector<Point> points;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const config::Map m(r, node[i], "point " + std::to_string(i + 1) + " of 'points'",
                        "a map of parameters to values, such as {bytes: 1MiB, routing: spray}");
    Point p;
    for (const config::Field& f : m.fields()) {
      check_name(r, f, command);
      p.push_back({f.key, scalar(r, f.value, "'" + f.key + "'")});
    }
    if (!seen.insert(point_key(p)).second) r.fail(node[i], "point " + std::to_string(i + 1) + " repeats an earlier one");
    points.push_back(std::move(p));
  }
  return points;
}

}  // namespace

bool edits_workload(const SweepSpec& spec) {
  return std::any_of(spec.points.begin(), spec.points.end(), [](const Point& p) {
    return std::any_of(p.begin(), p.end(), [](const Parameter& q) { return is_workload_key(q.name); });
  });
}

SweepSpec load_sweep_spec(const std::string& path) {
  const YAML::Node root = config::parse_file(path);
  const config::Reader r(path);
  const config::Map top(r, root, "the sweep", "a map with command, args, and grid or points");
  top.allow_only(kKeys, {}, "a sweep");
  SweepSpec s;
  s.file = path;
  const config::Field& command = top.require("command", "the collsim command each point runs");
  s.command = scalar(r, command.value, "'command'");
  const auto& known = sweepable_commands();
  if (std::find(known.begin(), known.end(), s.command) == known.end()) {
    std::string list;
    for (const std::string& c : known) list += (list.empty() ? "" : ", ") + c;
    r.fail(command.value, "command '" + s.command + "' cannot be swept (its result must come as --json): " + list);
  }
  if (const config::Field* args = top.find("args")) {
    if (!args->value.IsSequence()) r.fail(args->value, "'args' must be a list of arguments, not " + config::describe(args->value));
    for (const YAML::Node& a : args->value) s.args.push_back(scalar(r, a, "an argument of 'args'"));
  }
  const config::Field* grid = top.find("grid");
  const config::Field* points = top.find("points");
  if ((grid == nullptr) == (points == nullptr))
    r.fail(root, grid ? "give either 'grid' or 'points', not both" : "the sweep needs 'grid' or 'points'");
  s.points = grid ? grid_points(r, grid->value, s.command) : listed_points(r, points->value, s.command);
  if (edits_workload(s) && (s.args.empty() || s.args.front().starts_with("-")))
    r.fail(top.find("args") ? top.find("args")->value : root,
           "a parameter sets a workload file's key, so 'args' must start with the workload (a preset or a file)");
  if (const config::Field* metrics = top.find("metrics")) {
    if (!metrics->value.IsSequence()) r.fail(metrics->value, "'metrics' must be a list of JSON keys, not " + config::describe(metrics->value));
    for (const YAML::Node& m : metrics->value) s.metrics.push_back(scalar(r, m, "a metric"));
  }
  if (const config::Field* plot = top.find("plot")) {
    const config::Map m(r, plot->value, "'plot'", "a map such as {x: bytes, y: makespan_ps}");
    static constexpr std::array<std::string_view, 2> kPlotKeys = {"x", "y"};
    m.allow_only(kPlotKeys, {}, "'plot'");
    const config::Field& x = m.require("x", "the parameter along the horizontal axis");
    const config::Field& y = m.require("y", "the metric along the vertical axis");
    PlotSpec p{scalar(r, x.value, "'x'"), scalar(r, y.value, "'y'")};
    const Point& first = s.points.front();
    if (std::none_of(first.begin(), first.end(), [&](const Parameter& q) { return q.name == p.x; }))
      r.fail(x.value, "plot x '" + p.x + "' is not a parameter of the sweep");
    s.plot = p;
  }
  return s;
}

}  // namespace collsim::sweep
