// Catch2 v2 main for nvmesim's tests. CTest runs each test case in a process of its own
// (catch_discover_tests), because SystemC allows one elaboration per process.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

// libsystemc.so's main() refers to sc_main; Catch's main() replaces it, so this is never called.
extern "C" int sc_main(int, char*[]) { return 4; }
