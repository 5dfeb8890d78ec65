#pragma once
// What a running simulation shows of itself: a snapshot that the simulation thread publishes
// now and then and that readers on other threads (the status endpoint) copy out. Readers never
// touch simulation state, so a slow reader can delay nothing but its own answer.

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace collsim::status {

// One direction of one link, as the status endpoint lists it.
struct LinkLoad {
  std::string link;          // "leaf0 -> spine3"
  std::uint64_t bytes = 0;   // wire bytes sent so far
  double utilisation = 0;    // bytes sent / (bandwidth × simulated time so far), 0..1
};

struct RunStatus {
  std::int64_t sim_time_ps = 0;
  std::uint64_t events = 0;
  double events_per_s = 0;
  std::uint64_t ops_completed = 0;  // GOAL ops, or flows for `collsim flows`
  std::uint64_t ops_total = 0;
  std::uint32_t ranks = 1;
  double wall_s = 0;
  std::string state = "running";    // running, finished, failed
};

// Thread-safe: one writer (the simulation), any number of readers.
class StatusBoard {
 public:
  void publish(const RunStatus& status);
  // `links` sorted by utilisation, highest first; `sim_time_ps` is when they were measured.
  void publish_links(std::vector<LinkLoad> links, std::int64_t sim_time_ps);
  RunStatus status() const;
  // The first n of the last published list, and when it was measured.
  std::vector<LinkLoad> top_links(std::size_t n, std::int64_t* as_of_sim_time_ps = nullptr) const;
  // A reader asked for links since the last publish_links: measuring them costs the
  // simulation a pass over every port (and a gather under MPI), so it is done only on demand.
  void request_links();
  bool links_requested() const;

 private:
  mutable std::mutex mutex_;
  RunStatus status_;
  std::vector<LinkLoad> links_;
  std::int64_t links_time_ps_ = -1;
  bool links_requested_ = false;
};

}  // namespace collsim::status
