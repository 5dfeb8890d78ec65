#pragma once
// How the ranks of a parallel run talk: the engine's only link to MPI. Model code never
// sees it.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include "collsim/pdes/event.hpp"
#include "collsim/common/sim_time.hpp"

namespace collsim::pdes {

// What one rank says at the end of a window, and what all ranks agree on in return.
struct WindowSummary {
  SimTime next;              // earliest pending time: this rank's / over all ranks
  std::uint64_t events = 0;  // events processed in the window: this rank's / the busiest rank's
  // Earliest event sent to another rank in the window: this rank's / any rank's.
  SimTime sent = SimTime::infinity();
  // This rank's promise (see Engine): the earliest time at which what is pending on it could
  // lead it to send to another rank. Every rank hears every rank's through `outputs`.
  SimTime output = SimTime::infinity();
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual std::uint32_t rank() const = 0;
  virtual std::uint32_t size() const = 0;

  // The synchronisation point between windows. Sends outbox[r] to rank r (empty batches
  // are not sent), agrees with all ranks on the earliest time anything is pending anywhere
  // (`mine.next` covers this rank's queue and what it just sent), on the earliest event any
  // rank sent and on the most events any rank processed in the window, writes every rank's
  // `output` into outputs[rank] (`outputs` has size() entries), and appends what other ranks
  // sent here to `inbox`. One collective per call. `sums` (the same length on every rank,
  // usually empty) is summed over all ranks in place: counters that ride along in the same
  // message.
  virtual WindowSummary exchange(std::vector<std::vector<RemoteEvent>>& outbox, WindowSummary mine,
                                 std::vector<RemoteEvent>& inbox, std::span<std::uint64_t> sums,
                                 std::span<SimTime> outputs) = 0;

  // Concatenation of every rank's bytes in rank order, on rank 0; empty elsewhere.
  virtual std::vector<std::byte> gather(std::span<const std::byte> mine) = 0;

  // Every rank gets the largest / the sum of the values across ranks, element-wise.
  // Integer counts and times have their own overloads: a double loses them above 2^53.
  virtual void max_all(std::span<double> values) = 0;
  virtual void sum_all(std::span<double> values) = 0;
  virtual void max_integers(std::span<std::int64_t> values) = 0;
  virtual void sum_integers(std::span<std::uint64_t> values) = 0;
};

// A single rank, no MPI.
std::unique_ptr<Transport> make_local_transport();

// gather() of plain values: every rank's `mine`, concatenated in rank order, on rank 0;
// empty elsewhere.
template <typename T>
std::vector<T> gather_values(Transport& transport, std::span<const T> mine) {
  static_assert(std::is_trivially_copyable_v<T>);
  const std::vector<std::byte> bytes = transport.gather(std::as_bytes(mine));
  std::vector<T> all(bytes.size() / sizeof(T));
  if (!all.empty()) std::memcpy(all.data(), bytes.data(), bytes.size());
  return all;
}
template <typename T>
std::vector<T> gather_values(Transport& transport, const std::vector<T>& mine) {
  return gather_values(transport, std::span<const T>(mine));
}

}  // namespace collsim::pdes
