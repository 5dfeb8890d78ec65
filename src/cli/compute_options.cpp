#include "compute_options.hpp"

#include <algorithm>
#include <iomanip>
#include <sstream>

#include "duration_option.hpp"

namespace collsim::cli {

namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, sep)) out.push_back(part);
  if (!text.empty() && text.back() == sep) out.emplace_back();
  return out;
}

std::uint32_t rank_field(const std::string& option, const std::string& text) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos)
    throw CLI::ValidationError(option, "expected a rank (a whole number), not '" + text + "'");
  return static_cast<std::uint32_t>(std::stoul(text));
}

double factor_field(const std::string& option, const std::string& text) {
  std::istringstream in(text);
  double v = 0;
  std::string rest;
  if (!(in >> v) || (in >> rest) || !(v > 0 && v <= 1000))
    throw CLI::ValidationError(option, "expected a time factor above 0 (2: twice as slow), not '" + text + "'");
  return v;
}

struct Slowest {
  goal::RankId rank;
  double factor;
};

std::vector<Slowest> off_nominal(const exec::ComputeVariation& v, std::size_t most) {
  std::vector<Slowest> out;
  for (goal::RankId r = 0; r < v.num_ranks(); ++r)
    if (v.speed_factor(r) != 1.0) out.push_back({r, v.speed_factor(r)});
  std::stable_sort(out.begin(), out.end(), [](const Slowest& a, const Slowest& b) { return a.factor > b.factor; });
  if (out.size() > most) out.resize(most);
  return out;
}

std::size_t count_off_nominal(const exec::ComputeVariation& v) {
  std::size_t n = 0;
  for (goal::RankId r = 0; r < v.num_ranks(); ++r) n += v.speed_factor(r) != 1.0;
  return n;
}

}  // namespace

void ComputeCliOptions::add_to(CLI::App& cmd) {
  const std::string group = "Uneven compute";
  cmd.add_option("--slow-gpu", slow_gpu, "A straggler: rank RANK computes FACTOR times slower (3:1.5); repeatable")
      ->type_name("RANK:FACTOR")
      ->group(group);
  cmd.add_option("--slow-gpus", slow_gpus, "K ranks, chosen by --variation-seed, compute FACTOR times slower")
      ->type_name("K:FACTOR")
      ->group(group);
  cmd.add_option("--gpu-speed", gpu_speed, "A time factor per rank drawn from normal:SIGMA or lognormal:SIGMA (mean 1)")
      ->group(group);
  cmd.add_option("--op-noise", op_noise, "A time factor per calc op drawn from normal:SIGMA or lognormal:SIGMA")
      ->group(group);
  cmd.add_option("--noise-trace", noise_trace,
                 "LogGOPSim noise trace ('<start> <duration>' ns per line, repeating): detours that lengthen the "
                 "calcs they meet, each rank from its own offset")
      ->check(CLI::ExistingFile)
      ->group(group);
  cmd.add_flag("--noise-cosched", noise_cosched, "Every rank meets the noise trace from the same offset")->group(group);
  cmd.add_option("--stall", stall, "Rank RANK's compute stops at AT for FOR (5:10ms:2ms); repeatable")
      ->type_name("RANK:AT:FOR")
      ->group(group);
  cmd.add_flag("--straggler-report", straggler_report,
               "Run again without each straggler, noise or stall in turn: what each costs the step and the ranks "
               "it delays most (run only)")
      ->group(group);
  cmd.add_option("--variation-seed", seed, "Seed of the draws of --slow-gpus, --gpu-speed, --op-noise, --noise-trace")
      ->capture_default_str()
      ->check(whole_number(UINT64_MAX))
      ->group(group);
}

bool ComputeCliOptions::any() const {
  return !slow_gpu.empty() || !slow_gpus.empty() || !gpu_speed.empty() || !op_noise.empty() || !noise_trace.empty() ||
         !stall.empty();
}

