#pragma once
// Congestion control of one flow at its sender: how many bytes may be unacknowledged, and how
// long to wait after sending a packet before the next (pacing). One object per flow.

#include <cstdint>
#include <memory>

#include "collsim/common/units.hpp"
#include "collsim/net/fabric_params.hpp"
#include "collsim/pdes/sim_time.hpp"

namespace collsim::net {

class CongestionControl {
 public:
  virtual ~CongestionControl() = default;
  // Bytes in flight allowed; UINT64_MAX: no window.
  virtual std::uint64_t window_bytes() const = 0;
  // Gap between the start of one packet and the next of this flow; zero: line rate.
  virtual pdes::SimTime gap(std::uint32_t wire_bytes) const = 0;
  virtual void on_sent(pdes::SimTime, std::uint32_t /*wire_bytes*/) {}
  virtual void on_ack(pdes::SimTime /*now*/, pdes::SimTime /*rtt*/, bool /*ecn_echo*/, std::uint64_t /*newly_acked*/) {}
  virtual void on_cnp(pdes::SimTime) {}
  virtual void on_timeout(pdes::SimTime) {}
  // Periodic work (DCQCN's timers): when it is next due, and doing it.
  virtual pdes::SimTime next_timer() const { return pdes::SimTime::infinity(); }
  virtual void on_timer(pdes::SimTime) {}
  // Current sending rate, for reports (line rate when not rate-based).
  virtual double rate_gbps() const = 0;
};

std::unique_ptr<CongestionControl> make_congestion_control(const FabricParams& params, Bandwidth line_rate,
                                                           pdes::SimTime start);

// DCQCN (Zhu et al., SIGCOMM 2015), as the ns-3 RDMA models implement it: a rate cut on
// every CNP, alpha tracking how often CNPs come, and recovery through fast-recovery,
// additive and hyper increase steps driven by a timer and a byte counter.
class Dcqcn final : public CongestionControl {
 public:
  Dcqcn(const FabricParams& params, Bandwidth line_rate, pdes::SimTime start);
  std::uint64_t window_bytes() const override { return params_.window_bytes ? params_.window_bytes : UINT64_MAX; }
  pdes::SimTime gap(std::uint32_t wire_bytes) const override;
  void on_sent(pdes::SimTime now, std::uint32_t wire_bytes) override;
  void on_cnp(pdes::SimTime now) override;
  pdes::SimTime next_timer() const override;
  void on_timer(pdes::SimTime now) override;
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
  pdes::SimTime next_alpha_;
  pdes::SimTime next_increase_;
};

// A Swift-like delay-based window (Kumar et al., SIGCOMM 2020, without its fabric/host split
// and pacing below one packet): grow by a few packets per RTT while the measured round trip
// is under the target, shrink in proportion to the excess, at most once per RTT.
class Swift final : public CongestionControl {
 public:
  Swift(const FabricParams& params, Bandwidth line_rate);
  std::uint64_t window_bytes() const override { return static_cast<std::uint64_t>(window_); }
  pdes::SimTime gap(std::uint32_t) const override { return pdes::SimTime::zero(); }
  void on_ack(pdes::SimTime now, pdes::SimTime rtt, bool ecn_echo, std::uint64_t newly_acked) override;
  void on_timeout(pdes::SimTime now) override;
  double rate_gbps() const override { return line_gbps_; }
  double window() const { return window_; }

 private:
  const FabricParams& params_;
  double line_gbps_;
  double window_;  // bytes
  double min_window_;
  pdes::SimTime last_decrease_;
};

}  // namespace collsim::net
