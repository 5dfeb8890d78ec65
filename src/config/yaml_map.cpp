#include "collsim/config/yaml_map.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "collsim/common/input_error.hpp"

namespace collsim::config {

std::string join(const std::vector<std::string_view>& words) {
  std::string s;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i) s += ", ";
    s += words[i];
  }
  return s;
}

std::string describe(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Scalar: return "'" + n.Scalar() + "'";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a map";
    default: return "nothing";
  }
}

void Reader::fail(const YAML::Mark& m, const std::string& detail) const {
  const std::uint64_t line = m.line < 0 ? 1 : static_cast<std::uint64_t>(m.line) + 1;
  const std::uint64_t column = m.column < 0 ? 1 : static_cast<std::uint64_t>(m.column) + 1;
  throw InputError::at_text(file_, line, column, detail);
}

Map::Map(const Reader& r, const YAML::Node& node, std::string what, const std::string& expected)
    : r_(r), node_(node), what_(std::move(what)) {
  if (!node.IsMap()) r.fail(node, "expected " + expected + " for " + what_ + ", found " + describe(node));
  for (auto it = node.begin(); it != node.end(); ++it) {
    if (!it->first.IsScalar()) r.fail(it->first, "expected a key name in " + what_ + ", found " + describe(it->first));
    const std::string key = it->first.Scalar();
    if (const Field* first = find(key))
      r.fail(it->first, "key '" + key + "' appears twice in " + what_ + " (first on line " +
                            std::to_string(first->key_node.Mark().line + 1) + ")");
    fields_.push_back({key, it->first, it->second});
  }
}

const Field* Map::find(std::string_view key) const {
  for (const Field& f : fields_)
    if (f.key == key) return &f;
  return nullptr;
}

const Field& Map::require(std::string_view key, const std::string& why) const {
  if (const Field* f = find(key)) return *f;
  r_.fail(node_, "missing key '" + std::string(key) + "' in " + what_ + (why.empty() ? "" : " (" + why + ")"));
}

void Map::allow_only(Keys allowed, Keys more, const std::string& context) const {
  for (const Field& f : fields_) {
    const bool ok = std::find(allowed.begin(), allowed.end(), f.key) != allowed.end() ||
                    std::find(more.begin(), more.end(), f.key) != more.end();
    if (ok) continue;
    std::vector<std::string_view> all(allowed.begin(), allowed.end());
    all.insert(all.end(), more.begin(), more.end());
    r_.fail(f.key_node, "unknown key '" + f.key + "' in " + what_ + context + " (allowed: " + join(all) + ")");
  }
}

std::string scalar(const Reader& r, const Field& f, const char* expected) {
  if (!f.value.IsScalar()) r.fail(f.value, "key '" + f.key + "': expected " + expected + ", found " + describe(f.value));
  return f.value.Scalar();
}

std::string read_string(const Reader& r, const Field& f) {
  std::string s = scalar(r, f, "a name");
  if (s.empty()) r.fail(f.value, "key '" + f.key + "': expected a name, found an empty string");
  return s;
}

std::uint32_t read_count(const Reader& r, const Field& f) {
  const std::string s = scalar(r, f, "a whole number");
  std::size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  const bool digits = i < s.size() && std::all_of(s.begin() + static_cast<std::ptrdiff_t>(i), s.end(),
                                                  [](char c) { return c >= '0' && c <= '9'; });
  if (!digits) r.fail(f.value, "key '" + f.key + "': expected a whole number, found '" + s + "'");
  std::uint64_t v = 0;
  for (; i < s.size(); ++i) {
    v = v * 10 + static_cast<std::uint64_t>(s[i] - '0');
    if (v > std::numeric_limits<std::uint32_t>::max()) break;
  }
  if ((s[0] == '-' && v != 0) || v > std::numeric_limits<std::uint32_t>::max())
    r.fail(f.value, "key '" + f.key + "': expected a whole number from 0 to 4294967295, found " + s);
  return static_cast<std::uint32_t>(v);
}

Bandwidth read_bandwidth(const Reader& r, const Field& f) {
  const std::string s = scalar(r, f, "a bandwidth such as 100Gbps");
  std::string error;
  const auto bw = parse_bandwidth(s, &error);
  if (!bw) r.fail(f.value, "key '" + f.key + "': expected a bandwidth above zero with its unit: " + error);
  return *bw;
}

SimTime read_duration(const Reader& r, const Field& f) {
  const std::string s = scalar(r, f, "a duration such as 500ns");
  if (s.find_first_not_of(' ') != std::string::npos && s[s.find_first_not_of(' ')] == '-')
    r.fail(f.value, "key '" + f.key + "': a latency cannot be negative, found '" + s + "'");
  std::string error;
  const auto t = parse_duration(s, &error);
  if (!t) r.fail(f.value, "key '" + f.key + "': expected a duration with its unit: " + error);
  return *t;
}

std::uint64_t read_bytes(const Reader& r, const Field& f) {
  const std::string s = scalar(r, f, "a size such as 32MiB");
  std::string error;
  const auto b = parse_byte_size(s, &error);
  if (!b) r.fail(f.value, "key '" + f.key + "': expected a size with its unit: " + error);
  return *b;
}

bool read_bool(const Reader& r, const Field& f) {
  bool b = false;
  if (!f.value.IsScalar() || !YAML::convert<bool>::decode(f.value, b))
    r.fail(f.value, "key '" + f.key + "': expected true or false, found " + describe(f.value));
  return b;
}


double read_nonnegative(const Reader& r, const Field& f) {
  const std::string s = scalar(r, f, "a number");
  const char* begin = s.c_str();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(begin, &end);
  if (s.empty() || end != begin + s.size() || errno == ERANGE || !std::isfinite(v) || s[0] == '+' ||
      s.find_first_of("xXnN") != std::string::npos)
    r.fail(f.value, "key '" + f.key + "': expected a number, found '" + s + "'");
  if (v < 0) r.fail(f.value, "key '" + f.key + "': expected a number of at least 0, found " + s);
  return v;
}

YAML::Node parse_file(const std::string& path) {
  std::error_code ec;
  // Reading a directory throws the stream's own "basic_filebuf::underflow".
  if (std::filesystem::is_directory(path, ec)) throw InputError::in_file(path, "is a directory, not a YAML file");
  std::ifstream in(path);
  if (!in) throw InputError::in_file(path, std::string("cannot open: ") + std::strerror(errno));
  try {
    return YAML::Load(in);
  } catch (const YAML::Exception& e) {
    const std::uint64_t line = e.mark.line < 0 ? 1 : static_cast<std::uint64_t>(e.mark.line) + 1;
    const std::uint64_t column = e.mark.column < 0 ? 1 : static_cast<std::uint64_t>(e.mark.column) + 1;
    throw InputError::at_text(path, line, column, "YAML syntax error: " + e.msg);
  }
}

}  // namespace collsim::config
