// System files: hardware described in YAML, from a preset or in full, with errors that say where.

#include <gtest/gtest.h>

#include <filesystem>

#include "collsim/common/input_error.hpp"
#include "collsim/validation/system_file.hpp"
#include "support/scratch_dir.hpp"

namespace collsim::validation {
namespace {

class SystemFile : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& text) { return scratch_.write(name, text).string(); }
  test_support::ScratchDir scratch_;
  const std::filesystem::path& dir_ = scratch_.path();
};

TEST_F(SystemFile, EveryFieldWithItsUnit) {
  const SystemPreset p = read_system_file(write("mine.yaml",
                                                "gpu: H200\n"
                                                "arch: hopper\n"
                                                "gpus_per_node: 4\n"
                                                "intra_node: nvlink-mesh\n"
                                                "gpu_link: 3600Gbps\n"
                                                "gpu_link_latency: 0.2us\n"
                                                "nics_per_node: 2\n"
                                                "nic: 50GB/s\n"
                                                "nic_latency: 1us\n"
                                                "channels: 12\n"
                                                "net_message_latency: 14.5us\n"
                                                "network_simple_only: true\n"
                                                "sharp: true\n"));
  EXPECT_EQ(p.name, "mine");  // the file's stem
  EXPECT_EQ(p.gpu, "H200");
  EXPECT_EQ(p.arch, collectives::GpuArch::Hopper);
  EXPECT_EQ(p.gpus_per_node, 4u);
  EXPECT_EQ(p.intra, IntraNode::NvLinkMesh);
  EXPECT_DOUBLE_EQ(p.gpu_link_gbytes, 450);  // 3600 Gb/s = 450 GB/s
  EXPECT_EQ(p.gpu_link_latency, SimTime::ns(200));
  EXPECT_FALSE(p.nvls);
  EXPECT_EQ(p.nics_per_node, 2u);
  EXPECT_DOUBLE_EQ(p.nic_gbits, 400);  // 50 GB/s = 400 Gb/s
  EXPECT_EQ(p.nic_latency, SimTime::ns(1000));
  EXPECT_EQ(p.channels, 12u);
  EXPECT_DOUBLE_EQ(p.net_message_latency.microseconds(), 14.5);
  EXPECT_TRUE(p.network_simple_only);
  EXPECT_TRUE(p.sharp);
}

TEST_F(SystemFile, BaseKeepsWhatTheFileDoesNotChange) {
  const SystemPreset h100 = *find_system_preset("dgx-h100");
  const SystemPreset p =
      read_system_file(write("half.yaml", "base: dgx-h100\nname: h100-4nic\ndescription: half the NICs\nnics_per_node: 4\n"));
  EXPECT_EQ(p.name, "h100-4nic");
  EXPECT_EQ(p.description, "half the NICs");
  EXPECT_EQ(p.nics_per_node, 4u);
  EXPECT_EQ(p.gpu, h100.gpu);
  EXPECT_EQ(p.arch, h100.arch);
  EXPECT_EQ(p.gpus_per_node, h100.gpus_per_node);
  EXPECT_EQ(p.gpu_link_gbytes, h100.gpu_link_gbytes);
  EXPECT_EQ(p.nvls, h100.nvls);
  EXPECT_EQ(p.nic_gbits, h100.nic_gbits);
  EXPECT_EQ(p.channels, h100.channels);
}

