// cli/operator_new.cpp, the global operator new of nvmesim and of this test binary (left out of,
// and this file with it, the sanitizer builds): while the shared libraries initialise, blocks of
// 2 MiB and more start on a 2 MiB boundary so that transparent huge pages can back them; from the
// program's own initialisers on, every block is plain malloc. Whether the kernel then gives huge
// pages depends on the machine, so that is measured in bench/results.md, not asserted here.
#include <catch2/catch.hpp>

#include <malloc.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <sstream>
#include <string>

#include "cli/operator_new.hpp"

namespace {

constexpr std::uintptr_t kTwoMiB = std::uintptr_t{2} << 20;  // 2 * 1024 * 1024 = 2,097,152 bytes

// The VmFlags line of the mapping in /proc/self/smaps that holds `address` ("" when none does).
// "hg" is there once madvise(MADV_HUGEPAGE) has marked the range, whatever the machine's THP
// setting (proc(5)).
std::string vm_flags_at(const void* address) {
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    std::uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') inside = lo <= a && a < hi;
    else if (inside && line.rfind("VmFlags:", 0) == 0) return line + " ";
  }
  return "";
}

int g_handler_calls = 0;
void give_up_handler() {  // a new_handler that has nothing to free: the next failure throws
  ++g_handler_calls;
  std::set_new_handler(nullptr);
}

}  // namespace

TEST_CASE("operator new: libsystemc's start-up buffer took the huge-page path, and nothing since does",
          "[operator_new]") {
  // libsystemc 2.3.4 (Debian) allocates one block of 2 MiB or more while it initialises: new
  // char[0x300000], 3 MiB (bench/results.md, stop 31). This binary links it, so by now that one
  // block went through huge_page_block. A libsystemc without it fails here: then the replacement
  // has nothing left to do and can go.
  CHECK(nvmesim::start_up_huge_page_blocks() == 1);
  // The program's own large blocks are plain malloc: the count stays, and the block works.
  char* block = new char[std::size_t{3} << 20];
  std::memset(block, 0xa5, std::size_t{3} << 20);
  CHECK(static_cast<unsigned char>(block[(std::size_t{3} << 20) - 1]) == 0xa5);
  delete[] block;
  CHECK(nvmesim::start_up_huge_page_blocks() == 1);
}

TEST_CASE("huge_page_block: 2 MiB-aligned blocks usable to their end - nullptr, not a wrapped size, past SIZE_MAX",
          "[operator_new]") {
  for (const std::size_t bytes : {std::size_t{1}, std::size_t{2} << 20, std::size_t{3} << 20, (std::size_t{5} << 20) + 1}) {
    CAPTURE(bytes);
    char* block = static_cast<char*>(nvmesim::huge_page_block(bytes));
    REQUIRE(block != nullptr);
    CHECK(reinterpret_cast<std::uintptr_t>(block) % kTwoMiB == 0);
    std::memset(block, 0xa5, bytes);
    CHECK(static_cast<unsigned char>(block[bytes - 1]) == 0xa5);
    // Rounded up to whole 2 MiB (3 MiB -> 4 MiB; glibc may give a little more, never less) and
    // advised: the mapping holding it is marked for huge pages.
    const std::size_t whole = (bytes + kTwoMiB - 1) / kTwoMiB * kTwoMiB;
    CHECK(malloc_usable_size(block) >= whole);
    if (std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled")) {
      // From the first byte to the last of the whole 2 MiB pages (without the rounding, the last
      // one's end lies outside the advised range).
      const std::string first = vm_flags_at(block), last = vm_flags_at(block + whole - 1);
      INFO("first byte: " << first << "; last byte of the whole 2 MiB: " << last);
      CHECK(first.find(" hg ") != std::string::npos);
      CHECK(last.find(" hg ") != std::string::npos);
    } else {
      WARN("this kernel has no transparent huge pages (no /sys/kernel/mm/transparent_hugepage): the advice is not checked");
    }
    std::free(block);
  }
  // SIZE_MAX - 1 rounded up to a multiple of 2 MiB would wrap to 0 and give a tiny block; the
  // largest size that does not wrap, SIZE_MAX - 2 MiB, is more than any machine has.
  CHECK(nvmesim::huge_page_block(SIZE_MAX - 1) == nullptr);
  CHECK(nvmesim::huge_page_block(SIZE_MAX - kTwoMiB + 1) == nullptr);
  CHECK(nvmesim::huge_page_block(SIZE_MAX - kTwoMiB) == nullptr);
}

TEST_CASE("operator new: small and empty blocks are distinct, usable blocks", "[operator_new]") {
  void* a = ::operator new(0);
  void* b = ::operator new(0);
  REQUIRE(a != nullptr);
  REQUIRE(b != nullptr);
  CHECK(a != b);
  char* c = static_cast<char*>(::operator new(100));
  std::memset(c, 1, 100);
  CHECK(c[99] == 1);
  ::operator delete(a);
  ::operator delete(b);
  ::operator delete(c, 100);
}

TEST_CASE("operator new: a request it cannot meet calls the new_handler, then throws bad_alloc", "[operator_new]") {
  // Read through a volatile, so that GCC does not see the constant (-Walloc-size-larger-than).
  volatile std::size_t opaque = SIZE_MAX - 1;
  const std::size_t too_big = opaque;
  g_handler_calls = 0;
  std::set_new_handler(give_up_handler);
  CHECK_THROWS_AS(::operator new(too_big), std::bad_alloc);
  CHECK(g_handler_calls == 1);
  CHECK(std::get_new_handler() == nullptr);
  // Without a handler it throws at once; nothrow new (libstdc++ calls this operator) gives nullptr.
  CHECK_THROWS_AS(::operator new(too_big), std::bad_alloc);
  CHECK(::operator new(too_big, std::nothrow) == nullptr);
}
