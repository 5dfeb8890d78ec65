# Warnings and sanitizers for every collsim target, through one interface library
# so that third-party code found with find_package is never built with -Werror.
add_library(collsim_compile_options INTERFACE)
target_compile_options(collsim_compile_options INTERFACE -Wall -Wextra -Wpedantic -Wshadow
  -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough)
# GCC 12 reports std::string concatenation at -O3 as overlapping memcpy (GCC bug 105329).
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(collsim_compile_options INTERFACE -Wno-restrict)
endif()
# A program keeps only the shared libraries it calls: each one costs symbol lookups at start.
target_link_options(collsim_compile_options INTERFACE LINKER:--as-needed)
if(COLLSIM_WERROR)
  target_compile_options(collsim_compile_options INTERFACE -Werror)
endif()

if(COLLSIM_SANITIZE)
  set(_collsim_san -fsanitize=${COLLSIM_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_compile_options(collsim_compile_options INTERFACE ${_collsim_san})
  target_link_options(collsim_compile_options INTERFACE ${_collsim_san})
endif()

if(COLLSIM_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "COLLSIM_FUZZ needs clang (configure with -DCMAKE_CXX_COMPILER=clang++)")
  endif()
  # Coverage instrumentation goes only on the libraries the fuzz targets read with
  # (tests/fuzz/CMakeLists.txt): on the program and the test suites it would only slow the build.
  target_compile_options(collsim_compile_options INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer)
  target_link_options(collsim_compile_options INTERFACE -fsanitize=address,undefined)
endif()

# Adds a library for one collsim module: public headers live in include/collsim/<module>.
function(collsim_add_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPENDS" ${ARGN})
  add_library(collsim_${name} STATIC ${ARG_SOURCES})
  add_library(collsim::${name} ALIAS collsim_${name})
  target_include_directories(collsim_${name} PUBLIC ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(collsim_${name} PUBLIC ${ARG_DEPENDS} PRIVATE collsim_compile_options)
endfunction()

# Precompiled third-party and standard headers. Off by default so that the release build keeps
# checking that every file includes what it uses; the sanitizer preset turns it on because its
# code generation of CLI11, nlohmann::json and gtest in every file is most of CI's build time.
option(COLLSIM_PCH "Precompile the third-party headers of the program and the tests" OFF)
function(collsim_precompile_headers target)
  if(COLLSIM_PCH)
    target_precompile_headers(${target} PRIVATE ${ARGN})
  endif()
endfunction()

# Unity builds (a target's sources compiled a batch at a time): a batch instantiates CLI11's,
# nlohmann::json's and gtest's templates once instead of once per file. The test programs and
# the command-line program, most of the build time, are built so in every build
# (collsim_batched); the libraries only with COLLSIM_UNITY (the sanitizer preset), so
# that the release build keeps checking that each library file compiles on its own. Libraries whose files give helpers in anonymous namespaces the
# same names are listed in collsim_without_unity (CMakeLists.txt).
option(COLLSIM_UNITY "Compile the sources of every target in batches (unity build)" OFF)
set(CMAKE_UNITY_BUILD ${COLLSIM_UNITY})
function(collsim_batched target)
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON)
endfunction()
function(collsim_without_unity)
  foreach(target IN LISTS ARGN)
    if(TARGET ${target})
      set_target_properties(${target} PROPERTIES UNITY_BUILD OFF)
    endif()
  endforeach()
endfunction()
