// nvmesim: entry point. SystemC's own main() is not used: the command line decides whether and
// what to elaborate.
#include <iostream>

#include "sim/cli.hpp"

int main(int argc, char** argv) { return nvmesim::cli_main(argc, argv, std::cout, std::cerr); }

// libsystemc.so's main() refers to sc_main; ours replaces that main(), so this is never called.
extern "C" int sc_main(int, char*[]) { return nvmesim::kExitInternal; }
