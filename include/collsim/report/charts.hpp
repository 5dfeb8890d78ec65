#pragma once
// The report's charts, each an SVG drawing (see svg_canvas.hpp), and the figures they show.

#include <cstdint>
#include <string>
#include <vector>

#include "collsim/report/result_tables.hpp"

namespace collsim::report {

// Per rank, how long it was busy with each role: the union of its ops' intervals of that role
// (two overlapping sends count once). Without roles in the file, compute (calcs) against
// communication (sends and receives).
struct RankBreakdown {
  std::vector<std::string> roles;
  std::vector<std::vector<std::int64_t>> busy_ps;  // [rank][role]
  std::vector<std::int64_t> end_ps;                // per rank: its last op's end (-1: none ended)
};
RankBreakdown busy_by_role(const OpsTable& ops);

// At most `limit` of `n` items, evenly spaced, first and last included.
std::vector<std::size_t> evenly_spaced(std::size_t n, std::size_t limit);

// The `limit` link directions with the highest mean utilisation, busiest first (NaN counts 0).
std::vector<std::size_t> busiest_directions(const LinkSamplesTable& s, std::size_t limit);

std::string breakdown_chart(const RankBreakdown& b);
std::string collective_timeline_chart(const CollectivesTable& c);
std::string utilisation_heatmap(const LinkSamplesTable& s);
// The empirical CDF of `values` (any unit, named by `unit`), on a log axis when they span
// two decades or more.
std::string cdf_chart(std::vector<double> values, const std::string& unit);
// Measured and simulated bus bandwidth (GB/s) over message size (bytes, log axis).
std::string busbw_chart(const std::vector<double>& bytes, const std::vector<double>& measured,
                        const std::vector<double>& simulated);

}  // namespace collsim::report
