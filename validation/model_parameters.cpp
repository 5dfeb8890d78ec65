#include "collsim/validation/model_parameters.hpp"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <stdexcept>

#include "collsim/common/input_error.hpp"

namespace collsim::validation {

void check(const ModelParameters& p) {
  auto efficiency = [](double v, const char* name) {
    if (!(v > 0.0 && v <= 1.5)) throw std::invalid_argument(std::string(name) + " must be in (0, 1.5]");
  };
  auto latency = [](const std::optional<Duration>& d, const char* name) {
    if (d && (!(d->microseconds() >= 0.0) || d->microseconds() > 1e6))
      throw std::invalid_argument(std::string(name) + " must be >= 0 (or -1)");
  };
  efficiency(p.gpu_link_efficiency, "gpu_link_efficiency");
  efficiency(p.nic_efficiency, "nic_efficiency");
  latency(p.launch, "launch_us");
  latency(p.step, "step_us");
  latency(p.simple_launch, "simple_launch_us");
  latency(p.simple_step, "simple_step_us");
  latency(p.host_issue, "host_issue_us");
  const double net_latency = p.net_latency.microseconds();
  if (!(net_latency >= 0.0 && net_latency <= 1e6)) throw std::invalid_argument("net_latency_us must be >= 0");
  if (p.nvls_efficiency != -1.0) efficiency(p.nvls_efficiency, "nvls_efficiency");
  efficiency(p.ll128_network_efficiency, "ll128_network_efficiency");
}

Calibration read_calibration(const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw InputError::in_file(path, "cannot open the calibration file");
  } catch (const YAML::Exception& e) {
    throw InputError::at_text(path, static_cast<std::uint64_t>(e.mark.line + 1), static_cast<std::uint64_t>(e.mark.column + 1),
                              e.msg);
  }
  if (!root.IsMap()) throw InputError::in_file(path, "expected a map with 'system' and 'parameters'");
  Calibration c;
  auto where = [&](const YAML::Node& n, const std::string& what) {
    return InputError::at_text(path, static_cast<std::uint64_t>(n.Mark().line + 1),
                               static_cast<std::uint64_t>(n.Mark().column + 1), what);
  };
  try {
    for (const auto& kv : root) {
      const std::string key = kv.first.as<std::string>();
      if (key == "system") {
        c.system = kv.second.as<std::string>();
      } else if (key == "trained_on") {
        for (const auto& n : kv.second) c.trained_on.push_back(n.as<std::string>());
      } else if (key == "training_error") {
        c.training_error = kv.second.as<double>();
      } else if (key == "parameters") {
        if (!kv.second.IsMap()) throw where(kv.second, "'parameters' must be a map");
        for (const auto& p : kv.second) {
          const std::string name = p.first.as<std::string>();
          const double v = p.second.as<double>();
          const std::optional<Duration> latency = v == -1.0 ? std::nullopt : std::optional(Duration::us(v));
          if (name == "gpu_link_efficiency") c.parameters.gpu_link_efficiency = v;
          else if (name == "nic_efficiency") c.parameters.nic_efficiency = v;
          else if (name == "launch_us") c.parameters.launch = latency;
          else if (name == "step_us") c.parameters.step = latency;
          else if (name == "simple_launch_us") c.parameters.simple_launch = latency;
          else if (name == "simple_step_us") c.parameters.simple_step = latency;
          else if (name == "nvls_efficiency") c.parameters.nvls_efficiency = v;
          else if (name == "net_latency_us") c.parameters.net_latency = Duration::us(v);
          else if (name == "host_issue_us") c.parameters.host_issue = latency;
          else if (name == "ll128_network_efficiency") c.parameters.ll128_network_efficiency = v;
          else throw where(p.first, "unknown parameter '" + name + "' (gpu_link_efficiency, nic_efficiency, launch_us, step_us, simple_launch_us, simple_step_us, net_latency_us, nvls_efficiency, host_issue_us, ll128_network_efficiency)");
        }
      } else {
        throw where(kv.first, "unknown key '" + key + "' (system, trained_on, training_error, parameters)");
      }
    }
    check(c.parameters);
  } catch (const YAML::Exception& e) {
    throw InputError::at_text(path, static_cast<std::uint64_t>(e.mark.line + 1), static_cast<std::uint64_t>(e.mark.column + 1),
                              "bad value: " + e.msg);
  } catch (const std::invalid_argument& e) {
    throw InputError::in_file(path, e.what());
  }
  if (c.system.empty()) throw InputError::in_file(path, "no 'system' (the preset the parameters were fitted for)");
  return c;
}

void write_calibration(const std::string& path, const Calibration& c) {
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "system" << YAML::Value << c.system;
  out << YAML::Key << "trained_on" << YAML::Value << YAML::Flow << c.trained_on;
  if (c.training_error >= 0) out << YAML::Key << "training_error" << YAML::Value << c.training_error;
  out << YAML::Key << "parameters" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "gpu_link_efficiency" << YAML::Value << c.parameters.gpu_link_efficiency;
  out << YAML::Key << "nic_efficiency" << YAML::Value << c.parameters.nic_efficiency;
  out << YAML::Key << "launch_us" << YAML::Value << microseconds_or_unset(c.parameters.launch);
  out << YAML::Key << "step_us" << YAML::Value << microseconds_or_unset(c.parameters.step);
  out << YAML::Key << "simple_launch_us" << YAML::Value << microseconds_or_unset(c.parameters.simple_launch);
  out << YAML::Key << "simple_step_us" << YAML::Value << microseconds_or_unset(c.parameters.simple_step);
  out << YAML::Key << "net_latency_us" << YAML::Value << c.parameters.net_latency.microseconds();
  out << YAML::Key << "nvls_efficiency" << YAML::Value << c.parameters.nvls_efficiency;
  out << YAML::Key << "host_issue_us" << YAML::Value << microseconds_or_unset(c.parameters.host_issue);
  out << YAML::Key << "ll128_network_efficiency" << YAML::Value << c.parameters.ll128_network_efficiency;
  out << YAML::EndMap << YAML::EndMap;
  std::ofstream f(path);
  f << "# collsim calibration (collsim calibrate): parameters fitted on the logs in trained_on\n" << out.c_str() << "\n";
  if (!f) throw std::runtime_error("cannot write " + path);
}

}  // namespace collsim::validation
