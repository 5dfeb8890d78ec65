#include "plot_script.hpp"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace collsim::cli {

void run_plot_script(const std::string& script, const std::vector<std::string>& args) {
  if (!std::filesystem::exists(script)) throw std::runtime_error("--plot: the plot script " + script + " is missing");
  std::vector<std::string> words{script};
  words.insert(words.end(), args.begin(), args.end());
  const char* py = std::getenv("PYTHON");
  std::string cmd = py ? py : "/usr/bin/python3";
  for (const std::string& word : words) {
    if (word.find('\'') != std::string::npos)
      throw std::runtime_error("--plot: file names with a single quote are not supported");
    cmd += " '" + word + "'";
  }
  const int rc = std::system(cmd.c_str());
  if (rc != 0) throw std::runtime_error("--plot: " + cmd + " failed (status " + std::to_string(rc) + ")");
}

}  // namespace collsim::cli