exec::ComputeVariationSpec ComputeCliOptions::spec() const {
  exec::ComputeVariationSpec s;
  s.seed = seed;
  for (const std::string& text : slow_gpu) {
    const std::vector<std::string> f = split(text, ':');
    if (f.size() != 2) throw CLI::ValidationError("--slow-gpu", "expected RANK:FACTOR, not '" + text + "'");
    s.slow_ranks.emplace_back(rank_field("--slow-gpu", f[0]), factor_field("--slow-gpu", f[1]));
  }
  if (!slow_gpus.empty()) {
    const std::vector<std::string> f = split(slow_gpus, ':');
    if (f.size() != 2) throw CLI::ValidationError("--slow-gpus", "expected K:FACTOR, not '" + slow_gpus + "'");
    s.random_slow = rank_field("--slow-gpus", f[0]);
    s.random_slow_factor = factor_field("--slow-gpus", f[1]);
  }
  std::string error;
  if (!gpu_speed.empty() && !(s.gpu_speed = exec::parse_factor_distribution(gpu_speed, &error)))
    throw CLI::ValidationError("--gpu-speed", error);
  if (!op_noise.empty() && !(s.op_noise = exec::parse_factor_distribution(op_noise, &error)))
    throw CLI::ValidationError("--op-noise", error);
  if (!noise_trace.empty()) {
    if (!trace_read) trace_read = exec::read_noise_trace(noise_trace);
    s.noise_trace = trace_read;
  }
  s.noise_cosched = noise_cosched;
  if (noise_cosched && noise_trace.empty()) throw CLI::ValidationError("--noise-cosched", "needs --noise-trace");
  for (const std::string& text : stall) {
    const std::vector<std::string> f = split(text, ':');
    if (f.size() != 3) throw CLI::ValidationError("--stall", "expected RANK:AT:FOR (5:10ms:2ms), not '" + text + "'");
    s.stalls.push_back({rank_field("--stall", f[0]), parse_duration_option("--stall", f[1]),
                        parse_duration_option("--stall", f[2])});
  }
  return s;
}

std::shared_ptr<const exec::ComputeVariation> ComputeCliOptions::variation(std::uint32_t ranks) const {
  if (!any()) return nullptr;
  try {
    return std::make_shared<const exec::ComputeVariation>(replaced ? *replaced : spec(), ranks);
  } catch (const std::invalid_argument& e) {
    throw CLI::ValidationError("--slow-gpu/--stall", e.what());
  }
}

nlohmann::json compute_variation_json(const ComputeCliOptions& o, const exec::ComputeVariation& v) {
  nlohmann::json slow = nlohmann::json::array();
  for (const Slowest& s : off_nominal(v, 16)) slow.push_back({{"rank", s.rank}, {"factor", s.factor}});
  nlohmann::json j = {{"ranks_off_nominal", count_off_nominal(v)},
                      {"slowest", slow},
                      {"op_noise", o.op_noise},
                      {"gpu_speed", o.gpu_speed},
                      {"noise_trace", o.noise_trace},
                      {"noise_cosched", o.noise_cosched},
                      {"stalls", o.stall},
                      {"seed", o.seed}};
  return {{"compute_variation", j}};
}

nlohmann::json straggler_json(const std::vector<StragglerCost>& costs) {
  nlohmann::json out = nlohmann::json::array();
  for (const StragglerCost& c : costs) {
    nlohmann::json ranks = nlohmann::json::array();
    for (const auto& [rank, delay] : c.most_delayed)
      ranks.push_back({{"rank", rank}, {"delay_ps", delay.picoseconds()}});
    out.push_back({{"source", c.label}, {"step_delay_ps", c.step_delay.picoseconds()}, {"most_delayed", ranks}});
  }
  return {{"stragglers", out}};
}

std::string straggler_lines(const std::vector<StragglerCost>& costs) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(3);
  for (const StragglerCost& c : costs) {
    out << "straggler     " << c.label << ": step +" << to_duration(c.step_delay).microseconds() << " us";
    if (!c.most_delayed.empty()) {
      out << "; delays";
      for (std::size_t i = 0; i < c.most_delayed.size() && i < 4; ++i)
        out << (i ? "," : "") << " rank " << c.most_delayed[i].first << " +"
            << to_duration(c.most_delayed[i].second).microseconds() << " us";
    }
    out << "\n";
  }
  return out.str();
}

std::string compute_variation_line(const ComputeCliOptions& o, const exec::ComputeVariation& v) {
  std::ostringstream out;
  out << "compute       ";
  const std::size_t n = count_off_nominal(v);
  const std::vector<Slowest> slow = off_nominal(v, 4);
  std::string sep;
  if (n > 0) {
    out << n << " rank(s) off nominal speed (";
    for (std::size_t i = 0; i < slow.size(); ++i) out << (i ? ", " : "") << "rank " << slow[i].rank << " x" << slow[i].factor;
    out << (n > slow.size() ? ", ..." : "") << ")";
    sep = "; ";
  }
  if (!o.op_noise.empty()) {
    out << sep << "op noise " << o.op_noise;
    sep = "; ";
  }
  if (!o.noise_trace.empty()) {
    out << sep << "noise trace " << o.noise_trace << (o.noise_cosched ? " (same offset)" : " (own offsets)");
    sep = "; ";
  }
  if (!o.stall.empty()) out << sep << o.stall.size() << " stall(s)";
  out << " (seed " << o.seed << ")";
  return out.str();
}

}  // namespace collsim::cli
