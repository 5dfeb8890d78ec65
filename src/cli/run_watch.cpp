#include "run_watch.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "collsim/status/link_ranking.hpp"
#include "collsim/status/status_routes.hpp"
#include "collsim/status/status_server.hpp"
#include "run_record.hpp"

namespace collsim::cli {
namespace {

constexpr double kPublishEvery_s = 0.1;
// Measuring links is a pass over every port (and a gather under MPI): not more often than this.
constexpr double kLinksEvery_s = 0.5;
// A read of two small /proc files: cheap, but not for every progress call (every few ms).
constexpr double kMemoryEvery_s = 0.5;

double since(std::chrono::steady_clock::time_point t, std::chrono::steady_clock::time_point now) {
  return std::chrono::duration<double>(now - t).count();
}

std::string sim_time_text(SimTime t) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(3);
  const double ps = static_cast<double>(t.picoseconds());
  if (ps >= 1e12) s << ps / 1e12 << " s";
  else if (ps >= 1e9) s << ps / 1e9 << " ms";
  else s << ps / 1e6 << " us";
  return s.str();
}

std::string duration_text(double s) {
  std::ostringstream out;
  if (s < 90) out << static_cast<int>(s + 0.5) << " s";
  else if (s < 5400) out << static_cast<int>(s / 60 + 0.5) << " min";
  else out << static_cast<int>(s / 3600 * 10 + 0.5) / 10.0 << " h";
  return out.str();
}

}  // namespace

RunWatch::RunWatch(const ObserveCliOptions& options, bool is_root, std::uint32_t ranks, const topo::Topology* topology,
                   std::string work_name, std::uint64_t work_total, bool estimated)
    : options_(options),
      is_root_(is_root),
      ranks_(ranks),
      topology_(topology),
      work_name_(std::move(work_name)),
      work_total_(work_total),
      estimated_(estimated),
      tty_(isatty(STDERR_FILENO) == 1),
      print_every_s_(options.progress_every_s(tty_)),
      exceptions_at_start_(std::uncaught_exceptions()) {
  last_print_ = last_publish_ = Clock::now();
  if (is_root_) {
    status::RunStatus s;
    s.ops_total = work_total_;
    s.ranks = ranks_;
    board_.publish(s);
  }
  if (is_root_ && options_.status_port >= 0) {
    server_ = std::make_unique<status::StatusServer>(board_, options_.status_bind,
                                                     static_cast<std::uint16_t>(options_.status_port));
    std::cerr << "collsim: status at http://" << server_->address() << "/status" << std::endl;
  }
  if (is_root_ && options_.status_port >= 0 && topology_ != nullptr) directions_ = link_directions(*topology_);
}

RunWatch::~RunWatch() {
  if (!server_) return;
  if (std::uncaught_exceptions() > exceptions_at_start_ || !finished_) publish(last_, "failed");
  const double linger = options_.linger_s();
  if (linger > 0) std::this_thread::sleep_for(std::chrono::duration<double>(linger));
}

void RunWatch::publish(const pdes::RunProgress& p, const char* state) {
  status::RunStatus s;
  s.sim_time_ps = p.sim_time.picoseconds();
  s.events = p.events;
  s.events_per_s = p.wall_s > 0 ? static_cast<double>(p.events) / p.wall_s : 0;
  s.ops_completed = p.work_done;
  s.ops_total = work_total_;
  s.ranks = ranks_;
  s.wall_s = p.wall_s;
  s.state = state;
  board_.publish(s);
}