TEST_F(SystemFile, NicGpusSaysWhichGpusEachNicServes) {
  const SystemPreset p = read_system_file(
      write("pairs.yaml", "base: dgx-h100\nnics_per_node: 4\nnic_gpus: [[0, 1], [2, 3], [4, 5], [6, 7]]\n"));
  EXPECT_EQ(p.nic_gpus, (std::vector<std::vector<std::uint32_t>>{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  // Changing the NICs of a base drops its affinity for the default of the new count.
  EXPECT_TRUE(read_system_file(write("four.yaml", "base: dgx-h100\nnics_per_node: 4\n")).nic_gpus.empty());
}

TEST_F(SystemFile, ResolvesPresetNamesAndFiles) {
  EXPECT_EQ(resolve_system("dgx-a100").name, "dgx-a100");
  EXPECT_EQ(resolve_system(write("x.yml", "base: dgx-a100\nnic: 100Gbps\n")).nic_gbits, 100);
  EXPECT_THROW(resolve_system("dgx-z100"), std::invalid_argument);
  EXPECT_THROW(resolve_system((dir_ / "absent.yaml").string()), InputError);
}

void expect_error_at(const std::string& path, std::uint64_t line, std::uint64_t column, const std::string& detail) {
  try {
    read_system_file(path);
    ADD_FAILURE() << "no error for " << path;
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_EQ(e.column(), column) << e.what();
    EXPECT_NE(e.detail().find(detail), std::string::npos) << e.what();
  }
}

TEST_F(SystemFile, BadInputNamesLineColumnAndWhatWasExpected) {
  expect_error_at(write("a.yaml", "base: dgx-h100\nnics: 4\n"), 2, 1, "unknown key 'nics'");
  expect_error_at(write("b.yaml", "base: dgx-h100\ngpu_link: 450\n"), 2, 11, "expected a bandwidth");
  expect_error_at(write("c.yaml", "base: dgx-h100\narch: pascal\n"), 2, 7, "expected volta, ampere, hopper or blackwell");
  expect_error_at(write("d.yaml", "base: dgx-h100\nintra_node: nvlink\n"), 2, 13, "nvswitch, nvlink-mesh or pcie");
  expect_error_at(write("e.yaml", "base: dgx-h100\nnics_per_node: 0\n"), 2, 16, "expected 1 to 1024");
  expect_error_at(write("f.yaml", "base: dgx-h100\nnvls: maybe\n"), 2, 7, "expected true or false");
  expect_error_at(write("g.yaml", "base: dgx-a100\nnvls: true\n"), 2, 7, "nvls needs a Hopper or Blackwell GPU");
  expect_error_at(write("h.yaml", "arch: hopper\ngpus_per_node: 8\nintra_node: pcie\ngpu_link: 64GB/s\nnic: 400Gbps\n"), 1, 1,
                  "missing key 'nics_per_node'");
  expect_error_at(write("i.yaml", "- base\n"), 1, 1, "expected a map");
  expect_error_at(write("j.yaml", "base: dgx-h100\nnics_per_node: 2\nnic_gpus: [[0, 1, 2, 3], [4, 5, 6, 9]]\n"), 3, 11,
                  "NIC 1 serves GPU 9, but a node has 8 GPUs");
  expect_error_at(write("k.yaml", "base: dgx-h100\nnics_per_node: 2\nnic_gpus: [[0, 1, 2, 3], [4, 5, 6]]\n"), 3, 11,
                  "no NIC serves GPU 7");
  expect_error_at(write("l.yaml", "base: dgx-h100\nnics_per_node: 2\nnic_gpus: [[0, 1, 2, 3]]\n"), 3, 11,
                  "lists 1 NIC(s), but nics_per_node is 2");
  expect_error_at(write("m.yaml", "base: dgx-h100\nnics_per_node: 1\nnic_gpus: [[0, x]]\n"), 3, 16,
                  "expected a whole number");
  expect_error_at(write("n.yaml", "base: dgx-h100\nnic_gpus: 8\n"), 2, 11, "one list of GPU numbers per NIC");
  expect_error_at(write("o.yaml", "base: dgx-h100\nnic: 0Gbps\n"), 2, 6, "'0Gbps' is zero");
  expect_error_at(write("p.yaml", "base: dgx-h100\ngpu_link: 0GB/s\n"), 2, 11, "'0GB/s' is zero");
  expect_error_at(write("q.yaml", "base: dgx-h100\ntransport: infiniband\n"), 2, 12,
                  "expected ib, roce, efa, tcpx, tcpxo or socket, found 'infiniband'");
  expect_error_at(write("r.yaml", "base: dgx-h100\ntransport: roce\nsharp: true\n"), 3, 8, "sharp needs transport: ib");
  expect_error_at(write("s.yaml", "base: dgx-h100\ntransport: socket\nnet_message_latency: 30us\n"), 2, 12,
                  "transport socket needs 'net_efficiency'");
  expect_error_at(write("t.yaml", "base: dgx-h100\ntransport: tcpx\n"), 2, 12, "transport tcpx needs 'net_message_latency'");
  expect_error_at(write("u.yaml", "base: dgx-h100\nnet_efficiency: 1.5\n"), 2, 17, "in (0, 1]");
  expect_error_at(write("v.yaml", "base: gb200-nvl72\ngpus_per_host: 5\n"), 2, 16, "whole number of servers");
}

TEST_F(SystemFile, TheTransportBringsItsCostsUnlessTheFileGivesThem) {
  // From InfiniBand with SHARP to EFA: EFA's message latency, and no SHARP.
  const SystemPreset efa = read_system_file(write("efa.yaml", "base: dgx-h100\ntransport: efa\n"));
  EXPECT_EQ(efa.transport, NetTransport::Efa);
  EXPECT_EQ(efa.net_message_latency, *transport_costs(NetTransport::Efa).message_latency);
  EXPECT_FALSE(efa.sharp);
  // From EFA to RoCE: the base's EFA latency goes with its transport.
  const SystemPreset roce = read_system_file(write("roce.yaml", "base: h100-efa\ntransport: roce\n"));
  EXPECT_EQ(roce.net_message_latency, Duration::zero());
  EXPECT_DOUBLE_EQ(roce.net_efficiency, 1);
  // TCPX: GCP's ~150 of 200 Gb/s per NIC, with the latency the file measured.
  const SystemPreset tcpx =
      read_system_file(write("tcpx.yaml", "base: dgx-h100\nnic: 200Gbps\ntransport: tcpx\nnet_message_latency: 20us\n"));
  EXPECT_DOUBLE_EQ(tcpx.net_efficiency, 0.75);
  EXPECT_DOUBLE_EQ(tcpx.net_message_latency.microseconds(), 20);
  // Sockets: nothing published, both given.
  const SystemPreset socket = read_system_file(
      write("socket.yaml", "base: dgx-h100\ntransport: socket\nnet_message_latency: 40us\nnet_efficiency: 0.3\n"));
  EXPECT_EQ(socket.transport, NetTransport::Socket);
  EXPECT_DOUBLE_EQ(socket.net_efficiency, 0.3);
  // Presets say theirs.
  EXPECT_EQ(find_system_preset("dgx-h100")->transport, NetTransport::InfiniBand);
  EXPECT_EQ(find_system_preset("h100-efa")->transport, NetTransport::Efa);
  EXPECT_EQ(find_system_preset("dgx-spark")->transport, NetTransport::Roce);
}

TEST_F(SystemFile, AnNvlinkDomainCanSpanServers) {
  const SystemPreset p = read_system_file(write("nvl36.yaml", "base: gb200-nvl72\ngpus_per_node: 36\nnics_per_node: 36\n"));
  EXPECT_EQ(p.gpus_per_host, 4u);  // the base's trays
  const SystemPreset q = read_system_file(
      write("nvl16.yaml", "base: dgx-b200\ngpus_per_node: 16\nnics_per_node: 16\ngpus_per_host: 8\n"));
  EXPECT_EQ(q.gpus_per_host, 8u);
  EXPECT_EQ(find_system_preset("dgx-h100")->gpus_per_host, 0u);
}

}  // namespace
}  // namespace collsim::validation
