#include "collsim/sweep/results_table.hpp"

#include <algorithm>

namespace collsim::sweep {

std::string metric(const nlohmann::json& result, const std::string& path) {
  const nlohmann::json* at = &result;
  std::string::size_type begin = 0;
  while (true) {
    const std::string::size_type dot = path.find('.', begin);
    const std::string part = path.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin);
    if (!at->is_object() || !at->contains(part)) return "";
    at = &(*at)[part];
    if (dot == std::string::npos) break;
    begin = dot + 1;
  }
  if (at->is_string()) return at->get<std::string>();
  if (at->is_null()) return "";
  return at->dump();
}

std::vector<std::string> metric_columns(const std::vector<PointRecord>& records, const std::vector<std::string>& wanted) {
  if (!wanted.empty()) return wanted;
  for (const PointRecord& r : records) {
    if (!r.ok || !r.result.is_object()) continue;
    std::vector<std::string> out;
    for (const auto& [key, value] : r.result.items())
      if (value.is_number()) out.push_back(key);
    return out;
  }
  return {};
}

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

void write_csv(std::ostream& out, const std::vector<PointRecord>& records, const std::vector<std::string>& metrics) {
  if (records.empty()) return;
  // Listed points may name different parameters: a column for each, in the order first seen.
  std::vector<std::string> columns;
  for (const PointRecord& r : records)
    for (const Parameter& p : r.point)
      if (std::find(columns.begin(), columns.end(), p.name) == columns.end()) columns.push_back(p.name);
  for (const std::string& c : columns) out << csv_field(c) << ",";
  out << "status";
  for (const std::string& m : metrics) out << "," << csv_field(m);
  out << ",error\n";
  for (const PointRecord& r : records) {
    for (const std::string& column : columns) {
      std::string value;
      for (const Parameter& p : r.point)
        if (p.name == column) value = p.value;
      out << csv_field(value) << ",";
    }
    out << (r.ok ? "ok" : "failed");
    for (const std::string& m : metrics) out << "," << csv_field(r.ok ? metric(r.result, m) : "");
    out << "," << csv_field(r.error) << "\n";
  }
}

}  // namespace collsim::sweep
