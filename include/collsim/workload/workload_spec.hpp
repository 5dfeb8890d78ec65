#pragma once
// What a user asks about one training step: the model, the batch, the parallelism, how the
// parallel groups land on GPUs, and how fast a GPU computes. Read from YAML by
// load_workload(); every field here is checked by validate().

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collsim/collectives/collective.hpp"
#include "collsim/collectives/system_model.hpp"
#include "collsim/common/sim_time.hpp"

namespace collsim::workload {

enum class DType : std::uint8_t { FP32, TF32, BF16, FP16, FP8 };
std::uint32_t bytes_of(DType t);
std::string_view to_string(DType t);
std::optional<DType> dtype_from_name(std::string_view name);

enum class MlpKind : std::uint8_t { Gelu, SwiGlu };  // 2 or 3 weight matrices

struct TransformerSpec {
  std::uint32_t layers = 0;
  std::uint64_t hidden = 0;
  std::uint64_t ffn = 0;         // 0: 4 × hidden
  std::uint32_t heads = 0;
  std::uint32_t kv_heads = 0;    // 0: heads (no grouped-query attention)
  std::uint64_t seq = 0;
  std::uint64_t vocab = 0;
  MlpKind mlp = MlpKind::Gelu;
  // Mixture of experts: experts > 0 makes every `moe_every`-th layer (1-based: layers
  // moe_every, 2·moe_every, ...) an MoE layer whose MLP is replaced by `experts` experts of
  // which each token visits `top_k`.
  std::uint32_t experts = 0;
  std::uint32_t top_k = 0;
  std::uint32_t moe_every = 1;
};

// Any other DNN: layers with their own costs, per sample.
struct ExplicitLayer {
  std::string name;
  double forward_flops = 0;          // per sample
  std::uint64_t params = 0;          // parameter count
  std::uint64_t activation_bytes = 0;  // output per sample (what a pipeline boundary sends)
  std::uint64_t memory_bytes = 0;    // bytes moved per sample in the forward pass (roofline); 0: weights + 2 × activations
};

struct ModelSpec {
  std::string name;
  DType dtype = DType::BF16;
  std::optional<TransformerSpec> transformer;  // exactly one of transformer and layers
  std::vector<ExplicitLayer> layers;
};

struct TrainingSpec {
  std::uint64_t global_batch = 0;  // samples (sequences) per iteration
  std::uint64_t micro_batch = 1;
  bool recompute = false;          // full activation recomputation: the forward runs again in backward
};

// Parallel dimensions (EP is carved out of DP).
enum class Dimension : std::uint8_t { TP, PP, DP, EP };
inline constexpr std::size_t kDimensions = 4;
std::string_view to_string(Dimension d);

enum class PipelineSchedule : std::uint8_t { OneFOneB, Interleaved };
enum class DpSharding : std::uint8_t { None, Zero1, Zero2, Zero3 };
std::string_view to_string(PipelineSchedule s);
std::string_view to_string(DpSharding s);

struct ParallelSpec {
  std::uint32_t tp = 1;
  bool sp = false;                  // sequence parallelism with TP
  std::uint32_t pp = 1;
  PipelineSchedule schedule = PipelineSchedule::OneFOneB;
  std::uint32_t virtual_stages = 1;  // model chunks per stage (interleaved)
  std::uint32_t dp = 1;
  DpSharding zero = DpSharding::None;
  std::uint32_t ep = 1;             // expert parallelism, carved out of DP
  std::uint64_t bucket_bytes = 25ull << 20;  // DP gradient buckets
  // How ranks are numbered: the dimension that varies fastest first. "tp-dp-pp" (Megatron's
  // default) keeps a TP group on consecutive GPUs, i.e. inside a node.
  std::array<Dimension, 3> order{Dimension::TP, Dimension::DP, Dimension::PP};
  DType grad_dtype = DType::FP32;   // gradients as reduced (Megatron's main grads are FP32)
};


// How the step's collectives are lowered.
struct CommSpec {
  // Algorithm per collective kind the step uses ("auto": NCCL's choice for the size).
  std::string allreduce = "auto";
  std::string allgather = "auto";
  std::string reduce_scatter = "auto";
  std::string alltoall = "auto";
  std::uint32_t channels = 2;
  std::uint64_t chunk_bytes = 0;  // data per pipelined message; 0: the protocol's
  collectives::Protocol protocol = collectives::Protocol::Auto;
  std::optional<SimTime> launch;  // none: the protocol's
  std::optional<SimTime> step;    // none: the protocol's
  double reduce_bytes_per_ns = 200.0;  // reductions inside collectives; 0: free
};

struct DeviceSpec {
  std::string name;                      // preset name or "custom"
  std::array<double, 5> peak_flops{};    // FLOP/s per DType (dense)
  double efficiency = 0.5;               // achieved fraction of peak on GEMMs
  double memory_bytes_per_s = 0;         // HBM bandwidth, for the roofline
  SimTime kernel_launch;                 // per kernel
  bool roofline = true;                  // time = max(FLOPs / (peak × eff), bytes / bandwidth)
  collectives::GpuArch arch = collectives::GpuArch::Ampere;
};

// What to skip of a simulation (the cluster key fast_forward, the option --fast-forward):
// "off", or "steady" or "contended", "collectives", or one of the first two and collectives
// joined by a comma.
//   steady: flows that have settled on packet links send trains (net::FabricParams::train_bytes)
//   contended: steady, and trains also cross queues shared with others
//     (net::FabricParams::trains_through_queues); sets `steady` too
//   collectives: a collective that repeats alone inside a server is timed once (CollectiveReuse)
struct FastForward {
  bool steady = false;
  bool contended = false;
  bool collectives = false;
  bool operator==(const FastForward&) const = default;
};
// Empty if `text` is not one of those.
std::optional<FastForward> parse_fast_forward(std::string_view text);
// What parse_fast_forward reads, for error messages.
inline constexpr std::string_view kFastForwardValues =
    "off, steady, contended, collectives, steady,collectives or contended,collectives";

struct ClusterSpec {
  std::string topology;                  // topology file or preset name (topologies/NAME.yaml)
  std::string network = "packet";        // packet, flow or loggops, when the command does not say
  std::string fidelity;                  // per kind of link, as --fidelity (read by the command)
  std::uint64_t fidelity_line = 0;       // where the file gave it, for errors
  std::uint64_t fidelity_column = 0;
  std::string fast_forward = "off";      // as parse_fast_forward reads it, when the command does not say
  std::uint32_t gpus = 0;                // if given, must equal TP × PP × DP
};

struct WorkloadSpec {
  std::string name;
  std::string source;                    // the file it came from
  ModelSpec model;
  TrainingSpec training;
  ParallelSpec parallel;
  CommSpec comm;
  DeviceSpec device;
  ClusterSpec cluster;

  std::uint32_t world() const { return parallel.tp * parallel.pp * parallel.dp; }
  // Micro-batches per iteration per pipeline: global batch / (micro-batch × DP).
  std::uint64_t micro_batches() const { return training.global_batch / (training.micro_batch * parallel.dp); }
};

// Throws std::invalid_argument naming what is inconsistent (TP not dividing heads, more
// stages than layers, a global batch that does not split into micro-batches, ...).
void validate(const WorkloadSpec& w);

}  // namespace collsim::workload
