// Outputs never replace inputs, and a file-size limit is an I/O failure (exit 3), not a signal:
// the attack found `predict post.json -o post.json` and `dmesg log -o log` replacing their input
// with exit 0, and `ulimit -f` killing run with SIGXFSZ and leaving its temporaries.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "support.hpp"

namespace fs = std::filesystem;
using nvmesim::test::run_capture;
using nvmesim::test::slurp;

namespace {
const std::string kSource = NVMESIM_SOURCE_DIR;

fs::path scratch(const std::string& name) {
  const fs::path d = fs::current_path() / ("ooi_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}
}  // namespace

TEST_CASE("dmesg and predict refuse an --out that is one of their inputs", "[outputs][cli]") {
  const fs::path d = scratch("inputs");
  const fs::path log = d / "boot.dmesg";
  fs::copy_file(kSource + "/tests/data/shared/cases/aws-c5.12xlarge-msleep100.dmesg", log);
  const std::string log_before = slurp(log.string());
  auto r = run_capture("dmesg '" + log.string() + "' -o '" + log.string() + "'");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--out " + log.string() + ": the same file as the log"));
  CHECK(slurp(log.string()) == log_before);
  // Through another spelling of the path (./, ..) too.
  r = run_capture("dmesg '" + log.string() + "' -o '" + (d / "." / "boot.dmesg").string() + "'");
  CHECK(r.status == 2);
  const fs::path post = d / "post.json";
  fs::copy_file(kSource + "/tests/data/fit/aws-c5.12xlarge.posterior.json", post);
  const std::string post_before = slurp(post.string());
  r = run_capture("predict '" + post.string() + "' --kernel 5.7 --draws 10 --trials 2 -o '" + post.string() + "'");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--out " + post.string() + ": the same file as the posterior"));
  CHECK(slurp(post.string()) == post_before);
  fs::remove_all(d);
}

TEST_CASE("a file-size limit is exit 3 with no temporaries left - not SIGXFSZ", "[outputs][hardening]") {
  const fs::path d = scratch("xfsz");
  // 200 detailed trials of the AWS scenario are several MB of JSON; 64 KiB (ulimit -f counts 1 KiB
  // blocks) is far below. No `trap '' XFSZ` here: nvmesim itself must ignore the signal.
  const auto r = run_capture("run " + kSource + "/scenarios/aws-c5.12xlarge.json -n 200 --detail-trials 200 -q -o '" +
                                 (d / "o.json").string() + "'",
                             "ulimit -f 64; ");
  CHECK(r.status == 3);
  CHECK_THAT(r.err, Catch::Contains("File too large"));
  CHECK(fs::is_empty(d));
  fs::remove_all(d);
}

TEST_CASE("dmesg: a virtio_blk queues line does not end the nvme interval (the default --to)", "[dmesg][cli]") {
  // A VM's log: virtio_blk prints "1/0/0 default/read/poll queues" too. nvme0's interval is
  // pci function (0.300000 s) to its own queues line (0.530000 s): 230 ms, not the 13.16 ms to
  // virtio's line that the old default pattern gave.
  const fs::path d = scratch("virtio");
  nvmesim::test::spit((d / "vm.dmesg").string(),
                      "[    0.300000] nvme nvme0: pci function 0000:00:04.0\n"
                      "[    0.313160] virtio_blk virtio1: 1/0/0 default/read/poll queues\n"
                      "[    0.530000] nvme nvme0: 2/0/0 default/read/poll queues\n");
  const auto r = run_capture("dmesg '" + (d / "vm.dmesg").string() + "' -o '" + (d / "out.json").string() + "'");
  REQUIRE(r.status == 0);
  const std::string j = slurp((d / "out.json").string());
  CHECK_THAT(j, Catch::Contains("230"));
  CHECK_THAT(j, !Catch::Contains("13.16"));
  fs::remove_all(d);
}
