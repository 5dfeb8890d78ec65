#include "collsim/validation/run_facts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <regex>
#include <set>

#include "collsim/validation/bandwidth_formulas.hpp"
#include "log_tokens.hpp"

namespace collsim::validation {
namespace {

// The row whose bandwidths are printed with the most significant digits.
const Measurement* best_measurement(const TestRun& run) {
  const Measurement* best = nullptr;
  for (const ResultRow& r : run.rows)
    for (const auto* m : {&r.out_of_place, &r.in_place})
      if (*m && !(*m)->derived && (!best || (*m)->algbw > best->algbw)) best = &**m;
  return best;
}

std::optional<collectives::Collective> collective_from_shape(const TestRun& run, std::string& source) {
  const Measurement* m = best_measurement(run);
  if (run.rows.empty()) return std::nullopt;
  if (!m || m->algbw <= 0) {
    // Latency-only rows print 0.00 GB/s: only the columns are left to go by.
    const ResultRow& row = run.rows.front();
    if (row.redop == "sum" && !(row.root && *row.root >= 0)) {
      source = "redop 'sum', bandwidths too small to tell (allreduce assumed)";
      return collectives::Collective::Allreduce;
    }
    return std::nullopt;
  }
  const double ratio = m->busbw / m->algbw;
  const ResultRow& row = run.rows.front();
  const bool rooted = row.root && *row.root >= 0;
  source = "busbw/algbw " + std::to_string(ratio).substr(0, 6) + ", redop '" + row.redop + "'";
  if (ratio > 1.02) return collectives::Collective::Allreduce;
  if (ratio < 0.98) {
    if (row.redop == "none") {
      source += " (allgather and alltoall print alike; allgather assumed)";
      return collectives::Collective::Allgather;
    }
    return collectives::Collective::ReduceScatter;
  }
  if (rooted) return row.redop == "none" ? collectives::Collective::Broadcast : collectives::Collective::Reduce;
  return collectives::Collective::SendRecv;
}

std::optional<collectives::Collective> collective_from_notes(const TestRun& run, std::string& source) {
  static const std::regex kName(R"(\b(AllReduce|all_reduce|AllGather|all_gather|ReduceScatter|reduce_scatter|AlltoAll|alltoall|Broadcast|broadcast|SendRecv|sendrecv)\b)");
  for (const std::string& note : run.notes) {
    std::smatch m;
    if (std::regex_search(note, m, kName)) {
      source = "comment '" + m[1].str() + "'";
      return collectives::collective_from_name(m[1].str());
    }
  }
  return std::nullopt;
}

// busbw / (size/time) is the factor: averaged over the rows whose values carry at least three
// significant digits, inverted for n. Printed rounding leaves a window of plausible n; a rank
// count from the device lines, else a multiple of 8 (GPUs per server), inside it is preferred.
std::optional<std::uint32_t> ranks_from_rows(const TestRun& run, collectives::Collective c, int device_candidate,
                                             std::string& source) {
  double sum = 0, sum_sq = 0;
  int k = 0;
  for (const ResultRow& r : run.rows)
    for (const auto* m : {&r.out_of_place, &r.in_place}) {
      if (!*m || (*m)->derived || (*m)->busbw < 10.0 || (*m)->time <= Duration::zero()) continue;
      const double ratio = (*m)->busbw / algbw_gbps(r.size, (*m)->time);
      sum += ratio;
      sum_sq += ratio * ratio;
      ++k;
    }
  if (k == 0) return std::nullopt;
  const double mean = sum / k;
  const auto n = ranks_from_ratio(c, mean);
  if (!n) return std::nullopt;
  const double spread = std::max(2e-4, k > 1 ? std::sqrt(std::max(0.0, sum_sq / k - mean * mean)) : 0.0);
  // d(factor)/dn is 2/n^2 (allreduce) or 1/n^2: the window in n is n^2/2 * spread, or n^2 * spread.
  const double nn = *n;
  const double half_window = std::max(0.5, (c == collectives::Collective::Allreduce ? nn * nn / 2 : nn * nn) * spread);
  source = "busbw/algbw ratio over " + std::to_string(k) + " values";
  if (device_candidate > 1 && std::fabs(device_candidate - nn) <= half_window) {
    source += ", agrees with the highest device rank";
    return static_cast<std::uint32_t>(device_candidate);
  }
  const double m8 = std::round(nn / 8.0) * 8.0;
  if (m8 >= 8 && std::fabs(m8 - nn) <= half_window && std::fabs(m8 - nn) > 0) {
    source += " (nearest multiple of 8 within the rounding window)";
    return static_cast<std::uint32_t>(m8);
  }
  return n;
}

}  // namespace

RunFacts infer_run_facts(const TestRun& run) {
  RunFacts f;
  if (run.header.program) {
    f.collective = collective_from_program(*run.header.program);
    if (f.collective) f.collective_source = "program " + *run.header.program;
    static const std::regex kUnsupported(R"((gather|scatter|hypercube)_perf(_mpi)?)");
    if (!f.collective && std::regex_match(*run.header.program, kUnsupported)) f.unsupported_program = *run.header.program;
  }
  if (f.unsupported_program.empty()) {
    if (!f.collective) f.collective = collective_from_notes(run, f.collective_source);
    if (!f.collective) f.collective = collective_from_shape(run, f.collective_source);
  }

  if (run.header.gpus && *run.header.gpus > 0) {
    f.gpus_per_thread = static_cast<std::uint32_t>(*run.header.gpus);
    f.gpus_per_thread_source = "header nGpus";
  } else if (run.command) {
    static const std::regex kGpusOption(R"(\s-g\s+(\d+))");
    std::smatch g;
    if (std::regex_search(*run.command, g, kGpusOption)) {
      f.gpus_per_thread = static_cast<std::uint32_t>(std::stoul(g[1].str()));
      f.gpus_per_thread_source = "command line -g";
    }
  }

  // Devices: complete when ranks 0..R-1 each appear once and nothing was elided.
  std::set<int> ranks;
  std::map<std::string, std::uint32_t> per_host;
  for (const DeviceLine& d : run.devices) {
    ranks.insert(d.rank);
    ++per_host[d.host];
    if (f.gpu.empty()) f.gpu = d.gpu;
  }
  const bool complete = !run.devices.empty() && !run.devices_elided && ranks.size() == run.devices.size() &&
                        *ranks.begin() == 0 && *ranks.rbegin() == static_cast<int>(ranks.size()) - 1;
  if (complete) {
    f.ranks = static_cast<std::uint32_t>(ranks.size());
    f.ranks_source = "device lines";
    f.nodes = static_cast<std::uint32_t>(per_host.size());
    for (const auto& [host, count] : per_host) f.gpus_per_node = std::max(f.gpus_per_node, count);
    return f;
  }
  if (f.collective) {
    const int highest = ranks.empty() ? -1 : *ranks.rbegin();
    if (auto n = ranks_from_rows(run, *f.collective, highest + 1, f.ranks_source)) f.ranks = *n;
  }
  if (f.ranks == 0 && run.command && run.command->find("mpirun") == std::string::npos &&
      run.command->find("srun") == std::string::npos) {
    // One process driving -g GPUs (and -t threads).
    static const std::regex kGpus(R"(\s-g\s+(\d+))"), kThreads(R"(\s-t\s+(\d+))");
    std::smatch g, t;
    if (std::regex_search(*run.command, g, kGpus)) {
      f.ranks = static_cast<std::uint32_t>(std::stoul(g[1].str()));
      if (std::regex_search(*run.command, t, kThreads)) f.ranks *= static_cast<std::uint32_t>(std::stoul(t[1].str()));
      f.ranks_source = "command line -g (one process)";
      f.nodes = 1;
      f.gpus_per_node = f.ranks;
    }
  }
  if (f.ranks == 0) {
    static const std::regex kNodesGpus(R"((\d+)\s*nodes?\s*x\s*(\d+))");
    for (const std::string& note : run.notes) {
      std::smatch m;
      if (std::regex_search(note, m, kNodesGpus)) {
        f.nodes = static_cast<std::uint32_t>(std::stoul(m[1].str()));
        f.gpus_per_node = static_cast<std::uint32_t>(std::stoul(m[2].str()));
        f.ranks = f.nodes * f.gpus_per_node;
        f.ranks_source = "comment '" + m[0].str() + "'";
        break;
      }
    }
  }
  if (f.ranks == 0 && !ranks.empty() && !run.devices_elided && run.devices.size() > 1) {
    f.ranks = static_cast<std::uint32_t>(*ranks.rbegin() + 1);
    f.ranks_source = "highest device rank";
  }
  return f;
}

namespace {

// Half a unit of the last printed digit.
double half_ulp(const std::string& text) { return 0.5 * std::pow(10.0, -decimals(text)); }

}  // namespace

std::vector<Finding> check_consistency(const TestRun& run, collectives::Collective c, std::uint32_t n) {
  std::vector<Finding> out;
  const double factor = busbw_factor(c, n);
  auto fmt = [](double v) {
    char b[64];
    std::snprintf(b, sizeof b, "%.4g", v);
    return std::string(b);
  };
  double sum = 0;
  std::size_t count = 0;
  for (const ResultRow& r : run.rows) {
    if (!r.type.empty()) {
      if (auto elt = element_bytes(r.type)) {
        const std::uint64_t want = expected_count(c, n, r.size, *elt);
        if (want != r.count)
          out.push_back({r.line, "count " + std::to_string(r.count) + " but " + std::string(collectives::to_string(c)) +
                                     " of " + std::to_string(r.size) + " B of " + r.type + " on " + std::to_string(n) +
                                     " ranks has count " + std::to_string(want)});
      }
    }
    for (const auto& [m, half] : {std::pair{&r.out_of_place, "out-of-place"}, std::pair{&r.in_place, "in-place"}}) {
      if (!*m) continue;
      const Measurement& x = **m;
      sum += x.busbw;
      ++count;
      if (x.derived) continue;
      if (x.wrong && *x.wrong > 0 && run.format == LogFormat::Modern)
        out.push_back({r.line, std::string(half) + ": " + fmt(*x.wrong) + " wrong element(s)"});
      if (x.time <= Duration::zero()) continue;
      const double alg = algbw_gbps(r.size, x.time);
      // The time is rounded too: its half unit moves algbw by alg * dt / t.
      const double from_time = alg * half_ulp(x.time_text) / x.time.microseconds();
      const double tol_alg = half_ulp(x.algbw_text) + from_time + 1e-9;
      if (std::fabs(alg - x.algbw) > tol_alg)
        out.push_back({r.line, std::string(half) + " algbw " + x.algbw_text + " but size/time = " + fmt(alg)});
      const double tol_bus = half_ulp(x.busbw_text) + factor * from_time + 1e-9;
      if (std::fabs(alg * factor - x.busbw) > tol_bus)
        out.push_back({r.line, std::string(half) + " busbw " + x.busbw_text + " but algbw x " + fmt(factor) + " = " +
                                   fmt(alg * factor)});
    }
  }
  if (run.footer.avg_busbw && count > 0 && run.format != LogFormat::SummaryTable) {
    const bool cut = std::any_of(run.rows.begin(), run.rows.end(), [](const ResultRow& r) { return r.truncated; });
    const double mean = sum / static_cast<double>(count);
    // Every busbw was rounded to its last digit before we summed it; nccl-tests summed the
    // exact values and printed the mean with %g.
    const double tol = 0.005 + half_ulp(*run.footer.avg_busbw_text) + 1e-9;
    if (!cut && std::fabs(mean - *run.footer.avg_busbw) > tol)
      out.push_back({run.footer.line, "Avg bus bandwidth " + *run.footer.avg_busbw_text + " but the mean of the " +
                                          std::to_string(count) + " busbw values printed is " + fmt(mean)});
  }
  if (run.footer.out_of_bounds_ok && !*run.footer.out_of_bounds_ok)
    out.push_back({run.footer.line, "the test reported out-of-bounds values (FAILED)"});
  return out;
}

void derive_summary_times(TestRun& run, collectives::Collective c, std::uint32_t n) {
  for (ResultRow& r : run.rows) {
    for (auto* m : {&r.out_of_place, &r.in_place}) {
      if (!*m || !(*m)->derived) continue;
      (*m)->time = time_from_busbw(c, n, r.size, (*m)->busbw);
      (*m)->algbw = algbw_gbps(r.size, (*m)->time);
    }
  }
}

}  // namespace collsim::validation
