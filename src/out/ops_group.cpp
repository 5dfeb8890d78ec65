#include "ops_group.hpp"

#include <stdexcept>

namespace collsim::out {
namespace {

void check_fits(const goal::Schedule& schedule, std::span<const exec::OpTime> times,
                std::span<const std::uint8_t> op_role, const std::vector<std::string>& role_names) {
  for (const exec::OpTime& t : times) {
    if (t.rank >= schedule.num_ranks() || t.op >= schedule.rank(t.rank).num_ops())
      throw std::invalid_argument("op time for rank " + std::to_string(t.rank) + " op " + std::to_string(t.op) +
                                  " is not in the schedule");
  }
  if (op_role.empty()) return;
  if (op_role.size() != schedule.num_ops())
    throw std::invalid_argument("op_role has " + std::to_string(op_role.size()) + " entries for " +
                                std::to_string(schedule.num_ops()) + " ops");
  for (std::uint8_t role : op_role) {
    if (role >= role_names.size())
      throw std::invalid_argument("op role " + std::to_string(role) + " has no name (role_names has " +
                                  std::to_string(role_names.size()) + ")");
  }
}

// One column at a time, so that a run with 10^8 ops needs one column's memory, not eight.
template <typename T, typename Value>
h5::Node write(const h5::Node& group, const char* name, std::span<const exec::OpTime> times, Value value) {
  std::vector<T> column;
  column.reserve(times.size());
  for (const exec::OpTime& t : times) column.push_back(value(t));
  return h5::write_column(group, name, column);
}

}  // namespace

void write_ops_group(const h5::Node& root, const goal::Schedule& schedule, std::span<const exec::OpTime> times,
                     std::span<const std::uint8_t> op_role, const std::vector<std::string>& role_names) {
  check_fits(schedule, times, op_role, role_names);
  const h5::Node ops = root.create_group("ops");
  const auto kind = [&](const exec::OpTime& t) { return schedule.rank(t.rank).kind(t.op); };

  write<std::uint32_t>(ops, "rank", times, [](const exec::OpTime& t) { return t.rank; });
  write<std::uint32_t>(ops, "op", times, [](const exec::OpTime& t) { return t.op; });
  const h5::Node kinds = write<std::uint8_t>(ops, "kind", times, [&](const exec::OpTime& t) {
    return static_cast<std::uint8_t>(kind(t));
  });
  // Indexed by the code, as GOAL's binary form numbers them.
  h5::set_attribute(kinds, "kind_names", std::vector<std::string>{"", "send", "recv", "calc"});
  // A calc has no peer, and a receive from any source has none until matched: -1 for both.
  const h5::Node peer = write<std::int32_t>(ops, "peer", times, [&](const exec::OpTime& t) {
    const std::uint32_t p = schedule.rank(t.rank).peer(t.op);
    return kind(t) == goal::OpKind::Calc || p == goal::kAnySource ? -1 : static_cast<std::int32_t>(p);
  });
  h5::set_attribute(peer, "units", "rank (-1: none, or any source)");
  // A calc's size is its duration, not bytes.
  const h5::Node bytes = write<std::uint64_t>(ops, "bytes", times, [&](const exec::OpTime& t) {
    return kind(t) == goal::OpKind::Calc ? std::uint64_t{0} : schedule.rank(t.rank).size(t.op);
  });
  h5::set_attribute(bytes, "units", "bytes");
  write<std::uint8_t>(ops, "cpu", times, [&](const exec::OpTime& t) { return schedule.rank(t.rank).cpu(t.op); });
  const h5::Node start = write<std::int64_t>(ops, "start_ps", times, [](const exec::OpTime& t) {
    return exec::picoseconds_or_never(t.start);
  });
  h5::set_attribute(start, "units", "ps (-1: never started)");
  const h5::Node end = write<std::int64_t>(ops, "end_ps", times, [](const exec::OpTime& t) {
    return exec::picoseconds_or_never(t.end);
  });
  h5::set_attribute(end, "units", "ps (-1: never ended)");

  if (op_role.empty()) return;
  const h5::Node role = write<std::uint8_t>(ops, "role", times, [&](const exec::OpTime& t) {
    return op_role[schedule.rank(t.rank).first_global_op() + t.op];
  });
  h5::set_attribute(role, "names", role_names);
}

}  // namespace collsim::out
