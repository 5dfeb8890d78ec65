// Writes the hand-made sample results to the file named by argv[1], for the plot script's test.

#include <exception>
#include <iostream>

#include "sample_results.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: write_sample_results OUT.h5\n";
    return 2;
  }
  try {
    collsim::out::test::SampleRun run;
    collsim::out::test::make_sample_run(run);
    collsim::out::write_run_results_hdf5(argv[1], run.results);
  } catch (const std::exception& e) {
    std::cerr << "write_sample_results: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
