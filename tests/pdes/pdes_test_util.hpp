#pragma once
// Helpers shared by the PDES kernel tests.

#include <gtest/gtest.h>

#include <functional>
#include <initializer_list>
#include <ostream>
#include <string>

#include "collsim/pdes/event_queue.hpp"
#include "collsim/common/sim_time.hpp"

namespace collsim::pdes {
// Failed comparisons of times print "1.5us (1500000ps)" rather than raw bytes.
inline void PrintTo(SimTime t, std::ostream* os) { *os << format_duration(t) << " (" << t.picoseconds() << "ps)"; }
inline void PrintTo(QueueKind kind, std::ostream* os) { *os << to_string(kind); }
}  // namespace collsim::pdes

namespace collsim::pdes::testing {

// Runs `f` and expects it to throw an exception of type E whose message contains every
// one of `needles`: an error must say which LPs and times it is about, not only that it
// happened.
template <typename E>
void expect_error(const std::function<void()>& f, std::initializer_list<std::string> needles) {
  try {
    f();
    ADD_FAILURE() << "no exception thrown";
  } catch (const E& e) {
    const std::string message = e.what();
    for (const std::string& needle : needles)
      EXPECT_NE(message.find(needle), std::string::npos) << "'" << needle << "' not in: " << message;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "an exception of another type: " << e.what();
  }
}

}  // namespace collsim::pdes::testing
