// The MPI transport, built as its own shared module (libcollsim_mpi.so) that the program
// loads only when it runs as part of a parallel job (mpi_transport.cpp): linking Open MPI
// into the program cost every run 2 ms of loading libraries it did not use.

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "collsim/pdes/transport.hpp"
#include "mpi_plugin_api.hpp"

namespace collsim::pdes {

namespace {

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    throw std::runtime_error(std::string(what) + " failed: " + std::string(text, static_cast<std::size_t>(len)));
  }
}

// A window's record: first the slots reduced by minimum, then those summed. Its first slot
// says how many are minima (every rank writes the same count, which the minimum keeps): the
// count itself, the earliest pending time, the negated events of the window (minimum: the
// busiest rank's), the earliest event sent, then one promise per rank (each rank writes its
// own and the largest value elsewhere); then message counts per destination and the caller's
// sums. The record is one element of its own datatype: MPI may split a vector of elements
// between the steps of an all-reduce (Open MPI does above some rank count), and a record's
// meaning depends on the position in it.
constexpr int kFixedMinimumSlots = 4;
void min_then_sum(void* in, void* inout, int* len, MPI_Datatype* type) {
  int bytes = 0;
  MPI_Type_size(*type, &bytes);
  const int slots = bytes / static_cast<int>(sizeof(std::int64_t));
  const auto* a = static_cast<const std::int64_t*>(in);
  auto* b = static_cast<std::int64_t*>(inout);
  for (int record = 0; record < *len; ++record, a += slots, b += slots) {
    const int minima = static_cast<int>(std::min<std::int64_t>(a[0], slots));
    for (int i = 0; i < minima; ++i) b[i] = std::min(a[i], b[i]);
    for (int i = minima; i < slots; ++i) b[i] += a[i];
  }
}

// Batches are split so that no message exceeds what an int count can describe.
constexpr std::size_t kMaxMessageEvents = (1u << 30) / sizeof(RemoteEvent);

class MpiTransport final : public Transport {
 public:
  MpiTransport() {
    check(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "MPI_Comm_dup");
    int r = 0, s = 0;
    MPI_Comm_rank(comm_, &r);
    MPI_Comm_size(comm_, &s);
    rank_ = static_cast<std::uint32_t>(r);
    size_ = static_cast<std::uint32_t>(s);
    check(MPI_Op_create(&min_then_sum, 1, &op_), "MPI_Op_create");
    minima_ = kFixedMinimumSlots + size_;
    reduce_.resize(minima_ + size_);
  }
  ~MpiTransport() override {
    for (auto& [slots, type] : record_types_) MPI_Type_free(&type);
    MPI_Op_free(&op_);
    MPI_Comm_free(&comm_);
  }

  std::uint32_t rank() const override { return rank_; }
  std::uint32_t size() const override { return size_; }

