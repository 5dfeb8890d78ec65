#pragma once
// The energy of one simulated step: each GPU's time computing, communicating and idle at its
// power, and the part of the cluster the job touches (its NICs, the optics of the network
// links it uses, the switch ports at their ends, its NVSwitch ports and servers) for the
// length of the step, plus what moving its bytes costs.

#include <cstdint>
#include <span>

#include "collsim/common/sim_time.hpp"
#include "collsim/energy/power_model.hpp"
#include "collsim/topo/topology.hpp"

namespace collsim::energy {

// One GPU of the job over the step.
struct GpuActivity {
  std::uint32_t host = 0;  // the topology's host index it runs on
  SimTime computing;       // running compute (whether or not it also communicates)
  SimTime communicating;   // communicating and not computing
};

struct StepEnergy {
  SimTime step;
  double gpu_compute_j = 0, gpu_comm_j = 0, gpu_idle_j = 0;
  double nic_j = 0;             // static and per bit
  double optics_j = 0;
  double switch_static_j = 0;
  double switch_traffic_j = 0;
  double nvswitch_j = 0;
  double host_j = 0;
  double per_gpu_min_j = 0, per_gpu_max_j = 0;  // each GPU's own energy
  // What was counted.
  std::uint32_t gpus = 0, nics = 0, network_links = 0, switch_ports = 0, nvswitch_ports = 0, servers = 0;

  double gpu_j() const { return gpu_compute_j + gpu_comm_j + gpu_idle_j; }
  double network_j() const { return nic_j + optics_j + switch_static_j + switch_traffic_j + nvswitch_j; }
  double it_j() const { return gpu_j() + network_j() + host_j; }
};

// `link_bytes`: bytes sent on each direction of each link (index 2 * link, + 1 for b -> a), or
// empty when the network model has no links (then nothing is counted per bit, and network
// links between switches are not counted: which ones the job used is unknown).
// Throws std::invalid_argument for a GPU on a host the topology does not have or busy longer
// than the step.
StepEnergy account_step(const topo::Topology& topology, const PowerModel& power, SimTime step,
                        std::span<const GpuActivity> gpus, std::span<const std::uint64_t> link_bytes);

// A step at the facility (IT energy times PUE) and on the grid, and a run of `steps` such steps.
struct Footprint {
  double facility_j = 0;      // per step
  double average_w = 0;       // facility power over the step
  double co2e_g = 0;          // per step
  double run_kwh = 0;         // facility energy of the run
  double run_co2e_kg = 0;
};
Footprint footprint(const StepEnergy& step, const PowerModel& power, std::uint64_t steps);

}  // namespace collsim::energy
