#include "collsim/logging/logging.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "collsim/common/input_error.hpp"
#include "support/scratch_dir.hpp"

namespace collsim::logging {
namespace {

namespace fs = std::filesystem;

std::string read_all(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every test gets its own empty folder and leaves the process-wide configuration as it found it.
class LogTest : public ::testing::Test {
 protected:
  void TearDown() override { configure(Config{}); }
  test_support::ScratchDir scratch_;
  const fs::path& dir_ = scratch_.path();
};

TEST_F(LogTest, LinesBelowTheLevelAreNotWritten) {
  const fs::path file = dir_ / "a.log";
  configure({.level = "info", .file = file.string()});
  logger("net").debug("hidden debug line");
  logger("net").info("shown info line");
  logger("net").warn("shown warn line");
  const std::string text = read_all(file);
  EXPECT_EQ(text.find("hidden debug line"), std::string::npos) << text;
  EXPECT_NE(text.find("[info] [net] shown info line"), std::string::npos) << text;
  EXPECT_NE(text.find("[warn] [net] shown warn line"), std::string::npos) << text;
}

TEST_F(LogTest, OffWritesNothingAndErrorKeepsOnlyErrors) {
  const fs::path file = dir_ / "b.log";
  configure({.level = "off", .file = file.string()});
  logger("exec").error("not even errors");
  EXPECT_EQ(read_all(file), "");
  configure({.level = "error", .file = file.string()});
  logger("exec").warn("a warning");
  logger("exec").error("an error");
  const std::string text = read_all(file);
  EXPECT_EQ(text.find("a warning"), std::string::npos) << text;
  EXPECT_NE(text.find("[error] [exec] an error"), std::string::npos) << text;
}

TEST_F(LogTest, UnderMpiEachRankWritesItsOwnFileWithTheRankPrefix) {
  const fs::path file = dir_ / "run.log";
  configure({.level = "debug", .file = file.string(), .rank = 3, .ranks = 4});
  logger("pdes").debug("window {} done", 17);
  // Rank 3 of 4 writes run.log.rank3, never the shared name.
  EXPECT_FALSE(fs::exists(file));
  const std::string text = read_all(dir_ / "run.log.rank3");
  EXPECT_NE(text.find("] [debug] [pdes] [rank 3] window 17 done\n"), std::string::npos) << text;
  // The line starts with a timestamp "[YYYY-MM-DD HH:MM:SS.mmm]": 25 characters with brackets.
  ASSERT_GE(text.size(), 25u);
  EXPECT_EQ(text[0], '[');
  EXPECT_EQ(text[5], '-');
  EXPECT_EQ(text[20], '.');
  EXPECT_EQ(text[24], ']');
}

TEST_F(LogTest, OneRankHasNoRankPrefixAndUsesTheFileNameAsGiven) {
  const fs::path file = dir_ / "one.log";
  configure({.level = "info", .file = file.string(), .rank = 0, .ranks = 1});
  logger("topo").info("loaded");
  const std::string text = read_all(file);
  EXPECT_NE(text.find("] [info] [topo] loaded\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("rank"), std::string::npos) << text;
  EXPECT_FALSE(fs::exists(dir_ / "one.log.rank0"));
}

TEST_F(LogTest, ConfigureReachesLoggersCreatedBefore) {
  spdlog::logger& early = logger("workload");  // created under the default configuration (warn)
  EXPECT_FALSE(early.should_log(spdlog::level::debug));
  const fs::path file = dir_ / "c.log";
  configure({.level = "debug", .file = file.string()});
  early.debug("now visible");
  EXPECT_NE(read_all(file).find("[debug] [workload] now visible"), std::string::npos);
}

TEST_F(LogTest, TheFileIsAppendedToNotTruncated) {
  const fs::path file = dir_ / "d.log";
  configure({.level = "info", .file = file.string()});
  logger("cli").info("first run");
  configure({.level = "info", .file = file.string()});
  logger("cli").info("second run");
  const std::string text = read_all(file);
  EXPECT_NE(text.find("first run"), std::string::npos) << text;
  EXPECT_NE(text.find("second run"), std::string::npos) << text;
}

TEST_F(LogTest, LinesGoToStderrNeverStdout) {
  configure({.level = "info", .file = ""});
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  logger("collectives").info("to stderr");
  const std::string err = ::testing::internal::GetCapturedStderr();
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(out, "");
  EXPECT_NE(err.find("[info] [collectives] to stderr\n"), std::string::npos) << err;
}

TEST_F(LogTest, UnknownLevelIsAnInputErrorListingTheLevelsAndChangesNothing) {
  const fs::path file = dir_ / "e.log";
  configure({.level = "info", .file = file.string()});
  try {
    configure({.level = "verbose", .file = file.string()});
    FAIL() << "accepted the level 'verbose'";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--log-level: unknown log level 'verbose' (expected one of: trace, debug, info, warn, error, off)");
  }
  EXPECT_THROW(parse_level("WARN"), InputError);  // names are lower case, as --help shows them
  EXPECT_THROW(parse_level(""), InputError);
  EXPECT_EQ(parse_level("warn"), spdlog::level::warn);
  EXPECT_EQ(parse_level("error"), spdlog::level::err);
  EXPECT_EQ(current_config().level, "info");
  logger("net").info("still info");
  EXPECT_NE(read_all(file).find("still info"), std::string::npos);
}

TEST_F(LogTest, AFileThatCannotBeOpenedIsAnInputErrorNamingIt) {
  // spdlog creates missing folders, so the obstacle is a plain file where a folder should be.
  std::ofstream(dir_ / "plain") << "x";
  const fs::path file = dir_ / "plain" / "f.log";
  try {
    configure({.level = "info", .file = file.string()});
    FAIL() << "opened " << file;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), file.string());
    EXPECT_NE(std::string(e.what()).find("cannot open the log file"), std::string::npos) << e.what();
  }
}

TEST_F(LogTest, NoteInFileWritesOnlyTheFileAndHonoursTheLevel) {
  const fs::path file = dir_ / "g.log";
  configure({.level = "warn", .file = file.string()});
  ::testing::internal::CaptureStderr();
  note_in_file("cli", spdlog::level::err, "already shown");
  note_in_file("cli", spdlog::level::info, "below the level");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  const std::string text = read_all(file);
  EXPECT_NE(text.find("[error] [cli] already shown"), std::string::npos) << text;
  EXPECT_EQ(text.find("below the level"), std::string::npos) << text;
}

TEST_F(LogTest, TraceMacroIsCompiledOutExactlyWhenTraceLoggingIsOff) {
  const fs::path file = dir_ / "h.log";
  configure({.level = "trace", .file = file.string()});
  int evaluated = 0;
  COLLSIM_TRACE_LOG("pdes", "hot {}", ++evaluated);
  const bool written = read_all(file).find("[trace] [pdes] hot 1") != std::string::npos;
  EXPECT_EQ(written, kTraceLogging);
  // Compiled out, the arguments are not even evaluated.
  EXPECT_EQ(evaluated, kTraceLogging ? 1 : 0);
#if defined(NDEBUG) && !defined(COLLSIM_TRACE_LOGGING)
  EXPECT_FALSE(kTraceLogging);
#else
  EXPECT_TRUE(kTraceLogging);
#endif
}

}  // namespace
}  // namespace collsim::logging
