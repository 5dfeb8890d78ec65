#include "collsim/net/flow_driver.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "collsim/common/input_error.hpp"
#include "collsim/common/mapped_file.hpp"
#include "collsim/pdes/random_stream.hpp"

namespace collsim::net {

std::optional<FlowPattern> flow_pattern_from_name(std::string_view name) {
  if (name == "permutation") return FlowPattern::Permutation;
  if (name == "incast") return FlowPattern::Incast;
  if (name == "alltoall") return FlowPattern::AllToAll;
  if (name == "random") return FlowPattern::Random;
  return std::nullopt;
}

std::vector<FlowSpec> make_flow_pattern(FlowPattern pattern, std::uint32_t hosts, std::uint64_t bytes,
                                        std::uint64_t seed, std::uint32_t fan_in) {
  if (hosts < 2) throw std::invalid_argument("a traffic pattern needs at least 2 hosts");
  std::vector<FlowSpec> flows;
  pdes::RandomStream random(seed, 0x666c6f7773ull);
  switch (pattern) {
    case FlowPattern::Permutation: {
      // Sattolo's algorithm: a uniformly random cyclic permutation, so nobody sends to itself.
      std::vector<HostIndex> to(hosts);
      std::iota(to.begin(), to.end(), 0u);
      for (std::uint32_t i = hosts - 1; i > 0; --i) std::swap(to[i], to[random.below(i)]);
      for (HostIndex h = 0; h < hosts; ++h) flows.push_back({h, to[h], bytes, SimTime::zero()});
      break;
    }
    case FlowPattern::Incast:
      if (fan_in < 1 || fan_in >= hosts)
        throw std::invalid_argument("incast fan-in must be 1.." + std::to_string(hosts - 1));
      for (HostIndex h = 1; h <= fan_in; ++h) flows.push_back({h, 0, bytes, SimTime::zero()});
      break;
    case FlowPattern::AllToAll:
      for (HostIndex s = 0; s < hosts; ++s)
        for (HostIndex d = 0; d < hosts; ++d)
          if (s != d) flows.push_back({s, d, bytes, SimTime::zero()});
      break;
    case FlowPattern::Random:
      for (HostIndex h = 0; h < hosts; ++h) {
        auto d = static_cast<HostIndex>(random.below(hosts - 1));
        if (d >= h) ++d;
        flows.push_back({h, d, bytes, SimTime::zero()});
      }
      break;
  }
  return flows;
}

std::vector<FlowSpec> parse_flow_csv(const std::string& text, const std::string& file_name, std::uint32_t hosts) {
  std::vector<FlowSpec> flows;
  std::istringstream in(text);
  std::string line;
  std::uint64_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    std::vector<std::pair<std::string, std::size_t>> fields;  // text, column
    std::size_t at = 0;
    for (;;) {
      const auto comma = line.find(',', at);
      std::string field = line.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
      std::size_t lead = field.find_first_not_of(" \t");
      const std::size_t column = at + (lead == std::string::npos ? 0 : lead) + 1;
      field.erase(0, lead == std::string::npos ? field.size() : lead);
      while (!field.empty() && (field.back() == ' ' || field.back() == '\t')) field.pop_back();
      fields.emplace_back(field, column);
      if (comma == std::string::npos) break;
      at = comma + 1;
    }
    auto fail = [&](std::size_t column, const std::string& what) {
      throw InputError::at_text(file_name, line_no, column, what);
    };
    if (fields.size() != 4) fail(1, "expected 4 fields 'src,dst,bytes,start', found " + std::to_string(fields.size()));
    if (flows.empty() && fields[0].first == "src") continue;  // header
    auto host = [&](std::size_t i) {
      const auto& [f, column] = fields[i];
      std::uint64_t v = 0;
      const auto res = std::from_chars(f.data(), f.data() + f.size(), v);
      if (f.empty() || res.ec != std::errc() || res.ptr != f.data() + f.size())
        fail(column, "expected a host index, found '" + f + "'");
      if (v >= hosts) fail(column, "host " + f + " does not exist: the topology has " + std::to_string(hosts) + " hosts");
      return static_cast<HostIndex>(v);
    };
    FlowSpec spec;
    spec.src = host(0);
    spec.dst = host(1);
    if (spec.src == spec.dst) fail(fields[1].second, "a flow from host " + fields[0].first + " to itself");
    std::string error;
    const auto bytes = parse_byte_size(fields[2].first, &error);
    if (!bytes) fail(fields[2].second, error);
    spec.bytes = *bytes;
    const auto start = parse_duration(fields[3].first, &error);
    if (!start) fail(fields[3].second, error);
    spec.start = *start;
    flows.push_back(spec);
  }
  if (flows.empty()) throw InputError::in_file(file_name, "no flows (expected lines of 'src,dst,bytes,start')");
  return flows;
}

