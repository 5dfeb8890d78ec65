#include "collsim/validation/system_file.hpp"

#include <array>
#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <string_view>

#include "collsim/common/input_error.hpp"
#include "collsim/config/yaml_map.hpp"
#include "collsim/validation/nic_affinity.hpp"

namespace collsim::validation {
namespace {

using config::Field;
using config::Map;
using config::Reader;

constexpr std::array<std::string_view, 21> kKeys = {
    "name",         "description", "base",     "gpu",           "arch",     "gpus_per_node",
    "intra_node",   "gpu_link",    "gpu_link_latency", "nvls",  "nics_per_node", "nic_gpus",
    "nic",          "nic_latency", "channels", "net_message_latency", "network_simple_only", "sharp",
    "transport",    "net_efficiency", "gpus_per_host"};

// What a file must give when it does not start from a preset: the rest have defaults that
// hold for any NCCL system (latencies of a few hundred ns, 16 channels, no EFA-like costs).
constexpr std::array<std::string_view, 6> kRequiredWithoutBase = {"arch", "gpus_per_node", "intra_node",
                                                                  "gpu_link", "nics_per_node", "nic"};

std::string preset_names() {
  std::string names;
  for (const SystemPreset& p : system_presets()) names += (names.empty() ? "" : ", ") + p.name;
  return names;
}

double gigabytes_per_s(const Reader& r, const Field& f) { return static_cast<double>(config::read_bandwidth(r, f).bps()) / 8e9; }
double gigabits_per_s(const Reader& r, const Field& f) { return static_cast<double>(config::read_bandwidth(r, f).bps()) / 1e9; }
double nanoseconds(const Reader& r, const Field& f) { return static_cast<double>(config::read_duration(r, f).picoseconds()) / 1e3; }

std::uint32_t count_in(const Reader& r, const Field& f, std::uint32_t lo, std::uint32_t hi, const char* why) {
  const std::uint32_t v = config::read_count(r, f);
  if (v < lo || v > hi)
    r.fail(f.value, "key '" + f.key + "': expected " + std::to_string(lo) + " to " + std::to_string(hi) + " (" + why +
                        "), found " + std::to_string(v));
  return v;
}

IntraNode read_intra_node(const Reader& r, const Field& f) {
  const std::string s = config::scalar(r, f, "nvswitch, nvlink-mesh or pcie");
  for (IntraNode k : {IntraNode::NvSwitch, IntraNode::NvLinkMesh, IntraNode::Pcie})
    if (to_string(k) == s) return k;
  r.fail(f.value, "key 'intra_node': expected nvswitch, nvlink-mesh or pcie, found '" + s + "'");
}

// nic_gpus: one list per NIC of the GPUs it serves, e.g. [[0, 1], [2, 3]]. Each entry is read
// here; whether they cover the node's GPUs is checked once gpus_per_node is known.
std::vector<std::vector<std::uint32_t>> read_nic_gpus(const Reader& r, const Field& f) {
  const char* expected = "a list with one list of GPU numbers per NIC, such as [[0, 1], [2, 3]]";
  if (!f.value.IsSequence() || f.value.size() == 0)
    r.fail(f.value, "key 'nic_gpus': expected " + std::string(expected) + ", found " + config::describe(f.value));
  std::vector<std::vector<std::uint32_t>> serves;
  for (const YAML::Node& nic : f.value) {
    if (!nic.IsSequence())
      r.fail(nic, "key 'nic_gpus': NIC " + std::to_string(serves.size()) + ": expected a list of GPU numbers, found " +
                      config::describe(nic));
    std::vector<std::uint32_t>& gpus = serves.emplace_back();
    for (const YAML::Node& g : nic) gpus.push_back(config::read_count(r, Field{"nic_gpus", g, g}));
  }
  return serves;
}

// transport: the kind, and the costs it implies for what the file does not give (the base's
// were its own transport's). A transport with no published figure needs them from the file.
void read_transport(const Reader& r, const Map& m, const Field& f, SystemPreset& p) {
  const char* kinds = "ib, roce, efa, tcpx, tcpxo or socket";
  const std::string name = config::scalar(r, f, kinds);
  const auto t = net_transport_from_name(name);
  if (!t) r.fail(f.value, "key 'transport': expected " + std::string(kinds) + ", found '" + name + "'");
  p.transport = *t;
  const TransportCosts costs = transport_costs(*t);
  const auto needs = [&](const char* key, const char* example) {
    r.fail(f.value, "transport " + name + " needs '" + key + "' (" + costs.source + "; measure it on the cluster, e.g. " +
                        key + ": " + example + ")");
  };
  if (!m.find("net_message_latency")) {
    if (!costs.message_latency) needs("net_message_latency", "20us");
    p.net_message_latency = *costs.message_latency;
  }
  if (!m.find("net_efficiency")) {
    if (!costs.efficiency) needs("net_efficiency", "0.7");
    p.net_efficiency = *costs.efficiency;
  }
  if (*t != NetTransport::InfiniBand) p.sharp = false;
}

}  // namespace

SystemPreset read_system_file(const std::string& path) {
  const YAML::Node root = config::parse_file(path);
  const Reader r(path);
  const Map m(r, root, "the system", "a map such as {base: dgx-h100, nics_per_node: 4}");
  m.allow_only(kKeys, {}, "");

  SystemPreset p;
  if (const Field* base = m.find("base")) {
    const std::string name = config::read_string(r, *base);
    const auto preset = find_system_preset(name);
    if (!preset) r.fail(base->value, "key 'base': no built-in preset '" + name + "' (there are: " + preset_names() + ")");
    p = *preset;
  } else {
    for (std::string_view key : kRequiredWithoutBase) m.require(key, "give it, or start from a preset with 'base'");
  }
  p.name = std::filesystem::path(path).stem().string();
  if (const Field* f = m.find("name")) p.name = config::read_string(r, *f);
  if (const Field* f = m.find("description")) p.description = config::read_string(r, *f);
  else p.description = (m.find("base") ? "based on " + m.find("base")->value.Scalar() + ", " : std::string()) +
                        "from " + path;
  if (const Field* f = m.find("gpu")) p.gpu = config::read_string(r, *f);
  if (const Field* f = m.find("arch")) {
    const std::string s = config::scalar(r, *f, "volta, ampere, hopper or blackwell");
    const auto arch = collectives::gpu_arch_from_name(s);
    if (!arch) r.fail(f->value, "key 'arch': expected volta, ampere, hopper or blackwell, found '" + s + "'");
    p.arch = *arch;
  }
  if (const Field* f = m.find("gpus_per_node")) p.gpus_per_node = count_in(r, *f, 1, 1024, "GPUs in one NVLink or PCIe domain");
  if (const Field* f = m.find("intra_node")) p.intra = read_intra_node(r, *f);
  if (const Field* f = m.find("gpu_link")) p.gpu_link_gbytes = gigabytes_per_s(r, *f);
  if (const Field* f = m.find("gpu_link_latency")) p.gpu_link_latency = config::read_duration(r, *f);
  if (const Field* f = m.find("nvls")) p.nvls = config::read_bool(r, *f);
  if (const Field* f = m.find("nics_per_node")) p.nics_per_node = count_in(r, *f, 1, 1024, "a node reaches others through its NICs");
  if (const Field* f = m.find("nic_gpus")) {
    p.nic_gpus = read_nic_gpus(r, *f);
    if (p.nic_gpus.size() != p.nics_per_node)
      r.fail(f->value, "key 'nic_gpus': lists " + std::to_string(p.nic_gpus.size()) + " NIC(s), but nics_per_node is " +
                           std::to_string(p.nics_per_node));
  } else if (m.find("nics_per_node") || m.find("gpus_per_node")) {
    p.nic_gpus.clear();  // the base's affinity was for its own NICs and GPUs
  }
  if (!p.nic_gpus.empty())
    if (const std::string problem = affinity_problem(p.nic_gpus, p.gpus_per_node); !problem.empty())
      r.fail(m.find("nic_gpus")->value, "key 'nic_gpus': " + problem);
  if (const Field* f = m.find("nic")) p.nic_gbits = gigabits_per_s(r, *f);
  if (const Field* f = m.find("nic_latency")) p.nic_latency = config::read_duration(r, *f);
  if (const Field* f = m.find("channels")) p.channels = count_in(r, *f, 1, 64, "NCCL's MAXCHANNELS is 64");
  if (const Field* f = m.find("net_message_latency")) p.net_message_latency = Duration::us(nanoseconds(r, *f) / 1e3);
  if (const Field* f = m.find("network_simple_only")) p.network_simple_only = config::read_bool(r, *f);
  if (const Field* f = m.find("transport")) read_transport(r, m, *f, p);
  if (const Field* f = m.find("net_efficiency")) {
    p.net_efficiency = config::read_nonnegative(r, *f);
    if (!(p.net_efficiency > 0 && p.net_efficiency <= 1))
      r.fail(f->value, "key 'net_efficiency': expected a share of the NIC line rate in (0, 1], found " +
                           std::to_string(p.net_efficiency));
  }
  if (const Field* f = m.find("sharp")) p.sharp = config::read_bool(r, *f);
  if (p.sharp && p.transport != NetTransport::InfiniBand) {
    const Field* f = m.find("sharp");
    r.fail(f ? f->value : m.find("transport")->value,
           "sharp needs transport: ib (SHARP reduces in InfiniBand switches), the system's transport is " +
               std::string(to_string(p.transport)));
  }
  if (const Field* f = m.find("gpus_per_host"))
    p.gpus_per_host = count_in(r, *f, 1, 1024, "GPUs per server of an NVLink domain that spans servers");
  if (p.gpus_per_host != 0 && (p.gpus_per_host > p.gpus_per_node || p.gpus_per_node % p.gpus_per_host != 0)) {
    const Field* f = m.find("gpus_per_host");
    r.fail(f ? f->value : m.find("gpus_per_node")->value,
           "gpus_per_node (" + std::to_string(p.gpus_per_node) + ") must be a whole number of servers of gpus_per_host (" +
               std::to_string(p.gpus_per_host) + ") GPUs");
  }

  // NVLS is the NVSwitch's own reduction: a mesh or PCIe has no switch to reduce in.
  if (p.nvls && p.intra != IntraNode::NvSwitch) {
    const Field* f = m.find("nvls");
    r.fail(f ? f->value : m.find("intra_node")->value,
           "nvls needs intra_node: nvswitch (NVLS reduces inside the NVSwitch), the system has " +
               std::string(to_string(p.intra)));
  }
  if (p.nvls && p.arch != collectives::GpuArch::Hopper && p.arch != collectives::GpuArch::Blackwell) {
    const Field* f = m.find("nvls");
    r.fail(f ? f->value : m.find("arch")->value, "nvls needs a Hopper or Blackwell GPU (NVSwitch 3 and later)");
  }
  return p;
}

SystemPreset resolve_system(const std::string& name_or_path) {
  if (auto p = find_system_preset(name_or_path)) return *p;
  const std::filesystem::path path(name_or_path);
  const bool looks_like_file = path.extension() == ".yaml" || path.extension() == ".yml" || path.has_parent_path();
  std::error_code ec;
  if (looks_like_file || std::filesystem::is_regular_file(path, ec)) {
    if (!std::filesystem::is_regular_file(path, ec)) throw InputError::in_file(name_or_path, "no such system file");
    return read_system_file(name_or_path);
  }
  throw std::invalid_argument("unknown system preset '" + name_or_path + "' (there are: " + preset_names() +
                              "; or give a system file, see `collsim validate --help-system`)");
}

std::string_view system_file_help() {
  return "A system file describes hardware that no preset has, in YAML. Either give every field, or start from a\n"
         "preset with 'base' and give what differs:\n"
         "\n"
         "  base: dgx-h100                # a built-in preset (--list-systems)\n"
         "  name: h100-4nic               # default: the file's name without its extension\n"
         "  description: DGX H100 with 4 of its 8 NICs cabled\n"
         "  nics_per_node: 4\n"
         "\n"
         "Keys:\n"
         "  gpu                  GPU name as device lines print it (H100)\n"
         "  arch                 volta, ampere, hopper or blackwell (NCCL's tuning tables)\n"
         "  gpus_per_node        GPUs in one NVLink (or PCIe) domain\n"
         "  intra_node           nvswitch, nvlink-mesh or pcie\n"
         "  gpu_link             per GPU and direction, e.g. 450GB/s\n"
         "  gpu_link_latency     e.g. 120ns\n"
         "  nvls                 true: NVSwitch in-switch reduction (Hopper and later, nvswitch only)\n"
         "  nics_per_node        NICs between nodes\n"
         "  nic_gpus             which GPUs each NIC serves (closest on PCIe), one list per NIC, e.g.\n"
         "                       [[0, 1], [2, 3], [4, 5], [6, 7]]; default: one NIC per GPU in order, or\n"
         "                       consecutive GPUs sharing a NIC when there are fewer NICs. A job on some\n"
         "                       GPUs of a node sends only through their NICs, as NCCL does\n"
         "  nic                  line rate per NIC, e.g. 400Gbps\n"
         "  nic_latency          per network link, e.g. 600ns\n"
         "  channels             NCCL coll channels (1-64), unless the log's INFO lines or --channels say\n"
         "  net_message_latency  one-way, per message crossing the network beyond the links (EFA: 14.5us)\n"
         "  network_simple_only  true: the network plugin forces the Simple protocol across nodes\n"
         "  sharp                true: the switches reduce in the network (InfiniBand SHARP), so NCCL can run\n"
         "                       CollNet (validate --algo collnet_chain); the InfiniBand presets have it\n"
         "  transport            how messages cross the network: ib, roce (RDMA with GPUDirect), efa (AWS\n"
         "                       SRD; net_message_latency 14.5us unless given), tcpx (GCP GPUDirect-TCPX;\n"
         "                       net_efficiency 0.75 unless given), tcpxo, socket (NCCL_NET=Socket). tcpx,\n"
         "                       tcpxo and socket have no published per-message cost, and tcpxo and socket\n"
         "                       no efficiency: the file must give what is missing. Only ib has SHARP\n"
         "  net_efficiency       share of the NIC line rate the transport carries data at, in (0, 1]\n"
         "  gpus_per_host        GPUs per server when the NVLink domain spans servers (an NVL72 rack: 4,\n"
         "                       with gpus_per_node 72): device lines of such servers make one node\n"
         "Without base, arch, gpus_per_node, intra_node, gpu_link, nics_per_node and nic are required.\n";
}

}  // namespace collsim::validation
