#pragma once
// VCD waveforms (`--vcd FILE`, DESIGN section 8) written through sc_trace, for GTKWave.
//
// Signals (see nvme_system::trace): per controller N nvmeN.CC_EN, nvmeN.CSTS_RDY, nvmeN.CSTS_CFS,
// nvmeN.CSTS_SHST (2 bits) and nvmeN.host_state (4 bits, HostState in host/driver.hpp), and
// `trial` and `variant` (32-bit integers). The file covers every trial of the run, back to back
// on the simulation's own time axis (1 ps timescale): trials run one after another in one
// elaboration, each starting where the previous one ended; `trial` and `variant` tell them apart.
// Its size grows with the number of value changes (about 20 per trial and controller), never
// with simulated time. SystemC's $date and $version header lines are replaced by fixed text so
// that the same run gives the same bytes.
#include <memory>
#include <string>

#include <systemc>

#include "core/atomic_file.hpp"
#include "outputs/sink.hpp"

namespace nvmesim {

/// The VCD file as a sink. Its values come through sc_trace, not through on_trial: the engine
/// adds the system's signals to file() before sc_start.
class VcdSink : public TrialSink {
 public:
  /// Opens the output (IoError when its folder is not writable) and SystemC's trace file, a
  /// temporary beside it. Call before sc_start.
  explicit VcdSink(const std::string& path);
  ~VcdSink() override;
  VcdSink(const VcdSink&) = delete;
  VcdSink& operator=(const VcdSink&) = delete;
  sc_core::sc_trace_file* file() const { return tf_; }
  void on_trial(const TrialRequest&, const TrialResult&) override {}
  /// After sc_start: closes the trace, copies it block by block into the output's temporary
  /// with its header normalised, syncs it and removes SystemC's temporary. Throws IoError.
  void prepare(const RunReport& report) override;
  /// Renames the output into place. Throws IoError.
  void commit() override;
  void abort() noexcept override;

 private:
  void close_trace() noexcept;
  std::unique_ptr<AtomicFile> out_;
  std::string tmp_base_;  // SystemC appends ".vcd"
  int tmp_slot_ = -1;     // register_temp_file slot of tmp_base_ + ".vcd"
  sc_core::sc_trace_file* tf_ = nullptr;
};

/// Replaces the contents of the $date and $version sections of VCD text with fixed text.
std::string normalise_vcd_header(const std::string& vcd);

}  // namespace nvmesim
