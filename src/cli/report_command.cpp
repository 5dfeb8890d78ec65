#include "report_command.hpp"

#include <CLI/CLI.hpp>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "collsim/common/input_error.hpp"
#include "collsim/report/report_page.hpp"
#include "collsim/report/result_tables.hpp"

namespace collsim::cli {

namespace {

struct ReportOptions {
  std::string input;
  std::string output = "report.html";
};

// A validate comparison is JSON (it starts with '{'); anything else is read as a result file.
bool looks_like_json(const std::string& path) {
  std::ifstream f(path);
  char c = 0;
  while (f.get(c))
    if (!std::isspace(static_cast<unsigned char>(c))) return c == '{';
  return false;
}

void run_report(const ReportOptions& o) {
  std::string html;
  if (looks_like_json(o.input)) {
    std::ifstream f(o.input);
    const nlohmann::json v = nlohmann::json::parse(f, nullptr, false);
    if (v.is_discarded()) throw InputError::in_file(o.input, "starts like JSON but is not valid JSON");
    html = report::validation_page(v, o.input);
  } else {
    html = report::result_page(report::read_result_tables(o.input));
  }
  std::ofstream out(o.output);
  out << html;
  if (!out) throw std::runtime_error("cannot write " + o.output);
  std::cout << "report        " << o.output << " (" << html.size() / 1024 << " KiB, self-contained: open it in any browser)\n";
}

}  // namespace

void add_report_command(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand("report", "Write a result (--hdf5 file) or a validate --json output as one HTML page");
  cmd->add_option("INPUT", o->input, "A result file written with --hdf5, or the JSON of validate --json")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("-o,--output", o->output, "The HTML page to write")->capture_default_str();
  cmd->callback([o] { run_report(*o); });
}

}  // namespace collsim::cli