std::vector<FlowSpec> read_flow_csv(const std::string& path, std::uint32_t hosts) {
  const MappedFile file(path);
  return parse_flow_csv(std::string(file.text()), path, hosts);
}

namespace {

// The flows of each sender in the order it starts them: by start time, then input order.
// Its k-th flow gets the sender's flow number k, which lets any rank map (sender, number)
// back to the input.
std::vector<std::vector<std::uint32_t>> flows_by_sender(const std::vector<FlowSpec>& flows, std::uint32_t hosts) {
  std::vector<std::vector<std::uint32_t>> by(hosts);
  for (std::uint32_t i = 0; i < flows.size(); ++i) by[flows[i].src].push_back(i);
  for (auto& list : by)
    std::stable_sort(list.begin(), list.end(), [&](std::uint32_t a, std::uint32_t b) { return flows[a].start < flows[b].start; });
  return by;
}

struct Record {
  std::uint32_t flow;      // index in the input
  std::uint32_t kind;      // 0: delivered, 1: acked
  std::int64_t time_ps;
  std::uint64_t retransmits;
};

class FlowDriverApp final : public HostApp {
 public:
  FlowDriverApp(const std::vector<FlowSpec>& flows, const std::vector<std::vector<std::uint32_t>>& by_sender,
                std::vector<Record>& records)
      : flows_(flows), by_sender_(by_sender), records_(records) {}

  void start(Host& host) override {
    const auto& mine = by_sender_[host.index()];
    for (std::uint64_t k = 0; k < mine.size(); ++k) host.set_timer(flows_[mine[k]].start - host.time(), k);
  }
  void on_timer(Host& host, std::uint64_t k) override {
    const FlowSpec& f = flows_[by_sender_[host.index()][k]];
    host.start_flow(f.dst, f.bytes, 0, {}, f.nic);
  }
  void on_delivered(Host&, const FlowEnd& e) override {
    records_.push_back({by_sender_[e.src][e.flow], 0, e.end.picoseconds(), 0});
  }
  void on_acked(Host& host, const FlowEnd& e) override {
    records_.push_back({by_sender_[host.index()][e.flow], 1, e.end.picoseconds(), e.retransmits});
  }

 private:
  const std::vector<FlowSpec>& flows_;
  const std::vector<std::vector<std::uint32_t>>& by_sender_;
  std::vector<Record>& records_;
};

}  // namespace

FlowRun run_flows(const topo::Topology& topology, const FabricParams& params, pdes::Transport& transport,
                  const FabricOptions& options, const std::vector<FlowSpec>& flows) {
  for (const FlowSpec& f : flows)
    if (f.src >= topology.num_hosts() || f.dst >= topology.num_hosts() || f.src == f.dst)
      throw std::invalid_argument("flow " + std::to_string(f.src) + " -> " + std::to_string(f.dst) +
                                  " does not fit a topology of " + std::to_string(topology.num_hosts()) + " hosts");
  const auto by_sender = flows_by_sender(flows, topology.num_hosts());
  std::vector<Record> records;
  Fabric fabric(topology, params, transport, options, [&](HostIndex) {
    return std::make_unique<FlowDriverApp>(flows, by_sender, records);
  });
  // Work done: flows delivered on this rank (records of kind 0), counted as they come.
  std::size_t seen = 0;
  std::uint64_t delivered = 0;
  if (options.monitor)
    options.monitor->set_work_counter([&] {
      for (; seen < records.size(); ++seen) delivered += records[seen].kind == 0 ? 1 : 0;
      return delivered;
    });
  FlowRun run;
  run.stats = fabric.run();
  if (options.monitor) options.monitor->set_work_counter({});
  run.totals = fabric.totals();
  run.link_bytes = fabric.link_bytes();
  run.given_up = fabric.given_up();
  run.link_samples = fabric.link_samples();
  run.pfc_deadlock = fabric.pfc_deadlock();
  const std::vector<Record> all = pdes::gather_values(transport, records);
  if (transport.rank() == 0) {
    run.flows.resize(flows.size());
    for (std::size_t i = 0; i < flows.size(); ++i) run.flows[i].spec = flows[i];
    for (const Record& r : all) {
      FlowOutcome& o = run.flows[r.flow];
      if (r.kind == 0) {
        o.delivered = SimTime::ps(r.time_ps);
      } else {
        o.acked = SimTime::ps(r.time_ps);
        o.retransmits = r.retransmits;
      }
    }
  }
  return run;
}

}  // namespace collsim::net
