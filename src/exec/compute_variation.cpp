#include "collsim/exec/compute_variation.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "collsim/common/input_error.hpp"
#include "collsim/common/splitmix.hpp"

namespace collsim::exec {

namespace {

constexpr double kTwoPi = 6.283185307179586;


// A uniform draw in (0, 1) from a key.
double uniform(std::uint64_t key) { return (static_cast<double>(splitmix64(key) >> 11) + 0.5) / 9007199254740992.0; }

std::uint64_t key(std::uint64_t seed, std::uint64_t stream, std::uint64_t a, std::uint64_t b = 0) {
  return splitmix64(splitmix64(splitmix64(seed ^ (stream << 56)) ^ a) ^ b);
}

double standard_normal(std::uint64_t k) {
  const double u1 = uniform(k), u2 = uniform(k ^ 0x5851F42D4C957F2Dull);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
}

double draw(const FactorDistribution& d, std::uint64_t k) {
  const double z = standard_normal(k);
  if (d.spread == Spread::LogNormal) return std::exp(d.sigma * z - d.sigma * d.sigma / 2);
  return std::max(0.0, 1.0 + d.sigma * z);
}

// Streams of draws, so that adding one kind of variation does not move another's.
enum Stream : std::uint64_t { kGpuSpeed = 1, kOpNoise = 2, kRandomSlow = 3, kTraceOffset = 4 };

SimTime scaled(SimTime t, double factor) {
  return SimTime::ps(static_cast<std::int64_t>(std::llround(static_cast<double>(t.picoseconds()) * factor)));
}

}  // namespace

NoiseTrace read_noise_trace(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError::in_file(path, "cannot open the noise trace");
  NoiseTrace t;
  std::string line;
  std::uint64_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    std::istringstream fields(line);
    double start = 0, duration = 0;
    std::string rest;
    if (!(fields >> start >> duration) || (fields >> rest) || !(start >= 0) || !(duration >= 0) || start > 1e15 ||
        duration > 1e15)
      throw InputError::at_text(path, number, first + 1,
                                "expected '<start> <duration>', two non-negative times in nanoseconds");
    const Detour d{SimTime::ps(std::llround(start * 1000)), SimTime::ps(std::llround(duration * 1000))};
    if (!t.detours.empty() && d.start < t.detours.back().start + t.detours.back().duration)
      throw InputError::at_text(path, number, first + 1,
                                "this detour starts before the previous one ends: detours must be in order and apart");
    t.detours.push_back(d);
  }
  if (t.detours.size() < 2)
    throw InputError::in_file(path, "a noise trace needs at least two detours (the last one's start is its period)");
  t.period = t.detours.back().start;
  if (t.period <= SimTime::zero()) throw InputError::in_file(path, "the noise trace's last detour must start after 0");
  // The last line marks the period; LogGOPSim wraps to the first there.
  t.detours.pop_back();
  return t;
}

std::optional<FactorDistribution> parse_factor_distribution(const std::string& text, std::string* error) {
  const auto colon = text.find(':');
  auto fail = [&](const std::string& why) -> std::optional<FactorDistribution> {
    if (error) *error = why;
    return std::nullopt;
  };
  if (colon == std::string::npos) return fail("expected normal:SIGMA or lognormal:SIGMA");
  const std::string name = text.substr(0, colon);
  FactorDistribution d;
  if (name == "normal") d.spread = Spread::Normal;
  else if (name == "lognormal") d.spread = Spread::LogNormal;
  else return fail("unknown distribution '" + name + "' (normal, lognormal)");
  std::istringstream in(text.substr(colon + 1));
  std::string rest;
  if (!(in >> d.sigma) || (in >> rest) || !(d.sigma >= 0 && d.sigma <= 10))
    return fail("expected a relative standard deviation from 0 to 10 after '" + name + ":'");
  return d;
}

