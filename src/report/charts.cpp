#include "collsim/report/charts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <utility>

#include "collsim/report/svg_canvas.hpp"

namespace collsim::report {

namespace {

constexpr double kLeft = 150, kRight = 45, kTop = 30, kBottom = 45, kWidth = 900;

std::string fixed(double v, int digits) {
  char text[48];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

// A time in picoseconds as milliseconds or microseconds, for axes and tooltips.
std::string time_text(double ps) {
  if (ps >= 1e9) return fixed(ps / 1e9, 3) + " ms";
  return fixed(ps / 1e6, 3) + " us";
}

std::string size_text(double bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return fixed(bytes, bytes == std::floor(bytes) ? 0 : 1) + units[u];
}

void time_axis(SvgCanvas& svg, double x0, double x1, double y, double span_ps) {
  svg.line(x0, y, x1, y, "#444");
  for (int i = 0; i <= 5; ++i) {
    const double x = x0 + (x1 - x0) * i / 5;
    svg.line(x, y, x, y + 4, "#444");
    svg.text(x, y + 16, time_text(span_ps * i / 5), "middle", 10);
  }
}

}  // namespace

RankBreakdown busy_by_role(const OpsTable& ops) {
  RankBreakdown b;
  const bool roles = !ops.role.empty();
  b.roles = roles ? ops.role_names : std::vector<std::string>{"compute", "communication"};
  const std::uint32_t ranks = ops.rank.empty() ? 0 : *std::max_element(ops.rank.begin(), ops.rank.end()) + 1;
  b.busy_ps.assign(ranks, std::vector<std::int64_t>(b.roles.size(), 0));
  b.end_ps.assign(ranks, -1);
  // Per (rank, role) its intervals, merged after sorting.
  std::map<std::pair<std::uint32_t, std::size_t>, std::vector<std::pair<std::int64_t, std::int64_t>>> intervals;
  for (std::size_t i = 0; i < ops.rank.size(); ++i) {
    if (ops.start_ps[i] < 0 || ops.end_ps[i] < ops.start_ps[i]) continue;  // never ran
    const std::size_t role = roles ? ops.role[i] : (ops.kind[i] == 3 ? 0 : 1);
    intervals[{ops.rank[i], role}].emplace_back(ops.start_ps[i], ops.end_ps[i]);
    b.end_ps[ops.rank[i]] = std::max(b.end_ps[ops.rank[i]], ops.end_ps[i]);
  }
  for (auto& [key, list] : intervals) {
    std::sort(list.begin(), list.end());
    std::int64_t total = 0, from = list.front().first, to = list.front().second;
    for (const auto& [s, e] : list) {
      if (s > to) {
        total += to - from;
        from = s;
      }
      to = std::max(to, e);
    }
    total += to - from;
    b.busy_ps[key.first][key.second] = total;
  }
  return b;
}

std::vector<std::size_t> evenly_spaced(std::size_t n, std::size_t limit) {
  std::vector<std::size_t> out;
  if (n <= limit) {
    for (std::size_t i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  if (limit < 2) return limit == 1 ? std::vector<std::size_t>{0} : out;
  for (std::size_t k = 0; k < limit; ++k) out.push_back(k * (n - 1) / (limit - 1));
  return out;
}

std::vector<std::size_t> busiest_directions(const LinkSamplesTable& s, std::size_t limit) {
  const std::size_t d = s.from.size(), t = s.time_ps.size();
  std::vector<double> mean(d, 0.0);
  for (std::size_t row = 0; row < t; ++row)
    for (std::size_t c = 0; c < d; ++c) {
      const double v = s.utilisation[row * d + c];
      if (std::isfinite(v)) mean[c] += v;
    }
  std::vector<std::size_t> order(d);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return mean[a] > mean[b]; });
  order.resize(std::min(limit, d));
  return order;
}

std::string breakdown_chart(const RankBreakdown& b) {
  const std::vector<std::size_t> ranks = evenly_spaced(b.busy_ps.size(), 64);
  const double row = 14, height = kTop + row * static_cast<double>(ranks.size()) + kBottom + 20;
  SvgCanvas svg(kWidth, height);
  std::int64_t longest = 1;
  for (std::size_t r : ranks)
    longest = std::max(longest, std::accumulate(b.busy_ps[r].begin(), b.busy_ps[r].end(), std::int64_t{0}));
  for (std::size_t r : ranks) longest = std::max(longest, b.end_ps[r]);
  const double plot = kWidth - kLeft - kRight, scale = plot / static_cast<double>(longest);
  for (std::size_t k = 0; k < b.roles.size(); ++k) {
    svg.rect(kLeft + 110.0 * static_cast<double>(k), 8, 10, 10, palette(k));
    svg.text(kLeft + 110.0 * static_cast<double>(k) + 14, 17, b.roles[k], "start", 10);
  }
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const std::size_t r = ranks[i];
    const double y = kTop + row * static_cast<double>(i);
    svg.text(kLeft - 6, y + row - 4, "rank " + std::to_string(r), "end", 10);
    double x = kLeft;
    for (std::size_t k = 0; k < b.roles.size(); ++k) {
      const double w = static_cast<double>(b.busy_ps[r][k]) * scale;
      if (w <= 0) continue;
      svg.rect(x, y + 2, w, row - 4, palette(k), "rank " + std::to_string(r) + ": " + b.roles[k] + " " +
                                                      time_text(static_cast<double>(b.busy_ps[r][k])));
      x += w;
    }
    if (b.end_ps[r] >= 0) {
      const double end = kLeft + static_cast<double>(b.end_ps[r]) * scale;
      svg.line(end, y + 1, end, y + row - 1, "#000", 1.5);
    }
  }
  time_axis(svg, kLeft, kWidth - kRight, kTop + row * static_cast<double>(ranks.size()) + 4,
            static_cast<double>(longest));
  return svg.str();
}

std::string collective_timeline_chart(const CollectivesTable& c) {
  const std::uint32_t n = c.rank.empty() ? 0 : *std::max_element(c.rank.begin(), c.rank.end()) + 1;
  const std::vector<std::size_t> shown = evenly_spaced(n, 64);
  std::vector<int> row_of(n, -1);
  for (std::size_t i = 0; i < shown.size(); ++i) row_of[shown[i]] = static_cast<int>(i);
  std::int64_t end = 1;
  for (std::int64_t e : c.end_ps) end = std::max(end, e);
  const double row = 14, height = kTop + row * static_cast<double>(shown.size()) + kBottom + 20;
  SvgCanvas svg(kWidth, height);
  const double scale = (kWidth - kLeft - kRight) / static_cast<double>(end);
  for (std::size_t k = 0; k < std::min<std::size_t>(c.names.size(), 8); ++k) {
    svg.rect(kLeft + 95.0 * static_cast<double>(k), 8, 10, 10, palette(k));
    svg.text(kLeft + 95.0 * static_cast<double>(k) + 14, 17, c.names[k], "start", 10);
  }
  for (std::size_t i = 0; i < shown.size(); ++i)
    svg.text(kLeft - 6, kTop + row * static_cast<double>(i) + row - 4, "rank " + std::to_string(shown[i]), "end", 10);
  for (std::size_t i = 0; i < c.rank.size(); ++i) {
    const int r = row_of[c.rank[i]];
    if (r < 0 || c.start_ps[i] < 0 || c.end_ps[i] < 0) continue;
    const double x = kLeft + static_cast<double>(c.start_ps[i]) * scale;
    const double w = std::max(1.0, static_cast<double>(c.end_ps[i] - c.start_ps[i]) * scale);
    svg.rect(x, kTop + row * r + 2, w, row - 4, palette(c.name[i]),
             c.names[c.name[i]] + " on rank " + std::to_string(c.rank[i]) + ": " +
                 time_text(static_cast<double>(c.start_ps[i])) + " to " + time_text(static_cast<double>(c.end_ps[i])));
  }
  time_axis(svg, kLeft, kWidth - kRight, kTop + row * static_cast<double>(shown.size()) + 4, static_cast<double>(end));
  return svg.str();
}

std::string utilisation_heatmap(const LinkSamplesTable& s) {
  const std::vector<std::size_t> rows = busiest_directions(s, 32);
  const std::size_t t = s.time_ps.size(), d = s.from.size();
  const std::size_t bins = std::min<std::size_t>(t, 200);
  const double row = 12, height = kTop + row * static_cast<double>(rows.size()) + kBottom + 20;
  SvgCanvas svg(kWidth, height);
  const double plot = kWidth - kLeft - kRight, cell = bins ? plot / static_cast<double>(bins) : 0;
  svg.text(kLeft, 18, "utilisation: white 0, yellow, orange, dark red 1 (the 32 busiest link directions)", "start", 10);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::size_t c = rows[i];
    const double y = kTop + row * static_cast<double>(i);
    svg.text(kLeft - 6, y + row - 3, s.from[c] + "→" + s.to[c], "end", 9);
    for (std::size_t bin = 0; bin < bins; ++bin) {
      const std::size_t lo = bin * t / bins, hi = std::max(lo + 1, (bin + 1) * t / bins);
      double sum = 0;
      for (std::size_t k = lo; k < hi; ++k) {
        const double v = s.utilisation[k * d + c];
        if (std::isfinite(v)) sum += v;
      }
      const double mean = sum / static_cast<double>(hi - lo);
      if (mean <= 0) continue;
      svg.rect(kLeft + cell * static_cast<double>(bin), y, cell + 0.3, row - 1, heat_colour(mean),
               s.from[c] + "→" + s.to[c] + ": " + fixed(mean * 100, 1) + "% until " +
                   time_text(static_cast<double>(s.time_ps[hi - 1])));
    }
  }
  time_axis(svg, kLeft, kWidth - kRight, kTop + row * static_cast<double>(rows.size()) + 4,
            t ? static_cast<double>(s.time_ps.back()) : 0.0);
  return svg.str();
}

