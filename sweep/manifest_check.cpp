// Validation of a sweep manifest read back from DIR/manifest.json (by merge and --resume): every
// field the readers use is checked like an input file's, with its JSON pointer (issue 16 item 2:
// an axis whose "values" was [] or 5 made merge die of SIGFPE, "points": 1e12 allocated without
// limit, and wrongly typed fields gave "internal error", exit 4).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/json_reader.hpp"
#include "core/json_text.hpp"
#include "core/rng.hpp"
#include "scenario/scenario.hpp"
#include "sweep/folder.hpp"
#include "sweep/run.hpp"
#include "sweep/sweep.hpp"

namespace nvmesim::sweep_detail {

using ojson = nlohmann::ordered_json;

namespace {

/// Requires `n` to be of the JSON type `want` ("object", "array", "string"), naming what was found.
void require_type(const JsonNode& n, const char* want) {
  const ojson& j = n.json();
  const bool ok = (std::string(want) == "object" && j.is_object()) || (std::string(want) == "array" && j.is_array()) ||
                  (std::string(want) == "string" && j.is_string());
  if (!ok) n.fail(std::string("must be ") + (want[0] == 'a' || want[0] == 'o' ? "an " : "a ") + want + ", not " +
                  type_name(j) + " (the manifest was changed by hand or by another program)");
}

// The axes: each a pointer, a kind and a non-empty list of values; their product is the number
// of points (the merge expands every missing point from them).
void check_axes(const JsonNode& sweep, uint64_t points) {
  uint64_t product = 1, zip_len = 0;
  if (sweep.has("axes")) {
    const JsonNode axes = sweep.at("axes");
    require_type(axes, "array");
    for (size_t i = 0; i < axes.json().size(); ++i) {
      const JsonNode a = axes.at(i);
      require_type(a, "object");
      for (const char* key : {"pointer", "kind", "values"})
        if (!a.has(key)) a.fail(std::string("needs \"") + key + "\"");
      const std::string ptr = a.at("pointer").str();
      if (!ptr.empty() && ptr[0] != '/') a.at("pointer").fail("must be a JSON pointer (\"/host/hz\"), not \"" + ptr + "\"");
      const std::vector<std::pair<std::string, bool>> kKinds = {{"grid", false}, {"zip", true}};
      const bool zip = a.at("kind").choice(kKinds);
      const JsonNode values = a.at("values");
      require_type(values, "array");
      const uint64_t len = values.json().size();
      if (len == 0 || len > kMaxAxisValues)
        values.fail("must hold 1 to " + std::to_string(kMaxAxisValues) + " values, not " + std::to_string(len));
      if (zip && zip_len != 0 && len != zip_len)
        values.fail("has " + std::to_string(len) + " values, the zip axes before it " + std::to_string(zip_len));
      if (zip && zip_len != 0) continue;
      if (zip) zip_len = len;
      product *= len;  // at most kMaxSweepPoints x kMaxAxisValues: no overflow
      if (product > kMaxSweepPoints)
        axes.fail("give more than " + std::to_string(kMaxSweepPoints) + " points");
    }
  }
  if (product != points)
    sweep.at("points").fail("is " + std::to_string(points) + " but the axes give " + std::to_string(product) + " points");
}

// The record of one file of a point: {"bytes": 0 to 2^63-1, "fnv1a64": 16 lowercase hex digits}
// and nothing else (sweep/outputs.cpp's file_record).
void check_file_record(const JsonNode& r) {
  require_type(r, "object");
  r.require_object({"bytes", "fnv1a64"});
  for (const char* key : {"bytes", "fnv1a64"})
    if (!r.has(key)) r.fail(std::string("needs \"") + key + "\"");
  (void)r.at("bytes").integer_in(0, INT64_MAX);
  const std::string hash = r.at("fnv1a64").str();
  if (hash.size() != 16 || hash.find_first_not_of("0123456789abcdef") != std::string::npos)
    r.at("fnv1a64").fail("must be 16 lowercase hex digits (an FNV-1a 64 hash), not \"" + hash + "\"");
}

// A point's "outputs": by file name, the size and FNV-1a 64 hash of each output its worker wrote
// besides its .jsonl (sweep/outputs.cpp). Each name is the point's id and one of the output
// extensions (never a path: "../x" or "a/b" would send --resume and merge outside DIR/points),
// each record {"bytes": 0 to 2^63-1, "fnv1a64": 16 lowercase hex digits} and nothing else
// (issue 16's last findings, item 6: they were only type-checked).
void check_outputs(const JsonNode& outs, const std::string& id) {
  require_type(outs, "object");
  for (const auto& item : outs.json().items()) {
    const JsonNode r = outs.at(item.key());
    const std::string& name = item.key();
    std::vector<std::string> allowed;
    for (const char* ext : {kTraceExt, kVcdExt, kDmesgExt}) allowed.push_back(id + ext);
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      r.fail("is not an output file name of this point: allowed " + list +
             " (a file name in DIR/points, no folder; the manifest was changed by hand or by another program)");
    }
    check_file_record(r);
  }
}

// One entry of "points": the fields merge reads, of the right types.
// Returns its index.
int64_t check_point(const JsonNode& p, uint64_t points) {
  require_type(p, "object");
  // The keys point_json writes (sweep/manifest.cpp): another is a hand edit or another tool's.
  p.require_object({"index", "id", "parameters", "status", "file", "variants", "paired", "outputs", "jsonl", "error"});
  if (!p.has("index")) p.fail("needs \"index\"");
  const int64_t index = p.at("index").integer_in(0, static_cast<int64_t>(points) - 1);
  if (!p.has("status")) p.fail("needs \"status\"");
  const std::vector<std::pair<std::string, std::string>> kStatuses = {{"pending", "pending"}, {"done", "done"}, {"failed", "failed"}};
  const std::string status = p.at("status").choice(kStatuses);
  // write_manifest has always written both: without them a point's results could be moved to
  // another point unseen (review of stop 25: the id check was skipped when "parameters" was gone).
  for (const char* key : {"id", "parameters"})
    if (!p.has(key)) p.fail(std::string("needs \"") + key + "\" (a sweep writes it for every point)");
  for (const char* key : {"id", "error", "file"})
    if (p.has(key)) (void)p.at(key).str();
  // merge reads points/ID.jsonl: a "file" naming another would say one thing and do another.
  if (p.has("file")) {
    if (!p.has("id")) p.fail("has \"file\" but no \"id\" (a point's file is named after it)");
    const std::string expected = "points/" + p.at("id").str() + ".jsonl";
    if (p.at("file").str() != expected)
      p.at("file").fail("is not this point's file: a sweep writes point " + p.at("id").str() + "'s trials to " + expected);
  }
  if (p.has("parameters")) require_type(p.at("parameters"), "object");
  // The id names the parameters (sweep/points.cpp point_id): a point's id, file and results
  // swapped with another's would be merged under the other's parameters (attack of stop 25).
  if (p.has("id") && p.has("parameters") && p.at("id").str() != point_id(p.at("parameters").json()))
    p.at("id").fail("is not the id of this point's parameters (" + point_id(p.at("parameters").json()) +
                    "): the manifest was edited");
  if (p.has("outputs")) {
    if (!p.has("id")) p.fail("has \"outputs\" but no \"id\" (the outputs are named after it)");
    check_outputs(p.at("outputs"), p.at("id").str());
  }
  // The size and hash of a done point's .jsonl (issue 16 item 16).
  if (p.has("jsonl")) check_file_record(p.at("jsonl"));
  // A done point has no error and a failed point has one (its worker's message, possibly empty):
  // merge copies the error into the summary, so a done point with one would read as both.
  if (status == "done" && p.has("error")) p.at("error").fail("is given for a done point (only a failed point has an error)");
  if (status == "failed" && !p.has("error")) p.fail("is failed but has no \"error\"");
  if (p.has("paired")) {
    require_type(p.at("paired"), "array");
    for (size_t i = 0; i < p.at("paired").json().size(); ++i) require_type(p.at("paired").at(i), "object");
  }
  if (status == "done" && !p.has("variants")) p.fail("is done but has no \"variants\"");
  if (!p.has("variants")) return index;
  const JsonNode vs = p.at("variants");
  require_type(vs, "array");
  for (size_t i = 0; i < vs.json().size(); ++i) {
    const JsonNode v = vs.at(i);
    require_type(v, "object");
    if (v.has("name")) (void)v.at("name").str();
    if (v.has("summary")) require_type(v.at("summary"), "object");
  }
  return index;
}

}  // namespace

