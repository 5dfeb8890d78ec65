#include "collsim/exec/execution.hpp"

#include <cmath>

namespace collsim::exec {

SimTime ScaleUpMessages::wire_time(std::uint64_t bytes) const {
  const std::uint64_t packets = bytes == 0 ? 1 : (bytes + mtu_bytes - 1) / mtu_bytes;
  // long double: bits × 10^12 overflows 64 bits from about a megabyte on.
  const long double bits = 8.0L * static_cast<long double>(bytes + packets * header_bytes);
  return SimTime::ps(static_cast<std::int64_t>(std::ceil(bits * 1e12L / static_cast<long double>(bits_per_s))));
}

std::string describe_op(goal::LocalOp index, const goal::Op& op) {
  auto peer = [](std::uint32_t p) { return p == goal::kAnySource ? std::string("any") : std::to_string(p); };
  auto tag = [](std::uint32_t t) { return t == goal::kAnyTag ? std::string("any") : std::to_string(t); };
  std::string text = "op " + std::to_string(index) + " (";
  switch (op.kind) {
    case goal::OpKind::Send:
      text += "send " + std::to_string(op.size) + " b to " + peer(op.peer) + " tag " + tag(op.tag);
      break;
    case goal::OpKind::Recv:
      text += "recv " + std::to_string(op.size) + " b from " + peer(op.peer) + " tag " + tag(op.tag);
      break;
    case goal::OpKind::Calc: text += "calc " + std::to_string(op.size); break;
  }
  text += " cpu " + std::to_string(op.cpu);
  if (op.kind != goal::OpKind::Calc) text += " nic " + std::to_string(op.nic);
  return text + ")";
}

}  // namespace collsim::exec
