// Temporal decoupling of the host thread (issue 15 item 2): a run without --vcd lets each host
// thread run ahead of SystemC time (nvme_host::set_decoupled, the default); a run with --vcd
// waits every access's delay (coupled), since a waveform shows signals at SystemC time. Both
// must give the same timeline, trace and dmesg to the byte: the decoupled path is exact only
// because the controller and the link evaluate each access at its annotated time and the host
// syncs before it looks at host memory, before a once-per-boot check, and while the controller has
// timed work of its own. Runs the binary (NVMESIM_BINARY) twice per case, a few trials each.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "support.hpp"

using nvmesim::test::run_nvmesim;
using nvmesim::test::slurp;

namespace {

// Runs `run SCENARIO ARGS` decoupled and coupled (with --vcd) and requires identical outputs.
void same_both_ways(const std::string& scenario, const std::string& args, const std::string& tag) {
  const std::string src = std::string(NVMESIM_SOURCE_DIR) + "/scenarios/" + scenario;
  std::string files[2][3];
  for (int coupled = 0; coupled < 2; ++coupled) {
    const std::string p = "decoupling_" + tag + (coupled ? "_coupled" : "_decoupled");
    files[coupled][0] = p + ".json";
    files[coupled][1] = p + ".trace.json";
    files[coupled][2] = p + ".dmesg";
    // Trials 0-1 detailed (they run coupled both ways: their event lists are cut in record order);
    // the others keep times, phases and counts, and run decoupled unless a waveform is recorded.
    std::string cmd = "run " + src + " " + args + " -q --detail-trials 2 -o " + files[coupled][0] + " --trace " +
                      files[coupled][1] + " --trace-trials 0-1 --dmesg " + files[coupled][2] + " --dmesg-trials 0-1";
    if (coupled) cmd += " --vcd " + p + ".vcd";
    REQUIRE(run_nvmesim(cmd) == 0);
  }
  for (int k = 0; k < 3; ++k) {
    INFO(files[0][k] + " against " + files[1][k]);
    const std::string decoupled = slurp(files[0][k]), coupled = slurp(files[1][k]);
    REQUIRE(decoupled.size() > 100);  // something was written: not two empty files
    CHECK(decoupled == coupled);
  }
  for (auto& row : files)
    for (auto& f : row) std::remove(f.c_str());
  std::remove(("decoupling_" + tag + "_coupled.vcd").c_str());
}

}  // namespace

TEST_CASE("decoupled and coupled host threads give the same timeline: Linux probe, AWS 5.6 and 5.7", "[decoupling]") {
  same_both_ways("aws-c5.12xlarge.json", "-n 20", "aws");
}

TEST_CASE("decoupled and coupled host threads give the same timeline: 16 controllers, shutdown", "[decoupling]") {
  same_both_ways("shutdown-16-controllers.json", "-n 5", "shutdown16");
}

TEST_CASE("decoupled and coupled host threads give the same timeline: surprise removal and fatal status",
          "[decoupling]") {
  same_both_ways("surprise-removal.json", "-n 10", "removal");
  same_both_ways("cfs-on-enable.json", "-n 20", "cfs");
}

TEST_CASE("decoupled and coupled host threads give the same timeline: media after ready, reset, reboot",
          "[decoupling]") {
  same_both_ways("ready-independent-of-media.json", "-n 10", "media");
  same_both_ways("samsung-x5-reset.json", "-n 10", "reset");
  same_both_ways("reboot.json", "-n 10", "reboot");
}

TEST_CASE("decoupled and coupled host threads give the same timeline: a bogus CRTO warned once per boot",
          "[decoupling]") {
  same_both_ways("crto-bogus.json", "-n 10 --set /controllers/0/count=4", "crto");
}

TEST_CASE("decoupled and coupled host threads give the same timeline: U-Boot, EDK2, FreeBSD", "[decoupling]") {
  // The AWS device under each driver; host replaced whole, since Linux's host keys are refused
  // for the other drivers.
  same_both_ways("aws-c5.12xlarge.json", "-n 10 --set /variants=[] --set '/host={\"driver\":\"uboot\"}' --set '/boot={}'", "uboot");
  same_both_ways("aws-c5.12xlarge.json", "-n 10 --set /variants=[] --set '/host={\"driver\":\"edk2\"}' --set '/boot={}'", "edk2");
  same_both_ways("freebsd-aws-older-vs-13.1.json", "-n 10", "freebsd");
}