std::string definition_id_of(const ojson& scenario, const ojson& axes) {
  ojson def;
  def["scenario"] = scenario;
  ojson as = ojson::array();
  for (const auto& a : axes) as.push_back(ojson::array({a.at("pointer"), a.at("kind"), a.at("values")}));
  def["axes"] = as;
  char hex[20];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a64(def.dump())));
  return hex;
}

void check_manifest(const ojson& m, const std::string& path) {
  const JsonNode root(m, path, "");
  if (!m.is_object() || !m.contains("schema") || m["schema"] != kManifestSchema)
    throw InputError::in_source(path, std::string("not an nvmesim sweep manifest (") + kManifestSchema + ")");
  // The keys write_manifest writes (sweep/manifest.cpp), at each level: another is a hand edit
  // or another program's, and merge would carry it or act on it unread (attack of stop 25).
  root.require_object({"schema", "tool", "sweep", "shard", "run", "outputs", "points"});
  if (root.has("tool")) {
    require_type(root.at("tool"), "object");
    root.at("tool").require_object({"name", "version"});
    for (const char* key : {"name", "version"})
      if (root.at("tool").has(key)) (void)root.at("tool").at(key).str();
  }
  if (root.has("run")) {
    const JsonNode run = root.at("run");
    require_type(run, "object");
    run.require_object({"sweep_file", "slurm"});
    if (run.has("sweep_file")) (void)run.at("sweep_file").str();
    if (run.has("slurm")) {
      require_type(run.at("slurm"), "object");
      run.at("slurm").require_object({"job_id", "array_job_id", "array_task_id"});
      for (const auto& item : run.at("slurm").json().items()) (void)run.at("slurm").at(item.key()).str();
    }
  }
  for (const char* key : {"sweep", "points"})
    if (!root.has(key)) root.fail(std::string("needs \"") + key + "\"");
  const JsonNode sweep = root.at("sweep");
  require_type(sweep, "object");
  sweep.require_object({"name", "description", "id", "trials", "points", "axes", "scenario"});
  for (const char* key : {"id", "points"})
    if (!sweep.has(key)) sweep.fail(std::string("needs \"") + key + "\"");
  (void)sweep.at("id").str();
  for (const char* key : {"name", "description"})
    if (sweep.has(key)) (void)sweep.at(key).str();
  if (sweep.has("trials")) (void)sweep.at("trials").integer_in(1, static_cast<int64_t>(kMaxTrials));
  const uint64_t points = static_cast<uint64_t>(sweep.at("points").integer_in(1, static_cast<int64_t>(kMaxSweepPoints)));
  check_axes(sweep, points);
  // The id is the definition's (sweep/expand.cpp definition_id: the base scenario and the axes),
  // so an edited scenario, axis or trial count no longer matches it: merge would report what was
  // not run (attack of stop 25: a kernel and a trial count edited in the manifest were merged).
  for (const char* key : {"scenario", "axes"})
    if (!sweep.has(key)) sweep.fail(std::string("needs \"") + key + "\" (the sweep's id is recomputed from them)");
  {
    require_type(sweep.at("scenario"), "object");
    const std::string id = definition_id_of(sweep.at("scenario").json(), sweep.at("axes").json());
    if (sweep.at("id").str() != id)
      sweep.at("id").fail("is not the id of the manifest's own scenario and axes (" + id +
                          "): the manifest was edited; restore it, or run the sweep again");
    // sweep.trials is the base's "trials" (scenario default 1), which the id covers.
    const ojson& sc = sweep.at("scenario").json();
    const ojson base_trials = sc.contains("trials") ? sc["trials"] : ojson(1);
    if (sweep.has("trials") && base_trials != sweep.at("trials").json())
      sweep.at("trials").fail("is not the scenario's trials (" + base_trials.dump() + "): the manifest was edited");
  }
  Shard shard{0, 1};
  if (root.has("shard")) {
    const JsonNode s = root.at("shard");
    require_type(s, "object");
    s.require_object({"index", "count"});
    const int64_t count = s.has("count") ? s.at("count").integer_in(1, 1'000'000) : 1;
    const int64_t index = s.has("index") ? s.at("index").integer_in(0, count - 1) : 0;
    shard = Shard{static_cast<uint64_t>(index), static_cast<uint64_t>(count)};
  }
  // The point outputs the sweep selected (SweepOutputs::to_json): merge checks each done point's
  // files against them, so the selection is read like the rest (issue 16: it was not checked).
  if (root.has("outputs")) {
    const JsonNode outs = root.at("outputs");
    require_type(outs, "object");
    outs.require_object({"trace", "vcd", "dmesg"});
    if (outs.json().empty()) outs.fail("selects no output (a sweep without --trace, --vcd or --dmesg writes no \"outputs\")");
    for (const char* key : {"trace", "vcd", "dmesg"}) {
      if (!outs.has(key)) continue;
      const JsonNode o = outs.at(key);
      require_type(o, "object");
      if (std::string(key) == "vcd") {
        o.require_object({});
        continue;
      }
      o.require_object({"trials"});
      if (!o.has("trials")) o.fail("needs \"trials\" (the trial selection, e.g. \"all\")");
      (void)o.at("trials").str();
    }
  }
  const JsonNode pts = root.at("points");
  require_type(pts, "array");
  if (pts.json().size() > points)
    pts.fail("holds " + std::to_string(pts.json().size()) + " points, the sweep has " + std::to_string(points));
  // A manifest lists each point of its shard once (issue 16's last findings, item 7: an edited
  // index made merge compare the folder with itself as "another folder").
  std::map<int64_t, size_t> entry_of;  // index -> entry of "points"
  for (size_t i = 0; i < pts.json().size(); ++i) {
    const int64_t index = check_point(pts.at(i), points);
    if (!in_shard(static_cast<size_t>(index), shard))
      pts.at(i).at("index").fail("is " + std::to_string(index) + ", a point of shard " +
                                 std::to_string(static_cast<uint64_t>(index) % shard.count) + "/" +
                                 std::to_string(shard.count) + ", not of this folder's shard " + std::to_string(shard.index) +
                                 "/" + std::to_string(shard.count) + ": the manifest was edited");
    const auto [it, fresh] = entry_of.emplace(index, i);
    if (!fresh)
      pts.at(i).at("index").fail("is " + std::to_string(index) + ", the index of /points/" + std::to_string(it->second) +
                                 " too; a manifest lists each point once (the manifest was changed by hand or by "
                                 "another program): restore it, or run the sweep again");
  }
}

}  // namespace nvmesim::sweep_detail
