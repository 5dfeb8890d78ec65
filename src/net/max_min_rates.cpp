#include "collsim/net/max_min_rates.hpp"

#include <algorithm>
#include <stdexcept>

namespace collsim::net {

MaxMinRates::MaxMinRates(std::vector<double> capacity) {
  links_.resize(capacity.size());
  for (std::size_t l = 0; l < capacity.size(); ++l) {
    if (!(capacity[l] > 0)) throw std::invalid_argument("a link's capacity must be positive");
    links_[l].capacity = capacity[l];
  }
}

void MaxMinRates::touch(std::uint32_t link) {
  if (links_[link].dirty) return;
  links_[link].dirty = true;
  dirty_.push_back(link);
}

MaxMinRates::FlowIndex MaxMinRates::add(std::span<const std::uint32_t> links) {
  FlowIndex f;
  if (!free_.empty()) {
    f = free_.back();
    free_.pop_back();
  } else {
    f = static_cast<FlowIndex>(flows_.size());
    flows_.emplace_back();
  }
  Flow& flow = flows_[f];
  flow.links.assign(links.begin(), links.end());
  flow.rate = 0;
  flow.alive = true;
  for (std::uint32_t l : links) {
    if (l >= links_.size()) throw std::out_of_range("no link " + std::to_string(l));
    links_[l].flows.push_back(f);
    touch(l);
  }
  ++active_;
  return f;
}

void MaxMinRates::remove(FlowIndex f) {
  Flow& flow = flows_[f];
  for (std::uint32_t l : flow.links) {
    auto& on = links_[l].flows;
    const auto it = std::find(on.begin(), on.end(), f);
    *it = on.back();
    on.pop_back();
    touch(l);
  }
  flow.alive = false;
  flow.links.clear();
  flow.rate = 0;
  free_.push_back(f);
  --active_;
}

void MaxMinRates::solve_components() {
  for (std::uint32_t seed : dirty_) links_[seed].dirty = false;
  // Each dirty link's component, found by a breadth-first search over links and flows; a
  // component is solved once even if several of its links changed.
  const std::uint32_t round = ++visit_;
  for (std::uint32_t seed : dirty_) {
    if (links_[seed].mark == round) continue;
    component_links_.clear();
    component_flows_.clear();
    frontier_.assign(1, seed);
    links_[seed].mark = round;
    while (!frontier_.empty()) {
      const std::uint32_t l = frontier_.back();
      frontier_.pop_back();
      component_links_.push_back(l);
      for (FlowIndex f : links_[l].flows) {
        if (flows_[f].mark == round) continue;
        flows_[f].mark = round;
        component_flows_.push_back(f);
        for (std::uint32_t m : flows_[f].links)
          if (links_[m].mark != round) {
            links_[m].mark = round;
            frontier_.push_back(m);
          }
      }
    }
    if (!component_flows_.empty()) fill(component_links_, component_flows_);
  }
  dirty_.clear();
}

void MaxMinRates::fill(const std::vector<std::uint32_t>& links, const std::vector<FlowIndex>& flows) {
  flows_solved_ += flows.size();
  old_rate_.resize(flows.size());
  for (std::size_t k = 0; k < flows.size(); ++k) {
    old_rate_[k] = flows_[flows[k]].rate;
    flows_[flows[k]].rate = -1;  // not fixed yet
  }
  // Links by the share each of their unfixed flows would get, smallest first (ties by link
  // index, so that the order of fixing, and with it every rounding, is the same each run).
  heap_.clear();
  for (std::uint32_t l : links) {
    Link& link = links_[l];
    link.left = link.capacity;
    link.unfixed = static_cast<std::uint32_t>(link.flows.size());
    if (link.unfixed > 0) heap_.push_back({link.left / link.unfixed, l, link.unfixed});
  }
  std::make_heap(heap_.begin(), heap_.end(), std::greater<>());
  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
    const Share top = heap_.back();
    heap_.pop_back();
    Link& link = links_[top.link];
    if (link.unfixed == 0 || link.unfixed != top.unfixed) continue;  // a stale entry
    for (FlowIndex f : link.flows) {
      Flow& flow = flows_[f];
      if (flow.rate >= 0) continue;
      flow.rate = top.share;
      for (std::uint32_t m : flow.links) {
        Link& other = links_[m];
        other.left = std::max(0.0, other.left - top.share);
        --other.unfixed;
        if (m != top.link && other.unfixed > 0) {
          heap_.push_back({other.left / other.unfixed, m, other.unfixed});
          std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
        }
      }
    }
  }
  // A new flow's rate was 0.
  for (std::size_t k = 0; k < flows.size(); ++k)
    if (flows_[flows[k]].rate != old_rate_[k]) moved_.push_back(flows[k]);
}

}  // namespace collsim::net
