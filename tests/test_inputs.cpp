// Input readers (issue 16): whatever file is given as an input, nvmesim opens it without blocking,
// reads it within its limit, and answers with a clear error (exit 2) or a result. The process
// tests run the nvmesim binary under `timeout`, so that a regression that hangs fails quickly.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

#include "core/errors.hpp"
#include "core/file_input.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using nvmesim::test::run_capture;
using nvmesim::test::spit;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path d = fs::current_path() / ("inputs_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

}  // namespace

TEST_CASE("a FIFO as the scenario - the sweep base or a manifest is refused at once", "[inputs][fifo]") {
  // Issue 16 item 5: open() of a FIFO without a writer blocked forever. `timeout 10` turns a
  // regression into exit 124 instead of a hung test.
  const fs::path d = scratch("fifo");
  const std::string fifo = (d / "f.json").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string want = fifo + ": cannot read: it is a FIFO, not a regular file";
  for (const std::string& cmd : {"run '" + fifo + "' -q", "validate '" + fifo + "'", "sweep '" + fifo + "' --out '" +
                                                                                        (d / "sw").string() + "'"}) {
    INFO(cmd);
    const auto r = run_capture(cmd, "timeout 10 ");
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains(want));
  }
  // The base scenario of a sweep.
  spit((d / "s.json").string(), R"({"schema":"nvmesim.sweep/1","base":"f.json","grid":{"/seed":[1,2]}})");
  auto r = run_capture("validate '" + (d / "s.json").string() + "'", "timeout 10 ");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("/base: cannot read the base scenario: " + fifo.substr(0, fifo.size() - 6) +
                                    "f.json: cannot read: it is a FIFO"));
  // A sweep folder whose manifest is a FIFO.
  fs::create_directories(d / "m");
  REQUIRE(::mkfifo((d / "m" / "manifest.json").c_str(), 0600) == 0);
  r = run_capture("merge '" + (d / "m").string() + "' --out '" + (d / "x.json").string() + "'", "timeout 10 ");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("manifest.json: cannot read: it is a FIFO"));
  fs::remove_all(d);
}

TEST_CASE("InputFile refuses devices and folders - reads within its limit - and cuts long lines", "[inputs]") {
  using nvmesim::InputError;
  CHECK_THROWS_WITH(nvmesim::read_input_file("/dev/zero"),
                    Catch::StartsWith("/dev/zero: cannot read: it is a character device, not a regular file"));
  CHECK_THROWS_WITH(nvmesim::read_input_file("/"), "/: cannot read: it is a folder, not a file");
  CHECK_THROWS_AS(nvmesim::read_input_file("/no/such/file"), InputError);
  const fs::path d = scratch("limit");
  const std::string f = (d / "f.txt").string();
  spit(f, std::string(100, 'a') + "\nbc\n\nlast");
  // 100 + 1 ("\n") + 3 ("bc\n") + 1 ("\n") + 4 ("last") = 109 bytes.
  CHECK(nvmesim::read_input_file(f, 109).size() == 109);
  CHECK_THROWS_WITH(nvmesim::read_input_file(f, 108), f + ": the file is larger than the limit of 108 bytes");
  nvmesim::InputFile in(f);
  std::string line;
  bool cut = false;
  REQUIRE(in.read_line(line, 10, &cut));
  CHECK(line == std::string(10, 'a'));  // the first 10 of 100 bytes
  CHECK(cut);
  REQUIRE(in.read_line(line, 10, &cut));
  CHECK(line == "bc");
  CHECK_FALSE(cut);
  REQUIRE(in.read_line(line, 10, &cut));
  CHECK(line.empty());
  REQUIRE(in.read_line(line, 10, &cut));
  CHECK(line == "last");  // no newline at the end: still a line
  CHECK_FALSE(in.read_line(line, 10, &cut));
  fs::remove_all(d);
}