  WindowSummary exchange(std::vector<std::vector<RemoteEvent>>& outbox, WindowSummary mine,
                         std::vector<RemoteEvent>& inbox, std::span<std::uint64_t> sums,
                         std::span<SimTime> outputs) override {
    // A rank is at most one exchange ahead of another, so two tags keep windows apart.
    const int tag = static_cast<int>(window_++ & 1);
    requests_.clear();
    const std::size_t counts = minima_, first_sum = minima_ + size_;
    reduce_.assign(first_sum + sums.size(), 0);
    reduce_[0] = static_cast<std::int64_t>(minima_);
    reduce_[1] = mine.next.picoseconds();
    reduce_[2] = -static_cast<std::int64_t>(mine.events);
    reduce_[3] = mine.sent.picoseconds();
    for (std::uint32_t r = 0; r < size_; ++r)
      reduce_[kFixedMinimumSlots + r] = r == rank_ ? mine.output.picoseconds() : SimTime::infinity().picoseconds();
    for (std::size_t i = 0; i < sums.size(); ++i) reduce_[first_sum + i] = static_cast<std::int64_t>(sums[i]);
    for (std::uint32_t r = 0; r < size_; ++r) {
      const auto& batch = outbox[r];
      for (std::size_t at = 0; at < batch.size(); at += kMaxMessageEvents) {
        const std::size_t n = std::min(kMaxMessageEvents, batch.size() - at);
        requests_.emplace_back();
        check(MPI_Isend(batch.data() + at, static_cast<int>(n * sizeof(RemoteEvent)), MPI_BYTE, static_cast<int>(r),
                        tag, comm_, &requests_.back()),
              "MPI_Isend");
        ++reduce_[counts + r];
      }
    }
    check(MPI_Allreduce(MPI_IN_PLACE, reduce_.data(), 1, record_type(reduce_.size()), op_, comm_), "MPI_Allreduce");
    for (std::int64_t m = 0; m < reduce_[counts + rank_]; ++m) {
      MPI_Status status;
      check(MPI_Probe(MPI_ANY_SOURCE, tag, comm_, &status), "MPI_Probe");
      int bytes = 0;
      MPI_Get_count(&status, MPI_BYTE, &bytes);
      const std::size_t at = inbox.size();
      inbox.resize(at + static_cast<std::size_t>(bytes) / sizeof(RemoteEvent));
      check(MPI_Recv(inbox.data() + at, bytes, MPI_BYTE, status.MPI_SOURCE, tag, comm_, MPI_STATUS_IGNORE), "MPI_Recv");
    }
    check(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    for (auto& batch : outbox) batch.clear();
    for (std::size_t i = 0; i < sums.size(); ++i) sums[i] = static_cast<std::uint64_t>(reduce_[first_sum + i]);
    for (std::uint32_t r = 0; r < size_ && r < outputs.size(); ++r) outputs[r] = SimTime::ps(reduce_[kFixedMinimumSlots + r]);
    WindowSummary agreed;
    agreed.next = SimTime::ps(reduce_[1]);
    agreed.events = static_cast<std::uint64_t>(-reduce_[2]);
    agreed.sent = SimTime::ps(reduce_[3]);
    return agreed;
  }

  std::vector<std::byte> gather(std::span<const std::byte> mine) override {
    const int n = static_cast<int>(mine.size());
    std::vector<int> counts(rank_ == 0 ? size_ : 0);
    check(MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm_), "MPI_Gather");
    std::vector<int> displacements(counts.size());
    std::size_t total = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      displacements[r] = static_cast<int>(total);
      total += static_cast<std::size_t>(counts[r]);
    }
    std::vector<std::byte> all(total);
    check(MPI_Gatherv(mine.data(), n, MPI_BYTE, all.data(), counts.data(), displacements.data(), MPI_BYTE, 0, comm_),
          "MPI_Gatherv");
    return all;
  }

  void max_all(std::span<double> values) override {
    check(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_MAX, comm_),
          "MPI_Allreduce");
  }
  void sum_all(std::span<double> values) override {
    check(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_SUM, comm_),
          "MPI_Allreduce");
  }
  void max_integers(std::span<std::int64_t> values) override {
    check(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_INT64_T, MPI_MAX, comm_),
          "MPI_Allreduce");
  }
  void sum_integers(std::span<std::uint64_t> values) override {
    check(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_UINT64_T, MPI_SUM, comm_),
          "MPI_Allreduce");
  }

 private:
  // The datatype of one window record of `slots` integers (a run uses one or two lengths).
  MPI_Datatype record_type(std::size_t slots) {
    for (const auto& [n, type] : record_types_)
      if (n == slots) return type;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    check(MPI_Type_contiguous(static_cast<int>(slots), MPI_INT64_T, &type), "MPI_Type_contiguous");
    check(MPI_Type_commit(&type), "MPI_Type_commit");
    record_types_.emplace_back(slots, type);
    return type;
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_Op op_ = MPI_OP_NULL;
  std::uint32_t rank_ = 0;
  std::uint32_t size_ = 1;
  std::uint64_t window_ = 0;
  std::size_t minima_ = kFixedMinimumSlots;
  std::vector<std::int64_t> reduce_;
  std::vector<std::pair<std::size_t, MPI_Datatype>> record_types_;
  std::vector<MPI_Request> requests_;
};

void init(int* argc, char*** argv) {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) check(MPI_Init(argc, argv), "MPI_Init");
}

void finalize() {
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (!finalised) MPI_Finalize();
}

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int world_size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

[[noreturn]] void abort_job(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::abort();
}

Transport* make_transport() { return new MpiTransport(); }

constexpr MpiPluginApi kApi{kMpiPluginVersion, &init, &finalize, &world_rank, &world_size, &abort_job, &make_transport};

}  // namespace

}  // namespace collsim::pdes

extern "C" [[gnu::visibility("default")]] const collsim::pdes::MpiPluginApi* collsim_mpi_plugin() {
  return &collsim::pdes::kApi;
}
