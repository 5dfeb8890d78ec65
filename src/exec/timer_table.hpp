#pragma once
// The timers an executor has set, each a typed record under the number the network hands back
// when it fires (Host::set_timer, HostApp::on_timer). Numbers are reused once their timer has
// fired, so a run holds as many records as it has timers pending at once.

#include <cstdint>
#include <vector>

namespace collsim::exec {

template <typename Timer>
class TimerTable {
 public:
  std::uint64_t add(const Timer& t) {
    if (free_.empty()) {
      slots_.push_back(t);
      return slots_.size() - 1;
    }
    const std::uint64_t id = free_.back();
    free_.pop_back();
    slots_[id] = t;
    return id;
  }
  // The timer with number `id`, which is free again.
  Timer take(std::uint64_t id) {
    free_.push_back(id);
    return slots_[id];
  }

 private:
  std::vector<Timer> slots_;
  std::vector<std::uint64_t> free_;
};

}  // namespace collsim::exec
