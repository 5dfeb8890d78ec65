#include "collsim/out/trace_events.hpp"

#include <algorithm>
#include <deque>
#include <fstream>
#include <map>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <tuple>

#include "collsim/common/units.hpp"

namespace collsim::out {
namespace {

// The thread of a rank's collective slices, beside its cpus (0..255).
constexpr int kCollectivesThread = 1000;
// The process of the link counter tracks, after every rank.
constexpr const char* kLinksProcessName = "links";

double us(std::int64_t ps) { return static_cast<double>(ps) / 1e6; }
double us(SimTime t) { return us(t.picoseconds()); }

std::string op_name(const goal::RankOps& ops, goal::LocalOp i, const std::string& context) {
  const std::string prefix = context.empty() ? "" : context + " ";
  switch (ops.kind(i)) {
    case goal::OpKind::Send:
      return prefix + "send " + format_byte_size(ops.size(i)) + " \u2192 " + std::to_string(ops.peer(i));
    case goal::OpKind::Recv:
      return prefix + "recv " + format_byte_size(ops.size(i)) + " \u2190 " + std::to_string(ops.peer(i));
    case goal::OpKind::Calc: return prefix + "calc";
  }
  return prefix + "op";
}

// The ranks whose ops are written: all, or every k-th when there are too many ops.
std::uint32_t rank_stride(const goal::Schedule& s, std::uint64_t max_slices) {
  const std::uint64_t ops = s.num_ops();
  if (ops <= max_slices || s.num_ranks() == 0) return 1;
  const std::uint64_t stride = (ops + max_slices - 1) / max_slices;
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(stride, s.num_ranks()));
}

void name_process(nlohmann::json& events, int pid, const std::string& name, int sort_index) {
  events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"args", {{"name", name}}}});
  events.push_back({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid}, {"args", {{"sort_index", sort_index}}}});
}

void name_thread(nlohmann::json& events, int pid, int tid, const std::string& name) {
  events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}});
}

// A flows run (no schedule): a process per sending host, each flow a slice.
nlohmann::json flow_trace(const RunResults& r, const TraceLimits& limits) {
  nlohmann::json events = nlohmann::json::array();
  std::map<std::uint32_t, bool> named;
  std::uint64_t slices = 0;
  for (const FlowRecord& f : r.flows) {
    if (!f.end || slices >= limits.max_op_slices) continue;
    if (!named[f.src_host]) {
      named[f.src_host] = true;
      name_process(events, static_cast<int>(f.src_host), "host " + std::to_string(f.src_host),
                   static_cast<int>(f.src_host));
    }
    events.push_back({{"ph", "X"},
                      {"name", "flow " + format_byte_size(f.bytes) + " \u2192 host " + std::to_string(f.dst_host)},
                      {"pid", static_cast<int>(f.src_host)}, {"tid", 0}, {"ts", us(f.start)},
                      {"dur", us(*f.end - f.start)}});
    ++slices;
  }
  return {{"traceEvents", events},
          {"displayTimeUnit", "ns"},
          {"otherData", {{"producer", "collsim"}, {"flow_slices", slices}, {"flows", r.flows.size()}}}};
}

}  // namespace

