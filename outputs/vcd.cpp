#include "outputs/vcd.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "core/signals.hpp"
#include "core/version.hpp"

namespace nvmesim {

VcdSink::VcdSink(const std::string& path) {
  out_ = std::make_unique<AtomicFile>(path);
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  tmp_base_ = dir + "." + base + ".sc." + std::to_string(::getpid());
  // Registered before SystemC creates it: a second SIGINT/SIGTERM, which ends the process at
  // once, removes it with the other temporaries (issue 16 item 21).
  tmp_slot_ = register_temp_file(tmp_base_ + ".vcd");
  tf_ = sc_core::sc_create_vcd_trace_file(tmp_base_.c_str());
  if (!tf_) {
    unregister_temp_file(tmp_slot_);
    throw IoError(path + ": cannot create the SystemC trace file");
  }
  tf_->set_time_unit(1, sc_core::SC_PS);
}

VcdSink::~VcdSink() { close_trace(); }

void VcdSink::close_trace() noexcept {
  if (tf_) sc_core::sc_close_vcd_trace_file(tf_);
  tf_ = nullptr;
  std::remove((tmp_base_ + ".vcd").c_str());
  unregister_temp_file(tmp_slot_);
  tmp_slot_ = -1;
}

void VcdSink::abort() noexcept {
  close_trace();
  out_.reset();
}

std::string normalise_vcd_header(const std::string& vcd) {
  std::string s = vcd;
  auto replace_section = [&](const std::string& key, const std::string& text) {
    const size_t a = s.find(key);
    if (a == std::string::npos) return;
    const size_t b = s.find("$end", a);
    if (b == std::string::npos) return;
    s.replace(a + key.size(), b - a - key.size(), "\n     " + text + "\n");
  };
  replace_section("$date", "(no date: nvmesim outputs are reproducible)");
  replace_section("$version", std::string("nvmesim ") + kVersion + " via SystemC sc_trace");
  return s;
}

void VcdSink::prepare(const RunReport&) {
  sc_core::sc_close_vcd_trace_file(tf_);
  tf_ = nullptr;
  const std::string tmp = tmp_base_ + ".vcd";
  std::ifstream in(tmp, std::ios::binary);
  if (!in) throw IoError(out_->path() + ": cannot read SystemC's trace file back");
  // Streamed in blocks (the trace grows with the trials: never held whole). The header's $date
  // and $version sections come first, before $enddefinitions: normalise the text up to it.
  std::string head;
  std::string block(1 << 16, '\0');
  bool header_done = false;
  while (in.read(block.data(), static_cast<std::streamsize>(block.size())) || in.gcount() > 0) {
    const auto n = static_cast<size_t>(in.gcount());
    if (header_done) {
      out_->write(block.data(), n);
      continue;
    }
    head.append(block.data(), n);
    const size_t end = head.find("$enddefinitions");
    if (end == std::string::npos && head.size() < (size_t{1} << 26)) continue;
    const size_t cut = end == std::string::npos ? head.size() : end;
    out_->write(normalise_vcd_header(head.substr(0, cut)));
    out_->write(head.data() + cut, head.size() - cut);
    head.clear();
    header_done = true;
  }
  if (in.bad()) throw IoError(out_->path() + ": cannot read SystemC's trace file back");
  if (!header_done) out_->write(normalise_vcd_header(head));
  out_->finish();
  close_trace();  // removes SystemC's temporary
}

void VcdSink::commit() { out_->publish(); }

}  // namespace nvmesim
