#pragma once
// Temporary files for the sweep tests, removed with their folder.

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

namespace collsim::sweep {

class TempFolder {
 public:
  TempFolder() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("collsim-sweep-" + std::string(info->test_suite_name()) + "-" + info->name() + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  ~TempFolder() { std::filesystem::remove_all(dir_); }
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    const std::filesystem::path p = dir_ / name;
    std::ofstream(p) << text;
    return p;
  }
  std::filesystem::path path(const std::string& name) const { return dir_ / name; }

 private:
  std::filesystem::path dir_;
};

}  // namespace collsim::sweep
