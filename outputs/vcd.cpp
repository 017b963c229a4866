#include "outputs/vcd.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "core/version.hpp"

namespace nvmesim {

VcdSink::VcdSink(const std::string& path) {
  out_ = std::make_unique<AtomicFile>(path);
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  tmp_base_ = dir + "." + base + ".sc." + std::to_string(::getpid());
  tf_ = sc_core::sc_create_vcd_trace_file(tmp_base_.c_str());
  if (!tf_) throw IoError(path + ": cannot create the SystemC trace file");
  tf_->set_time_unit(1, sc_core::SC_PS);
}

VcdSink::~VcdSink() { close_trace(); }

void VcdSink::close_trace() noexcept {
  if (tf_) sc_core::sc_close_vcd_trace_file(tf_);
  tf_ = nullptr;
  std::remove((tmp_base_ + ".vcd").c_str());
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
  std::ostringstream ss;
  ss << in.rdbuf();
  out_->write(normalise_vcd_header(ss.str()));
  out_->finish();
  std::remove(tmp.c_str());
}

void VcdSink::commit() { out_->publish(); }

}  // namespace nvmesim