void RunWatch::print(const pdes::RunProgress& p, bool last) {
  std::ostringstream line;
  line.setf(std::ios::fixed);
  line.precision(1);
  // validate and calibrate run one simulation per size, each from time 0: no clock to show.
  if (p.sim_time > SimTime{}) line << "sim " << sim_time_text(p.sim_time) << " | ";
  line << work_name_ << " " << p.work_done;
  if (work_total_ > 0)
    line << "/" << (estimated_ ? "~" : "") << work_total_ << " ("
         << std::min(100.0, 100.0 * static_cast<double>(p.work_done) / static_cast<double>(work_total_)) << "%)";
  line << " | " << (p.wall_s > 0 ? static_cast<double>(p.events) / p.wall_s / 1e6 : 0.0) << " M events/s | "
       << duration_text(p.wall_s) << " elapsed";
  if (!last && work_total_ > 0 && p.work_done > 0 && p.work_done < work_total_)
    line << ", about " << duration_text(p.wall_s * static_cast<double>(work_total_ - p.work_done) /
                                        static_cast<double>(p.work_done))
         << " left";
  if (tty_) {
    // Redraw in place; the last state stays on screen above the summary.
    std::cerr << "\r\033[K" << line.str() << (last ? "\n" : "") << std::flush;
  } else {
    std::cerr << "collsim: progress: " << line.str() << std::endl;
  }
  printed_line_ = true;
}

void RunWatch::on_progress(const pdes::RunProgress& p) {
  const auto now = Clock::now();
  // Every rank watches its own machine: on a cluster, one that runs short ends the job.
  if (since(last_memory_check_, now) >= kMemoryEvery_s) {
    last_memory_check_ = now;
    if (const std::optional<std::string> shortage = memory_.shortage()) {
      std::ostringstream where;
      where << "out of memory at sim " << sim_time_text(p.sim_time) << " with " << p.work_done << " " << work_name_;
      if (work_total_ > 0) where << " of " << (estimated_ ? "about " : "") << work_total_;
      throw std::runtime_error(where.str() + " done: " + *shortage +
                               ". Run it on a machine with more memory, on several machines with mpirun, or make it "
                               "smaller");
    }
  }
  if (!is_root_) return;
  last_ = p;
  if (server_ && since(last_publish_, now) >= kPublishEvery_s) {
    last_publish_ = now;
    publish(p, "running");
  }
  if (options_.quiet) return;
  if (since(last_print_, now) >= print_every_s_) {
    last_print_ = now;
    print(p, false);
  }
}

bool RunWatch::wants_collective_point() {
  if (!is_root_ || !server_ || topology_ == nullptr || !board_.links_requested()) return false;
  return since(last_links_, Clock::now()) >= kLinksEvery_s || last_links_ == Clock::time_point{};
}

void RunWatch::on_collective_point() {
  const std::vector<std::uint64_t> bytes = measure_links();  // every rank takes part
  if (!is_root_ || topology_ == nullptr || bytes.empty()) return;
  last_links_ = Clock::now();
  const double seconds = static_cast<double>(last_.sim_time.picoseconds()) / 1e12;
  std::vector<status::LinkLoad> loads;
  loads.reserve(bytes.size());
  for (std::size_t slot = 0; slot < bytes.size() && slot < directions_.size(); ++slot) {
    const out::LinkDirection& d = directions_[slot];
    const double capacity = static_cast<double>(d.bandwidth_bps) / 8 * seconds;
    loads.push_back({d.from + " -> " + d.to, bytes[slot],
                     capacity > 0 ? std::min(1.0, static_cast<double>(bytes[slot]) / capacity) : 0.0});
  }
  // Readers copy the list under the board's lock: keep no more than they may ask for.
  board_.publish_links(status::most_utilised(std::move(loads), status::kMaxTopLinks), last_.sim_time.picoseconds());
}

void RunWatch::advance(std::uint64_t work, std::uint64_t events) {
  swept_.work_done += work;
  swept_.events += events;
  swept_.wall_s = since(started_, Clock::now());
  on_progress(swept_);
}

void RunWatch::finish() {
  swept_.wall_s = since(started_, Clock::now());
  on_finish(swept_);
}

void RunWatch::on_finish(const pdes::RunProgress& p) {
  last_ = p;
  // A last measurement of links for /links/top, now that nothing moves (every rank decides
  // alike: the option is the same everywhere).
  if (options_.status_port >= 0 && topology_ != nullptr) on_collective_point();
  if (!is_root_) return;
  finished_ = true;
  if (server_) publish(p, "finished");
  // A run short enough never to have shown a line needs no final one.
  if (!options_.quiet && printed_line_) print(p, true);
}

}  // namespace collsim::cli
