#include "cli/file_kind.hpp"

#include <algorithm>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/errors.hpp"
#include "tools/dmesg_reader.hpp"

namespace nvmesim {

namespace {

constexpr size_t kSniffBytes = size_t{64} << 10;

// The first kSniffBytes of a regular file ("" for anything else, without blocking on a FIFO).
std::string head_of(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return "";
  struct stat st {};
  std::string head;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    head.resize(kSniffBytes);
    size_t got = 0;
    while (got < head.size()) {
      const ssize_t n = ::read(fd, &head[got], head.size() - got);
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    head.resize(got);
  }
  ::close(fd);
  return head;
}

// The string at head[i] (a '"'), unescaped only as far as needed to compare; moves i past it.
std::string string_at(const std::string& head, size_t& i) {
  std::string v;
  for (++i; i < head.size() && head[i] != '"'; ++i) {
    if (head[i] == '\\' && i + 1 < head.size()) ++i;
    if (v.size() < 64) v += head[i];
  }
  ++i;
  return v;
}

// The value of the top-level "schema" key in `head` (JSON with comments, or the first line of
// JSON Lines), or "". Keys of nested objects (a sweep's inline scenario) are not the file's.
std::string schema_in(const std::string& head) {
  int depth = 0;
  bool after_schema_key = false, want_colon = false;
  std::string last_key;
  for (size_t i = 0; i < head.size();) {
    const char c = head[i];
    if (c == '/' && i + 1 < head.size() && head[i + 1] == '/') {
      const size_t e = head.find('\n', i);
      i = e == std::string::npos ? head.size() : e + 1;
    } else if (c == '/' && i + 1 < head.size() && head[i + 1] == '*') {
      const size_t e = head.find("*/", i + 2);
      i = e == std::string::npos ? head.size() : e + 2;
    } else if (c == '"') {
      const std::string v = string_at(head, i);
      if (after_schema_key) return v;
      want_colon = depth == 1;
      last_key = v;
    } else if (c == ':') {
      after_schema_key = want_colon && last_key == "schema";
      want_colon = false;
      ++i;
    } else {
      if (c == '{' || c == '[') ++depth;
      if (c == '}' || c == ']') --depth;
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') after_schema_key = want_colon = false;
      if (depth <= 0 && (c == '}' || c == ']')) return "";
      ++i;
    }
  }
  return "";
}

bool exists_in(const std::string& dir, const char* name) {
  struct stat st {};
  return ::stat((dir + "/" + name).c_str(), &st) == 0;
}

struct Words {
  const char* what;  ///< "a sweep file (nvmesim.sweep/1)"
  const char* take;  ///< with PATH for the path
};

Words words(FileKind k) {
  switch (k) {
    case FileKind::scenario: return {"a scenario file (nvmesim.scenario/1)", "run it with 'nvmesim run PATH'"};
    case FileKind::sweep:
      return {"a sweep file (nvmesim.sweep/1)", "run it with 'nvmesim sweep PATH --out DIR', then 'nvmesim merge DIR --out summary.json'"};
    case FileKind::timeline:
      return {"a run's timeline (nvmesim.timeline/1, written by nvmesim run --out)",
              "plot it with scripts/plot_probe.py, plot_deltas.py or plot_timeline.py"};
    case FileKind::trials:
      return {"a run's trial records (nvmesim.trials/1, written by nvmesim run --out F.jsonl)",
              "plot it with scripts/plot_probe.py or plot_deltas.py"};
    case FileKind::dmesg_output:
      return {"the output of nvmesim dmesg (nvmesim.dmesg)", "overlay it with scripts/plot_probe.py RUN.json --real PATH"};
    case FileKind::sweep_summary:
      return {"a merged sweep summary (nvmesim.sweep-summary/1, written by nvmesim merge)",
              "plot it with scripts/plot_sweep.py PATH"};
    case FileKind::sweep_manifest:
      return {"a sweep folder's manifest (nvmesim.sweep-manifest/1)", "merge its folder with 'nvmesim merge DIR --out summary.json'"};
    case FileKind::kernel_log: return {"a kernel log", "read it with 'nvmesim dmesg PATH'"};
    case FileKind::sweep_folder:
      return {"a sweep folder (written by nvmesim sweep --out)", "merge it with 'nvmesim merge PATH --out summary.json'"};
    default: return {"", ""};
  }
}

std::string with_path(std::string s, const std::string& path) {
  for (size_t p = s.find("PATH"); p != std::string::npos; p = s.find("PATH", p + path.size())) s.replace(p, 4, path);
  return s;
}

}  // namespace

FileKind sniff_file_kind(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return FileKind::missing;
  if (S_ISDIR(st.st_mode))
    return exists_in(path, "manifest.json") || exists_in(path, "points") ? FileKind::sweep_folder : FileKind::folder;
  if (!S_ISREG(st.st_mode)) return FileKind::other;
  const std::string head = head_of(path);
  const std::string schema = schema_in(head);
  if (schema == "nvmesim.scenario/1") return FileKind::scenario;
  if (schema == "nvmesim.sweep/1") return FileKind::sweep;
  if (schema == "nvmesim.timeline/1") return FileKind::timeline;
  if (schema == "nvmesim.trials/1") return FileKind::trials;
  if (schema.rfind("nvmesim.dmesg/", 0) == 0) return FileKind::dmesg_output;
  if (schema == "nvmesim.sweep-summary/1") return FileKind::sweep_summary;
  if (schema == "nvmesim.sweep-manifest/1") return FileKind::sweep_manifest;
  if (looks_like_kernel_log(head)) return FileKind::kernel_log;
  return FileKind::other;
}

void require_file_kind(const std::string& path, std::initializer_list<FileKind> accepted, const std::string& wanted) {
  const FileKind k = sniff_file_kind(path);
  if (k == FileKind::missing || k == FileKind::other || k == FileKind::folder) return;
  if (std::find(accepted.begin(), accepted.end(), k) != accepted.end()) return;
  const Words w = words(k);
  throw InputError::in_source(path, std::string("this is ") + w.what + ", not " + wanted + "; " + with_path(w.take, path));
}

}  // namespace nvmesim
