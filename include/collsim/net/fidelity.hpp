#pragma once
// Which model carries the messages of each kind of link: packets (the reference: queues, ECN,
// PFC, congestion control) or flows (each message a fluid at its max-min fair share of the
// links on its path; events per message, not per packet). Chosen per link medium, e.g.
// "nvlink=flow" for flows inside servers and packets between them.
//
// The flow links form domains: sets of links joined through switches. A message whose first
// link is a flow link stays in that link's domain to its receiver, so the models never meet
// inside a path; a switch with links of both models would break that, and is refused.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "collsim/topo/topology.hpp"

namespace collsim::net {

enum class LinkModel : std::uint8_t { Packet, Flow };

struct Fidelity {
  LinkModel network = LinkModel::Packet;
  LinkModel nvlink = LinkModel::Packet;
  LinkModel pcie = LinkModel::Packet;

  LinkModel of(topo::LinkMedium medium) const;
  bool any_flow() const { return network == LinkModel::Flow || nvlink == LinkModel::Flow || pcie == LinkModel::Flow; }
  bool all(LinkModel m) const { return network == m && nvlink == m && pcie == m; }
  bool operator==(const Fidelity&) const = default;
};

// Every medium under one model.
Fidelity uniform_fidelity(LinkModel model);
// "nvlink=flow,network=packet": comma-separated medium=model pairs over `base`; media are
// network, nvlink, pcie, scale-up (nvlink and pcie), scale-out (network) and all; models are
// packet and flow. Throws std::invalid_argument naming what it did not understand.
Fidelity parse_fidelity(std::string_view text, Fidelity base = {});
// "network=packet nvlink=flow pcie=flow"
std::string to_string(const Fidelity& fidelity);
std::string_view to_string(LinkModel model);

inline constexpr std::uint32_t kNoDomain = 0xFFFFFFFFu;

// The flow domains of a topology under a fidelity.
struct FlowDomains {
  std::vector<std::uint32_t> domain_of_link;  // by link: its domain, or kNoDomain for a packet link
  std::vector<topo::NodeId> home;             // by domain: the switch whose LP simulates it
  std::vector<std::uint32_t> links_in;        // by domain: how many links it has
  // By flow link: its place among its domain's links, in link order (its directions are that
  // domain's 2i and 2i + 1, the first leaving the link's end a).
  std::vector<std::uint32_t> index_in_domain;
  std::size_t size() const { return home.size(); }
  bool empty() const { return home.empty(); }
};

// Throws std::invalid_argument when a switch has links of both models, or when a flow link
// joins two hosts directly (a domain needs a switch to run it).
FlowDomains flow_domains(const topo::Topology& topology, const Fidelity& fidelity);
// Throws std::invalid_argument when `text` (as parse_fidelity reads it) names a medium the
// topology has no link of: "pcie=flow" on a network without PCIe links is a mistake.
void check_media_named(std::string_view text, const topo::Topology& topology);

}  // namespace collsim::net
