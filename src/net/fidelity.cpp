#include "collsim/net/fidelity.hpp"

#include <stdexcept>

namespace collsim::net {
namespace {

// The media a name stands for: network, nvlink, pcie, in that order.
struct Media {
  bool network = false, nvlink = false, pcie = false;
};

Media media_named(std::string_view name) {
  if (name == "network" || name == "scale-out") return {true, false, false};
  if (name == "nvlink") return {false, true, false};
  if (name == "pcie") return {false, false, true};
  if (name == "scale-up") return {false, true, true};
  if (name == "all") return {true, true, true};
  throw std::invalid_argument("unknown link kind '" + std::string(name) +
                              "' (network, nvlink, pcie, scale-up, scale-out, all)");
}

LinkModel model_named(std::string_view name) {
  if (name == "packet") return LinkModel::Packet;
  if (name == "flow") return LinkModel::Flow;
  throw std::invalid_argument("unknown model '" + std::string(name) + "' (packet, flow)");
}

// Calls f(medium name, model name) for each "name=model" of the list.
template <typename F>
void for_each_pair(std::string_view text, F&& f) {
  if (text.empty()) throw std::invalid_argument("an empty fidelity (expected e.g. nvlink=flow)");
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string_view pair = text.substr(at, comma - at);
    const std::size_t eq = pair.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == pair.size())
      throw std::invalid_argument("'" + std::string(pair) + "' is not link-kind=model (e.g. nvlink=flow)");
    f(pair.substr(0, eq), pair.substr(eq + 1));
    at = comma + 1;
  }
}

}  // namespace

LinkModel Fidelity::of(topo::LinkMedium medium) const {
  switch (medium) {
    case topo::LinkMedium::Network: return network;
    case topo::LinkMedium::NvLink: return nvlink;
    case topo::LinkMedium::Pcie: return pcie;
  }
  return network;
}

Fidelity uniform_fidelity(LinkModel model) { return {model, model, model}; }

Fidelity parse_fidelity(std::string_view text, Fidelity base) {
  for_each_pair(text, [&](std::string_view medium, std::string_view model) {
    const Media m = media_named(medium);
    const LinkModel value = model_named(model);
    if (m.network) base.network = value;
    if (m.nvlink) base.nvlink = value;
    if (m.pcie) base.pcie = value;
  });
  return base;
}

std::string_view to_string(LinkModel model) { return model == LinkModel::Flow ? "flow" : "packet"; }

std::string to_string(const Fidelity& f) {
  return "network=" + std::string(to_string(f.network)) + " nvlink=" + std::string(to_string(f.nvlink)) +
         " pcie=" + std::string(to_string(f.pcie));
}

void check_media_named(std::string_view text, const topo::Topology& topology) {
  Media present;
  for (const topo::Link& l : topology.links()) {
    present.network |= l.medium == topo::LinkMedium::Network;
    present.nvlink |= l.medium == topo::LinkMedium::NvLink;
    present.pcie |= l.medium == topo::LinkMedium::Pcie;
  }
  for_each_pair(text, [&](std::string_view medium, std::string_view) {
    const Media m = media_named(medium);
    if ((m.network && present.network) || (m.nvlink && present.nvlink) || (m.pcie && present.pcie)) return;
    throw std::invalid_argument("'" + std::string(medium) + "' names no link of topology '" + topology.name() +
                                "' (it has " +
                                (present.network ? std::string("network ") : std::string()) +
                                (present.nvlink ? "nvlink " : "") + (present.pcie ? "pcie " : "") + "links)");
  });
}

FlowDomains flow_domains(const topo::Topology& t, const Fidelity& fidelity) {
  FlowDomains d;
  d.domain_of_link.assign(t.links().size(), kNoDomain);
  if (!fidelity.any_flow()) return d;
  auto is_flow = [&](topo::LinkId l) { return fidelity.of(t.link(l).medium) == LinkModel::Flow; };
  // A switch carries messages of one model only.
  for (topo::NodeId n = 0; n < t.nodes().size(); ++n) {
    const topo::Node& node = t.node(n);
    if (node.kind == topo::NodeKind::Host) continue;
    bool flow = false, packet = false;
    for (const topo::Port& p : t.ports(n)) (is_flow(p.link) ? flow : packet) = true;
    if (flow && packet) {
      std::string kinds;
      for (const topo::Port& p : t.ports(n)) {
        const topo::Link& l = t.link(p.link);
        const std::string what = std::string(l.medium == topo::LinkMedium::Network  ? "network"
                                             : l.medium == topo::LinkMedium::NvLink ? "nvlink"
                                                                                    : "pcie") +
                                 "=" + std::string(to_string(fidelity.of(l.medium)));
        if (kinds.find(what) == std::string::npos) kinds += (kinds.empty() ? "" : ", ") + what;
      }
      throw std::invalid_argument("switch '" + node.name + "' has links of both models (" + kinds +
                                  "): a message through it would change model on its way; give its links one model");
    }
  }
  // Domains: flow links joined through switches (hosts do not forward).
  for (topo::LinkId first = 0; first < t.links().size(); ++first) {
    if (!is_flow(first) || d.domain_of_link[first] != kNoDomain) continue;
    const auto domain = static_cast<std::uint32_t>(d.home.size());
    topo::NodeId home = 0;
    bool has_switch = false;
    std::uint32_t count = 0;
    std::vector<topo::LinkId> stack{first};
    d.domain_of_link[first] = domain;
    while (!stack.empty()) {
      const topo::Link& l = t.link(stack.back());
      stack.pop_back();
      ++count;
      for (topo::NodeId end : {l.a, l.b}) {
        if (t.node(end).kind == topo::NodeKind::Host) continue;
        if (!has_switch || end < home) home = end;
        has_switch = true;
        for (const topo::Port& p : t.ports(end))
          if (d.domain_of_link[p.link] == kNoDomain) {
            d.domain_of_link[p.link] = domain;
            stack.push_back(p.link);
          }
      }
    }
    if (!has_switch)
      throw std::invalid_argument("the link between hosts '" + t.node(t.link(first).a).name + "' and '" +
                                  t.node(t.link(first).b).name +
                                  "' joins two hosts directly: flow links need a switch to run them; give it packets");
    d.home.push_back(home);
    d.links_in.push_back(count);
  }
  d.index_in_domain.assign(t.links().size(), 0);
  std::vector<std::uint32_t> placed(d.size(), 0);
  for (topo::LinkId l = 0; l < t.links().size(); ++l)
    if (d.domain_of_link[l] != kNoDomain) d.index_in_domain[l] = placed[d.domain_of_link[l]]++;
  return d;
}

}  // namespace collsim::net
