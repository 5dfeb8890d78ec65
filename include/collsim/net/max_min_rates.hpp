#pragma once
// Max-min fair rates of flows over links of fixed capacity, by progressive filling: every flow
// not yet fixed grows at the same pace until a link is full; the flows through that link keep
// the rate they reached, and the rest go on. A flow's rate is then as large as it can be
// without taking from a flow whose rate is not larger.
//
// Flows come and go; solve() recomputes only the connected components (flows linked through
// shared links) whose set of flows changed since the last solve, since no other rate can
// move, and reports each flow whose rate did.

#include <cstdint>
#include <span>
#include <vector>

namespace collsim::net {

class MaxMinRates {
 public:
  using FlowIndex = std::uint32_t;

  // Capacity of each link (bits per second), by link index.
  explicit MaxMinRates(std::vector<double> capacity);

  // A flow over `links` (each at most once); its rate is 0 until the next solve(). Indices of
  // removed flows are reused.
  FlowIndex add(std::span<const std::uint32_t> links);
  void remove(FlowIndex f);

  // Recomputes the components that changed; calls changed(f) for every flow whose rate is
  // not what it was (new flows included).
  template <typename F>
  void solve(F&& changed) {
    solve_components();
    for (FlowIndex f : moved_) changed(f);
    moved_.clear();
  }

  double rate(FlowIndex f) const { return flows_[f].rate; }
  std::span<const std::uint32_t> links(FlowIndex f) const { return flows_[f].links; }
  std::size_t num_links() const { return links_.size(); }
  std::size_t active_flows() const { return active_; }
  // Flows whose rates the last solves recomputed, in all: what the solves cost.
  std::uint64_t flows_solved() const { return flows_solved_; }

 private:
  struct Flow {
    std::vector<std::uint32_t> links;
    double rate = 0;
    bool alive = false;
    std::uint32_t mark = 0;  // the solve that last visited it
  };
  struct Link {
    double capacity = 0;
    std::vector<FlowIndex> flows;
    std::uint32_t mark = 0;
    bool dirty = false;
    // Progressive filling's state while a solve visits the link.
    double left = 0;
    std::uint32_t unfixed = 0;
  };
  void touch(std::uint32_t link);
  void solve_components();
  void fill(const std::vector<std::uint32_t>& links, const std::vector<FlowIndex>& flows);

  std::vector<Flow> flows_;
  std::vector<Link> links_;
  std::vector<FlowIndex> free_;
  std::vector<std::uint32_t> dirty_;
  std::vector<FlowIndex> moved_;
  std::uint32_t visit_ = 0;
  std::size_t active_ = 0;
  std::uint64_t flows_solved_ = 0;
  // A link's fair share in progressive filling's heap.
  struct Share {
    double share;
    std::uint32_t link;
    std::uint32_t unfixed;  // its unfixed flows when queued: a later entry supersedes it
    bool operator>(const Share& o) const { return share > o.share || (share == o.share && link > o.link); }
  };
  // Scratch of a solve, kept to spare allocations.
  std::vector<Share> heap_;
  std::vector<std::uint32_t> component_links_, frontier_;
  std::vector<FlowIndex> component_flows_;
  std::vector<double> old_rate_;
};

}  // namespace collsim::net