std::string cdf_chart(std::vector<double> values, const std::string& unit) {
  std::sort(values.begin(), values.end());
  const double w = 700, h = 320, left = 70, bottom = 45, top = 20, right = 20;
  SvgCanvas svg(w, h);
  if (values.empty()) {
    svg.text(w / 2, h / 2, "no values", "middle");
    return svg.str();
  }
  const double lo = values.front(), hi = values.back();
  const bool log = lo > 0 && hi / lo >= 100;
  const auto xpos = [&](double v) {
    const double f = hi == lo ? 0.5 : log ? std::log(v / lo) / std::log(hi / lo) : (v - lo) / (hi - lo);
    return left + f * (w - left - right);
  };
  const auto ypos = [&](double q) { return h - bottom - q * (h - bottom - top); };
  std::string points;
  const std::size_t n = values.size(), steps = std::min<std::size_t>(n, 500);
  for (std::size_t k = 0; k < steps; ++k) {
    const std::size_t i = steps == 1 ? n - 1 : k * (n - 1) / (steps - 1);
    points += fixed(xpos(values[i]), 2) + "," + fixed(ypos(static_cast<double>(i + 1) / static_cast<double>(n)), 2) + " ";
  }
  svg.line(left, h - bottom, w - right, h - bottom, "#444");
  svg.line(left, top, left, h - bottom, "#444");
  for (int q = 0; q <= 4; ++q) {
    svg.text(left - 6, ypos(q / 4.0) + 4, fixed(q / 4.0, 2), "end", 10);
    svg.line(left, ypos(q / 4.0), w - right, ypos(q / 4.0), "#eee");
  }
  for (int i = 0; i <= 4; ++i) {
    const double v = log ? lo * std::pow(hi / lo, i / 4.0) : lo + (hi - lo) * i / 4.0;
    svg.text(xpos(v), h - bottom + 16, fixed(v, v < 10 ? 2 : 1), "middle", 10);
  }
  svg.text((left + w - right) / 2, h - 8, unit + (log ? " (log scale)" : ""), "middle", 11);
  const double p50 = values[(n - 1) / 2], p99 = values[static_cast<std::size_t>(std::ceil(0.99 * static_cast<double>(n))) - 1];
  svg.polyline(points, palette(0), 2,
               std::to_string(n) + " values; p50 " + fixed(p50, 3) + ", p99 " + fixed(p99, 3) + " " + unit);
  svg.text(w - right, top + 12, "n " + std::to_string(n) + ", p50 " + fixed(p50, 3) + ", p99 " + fixed(p99, 3), "end", 11);
  return svg.str();
}