ComputeVariation::ComputeVariation(const ComputeVariationSpec& spec, std::uint32_t ranks)
    : spec_(spec), factor_(ranks, 1.0), trace_offset_(ranks, SimTime::zero()), stalls_(ranks) {
  auto check_rank = [&](goal::RankId r, const char* what) {
    if (r >= ranks)
      throw std::invalid_argument(std::string(what) + " names rank " + std::to_string(r) + ", but the schedule has " +
                                  std::to_string(ranks));
  };
  if (spec.gpu_speed)
    for (goal::RankId r = 0; r < ranks; ++r) factor_[r] = draw(*spec.gpu_speed, key(spec.seed, kGpuSpeed, r));
  if (spec.random_slow > 0) {
    if (spec.random_slow > ranks)
      throw std::invalid_argument(std::to_string(spec.random_slow) + " random stragglers, but the schedule has " +
                                  std::to_string(ranks) + " ranks");
    if (!(spec.random_slow_factor > 0)) throw std::invalid_argument("a straggler's factor must be above 0");
    // A seeded shuffle: its first random_slow ranks.
    std::vector<goal::RankId> order(ranks);
    std::iota(order.begin(), order.end(), 0);
    for (std::uint32_t i = ranks; i > 1; --i) {
      const auto j = static_cast<std::uint32_t>(splitmix64(key(spec.seed, kRandomSlow, i)) % i);
      std::swap(order[i - 1], order[j]);
    }
    for (std::uint32_t i = 0; i < spec.random_slow; ++i) factor_[order[i]] *= spec.random_slow_factor;
  }
  for (const auto& [rank, factor] : spec.slow_ranks) {
    check_rank(rank, "a straggler");
    if (!(factor > 0)) throw std::invalid_argument("rank " + std::to_string(rank) + "'s factor must be above 0");
    factor_[rank] *= factor;
  }
  if (spec.noise_trace) {
    const std::int64_t period = spec.noise_trace->period.picoseconds();
    const std::int64_t shared = static_cast<std::int64_t>(uniform(key(spec.seed, kTraceOffset, 0)) * static_cast<double>(period));
    for (goal::RankId r = 0; r < ranks; ++r)
      trace_offset_[r] = SimTime::ps(spec.noise_cosched ? shared
                                                        : static_cast<std::int64_t>(uniform(key(spec.seed, kTraceOffset, r + 1)) *
                                                                                    static_cast<double>(period)));
  }
  for (const goal::RankId r : spec.nominal_ranks) {
    check_rank(r, "a nominal rank");
    factor_[r] = 1.0;
  }
  for (const Stall& s : spec.stalls) {
    check_rank(s.rank, "a stall");
    stalls_[s.rank].push_back({s.at, s.duration});
  }
  for (auto& v : stalls_) {
    std::sort(v.begin(), v.end(), [](const Detour& a, const Detour& b) { return a.start < b.start; });
    for (std::size_t i = 1; i < v.size(); ++i)
      if (v[i].start < v[i - 1].start + v[i - 1].duration)
        throw std::invalid_argument("two stalls of one rank overlap");
  }
}

