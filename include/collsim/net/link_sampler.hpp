#pragma once
// Link utilisation and queue occupancy over simulated time: at every sampling instant each
// rank reads the output ports of the devices it owns (bytes sent since the last sample, bytes
// queued now); after the run the samples are put together on rank 0.
//
// Memory stays bounded whatever the run's length: when `max_samples` are held, neighbouring
// pairs merge (bytes add up, the later queue reading stays) and the period doubles. Every rank
// does so at the same instants, so their samples line up.

#include <cstdint>
#include <vector>

#include "collsim/net/device.hpp"
#include "collsim/pdes/run_monitor.hpp"
#include "collsim/pdes/transport.hpp"
#include "collsim/topo/topology.hpp"

namespace collsim::net {

// Sample k covers [k·interval, (k+1)·interval) and is stamped with its end (interval being
// the final period, after any doubling). Matrices are
// row-major, one row per sample and one column per link direction (2·link + 0 for a → b,
// + 1 for b → a, as Fabric::link_bytes()).
struct LinkSamples {
  std::int64_t interval_ps = 0;
  std::vector<std::int64_t> time_ps;       // T
  std::vector<std::uint64_t> bytes;        // T × D: wire bytes sent during the sample
  std::vector<std::uint64_t> queue_bytes;  // T × D: bytes queued at the sample's end
};

// The direction of `link` that leaves node `from`: 2·link + 0 for a → b, + 1 for b → a.
inline std::uint64_t direction_slot(const topo::Topology& topology, topo::LinkId link, topo::NodeId from) {
  return 2ull * link + (topology.link(link).a == from ? 0 : 1);
}

class LinkSampler final : public pdes::TimeSampler {
 public:
  // `max_samples` must be even and at least 2.
  LinkSampler(const topo::Topology& topology, SimTime interval, std::size_t max_samples);
  // Every device this rank owns, before the run.
  void add(const Device& device);
  SimTime sample(SimTime at) override;
  SimTime interval() const { return interval_; }
  // Collective: every rank's samples, combined on rank 0 (empty elsewhere).
  LinkSamples gather(pdes::Transport& transport) const;

 private:
  void halve();
  const topo::Topology& topology_;
  SimTime interval_;
  std::size_t max_samples_;
  std::vector<std::uint64_t> slot_;  // per local port: its link direction
  std::vector<const OutputPort*> ports_;
  std::vector<std::uint64_t> last_bytes_;
  std::vector<std::int64_t> times_;
  std::vector<std::uint64_t> bytes_;   // T × local ports
  std::vector<std::uint64_t> queued_;  // T × local ports
};

}  // namespace collsim::net
