// Per-layer costs of a Megatron-style transformer (or of an explicit layer list) on one GPU.
// FLOPs count a multiply-add as 2; attention scores are counted in full (as Megatron's
// MFU formula does). Bytes moved are an estimate for the roofline: weights read once per
// pass plus the main activations read and written.

#include "collsim/workload/model_costs.hpp"

#include <stdexcept>

namespace collsim::workload {

namespace {

ModelCosts transformer_costs(const WorkloadSpec& w, const TransformerSpec& m) {
  const double t = w.parallel.tp;
  const double B = bytes_of(w.model.dtype);
  const double b = static_cast<double>(w.training.micro_batch);
  const double s = static_cast<double>(m.seq);
  const double h = static_cast<double>(m.hidden);
  const double f = static_cast<double>(m.ffn ? m.ffn : 4 * m.hidden);
  const double kv = static_cast<double>(m.kv_heads ? m.kv_heads : m.heads);
  const double hk = h * kv / m.heads;  // width of K and V together is 2·hk
  const double V = static_cast<double>(m.vocab);
  const double T = b * s;              // tokens per micro-batch
  const double mats = m.mlp == MlpKind::SwiGlu ? 3 : 2;

  const double attn_params = 2 * h * h + 2 * h * hk + 2 * h;  // Q, O, K, V, two norms
  const double attn_flops = 2 * T * h * (h + 2 * hk) + 4 * T * s * h + 2 * T * h * h;
  const double mlp_params = mats * h * f + h;
  const double mlp_flops = mats * 2 * T * h * f;

  ModelCosts out;
  out.tp_activation_bytes = static_cast<std::uint64_t>(T * h * B);
  const std::uint64_t pp_bytes = w.parallel.sp ? static_cast<std::uint64_t>(T * h * B / t) : out.tp_activation_bytes;
  for (std::uint32_t i = 0; i < m.layers; ++i) {
    LayerCosts l;
    l.moe = m.experts > 0 && (i + 1) % m.moe_every == 0;
    l.attention = {attn_flops / t, (attn_params * B + 6 * T * h * B) / t + 2 * T * h * B, 6};
    double params = attn_params;
    double flops = attn_flops;
    if (l.moe) {
      const double E = m.experts, k = m.top_k;
      const double expert_params = mats * h * f;
      l.mlp = {(k * mlp_flops + 2 * T * h * E) / t,
               (E / w.parallel.ep * expert_params * B + k * (2 * T * h + 2 * T * f) * B) / t + 2 * T * h * B, 8};
      l.expert_params = static_cast<std::uint64_t>(E / w.parallel.ep * expert_params / t);
      l.dense_params = static_cast<std::uint64_t>((attn_params + h * E) / t);
      params += E * expert_params + h * E;
      flops += k * mlp_flops + 2 * T * h * E;
    } else {
      l.mlp = {mlp_flops / t, (mlp_params * B + 2 * T * f * B) / t + 2 * T * h * B, 4};
      l.dense_params = static_cast<std::uint64_t>((attn_params + mlp_params) / t);
      params += mlp_params;
      flops += mlp_flops;
    }
    l.model_params = static_cast<std::uint64_t>(params);
    l.model_flops = flops;
    l.output_bytes = pp_bytes;
    out.total_params += l.model_params;
    out.layers.push_back(l);
  }
  // Vocabulary-parallel embedding (a lookup) and output layer with the loss.
  out.embedding.mlp = {0, T * h * B, 1};
  out.embedding.dense_params = static_cast<std::uint64_t>(V * h / t);
  out.embedding.model_params = static_cast<std::uint64_t>(V * h);
  out.embedding.output_bytes = pp_bytes;
  out.head.mlp = {2 * T * h * V / t, (V * h * B + 2 * T * V * B) / t, 3};
  // With one stage the output layer shares the embedding's weights; otherwise the last stage
  // keeps its own copy (whose gradients it reduces like any other).
  out.head.dense_params = w.parallel.pp > 1 ? out.embedding.dense_params : 0;
  out.head.model_flops = 2 * T * h * V;
  out.total_params += out.embedding.model_params;
  out.moe_alltoall_bytes = m.experts ? static_cast<std::uint64_t>(T * m.top_k * h * B / t) : 0;
  return out;
}

ModelCosts explicit_costs(const WorkloadSpec& w) {
  const double b = static_cast<double>(w.training.micro_batch);
  const double B = bytes_of(w.model.dtype);
  ModelCosts out;
  for (const ExplicitLayer& e : w.model.layers) {
    LayerCosts l;
    const double memory = e.memory_bytes ? static_cast<double>(e.memory_bytes) * b
                                         : static_cast<double>(e.params) * B + 2 * static_cast<double>(e.activation_bytes) * b;
    l.mlp = {e.forward_flops * b, memory, 1};
    l.dense_params = e.params;
    l.model_params = e.params;
    l.model_flops = e.forward_flops * b;
    l.output_bytes = static_cast<std::uint64_t>(static_cast<double>(e.activation_bytes) * b);
    out.total_params += e.params;
    out.layers.push_back(l);
  }
  return out;
}

}  // namespace

ModelCosts model_costs(const WorkloadSpec& w) {
  validate(w);
  return w.model.transformer ? transformer_costs(w, *w.model.transformer) : explicit_costs(w);
}

}  // namespace collsim::workload
