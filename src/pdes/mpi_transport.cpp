#include "collsim/pdes/mpi_transport.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

#include "mpi_plugin_api.hpp"

namespace collsim::pdes {

namespace {

// Beside the executable (where the build puts it), or where COLLSIM_MPI_MODULE says.
std::string module_path() {
  if (const char* path = std::getenv("COLLSIM_MPI_MODULE")) return path;
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "libcollsim_mpi.so";
  return (exe.parent_path() / "libcollsim_mpi.so").string();
}

const MpiPluginApi& load() {
  const std::string path = module_path();
  // Global symbols: Open MPI loads components of its own that look for libmpi's.
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (handle == nullptr)
    throw std::runtime_error("running under MPI needs collsim's MPI module, which could not be loaded (" +
                             std::string(::dlerror()) + "); it is built beside the collsim program, or set "
                             "COLLSIM_MPI_MODULE to its path");
  using Entry = const MpiPluginApi* (*)();
  const auto entry = reinterpret_cast<Entry>(::dlsym(handle, kMpiPluginEntry));
  const MpiPluginApi* api = entry != nullptr ? entry() : nullptr;
  if (api == nullptr || api->version != kMpiPluginVersion)
    throw std::runtime_error(path + " is not the MPI module of this collsim (rebuild them together)");
  return *api;  // never unloaded: MPI stays initialised until the program ends
}

const MpiPluginApi& api() {
  static const MpiPluginApi& loaded = load();
  return loaded;
}

}  // namespace

MpiSession::MpiSession(int* argc, char*** argv) { api().init(argc, argv); }

MpiSession::~MpiSession() { api().finalize(); }

int MpiSession::rank() const { return api().world_rank(); }

int MpiSession::size() const { return api().world_size(); }

void MpiSession::abort(int code) {
  api().abort_job(code);
  std::abort();
}

std::unique_ptr<Transport> make_mpi_transport() { return std::unique_ptr<Transport>(api().make_transport()); }

}  // namespace collsim::pdes
