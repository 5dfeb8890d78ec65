#include "bench_command.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "collsim/common/sim_time.hpp"
#include "collsim/pdes_models/phold.hpp"
#include "collsim/pdes_models/token_torus.hpp"
#include "duration_option.hpp"
#include "parallel_context.hpp"
#include "parallel_run_json.hpp"

namespace collsim::cli {

namespace {

// Options every kernel benchmark shares.
struct KernelOptions {
  std::string end;
  std::string partition;
  std::string queue = "wheel";
  std::uint64_t seed = 1;
  bool json = false;

  void add_to(CLI::App& cmd) {
    cmd.add_option("--end", end, "Simulated time to stop at, e.g. 1ms")->capture_default_str();
    cmd.add_option("--seed", seed, "Random seed")->capture_default_str();
    cmd.add_option("--partition", partition, "LP placement over ranks: block, round-robin, random, metis")
        ->capture_default_str();
    cmd.add_option("--queue", queue, kQueueOptionHelp)->capture_default_str();
    cmd.add_flag("--json", json, "Print one JSON object");
  }
  pdes::PartitionMethod partition_method() const { return parse_partition_option(partition); }
  pdes::QueueKind queue_kind() const { return parse_queue_option(queue); }
};

std::string hex(std::uint64_t v) {
  char buf[19];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

double sync_us_per_window(const pdes::RunStats& s) {
  if (s.windows == 0) return 0;
  double sync_total = 0;
  for (const auto& r : s.per_rank) sync_total += r.sync_s;
  return 1e6 * sync_total / static_cast<double>(s.per_rank.empty() ? 1 : s.per_rank.size()) / static_cast<double>(s.windows);
}

nlohmann::json stats_json(const pdes::RunStats& s, std::uint64_t checksum) {
  nlohmann::json j = parallel_run_json(s);
  j.update({{"events", s.events},
            {"checksum", hex(checksum)},
            {"wall_s", s.wall_s},
            {"events_per_s", s.events_per_s},
            {"sync_fraction", s.sync_fraction},
            {"sync_us_per_window", sync_us_per_window(s)},
            {"last_event_ps", s.end_time.picoseconds()}});
  return j;
}

void print_stats(const KernelOptions& o, const pdes::RunStats& s, std::uint64_t checksum) {
  std::cout << std::fixed << std::setprecision(3)
            << "events        " << s.events << " in " << s.wall_s << " s = " << s.events_per_s / 1e6 << " M events/s\n"
            << "ranks         " << s.ranks << " (" << o.partition << " partition, " << o.queue << " queue), lookahead "
            << format_duration(s.lookahead) << "\n"
            << "windows       " << s.windows << ", sync " << 100 * s.sync_fraction << " % of wall time, "
            << sync_us_per_window(s) << " us per window\n"
            << "cross-rank    " << s.remote_events << " events\n"
            << "balance       busiest rank " << s.imbalance << " x the mean\n"
            << "checksum      " << hex(checksum) << std::endl;
}

// Runs a model on the ranks of this job; only rank 0 prints.
template <typename Run, typename Print>
void run_on_ranks(Run&& run, Print&& print) {
  ParallelContext parallel;
  const int rc = parallel.guarded([&] {
    const auto result = run(parallel.transport());
    if (parallel.is_root()) print(result);
  });
  if (rc != 0) throw CLI::RuntimeError(rc);
}

void add_phold(CLI::App& bench) {
  struct Options {
    pdes_models::PholdConfig config;
    KernelOptions kernel{"1ms", "block"};
    std::string lookahead = "1us";
    std::string mean_delay = "100ns";
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = bench.add_subcommand(
      "phold", "PHOLD: LPs pass events to random LPs; measures events/s and synchronisation under mpirun");
  cmd->add_option("--lps", o->config.lps, "Number of LPs")->capture_default_str()->check(whole_number(UINT32_MAX, 1));
  cmd->add_option("--events-per-lp", o->config.events_per_lp, "Events each LP keeps in flight")->capture_default_str();
  cmd->add_option("--remote", o->config.remote, "Probability an event goes to a random LP rather than back to its sender")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--lookahead", o->lookahead, "Minimum delay of every event, e.g. 1us")->capture_default_str();
  cmd->add_option("--mean-delay", o->mean_delay, "Mean of the exponential delay added to the lookahead")->capture_default_str();
  o->kernel.add_to(*cmd);
  cmd->callback([o] {
    auto& c = o->config;
    c.lookahead = parse_duration_option("--lookahead", o->lookahead);
    c.mean_delay = parse_duration_option("--mean-delay", o->mean_delay);
    if (c.lookahead + c.mean_delay <= SimTime::zero())
      throw CLI::ValidationError("--lookahead", "and --mean-delay are both 0: simulated time would never advance");
    c.end = parse_duration_option("--end", o->kernel.end);
    c.seed = o->kernel.seed;
    c.partition = o->kernel.partition_method();
    c.queue = o->kernel.queue_kind();
    run_on_ranks([&](pdes::Transport& t) { return pdes_models::run_phold(c, t); },
                 [&](const pdes_models::PholdResult& r) {
                   if (o->kernel.json) {
                     nlohmann::json j = stats_json(r.stats, r.checksum);
                     j.update({{"model", "phold"}, {"lps", c.lps}, {"events_per_lp", c.events_per_lp},
                               {"remote", c.remote}, {"mean_delay_ps", c.mean_delay.picoseconds()},
                               {"end_ps", c.end.picoseconds()}, {"seed", c.seed},
                               {"partition", o->kernel.partition}, {"queue", o->kernel.queue}});
                     std::cout << j.dump(2) << std::endl;
                     return;
                   }
                   std::cout << "PHOLD         " << c.lps << " LPs x " << c.events_per_lp << " events, remote "
                             << c.remote << ", delay " << o->lookahead << " + exp(" << o->mean_delay << "), until "
                             << o->kernel.end << ", seed " << c.seed << "\n";
                   print_stats(o->kernel, r.stats, r.checksum);
                 });
  });
}

void add_torus(CLI::App& bench) {
  struct Options {
    pdes_models::TokenTorusConfig config;
    KernelOptions kernel{"200us", "metis"};
    std::string x_latency = "500ns", y_latency = "700ns", service = "60ns", think = "2us";
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = bench.add_subcommand(
      "torus", "Token-routing torus: routers with FIFO service and attached hosts; a second model for the kernel");
  cmd->add_option("--width", o->config.width, "Routers per row")->capture_default_str()->check(whole_number(UINT32_MAX, 1));
  cmd->add_option("--height", o->config.height, "Rows")->capture_default_str()->check(whole_number(UINT32_MAX, 1));
  cmd->add_option("--x-latency", o->x_latency, "Latency of links along X")->capture_default_str();
  cmd->add_option("--y-latency", o->y_latency, "Latency of links along Y")->capture_default_str();
  cmd->add_option("--service", o->service, "A router's time per token")->capture_default_str();
  cmd->add_option("--think", o->think, "A host's mean time between tokens")->capture_default_str();
  cmd->add_option("--tokens-per-host", o->config.tokens_per_host, "Tokens each host keeps in circulation")
      ->capture_default_str();
  o->kernel.add_to(*cmd);
  cmd->callback([o] {
    auto& c = o->config;
    c.x_latency = parse_duration_option("--x-latency", o->x_latency);
    c.y_latency = parse_duration_option("--y-latency", o->y_latency);
    c.service = parse_duration_option("--service", o->service);
    c.mean_think = parse_duration_option("--think", o->think);
    c.end = parse_duration_option("--end", o->kernel.end);
    c.seed = o->kernel.seed;
    c.partition = o->kernel.partition_method();
    c.queue = o->kernel.queue_kind();
    run_on_ranks([&](pdes::Transport& t) { return pdes_models::run_token_torus(c, t); },
                 [&](const pdes_models::TokenTorusResult& r) {
                   if (o->kernel.json) {
                     nlohmann::json j = stats_json(r.stats, r.checksum);
                     j.update({{"model", "torus"}, {"width", c.width}, {"height", c.height},
                               {"delivered", r.delivered}, {"mean_hops", r.mean_hops},
                               {"end_ps", c.end.picoseconds()}, {"seed", c.seed},
                               {"partition", o->kernel.partition}, {"queue", o->kernel.queue}});
                     std::cout << j.dump(2) << std::endl;
                     return;
                   }
                   std::cout << "torus         " << c.width << " x " << c.height << " routers, links " << o->x_latency
                             << " / " << o->y_latency << ", service " << o->service << ", until " << o->kernel.end
                             << "\n"
                             << "tokens        " << r.delivered << " delivered, " << std::setprecision(2) << r.mean_hops
                             << " hops on average\n";
                   print_stats(o->kernel, r.stats, r.checksum);
                 });
  });
}

}  // namespace

void add_bench_command(CLI::App& app) {
  CLI::App* bench = app.add_subcommand("bench", "Built-in benchmark models of the simulation kernel");
  bench->require_subcommand(1);
  add_phold(*bench);
  add_torus(*bench);
}

}  // namespace collsim::cli
