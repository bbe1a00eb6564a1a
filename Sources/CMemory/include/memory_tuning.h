#ifndef MOLSHOT_MEMORY_TUNING_H
#define MOLSHOT_MEMORY_TUNING_H

#include <stddef.h>

/// Keeps allocations of up to 32 MB in the heap and the heap untrimmed below 256 MB, so that
/// buffers freed by one picture are reused by the next instead of being unmapped and mapped
/// again (glibc only; elsewhere it does nothing).
void molshot_keep_buffers_in_heap(void);

/// Grows the heap by `bytes` at once and asks the kernel to back it with transparent huge pages,
/// with every thread allocating from that one heap (glibc only; elsewhere it does nothing).
/// Returns how many bytes were advised (0 where the kernel or the heap would not).
size_t molshot_heap_in_huge_pages(size_t bytes);

#endif
