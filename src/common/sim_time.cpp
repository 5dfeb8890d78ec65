#include "collsim/common/sim_time.hpp"


namespace collsim {

namespace {

struct Unit {
  std::string_view name;
  std::int64_t ps;
};
constexpr Unit kUnits[] = {{"ps", 1}, {"ns", 1'000}, {"us", 1'000'000}, {"ms", 1'000'000'000}, {"s", 1'000'000'000'000}};

bool fail(std::string* error, std::string message) {
  if (error != nullptr) *error = std::move(message);
  return false;
}

}  // namespace

std::optional<SimTime> parse_duration(std::string_view text, std::string* error) {
  const std::string original(text);
  auto bad = [&](const std::string& why) -> std::optional<SimTime> {
    fail(error, "'" + original + "' is not a duration: " + why + " (examples: 500ns, 1.5us, 2ms)");
    return std::nullopt;
  };
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  // Digits, an optional fraction, then the unit. Units and fraction scales are powers of
  // ten, so the conversion is exact in 64 bits.
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max() - 1;
  std::size_t i = 0;
  std::int64_t whole = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    const int digit = text[i] - '0';
    if (whole > (kMax - digit) / 10) return bad("too large");
    whole = whole * 10 + digit;
    ++i;
  }
  const std::size_t int_digits = i;
  std::int64_t fraction = 0;
  std::int64_t fraction_scale = 1;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      if (fraction_scale >= 1'000'000'000'000) return bad("more than 12 decimals");
      fraction = fraction * 10 + (text[i] - '0');
      fraction_scale *= 10;
      ++i;
    }
  }
  if (int_digits == 0 && fraction_scale == 1) return bad("no number");
  std::string_view unit = text.substr(i);
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  if (unit.empty()) {
    if (whole == 0 && fraction == 0) return SimTime::zero();
    return bad("missing unit");
  }
  for (const Unit& u : kUnits) {
    if (unit != u.name) continue;
    if (whole > kMax / u.ps) return bad("too large");
    std::int64_t fraction_ps = 0;
    if (u.ps >= fraction_scale) {
      fraction_ps = fraction * (u.ps / fraction_scale);
    } else {
      const std::int64_t drop = fraction_scale / u.ps;
      if (fraction % drop != 0) return bad("not a whole number of picoseconds");
      fraction_ps = fraction / drop;
    }
    if (whole * u.ps > kMax - fraction_ps) return bad("too large");
    return SimTime::ps(whole * u.ps + fraction_ps);
  }
  return bad("unknown unit '" + std::string(unit) + "'");
}

std::string format_duration(SimTime t) {
  if (t.is_infinite()) return "inf";
  const std::int64_t ps = t.picoseconds();
  // |ps| without overflow for the most negative value.
  const std::uint64_t magnitude = ps < 0 ? 0 - static_cast<std::uint64_t>(ps) : static_cast<std::uint64_t>(ps);
  const Unit* unit = &kUnits[0];
  for (const Unit& u : kUnits)
    if (magnitude >= static_cast<std::uint64_t>(u.ps)) unit = &u;
  const auto per = static_cast<std::uint64_t>(unit->ps);
  std::string out = (ps < 0 ? "-" : "") + std::to_string(magnitude / per);
  // Exact: every picosecond shows, trailing zeros do not.
  std::uint64_t rest = magnitude % per;
  if (rest != 0) {
    std::string digits = std::to_string(rest);
    digits.insert(0, std::to_string(per).size() - 1 - digits.size(), '0');
    while (digits.back() == '0') digits.pop_back();
    out += "." + digits;
  }
  return out + std::string(unit->name);
}

}  // namespace collsim
