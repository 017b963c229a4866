// Same scenario and seed: byte-identical output; a trial's result does not depend on how many
// trials run with it (DESIGN section 6). Runs the nvmesim binary, one process per run.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace {
std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
int run(const std::string& args) {
  const std::string cmd = std::string(NVMESIM_BINARY) + " " + args + " >/dev/null 2>&1";
  return std::system(cmd.c_str());
}
const std::string kAws = std::string(NVMESIM_SOURCE_DIR) + "/scenarios/aws-c5.12xlarge.json";
}  // namespace

TEST_CASE("two runs with the same scenario and seed give identical bytes", "[determinism]") {
  REQUIRE(run("run " + kAws + " --trials 50 --seed 7 -q --out det_a.json") == 0);
  REQUIRE(run("run " + kAws + " --trials 50 --seed 7 -q --out det_b.json") == 0);
  const std::string a = slurp("det_a.json"), b = slurp("det_b.json");
  CHECK(a.size() > 1000);
  CHECK(a == b);
  REQUIRE(run("run " + kAws + " --trials 50 --seed 8 -q --out det_c.json") == 0);
  CHECK(slurp("det_c.json") != a);  // the seed matters
  for (const char* f : {"det_a.json", "det_b.json", "det_c.json"}) std::remove(f);
}

TEST_CASE("trial k is the same whether 5 or 40 trials run", "[determinism]") {
  REQUIRE(run("run " + kAws + " --trials 5 -q --format jsonl --out det_5.jsonl") == 0);
  REQUIRE(run("run " + kAws + " --trials 40 -q --format jsonl --out det_40.jsonl") == 0);
  auto trials = [](const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::vector<std::string> out;
    while (std::getline(in, line))
      if (nlohmann::json::parse(line)["record"] == "trial") out.push_back(line);
    return out;
  };
  const auto five = trials("det_5.jsonl"), forty = trials("det_40.jsonl");
  REQUIRE(five.size() == 10);   // 2 variants x 5
  REQUIRE(forty.size() == 80);
  for (size_t i = 0; i < 5; ++i) {
    CHECK(five[i] == forty[i]);          // variant 0
    CHECK(five[5 + i] == forty[40 + i]); // variant 1
  }
  std::remove("det_5.jsonl");
  std::remove("det_40.jsonl");
}
