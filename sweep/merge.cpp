#include <algorithm>
#include <filesystem>
#include <initializer_list>
#include <iterator>
#include <map>
#include <ostream>
#include <utility>

#include <sys/stat.h>

#include "core/atomic_file.hpp"
#include "core/json_text.hpp"
#include "core/terminal_text.hpp"
#include "sweep/folder.hpp"
#include "sweep/origin.hpp"
#include "sweep/run.hpp"

namespace nvmesim {

using ojson = nlohmann::ordered_json;
using namespace sweep_detail;

namespace {

/// o[key] when `o` is an object holding it, else a null (a reference that outlives the call).
const ojson& member(const ojson& o, const std::string& key) {
  static const ojson null_value;
  if (o.is_object()) {
    auto it = o.find(key);
    if (it != o.end()) return *it;
  }
  return null_value;
}

/// Elements of an array member, or nothing.
const ojson& items_of(const ojson& o, const std::string& key) {
  static const ojson empty = ojson::array();
  const ojson& m = member(o, key);
  return m.is_array() || m.is_object() ? m : empty;
}

std::string csv_field(const std::string& s) {
  // A text starting with = + - @ (or TAB, CR) is a formula to a spreadsheet (issue 16 item 22,
  // formula injection): it is quoted with a ' before it, which the spreadsheet shows as text.
  if (!s.empty() && std::string("=+-@\t\r").find(s[0]) != std::string::npos) return csv_field("'" + s);
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string csv_value(const ojson& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return csv_field(v.get<std::string>());
  const std::string number = v.dump();  // a number's leading '-' is a sign, not a formula
  return number.find_first_of(",\"\n\r") == std::string::npos ? number : csv_field(number);
}

// The manifests of the folders of one sweep, read and checked against each other.
struct Manifests {
  ojson sweep, tool;                // of the first folder (all must agree)
  std::map<size_t, ojson> points;   // by index: the done ones, else the failed ones
  std::map<size_t, long> origin;    // by index: the folder (into `folders`) of the point in `points`,
                                    // or of a pending point no folder completed
  std::vector<MergedFolder> folders;  // as given, with their shard and run record
};

// A done point of the manifest at `path` (entry `k` of its "points") must say what its point file
// DIR/points/<id>.jsonl says: the same "variants" and "paired" as the file's summary record
// (issue 16: a hand-edited summary was merged as a result). InputError with the pointer otherwise.
void check_point_against_file(const ojson& p, size_t k, const std::string& path, const std::string& dir) {
  const std::string where = "/points/" + std::to_string(k);
  const std::string id = p.value("id", "");
  if (id.empty() || id.find('/') != std::string::npos || id[0] == '.')
    throw InputError(path, where + "/id", "a done point needs the id of its point file, not \"" + id + "\"");
  const std::string file = dir + "/points/" + id + ".jsonl";
  require_file_if_present(file, "point " + std::to_string(p["index"].get<size_t>()) + "'s point file");
  ojson s;
  if (!read_point_summary(file, s))
    throw InputError(path, where, "point " + std::to_string(p["index"].get<size_t>()) + " is done, but its point file " +
                                      file + " is missing or has no summary record, so its summary cannot be checked; "
                                      "copy the sweep folder whole, or run the point again with 'nvmesim sweep ... --resume'");
  // The whole file against the size and hash the sweep recorded: an edited trial line keeps the
  // summary (issue 16 item 16). A done point without the record (a manifest of an older nvmesim,
  // or one whose record was deleted with the file edited) cannot be checked, so it is refused too:
  // accepting it would let an edit through.
  if (!p.contains("jsonl"))
    throw InputError(path, where, "point " + std::to_string(p["index"].get<size_t>()) + " is done, but the manifest "
                                      "records no size and hash of its point file (\"jsonl\"), so the file cannot be "
                                      "checked; run 'nvmesim sweep ... --resume' on the folder to check and record it");
  if (jsonl_record(file) != p["jsonl"])
    throw InputError(path, where + "/jsonl", "point " + std::to_string(p["index"].get<size_t>()) + "'s point file " + file +
                                                 " no longer has the size and FNV-1a 64 hash the sweep recorded (it was "
                                                 "changed after the sweep); merge refuses it: restore the file, or remove it "
                                                 "and run the point again with 'nvmesim sweep ... --resume'");
  const ojson paired = s.contains("paired") ? s["paired"] : ojson::array();
  if (s["variants"] != p.value("variants", ojson()) || paired != p.value("paired", ojson()))
    throw InputError(path, where, "the summary of point " + std::to_string(p["index"].get<size_t>()) +
                                      " differs from that of its point file " + file +
                                      " (the manifest or the file was changed after the sweep); merge refuses it: "
                                      "restore the folder, or remove both and run the point again with --resume");
}

std::vector<SweepAxis> manifest_axes(const ojson& sweep);

// The point outputs a manifest selects (its "outputs", already checked by check_manifest).
SweepOutputs manifest_outputs(const ojson& m) {
  SweepOutputs o;
  const ojson& outs = member(m, "outputs");
  o.trace = outs.is_object() && outs.contains("trace");
  o.vcd = outs.is_object() && outs.contains("vcd");
  o.dmesg = outs.is_object() && outs.contains("dmesg");
  return o;
}

// A done point's outputs besides its .jsonl (entry `k` of the manifest at `path` in folder
// `dir`), as --resume checks them (sweep/manifest.cpp shard_states): each output the manifest
// selects is recorded for the point, exists in DIR/points and has the recorded size and FNV-1a
// hash; the point records no other (issue 16: merge took a done point whose .dmesg was missing
// or replaced). InputError at the point, naming it and the file.
void check_point_outputs(const ojson& p, size_t k, const std::string& path, const std::string& dir,
                         const SweepOutputs& selected) {
  const std::string where = "/points/" + std::to_string(k);
  const std::string id = p.value("id", "");
  const std::string point = "point " + std::to_string(p["index"].get<size_t>());
  const ojson& recorded = member(p, "outputs");
  const std::vector<std::string> names = extra_output_names(selected, id);
  for (const auto& [name, rec] : items_of(p, "outputs").items()) {
    (void)rec;
    if (std::find(names.begin(), names.end(), name) == names.end())
      throw InputError(path, where + "/outputs", point + " records the output " + name + ", which the manifest's " +
                                                     "\"outputs\" does not select (the manifest was changed after the sweep)");
  }
  for (const auto& name : names) {
    const std::string file = dir + "/points/" + name;
    if (!recorded.is_object() || !recorded.contains(name))
      throw InputError(path, where, point + " is done, but the manifest records no size and hash of its output " + file +
                                        " (the manifest was changed after the sweep); run the point again with "
                                        "'nvmesim sweep ... --resume'");
    require_file_if_present(file, "an output of " + point);
    if (!file_exists(file))
      throw InputError(path, where, point + " is done, but its output " + file +
                                        " is missing; copy the sweep folder whole, or run the point again with "
                                        "'nvmesim sweep ... --resume'");
  }
  const ojson now = output_records(selected, dir + "/points", id);
  for (const auto& name : names) {
    const ojson& want = recorded[name];
    const ojson& got = member(now, name);
    if (got != want)
      throw InputError(path, where, point + "'s output " + dir + "/points/" + name + " has " +
                                        (got.is_null() ? std::string("no readable content") :
                                                         std::to_string(got.value("bytes", uint64_t{0})) + " bytes (FNV-1a " +
                                                             got.value("fnv1a64", "") + ")") +
                                        ", the manifest records " + std::to_string(want.value("bytes", uint64_t{0})) +
                                        " bytes (FNV-1a " + want.value("fnv1a64", "") +
                                        "): it was changed after the sweep; restore it, or run the point again with "
                                        "'nvmesim sweep ... --resume'");
  }
}

// A point's recorded parameters (entry `k` of the manifest at `path`) must be those the sweep's
// axes give its index (a done point's id is checked against its point file): a hand edit that moved a result to other parameters was merged as
// theirs (the attack of stop 21). InputError at the field otherwise.
void check_point_identity(const ojson& p, size_t k, const std::string& path, const std::vector<SweepAxis>& axes) {
  const size_t idx = p["index"].get<size_t>();
  const ojson want = point_parameters(axes, idx);
  const std::string where = "/points/" + std::to_string(k);
  if (p.contains("parameters") && p["parameters"] != want)
    throw InputError(path, where + "/parameters",
                     "point " + std::to_string(idx) + " records the parameters " + p["parameters"].dump() +
                         ", but the sweep's axes give point " + std::to_string(idx) + " " + want.dump() +
                         " (the manifest was changed after the sweep); restore the folder, or run the sweep again");
}

// Adds the points of manifest `m` (read from `path` in folder `dir`, the folder `folder` of
// `ms.folders`): a done point wins over a failed one, and two folders holding the same point done
// must agree on it. Every done point is checked against its point file first.
void add_points(const ojson& m, const std::string& path, const std::string& dir, long folder, Manifests& ms) {
  size_t k = 0;
  const std::vector<SweepAxis> axes = manifest_axes(m["sweep"]);
  const SweepOutputs selected = manifest_outputs(m);
  for (const auto& p : m["points"]) {
    if (!p.is_object() || !p.contains("index") || !p["index"].is_number_unsigned())
      throw InputError::in_source(path, "a point without an index");
    const size_t idx = p["index"].get<size_t>();
    const std::string status = p.value("status", "");
    check_point_identity(p, k, path, axes);
    if (status == "done") {
      check_point_against_file(p, k, path, dir);
      check_point_outputs(p, k, path, dir, selected);
    }
    ++k;
    if (status == "pending") {
      if (!ms.points.count(idx)) ms.origin.emplace(idx, folder);
      continue;
    }
    auto it = ms.points.find(idx);
    if (it == ms.points.end() || (it->second.value("status", "") != "done" && status == "done")) {
      ms.points[idx] = p;
      ms.origin[idx] = folder;
    } else if (status == "done" && it->second.value("status", "") == "done") {
      if (it->second.value("variants", ojson()) != p.value("variants", ojson()))
        throw InputError::in_source(path, "point " + std::to_string(idx) + " differs from the same point in " +
                                              ms.folders[static_cast<size_t>(ms.origin[idx])].dir +
                                              " (one of the two was changed after the sweep); merge one of them, or run the point again");
    }
  }
}

Manifests read_manifests(const std::vector<std::string>& dirs) {
  Manifests ms;
  std::string first_manifest;
  for (const auto& d : dirs) {
    const std::string path = d + "/manifest.json";
    if (!file_exists(path))
      throw InputError::in_source(path, "missing; no sweep has written its manifest in " + d +
                                            " (a sweep writes it when it starts): run or continue it with 'nvmesim sweep "
                                            "SWEEP.json --out " + d + " --resume' (and its --shard)");
    const ojson m = parse_json_text(read_text_file(path), path);
    check_manifest(m, path);
    if (first_manifest.empty()) {
      first_manifest = path;
      ms.sweep = m["sweep"];
      ms.tool = m.value("tool", ojson::object());
    } else {
      if (m["sweep"].value("id", "") != ms.sweep.value("id", ""))
        throw InputError::in_source(path, "is from another sweep (id " + m["sweep"].value("id", "?") + ") than " +
                                              first_manifest + " (id " + ms.sweep.value("id", "?") + ")");
      if (m.value("tool", ojson::object()) != ms.tool)
        throw InputError::in_source(path, "was written by " + m.value("tool", ojson::object()).dump() + ", " +
                                              first_manifest + " by " + ms.tool.dump() + "; rerun the shards with one version");
    }
    const long folder = static_cast<long>(ms.folders.size());
    auto shard_field = [&](const char* key, uint64_t fallback) {
      const ojson& v = member(member(m, "shard"), key);
      return v.is_number_unsigned() ? v.get<uint64_t>() : fallback;
    };
    ms.folders.push_back({d, Shard{shard_field("index", 0), shard_field("count", 1)}, member(m, "run")});
    add_points(m, path, d, folder, ms);
  }
  return ms;
}

// The axes of the sweep as its manifest records them (to name the points no folder holds).
std::vector<SweepAxis> manifest_axes(const ojson& sweep) {
  std::vector<SweepAxis> axes;
  for (const auto& a : items_of(sweep, "axes")) {
    SweepAxis ax;
    ax.pointer = a.value("pointer", "");
    ax.zip = a.value("kind", "") == "zip";
    for (const auto& v : items_of(a, "values")) ax.values.push_back(v);
    axes.push_back(std::move(ax));
  }
  return axes;
}

// Every point of the sweep in index order; a point no folder holds is "missing". `incomplete`
// receives the failed and missing points with the folder each came from.
ojson all_points(const Manifests& ms, const std::vector<SweepAxis>& axes, size_t& n_failed, size_t& n_missing,
                 std::vector<IncompletePoint>& incomplete) {
  const size_t total = ms.sweep.value("points", size_t{0});
  ojson out_points = ojson::array();
  n_failed = n_missing = 0;
  for (size_t i = 0; i < total; ++i) {
    auto it = ms.points.find(i);
    auto from = ms.origin.find(i);
    const long folder = from == ms.origin.end() ? -1 : from->second;
    ojson p;
    if (it == ms.points.end()) {
      const ojson params = point_parameters(axes, i);
      p["index"] = i;
      p["id"] = point_id(params);
      p["parameters"] = params;
      p["status"] = "missing";
      ++n_missing;
      incomplete.push_back({i, p["id"], false, "", folder});
    } else {
      p = it->second;
      p.erase("file");
      p.erase("outputs");  // the sizes and hashes --resume checks: not part of the summary
      p.erase("jsonl");
      if (p.value("status", "") == "failed") {
        ++n_failed;
        incomplete.push_back({i, p.value("id", ""), true, p.value("error", ""), folder});
      }
    }
    out_points.push_back(p);
  }
  return out_points;
}

/// The CSV beside the summary `out_json`: ".json" replaced by ".csv", else ".csv" appended.
/// Whether `path` ends in `ext` after at least one more character.
bool has_extension(const std::string& path, const std::string& ext) {
  return path.size() > ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0 &&
         path[path.size() - ext.size() - 1] != '/';
}

/// The summary's JSON and CSV paths from merge's --out: "X.json" writes X.json and X.csv beside
/// it, "X.csv" the same pair (the CSV there, the JSON beside it); any other name is refused, since
/// the file there would hold a format its name does not say (issue 16's last findings, item 9:
/// `--out m.csv` wrote JSON to m.csv and the CSV to m.csv.csv).
void output_paths(const std::string& out, std::string& out_json, std::string& out_csv) {
  const bool json = has_extension(out, ".json"), csv = has_extension(out, ".csv");
  if (!json && !csv)
    throw InputError("--out " + out + ": must end in .json (the summary; its CSV goes beside it, FILE.csv) or .csv (the "
                     "CSV; the summary goes beside it, FILE.json); merge writes both, e.g. --out summary.json");
  const std::string stem = out.substr(0, out.size() - (json ? 5 : 4));
  out_json = stem + ".json";
  out_csv = stem + ".csv";
}

const char* const kCsvStats[] = {"mean", "stddev", "min", "p5", "p10", "p50", "p90", "p95", "p99", "max"};

// The status keys of every variant summary, in order of first appearance.
std::vector<std::string> status_keys_of(const ojson& out_points) {
  std::vector<std::string> status_keys;
  for (const auto& p : out_points)
    for (const auto& v : items_of(p, "variants"))
      for (const auto& [k, val] : items_of(member(v, "summary"), "status").items()) {
        (void)val;
        if (std::find(status_keys.begin(), status_keys.end(), k) == status_keys.end()) status_keys.push_back(k);
      }
  return status_keys;
}

// The CSV rows of one point: one per variant, or one for a failed or missing point.
void append_csv_rows(std::string& csv, const ojson& p, const std::vector<SweepAxis>& axes,
                     const std::vector<std::string>& status_keys) {
  std::string lead = std::to_string(p["index"].get<size_t>()) + "," + csv_field(p.value("id", ""));
  for (const auto& a : axes) lead += "," + csv_value(member(member(p, "parameters"), a.pointer));
  lead += "," + csv_field(p.value("status", ""));
  const ojson& variants = items_of(p, "variants");
  if (variants.empty()) {
    csv += lead + ",,";
    for (size_t i = 0; i < status_keys.size() + 3 * std::size(kCsvStats); ++i) csv += ",";
    csv += "," + csv_field(p.value("error", "")) + "\n";
    return;
  }
  for (const auto& v : variants) {
    const ojson& s = member(v, "summary");
    csv += lead + "," + csv_field(v.value("name", "")) + "," + csv_value(member(s, "trials"));
    for (const auto& k : status_keys) csv += "," + csv_value(member(member(s, "status"), k));
    const ojson* delta = &member(v, "no delta");
    for (const auto& d : items_of(p, "paired"))
      if (member(d, "variant") == member(v, "name")) delta = &member(d, "delta_ms");
    for (const ojson* g : std::initializer_list<const ojson*>{&member(s, "probe_ms"), &member(s, "critical_path_ms"), delta})
      for (const char* st : kCsvStats) csv += "," + csv_value(member(*g, st));
    csv += ",\n";
  }
}

// CSV: a header, then one row per point and variant (one row for a failed or missing point).
std::string summary_csv(const ojson& out_points, const std::vector<SweepAxis>& axes) {
  const std::vector<std::string> status_keys = status_keys_of(out_points);
  std::string csv = "index,id";
  for (const auto& a : axes) csv += "," + csv_field(a.pointer);
  csv += ",status,variant,trials";
  for (const auto& k : status_keys) csv += "," + csv_field(k);
  for (const char* group : {"probe_ms", "critical_path_ms", "delta_ms"})
    for (const char* s : kCsvStats) csv += std::string(",") + group + "_" + s;
  csv += ",error\n";
  for (const auto& p : out_points) append_csv_rows(csv, p, axes, status_keys);
  return csv;
}

/// The path `p` made absolute and normal, symbolic links resolved as far as it exists.
std::filesystem::path path_key(const std::string& p) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path c = fs::weakly_canonical(fs::absolute(p), ec);
  return ec ? fs::absolute(p).lexically_normal() : c;
}

/// Whether `inner` is `outer` or lies below it (by path components).
bool path_under(const std::filesystem::path& inner, const std::filesystem::path& outer) {
  return std::mismatch(outer.begin(), outer.end(), inner.begin(), inner.end()).first == outer.end();
}

/// Refuses an output that is an input of the merge (issue 16 item 14: `--out SW/manifest.json`
/// replaced the manifest): a folder's manifest, or anything in its points/ or .work/ (or the
/// folder itself). InputError naming the output and the input.
/// `given` is --out as written; `out_json` and `out_csv` the pair it names (both `given` before
/// output_paths). The message names the file of the pair that collides when it is not `given`
/// (issue 16: it said "its CSV" when the JSON collided).
void check_outputs_not_inputs(const std::vector<std::string>& dirs, const std::string& given,
                              const std::string& out_json, const std::string& out_csv) {
  const std::pair<const std::string*, const char*> pair[] = {{&out_json, "its summary JSON "}, {&out_csv, "its CSV "}};
  for (const auto& [out, label] : pair) {
    const auto o = path_key(*out);
    for (const auto& d : dirs) {
      const auto dk = path_key(d);
      const bool hit = o == dk / "manifest.json" || o == dk || path_under(o, dk / "points") || path_under(o, dk / ".work");
      if (hit)
        throw InputError("--out " + given + ": " + (*out == given ? std::string() : label + *out + " ") +
                         "would be written over an input of this merge (" + d +
                         "/manifest.json or its points/); give the summary a path outside them, e.g. " + d + "/summary.json");
    }
  }
}

/// Refuses a folder given twice (issue 16: `merge m0 m0` merged one shard with itself), also by
/// another path to it (a symbolic link, "m0/."): the same folder or the same manifest.json file
/// (device and inode). InputError naming both arguments.
void check_distinct_folders(const std::vector<std::string>& dirs) {
  std::vector<std::pair<dev_t, ino_t>> seen_dir(dirs.size()), seen_manifest(dirs.size());
  std::vector<bool> has_manifest(dirs.size(), false);
  for (size_t i = 0; i < dirs.size(); ++i) {
    struct stat st;
    if (::stat(dirs[i].c_str(), &st) == 0) seen_dir[i] = {st.st_dev, st.st_ino};
    if (::stat((dirs[i] + "/manifest.json").c_str(), &st) == 0) {
      seen_manifest[i] = {st.st_dev, st.st_ino};
      has_manifest[i] = true;
    }
    for (size_t j = 0; j < i; ++j) {
      const bool same_dir = seen_dir[i] == seen_dir[j] && seen_dir[i] != std::pair<dev_t, ino_t>{};
      const bool same_manifest = has_manifest[i] && has_manifest[j] && seen_manifest[i] == seen_manifest[j];
      if (same_dir || same_manifest)
        throw InputError("merge " + dirs[j] + " and " + dirs[i] + ": " +
                         (same_dir ? "are the same sweep folder" : "hold the same manifest.json") +
                         " (arguments " + std::to_string(j + 1) + " and " + std::to_string(i + 1) +
                         "); give each folder of the sweep once");
    }
  }
}

}  // namespace

int merge_sweeps(const std::vector<std::string>& dirs, const std::string& out, std::ostream& err) {
  if (dirs.empty()) throw InputError("merge needs at least one sweep folder");
  check_outputs_not_inputs(dirs, out, out, out);  // first: an input given as --out is named as such
  std::string out_json, out_csv;
  output_paths(out, out_json, out_csv);
  check_distinct_folders(dirs);
  check_outputs_not_inputs(dirs, out, out_json, out_csv);
  const Manifests ms = read_manifests(dirs);
  const std::vector<SweepAxis> axes = manifest_axes(ms.sweep);
  size_t n_failed = 0, n_missing = 0;
  std::vector<IncompletePoint> incomplete;
  const ojson out_points = all_points(ms, axes, n_failed, n_missing, incomplete);
  ojson merged;
  merged["schema"] = kSummarySchema;
  merged["tool"] = ms.tool;
  merged["sweep"] = ms.sweep;
  merged["points"] = out_points;
  const std::string csv = summary_csv(out_points, axes);

  // The pair together (issue 16 item 14): both written and synced before either is renamed into
  // place, so a failure to write either (disk full, a folder at the CSV's path) leaves both as they were.
  AtomicFile fj(out_json), fc(out_csv);
  fj.write(merged.dump(2) + "\n");
  fc.write(csv);
  fj.finish();
  fc.finish();
  fj.publish();
  fc.publish();
  const size_t total = ms.sweep.value("points", size_t{0});
  if (n_failed || n_missing) {
    err << "nvmesim merge: " << total << " points: " << (total - n_failed - n_missing) << " done, " << n_failed
        << " failed, " << n_missing << " missing (listed in " << terminal_text(out_json) << ")\n";
    report_incomplete_points(ms.folders, incomplete, err);
    return kExitPointsFailed;
  }
  // What it covers, also when all is well (new user of stop 27: a merge said nothing).
  err << "nvmesim merge: " << total << " point" << (total == 1 ? "" : "s") << ", all done, from " << dirs.size()
      << " folder" << (dirs.size() == 1 ? "" : "s") << ": wrote " << terminal_text(out_json) << " and "
      << terminal_text(out_csv) << "\n";
  return 0;
}

}  // namespace nvmesim
