#pragma once
// Congestion control of one flow at its sender: how many bytes may be unacknowledged, and how
// long to wait after sending a packet before the next (pacing). One object per flow.

#include <cstdint>
#include <memory>

#include "collsim/common/units.hpp"
#include "collsim/net/fabric_params.hpp"
#include "collsim/common/sim_time.hpp"

namespace collsim::net {

class CongestionControl {
 public:
  virtual ~CongestionControl() = default;
  // Bytes in flight allowed; UINT64_MAX: no window (then never one during the flow).
  virtual std::uint64_t window_bytes() const = 0;
  // Gap between the start of one packet and the next of this flow; zero: line rate.
  virtual SimTime gap(std::uint32_t wire_bytes) const = 0;
  virtual void on_sent(SimTime, std::uint32_t /*wire_bytes*/) {}
  virtual void on_ack(SimTime /*now*/, SimTime /*rtt*/, bool /*ecn_echo*/, std::uint64_t /*newly_acked*/) {}
  virtual void on_cnp(SimTime) {}
  virtual void on_timeout(SimTime) {}
  // Periodic work (DCQCN's timers): when it is next due, and doing it.
  virtual SimTime next_timer() const { return SimTime::infinity(); }
  virtual void on_timer(SimTime) {}
  // Current sending rate, for reports (line rate when not rate-based).
  virtual double rate_gbps() const = 0;
  // Whether it ever paces the flow, moves its window or sets timers. One that does not (line
  // rate) is asked nothing per packet or ACK.
  bool adapts() const { return adapts_; }

 protected:
  explicit CongestionControl(bool adapts) : adapts_(adapts) {}

 private:
  bool adapts_;
};

std::unique_ptr<CongestionControl> make_congestion_control(const FabricParams& params, Bandwidth line_rate,
                                                           SimTime start);

// DCQCN (Zhu et al., SIGCOMM 2015), as the ns-3 RDMA models implement it: a rate cut on
// every CNP, alpha tracking how often CNPs come, and recovery through fast-recovery,
// additive and hyper increase steps driven by a timer and a byte counter.
class Dcqcn final : public CongestionControl {
 public:
  Dcqcn(const FabricParams& params, Bandwidth line_rate, SimTime start);
  std::uint64_t window_bytes() const override { return params_.window_bytes ? params_.window_bytes : UINT64_MAX; }
  SimTime gap(std::uint32_t wire_bytes) const override;
  void on_sent(SimTime now, std::uint32_t wire_bytes) override;
  void on_cnp(SimTime now) override;
  SimTime next_timer() const override;
  void on_timer(SimTime now) override;
  double rate_gbps() const override { return rate_; }
  double alpha() const { return alpha_; }

 private:
  void increase();
  const FabricParams& params_;
  double line_gbps_;
  double rate_;          // Rc, Gbps
  double target_;        // Rt, Gbps
  double alpha_ = 1.0;
  bool cnp_since_alpha_update_ = false;
  std::uint32_t timer_steps_ = 0;  // T
  std::uint32_t byte_steps_ = 0;   // BC
  std::uint64_t bytes_since_step_ = 0;
  SimTime next_alpha_;
  SimTime next_increase_;
};

// A Swift-like delay-based window (Kumar et al., SIGCOMM 2020, without its fabric/host split
// and pacing below one packet): grow by a few packets per RTT while the measured round trip
// is under the target, shrink in proportion to the excess, at most once per RTT.
class Swift final : public CongestionControl {
 public:
  Swift(const FabricParams& params, Bandwidth line_rate);
  std::uint64_t window_bytes() const override { return static_cast<std::uint64_t>(window_); }
  SimTime gap(std::uint32_t) const override { return SimTime::zero(); }
  void on_ack(SimTime now, SimTime rtt, bool ecn_echo, std::uint64_t newly_acked) override;
  void on_timeout(SimTime now) override;
  double rate_gbps() const override { return line_gbps_; }
  double window() const { return window_; }

 private:
  const FabricParams& params_;
  double line_gbps_;
  double window_;  // bytes
  double min_window_;
  SimTime last_decrease_;
};

}  // namespace collsim::net
