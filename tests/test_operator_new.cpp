// cli/operator_new.cpp, the global operator new of nvmesim and of this test binary (left out of,
// and this file with it, the sanitizer builds): blocks of 2 MiB and more start on a 2 MiB boundary
// so that transparent huge pages can back them; everything else is the standard's behaviour.
// Whether the kernel then gives huge pages depends on the machine, so that is measured in
// bench/results.md, not asserted here.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <new>

namespace {

constexpr std::uintptr_t kTwoMiB = std::uintptr_t{2} << 20;  // 2 * 1024 * 1024 = 2,097,152 bytes

int g_handler_calls = 0;
void give_up_handler() {  // a new_handler that has nothing to free: the next failure throws
  ++g_handler_calls;
  std::set_new_handler(nullptr);
}

}  // namespace

TEST_CASE("operator new: a block of 2 MiB or more starts on a 2 MiB boundary and is usable to its end",
          "[operator_new]") {
  // libsystemc's start-up buffer is new char[0x300000] (3 MiB); std::vector growth reaches the
  // same operator through the allocator.
  for (const std::size_t bytes : {std::size_t{2} << 20, std::size_t{3} << 20, (std::size_t{5} << 20) + 1}) {
    CAPTURE(bytes);
    char* block = static_cast<char*>(::operator new(bytes));
    CHECK(reinterpret_cast<std::uintptr_t>(block) % kTwoMiB == 0);
    std::memset(block, 0xa5, bytes);  // every byte writable (ASan is not here to say so: the last one is read back)
    CHECK(static_cast<unsigned char>(block[bytes - 1]) == 0xa5);
    ::operator delete(block);
  }
  char* array = new char[std::size_t{3} << 20];  // new[] goes through the replaced operator new
  CHECK(reinterpret_cast<std::uintptr_t>(array) % kTwoMiB == 0);
  delete[] array;
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

TEST_CASE("operator new: a request it cannot meet calls the new_handler, then throws bad_alloc, and never "
          "wraps the size when it rounds up to 2 MiB",
          "[operator_new]") {
  // SIZE_MAX - 1 rounded up to a multiple of 2 MiB would wrap to 0 and give a tiny block.
  g_handler_calls = 0;
  std::set_new_handler(give_up_handler);
  CHECK_THROWS_AS(::operator new(SIZE_MAX - 1), std::bad_alloc);
  CHECK(g_handler_calls == 1);
  CHECK(std::get_new_handler() == nullptr);
  // Without a handler it throws at once; nothrow new (libstdc++ calls this operator) gives nullptr.
  CHECK_THROWS_AS(::operator new(SIZE_MAX - kTwoMiB + 1), std::bad_alloc);
  CHECK(::operator new(SIZE_MAX - 1, std::nothrow) == nullptr);
}
