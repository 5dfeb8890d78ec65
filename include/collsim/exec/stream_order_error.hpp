#pragma once

#include <stdexcept>

namespace collsim::exec {

// A schedule stream broke its promise (goal::ScheduleStream): an op of a rank's later piece
// had nothing left to wait for when the piece arrived, so it could not start when it would
// have in the whole schedule.
class StreamOrderError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

}  // namespace collsim::exec
