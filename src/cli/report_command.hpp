#pragma once

namespace CLI {
class App;
}

namespace collsim::cli {

// `collsim report RESULT.h5|VALIDATE.json -o report.html`: one self-contained HTML page.
void add_report_command(CLI::App& app);

}  // namespace collsim::cli
