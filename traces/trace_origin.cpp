#include "collsim/traces/replay_program.hpp"

namespace collsim::traces {

std::string TraceOrigin::text() const {
  if (line > 0) return file + ":" + std::to_string(line) + ": " + what;
  return file + ": byte " + std::to_string(byte) + ": " + what;
}

InputError TraceOrigin::error(const std::string& detail) const {
  if (line > 0) return InputError::at_text(file, line, 1, what + ": " + detail);
  return InputError::at_byte(file, byte, what + ": " + detail);
}

}  // namespace collsim::traces
