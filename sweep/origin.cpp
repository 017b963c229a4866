#include <cstdlib>
#include <map>
#include <ostream>

#include "sweep/origin.hpp"

#include "core/terminal_text.hpp"

namespace nvmesim {

using ojson = nlohmann::ordered_json;

ojson sweep_run_record(const std::string& sweep_file) {
  ojson run = ojson::object();
  if (!sweep_file.empty()) run["sweep_file"] = sweep_file;
  ojson slurm = ojson::object();
  for (const auto& [key, var] : {std::pair<const char*, const char*>{"job_id", "SLURM_JOB_ID"},
                                 {"array_job_id", "SLURM_ARRAY_JOB_ID"},
                                 {"array_task_id", "SLURM_ARRAY_TASK_ID"}})
    if (const char* v = std::getenv(var); v && *v) slurm[key] = std::string(v).substr(0, 64);
  if (!slurm.empty()) run["slurm"] = slurm;
  return run;
}

std::string shell_quote(const std::string& text) {
  if (!text.empty() && text.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=+,-") ==
                           std::string::npos)
    return text;
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

namespace {

std::string shard_text(const Shard& s) { return std::to_string(s.index) + "/" + std::to_string(s.count); }

/// The string member `key` of a run record, or "".
std::string run_string(const ojson& o, const char* key) {
  if (!o.is_object()) return "";
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}

/// "Slurm array task T of job J" / "Slurm job J" from a run record, or "".
std::string slurm_text(const ojson& run) {
  if (!run.is_object() || !run.contains("slurm")) return "";
  const ojson& s = run["slurm"];
  const std::string task = run_string(s, "array_task_id"), array = run_string(s, "array_job_id"), job = run_string(s, "job_id");
  if (!task.empty() && !array.empty()) return "Slurm array task " + task + " of job " + array;
  if (!job.empty()) return "Slurm job " + job;
  return "";
}

/// The sweep file recorded in `preferred`'s run record, else in any folder's, shell-quoted; or
/// "SWEEP.json" when none recorded it (manifests of an older nvmesim).
std::string sweep_file_of(const std::vector<MergedFolder>& folders, const MergedFolder* preferred) {
  if (preferred && !run_string(preferred->run, "sweep_file").empty()) return shell_quote(run_string(preferred->run, "sweep_file"));
  for (const auto& f : folders)
    if (!run_string(f.run, "sweep_file").empty()) return shell_quote(run_string(f.run, "sweep_file"));
  return "SWEEP.json";
}

std::string absolute(const std::string& path) {
  char* p = ::realpath(path.c_str(), nullptr);
  if (!p) return path;
  std::string out = p;
  std::free(p);
  return out;
}

void point_lines(const std::vector<const IncompletePoint*>& pts, const std::string& where, std::ostream& err,
                 size_t max_lines) {
  size_t shown = 0;
  for (const IncompletePoint* p : pts) {
    if (shown++ == max_lines) {
      err << "nvmesim merge:   ... and " << (pts.size() - max_lines) << " more points of " << terminal_text(where)
          << " (every point is listed in the summary)\n";
      break;
    }
    err << "nvmesim merge: point " << p->index << " (" << terminal_text(p->id) << ") " << (p->failed ? "failed" : "missing")
        << " in " << terminal_text(where) << (p->failed ? ": " + (p->error.empty() ? std::string("no error recorded") : terminal_text(p->error)) : std::string()) << "\n";
  }
}

}  // namespace

void report_incomplete_points(const std::vector<MergedFolder>& folders, const std::vector<IncompletePoint>& points,
                              std::ostream& err, size_t max_lines_per_folder, size_t max_shards_listed) {
  std::map<long, std::vector<const IncompletePoint*>> by_folder;
  for (const auto& p : points) by_folder[p.folder].push_back(&p);
  for (const auto& [fi, pts] : by_folder) {
    if (fi < 0) continue;
    const MergedFolder& f = folders[static_cast<size_t>(fi)];
    const std::string slurm = slurm_text(f.run);
    point_lines(pts, "shard " + shard_text(f.shard) + " (" + f.dir + (slurm.empty() ? "" : ", " + slurm) + ")", err,
                max_lines_per_folder);
    err << "nvmesim merge: resume shard " << shard_text(f.shard) << " with: nvmesim sweep "
        << terminal_text(sweep_file_of(folders, &f)) << (f.shard.count > 1 ? " --shard " + shard_text(f.shard) : std::string())
        << " --out " << terminal_text(shell_quote(absolute(f.dir))) << " --resume\n";
  }
  auto none = by_folder.find(-1);
  if (none == by_folder.end()) return;
  // Points that no folder holds: by the shard they belong to, when the folders agree on N.
  uint64_t count = folders.empty() ? 0 : folders[0].shard.count;
  for (const auto& f : folders)
    if (f.shard.count != count) count = 0;
  if (count == 0) {
    point_lines(none->second, "no folder given (the folders were sharded differently)", err, max_lines_per_folder);
    return;
  }
  std::map<uint64_t, std::vector<const IncompletePoint*>> by_shard;
  for (const IncompletePoint* p : none->second) by_shard[p->index % count].push_back(p);
  // At most max_shards_listed missing shards in full (1 folder of a 1000000-shard sweep would
  // list 999999 shards, two lines each: issue 16's attack); the rest in one line.
  size_t listed = 0, rest_points = 0;
  std::vector<std::pair<uint64_t, uint64_t>> rest_ranges;  // the unlisted shards, as [first, last]
  for (const auto& [k, pts] : by_shard) {
    if (listed == max_shards_listed) {
      rest_points += pts.size();
      if (!rest_ranges.empty() && rest_ranges.back().second + 1 == k)
        rest_ranges.back().second = k;
      else
        rest_ranges.emplace_back(k, k);
      continue;
    }
    ++listed;
    const Shard s{k, count};
    point_lines(pts, "shard " + shard_text(s) + " (no folder given holds it)", err, max_lines_per_folder);
    err << "nvmesim merge: run shard " << shard_text(s) << " with: nvmesim sweep " << terminal_text(sweep_file_of(folders, nullptr))
        << " --shard " << shard_text(s) << " --out DIR, and merge DIR with the others\n";
  }
  if (by_shard.size() > listed) {
    // Which ones, as ranges of K (at most 10 ranges shown), so that the user need not work them
    // out from the summary's point indices.
    const size_t more = by_shard.size() - listed;
    std::string ks;
    for (size_t r = 0; r < rest_ranges.size() && r < 10; ++r)
      ks += (r ? ", " : "") + std::to_string(rest_ranges[r].first) +
            (rest_ranges[r].second > rest_ranges[r].first ? "-" + std::to_string(rest_ranges[r].second) : std::string());
    if (rest_ranges.size() > 10) ks += ", ... (" + std::to_string(rest_ranges.size() - 10) + " more ranges)";
    err << "nvmesim merge:   ... and " << more << " more shard" << (more == 1 ? "" : "s") << " of " << count
        << " that no folder given holds (K = " << ks << "; " << rest_points << " point" << (rest_points == 1 ? "" : "s")
        << ", every one listed in the summary); run each with --shard K/" << count << " as above\n";
  }
}

}  // namespace nvmesim
