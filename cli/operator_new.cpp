// The program's replacement of the global operator new (C++17 [replacement.functions]). While
// the shared libraries run their static initialisers, before any of the program's own, a block of
// 2 MiB or more is aligned to 2 MiB, rounded up to whole 2 MiB and marked MADV_HUGEPAGE, so that
// the kernel backs it with transparent huge pages where it allows it
// (/sys/kernel/mm/transparent_hugepage/enabled "madvise" or "always"). From the program's own
// initialisers on, every block is plain malloc: what the program allocates while it runs is
// untouched (no padding, no change in how a memory limit is met). Linked into the nvmesim and
// nvmesim_tests executables directly (not through a static library, whose member would only be
// pulled in by chance), and left out of the sanitizer and fuzz builds, whose runtimes replace
// operator new themselves.
//
// Why: libsystemc 2.3.4's static initialisers allocate a 3 MiB buffer with new[] and zero it, in
// every process, before main. With 4 KiB pages that is 768 page faults, about 9 ms of CPU on the
// development VM: half of the start-up of every `nvmesim` process (the sweep's serial part, each
// Slurm array task, each test). With huge pages it is two faults. Measured in bench/results.md
// (issue 15 item 5). Where the kernel gives no huge pages, madvise fails or does nothing and the
// block behaves as before.
//
// Cost: that one buffer takes two whole 2 MiB pages (4 MiB resident instead of 3) and about 6 MiB
// of address space instead of 3 (posix_memalign's alignment slack), before main.
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <new>

#include "cli/operator_new.hpp"

// GCC defines __SANITIZE_ADDRESS__; clang (the asan preset's clang-14) answers __has_feature.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#error "cli/operator_new.cpp is not for sanitizer builds: CMakeLists.txt leaves it out of them"
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#error "cli/operator_new.cpp is not for sanitizer builds: CMakeLists.txt leaves it out of them"
#endif
#endif

namespace {

constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;  // an x86-64 PMD-mapped page, 2 MiB

// True from the start (constant initialisation precedes every dynamic initialiser) until this
// file's own dynamic initialiser below runs: ld.so initialises a program's shared libraries
// before the program, so that is after libsystemc's and before main.
bool g_libraries_starting = true;
int g_start_up_huge_blocks = 0;
[[maybe_unused]] const bool g_program_started = [] {
  g_libraries_starting = false;
  return true;
}();

}  // namespace

namespace nvmesim {

void* huge_page_block(std::size_t bytes) noexcept {
  if (bytes > SIZE_MAX - kHugePageBytes) return nullptr;  // rounding up would wrap
  const std::size_t rounded_bytes = (bytes + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  void* block = nullptr;
  if (posix_memalign(&block, kHugePageBytes, rounded_bytes) != 0) return nullptr;
  (void)madvise(block, rounded_bytes, MADV_HUGEPAGE);  // advice only: no huge pages is not an error
  return block;
}

int start_up_huge_page_blocks() { return g_start_up_huge_blocks; }

}  // namespace nvmesim

namespace {

/// One attempt: nullptr when the C library has no memory for `bytes`.
void* try_allocate(std::size_t bytes) noexcept {
  if (!g_libraries_starting || bytes < kHugePageBytes) return std::malloc(bytes == 0 ? 1 : bytes);
  void* block = nvmesim::huge_page_block(bytes);
  if (block != nullptr) ++g_start_up_huge_blocks;
  return block;
}

}  // namespace

/// Replaces the global operator new. Behaves as the standard's (C++17 [new.delete.single]): on
/// failure calls the installed new_handler and tries again, or throws std::bad_alloc when there
/// is none. libstdc++'s other forms (new[], nothrow) call this one; its aligned forms do not
/// and keep their own allocation, which the deletes below never see.
void* operator new(std::size_t bytes) {
  for (;;) {
    if (void* block = try_allocate(bytes)) return block;
    const std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) throw std::bad_alloc();
    handler();
  }
}

/// The matching deletes: every block above came from malloc or posix_memalign.
void operator delete(void* block) noexcept { std::free(block); }
void operator delete(void* block, std::size_t) noexcept { std::free(block); }
