#include "collsim/net/congestion_control.hpp"

#include <algorithm>
#include <cmath>

namespace collsim::net {

namespace {

class LineRate final : public CongestionControl {
 public:
  LineRate(const FabricParams& params, Bandwidth line)
      : CongestionControl(false), params_(params), line_gbps_(static_cast<double>(line.bps()) / 1e9) {}
  std::uint64_t window_bytes() const override { return params_.window_bytes ? params_.window_bytes : UINT64_MAX; }
  SimTime gap(std::uint32_t) const override { return SimTime::zero(); }
  double rate_gbps() const override { return line_gbps_; }

 private:
  const FabricParams& params_;
  double line_gbps_;
};

}  // namespace

std::unique_ptr<CongestionControl> make_congestion_control(const FabricParams& params, Bandwidth line_rate,
                                                           SimTime start) {
  switch (params.cc) {
    case CongestionControlKind::Dcqcn: return std::make_unique<Dcqcn>(params, line_rate, start);
    case CongestionControlKind::Swift: return std::make_unique<Swift>(params, line_rate);
    case CongestionControlKind::None: break;
  }
  return std::make_unique<LineRate>(params, line_rate);
}

// ---- DCQCN ----

Dcqcn::Dcqcn(const FabricParams& params, Bandwidth line_rate, SimTime start)
    : CongestionControl(true),
      params_(params),
      line_gbps_(static_cast<double>(line_rate.bps()) / 1e9),
      rate_(line_gbps_),
      target_(line_gbps_),
      next_alpha_(SimTime::infinity()),
      next_increase_(SimTime::infinity()) {
  (void)start;
}

SimTime Dcqcn::gap(std::uint32_t wire_bytes) const {
  if (rate_ >= line_gbps_) return SimTime::zero();
  // bits / (Gbit/s) = ns; in ps, rounded up.
  return SimTime::ps(static_cast<std::int64_t>(std::ceil(wire_bytes * 8.0 * 1000.0 / rate_)));
}

void Dcqcn::on_sent(SimTime, std::uint32_t wire_bytes) {
  if (next_increase_.is_infinite()) return;  // at line rate, nothing to recover
  bytes_since_step_ += wire_bytes;
  if (bytes_since_step_ >= params_.dcqcn_byte_counter) {
    bytes_since_step_ = 0;
    ++byte_steps_;
    increase();
  }
}

void Dcqcn::on_cnp(SimTime now) {
  target_ = rate_;
  rate_ = std::max(params_.dcqcn_min_rate_gbps, rate_ * (1 - alpha_ / 2));
  alpha_ = (1 - params_.dcqcn_g) * alpha_ + params_.dcqcn_g;
  cnp_since_alpha_update_ = true;
  timer_steps_ = 0;
  byte_steps_ = 0;
  bytes_since_step_ = 0;
  next_alpha_ = now + params_.dcqcn_alpha_interval;
  next_increase_ = now + params_.dcqcn_rate_increase_interval;
}

SimTime Dcqcn::next_timer() const { return std::min(next_alpha_, next_increase_); }

void Dcqcn::on_timer(SimTime now) {
  if (now >= next_alpha_) {
    if (!cnp_since_alpha_update_) alpha_ = (1 - params_.dcqcn_g) * alpha_;
    cnp_since_alpha_update_ = false;
    next_alpha_ = now + params_.dcqcn_alpha_interval;
  }
  if (now >= next_increase_) {
    ++timer_steps_;
    increase();
    next_increase_ = rate_ >= line_gbps_ ? SimTime::infinity() : now + params_.dcqcn_rate_increase_interval;
    if (next_increase_.is_infinite()) next_alpha_ = SimTime::infinity();
  }
}

void Dcqcn::increase() {
  const std::uint32_t f = params_.dcqcn_fast_recovery_steps;
  if (std::max(timer_steps_, byte_steps_) < f) {
    // fast recovery: halfway back to the target
  } else if (std::min(timer_steps_, byte_steps_) > f) {
    target_ += (std::min(timer_steps_, byte_steps_) - f) * params_.dcqcn_hyper_gbps;
  } else {
    target_ += params_.dcqcn_additive_gbps;
  }
  target_ = std::min(target_, line_gbps_);
  rate_ = std::min(line_gbps_, (target_ + rate_) / 2);
}

// ---- Swift ----

Swift::Swift(const FabricParams& params, Bandwidth line_rate)
    : CongestionControl(true), params_(params), line_gbps_(static_cast<double>(line_rate.bps()) / 1e9) {
  min_window_ = params.mtu_bytes + params.header_bytes;
  // Start with the bandwidth-delay product of the target delay.
  window_ = std::max(min_window_, line_rate.bytes_per_second() * params.swift_target_delay.seconds());
}

void Swift::on_ack(SimTime now, SimTime rtt, bool, std::uint64_t newly_acked) {
  if (newly_acked == 0) return;
  const double target = static_cast<double>(params_.swift_target_delay.picoseconds());
  const double delay = static_cast<double>(rtt.picoseconds());
  if (delay < target) {
    // additive_packets per window's worth of acknowledged bytes, i.e. per RTT
    window_ += params_.swift_additive_packets * min_window_ * static_cast<double>(newly_acked) / window_;
  } else if (now - last_decrease_ >= rtt) {
    const double factor = std::max(1 - params_.swift_beta * (delay - target) / delay, 1 - params_.swift_max_decrease);
    window_ = std::max(min_window_, window_ * factor);
    last_decrease_ = now;
  }
}

void Swift::on_timeout(SimTime now) {
  window_ = min_window_;
  last_decrease_ = now;
}

}  // namespace collsim::net
