#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>

#include "collsim/common/input_error.hpp"
#include "collsim/validation/nccl_tests_log.hpp"
#include "log_tokens.hpp"

namespace collsim::validation {
namespace {

// Launchers prefix every line of a rank's output: srun "0: ", Open MPI "[1,0]<stdout>:",
// MPICH "[0] ". Removed before anything else looks at the line.
std::string_view strip_launcher_prefix(std::string_view line) {
  static const std::regex kPrefix(R"(^\s*(\d+: |\[\d+,\d+\]<std(out|err)>: ?|\[\d+\] ))");
  std::match_results<std::string_view::const_iterator> m;
  if (std::regex_search(line.begin(), line.end(), m, kPrefix)) line.remove_prefix(static_cast<std::size_t>(m.length(0)));
  return line;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

class Parser {
 public:
  Parser(std::string_view text, std::string file) : text_(text), file_(std::move(file)) {}

  LogFile parse() {
    std::size_t pos = 0;
    while (pos <= text_.size()) {
      const std::size_t end = std::min(text_.find('\n', pos), text_.size());
      std::string_view raw = text_.substr(pos, end - pos);
      if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
      ++line_no_;
      line(strip_launcher_prefix(raw));
      if (end == text_.size()) break;
      pos = end + 1;
    }
    drop_pending_row();
    finish_run();
    std::size_t rows = 0;
    for (const TestRun& r : out_.runs) rows += r.rows.size();
    if (rows == 0)
      throw InputError::in_file(file_, "no nccl-tests result row found (expected lines such as "
                                       "'    1048576    262144    float    sum    -1    309.4 ...')");
    out_.path = file_;
    return std::move(out_);
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw InputError::at_text(file_, line_no_, 1, what); }

  TestRun& run() {
    if (!current_ || closed_) {
      finish_run();
      current_.emplace();
      current_->first_line = line_no_;
      closed_ = false;
      saw_start_line_ = false;
    }
    current_->last_line = line_no_;
    return *current_;
  }
  void finish_run() {
    if (current_ && !current_->rows.empty()) out_.runs.push_back(std::move(*current_));
    current_.reset();
  }
  // A header line that can only begin a test: a new run unless the current one has not
  // printed anything that comes after it.
  TestRun& run_for_header(bool already_seen) {
    if (current_ && (already_seen || !current_->rows.empty())) closed_ = true;
    return run();
  }

  void line(std::string_view l) {
    const std::string_view t = trim(l);
    if (pending_ && continue_row(t)) return;
    if (t.find("NCCL INFO") != std::string_view::npos || t.find("NCCL WARN") != std::string_view::npos) {
      info_line(l);
      return;
    }
    if (t.empty()) return;
    if (t.front() == '#') {
      comment(t);
      return;
    }
    if (starts_with(t, "NCCL version ")) {
      run().header.nccl_version = std::string(trim(t.substr(13)));
      return;
    }
    if (t == "...") {
      TestRun& r = run();
      if (!r.columns_seen) r.devices_elided = true;
      return;
    }
    if (looks_like_row(t)) {
      row(t);
      return;
    }
    static const std::regex kProgram(R"(\b([a-z_]+_perf)(_mpi)?\b)");
    std::match_results<std::string_view::const_iterator> m;
    if (std::regex_search(t.begin(), t.end(), m, kProgram)) {
      TestRun& r = run_for_header(current_ && current_->command.has_value());
      r.command = std::string(t);
      if (!r.header.program) r.header.program = m[1].str();
    }
    // Anything else (shell prompts, MPI warnings, banners) is not part of the test's output.
  }

  void comment(std::string_view t) {
    const std::size_t hashes = t.find_first_not_of('#');
    const std::string_view body = trim(hashes == std::string_view::npos ? std::string_view{} : t.substr(hashes));
    if (body.empty()) return;
    if (starts_with(body, "nccl-tests version")) return version_line(body);
    if (starts_with(body, "Collective test starting:")) {
      TestRun& r = run_for_header(current_ && (current_->header.threads || saw_start_line_));
      r.header.program = std::string(trim(body.substr(25)));
      saw_start_line_ = true;
      return;
    }
    if (starts_with(body, "Collective test concluded")) {
      if (current_) closed_ = true;
      return;
    }
    if (starts_with(body, "nThread")) return header_line(body);
    if (starts_with(body, "Using devices")) return;
    if (starts_with(body, "Rank ")) return device_line(body);
    if (starts_with(body, "Out of bounds values")) return out_of_bounds(body);
    if (starts_with(body, "Avg bus bandwidth")) return avg_busbw(body);
    if (starts_with(body, "size_label")) {
      run().format = LogFormat::SummaryTable;
      return;
    }
    if (body.find("size") != std::string_view::npos && body.find("count") != std::string_view::npos &&
        body.find("type") != std::string_view::npos) {
      TestRun& r = run();
      const bool has_root = body.find("root") != std::string_view::npos;
      const bool has_error = body.find("error") != std::string_view::npos;
      r.format = has_root || !has_error ? LogFormat::Modern : LogFormat::Old;
      r.columns_seen = true;
      return;
    }
    if (body.find("out-of-place") != std::string_view::npos || starts_with(body, "(B)")) return;
    run().notes.emplace_back(body);
  }

  void version_line(std::string_view body) {
    TestRun& r = run_for_header(current_ && (current_->header.tests_version || current_->header.threads || saw_start_line_));
    const std::vector<std::string_view> tok = split(body);
    if (tok.size() < 3) fail("expected '# nccl-tests version X nccl-headers=N nccl-library=N'");
    r.header.tests_version = std::string(tok[2]);
    for (std::string_view w : tok) {
      if (starts_with(w, "nccl-headers=")) r.header.nccl_headers = to_int(w.substr(13), "nccl-headers");
      if (starts_with(w, "nccl-library=")) r.header.nccl_library = to_int(w.substr(13), "nccl-library");
    }
  }

  void header_line(std::string_view body) {
    TestRun& r = run_for_header(current_ && current_->header.threads.has_value());
    Header& h = r.header;
    h.line = line_no_;
    const std::vector<std::string_view> tok = split(body);
    for (std::size_t i = 0; i + 1 < tok.size(); ++i) {
      std::string key(tok[i]);
      if (key == "iters:" && i > 0 && (tok[i - 1] == "warmup" || tok[i - 1] == "agg")) key = std::string(tok[i - 1]) + " " + key;
      const std::string_view v = tok[i + 1];
      if (key == "nThread") h.threads = to_int(v, "nThread");
      else if (key == "nGpus") h.gpus = to_int(v, "nGpus");
      else if (key == "minBytes") h.min_bytes = to_u64(v, "minBytes");
      else if (key == "maxBytes") h.max_bytes = to_u64(v, "maxBytes");
      else if (key == "step:") h.step = std::string(v);
      else if (key == "warmup iters:") h.warmup_iters = to_int(v, "warmup iters");
      else if (key == "iters:") h.iters = to_int(v, "iters");
      else if (key == "agg iters:") h.agg_iters = to_int(v, "agg iters");
      else if (key == "validation:") h.validation = to_int(v, "validation");
      else if (key == "graph:") h.graph = to_int(v, "graph");
    }
    if (!h.threads || !h.gpus) fail("expected '# nThread N nGpus N minBytes N maxBytes N ...'");
  }

  void device_line(std::string_view body) {
    static const std::regex kDevice(
        R"(^Rank\s+(\d+)\s+(?:Group\s+(\d+)\s+)?Pid\s+(\d+)\s+on\s+(\S+)\s+device\s+(\d+)\s+\[([^\]]*)\]\s*(.*)$)");
    std::match_results<std::string_view::const_iterator> m;
    if (!std::regex_match(body.begin(), body.end(), m, kDevice))
      fail("expected a device line '#  Rank R Group G Pid P on HOST device D [BUS] GPU NAME'");
    TestRun& r = run();
    DeviceLine d;
    d.rank = to_int(m[1].str(), "Rank");
    if (m[2].matched) d.group = to_int(m[2].str(), "Group");
    d.pid = to_int(m[3].str(), "Pid");
    d.host = m[4].str();
    d.device = to_int(m[5].str(), "device");
    d.bus_id = m[6].str();
    d.gpu = std::string(trim(m[7].str()));
    d.line = line_no_;
    r.devices.push_back(std::move(d));
  }

  void out_of_bounds(std::string_view body) {
    static const std::regex kOob(R"(^Out of bounds values\s*:\s*(\d+)\s*(OK|FAILED)?\s*$)");
    std::match_results<std::string_view::const_iterator> m;
    if (!std::regex_match(body.begin(), body.end(), m, kOob)) fail("expected '# Out of bounds values : N OK|FAILED'");
    TestRun& r = run();
    r.footer.out_of_bounds = to_int(m[1].str(), "out of bounds values");
    if (m[2].matched) r.footer.out_of_bounds_ok = m[2].str() == "OK";
  }

  void avg_busbw(std::string_view body) {
    static const std::regex kAvg(R"(^Avg bus bandwidth\s*:\s*(\S+).*$)");
    std::match_results<std::string_view::const_iterator> m;
    if (!std::regex_match(body.begin(), body.end(), m, kAvg)) fail("expected '# Avg bus bandwidth : X'");
    TestRun& r = run();
    r.footer.avg_busbw_text = m[1].str();
    r.footer.avg_busbw = to_double(m[1].str(), "Avg bus bandwidth");
    r.footer.line = line_no_;
  }

  // NCCL's own log lines: facts about the communicator, and sometimes the first columns of a
  // row printed just before them (the rest of the row follows on a later line).
  void info_line(std::string_view l) {
    static const std::regex kChannels(R"((\d+) coll channels, (\d+) collnet channels, (\d+) nvls channels)");
    static const std::regex kNodes(R"(nNodes (\d+) localRanks (\d+))");
    static const std::regex kVersion(R"(NCCL INFO NCCL version (\S+))");
    std::match_results<std::string_view::const_iterator> m;
    const std::size_t start = info_prefix_start(l);
    const std::string_view before = trim(l.substr(0, start));
    if (!before.empty() && is_digit(before.front())) {
      pending_ = std::string(before);
      pending_line_ = line_no_;
    }
    const std::string_view msg = l.substr(start);
    if (!current_) run();
    TestRun& r = *current_;
    if (std::regex_search(msg.begin(), msg.end(), m, kChannels)) {
      r.info.coll_channels = to_int(m[1].str(), "coll channels");
      r.info.collnet_channels = to_int(m[2].str(), "collnet channels");
      r.info.nvls_channels = to_int(m[3].str(), "nvls channels");
    }
    if (std::regex_search(msg.begin(), msg.end(), m, kNodes)) {
      r.info.nodes = to_int(m[1].str(), "nNodes");
      r.info.local_ranks = to_int(m[2].str(), "localRanks");
    }
    if (std::regex_search(msg.begin(), msg.end(), m, kVersion)) r.header.nccl_version = m[1].str();
  }

  // Where "<host>:<pid>:<tid> [<dev>] NCCL ..." starts. A row's last column may be fused to
  // the host name ("-1gcn151:..."), so a known host name from the device lines is preferred
  // to a guess.
  std::size_t info_prefix_start(std::string_view l) const {
    const std::size_t marker = l.find(" NCCL ");
    std::size_t best = std::string_view::npos;
    if (current_) {
      for (const DeviceLine& d : current_->devices) {
        const std::size_t at = l.rfind(d.host + ":", marker);
        if (at != std::string_view::npos && (best == std::string_view::npos || at < best)) best = at;
      }
    }
    if (best != std::string_view::npos) return best;
    static const std::regex kPrefix(R"([A-Za-z][\w.\-]*:\d+:\d+ \[\d+\] NCCL )");
    std::match_results<std::string_view::const_iterator> m;
    if (std::regex_search(l.begin(), l.end(), m, kPrefix)) return static_cast<std::size_t>(m.position(0));
    return 0;
  }

  // The rest of a row whose first columns were printed before NCCL INFO lines.
  bool continue_row(std::string_view t) {
    if (t.empty() || !(is_digit(t.front()) || t.front() == '-' || t.front() == '.')) return false;
    const std::vector<std::string_view> tok = split(t);
    if (tok.size() != 8 && tok.size() != 4) return false;
    const std::string joined = *pending_ + " " + std::string(t);
    const std::size_t here = line_no_;
    line_no_ = pending_line_;
    pending_.reset();
    row(joined);
    current_->rows.back().rejoined = true;
    line_no_ = here;
    return true;
  }
  void drop_pending_row() {
    if (!pending_) return;
    line_no_ = pending_line_;
    fail("a result row starts here but its columns never follow (NCCL INFO lines cut it, and no line continues it)");
  }

  void row(std::string_view t) {
    TestRun& r = run();
    if (r.format == LogFormat::SummaryTable) return summary_row(t);
    std::vector<std::string_view> tok = split(t);
    // Which layout: a column header said so; otherwise 13 columns (or a root of -1) is modern.
    LogFormat format = r.format;
    if (r.rows.empty() && r.header.line == 0 && !format_known()) {
      format = (tok.size() >= 13 || (tok.size() > 4 && tok[4] == "-1")) ? LogFormat::Modern : LogFormat::Old;
      r.format = format;
    }
    const std::size_t lead = format == LogFormat::Modern ? 5 : 4;
    const std::size_t full = lead + 8;
    if (tok.size() < lead + 4)
      fail("expected a result row: size count type redop" + std::string(lead == 5 ? " root" : "") +
           " time algbw busbw " + (lead == 5 ? "#wrong" : "error") + " (twice), found " + std::to_string(tok.size()) +
           " column(s)");
    if (tok.size() > full)
      fail("expected " + std::to_string(full) + " columns in a result row, found " + std::to_string(tok.size()));
    ResultRow row;
    row.line = line_no_;
    row.size = to_u64(tok[0], "size");
    row.count = to_u64(tok[1], "count");
    row.type = std::string(tok[2]);
    // The old broadcast/reduce layout printed root in place of redop.
    if (lead == 5) {
      row.redop = std::string(tok[3]);
      row.root = to_int(tok[4], "root");
    } else if (is_integer(tok[3])) {
      row.root = to_int(tok[3], "root");
    } else {
      row.redop = std::string(tok[3]);
    }
    row.out_of_place = measurement(tok, lead, 4, row.truncated);
    if (tok.size() > lead + 4) row.in_place = measurement(tok, lead + 4, tok.size() - (lead + 4), row.truncated);
    else row.truncated = true;
    r.rows.push_back(std::move(row));
  }

  // Rows begin with two integers (size, count); a summary table with a size label. Other lines
  // that begin with a digit ("1st MCA variable: ...") are someone else's output.
  bool looks_like_row(std::string_view t) const {
    if (current_ && !closed_ && current_->format == LogFormat::SummaryTable) return is_digit(t.front());
    const std::vector<std::string_view> tok = split(t);
    return tok.size() >= 2 && is_integer(tok[0]) && is_integer(tok[1]);
  }

  bool format_known() const { return current_ && current_->header.line != 0; }

  Measurement measurement(const std::vector<std::string_view>& tok, std::size_t at, std::size_t n, bool& truncated) const {
    if (n < 3) fail("a result row is cut inside its in-place columns (time, algbw and busbw are needed)");
    Measurement m;
    m.time_text = std::string(tok[at]);
    m.algbw_text = std::string(tok[at + 1]);
    m.busbw_text = std::string(tok[at + 2]);
    m.time = Duration::us(to_double(tok[at], "time"));
    m.algbw = to_double(tok[at + 1], "algbw");
    m.busbw = to_double(tok[at + 2], "busbw");
    if (n < 4) {
      truncated = true;
    } else if (tok[at + 3] != "N/A") {
      m.wrong = to_double(tok[at + 3], "#wrong");
    }
    return m;
  }

  // "1K 0.04": a size label (rounded by whoever wrote the table, 65K for 64 KiB) and in-place
  // busbw. The size is the power of two nearest to the label read in binary units.
  void summary_row(std::string_view t) {
    static const std::regex kRow(R"(^(\d+(?:\.\d+)?)([KMGT]?)\s+(\d+(?:\.\d+)?)$)");
    std::match_results<std::string_view::const_iterator> m;
    if (!std::regex_match(t.begin(), t.end(), m, kRow)) fail("expected a summary-table line 'SIZE[K|M|G] BUSBW'");
    const double number = to_double(m[1].str(), "size");
    const std::string unit = m[2].str();
    const int exp = unit.empty() ? 0 : unit == "K" ? 10 : unit == "M" ? 20 : unit == "G" ? 30 : 40;
    const double bytes = number * std::ldexp(1.0, exp);
    if (bytes < 1) fail("a summary-table size must be at least 1 byte");
    ResultRow row;
    row.line = line_no_;
    row.size = std::uint64_t{1} << static_cast<int>(std::lround(std::log2(bytes)));
    Measurement in;
    in.busbw_text = m[3].str();
    in.busbw = to_double(in.busbw_text, "busbw");
    in.derived = true;
    row.in_place = in;
    run().rows.push_back(std::move(row));
  }

  int to_int(std::string_view s, const char* what) const {
    if (!is_integer(s)) fail(std::string("expected an integer for ") + what + ", found '" + std::string(s) + "'");
    try {
      return std::stoi(std::string(s));
    } catch (const std::out_of_range&) {
      fail(std::string(what) + " '" + std::string(s) + "' is out of range");
    }
  }
  std::uint64_t to_u64(std::string_view s, const char* what) const {
    if (s.empty() || !std::all_of(s.begin(), s.end(), is_digit))
      fail(std::string("expected a non-negative integer for ") + what + ", found '" + std::string(s) + "'");
    try {
      return std::stoull(std::string(s));
    } catch (const std::out_of_range&) {
      fail(std::string(what) + " '" + std::string(s) + "' is out of range");
    }
  }
  double to_double(std::string_view s, const char* what) const {
    const std::optional<double> v = parse_number(s);
    if (!v) fail(std::string("expected a number for ") + what + ", found '" + std::string(s) + "'");
    return *v;
  }

  std::string_view text_;
  std::string file_;
  std::size_t line_no_ = 0;
  LogFile out_;
  std::optional<TestRun> current_;
  bool closed_ = false;
  bool saw_start_line_ = false;
  std::optional<std::string> pending_;
  std::size_t pending_line_ = 0;
};

}  // namespace

std::string_view to_string(LogFormat f) {
  switch (f) {
    case LogFormat::Modern: return "modern";
    case LogFormat::Old: return "old";
    case LogFormat::SummaryTable: return "summary-table";
  }
  return "modern";
}

LogFile parse_nccl_tests_log(std::string_view text, const std::string& file_name) {
  return Parser(text, file_name).parse();
}

LogFile read_nccl_tests_log(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError::in_file(path, "cannot open the file");
  std::ostringstream s;
  s << in.rdbuf();
  return parse_nccl_tests_log(s.str(), path);
}

std::optional<collectives::Collective> collective_from_program(std::string_view program) {
  std::string p(program);
  for (const char* suffix : {"_mpi", "_perf"}) {
    const std::string s(suffix);
    if (p.size() > s.size() && p.compare(p.size() - s.size(), s.size(), s) == 0) p.resize(p.size() - s.size());
  }
  return collectives::collective_from_name(p);
}

}  // namespace collsim::validation
