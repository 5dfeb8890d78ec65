#pragma once
// A directory of its own for the files one test writes, removed with everything in it when
// the test ends: tests run in parallel (ctest -j) and in several builds at once on one
// machine, so the name carries the test, the process and a count.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace collsim::test_support {

class ScratchDir {
 public:
  ScratchDir() {
    static int count = 0;
    std::string test = "outside_a_test";
    if (const auto* info = ::testing::UnitTest::GetInstance()->current_test_info())
      test = std::string(info->test_suite_name()) + "." + info->name();
    for (char& c : test)
      if (c == '/') c = '_';  // parameterised tests name their instance after a slash
    path_ = std::filesystem::temp_directory_path() /
            ("collsim_" + test + "_" + std::to_string(::getpid()) + "_" + std::to_string(count++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path path(const std::string& name) const { return path_ / name; }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  // `bytes` as the file `name`, written exactly (binary).
  std::filesystem::path write(const std::string& name, const std::string& bytes) const {
    const std::filesystem::path p = path_ / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }

 private:
  std::filesystem::path path_;
};

// One file in a scratch directory of its own, converting to its path.
class ScratchFile {
 public:
  ScratchFile(const std::string& name, const std::string& bytes) : path_(dir_.write(name, bytes).string()) {}
  const std::string& path() const { return path_; }
  operator const std::string&() const { return path_; }

 private:
  ScratchDir dir_;
  std::string path_;
};

}  // namespace collsim::test_support
