#include "host/host_memory.hpp"

#include <cstring>

#include "models/nvme_regs.hpp"
#include "models/sim_time.hpp"

namespace nvmesim {

host_memory::host_memory(sc_core::sc_module_name name) : sc_module(name), target("target") {
  target.register_b_transport(this, &host_memory::b_transport);
}

void host_memory::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  const uint64_t addr = trans.get_address();
  const uint32_t len = trans.get_data_length();
  if (addr == regs::platform::kMsixAddress && trans.is_write()) {
    last_irq_ps_ = add_ps(sim_now_ps(), static_cast<int64_t>(delay.value()));
    irq.notify(delay);
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  if (addr + len > hostmem::kSize || addr + len < addr) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  if (trans.is_read()) {
    settle(addr, len);
    std::memcpy(trans.get_data_ptr(), bytes_.data() + addr, len);
  } else {
    overwrite(addr, len);
    std::memcpy(bytes_.data() + addr, trans.get_data_ptr(), len);
    if (addr >= hostmem::kAdminCq && addr < hostmem::kAdminCq + 16 * kAdminCqEntries)
      cqe_written_ps_[(addr - hostmem::kAdminCq) / 16] = add_ps(sim_now_ps(), static_cast<int64_t>(delay.value()));
    if (watch_cq_writes && addr < hostmem::kIdentify && addr + len > hostmem::kAdminCq) cq_write.notify(delay);
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace nvmesim