std::vector<VariationPart> variation_parts(const ComputeVariationSpec& spec, const ComputeVariation& v, std::size_t most) {
  std::vector<VariationPart> parts;
  // Straggler ranks by their own factor (the spread's draws are one part below, not a rank's).
  if (!spec.slow_ranks.empty() || spec.random_slow > 0) {
    ComputeVariationSpec bare = spec;
    bare.gpu_speed.reset();
    const ComputeVariation slow(bare, v.num_ranks());
    std::vector<goal::RankId> ranks;
    for (goal::RankId r = 0; r < slow.num_ranks(); ++r)
      if (slow.speed_factor(r) != 1.0) ranks.push_back(r);
    std::stable_sort(ranks.begin(), ranks.end(),
                     [&](goal::RankId a, goal::RankId b) { return slow.speed_factor(a) > slow.speed_factor(b); });
    if (ranks.size() > most) ranks.resize(most);
    for (const goal::RankId r : ranks) {
      VariationPart p;
      std::ostringstream label;
      label << "rank " << r << " x" << slow.speed_factor(r);
      p.label = label.str();
      p.without = spec;
      p.without.slow_ranks.erase(std::remove_if(p.without.slow_ranks.begin(), p.without.slow_ranks.end(),
                                                [r](const auto& s) { return s.first == r; }),
                                 p.without.slow_ranks.end());
      // A drawn straggler (or a spread on top of a named one) is held at nominal speed.
      if (spec.random_slow > 0 || spec.gpu_speed) p.without.nominal_ranks.push_back(r);
      parts.push_back(std::move(p));
    }
  }
  if (spec.gpu_speed) {
    VariationPart p{"per-GPU speed spread", spec};
    p.without.gpu_speed.reset();
    parts.push_back(std::move(p));
  }
  if (spec.op_noise) {
    VariationPart p{"op noise", spec};
    p.without.op_noise.reset();
    parts.push_back(std::move(p));
  }
  if (spec.noise_trace) {
    VariationPart p{"noise trace", spec};
    p.without.noise_trace.reset();
    parts.push_back(std::move(p));
  }
  for (std::size_t i = 0; i < spec.stalls.size(); ++i) {
    const Stall& s = spec.stalls[i];
    VariationPart p{"stall of rank " + std::to_string(s.rank) + " at " + format_duration(s.at) + " for " +
                        format_duration(s.duration),
                    spec};
    p.without.stalls.erase(p.without.stalls.begin() + static_cast<std::ptrdiff_t>(i));
    parts.push_back(std::move(p));
  }
  return parts;
}

SimTime ComputeVariation::past_detours(goal::RankId rank, SimTime start, SimTime work) const {
  // Stalls and trace detours together, in time order: the cpu works between them. Stalls
  // are few; the trace repeats, so walk it period by period from the calc's start.
  SimTime t = start;
  SimTime left = work;
  std::size_t next_stall = 0;
  const std::vector<Detour>& stalls = stalls_[rank];
  while (next_stall < stalls.size() && stalls[next_stall].start + stalls[next_stall].duration <= t) ++next_stall;
  const NoiseTrace* trace = spec_.noise_trace ? &*spec_.noise_trace : nullptr;
  // Position in the trace: trace time = (time + offset) mod period.
  std::int64_t period_start = 0;  // simulated time at which the current period began
  std::size_t next_trace = 0;
  if (trace) {
    const std::int64_t p = trace->period.picoseconds();
    const std::int64_t shifted = t.picoseconds() + trace_offset_[rank].picoseconds();
    period_start = t.picoseconds() - shifted % p;
    const SimTime within = SimTime::ps(shifted % p);
    while (next_trace < trace->detours.size() &&
           trace->detours[next_trace].start + trace->detours[next_trace].duration <= within)
      ++next_trace;
  }
  for (;;) {
    // The next detour at or after t, from either source.
    std::optional<Detour> d;
    if (next_stall < stalls.size()) d = stalls[next_stall];
    bool from_trace = false;
    if (trace) {
      if (next_trace == trace->detours.size()) {
        period_start += trace->period.picoseconds();
        next_trace = 0;
      }
      const Detour& td = trace->detours[next_trace];
      const Detour at{SimTime::ps(period_start) + td.start, td.duration};
      if (!d || at.start < d->start) {
        d = at;
        from_trace = true;
      }
    }
    if (!d) return t + left;
    if (d->start + d->duration <= t) {  // already over (a trace detour before t in this period)
      if (from_trace) ++next_trace;
      else ++next_stall;
      continue;
    }
    // Work until the detour (if it has not begun), then wait for its end.
    if (d->start > t) {
      const SimTime until = d->start - t;
      if (left <= until) return t + left;
      left = left - until;
    }
    t = d->start + d->duration;
    if (from_trace) ++next_trace;
    else ++next_stall;
  }
}

SimTime ComputeVariation::calc_end(goal::RankId rank, std::uint64_t index, SimTime start, SimTime nominal) const {
  double factor = factor_[rank];
  if (spec_.op_noise) factor *= draw(*spec_.op_noise, key(spec_.seed, kOpNoise, rank, index));
  const SimTime work = factor == 1.0 ? nominal : scaled(nominal, factor);
  if (!spec_.noise_trace && stalls_[rank].empty()) return start + work;
  return past_detours(rank, start, work);
}

}  // namespace collsim::exec
