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
#include "core/json_text.hpp"
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

TEST_CASE("the JSON parser builds large documents in file order", "[inputs][json]") {
  // 100000 objects in one array (the shape that was quadratic) and an object of 3000 keys.
  std::string text = "{\"list\": [";
  for (int i = 0; i < 100000; ++i) text += (i ? ",{\"k\":" : "{\"k\":") + std::to_string(i) + "}";
  text += "], \"big\": {";
  for (int i = 0; i < 3000; ++i) text += (i ? ",\"k" : "\"k") + std::to_string(2999 - i) + "\":" + std::to_string(i);
  text += "}, \"z\": [[], {}, null, true, 1.5, -2, 18446744073709551615, \"s\"]}";
  const auto doc = nvmesim::parse_json_text(text, "t.json");
  REQUIRE(doc["list"].size() == 100000);
  CHECK(doc["list"][0]["k"] == 0);
  CHECK(doc["list"][99999]["k"] == 99999);
  REQUIRE(doc["big"].size() == 3000);
  CHECK(doc["big"].begin().key() == "k2999");  // file order, not sorted
  CHECK(doc["big"]["k0"] == 2999);
  CHECK(doc["z"].dump() == R"([[],{},null,true,1.5,-2,18446744073709551615,"s"])");
  CHECK(nvmesim::parse_json_text("\xEF\xBB\xBF // c\n 7 /* d */", "t.json") == 7);  // BOM and comments
}

TEST_CASE("a repeated key is reported at its pointer and its second occurrence", "[inputs][json]") {
  auto error_of = [](const std::string& text) {
    try {
      (void)nvmesim::parse_json_text(text, "t.json");
    } catch (const nvmesim::InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string tail = ": the key \"b\" appears twice in one object; JSON objects must not repeat a key (the later value would win)";
  // Strings and comments that look like keys do not count: the second "b" key is at column 34.
  CHECK(error_of(R"({"a": "x\":", /* "b": */ "b": 1, "b": 2})") == "t.json:1:34: /b" + tail);
  // Inside arrays and objects, with the key escaped (RFC 6901: "~" -> "~0", "/" -> "~1").
  CHECK(error_of("{\"x\": [0, 1, {\"a/b~c\": {\"b\": 1,\n \"b\": 2}}]}") == "t.json:2:2: /x/2/a~1b~0c/b" + tail);
  // A large object (the keys are then in a hash set): k0 ... k99, then k50 again.
  std::string big = "{\"o\": {";
  for (int i = 0; i < 100; ++i) big += "\"k" + std::to_string(i) + "\": 0, ";
  const size_t col = big.size() + 1;
  big += "\"k50\": 1}}";
  CHECK(error_of(big) == "t.json:1:" + std::to_string(col) + ": /o/k50: the key \"k50\" appears twice in one object; "
                         "JSON objects must not repeat a key (the later value would win)");
  // The same key in two objects is no repeat.
  CHECK(error_of(R"([{"b": 1}, {"b": 2}, {"c": {"b": 3}}])") == "no error");
  // A NUL byte ends nothing silently: an error at its place, also inside a string.
  CHECK(error_of(std::string("[\"a\0b\"]", 7)) == "t.json:1:4: a NUL byte (\\u0000); JSON text cannot hold one (inside a string write \\u0000)");
}

TEST_CASE("check_placed_depth counts the pointer's levels and the value's", "[inputs][json]") {
  using nvmesim::check_placed_depth;
  using nvmesim::json_depth;
  const auto deep = nvmesim::parse_json_text(std::string(60, '[') + std::string(60, ']'), "t");
  CHECK(json_depth(deep) == 60);
  CHECK(json_depth(nlohmann::ordered_json(3)) == 0);
  CHECK(json_depth(nlohmann::ordered_json::parse(R"({"a": [1, {"b": []}], "c": {}})")) == 4);
  // 4 tokens + 60 levels = 64: allowed; 5 + 60 = 65: refused.
  CHECK_NOTHROW(check_placed_depth(deep, "/a/b/c/d", "s.json", "/set/x"));
  CHECK_THROWS_WITH(check_placed_depth(deep, "/a/b/c/d/e", "s.json", "/set/x"),
                    "s.json: /set/x: the value would be nested deeper than 64 levels once placed at /a/b/c/d/e (its "
                    "pointer counts 5 levels); a scenario needs fewer than 10");
  // A scalar below a pointer of 65 tokens is too deep as well.
  std::string p;
  for (int i = 0; i < 65; ++i) p += "/0";
  CHECK_THROWS_AS(check_placed_depth(nlohmann::ordered_json(1), p, "s.json", "/set/x"), nvmesim::InputError);
  // A document far deeper than the stack allows recursion is measured without recursion.
  nlohmann::ordered_json chain = nlohmann::ordered_json::array();
  for (int i = 0; i < 200000; ++i) chain = nlohmann::ordered_json::array({std::move(chain)});
  CHECK(json_depth(chain, 1000) == 1001);  // stops counting past the limit asked for
}
