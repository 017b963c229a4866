#pragma once
// cli/operator_new.cpp: the program's global operator new, which puts the shared libraries'
// large start-up blocks (libsystemc's 3 MiB buffer) on transparent huge pages.

#include <cstddef>

namespace nvmesim {

/// The start-up path of the replaced operator new: a block of at least `bytes` from
/// posix_memalign, aligned to 2 MiB, its length rounded up to whole 2 MiB and marked
/// MADV_HUGEPAGE (advice: where the kernel gives no huge pages the block is an ordinary one).
/// nullptr when there is no memory, or when rounding `bytes` up would pass SIZE_MAX. Freed with
/// std::free (or operator delete).
void* huge_page_block(std::size_t bytes) noexcept;

/// How many blocks of 2 MiB or more the replaced operator new put on 2 MiB boundaries while the
/// shared libraries initialised (libsystemc 2.3.4: 1). Never changes after that: the program's
/// own allocations are plain malloc. Defined only where cli/operator_new.cpp is linked (not in
/// the sanitizer and fuzz builds).
int start_up_huge_page_blocks();

}  // namespace nvmesim
