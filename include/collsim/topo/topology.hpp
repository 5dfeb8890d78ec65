#pragma once
// A network as the fabric simulates it: nodes (hosts, switches, NVSwitches) joined by
// full-duplex links. Built from a YAML file (a generator with its parameters, or an explicit
// node/link list) and validated once; read-only afterwards.
//
// Port numbering: a node's ports are its links in the order the links were added (for a
// file, the order the generator or the list produced them). Host ranks: hosts are numbered
// 0..H-1 in the order they were added; that number is what placements and schedules use.

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "collsim/common/units.hpp"
#include "collsim/common/sim_time.hpp"

namespace collsim::topo {

using NodeId = std::uint32_t;
using LinkId = std::uint32_t;
using PortIndex = std::uint16_t;

enum class NodeKind : std::uint8_t { Host, Switch, NvSwitch };

std::string_view to_string(NodeKind kind);

// What a switch does with its buffers (the fabric's defaults come from the file's `switch:`).
struct SwitchParams {
  SimTime latency = SimTime::zero();  // from a packet's arrival to its enqueueing
  std::uint64_t buffer_bytes = 32ull << 20;        // shared by all ports, or per port
  bool shared_buffer = true;
};

struct Node {
  std::string name;
  NodeKind kind = NodeKind::Switch;
  // Hosts: the server (node of GPUs) it belongs to in GPU clusters, else its own index.
  std::uint32_t server = 0;
  // Hosts: index among hosts. Switches: index among switches (both kinds).
  std::uint32_t index = 0;
  SwitchParams params;
};

enum class LinkMedium : std::uint8_t { Network, NvLink, Pcie };

struct Link {
  NodeId a = 0;
  NodeId b = 0;
  PortIndex port_a = 0;  // which port of a / of b this link is
  PortIndex port_b = 0;
  Bandwidth bandwidth;   // each direction
  SimTime latency;  // propagation, each direction
  LinkMedium medium = LinkMedium::Network;
};

struct Port {
  LinkId link;
  NodeId peer;
  PortIndex peer_port;
};

// Structure kept for routing algorithms that are not shortest-path tables.
struct TorusShape {
  std::vector<std::uint32_t> dims;  // switch i has coordinates i = x0 + d0*(x1 + d1*(x2 ...))
};
struct DragonflyShape {
  std::uint32_t groups = 0;
  std::uint32_t routers_per_group = 0;
  std::uint32_t hosts_per_router = 0;
  // router r is in group r / routers_per_group (routers are the first switches, in order)
};

// Added by the topology module: the bisection bandwidth a generator derived in closed form from
// its parameters (see generators.hpp). compute_metrics() reports it; explicit topologies have none.
struct ClosedFormBisection {
  std::int64_t bps = 0;  // capacity, one direction, of a cut splitting the hosts into two halves
  // true: proven to be the smallest such cut; false: one good cut, an upper bound on the smallest
  bool exact = false;
  std::string formula;  // how it was derived, e.g. "min(H/2*host_bw, k^3/8*link_bw)"
};

class Topology {
 public:
  // Building (generators and the loader use these). add_node throws std::invalid_argument
  // for a duplicate name; add_link for an unknown node, a self-loop, zero bandwidth, a
  // negative latency, or a node with 65535 ports.
  NodeId add_node(std::string name, NodeKind kind, SwitchParams params = {}, std::uint32_t server = 0);
  LinkId add_link(NodeId a, NodeId b, Bandwidth bandwidth, SimTime latency, LinkMedium medium = LinkMedium::Network);
  void set_name(std::string name) { name_ = std::move(name); }
  void set_kind(std::string kind) { kind_ = std::move(kind); }
  void set_torus(TorusShape shape) { torus_ = std::move(shape); }
  void set_dragonfly(DragonflyShape shape) { dragonfly_ = shape; }
  void set_closed_form_bisection(ClosedFormBisection b) { bisection_ = std::move(b); }

  const std::string& name() const { return name_; }
  const std::string& kind() const { return kind_; }  // generator name, or "explicit"
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<Link>& links() const { return links_; }
  const Node& node(NodeId id) const { return nodes_[id]; }
  const Link& link(LinkId id) const { return links_[id]; }
  const std::vector<Port>& ports(NodeId id) const { return ports_[id]; }
  // Node of host rank h, h in [0, num_hosts()).
  NodeId host(std::uint32_t h) const { return hosts_[h]; }
  std::uint32_t num_hosts() const { return static_cast<std::uint32_t>(hosts_.size()); }
  std::uint32_t num_switches() const { return static_cast<std::uint32_t>(nodes_.size() - hosts_.size()); }
  std::optional<NodeId> find(const std::string& name) const;
  // Hosts that share the first host's server: the GPUs per server of a GPU cluster, 1 on
  // networks whose hosts are servers of their own (and 0 without hosts).
  std::uint32_t hosts_per_server() const;
  const std::optional<TorusShape>& torus() const { return torus_; }
  const std::optional<DragonflyShape>& dragonfly() const { return dragonfly_; }
  const std::optional<ClosedFormBisection>& closed_form_bisection() const { return bisection_; }

 private:
  std::string name_;
  std::string kind_ = "explicit";
  std::vector<Node> nodes_;
  std::vector<Link> links_;
  std::vector<std::vector<Port>> ports_;
  std::vector<NodeId> hosts_;
  std::uint32_t switches_ = 0;
  std::unordered_map<std::string, NodeId> by_name_;
  std::optional<TorusShape> torus_;
  std::optional<DragonflyShape> dragonfly_;
  std::optional<ClosedFormBisection> bisection_;
};

}  // namespace collsim::topo
