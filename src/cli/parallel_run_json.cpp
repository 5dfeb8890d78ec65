#include "parallel_run_json.hpp"

#include "collsim/pdes/event_pool.hpp"

namespace collsim::cli {

nlohmann::json parallel_run_json(const pdes::RunStats& s) {
  nlohmann::json per_rank = nlohmann::json::array();
  for (const auto& rank : s.per_rank)
    per_rank.push_back({{"events", rank.events}, {"lps", rank.lps}, {"remote_sent", rank.remote_sent},
                        {"wall_s", rank.wall_s}, {"sync_s", rank.sync_s}, {"max_queue", rank.max_queue},
                        {"stored_events", rank.stored_events}});
  return {{"ranks", s.ranks},
          {"windows", s.windows},
          {"critical_events", s.critical_events},
          {"remote_events", s.remote_events},
          {"imbalance", s.imbalance},
          {"lookahead_ps", s.lookahead.is_infinite() ? nlohmann::json(nullptr) : nlohmann::json(s.lookahead.picoseconds())},
          {"stored_event_bytes", pdes::EventPool::kStoredEventBytes},
          {"queue_entry_bytes", sizeof(pdes::QueueEntry)},
          {"per_rank", per_rank}};
}

}  // namespace collsim::cli
