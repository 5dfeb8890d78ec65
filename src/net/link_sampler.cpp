#include "collsim/net/link_sampler.hpp"

#include <algorithm>
#include <stdexcept>

namespace collsim::net {

LinkSampler::LinkSampler(const topo::Topology& topology, SimTime interval, std::size_t max_samples)
    : topology_(topology), interval_(interval), max_samples_(max_samples) {
  if (interval <= SimTime::zero()) throw std::invalid_argument("the link sampling interval must be positive");
  if (max_samples < 2 || max_samples % 2 != 0)
    throw std::invalid_argument("the number of link samples kept must be even and at least 2, not " +
                                std::to_string(max_samples));
}

void LinkSampler::add(const Device& device) {
  const auto& ports = topology_.ports(device.node());
  for (std::size_t i = 0; i < ports.size(); ++i) {
    slot_.push_back(direction_slot(topology_, ports[i].link, device.node()));
    ports_.push_back(&device.ports()[i]);
    last_bytes_.push_back(device.ports()[i].stats().bytes);
  }
}

SimTime LinkSampler::sample(SimTime at) {
  times_.push_back(at.picoseconds());
  for (std::size_t i = 0; i < ports_.size(); ++i) {
    const OutputPort& port = *ports_[i];
    // A port counts a packet's bytes when it starts sending it; the part still to go out at
    // `at` belongs to the next sample, so that a busy link reads as exactly its line rate.
    std::uint64_t sent = port.stats().bytes;
    if (port.busy_until() > at) {
      const double unsent = static_cast<double>((port.busy_until() - at).picoseconds()) *
                            static_cast<double>(port.wire().bandwidth.bps()) / 8e12;
      sent -= std::min(sent, static_cast<std::uint64_t>(unsent));
    }
    sent = std::max(sent, last_bytes_[i]);
    bytes_.push_back(sent - last_bytes_[i]);
    last_bytes_[i] = sent;
    queued_.push_back(port.queued_bytes());
  }
  // Merging now keeps the rows aligned: the last one still ends at `at`, and the next
  // covers a whole doubled period from there.
  if (times_.size() == max_samples_) halve();
  return at.saturating_add(interval_);
}

void LinkSampler::halve() {
  const std::size_t width = ports_.size();
  const std::size_t half = times_.size() / 2;
  for (std::size_t t = 0; t < half; ++t) {
    times_[t] = times_[2 * t + 1];
    for (std::size_t p = 0; p < width; ++p) {
      bytes_[t * width + p] = bytes_[2 * t * width + p] + bytes_[(2 * t + 1) * width + p];
      queued_[t * width + p] = queued_[(2 * t + 1) * width + p];
    }
  }
  times_.resize(half);
  bytes_.resize(half * width);
  queued_.resize(half * width);
  interval_ = interval_ + interval_;
}

LinkSamples LinkSampler::gather(pdes::Transport& transport) const {
  const std::uint64_t mine[] = {slot_.size(), times_.size()};
  const auto shapes = pdes::gather_values(transport, std::span<const std::uint64_t>(mine));
  const auto slots = pdes::gather_values(transport, slot_);
  const auto bytes = pdes::gather_values(transport, bytes_);
  const auto queued = pdes::gather_values(transport, queued_);
  LinkSamples out;
  if (transport.rank() != 0) return out;
  out.interval_ps = interval_.picoseconds();
  out.time_ps = times_;
  const std::size_t t_count = times_.size();
  const std::size_t width = 2 * topology_.links().size();
  out.bytes.assign(t_count * width, 0);
  out.queue_bytes.assign(t_count * width, 0);
  // Rank r's block is T × (its port count), row-major, after the blocks of ranks before it.
  std::size_t port_at = 0;
  std::size_t value_at = 0;
  for (std::size_t r = 0; 2 * r < shapes.size(); ++r) {
    const std::size_t ports = shapes[2 * r];
    if (shapes[2 * r + 1] != t_count)
      throw std::logic_error("ranks took different numbers of link samples (" + std::to_string(shapes[2 * r + 1]) +
                             " and " + std::to_string(t_count) + ")");
    for (std::size_t t = 0; t < t_count; ++t)
      for (std::size_t p = 0; p < ports; ++p) {
        const std::size_t to = t * width + slots[port_at + p];
        out.bytes[to] = bytes[value_at + t * ports + p];
        out.queue_bytes[to] = queued[value_at + t * ports + p];
      }
    port_at += ports;
    value_at += t_count * ports;
  }
  return out;
}

}  // namespace collsim::net
