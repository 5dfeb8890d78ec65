#pragma once
// One GPU's program in a training step, emitted piece by piece (see RankProgram::emit_next):
// what lower_step() and StepStream share. Internal to the workload module.

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "collsim/collectives/generate.hpp"
#include "collsim/workload/model_costs.hpp"
#include "collsim/workload/parallel_layout.hpp"
#include "collsim/workload/pipeline_schedule.hpp"
#include "collsim/workload/step_lowering.hpp"

namespace collsim::workload::lowering {

using goal::LocalOp;
using goal::RankId;
using collectives::kNoOp;

// Every rank's part of every collective, for the HDF5 record (only the whole step keeps them).
struct CollectiveSpans {
  std::vector<goal::OpSpan>& spans;
  std::vector<std::string>& names;
};



// Tags: the top four bits name the stream (so that no two streams between a pair of ranks
// can match each other's messages), the rest counts that stream's collectives × 16 channels,
// or numbers the pipeline messages.
enum class Stream : std::uint32_t { TP = 1, PP = 2, DP = 3, EP = 4, ExpertDP = 5 };
constexpr std::uint32_t kStreamShift = 28;
constexpr std::uint32_t kMaxChannels = 16;
// Cpus: compute and the blocking collectives on 0 (and up), DP buckets on their own streams.
constexpr std::uint8_t kDpCpu = 16;
constexpr std::uint8_t kExpertDpCpu = 32;
// A reused collective's calc (see collective_reuse.hpp), beside the cpus it would have used.
constexpr std::uint8_t kReuseCpu = 48;

inline std::uint32_t stream_tag(Stream s, std::uint64_t index) {
  if (index >= (1ull << kStreamShift)) throw std::invalid_argument("workload: too many messages on one stream for GOAL's 32-bit tags");
  return (static_cast<std::uint32_t>(s) << kStreamShift) | static_cast<std::uint32_t>(index);
}

// Where a rank program's ops go (the whole step's builder, or a piece of a stream), noting
// each op's role and the bytes each dimension sends.
class StepSink : public collectives::RankSink {
 public:
  explicit StepSink(std::array<std::uint64_t, kDimensions>& bytes_sent) : bytes_sent_(bytes_sent) {}
  void set_role(OpRole r) { role_ = r; }
  // The index the next op of this rank gets.
  LocalOp next_op() const { return added_; }
  LocalOp add(const goal::Op& op, const collectives::Payload&) final {
    const LocalOp i = put(op, role_);
    ++added_;
    if (op.kind == goal::OpKind::Send && role_ != OpRole::Compute)
      bytes_sent_[static_cast<std::size_t>(role_) - 1] += op.size;
    return i;
  }
  // Bytes the current role's dimension sends without an op here (a reused collective's).
  void add_sent_bytes(std::uint64_t bytes) {
    if (role_ != OpRole::Compute) bytes_sent_[static_cast<std::size_t>(role_) - 1] += bytes;
  }

 protected:
  virtual LocalOp put(const goal::Op& op, OpRole role) = 0;

 private:
  std::array<std::uint64_t, kDimensions>& bytes_sent_;
  OpRole role_ = OpRole::Compute;
  LocalOp added_ = 0;
};

inline const char* stream_name(Stream s) {
  switch (s) {
    case Stream::TP: return "tp";
    case Stream::PP: return "pp";
    case Stream::DP: return "dp";
    case Stream::EP: return "ep";
    case Stream::ExpertDP: return "expert-dp";
  }
  return "?";
}

// The layers of model chunk g (g = chunk × stages + stage) of `chunks` in all: an even split,
// earlier chunks taking one more when it does not divide.
inline std::pair<std::uint32_t, std::uint32_t> chunk_layers(std::uint32_t layers, std::uint32_t chunks, std::uint32_t g) {
  const std::uint32_t base = layers / chunks, extra = layers % chunks;
  const std::uint32_t first = g * base + std::min(g, extra);
  return {first, first + base + (g < extra ? 1 : 0)};
}

class RankProgram {
 public:
  // `spans` (optional) hears every collective this rank takes part in.
  RankProgram(const WorkloadSpec& w, const ModelCosts& costs, const ParallelLayout& layout,
              const LoweringOptions& options, RankId rank, StepSink& sink, std::uint64_t& compute_ns,
              std::uint64_t& reused, CollectiveSpans* spans = nullptr)
      : w_(w), p_(w.parallel), costs_(costs), layout_(layout), options_(options), rank_(rank), sink_(sink),
        compute_ns_(compute_ns), reused_(reused), spans_(spans), coords_(layout.coordinates(rank)) {
    const std::uint32_t chunks = p_.schedule == PipelineSchedule::Interleaved ? p_.virtual_stages : 1;
    total_chunks_ = p_.pp * chunks;
    micro_batches_ = static_cast<std::uint32_t>(w_.micro_batches());
    actions_ = pipeline_actions(p_.schedule, p_.pp, coords_.stage, micro_batches_, chunks);
  }

