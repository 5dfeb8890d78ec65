#include "collsim/report/report_page.hpp"

#include <cstdio>

#include "collsim/common/input_error.hpp"
#include "collsim/report/charts.hpp"
#include "collsim/report/svg_canvas.hpp"

namespace collsim::report {

namespace {

constexpr const char* kStyle =
    "body{font-family:sans-serif;margin:24px auto;max-width:960px;color:#222}"
    "h1{font-size:22px}h2{font-size:17px;margin-top:32px;border-bottom:1px solid #ccc}"
    "p.note{color:#555;font-size:13px}table{border-collapse:collapse;font-size:13px}"
    "td,th{border:1px solid #ddd;padding:3px 8px;text-align:right}th{background:#f4f4f4}"
    "code{background:#f4f4f4;padding:1px 4px}";

std::string page(const std::string& title, const std::string& subtitle, const std::string& body) {
  return "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + escape_xml(title) +
         "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n<h1>" + escape_xml(title) + "</h1>\n<p class=\"note\">" +
         subtitle + "</p>\n" + body + "</body>\n</html>\n";
}

std::string section(const std::string& id, const std::string& title, const std::string& note, const std::string& svg) {
  return "<section id=\"" + id + "\">\n<h2>" + escape_xml(title) + "</h2>\n<p class=\"note\">" + note + "</p>\n" + svg +
         "</section>\n";
}

std::string missing(const std::string& id, const std::string& title, const std::string& why) {
  return "<section id=\"" + id + "\">\n<h2>" + escape_xml(title) + "</h2>\n<p class=\"note\">Not in this file: " +
         escape_xml(why) + "</p>\n</section>\n";
}

std::string number(double v, int digits) {
  char text[48];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

}  // namespace

std::string result_page(const ResultTables& t) {
  std::string body;
  if (t.ops) {
    body += section("breakdown", "Time per rank and role",
                    "Per rank, the time it was busy with each role (the union of its ops' intervals; roles overlap "
                    "where communication hides behind compute, so a bar may be longer than the rank's run). The black "
                    "tick is where the rank's last op ended. At most 64 ranks, evenly spaced; hover for values.",
                    breakdown_chart(busy_by_role(*t.ops)));
  } else {
    body += missing("breakdown", "Time per rank and role", "no /ops (write the run with --hdf5)");
  }
  if (t.collectives && !t.collectives->rank.empty()) {
    body += section("collectives", "Collective timeline",
                    "Each rank's part of each collective (or phase of a workload), from its first op's start to its "
                    "last op's end.",
                    collective_timeline_chart(*t.collectives));
  } else {
    body += missing("collectives", "Collective timeline", "no /collectives");
  }
  if (t.samples && !t.samples->time_ps.empty()) {
    body += section("links", "Link utilisation",
                    "The share of each link direction's line rate used in each sample (averaged into at most 200 "
                    "columns), for the 32 directions busiest on average.",
                    utilisation_heatmap(*t.samples));
  } else {
    body += missing("links", "Link utilisation", "no /samples (packet or flow runs with --hdf5 record them)");
  }
  if (t.fct_ps && !t.fct_ps->empty()) {
    std::vector<double> us;
    for (std::int64_t v : *t.fct_ps) us.push_back(static_cast<double>(v) / 1e6);
    body += section("fct", "Flow completion times", "The CDF of every delivered message's completion time.",
                    cdf_chart(std::move(us), "flow completion time, us"));
  } else {
    body += missing("fct", "Flow completion times", "no /flows");
  }
  const std::string subtitle = "<code>" + escape_xml(t.command.empty() ? t.file : t.command) + "</code> (collsim " +
                               escape_xml(t.version) + ", " + escape_xml(t.file) + ")";
  return page("collsim report", subtitle, body);
}

std::string validation_page(const nlohmann::json& v, const std::string& file) {
  if (!v.is_object() || !v.contains("runs") || !v["runs"].is_array())
    throw InputError::in_file(file, "not the output of collsim validate --json (no 'runs' list)");
  std::string body;
  std::size_t index = 0;
  for (const nlohmann::json& run : v["runs"]) {
    ++index;
    if (!run.is_object() || !run.contains("sizes") || !run["sizes"].is_array())
      throw InputError::in_file(file, "run " + std::to_string(index) + " has no 'sizes' list");
    std::vector<double> bytes, measured, simulated;
    std::string rows;
    for (const nlohmann::json& s : run["sizes"]) {
      if (!s.contains("bytes") || !s.contains("measured_busbw") || !s.contains("simulated_busbw"))
        throw InputError::in_file(file, "a size of run " + std::to_string(index) +
                                            " lacks bytes, measured_busbw or simulated_busbw");
      bytes.push_back(s["bytes"].get<double>());
      measured.push_back(s["measured_busbw"].get<double>());
      simulated.push_back(s["simulated_busbw"].get<double>());
      const double error = s.value("error", 0.0);
      rows += "<tr><td>" + number(bytes.back(), 0) + "</td><td>" + number(measured.back(), 2) + "</td><td>" +
              number(simulated.back(), 2) + "</td><td>" + number(error * 100, 1) + "%</td><td style=\"text-align:left\">" +
              escape_xml(s.value("algorithm", std::string())) + "</td></tr>\n";
    }
    const std::string what = run.value("collective", std::string("run")) + " on " + run.value("system", std::string("?")) +
                             ", " + std::to_string(run.value("ranks", 0)) + " ranks";
    const std::string table = "<table><tr><th>size (B)</th><th>measured busbw</th><th>simulated busbw</th>"
                              "<th>error</th><th>simulated as</th></tr>\n" + rows + "</table>\n";
    body += section("run" + std::to_string(index), "Run " + std::to_string(index) + ": " + what,
                    "Bus bandwidth (GB/s) the log measured and collsim simulated, per size.",
                    busbw_chart(bytes, measured, simulated) + table);
  }
  std::string subtitle = escape_xml(v.value("log", file));
  if (v.contains("median_abs_error_large") && v["median_abs_error_large"].is_number())
    subtitle += "; median |error| at &gt;= 1 MiB " + number(v["median_abs_error_large"].get<double>() * 100, 1) + "%";
  return page("collsim validation report", subtitle, body);
}

}  // namespace collsim::report
