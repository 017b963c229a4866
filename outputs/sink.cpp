#include "outputs/sink.hpp"

namespace nvmesim {

void FileSink::prepare(const RunReport& report) {
  write_end(report);
  file_->finish();
}

bool SinkSet::wants_events(size_t variant, uint64_t trial) const {
  for (const auto& s : sinks_)
    if (s->wants_events(variant, trial)) return true;
  return false;
}

void SinkSet::on_trial(const TrialRequest& req, const TrialResult& res) {
  for (const auto& s : sinks_) s->on_trial(req, res);
}

void SinkSet::on_variant(size_t index, const VariantReport& report) {
  for (const auto& s : sinks_) s->on_variant(index, report);
}

void SinkSet::commit(const RunReport& report) {
  try {
    for (const auto& s : sinks_) s->prepare(report);
  } catch (...) {
    for (const auto& s : sinks_) s->abort();
    throw;
  }
  for (const auto& s : sinks_) s->commit();
}

}  // namespace nvmesim
