#pragma once
// The packet-mode hosts' costs as a parameter table (--host-set name=value): per-message and
// per-byte CPU overhead, the eager limit and the size of control messages.

#include "collsim/common/parameter_table.hpp"
#include "collsim/exec/execution.hpp"

namespace collsim::exec {

// o (ns per message, 0..10^12), O (ns per byte, 0..10^6), S (the eager limit, a size) and
// control_bytes (1..65535): beyond these a message's cost passes the end of simulated time,
// or its frame the 16-bit sizes on the wire.
const ParameterTable<PacketHostParams>& host_parameters();

}  // namespace collsim::exec