std::string busbw_chart(const std::vector<double>& bytes, const std::vector<double>& measured,
                        const std::vector<double>& simulated) {
  const double w = 760, h = 360, left = 70, bottom = 50, top = 30, right = 20;
  SvgCanvas svg(w, h);
  if (bytes.empty()) {
    svg.text(w / 2, h / 2, "no sizes", "middle");
    return svg.str();
  }
  const double lo = *std::min_element(bytes.begin(), bytes.end()), hi = *std::max_element(bytes.begin(), bytes.end());
  double top_bw = 1;
  for (double v : measured) top_bw = std::max(top_bw, v);
  for (double v : simulated) top_bw = std::max(top_bw, v);
  top_bw *= 1.1;
  const auto xpos = [&](double b) {
    return left + (hi > lo ? std::log2(b / lo) / std::log2(hi / lo) : 0.5) * (w - left - right);
  };
  const auto ypos = [&](double bw) { return h - bottom - bw / top_bw * (h - bottom - top); };
  svg.line(left, h - bottom, w - right, h - bottom, "#444");
  svg.line(left, top, left, h - bottom, "#444");
  for (int i = 0; i <= 5; ++i) {
    const double bw = top_bw * i / 5;
    svg.line(left, ypos(bw), w - right, ypos(bw), "#eee");
    svg.text(left - 6, ypos(bw) + 4, fixed(bw, 0), "end", 10);
  }
  for (std::size_t i : evenly_spaced(bytes.size(), 8)) svg.text(xpos(bytes[i]), h - bottom + 16, size_text(bytes[i]), "middle", 10);
  svg.text((left + w - right) / 2, h - 10, "size (log scale); bus bandwidth in GB/s", "middle", 11);
  const std::vector<std::pair<const std::vector<double>*, std::string>> series = {{&measured, "measured"},
                                                                                  {&simulated, "simulated"}};
  for (std::size_t s = 0; s < series.size(); ++s) {
    std::string points;
    for (std::size_t i = 0; i < bytes.size() && i < series[s].first->size(); ++i) {
      const double x = xpos(bytes[i]), y = ypos((*series[s].first)[i]);
      points += fixed(x, 2) + "," + fixed(y, 2) + " ";
      svg.rect(x - 2.5, y - 2.5, 5, 5, palette(s),
               series[s].second + " " + size_text(bytes[i]) + ": " + fixed((*series[s].first)[i], 1) + " GB/s");
    }
    svg.polyline(points, palette(s), 2);
    svg.rect(left + 10 + 110.0 * static_cast<double>(s), 10, 10, 10, palette(s));
    svg.text(left + 24 + 110.0 * static_cast<double>(s), 19, series[s].second, "start", 11);
  }
  return svg.str();
}

}  // namespace collsim::report
