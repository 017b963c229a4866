// nvmesim: entry point. SystemC's own main() is not used: the command line decides whether and
// what to elaborate.
#include <csignal>
#include <iostream>

#include "cli/cli.hpp"

int main(int argc, char** argv) {
  // A file-size limit (ulimit -f) makes write() fail with EFBIG, which is exit 3 with the partial
  // outputs removed, instead of SIGXFSZ killing the process and leaving its temporaries. Ignored
  // signals stay ignored across exec, so sweep workers and fit's simulator children inherit it.
  std::signal(SIGXFSZ, SIG_IGN);
  return nvmesim::cli_process_main(argc, argv);
}

// libsystemc.so's main() refers to sc_main; ours replaces that main(), so this is never called.
extern "C" int sc_main(int, char*[]) { return nvmesim::kExitInternal; }