  // Emits the next piece of this rank's program: one pipeline action (a forward or backward
  // pass of one model chunk for one micro-batch), then the remaining gradient buckets and the
  // optimizer step, and last (ZeRO-1/2) one all-gather of updated parameters per bucket. False
  // when nothing is left. Each piece's ops wait for the compute or communication just before
  // them, so that the pieces can be run as a stream.
  bool emit_next() {
    if (next_action_ < actions_.size()) {
      const PipelineAction& a = actions_[next_action_++];
      const std::uint32_t g = a.chunk * p_.pp + coords_.stage;
      if (a.forward) {
        forward(g, a.micro_batch);
      } else {
        backward(g, a.micro_batch, a.micro_batch + 1 == micro_batches_);
      }
      return true;
    }
    // The buckets the last backward pass filled, one collective per piece, in order: each
    // waits for the one before on the DP stream, so that a stream holds one or two of them
    // at a time, not every bucket's (with DP ranks in a ring, a bucket's collective is
    // 2(DP - 1) messages per rank).
    if (next_deferred_ < deferred_buckets_.size()) {
      const DeferredBucket& b = deferred_buckets_[next_deferred_++];
      side(Stream::DP, gradient_collective(), b.bytes, std::span<const LocalOp>(&b.after, b.after == kNoOp ? 0 : 1));
      return true;
    }
    if (!stepped_) {
      flush_gradients(true);
      optimizer_step();
      stepped_ = true;
      return true;
    }
    // The same for the all-gathers of updated parameters.
    if (next_gather_ < gathered_after_step_.size()) {
      const std::vector<LocalOp> after{step_op_};
      side(Stream::DP, collectives::Collective::Allgather,
           gathered_after_step_[next_gather_++] * bytes_of(w_.model.dtype), after);
      return true;
    }
    return false;
  }

