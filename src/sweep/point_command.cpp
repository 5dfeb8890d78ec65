#include "collsim/sweep/point_command.hpp"

#include <yaml-cpp/yaml.h>

#include <fstream>

#include "collsim/common/input_error.hpp"
#include "collsim/config/yaml_map.hpp"

namespace collsim::sweep {

std::vector<std::string> point_arguments(const SweepSpec& spec, const Point& point,
                                         const std::filesystem::path& workload_file,
                                         const std::filesystem::path& edited_workload) {
  std::vector<std::string> argv{spec.command};
  std::vector<Parameter> keys;
  for (const Parameter& p : point)
    if (is_workload_key(p.name)) keys.push_back(p);
  argv.insert(argv.end(), spec.args.begin(), spec.args.end());
  if (!keys.empty()) {
    write_edited_workload(workload_file, edited_workload, keys);
    argv[1] = edited_workload.string();
  }
  for (const Parameter& p : point) {
    if (is_workload_key(p.name) || p.value == "false") continue;
    argv.push_back("--" + p.name);
    if (p.value != "true") argv.push_back(p.value);
  }
  argv.push_back("--json");
  return argv;
}

void write_edited_workload(const std::filesystem::path& in, const std::filesystem::path& out,
                           const std::vector<Parameter>& keys) {
  YAML::Node root = config::parse_file(in.string());
  for (const Parameter& k : keys) {
    YAML::Node at = root;
    std::string::size_type begin = 0;
    while (true) {
      const std::string::size_type dot = k.name.find('.', begin);
      const std::string part = k.name.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin);
      if (!at.IsMap())
        throw InputError::in_file(in.string(), "the sweep sets '" + k.name + "', but the part before '" + part +
                                                   "' is " + config::describe(at) + ", not a map");
      if (dot == std::string::npos) {
        at[part] = k.value;
        break;
      }
      if (!at[part]) at[part] = YAML::Node(YAML::NodeType::Map);
      // yaml-cpp's operator[] returns a handle into the tree: reassigning `at` walks down.
      YAML::Node next = at[part];
      at.reset(next);
      begin = dot + 1;
    }
  }
  std::filesystem::create_directories(out.parent_path());
  std::ofstream f(out);
  f << "# " << in.string() << " with the sweep's point applied\n" << root << "\n";
  if (!f) throw InputError::in_file(out.string(), "cannot write the point's workload file");
}

}  // namespace collsim::sweep
