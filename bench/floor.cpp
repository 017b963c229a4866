// The SystemC floor: the least a SystemC model of the probe can do, for nvmesim's speed to be
// measured against (issue 7). Per trial, a host thread waits on the same number of timed steps as
// nvmesim's AWS 5.7 probe (36: the init wait, 19 posted writes, 8 reads, 2 sleeps, 6 interrupts);
// for the interrupt steps a device SC_METHOD sets a flag and notifies the host. No TLM, no
// registers, no recording, no output.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

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

long g_running_hosts = 0;  // the last host to finish stops the simulation

struct floor_host : sc_core::sc_module {
  floor_device* dev = nullptr;
  long trials = 0;
  int steps = 36;
  int device_steps = 6;
  long spread = 1;              // each wait lasts 1 to `spread` us, drawn per wait (1: all hosts in lockstep)
  std::uint64_t lcg_state = 1;  // per-host stream, so hosts drift apart when spread > 1
  SC_HAS_PROCESS(floor_host);
  explicit floor_host(sc_core::sc_module_name n) : sc_module(n) { SC_THREAD(run); }
  void run() {
    const sc_core::sc_time step = sc_core::sc_time::from_value(1'000'000);  // 1 us at 1 ps resolution
    for (long t = 0; t < trials; ++t) {
      for (int s = 0; s < steps; ++s) {
        sc_core::sc_time this_step = step;
        if (spread > 1) {  // Knuth's MMIX LCG; the high bits pick 1..spread us
          lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
          this_step = step * static_cast<double>(1 + (lcg_state >> 33) % static_cast<std::uint64_t>(spread));
        }
        if (s < device_steps) {
          dev->flag = false;
          dev->kick.notify(this_step);
          sc_core::wait(dev->done);
        } else {
          sc_core::wait(this_step);
        }
      }
    }
    if (--g_running_hosts == 0) sc_core::sc_stop();
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help") {
    std::printf("Usage: nvmesim_floor TRIALS [STEPS [DEVICE_STEPS [HOSTS [SPREAD]]]]\n"
                "Runs TRIALS trials of STEPS timed waits (default 36), DEVICE_STEPS of them (default 6)\n"
                "answered by a device event, and prints trials per second. With HOSTS (default 1), that\n"
                "many host/device pairs run side by side, TRIALS each, as nvmesim's controllers do: the\n"
                "floor's own cost per host-trial at 1 and at 1024 hosts (issue 15 item 4). With SPREAD\n"
                "(default 1) above 1, each wait lasts 1 to SPREAD us, drawn per host, so the hosts drift\n"
                "apart as controllers with their own latencies do, instead of sharing every time step.\n");
    return argc < 2 ? 2 : 0;
  }
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  const long hosts = argc > 4 ? std::atol(argv[4]) : 1;
  if (hosts < 1 || hosts > 65536) {
    std::fprintf(stderr, "nvmesim_floor: HOSTS must be 1 to 65536\n");
    return 2;
  }
  const long spread = argc > 5 ? std::atol(argv[5]) : 1;
  if (spread < 1 || spread > 1000000) {
    std::fprintf(stderr, "nvmesim_floor: SPREAD must be 1 to 1000000 (us)\n");
    return 2;
  }
  std::vector<std::unique_ptr<floor_device>> devs;
  std::vector<std::unique_ptr<floor_host>> hs;
  for (long i = 0; i < hosts; ++i) {
    devs.push_back(std::make_unique<floor_device>(("dev" + std::to_string(i)).c_str()));
    hs.push_back(std::make_unique<floor_host>(("host" + std::to_string(i)).c_str()));
    floor_host& host = *hs.back();
    host.dev = devs.back().get();
    host.trials = std::atol(argv[1]);
    if (argc > 2) host.steps = std::atoi(argv[2]);
    if (argc > 3) host.device_steps = std::atoi(argv[3]);
    host.spread = spread;
    host.lcg_state = static_cast<std::uint64_t>(i) + 1;
  }
  g_running_hosts = hosts;
  const auto t0 = std::chrono::steady_clock::now();
  sc_core::sc_start();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const long trials = hs.front()->trials * hosts;
  std::printf("%ld trials in %.3f s: %.0f trials/s\n", trials, s, static_cast<double>(trials) / s);
  return 0;
}

extern "C" int sc_main(int, char*[]) { return 4; }
