#pragma once
// What kind of nvmesim file a path is, so that a command given another command's file says what
// the file is and which command takes it (issue 10 item 8), instead of a key or syntax error
// about the wrong format. Sniffs at most the first 64 KiB; never blocks (FIFOs are "other").
#include <initializer_list>
#include <string>

namespace nvmesim {

/// The kinds of file and folder nvmesim reads or writes.
enum class FileKind {
  missing,         ///< nothing at the path
  other,           ///< not recognised (the command's own reader then speaks)
  folder,          ///< a folder that is not a sweep folder
  sweep_folder,    ///< a folder written by `nvmesim sweep --out` (manifest.json or points/)
  scenario,        ///< "schema": "nvmesim.scenario/1"
  sweep,           ///< "schema": "nvmesim.sweep/1"
  timeline,        ///< nvmesim.timeline/1 (run --out F.json)
  trials,          ///< nvmesim.trials/1 (run --out F.jsonl)
  dmesg_output,    ///< nvmesim.dmesg/N (nvmesim dmesg -o)
  sweep_summary,   ///< nvmesim.sweep-summary/1 (merge --out)
  sweep_manifest,  ///< nvmesim.sweep-manifest/1 (a sweep folder's manifest.json)
  kernel_log,      ///< lines with kernel timestamps (dmesg, kern.log, journalctl, run --dmesg)
};

/// The kind of `path`: by its "schema" (found in the first 64 KiB), by its lines (a kernel log),
/// or as a folder. Never throws.
FileKind sniff_file_kind(const std::string& path);

/// Throws InputError "PATH: this is WHAT, not WANTED; TAKE" when `path` is of a recognised kind
/// that is not in `accepted` (e.g. `run` on a sweep file: "... this is a sweep file
/// (nvmesim.sweep/1), not a scenario; run it with 'nvmesim sweep PATH --out DIR'"). Does nothing
/// for accepted, missing and unrecognised paths and plain folders: the command's reader reports
/// those.
void require_file_kind(const std::string& path, std::initializer_list<FileKind> accepted, const std::string& wanted);

}  // namespace nvmesim
