#include "collsim/sweep/child_processes.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace collsim::sweep {

namespace {

struct Running {
  std::size_t job;
  std::string out_path, err_path;
  std::chrono::steady_clock::time_point start;
};

std::string temp_file() {
  const char* dir = std::getenv("TMPDIR");
  std::string name = std::string(dir && *dir ? dir : "/tmp") + "/collsim-sweep-XXXXXX";
  const int fd = mkstemp(name.data());
  if (fd < 0) throw std::runtime_error("cannot create a temporary file in " + name + ": " + std::strerror(errno));
  close(fd);
  return name;
}

std::string slurp_and_remove(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  std::remove(path.c_str());
  return s.str();
}

pid_t spawn(const std::string& program, const std::vector<std::string>& args, const std::string& out,
            const std::string& err) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out.c_str(), O_WRONLY | O_TRUNC, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(), O_WRONLY | O_TRUNC, 0);
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot start " + program + ": " + std::strerror(rc));
  return pid;
}

}  // namespace

void run_children(const std::string& program, const std::vector<std::vector<std::string>>& jobs, std::size_t parallel,
                  const std::function<void(std::size_t, const ChildOutcome&)>& done,
                  const std::function<void(std::size_t running)>& started) {
  if (parallel == 0) parallel = 1;
  std::map<pid_t, Running> running;
  std::size_t next = 0;
  while (next < jobs.size() || !running.empty()) {
    while (next < jobs.size() && running.size() < parallel) {
      Running r{next, temp_file(), temp_file(), std::chrono::steady_clock::now()};
      const pid_t pid = spawn(program, jobs[next], r.out_path, r.err_path);
      running.emplace(pid, std::move(r));
      ++next;
      if (started) started(running.size());
    }
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("waiting for the sweep's processes failed: ") + std::strerror(errno));
    }
    const auto it = running.find(pid);
    if (it == running.end()) continue;  // not one of ours
    ChildOutcome o;
    if (WIFEXITED(status)) o.exit_status = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) o.signal = WTERMSIG(status);
    o.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - it->second.start).count();
    o.out = slurp_and_remove(it->second.out_path);
    o.err = slurp_and_remove(it->second.err_path);
    const std::size_t job = it->second.job;
    running.erase(it);
    done(job, o);
  }
}

}  // namespace collsim::sweep
