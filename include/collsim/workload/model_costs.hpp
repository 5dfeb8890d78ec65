#pragma once
// What each layer of the model costs one GPU for one micro-batch: compute pieces between
// communications, parameters held, and the sizes of the tensors its communication moves.

#include <cstdint>
#include <vector>

#include "collsim/workload/compute_model.hpp"
#include "collsim/workload/workload_spec.hpp"

namespace collsim::workload {

struct LayerCosts {
  // Forward compute of the attention block and of the MLP (or experts) block; explicit
  // layers have one block (attention empty). Backward is twice the forward.
  ComputeCost attention;
  ComputeCost mlp;
  bool moe = false;
  std::uint64_t dense_params = 0;   // held by one GPU (after TP)
  std::uint64_t expert_params = 0;  // held by one GPU (after TP and EP)
  std::uint64_t model_params = 0;   // of the whole layer, unsharded (for reports)
  double model_flops = 0;           // forward FLOPs of the whole layer per micro-batch, unsharded
  std::uint64_t output_bytes = 0;   // what one GPU sends to the next pipeline stage per micro-batch
};

struct ModelCosts {
  std::vector<LayerCosts> layers;   // in model order
  LayerCosts embedding;             // first stage (input embedding)
  LayerCosts head;                  // last stage (output projection and loss)
  // Tensors per micro-batch, bytes: the activation a TP collective moves (b·s·h·B) and what
  // one GPU sends to the all-to-all of an MoE layer (b·s·k·h·B / TP).
  std::uint64_t tp_activation_bytes = 0;
  std::uint64_t moe_alltoall_bytes = 0;
  std::uint64_t total_params = 0;   // the whole model, unsharded
};

// Throws std::invalid_argument if the model cannot be split as asked.
ModelCosts model_costs(const WorkloadSpec& w);

}  // namespace collsim::workload
