#pragma once
// A network of hosts and switches on the PDES engine: one LP per node of the topology
// (LP id = node id), placed on ranks by a partitioner that keeps zero-latency links inside a
// rank. Each rank builds only the devices it owns, and routes only at them.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "collsim/net/fabric_params.hpp"
#include "collsim/net/fidelity.hpp"
#include "collsim/net/flow_domain.hpp"
#include "collsim/net/host_device.hpp"
#include "collsim/net/link_change.hpp"
#include "collsim/net/link_fault.hpp"
#include "collsim/net/link_sampler.hpp"
#include "collsim/net/port_chooser.hpp"
#include "collsim/net/routing_table.hpp"
#include "collsim/net/sealed_islands.hpp"
#include "collsim/net/switch_device.hpp"
#include "collsim/pdes/engine.hpp"
#include "collsim/topo/topology.hpp"

namespace collsim::net {

struct FabricOptions {
  pdes::PartitionMethod partition = pdes::PartitionMethod::Metis;
  SimTime end_time = SimTime::infinity();
  pdes::QueueKind queue = pdes::QueueKind::Wheel;
  // Optional: hears progress, and gets a link meter installed (see pdes::RunMonitor).
  pdes::RunMonitor* monitor = nullptr;
  // Finite: link bytes and queue occupancy are sampled at this period (see link_samples()),
  // which doubles whenever max_samples are held.
  SimTime sample_interval = SimTime::infinity();
  std::size_t max_samples = 1024;
  // Hosts that run something, by host index (empty: all): the partition balances their load
  // (see lp_graph_of).
  std::vector<bool> busy_hosts;
  // Hosts of one class (1, 2, ...; 0: none) are busy at the same time, by host index (empty:
  // none known): the partition spreads each class over the ranks (see pdes::LpGraph).
  std::vector<std::uint32_t> busy_together;
  // Which links run the flow model (the rest are packets).
  Fidelity fidelity;
  // Packet links whose speed changes during the run.
  std::vector<LinkChange> link_changes;
  // Links and switches that fail during the run, and how long after each change of the set
  // of down links routes take to follow it (see LinkFault).
  std::vector<LinkFault> link_faults;
  SimTime reconvergence = SimTime::ms(1);
};

// Totals over every device of every rank.
struct FabricTotals {
  std::uint64_t flows_started = 0;
  std::uint64_t flows_delivered = 0;
  std::uint64_t flows_acked = 0;
  std::uint64_t bytes_delivered = 0;
  std::uint64_t data_packets = 0;
  std::uint64_t packets_in_trains = 0;  // data packets sent inside trains (steady-state fast-forward)
  std::uint64_t retransmits = 0;
  std::uint64_t flows_resent = 0;       // flows that retransmitted
  std::uint64_t timeouts = 0;
  std::uint64_t acks = 0;
  std::uint64_t nacks = 0;
  std::uint64_t cnps = 0;
  std::uint64_t packets_forwarded = 0;  // switch hops
  std::uint64_t drops = 0;
  std::uint64_t drops_despite_pfc = 0;
  std::uint64_t ecn_marks = 0;
  std::uint64_t pfc_pauses = 0;
  std::uint64_t max_switch_buffer_bytes = 0;
  std::uint64_t flow_messages = 0;      // carried by flow domains
  std::uint64_t flow_rate_changes = 0;  // messages re-rated by a flow domain
  std::uint64_t packets_lost = 0;       // to failed links: on their wires, queued for them, or with no live route
  std::uint64_t flows_given_up = 0;     // their destination was cut off for good
};

using HostAppFactory = std::function<std::unique_ptr<HostApp>(HostIndex)>;

class Fabric {
 public:
  // Collective: every rank calls it with the same arguments.
  Fabric(const topo::Topology& topology, const FabricParams& params, pdes::Transport& transport,
         const FabricOptions& options, const HostAppFactory& make_app);
  ~Fabric();

  pdes::RunStats run();
  // After run(): totals over all ranks (collective).
  FabricTotals totals();
  // After run(): a cycle of PFC-paused ports that can never resume ("s1 port 2 -> s4 port 0
  // -> ... -> s1 port 2"), on rank 0, or an empty string (collective). A paused port waits
  // for the downstream switch to drain the ingress it feeds; if the packets holding that
  // ingress are queued at ports that are paused themselves, and those in turn wait back on
  // the first, nothing moves again.
  std::string pfc_deadlock();
  // After run(): wire bytes sent on each direction of each link, on rank 0 (collective).
  // Index 2 * link + 0 for the direction a -> b, + 1 for b -> a.
  std::vector<std::uint64_t> link_bytes();
  // After run(): the messages given up because a fault cut their destination off for good,
  // on rank 0 by source, flow (collective).
  std::vector<FlowEnd> given_up();
  // After run(): the link samples asked for by FabricOptions::sample_interval, on rank 0
  // (collective; empty when not sampling).
  LinkSamples link_samples();

  pdes::Engine& engine() { return *engine_; }
  const topo::Topology& topology() const { return topology_; }
  // The devices this rank owns.
  const std::vector<Host*>& local_hosts() const { return hosts_; }
  const std::vector<Switch*>& local_switches() const { return switches_; }
  const std::vector<FlowDomain*>& local_flow_domains() const { return flow_domains_; }
  const FlowDomains& domains() const { return domains_; }

 private:
  const topo::Topology& topology_;
  FabricParams params_;
  pdes::Transport& transport_;
  FlowDomains domains_;
  SealedIslands sealed_;
  std::vector<LinkChange> link_changes_;
  FaultSchedule faults_;
  // Per routing epoch of faults_ (one when nothing fails).
  std::vector<std::unique_ptr<RoutingTable>> tables_;
  std::vector<std::unique_ptr<PortChooser>> choosers_;
  std::vector<std::unique_ptr<Reachability>> reach_;
  std::vector<FabricContext::Routes> routes_;
  std::unique_ptr<FabricContext> context_;
  std::unique_ptr<LinkSampler> sampler_;
  pdes::RunMonitor* monitor_ = nullptr;
  std::unique_ptr<pdes::Engine> engine_;
  std::vector<Host*> hosts_;
  std::vector<Switch*> switches_;
  std::vector<FlowDomain*> flow_domains_;
};

// The LP graph of a topology: one LP per node, one edge per link with its latency. An LP's
// weight, its expected load, is its number of ports; when some hosts run nothing
// (`busy_hosts`, by host index; empty: all busy), only busy hosts and the switch ports that
// face them weigh, so that a job on part of a cluster is split over the ranks rather than
// balanced against the idle rest. With flow domains, each host of a domain is also joined to the
// domain's home by the latency of its link into the domain: the flow model's events travel
// between them. `busy_together` (by host index, or empty) gives hosts their classes.
pdes::LpGraph lp_graph_of(const topo::Topology& topology, const std::vector<bool>& busy_hosts = {},
                          const FlowDomains* domains = nullptr, const std::vector<std::uint32_t>& busy_together = {});

}  // namespace collsim::net
