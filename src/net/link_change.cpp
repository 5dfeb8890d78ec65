#include "collsim/net/link_change.hpp"

#include <stdexcept>
#include <string>

namespace collsim::net {

topo::LinkId named_link(const std::string& text, const std::string& a, const std::string& b, const topo::Topology& t) {
  const auto na = t.find(a), nb = t.find(b);
  if (!na) throw std::invalid_argument("'" + text + "': " + t.name() + " has no node '" + a + "'");
  if (!nb) throw std::invalid_argument("'" + text + "': " + t.name() + " has no node '" + b + "'");
  for (const topo::Port& p : t.ports(*na))
    if (p.peer == *nb) return p.link;
  throw std::invalid_argument("'" + text + "': no link between " + a + " and " + b);
}

LinkChange parse_link_change(std::string_view text, const topo::Topology& t) {
  const std::string s(text);
  const auto colon = s.find(':'), at = s.find('@', colon == std::string::npos ? 0 : colon), eq = s.find('=', at == std::string::npos ? 0 : at);
  if (colon == std::string::npos || at == std::string::npos || eq == std::string::npos)
    throw std::invalid_argument("'" + s + "': expected NODE_A:NODE_B@TIME=BANDWIDTH (pod0_agg2:pod0_edge2@1ms=50Gbps)");
  LinkChange c;
  c.link = named_link(s, s.substr(0, colon), s.substr(colon + 1, at - colon - 1), t);
  std::string error;
  const auto when = parse_duration(s.substr(at + 1, eq - at - 1), &error);
  if (!when || *when < SimTime::zero()) throw std::invalid_argument("'" + s + "': the time: " + (error.empty() ? "must not be negative" : error));
  c.at = *when;
  const auto bw = parse_bandwidth(s.substr(eq + 1), &error);
  if (!bw) throw std::invalid_argument("'" + s + "': the bandwidth: " + error);
  if (bw->bps() <= 0)
    throw std::invalid_argument("'" + s + "': a bandwidth of 0 would take the link down, which is not modelled; give a lower speed");
  c.bandwidth = *bw;
  return c;
}

}  // namespace collsim::net
