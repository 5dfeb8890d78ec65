# Every dependency comes from a Debian 12 package (see scripts/setup.sh).
find_package(PkgConfig REQUIRED)
# Shared: only the shared libxxhash has the entry points that pick AVX2 or AVX-512 at run time.
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)

# The C libraries for which Debian ships an archive are linked from it. Shared, HDF5 alone
# brings 30 more libraries (libcurl's TLS, Kerberos, LDAP...), and the dynamic loader spent
# some 10 ms resolving symbols across them at every start (a 1 M-op LogGOPS run takes 80 ms
# in all); the archives' objects come in only as far as collsim calls them. MPI, fmt, spdlog
# and METIS have no archive in Debian and stay shared, and so does libxxhash (above).
set(_collsim_library_suffixes ${CMAKE_FIND_LIBRARY_SUFFIXES})
set(CMAKE_FIND_LIBRARY_SUFFIXES .a ${CMAKE_FIND_LIBRARY_SUFFIXES})
set(Protobuf_USE_STATIC_LIBS ON)
# Debian's HDF5 (serial) through pkg-config: FindHDF5 would need the C language enabled. Its
# .pc file does not list what the archive needs (szip and its libaec, zlib, libdl).
pkg_check_modules(HDF5 REQUIRED IMPORTED_TARGET hdf5)
find_package(ZLIB REQUIRED)
find_package(Protobuf REQUIRED)
if(HDF5_LINK_LIBRARIES MATCHES "\\.a$")
  find_library(COLLSIM_SZ_LIBRARY sz REQUIRED)
  find_library(COLLSIM_AEC_LIBRARY aec REQUIRED)
  target_link_libraries(PkgConfig::HDF5 INTERFACE ${COLLSIM_SZ_LIBRARY} ${COLLSIM_AEC_LIBRARY} ZLIB::ZLIB ${CMAKE_DL_LIBS} m)
endif()
set(CMAKE_FIND_LIBRARY_SUFFIXES ${_collsim_library_suffixes})
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 2.1 REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(fmt REQUIRED)
find_package(spdlog REQUIRED)
if(COLLSIM_TESTS)
  find_package(GTest REQUIRED)
endif()
if(COLLSIM_BENCH AND NOT COLLSIM_FUZZ)
  find_package(benchmark REQUIRED)
endif()
