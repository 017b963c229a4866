// The SystemC floor: the least a SystemC model of the probe can do, for nvmesim's speed to be
// measured against (issue 7). Per trial, a host thread waits on the same number of timed steps as
// nvmesim's AWS 5.7 probe (36: the init wait, 19 posted writes, 8 reads, 2 sleeps, 6 interrupts);
// for the interrupt steps a device SC_METHOD sets a flag and notifies the host. No TLM, no
// registers, no recording, no output.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <systemc>

namespace {

struct floor_device : sc_core::sc_module {
  sc_core::sc_event kick, done;
  bool flag = false;
  SC_HAS_PROCESS(floor_device);
  explicit floor_device(sc_core::sc_module_name n) : sc_module(n) {
    SC_METHOD(on_kick);
    sensitive << kick;
    dont_initialize();
  }
  void on_kick() {
    flag = true;
    done.notify(sc_core::SC_ZERO_TIME);
  }
};

struct floor_host : sc_core::sc_module {
  floor_device* dev = nullptr;
  long trials = 0;
  int steps = 36;
  int device_steps = 6;
  SC_HAS_PROCESS(floor_host);
  explicit floor_host(sc_core::sc_module_name n) : sc_module(n) { SC_THREAD(run); }
  void run() {
    const sc_core::sc_time step = sc_core::sc_time::from_value(1'000'000);  // 1 us at 1 ps resolution
    for (long t = 0; t < trials; ++t) {
      for (int s = 0; s < steps; ++s) {
        if (s < device_steps) {
          dev->flag = false;
          dev->kick.notify(step);
          sc_core::wait(dev->done);
        } else {
          sc_core::wait(step);
        }
      }
    }
    sc_core::sc_stop();
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help") {
    std::printf("Usage: nvmesim_floor TRIALS [STEPS [DEVICE_STEPS]]\n"
                "Runs TRIALS trials of STEPS timed waits (default 36), DEVICE_STEPS of them (default 6)\n"
                "answered by a device event, and prints trials per second.\n");
    return argc < 2 ? 2 : 0;
  }
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  floor_device dev("dev");
  floor_host host("host");
  host.dev = &dev;
  host.trials = std::atol(argv[1]);
  if (argc > 2) host.steps = std::atoi(argv[2]);
  if (argc > 3) host.device_steps = std::atoi(argv[3]);
  const auto t0 = std::chrono::steady_clock::now();
  sc_core::sc_start();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%ld trials in %.3f s: %.0f trials/s\n", host.trials, s, static_cast<double>(host.trials) / s);
  return 0;
}

extern "C" int sc_main(int, char*[]) { return 4; }
