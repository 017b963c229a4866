#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string>

#include "core/duration.hpp"
#include "host/registry.hpp"
#include "scenario/loader_parts.hpp"

namespace nvmesim::scenario_detail {

using ojson = nlohmann::ordered_json;
using Node = JsonNode;

namespace {

uint8_t hex_nibble_or_fail(const Node& n, char c) {
  if (c >= '0' && c <= '9') return static_cast<uint8_t>(c - '0');
  if (c >= 'a' && c <= 'f') return static_cast<uint8_t>(c - 'a' + 10);
  if (c >= 'A' && c <= 'F') return static_cast<uint8_t>(c - 'A' + 10);
  n.fail("must be a hex string such as \"0x1d0f\"");
}

std::string read_pci_id(const Node& n) {
  const std::string s = n.str();
  if (s.size() != 9 || s[4] != ':') n.fail("must be \"vendor:device\" in hex, e.g. \"1d0f:8061\"");
  for (size_t i = 0; i < s.size(); ++i)
    if (i != 4) hex_nibble_or_fail(n, s[i]);
  std::string lower = s;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower;
}

HostParams read_host(const Node& n) {
  HostParams h;
  std::string kernel = "5.7";
  if (n.json().is_null()) n.fail("must be an object");
  n.require_object({"kernel", "hz", "highres", "tick", "wakeup_latency", "background_irq_rate_hz",
                    "init_to_probe", "driver", "overrides", "cpus", "max_polls_per_wait", "shutdown_timeout_s",
                    "async_shutdown", "shutdown_notification", "bad_config", "max_events_per_trial"});
  if (n.has("kernel")) {
    const Node k = n.at("kernel");
    if (k.json().is_number())
      k.fail("must be a string such as \"5.7\" (as a JSON number 6.10 would read as 6.1; with --set, "
             "quote it: --set '/host/kernel=\"6.10\"')");
    kernel = k.str();
    try {
      h.kernel = KernelVersion::parse(kernel);
      h.profile = profile_for(h.kernel);
    } catch (const std::invalid_argument& e) {
      k.fail(e.what());
    }
  } else {
    h.kernel = KernelVersion::parse(kernel);
    h.profile = profile_for(h.kernel);
  }
  if (n.has("hz")) {
    const Node hz = n.at("hz");
    const int64_t v = hz.integer(1, 10000);
    if (v != 100 && v != 250 && v != 300 && v != 1000) hz.fail("must be one of 100, 250, 300, 1000 (CONFIG_HZ)");
    h.timers.hz = static_cast<int>(v);
  }
  if (n.has("highres")) h.timers.highres = n.at("highres").boolean();
  if (n.has("tick"))
    h.timers.tick = n.at("tick").choice(kTickModeNames);
  if (n.has("wakeup_latency")) h.wakeup_latency = read_distribution(n.at("wakeup_latency"));
  if (n.has("background_irq_rate_hz")) h.timers.background_irq_rate_hz = n.at("background_irq_rate_hz").number(0, 1e7);
  if (n.has("init_to_probe")) h.init_to_probe = read_distribution(n.at("init_to_probe"));
  if (n.has("driver")) h.driver = n.at("driver").choice(host_driver_choices());
  if (n.has("cpus")) h.cpus = static_cast<uint32_t>(n.at("cpus").integer(1, 65536));
  if (n.has("max_polls_per_wait")) h.max_polls_per_wait = static_cast<uint64_t>(n.at("max_polls_per_wait").integer(1, 1'000'000'000));
  if (n.has("max_events_per_trial"))
    h.max_events_per_trial = static_cast<uint64_t>(n.at("max_events_per_trial").integer(1, 1'000'000'000));
  if (n.has("overrides")) {
    const Node o = n.at("overrides");
    o.require_object({"poll", "shutdown_poll", "deadline", "enable_timeout", "crime", "cc_sequence", "crto_warning",
                      "msleep_extra_jiffy", "fsleep_613", "csts_in_message", "queues_line", "shutdown_wait",
                      "delay_quirk_ids", "delay_quirk_model_rule", "flr_retry"});
    auto policy = [](const Node& p) {
      try {
        return SleepPolicy::parse(p.str());
      } catch (const std::invalid_argument& e) {
        p.fail(e.what());
      }
    };
    KernelProfile& pr = h.profile;
    if (o.has("poll")) pr.poll = policy(o.at("poll"));
    if (o.has("shutdown_poll")) pr.shutdown_poll = policy(o.at("shutdown_poll"));
    auto pick = [&](const char* key, auto& field, const auto& names) {
      if (o.has(key)) field = o.at(key).choice(names);
    };
    pick("deadline", pr.deadline, kDeadlineFormNames);
    pick("enable_timeout", pr.enable_timeout, kEnableTimeoutNames);
    pick("crime", pr.crime, kCrimeRuleNames);
    pick("cc_sequence", pr.cc_sequence, kCcSequenceNames);
    pick("shutdown_wait", pr.shutdown_wait, kShutdownWaitNames);
    for (auto [key, field] : {std::pair<const char*, bool*>{"crto_warning", &pr.crto_warning},
                              {"msleep_extra_jiffy", &pr.timer.msleep_extra_jiffy},
                              {"fsleep_613", &pr.timer.fsleep_613},
                              {"csts_in_message", &pr.csts_in_message},
                              {"queues_line", &pr.queues_line},
                              {"delay_quirk_model_rule", &pr.delay_quirk_model_rule},
                              {"flr_retry", &pr.flr_retry}})
      if (o.has(key)) *field = o.at(key).boolean();
    if (o.has("delay_quirk_ids")) {
      const Node ids = o.at("delay_quirk_ids");
      pr.delay_quirk_ids.clear();
      for (size_t i = 0; i < ids.array().size(); ++i) pr.delay_quirk_ids.push_back(read_pci_id(ids.at(i)));
    }
  }
  if (n.has("shutdown_timeout_s"))
    h.shutdown_timeout_s = static_cast<uint32_t>(n.at("shutdown_timeout_s").integer(0, 3600));
  if (n.has("async_shutdown")) h.async_shutdown = n.at("async_shutdown").boolean();
  if (n.has("shutdown_notification"))
    h.abrupt_shutdown = n.at("shutdown_notification").choice<bool>({{"normal", false}, {"abrupt", true}});
  if (n.has("bad_config")) {
    const Node b = n.at("bad_config");
    b.require_object({"mps", "asq_misaligned", "aqa_zero", "skip_admin_queue"});
    if (b.has("mps")) h.bad_config.mps = static_cast<int>(b.at("mps").integer(0, 15));
    if (b.has("asq_misaligned")) h.bad_config.asq_misaligned = b.at("asq_misaligned").boolean();
    if (b.has("aqa_zero")) h.bad_config.aqa_zero = b.at("aqa_zero").boolean();
    if (b.has("skip_admin_queue")) h.bad_config.skip_admin_queue = b.at("skip_admin_queue").boolean();
  }
  return h;
}

LinkParams read_link(const Node& n) {
  LinkParams l;
  n.require_object({"preset", "generation", "width", "one_way", "write_stall"});
  if (n.has("preset")) {
    // A guest with an emulated NVMe device: every MMIO access exits to the VMM, so a CSTS read
    // takes 5-6 us round trip (nvme-registers.md, measured values) and a write stalls as long.
    // Explicit keys beside the preset override its values.
    n.at("preset").choice<int>({{"bare-metal", 0}, {"vm-emulated", 1}});
    if (n.at("preset").str() == "vm-emulated") {
      l.one_way = Distribution::uniform(2'500'000, 2'950'000);
      l.write_stall = Distribution::uniform(5'000'000, 6'000'000);
    }
  }
  if (n.has("write_stall")) l.write_stall = read_distribution(n.at("write_stall"));
  if (n.has("generation")) l.generation = static_cast<int>(n.at("generation").integer(1, 5));
  if (n.has("width")) {
    const Node w = n.at("width");
    const int64_t v = w.integer(1, 32);
    if (v != 1 && v != 2 && v != 4 && v != 8 && v != 16 && v != 32) w.fail("must be 1, 2, 4, 8, 16 or 32 lanes");
    l.width = static_cast<int>(v);
  }
  if (n.has("one_way")) l.one_way = read_distribution(n.at("one_way"));
  return l;
}

ControllerParams read_controller(const Node& n, uint32_t& count) {
  ControllerParams c;
  n.require_object({"name", "count", "pci_id", "pci_address", "clock", "read_cycles", "write_cycles", "cap",
                    "vs", "crto", "handoff", "enable_latency", "disable_latency", "shutdown_latency",
                    "abrupt_shutdown_latency", "media_latency", "admin", "io_queues", "identify", "faults"});
  count = 1;
  if (n.has("count")) count = static_cast<uint32_t>(n.at("count").integer(1, kMaxControllers));
  if (n.has("name")) c.label = n.at("name").str();
  if (n.has("pci_id")) c.pci_id = read_pci_id(n.at("pci_id"));
  if (n.has("pci_address")) c.pci_address = n.at("pci_address").str();
  if (n.has("clock")) {
    try {
      c.clock_period_ps = parse_clock_period_ps(n.at("clock").str());
    } catch (const ParseError& e) {
      n.at("clock").fail(e.what());
    }
  }
  if (n.has("read_cycles")) c.read_cycles = static_cast<uint32_t>(n.at("read_cycles").integer(0, 1'000'000));
  if (n.has("write_cycles")) c.write_cycles = static_cast<uint32_t>(n.at("write_cycles").integer(0, 1'000'000));
  c.cap.mqes = 1023;
  c.cap.to = 30;
  c.cap.css = 0x01;
  if (n.has("cap") && n.at("cap").json().is_string()) {
    // The raw register as `nvme show-regs` prints it, decoded by models/nvme_regs.hpp.
    const Node cap = n.at("cap");
    uint64_t raw = 0;
    if (!regs::parse_hex(cap.str(), 64, raw))
      cap.fail("must be an object of CAP fields or the 64-bit register in hex, e.g. \"0x4028033fff\" or \"4028033fff\"");
    c.cap = regs::Cap::decode(raw);
    if (c.cap.mqes == 0) cap.fail("CAP.MQES is 0 (a queue needs at least 2 entries)");
    if (c.cap.mpsmin > c.cap.mpsmax) cap.fail("CAP.MPSMIN > CAP.MPSMAX");
  } else if (n.has("cap")) {
    const Node cap = n.at("cap");
    cap.require_object({"to", "mqes", "dstrd", "nssrs", "mpsmin", "mpsmax", "crms"});
    if (cap.has("to")) c.cap.to = static_cast<uint8_t>(cap.at("to").integer(0, 255));
    if (cap.has("mqes")) c.cap.mqes = static_cast<uint16_t>(cap.at("mqes").integer(1, 65535));
    if (cap.has("dstrd")) c.cap.dstrd = static_cast<uint8_t>(cap.at("dstrd").integer(0, 15));
    if (cap.has("nssrs")) c.cap.nssrs = cap.at("nssrs").boolean();
    if (cap.has("mpsmin")) c.cap.mpsmin = static_cast<uint8_t>(cap.at("mpsmin").integer(0, 15));
    if (cap.has("mpsmax")) c.cap.mpsmax = static_cast<uint8_t>(cap.at("mpsmax").integer(0, 15));
    if (c.cap.mpsmin > c.cap.mpsmax) cap.fail("mpsmin must be <= mpsmax");
    if (cap.has("crms")) {
      const Node crms = cap.at("crms");
      crms.require_object({"crwms", "crims"});
      if (crms.has("crwms")) c.cap.crwms = crms.at("crwms").boolean();
      if (crms.has("crims")) c.cap.crims = crms.at("crims").boolean();
    }
  }
  if (n.has("vs")) {
    const Node vs = n.at("vs");
    const std::string s = vs.str();
    unsigned a = 0, b = 0, t = 0;
    char tail = 0;
    if (std::sscanf(s.c_str(), "%u.%u.%u%c", &a, &b, &t, &tail) != 3 || a > 65535 || b > 255 || t > 255)
      vs.fail("must be \"MAJOR.MINOR.TERTIARY\", e.g. \"1.4.0\"");
    c.vs = regs::Vs{static_cast<uint16_t>(a), static_cast<uint8_t>(b), static_cast<uint8_t>(t)};
  }
  if (n.has("crto") && n.at("crto").json().is_string()) {
    const Node crto = n.at("crto");
    uint64_t raw = 0;
    if (!regs::parse_hex(crto.str(), 32, raw))
      crto.fail("must be an object {crwmt, crimt} or the 32-bit register in hex, e.g. \"0x00280014\"");
    c.crto = regs::Crto::decode(static_cast<uint32_t>(raw));
  } else if (n.has("crto")) {
    const Node crto = n.at("crto");
    crto.require_object({"crwmt", "crimt"});
    if (crto.has("crwmt")) c.crto.crwmt = static_cast<uint16_t>(crto.at("crwmt").integer(0, 65535));
    if (crto.has("crimt")) c.crto.crimt = static_cast<uint16_t>(crto.at("crimt").integer(0, 65535));
  }
  if (n.has("handoff"))
    c.handoff = n.at("handoff").choice(kHandoffNames);
  if (n.has("enable_latency")) c.enable_latency = read_distribution(n.at("enable_latency"));
  if (n.has("disable_latency")) c.disable_latency = read_distribution(n.at("disable_latency"));
  if (n.has("shutdown_latency")) c.shutdown_latency = read_distribution(n.at("shutdown_latency"));
  c.abrupt_shutdown_latency = c.shutdown_latency;
  if (n.has("abrupt_shutdown_latency")) c.abrupt_shutdown_latency = read_distribution(n.at("abrupt_shutdown_latency"));
  if (n.has("media_latency")) c.media_latency = read_distribution(n.at("media_latency"));
  if (n.has("admin")) {
    const Node a = n.at("admin");
    a.require_object({"identify", "set_features", "create_queue"});
    if (a.has("identify")) c.admin.identify = read_distribution(a.at("identify"));
    if (a.has("set_features")) c.admin.set_features = read_distribution(a.at("set_features"));
    if (a.has("create_queue")) c.admin.create_queue = read_distribution(a.at("create_queue"));
  }
  if (n.has("io_queues")) c.io_queues = static_cast<uint32_t>(n.at("io_queues").integer(1, kMaxIoQueues));
  if (n.has("identify")) {
    const Node id = n.at("identify");
    id.require_object({"model", "rtd3e"});
    if (id.has("model")) {
      c.model = id.at("model").str();
      if (c.model.size() > 40) id.at("model").fail("Identify MN holds at most 40 characters");
    }
    if (id.has("rtd3e")) {
      const int64_t ps = id.at("rtd3e").duration_ps();
      if (ps / 1000000 > 0xFFFFFFFFll) id.at("rtd3e").fail("RTD3E is a 32-bit count of microseconds (at most 4294s)");
      c.rtd3e_us = ps / 1000000;
    }
  }
  if (n.has("faults")) {
    const Node f = n.at("faults");
    f.require_object({"never_ready", "cfs_on_enable", "all_ones", "ignore_enable_before_admin_queue", "stuck_ready"});
    if (f.has("never_ready")) c.faults.never_ready = f.at("never_ready").boolean();
    if (f.has("cfs_on_enable")) c.faults.cfs_on_enable = f.at("cfs_on_enable").number(0, 1);
    if (f.has("all_ones")) {
      const Node a = f.at("all_ones");
      a.require_object({"from", "for"});
      c.faults.all_ones.active = true;
      if (a.has("from")) c.faults.all_ones.from_ps = a.at("from").duration_ps();
      if (a.has("for")) c.faults.all_ones.for_ps = a.at("for").duration_ps();
    }
    if (f.has("ignore_enable_before_admin_queue"))
      c.faults.ignore_enable_before_admin_queue = f.at("ignore_enable_before_admin_queue").boolean();
    if (f.has("stuck_ready")) c.faults.stuck_ready = f.at("stuck_ready").boolean();
  }
  return c;
}

}  // namespace

Variant read_variant(const Node& root, const std::string& name) {
  Variant v;
  v.name = name;
  v.host = root.has("host") ? read_host(root.at("host")) : read_host(Node(ojson::object(), "", "/host"));
  if (root.has("link")) v.link = read_link(root.at("link"));
  if (!root.has("controllers")) root.fail("needs \"controllers\": a list with at least one controller");
  const Node cs = root.at("controllers");
  if (cs.array().empty()) cs.fail("needs at least one controller");
  uint32_t total = 0;
  for (size_t i = 0; i < cs.json().size(); ++i) {
    uint32_t count = 1;
    ControllerParams c = read_controller(cs.at(i), count);
    if (total + count > kMaxControllers)
      cs.at(i).fail("too many controllers: at most " + std::to_string(kMaxControllers) + " in all");
    for (uint32_t k = 0; k < count; ++k) {
      ControllerParams copy = c;
      const uint32_t index = total + k;
      if (copy.label.empty()) copy.label = "nvme" + std::to_string(index);
      if (!cs.at(i).has("pci_address") || count > 1) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "0000:%02x:00.0", (4 + index) & 0xFF);
        if (!cs.at(i).has("pci_address")) copy.pci_address = buf;
        else if (k > 0) copy.pci_address = c.pci_address + "+" + std::to_string(k);
      }
      v.controllers.push_back(std::move(copy));
    }
    total += count;
  }
  if (root.has("workload"))
    v.workload = root.at("workload").choice(kWorkloadNames);
  return v;
}

}  // namespace nvmesim::scenario_detail
