#pragma once
// Simulated time: signed 64-bit integer picoseconds (1 byte at 800 Gb/s is 10 ps; 2^63 ps
// is about 106 days). Units are parsed once at the edge ("1.5us") and never carried as
// bare doubles inside the simulator.

#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace collsim {

class SimTime {
 public:
  constexpr SimTime() = default;

  static constexpr SimTime ps(std::int64_t v) { return SimTime(v); }
  static constexpr SimTime ns(std::int64_t v) { return SimTime(v * 1'000); }
  static constexpr SimTime us(std::int64_t v) { return SimTime(v * 1'000'000); }
  static constexpr SimTime ms(std::int64_t v) { return SimTime(v * 1'000'000'000); }
  static constexpr SimTime s(std::int64_t v) { return SimTime(v * 1'000'000'000'000); }
  static constexpr SimTime zero() { return SimTime(0); }
  // Later than any event: "never", "no event pending".
  static constexpr SimTime infinity() { return SimTime(std::numeric_limits<std::int64_t>::max()); }

  constexpr std::int64_t picoseconds() const { return ps_; }
  constexpr double seconds() const { return static_cast<double>(ps_) * 1e-12; }
  constexpr bool is_infinite() const { return ps_ == std::numeric_limits<std::int64_t>::max(); }

  constexpr auto operator<=>(const SimTime&) const = default;
  constexpr SimTime operator+(SimTime o) const { return SimTime(ps_ + o.ps_); }
  constexpr SimTime operator-(SimTime o) const { return SimTime(ps_ - o.ps_); }
  constexpr SimTime& operator+=(SimTime o) {
    ps_ += o.ps_;
    return *this;
  }
  constexpr SimTime operator*(std::int64_t k) const { return SimTime(ps_ * k); }
  constexpr std::int64_t operator/(SimTime o) const { return ps_ / o.ps_; }

  // t + d, or infinity() if that would overflow (d >= 0).
  constexpr SimTime saturating_add(SimTime d) const {
    return ps_ > std::numeric_limits<std::int64_t>::max() - d.ps_ ? infinity() : SimTime(ps_ + d.ps_);
  }

 private:
  constexpr explicit SimTime(std::int64_t ps) : ps_(ps) {}
  std::int64_t ps_ = 0;
};

// A time that is measured, fitted or predicted rather than simulated: nccl-tests' times, a
// calibration's latencies, a cost model's estimate. These are continuous (nccl-tests prints
// fractions of a microsecond, a fit moves by any amount), so they are a double of
// microseconds, not whole picoseconds; to_duration and nearest_ns convert where such a value
// leaves or enters the simulator. Comparisons are the double's: nothing is ordered with NaN.
class Duration {
 public:
  constexpr Duration() = default;

  static constexpr Duration us(double v) { return Duration(v); }
  static constexpr Duration zero() { return Duration(0.0); }

  constexpr double microseconds() const { return us_; }
  constexpr double nanoseconds() const { return us_ * 1000; }

  constexpr auto operator<=>(const Duration&) const = default;
  constexpr Duration operator+(Duration o) const { return Duration(us_ + o.us_); }
  constexpr Duration operator-(Duration o) const { return Duration(us_ - o.us_); }
  constexpr Duration& operator+=(Duration o) {
    us_ += o.us_;
    return *this;
  }
  constexpr Duration operator*(double k) const { return Duration(us_ * k); }
  friend constexpr Duration operator*(double k, Duration d) { return Duration(k * d.us_); }
  constexpr Duration operator/(double k) const { return Duration(us_ / k); }
  constexpr double operator/(Duration o) const { return us_ / o.us_; }

 private:
  constexpr explicit Duration(double us) : us_(us) {}
  double us_ = 0;
};

constexpr Duration to_duration(SimTime t) { return Duration::us(static_cast<double>(t.picoseconds()) / 1e6); }
// Latencies enter the collectives to the nearest nanosecond.
inline SimTime nearest_ns(Duration d) { return SimTime::ns(std::llround(d.microseconds() * 1000)); }

// "1.5us", "500 ns", "2ms", "10ps", "3s", "0". A number with up to 12 decimals and a unit
// (ps, ns, us, ms, s); the value must be a whole number of picoseconds and fit in 63 bits.
// Returns nothing and sets `error` when the text is not such a duration.
std::optional<SimTime> parse_duration(std::string_view text, std::string* error = nullptr);

// The shortest exact form with the largest unit that keeps it whole or short: "1.5us", "800ps".
std::string format_duration(SimTime t);

}  // namespace collsim
