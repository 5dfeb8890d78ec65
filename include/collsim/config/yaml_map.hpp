#pragma once
// Reading YAML configuration files (topologies, workloads) so that every error names the
// file, the line and column of the offending key or value, and what was expected there.

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "collsim/common/units.hpp"
#include "collsim/common/sim_time.hpp"

namespace collsim::config {

using Keys = std::span<const std::string_view>;

std::string join(const std::vector<std::string_view>& words);
// "'text'", "a list", "a map" or "nothing", for messages.
std::string describe(const YAML::Node& n);

// Where errors point: the file being read.
class Reader {
 public:
  explicit Reader(const std::string& file) : file_(file) {}
  [[noreturn]] void fail(const YAML::Mark& m, const std::string& detail) const;
  [[noreturn]] void fail(const YAML::Node& n, const std::string& detail) const { fail(n.Mark(), detail); }
  const std::string& file() const { return file_; }

 private:
  const std::string& file_;
};

// Parses a whole file; a syntax error names its line and column.
YAML::Node parse_file(const std::string& path);

struct Field {
  std::string key;
  YAML::Node key_node;
  YAML::Node value;
};

// A YAML map whose keys have been checked to be distinct scalars.
class Map {
 public:
  // `what` names the map in messages ("the topology", "'link'", "node 3 of 'nodes'");
  // `expected` describes it for a type error ("a map such as {bandwidth: 100Gbps, latency: 1us}").
  Map(const Reader& r, const YAML::Node& node, std::string what, const std::string& expected);

  const Field* find(std::string_view key) const;
  const Field& require(std::string_view key, const std::string& why) const;
  // Rejects keys outside `allowed` (and `more`).
  void allow_only(Keys allowed, Keys more, const std::string& context) const;
  const YAML::Node& node() const { return node_; }
  const std::string& what() const { return what_; }
  const std::vector<Field>& fields() const { return fields_; }

 private:
  const Reader& r_;
  YAML::Node node_;
  std::string what_;
  std::vector<Field> fields_;
};

std::string scalar(const Reader& r, const Field& f, const char* expected);
std::string read_string(const Reader& r, const Field& f);
std::uint32_t read_count(const Reader& r, const Field& f);
// A finite number >= 0 (a plain decimal, with an optional exponent).
double read_nonnegative(const Reader& r, const Field& f);
Bandwidth read_bandwidth(const Reader& r, const Field& f);
SimTime read_duration(const Reader& r, const Field& f);
std::uint64_t read_bytes(const Reader& r, const Field& f);
bool read_bool(const Reader& r, const Field& f);

}  // namespace collsim::config