nlohmann::json trace_events(const RunResults& r, const TraceLimits& limits) {
  if (r.schedule == nullptr) return flow_trace(r, limits);
  nlohmann::json events = nlohmann::json::array();
  nlohmann::json other = {{"producer", "collsim"}};
  const goal::Schedule& s = *r.schedule;
  const std::uint32_t stride = rank_stride(s, limits.max_op_slices);
  const auto keeps_ops = [&](goal::RankId rank) { return rank % stride == 0; };
  other["ranks"] = s.num_ranks();
  other["ranks_with_ops_every"] = stride;

  // What each op belongs to: its collective's name, else its role.
  std::vector<std::int32_t> span_of(s.num_ops(), -1);
  for (std::size_t k = 0; k < r.collective_ops.size() && k < r.collectives.size(); ++k) {
    const goal::OpSpan& span = r.collective_ops[k];
    const std::uint64_t base = s.rank(span.rank).first_global_op();
    for (goal::LocalOp op = span.first; op < span.end; ++op) span_of[base + op] = static_cast<std::int32_t>(k);
  }
  const auto context = [&](std::uint64_t g) -> std::string {
    if (span_of[g] >= 0) return r.collective_names.at(r.collectives[static_cast<std::size_t>(span_of[g])].name);
    if (g < r.op_role.size() && r.op_role[g] < r.role_names.size()) return r.role_names[r.op_role[g]];
    return "";
  };

  std::vector<const exec::OpTime*> when(s.num_ops(), nullptr);  // null: no time recorded
  for (const exec::OpTime& t : r.op_times) when[s.rank(t.rank).first_global_op() + t.op] = &t;
  const auto started = [&](std::uint64_t g) { return when[g] ? when[g]->start : std::nullopt; };
  const auto ended = [&](std::uint64_t g) { return when[g] ? when[g]->end : std::nullopt; };

  std::uint64_t slices = 0, arrows = 0;
  for (goal::RankId rank = 0; rank < s.num_ranks(); ++rank) {
    const int pid = static_cast<int>(rank);
    name_process(events, pid, "rank " + std::to_string(rank), pid);
    if (!keeps_ops(rank)) continue;
    const goal::RankOps ops = s.rank(rank);
    std::vector<bool> seen(256, false);
    for (goal::LocalOp i = 0; i < ops.num_ops(); ++i) {
      const std::uint64_t g = ops.first_global_op() + i;
      const std::optional<SimTime> start = started(g), end = ended(g);
      if (!start || !end) continue;  // never ran (an incomplete run)
      const int tid = ops.cpu(i);
      if (!seen[static_cast<std::size_t>(tid)]) {
        seen[static_cast<std::size_t>(tid)] = true;
        name_thread(events, pid, tid, "cpu " + std::to_string(tid));
      }
      events.push_back({{"ph", "X"}, {"name", op_name(ops, i, context(g))}, {"pid", pid}, {"tid", tid},
                        {"ts", us(*start)}, {"dur", us(*end - *start)},
                        {"args", {{"op", i}, {ops.kind(i) == goal::OpKind::Calc ? "ns" : "bytes", ops.size(i)}}}});
      ++slices;
    }
  }

  // Messages: the k-th send from a to b with tag t meets the k-th receive at b from a with tag
  // t (the schedule names no wildcard where this matters; an unmatched end draws no arrow).
  std::map<std::tuple<goal::RankId, goal::RankId, std::uint32_t>, std::deque<std::uint64_t>> sends;
  for (goal::RankId rank = 0; rank < s.num_ranks(); ++rank) {
    if (!keeps_ops(rank)) continue;
    const goal::RankOps ops = s.rank(rank);
    for (goal::LocalOp i = 0; i < ops.num_ops(); ++i)
      if (ops.kind(i) == goal::OpKind::Send && ops.peer(i) < s.num_ranks() && keeps_ops(ops.peer(i)))
        sends[{rank, ops.peer(i), ops.tag(i)}].push_back(ops.first_global_op() + i);
  }
  for (goal::RankId rank = 0; rank < s.num_ranks(); ++rank) {
    if (!keeps_ops(rank)) continue;
    const goal::RankOps ops = s.rank(rank);
    for (goal::LocalOp i = 0; i < ops.num_ops(); ++i) {
      if (ops.kind(i) != goal::OpKind::Recv || ops.peer(i) >= s.num_ranks()) continue;
      const auto it = sends.find({ops.peer(i), rank, ops.tag(i)});
      if (it == sends.end() || it->second.empty()) continue;
      const std::uint64_t send = it->second.front();
      it->second.pop_front();
      const std::uint64_t recv = ops.first_global_op() + i;
      const std::optional<SimTime> sent = started(send), received = ended(recv);
      if (!sent || !received) continue;
      const goal::RankId from = ops.peer(i);
      const goal::RankOps from_ops = s.rank(from);
      const goal::LocalOp send_op = static_cast<goal::LocalOp>(send - from_ops.first_global_op());
      events.push_back({{"ph", "s"}, {"name", "message"}, {"cat", "message"}, {"id", arrows},
                        {"pid", static_cast<int>(from)}, {"tid", from_ops.cpu(send_op)}, {"ts", us(*sent)}});
      events.push_back({{"ph", "f"}, {"bp", "e"}, {"name", "message"}, {"cat", "message"}, {"id", arrows},
                        {"pid", static_cast<int>(rank)}, {"tid", ops.cpu(i)}, {"ts", us(*received)}});
      ++arrows;
    }
  }

  // Collectives, on every rank.
  std::vector<bool> named(s.num_ranks(), false);
  for (const CollectiveRecord& c : r.collectives) {
    if (!c.start || !c.end || c.rank >= s.num_ranks()) continue;
    if (!named[c.rank]) {
      named[c.rank] = true;
      name_thread(events, static_cast<int>(c.rank), kCollectivesThread, "collectives");
    }
    events.push_back({{"ph", "X"}, {"name", r.collective_names.at(c.name)}, {"pid", static_cast<int>(c.rank)},
                      {"tid", kCollectivesThread}, {"ts", us(*c.start)}, {"dur", us(*c.end - *c.start)}});
  }

  // The busiest link directions' utilisation and queue over the samples.
  const std::size_t directions = r.links.size();
  const std::size_t rows = r.samples.time_ps.size();
  if (directions > 0 && rows > 0 && r.samples.bytes.size() == rows * directions) {
    std::vector<std::size_t> order(directions);
    std::iota(order.begin(), order.end(), 0);
    const auto total = [&](std::size_t d) {
      return d < r.link_bytes_total.size() ? r.link_bytes_total[d] : std::uint64_t{0};
    };
    const std::size_t tracks = std::min<std::size_t>(limits.link_tracks, directions);
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(tracks), order.end(),
                      [&](std::size_t a, std::size_t b) { return total(a) > total(b); });
    const int pid = static_cast<int>(s.num_ranks());
    name_process(events, pid, kLinksProcessName, pid);
    const double interval_s = static_cast<double>(r.samples.interval_ps) / 1e12;
    for (std::size_t k = 0; k < tracks && total(order[k]) > 0; ++k) {
      const std::size_t d = order[k];
      const LinkDirection& link = r.links[d];
      const double capacity = static_cast<double>(link.bandwidth_bps) / 8 * interval_s;
      for (std::size_t t = 0; t < rows; ++t) {
        const std::uint64_t bytes = r.samples.bytes[t * directions + d];
        const std::uint64_t queued =
            r.samples.queue_bytes.size() == rows * directions ? r.samples.queue_bytes[t * directions + d] : 0;
        events.push_back({{"ph", "C"}, {"name", link.from + " \u2192 " + link.to}, {"pid", pid},
                          {"ts", us(r.samples.time_ps[t])},
                          {"args", {{"utilisation", capacity > 0 ? static_cast<double>(bytes) / capacity : 0.0},
                                    {"queue_bytes", queued}}}});
      }
    }
  }
  other["op_slices"] = slices;
  other["messages"] = arrows;
  return {{"traceEvents", events}, {"displayTimeUnit", "ns"}, {"otherData", other}};
}

void write_trace_events(const std::string& path, const RunResults& results, const TraceLimits& limits) {
  std::ofstream out(path);
  out << trace_events(results, limits).dump() << "\n";
  if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace collsim::out
