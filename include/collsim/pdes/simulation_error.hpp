#pragma once
// A model broke a rule of the simulation (an event in the past, an event to another rank
// inside the lookahead): a bug in the model or its parameters, reported with the LP and
// the times involved.

#include <stdexcept>

namespace collsim::pdes {

class SimulationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace collsim::pdes
