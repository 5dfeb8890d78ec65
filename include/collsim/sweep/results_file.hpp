#pragma once
// The sweep's results file: one JSON object per line and point run, appended as each point
// ends, so that a sweep stopped half-way keeps what it finished and a rerun skips it.
// A line: {"point": {name: value, ...}, "key": "...", "status": "ok" | "failed",
// "error": "..." (failed), "result": {...} (the command's JSON), "wall_s": ...}.

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "collsim/sweep/sweep_spec.hpp"

namespace collsim::sweep {

struct PointRecord {
  Point point;
  bool ok = false;
  std::string error;
  nlohmann::json result;  // the command's JSON (ok)
  double wall_s = 0;
  bool reused = false;    // read from an earlier run, not run now
};

nlohmann::json to_json(const PointRecord& r);

// Earlier records by point key; the last line of a key wins. A missing file is an empty map;
// a line cut short (a run killed while writing) is ignored, any other bad line is an
// InputError with its line.
std::map<std::string, PointRecord> read_results(const std::string& path);

// Appends one line and flushes it.
void append_result(const std::string& path, const PointRecord& r);

}  // namespace collsim::sweep
