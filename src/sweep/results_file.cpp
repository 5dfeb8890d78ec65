#include "collsim/sweep/results_file.hpp"

#include <filesystem>
#include <fstream>

#include "collsim/common/input_error.hpp"

namespace collsim::sweep {

nlohmann::json to_json(const PointRecord& r) {
  nlohmann::json point = nlohmann::json::object();
  for (const Parameter& p : r.point) point[p.name] = p.value;
  nlohmann::json j = {{"key", point_key(r.point)}, {"point", point}, {"status", r.ok ? "ok" : "failed"},
                      {"wall_s", r.wall_s}};
  if (r.ok) j["result"] = r.result;
  else j["error"] = r.error;
  return j;
}

std::map<std::string, PointRecord> read_results(const std::string& path) {
  std::map<std::string, PointRecord> out;
  std::ifstream f(path);
  if (!f) return out;
  std::string line;
  std::uint64_t number = 0;
  while (std::getline(f, line)) {
    ++number;
    if (line.empty()) continue;
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded()) {
      if (f.peek() == std::char_traits<char>::eof()) break;  // the last line, cut short
      throw InputError::at_text(path, number, 1, "not a JSON object: a sweep results file has one per line");
    }
    if (!j.is_object() || !j.contains("key") || !j.contains("point") || !j.contains("status") ||
        !j["key"].is_string() || !j["point"].is_object())
      throw InputError::at_text(path, number, 1, "a result line needs 'key', 'point' and 'status'");
    PointRecord r;
    for (const auto& [name, value] : j["point"].items())
      r.point.push_back({name, value.is_string() ? value.get<std::string>() : value.dump()});
    r.ok = j["status"] == "ok";
    if (j.contains("error") && j["error"].is_string()) r.error = j["error"].get<std::string>();
    if (j.contains("result")) r.result = j["result"];
    if (j.contains("wall_s") && j["wall_s"].is_number()) r.wall_s = j["wall_s"].get<double>();
    r.reused = true;
    out[j["key"].get<std::string>()] = std::move(r);
  }
  return out;
}

void append_result(const std::string& path, const PointRecord& r) {
  if (const auto dir = std::filesystem::path(path).parent_path(); !dir.empty()) std::filesystem::create_directories(dir);
  std::ofstream f(path, std::ios::app);
  f << to_json(r).dump() << "\n";
  f.flush();
  if (!f) throw InputError::in_file(path, "cannot append to the sweep's results file");
}

}  // namespace collsim::sweep
