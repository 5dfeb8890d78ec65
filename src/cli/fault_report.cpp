#include "fault_report.hpp"

#include <iomanip>
#include <map>
#include <sstream>

#include "collsim/common/units.hpp"

namespace collsim::cli {

namespace {

std::string window(const net::LinkFault& f) {
  return "down " + format_duration(f.down) + (f.up.is_infinite() ? " for good" : ".." + format_duration(f.up));
}

std::string reconvergence_text(const FabricCliOptions& o) {
  return format_duration(o.options().reconvergence);
}

}  // namespace

nlohmann::json fault_json(const FabricCliOptions& o, const topo::Topology& t, const net::FabricTotals& tot,
                          const std::vector<net::FlowEnd>& given_up_flows) {
  nlohmann::json events = nlohmann::json::array();
  for (const net::LinkFault& f : o.link_faults(t))
    events.push_back({{"what", f.what},
                      {"down_ps", f.down.picoseconds()},
                      {"up_ps", f.up.is_infinite() ? nlohmann::json(nullptr) : nlohmann::json(f.up.picoseconds())}});
  nlohmann::json given_up = nlohmann::json::array();
  for (const net::FlowEnd& f : given_up_flows)
    given_up.push_back({{"src_host", f.src}, {"dst_host", f.dst}, {"bytes", f.bytes}, {"start_ps", f.start.picoseconds()},
                        {"given_up_ps", f.end.picoseconds()}});
  nlohmann::json j = {{"events", events},
                      {"reconvergence_ps", o.options().reconvergence.picoseconds()},
                      {"packets_lost", tot.packets_lost},
                      {"flows_resent", tot.flows_resent},
                      {"flows", tot.flows_started},
                      {"retransmits", tot.retransmits},
                      {"timeouts", tot.timeouts},
                      {"flows_given_up", tot.flows_given_up},
                      {"given_up", given_up}};
  return {{"faults", j}};
}

nlohmann::json fault_cost_json(std::optional<SimTime> with, SimTime without) {
  nlohmann::json j = {{"makespan_without_faults_ps", without.picoseconds()}};
  if (with) j["slowdown"] = without > SimTime::zero() ? static_cast<double>(with->picoseconds()) /
                                                            static_cast<double>(without.picoseconds())
                                                      : 1.0;
  return j;
}

std::string fault_lines(const FabricCliOptions& o, const topo::Topology& t, const net::FabricTotals& tot) {
  std::ostringstream out;
  std::string list;
  for (const net::LinkFault& f : o.link_faults(t)) list += (list.empty() ? "" : ", ") + f.what + " " + window(f);
  out << "faults        " << list << "; routes reconverge " << reconvergence_text(o) << " after each change\n"
      << "              " << tot.packets_lost << " packets lost; " << tot.flows_resent << " of " << tot.flows_started
      << " flows resent (" << tot.retransmits << " packets, " << tot.timeouts << " timeouts)";
  if (tot.flows_given_up > 0) out << "; " << tot.flows_given_up << " given up (destination cut off)";
  out << "\n";
  return out.str();
}

std::string fault_cost_line(SimTime with, SimTime without) {
  std::ostringstream out;
  const double us = static_cast<double>((with - without).picoseconds()) / 1e6;
  out << std::fixed << std::setprecision(3) << "              without the faults: "
      << static_cast<double>(without.picoseconds()) / 1e6 << " us; they cost " << (us >= 0 ? "+" : "") << us << " us";
  if (without > SimTime::zero())
    out << std::setprecision(1) << " ("
        << 100.0 * static_cast<double>((with - without).picoseconds()) / static_cast<double>(without.picoseconds())
        << " %)";
  out << "\n";
  return out.str();
}

void report_given_up(std::ostream& out, const std::vector<net::FlowEnd>& given_up) {
  if (given_up.empty()) return;
  struct Pair {
    std::size_t messages = 0;
    std::uint64_t bytes = 0;
  };
  std::map<std::pair<std::uint32_t, std::uint32_t>, Pair> pairs;
  for (const net::FlowEnd& f : given_up) {
    Pair& p = pairs[{f.src, f.dst}];
    ++p.messages;
    p.bytes += f.bytes;
  }
  out << "  " << pairs.size() << " pair(s) of hosts cannot reach each other once the faults settle (messages "
      << "given up; the blocked ops below wait on them):\n";
  constexpr std::size_t kShown = 100;
  std::size_t shown = 0;
  for (const auto& [hosts, p] : pairs) {
    if (shown++ == kShown) {
      out << "  ... and " << pairs.size() - kShown << " more pairs (all in --json)\n";
      break;
    }
    out << "  cut off   host " << hosts.first << " -> host " << hosts.second << ": " << p.messages << " message(s), "
        << format_byte_size(p.bytes) << "\n";
  }
}

}  // namespace collsim::cli