  // Every rank the pieces still to come may name: while pipeline actions are left, this
  // rank's groups and every stage's rank of its TP and DP indices; after them, its DP groups
  // (the remaining buckets and the parameter gathers).
  void later_peers(std::vector<RankId>& out) const {
    out.clear();
    const auto add = [&out](const std::vector<RankId>& g) { out.insert(out.end(), g.begin(), g.end()); };
    if (next_action_ < actions_.size()) {
      add(layout_.tp_group(rank_));
      add(layout_.ep_group(rank_));
      for (std::uint32_t s = 0; s < p_.pp; ++s) out.push_back(layout_.on_stage(rank_, s));
    }
    if (!stepped_ || next_gather_ < gathered_after_step_.size() || next_deferred_ < deferred_buckets_.size()) {
      add(layout_.dp_group(rank_));
      add(layout_.expert_dp_group(rank_));
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    out.erase(std::remove(out.begin(), out.end(), rank_), out.end());
  }

 private:
  // ---- the compute stream --------------------------------------------------------------
  LocalOp compute(const ComputeCost& cost) {
    const std::uint64_t ns = compute_ns(w_.device, w_.model.dtype, cost);
    sink_.set_role(OpRole::Compute);
    const LocalOp op = sink_.add(goal::Op::calc(ns, 0), {});
    if (last_compute_ != kNoOp) sink_.add_requires(op, last_compute_);
    for (LocalOp i : inputs_) sink_.add_requires(op, i);
    inputs_.clear();
    last_compute_ = op;
    compute_ns_ += ns;
    return op;
  }
  // What the next blocking communication starts after.
  std::vector<LocalOp> frontier() const {
    if (!inputs_.empty()) return inputs_;
    if (last_compute_ != kNoOp) return {last_compute_};
    return {};
  }

  // ---- collectives -----------------------------------------------------------------------
  const std::string& algorithm(collectives::Collective c) const {
    switch (c) {
      case collectives::Collective::Allgather: return w_.comm.allgather;
      case collectives::Collective::ReduceScatter: return w_.comm.reduce_scatter;
      case collectives::Collective::AllToAll: return w_.comm.alltoall;
      default: return w_.comm.allreduce;
    }
  }

  std::vector<RankId> group(Stream s) const {
    switch (s) {
      case Stream::TP: return layout_.tp_group(rank_);
      case Stream::DP: return layout_.dp_group(rank_);
      case Stream::EP: return layout_.ep_group(rank_);
      case Stream::ExpertDP: return layout_.expert_dp_group(rank_);
      case Stream::PP: break;
    }
    return {rank_};
  }

  collectives::CollectiveSpec spec_of(Stream s, collectives::Collective c, std::uint64_t bytes) const {
    collectives::CollectiveSpec spec;
    spec.collective = c;
    spec.algorithm = algorithm(c);
    spec.num_ranks = layout_.world();
    spec.group = group(s);
    spec.bytes = bytes;
    spec.channels = w_.comm.channels;
    spec.chunk_bytes = w_.comm.chunk_bytes;
    spec.protocol = w_.comm.protocol;
    spec.launch = w_.comm.launch;
    spec.step = w_.comm.step;
    spec.reduce_bytes_per_ns = w_.comm.reduce_bytes_per_ns;
    // Members on one node, assuming ranks fill nodes in order (linear placement).
    const RankId node = spec.group.front() / options_.gpus_per_node;
    spec.ranks_per_node = 0;
    for (RankId r : spec.group) spec.ranks_per_node += r / options_.gpus_per_node == node ? 1 : 0;
    spec.first_cpu = s == Stream::DP ? kDpCpu : s == Stream::ExpertDP ? kExpertDpCpu : 0;
    spec.system = options_.system;
    spec.system.arch = w_.device.arch;
    return spec;
  }

  collectives::Plan& plan(Stream s, collectives::Collective c, std::uint64_t bytes) {
    const auto key = std::make_tuple(static_cast<int>(s), static_cast<int>(c), bytes);
    auto it = plans_.find(key);
    if (it != plans_.end()) return it->second;
    const collectives::CollectiveSpec spec = spec_of(s, c, bytes);
    try {
      return plans_.emplace(key, collectives::make_plan(spec)).first->second;
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("workload: cannot plan the " + std::string(collectives::to_string(c)) + " of " +
                                  std::to_string(bytes) + " bytes on " + std::to_string(spec.group.size()) +
                                  " ranks: " + e.what());
    }
  }

  std::uint32_t span_name(Stream s, collectives::Collective c) {
    const std::string name = std::string(stream_name(s)) + " " + std::string(collectives::to_string(c));
    auto& names = spans_->names;
    const auto it = std::find(names.begin(), names.end(), name);
    if (it != names.end()) return static_cast<std::uint32_t>(it - names.begin());
    names.push_back(name);
    return static_cast<std::uint32_t>(names.size() - 1);
  }

  static OpRole role_of_stream(Stream s) {
    switch (s) {
      case Stream::TP: return OpRole::TP;
      case Stream::PP: return OpRole::PP;
      case Stream::EP: return OpRole::EP;
      default: return OpRole::DP;
    }
  }

  // How a collective planned as `key` is reused, when it is: the barrier over its group, this
  // member's calc after it and the bytes the member would have sent.
  struct Reused {
    collectives::Plan barrier;
    std::uint64_t after_barrier_ns = 0;
    std::uint64_t bytes_sent = 0;
  };
  // Whether, inside this rank's node, only stream s's messages reach this rank: no group of
  // another dimension (nor a pipeline peer) has another member on the node.
  bool node_carries_only(Stream s) const {
    const RankId node = rank_ / options_.gpus_per_node;
    auto on_node = [&](RankId r) { return r != rank_ && r / options_.gpus_per_node == node; };
    for (Stream t : {Stream::TP, Stream::DP, Stream::EP, Stream::ExpertDP}) {
      if (t == s) continue;
      for (RankId r : group(t))
        if (on_node(r)) return false;
    }
    for (std::uint32_t stage = 0; stage < p_.pp; ++stage)
      if (on_node(layout_.on_stage(rank_, stage))) return false;
    return true;
  }

  // A collective is reused only where its timing alone can hold: blocking (TP, EP), inside
  // one node, and nothing else of the step crossing that node's NVLink to its members.
  // Decided once per planned collective: its repeats only look the answer up.
  Reused* reused(Stream s, const collectives::Plan& pl, std::uint32_t me) {
    if (!options_.reuse || (s != Stream::TP && s != Stream::EP)) return nullptr;
    const auto key = std::make_tuple(static_cast<int>(s), static_cast<int>(pl.collective), pl.bytes);
    auto it = reused_plans_.find(key);
    if (it == reused_plans_.end()) it = reused_plans_.emplace(key, decide_reuse(s, pl, me)).first;
    return it->second ? &*it->second : nullptr;
  }
  std::optional<Reused> decide_reuse(Stream s, const collectives::Plan& pl, std::uint32_t me) const {
    if (pl.ranks_per_node < pl.n || !node_carries_only(s)) return std::nullopt;
    // The barrier starts with the collective's launch, which holds the cpu as the
    // collective's own would (a pipeline send ready at the same instant waits behind it),
    // and has no step latency: its time is subtracted from the member's time alone, and
    // the cheaper it is, the more collectives take at least as long and can be reused.
    collectives::CollectiveSpec spec = spec_of(s, collectives::Collective::Barrier, 0);
    spec.algorithm = "dissemination";
    spec.channels = 1;
    spec.protocol = collectives::Protocol::Simple;
    spec.launch = pl.launch;
    spec.step = spec.network_step = SimTime::zero();
    collectives::Plan barrier = collectives::make_plan(spec);
    const std::span<const std::uint64_t> after = options_.reuse->after_barrier_ns(pl, barrier);
    if (after.empty()) return std::nullopt;
    collectives::CountingSink count;
    collectives::emit_member(pl, me, count);
    return Reused{std::move(barrier), after[me], count.bytes_sent};
  }

  // Emits this rank's part after `entry`; returns the ops that end it (empty: nothing to do).
  std::vector<LocalOp> collective(Stream s, collectives::Collective c, std::uint64_t bytes, std::span<const LocalOp> entry) {
    if (bytes == 0) return {};
    collectives::Plan& pl = plan(s, c, bytes);
    if (pl.n <= 1) return {};
    std::uint64_t& counter = counters_[static_cast<std::size_t>(s)];
    pl.tag = stream_tag(s, counter++ * kMaxChannels);
    std::uint32_t me = 0;
    while (pl.group[me] != rank_) ++me;
    sink_.set_role(role_of_stream(s));
    const LocalOp first = sink_.next_op();
    std::vector<LocalOp> exits;
    if (Reused* r = reused(s, pl, me)) {
      r->barrier.tag = pl.tag;
      const std::vector<LocalOp> met = collectives::emit_member(r->barrier, me, sink_, entry);
      const LocalOp rest = sink_.add(goal::Op::calc(r->after_barrier_ns, kReuseCpu), {});
      for (LocalOp m : met) sink_.add_requires(rest, m);
      sink_.add_sent_bytes(r->bytes_sent);
      exits = {rest};
      ++reused_;
    } else {
      exits = collectives::emit_member(pl, me, sink_, entry);
    }
    if (spans_) spans_->spans.push_back({rank_, span_name(s, c), first, sink_.next_op()});
    return exits;
  }

  // A collective the compute waits for.
  void blocking(Stream s, collectives::Collective c, std::uint64_t bytes) {
    const std::vector<LocalOp> entry = frontier();
    std::vector<LocalOp> exits = collective(s, c, bytes, entry);
    if (!exits.empty()) inputs_ = std::move(exits);
  }

  // A collective on a side stream (DP buckets), after `after` and the stream's previous one.
  std::vector<LocalOp>& side(Stream s, collectives::Collective c, std::uint64_t bytes, std::span<const LocalOp> after) {
    std::vector<LocalOp>& tail = s == Stream::ExpertDP ? expert_dp_tail_ : dp_tail_;
    std::vector<LocalOp> entry(after.begin(), after.end());
    entry.insert(entry.end(), tail.begin(), tail.end());
    std::vector<LocalOp> exits = collective(s, c, bytes, entry);
    if (!exits.empty()) tail = std::move(exits);
    return tail;
  }

  // ---- pipeline messages -------------------------------------------------------------------
  std::uint32_t pp_tag(std::uint32_t micro_batch, std::uint32_t from_chunk, bool backward) const {
    return stream_tag(Stream::PP, ((std::uint64_t{micro_batch} * total_chunks_ + from_chunk) << 1) | (backward ? 1 : 0));
  }
  void pp_recv(std::uint32_t from_chunk, std::uint32_t micro_batch, bool backward, std::uint64_t bytes) {
    const RankId from = layout_.on_stage(rank_, from_chunk % p_.pp);
    sink_.set_role(OpRole::PP);
    const LocalOp op = sink_.add(goal::Op::recv(bytes, from, pp_tag(micro_batch, from_chunk, backward)), {});
    for (LocalOp f : frontier()) sink_.add_requires(op, f);
    inputs_.push_back(op);
  }
  void pp_send(std::uint32_t to_chunk, std::uint32_t from_chunk, std::uint32_t micro_batch, bool backward,
               std::uint64_t bytes) {
    const RankId to = layout_.on_stage(rank_, to_chunk % p_.pp);
    sink_.set_role(OpRole::PP);
    const LocalOp op = sink_.add(goal::Op::send(bytes, to, pp_tag(micro_batch, from_chunk, backward)), {});
    if (last_compute_ != kNoOp) sink_.add_requires(op, last_compute_);
  }

  // ---- passes ------------------------------------------------------------------------------
  std::uint32_t layer_count() const {
    return w_.model.transformer ? w_.model.transformer->layers : static_cast<std::uint32_t>(w_.model.layers.size());
  }
  // What enters model chunk g: the output of the layer before it.
  std::uint64_t boundary_bytes(std::uint32_t g) const {
    const std::uint32_t first = chunk_layers(layer_count(), total_chunks_, g).first;
    return first == 0 ? costs_.embedding.output_bytes : costs_.layers[first - 1].output_bytes;
  }

  void tp_reduce(bool to_sequence_shards) {
    if (p_.tp <= 1) return;
    const std::uint64_t a = costs_.tp_activation_bytes;
    blocking(Stream::TP, to_sequence_shards ? collectives::Collective::ReduceScatter : collectives::Collective::Allreduce, a);
  }
  void tp_gather() {
    if (p_.tp > 1 && p_.sp) blocking(Stream::TP, collectives::Collective::Allgather, costs_.tp_activation_bytes);
  }
  void expert_alltoall() {
    if (p_.ep > 1) blocking(Stream::EP, collectives::Collective::AllToAll, costs_.moe_alltoall_bytes);
  }
  void gather_params(const LayerCosts& l) {
    if (p_.zero != DpSharding::Zero3 || p_.dp <= 1) return;
    const std::uint64_t bytes = l.dense_params * bytes_of(w_.model.dtype);
    // Gathers run ahead on the DP stream, in order: prefetching without a memory limit.
    const std::vector<LocalOp> tail = side(Stream::DP, collectives::Collective::Allgather, bytes, {});
    inputs_.insert(inputs_.end(), tail.begin(), tail.end());
  }

  // One block (attention or MLP) forward: gather (SP), compute, reduce (TP).
  void forward_layer(const LayerCosts& l) {
    gather_params(l);
    const bool sp = p_.sp;
    if (!l.attention.kernels) {  // explicit layers: one block, no TP
      compute(l.mlp);
      return;
    }
    tp_gather();
    compute(l.attention);
    tp_reduce(sp);
    tp_gather();
    if (l.moe) expert_alltoall();
    compute(l.mlp);
    if (l.moe) expert_alltoall();
    tp_reduce(sp);
  }

  // Backward of a block: with SP, all-gather the output gradient and re-gather the input for
  // the weight gradients, then reduce-scatter the input gradient; without SP, all-reduce the
  // input gradient (the forward all-reduce's backward is the identity).
  void backward_layer(const LayerCosts& l) {
    gather_params(l);
    if (!l.attention.kernels) {
      compute(l.mlp.scaled(2));
      return;
    }
    tp_gather();
    if (l.moe) expert_alltoall();
    tp_gather();
    compute(l.mlp.scaled(2));
    if (l.moe) expert_alltoall();
    tp_reduce(p_.sp);
    tp_gather();
    tp_gather();
    compute(l.attention.scaled(2));
    tp_reduce(p_.sp);
  }

  void forward(std::uint32_t g, std::uint32_t mb) {
    if (g > 0) pp_recv(g - 1, mb, false, boundary_bytes(g));
    if (g == 0 && w_.model.transformer) {
      compute(costs_.embedding.mlp);
      tp_reduce(p_.sp);  // the vocabulary-parallel embedding sums its shards
    }
    const auto [first, last] = chunk_layers(layer_count(), total_chunks_, g);
    for (std::uint32_t i = first; i < last; ++i) forward_layer(costs_.layers[i]);
    if (g + 1 < total_chunks_) {
      pp_send(g + 1, g, mb, false, costs_.layers[last - 1].output_bytes);
    } else if (w_.model.transformer) {
      tp_gather();
      compute(costs_.head.mlp);
    }
  }

  void backward(std::uint32_t g, std::uint32_t mb, bool last_micro_batch) {
    const auto [first, last] = chunk_layers(layer_count(), total_chunks_, g);
    if (g + 1 < total_chunks_) pp_recv(g + 1, mb, true, costs_.layers[last - 1].output_bytes);
    if (g + 1 == total_chunks_ && w_.model.transformer) {
      compute(costs_.head.mlp.scaled(2));
      tp_reduce(p_.sp);
      if (last_micro_batch) gradients_ready(costs_.head);
    }
    for (std::uint32_t i = last; i-- > first;) {
      if (w_.training.recompute) forward_layer(costs_.layers[i]);
      backward_layer(costs_.layers[i]);
      if (last_micro_batch) gradients_ready(costs_.layers[i]);
    }
    if (g == 0 && w_.model.transformer) {
      compute(costs_.embedding.mlp.scaled(2));
      if (last_micro_batch) gradients_ready(costs_.embedding);
    }
    if (g > 0) pp_send(g - 1, g, mb, true, boundary_bytes(g));
  }

  // ---- gradients and the optimizer ---------------------------------------------------------
  collectives::Collective gradient_collective() const {
    return p_.zero == DpSharding::None ? collectives::Collective::Allreduce : collectives::Collective::ReduceScatter;
  }

  void gradients_ready(const LayerCosts& l) {
    dense_bucket_ += l.dense_params * bytes_of(p_.grad_dtype);
    expert_bucket_ += l.expert_params * bytes_of(p_.grad_dtype);
    flush_gradients(false);
  }

  // Launches full buckets (all of them at the end), after the compute that made them.
  void flush_gradients(bool all) {
    const std::vector<LocalOp> after = last_compute_ == kNoOp ? std::vector<LocalOp>{} : std::vector<LocalOp>{last_compute_};
    if (dense_bucket_ > 0 && (all || dense_bucket_ >= p_.bucket_bytes)) {
      if (p_.zero != DpSharding::None) gathered_after_step_.push_back(dense_bucket_ / bytes_of(p_.grad_dtype));
      // The last action's full buckets wait for pieces of their own (emit_next); not under
      // ZeRO-3, whose parameter gathers share the DP stream.
      if (!all && next_action_ == actions_.size() && p_.zero != DpSharding::Zero3) {
        deferred_buckets_.push_back({dense_bucket_, last_compute_});
      } else {
        side(Stream::DP, gradient_collective(), dense_bucket_, after);
      }
      dense_bucket_ = 0;
    }
    if (expert_bucket_ > 0 && (all || expert_bucket_ >= p_.bucket_bytes)) {
      side(Stream::ExpertDP, collectives::Collective::Allreduce, expert_bucket_, after);
      expert_bucket_ = 0;
    }
  }

  // Adam over this GPU's share of the parameters (all of them, or 1/DP with ZeRO): reads and
  // writes about 32 bytes per parameter (FP32 master weight, two moments, gradient, BF16 copy).
  void optimizer_step() {
    std::uint64_t params = 0;
    const std::uint32_t first = coords_.stage, step = p_.pp;
    for (std::uint32_t g = first; g < total_chunks_; g += step) {
      const auto [a, b] = chunk_layers(layer_count(), total_chunks_, g);
      for (std::uint32_t i = a; i < b; ++i) params += costs_.layers[i].dense_params + costs_.layers[i].expert_params;
      if (g == 0) params += costs_.embedding.dense_params;
      if (g + 1 == total_chunks_) params += costs_.head.dense_params;
    }
    if (p_.zero != DpSharding::None) params /= p_.dp;
    inputs_.insert(inputs_.end(), dp_tail_.begin(), dp_tail_.end());
    inputs_.insert(inputs_.end(), expert_dp_tail_.begin(), expert_dp_tail_.end());
    step_op_ = compute({10.0 * static_cast<double>(params), 32.0 * static_cast<double>(params), 1});
    // Sharded optimizers hand the updated parameters back to every DP rank, bucket by bucket
    // (emit_next); ZeRO-3 gathers them when a layer next needs them instead.
    if (p_.zero != DpSharding::Zero1 && p_.zero != DpSharding::Zero2) gathered_after_step_.clear();
  }

  const WorkloadSpec& w_;
  const ParallelSpec& p_;
  const ModelCosts& costs_;
  const ParallelLayout& layout_;
  const LoweringOptions& options_;
  RankId rank_;
  StepSink& sink_;
  std::uint64_t& compute_ns_;
  std::uint64_t& reused_;
  CollectiveSpans* spans_;
  RankCoordinates coords_;
  std::uint32_t total_chunks_ = 1;
  std::uint32_t micro_batches_ = 0;
  std::vector<PipelineAction> actions_;
  std::size_t next_action_ = 0;
  bool stepped_ = false;

  LocalOp last_compute_ = kNoOp;
  std::vector<LocalOp> inputs_;       // what the next compute (or blocking collective) waits for
  std::vector<LocalOp> dp_tail_;      // the DP stream's last collective
  std::vector<LocalOp> expert_dp_tail_;
  std::uint64_t dense_bucket_ = 0, expert_bucket_ = 0;
  std::vector<std::uint64_t> gathered_after_step_;  // ZeRO-1/2: parameters per bucket
  std::size_t next_gather_ = 0;                     // the next of them to all-gather
  // Full DP buckets of the last action, reduced in pieces after it (emit_next).
  struct DeferredBucket {
    std::uint64_t bytes;
    LocalOp after;  // the compute that filled it
  };
  std::vector<DeferredBucket> deferred_buckets_;
  std::size_t next_deferred_ = 0;
  LocalOp step_op_ = kNoOp;                         // the optimizer step's compute
  std::array<std::uint64_t, 6> counters_{};
  std::map<std::tuple<int, int, std::uint64_t>, collectives::Plan> plans_;
  std::map<std::tuple<int, int, std::uint64_t>, std::optional<Reused>> reused_plans_;
};

// The totals known before any op is emitted; compute_ns and bytes_sent start at zero.
inline void start_totals(const WorkloadSpec& w, const ModelCosts& costs, std::uint32_t world, StepTotals& out) {
  out.micro_batches = w.micro_batches();
  out.total_params = costs.total_params;
  out.compute_ns.assign(world, 0);
  out.bytes_sent.assign(world, {});
  out.collectives_reused.assign(world, 0);
  double per_micro_batch = costs.head.model_flops;
  for (const LayerCosts& l : costs.layers) per_micro_batch += l.model_flops;
  // Forward + backward (2×) per micro-batch, for every micro-batch of every DP replica.
  out.model_flops = 3 * per_micro_batch * static_cast<double>(out.micro_batches) * w.parallel.dp;
}

}  // namespace collsim::workload::lowering
