#include "collsim/pdes/partition.hpp"

#include <metis.h>

#include <algorithm>
#include <functional>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>

#include "collsim/logging/logging.hpp"
#include "collsim/pdes/random_stream.hpp"

namespace collsim::pdes {

namespace {

std::string lp_name(LpId lp) { return "LP " + std::to_string(lp); }

void check_graph(const LpGraph& g) {
  if (!g.weight.empty() && g.weight.size() != g.num_lps)
    throw std::invalid_argument("the LP graph has " + std::to_string(g.weight.size()) + " weights for " +
                                std::to_string(g.num_lps) + " LPs");
  if (!g.busy_together.empty() && g.busy_together.size() != g.num_lps)
    throw std::invalid_argument("the LP graph has " + std::to_string(g.busy_together.size()) + " classes for " +
                                std::to_string(g.num_lps) + " LPs");
  for (const auto& e : g.edges) {
    if (e.a >= g.num_lps || e.b >= g.num_lps)
      throw std::invalid_argument("a link joins " + lp_name(e.a) + " and " + lp_name(e.b) + ", but there are only " +
                                  std::to_string(g.num_lps) + " LPs");
    if (e.latency < SimTime::zero())
      throw std::invalid_argument("the link between " + lp_name(e.a) + " and " + lp_name(e.b) +
                                  " has a negative latency (" + format_duration(e.latency) + ")");
  }
  if (g.any_to_any && *g.any_to_any < SimTime::zero())
    throw std::invalid_argument("negative minimum delay between LPs (" + format_duration(*g.any_to_any) + ")");
}

// LPs joined by zero-latency links must share a rank: they are merged into groups, numbered
// in order of their smallest LP id.
struct Groups {
  std::vector<std::uint32_t> of_lp;
  std::vector<std::uint64_t> weight;
};

Groups zero_latency_groups(const LpGraph& g) {
  std::vector<std::uint32_t> parent(g.num_lps);
  std::iota(parent.begin(), parent.end(), 0u);
  auto find = [&](std::uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (const auto& e : g.edges) {
    if (e.latency != SimTime::zero()) continue;
    const std::uint32_t a = find(e.a), b = find(e.b);
    // The smaller id becomes the root, so roots are the groups' smallest members.
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
  Groups groups;
  groups.of_lp.resize(g.num_lps);
  std::vector<std::uint32_t> number(g.num_lps, 0xFFFFFFFFu);
  for (LpId lp = 0; lp < g.num_lps; ++lp) {
    const std::uint32_t root = find(lp);
    if (number[root] == 0xFFFFFFFFu) {
      number[root] = static_cast<std::uint32_t>(groups.weight.size());
      groups.weight.push_back(0);
    }
    groups.of_lp[lp] = number[root];
    groups.weight[number[root]] += g.weight_of(lp);
  }
  return groups;
}

// Deals groups of these weights to `ranks` ranks, heaviest first, each to the lightest rank
// so far (the first of equals): each group's rank, and each rank's load.
std::vector<std::uint32_t> deal_heaviest_first(const std::vector<std::uint64_t>& weights, std::uint32_t ranks,
                                               std::vector<std::uint64_t>& load) {
  std::vector<std::size_t> order(weights.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return weights[a] > weights[b]; });
  load.assign(ranks, 0);
  std::vector<std::uint32_t> rank_of(weights.size());
  for (const std::size_t v : order) {
    const auto lightest = static_cast<std::uint32_t>(std::min_element(load.begin(), load.end()) - load.begin());
    rank_of[v] = lightest;
    load[lightest] += weights[v];
  }
  return rank_of;
}

// Whether groups of these weights can be dealt to `ranks` ranks with none more than a quarter
// over the mean (deal_heaviest_first). Generous: a rank that holds its servers whole promises
// far more than one that cuts them.
bool balances(const std::vector<std::uint64_t>& weights, std::uint32_t ranks) {
  const std::uint64_t total = std::accumulate(weights.begin(), weights.end(), std::uint64_t{0});
  std::vector<std::uint64_t> load;
  deal_heaviest_first(weights, ranks, load);
  return 4 * ranks * *std::max_element(load.begin(), load.end()) <= 5 * total;
}

// Joins the groups over the shortest links, one latency at a time from the shortest, while
// the groups can still be balanced over the ranks: a link kept inside a rank never sets the
// lookahead, and a part of the model whose links are all kept inside lets its rank promise
// more (NVLink inside a server). Stops at the first latency whose links would not balance.
Groups join_short_links(const LpGraph& g, const Groups& groups, std::uint32_t ranks) {
  std::vector<SimTime> latencies;
  for (const auto& e : g.edges)
    if (e.latency > SimTime::zero()) latencies.push_back(e.latency);
  std::sort(latencies.begin(), latencies.end());
  latencies.erase(std::unique(latencies.begin(), latencies.end()), latencies.end());
  std::vector<std::uint32_t> parent(groups.weight.size());
  std::iota(parent.begin(), parent.end(), 0u);
  const auto find = [](std::vector<std::uint32_t>& p, std::uint32_t x) {
    while (p[x] != x) x = p[x] = p[p[x]];
    return x;
  };
  // Joining over every link would leave one group: the longest latency is never joined.
  for (std::size_t k = 0; k + 1 < latencies.size(); ++k) {
    std::vector<std::uint32_t> trial = parent;
    for (const auto& e : g.edges) {
      if (e.latency != latencies[k]) continue;
      const std::uint32_t a = find(trial, groups.of_lp[e.a]), b = find(trial, groups.of_lp[e.b]);
      if (a != b) trial[std::max(a, b)] = std::min(a, b);
    }
    std::vector<std::uint64_t> weight(groups.weight.size(), 0);
    for (std::uint32_t i = 0; i < weight.size(); ++i) weight[find(trial, i)] += groups.weight[i];
    if (!balances(weight, ranks)) break;
    parent = std::move(trial);
  }
  Groups joined;
  joined.of_lp.resize(groups.of_lp.size());
  std::vector<std::uint32_t> number(groups.weight.size(), 0xFFFFFFFFu);
  for (std::size_t lp = 0; lp < groups.of_lp.size(); ++lp) {
    const std::uint32_t root = find(parent, groups.of_lp[lp]);
    if (number[root] == 0xFFFFFFFFu) {
      number[root] = static_cast<std::uint32_t>(joined.weight.size());
      joined.weight.push_back(0);
    }
    joined.of_lp[lp] = number[root];
  }
  for (std::uint32_t i = 0; i < groups.weight.size(); ++i) joined.weight[number[find(parent, i)]] += groups.weight[i];
  return joined;
}

std::vector<std::uint32_t> block(const Groups& groups, std::uint32_t ranks) {
  const std::uint64_t total = std::accumulate(groups.weight.begin(), groups.weight.end(), std::uint64_t{0});
  std::vector<std::uint32_t> rank_of(groups.weight.size());
  std::uint64_t before = 0;
  for (std::size_t k = 0; k < groups.weight.size(); ++k) {
    // The rank whose share of the total weight contains this group's midpoint.
    const std::uint64_t mid2 = 2 * before + groups.weight[k];
    rank_of[k] = total == 0 ? 0 : static_cast<std::uint32_t>(std::min<std::uint64_t>(ranks - 1, mid2 * ranks / (2 * total)));
    before += groups.weight[k];
  }
  return rank_of;
}

std::vector<std::uint32_t> metis(const LpGraph& g, const Groups& groups, std::uint32_t ranks, std::uint64_t seed) {
  const std::size_t n = groups.weight.size();
  if (g.edges.empty() || n <= ranks) return block(groups, ranks);
  // Links with short latency are the costly ones to cut: they set the lookahead.
  SimTime longest = SimTime::ps(1);
  for (const auto& e : g.edges) longest = std::max(longest, e.latency);
  std::vector<std::vector<std::pair<idx_t, idx_t>>> adjacency(n);
  for (const auto& e : g.edges) {
    const std::uint32_t a = groups.of_lp[e.a], b = groups.of_lp[e.b];
    if (a == b) continue;
    const auto w = static_cast<idx_t>(std::clamp<std::int64_t>(longest / std::max(e.latency, SimTime::ps(1)), 1, 1000));
    adjacency[a].emplace_back(static_cast<idx_t>(b), w);
    adjacency[b].emplace_back(static_cast<idx_t>(a), w);
  }
  // One constraint for the whole load, and one per class of LPs busy together that can be
  // spread: a class in fewer groups than there are ranks cannot give every rank a share, and
  // asking METIS for it only bends the rest (such a class is left out). Up to a number of
  // classes METIS balances well; with more, none.
  constexpr std::uint32_t kMostClasses = 16;
  std::uint32_t classes = 0;
  for (const std::uint32_t c : g.busy_together) classes = std::max(classes, c);
  std::vector<std::uint32_t> constraint(classes + 1, 0);  // by class: its constraint, or 0
  std::size_t ncon_count = 1;
  if (classes <= kMostClasses) {
    std::vector<std::vector<bool>> in_group(classes + 1, std::vector<bool>(n, false));
    for (LpId lp = 0; lp < g.busy_together.size(); ++lp) in_group[g.busy_together[lp]][groups.of_lp[lp]] = true;
    for (std::uint32_t c = 1; c <= classes; ++c)
      if (static_cast<std::size_t>(std::count(in_group[c].begin(), in_group[c].end(), true)) >= ranks)
        constraint[c] = static_cast<std::uint32_t>(ncon_count++);
  }
  std::vector<std::uint64_t> class_weight(n * ncon_count, 0);
  for (LpId lp = 0; lp < g.num_lps; ++lp) {
    class_weight[groups.of_lp[lp] * ncon_count] += g.weight_of(lp);
    const std::uint32_t c = lp < g.busy_together.size() ? g.busy_together[lp] : 0;
    if (c > 0 && c <= classes && constraint[c] > 0)
      class_weight[groups.of_lp[lp] * ncon_count + constraint[c]] += g.weight_of(lp);
  }
  std::vector<idx_t> xadj{0}, adjncy, adjwgt, vwgt;
  for (std::size_t v = 0; v < n; ++v) {
    auto& list = adjacency[v];
    std::sort(list.begin(), list.end());
    // Parallel links between two groups become one edge with their weights summed.
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (i > 0 && list[i].first == list[i - 1].first) {
        adjwgt.back() += list[i].second;
        continue;
      }
      adjncy.push_back(list[i].first);
      adjwgt.push_back(list[i].second);
    }
    xadj.push_back(static_cast<idx_t>(adjncy.size()));
    vwgt.push_back(static_cast<idx_t>(std::max<std::uint64_t>(1, groups.weight[v])));
    for (std::size_t c = 1; c < ncon_count; ++c) vwgt.push_back(static_cast<idx_t>(class_weight[v * ncon_count + c]));
  }
  idx_t nvtxs = static_cast<idx_t>(n), ncon = static_cast<idx_t>(ncon_count), nparts = static_cast<idx_t>(ranks), objval = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = static_cast<idx_t>(seed & 0x7FFFFFFF);
  options[METIS_OPTION_NUMBERING] = 0;
  std::vector<idx_t> part(n);
  // METIS keeps state of its own between calls (its memory tracking): one call at a time in a
  // process, for tests that run several ranks as threads.
  static std::mutex one_at_a_time;
  const std::lock_guard<std::mutex> lock(one_at_a_time);
  // Each class within a tenth of its share, the whole load as METIS's default allows.
  std::vector<real_t> tolerance(ncon_count, 1.1f);
  tolerance[0] = 1.03f;
  const int rc = METIS_PartGraphKway(&nvtxs, &ncon, xadj.data(), adjncy.data(), vwgt.data(), nullptr, adjwgt.data(),
                                     &nparts, nullptr, ncon_count > 1 ? tolerance.data() : nullptr, options, &objval,
                                     part.data());
  if (rc != METIS_OK) throw std::runtime_error("METIS could not partition the LP graph (code " + std::to_string(rc) + ")");
  std::vector<std::uint32_t> rank_of(part.begin(), part.end());
  // On a handful of groups METIS may leave a rank without any: then they are dealt again.
  std::vector<std::uint64_t> load(ranks, 0);
  for (std::size_t v = 0; v < n; ++v) load[rank_of[v]] += groups.weight[v];
  if (std::find(load.begin(), load.end(), 0) == load.end()) return rank_of;
  return deal_heaviest_first(groups.weight, ranks, load);
}

std::string_view method_name(PartitionMethod method) {
  switch (method) {
    case PartitionMethod::Block: return "block";
    case PartitionMethod::RoundRobin: return "round-robin";
    case PartitionMethod::Random: return "random";
    case PartitionMethod::Metis: return "metis";
  }
  return "?";
}

// Once per run, and only when someone asks: counting the cut is a pass over every link.
void log_partition(const LpGraph& graph, const Partition& p, PartitionMethod method) {
  spdlog::logger& log = logging::logger("pdes");
  if (!log.should_log(spdlog::level::debug)) return;
  std::vector<std::uint64_t> lps(p.num_ranks), weight(p.num_ranks);
  for (LpId lp = 0; lp < graph.num_lps; ++lp) {
    ++lps[p.owner[lp]];
    weight[p.owner[lp]] += graph.weight_of(lp);
  }
  const auto [lightest, heaviest] = std::minmax_element(weight.begin(), weight.end());
  std::uint64_t cut = 0;
  for (const auto& e : graph.edges) cut += p.owner[e.a] != p.owner[e.b] ? 1 : 0;
  const auto [fewest, most] = std::minmax_element(lps.begin(), lps.end());
  log.debug("partitioned {} LPs over {} rank(s) with {}: {} to {} LPs per rank, weighing {} to {}, {} of {} links cut, "
            "lookahead {}",
            graph.num_lps, p.num_ranks, method_name(method), *fewest, *most, *lightest, *heaviest, cut, graph.edges.size(),
            format_duration(lookahead_of(graph, p)));
}

}  // namespace

std::optional<PartitionMethod> partition_method_from_name(std::string_view name) {
  if (name == "block") return PartitionMethod::Block;
  if (name == "round-robin" || name == "roundrobin") return PartitionMethod::RoundRobin;
  if (name == "random") return PartitionMethod::Random;
  if (name == "metis") return PartitionMethod::Metis;
  return std::nullopt;
}

Partition make_partition(const LpGraph& graph, std::uint32_t num_ranks, PartitionMethod method, std::uint64_t seed) {
  if (num_ranks == 0) throw std::invalid_argument("cannot partition over 0 ranks");
  check_graph(graph);
  Groups groups = zero_latency_groups(graph);
  if (method == PartitionMethod::Metis && num_ranks > 1) groups = join_short_links(graph, groups, num_ranks);
  std::vector<std::uint32_t> rank_of;
  switch (method) {
    case PartitionMethod::Block: rank_of = block(groups, num_ranks); break;
    case PartitionMethod::RoundRobin:
      rank_of.resize(groups.weight.size());
      for (std::size_t k = 0; k < rank_of.size(); ++k) rank_of[k] = static_cast<std::uint32_t>(k % num_ranks);
      break;
    case PartitionMethod::Random: {
      RandomStream random(seed, 0x7061727469ull);
      rank_of.resize(groups.weight.size());
      for (auto& r : rank_of) r = static_cast<std::uint32_t>(random.below(num_ranks));
      break;
    }
    case PartitionMethod::Metis: rank_of = num_ranks == 1 ? block(groups, 1) : metis(graph, groups, num_ranks, seed); break;
  }
  Partition p;
  p.num_ranks = num_ranks;
  p.owner.resize(graph.num_lps);
  for (LpId lp = 0; lp < graph.num_lps; ++lp) p.owner[lp] = rank_of[groups.of_lp[lp]];
  log_partition(graph, p, method);
  return p;
}

void check_partition(const LpGraph& graph, const Partition& partition) {
  check_graph(graph);
  if (partition.owner.size() != graph.num_lps)
    throw std::invalid_argument("the partition places " + std::to_string(partition.owner.size()) + " LPs, the model has " +
                                std::to_string(graph.num_lps));
  for (LpId lp = 0; lp < graph.num_lps; ++lp)
    if (partition.owner[lp] >= partition.num_ranks)
      throw std::invalid_argument(lp_name(lp) + " is placed on rank " + std::to_string(partition.owner[lp]) +
                                  ", but there are " + std::to_string(partition.num_ranks) + " ranks");
  for (const auto& e : graph.edges) {
    if (partition.owner[e.a] == partition.owner[e.b] || e.latency > SimTime::zero()) continue;
    throw std::invalid_argument("the link between " + lp_name(e.a) + " (rank " + std::to_string(partition.owner[e.a]) +
                                ") and " + lp_name(e.b) + " (rank " + std::to_string(partition.owner[e.b]) +
                                ") has latency " + format_duration(e.latency) +
                                ", but a link between ranks needs a positive latency: it is the lookahead. "
                                "Keep the two LPs on one rank");
  }
  if (graph.any_to_any && *graph.any_to_any <= SimTime::zero()) {
    for (LpId lp = 1; lp < graph.num_lps; ++lp)
      if (partition.owner[lp] != partition.owner[0])
        throw std::invalid_argument("LPs on different ranks may exchange events with delay " +
                                    format_duration(*graph.any_to_any) +
                                    ", but events between ranks need a positive minimum delay (the lookahead)");
  }
}

SimTime lookahead_of(const LpGraph& graph, const Partition& partition) {
  SimTime lookahead = SimTime::infinity();
  for (const auto& e : graph.edges)
    if (partition.owner[e.a] != partition.owner[e.b]) lookahead = std::min(lookahead, e.latency);
  if (graph.any_to_any) {
    for (LpId lp = 1; lp < graph.num_lps; ++lp)
      if (partition.owner[lp] != partition.owner[0]) {
        lookahead = std::min(lookahead, *graph.any_to_any);
        break;
      }
  }
  return lookahead;
}

}  // namespace collsim::pdes
