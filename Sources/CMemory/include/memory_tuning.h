#ifndef MOLSHOT_MEMORY_TUNING_H
#define MOLSHOT_MEMORY_TUNING_H

#include <stddef.h>

/// Keeps allocations of up to 32 MB in the heap and the heap untrimmed below 256 MB, so that
/// buffers freed by one picture are reused by the next instead of being unmapped and mapped
/// again (glibc only; elsewhere it does nothing).
void molshot_keep_buffers_in_heap(void);

/// For a long-running server: buffers of 1 MB and more are mapped apart and unmapped when freed,
/// the heap is trimmed past 32 MB free, so that memory a
/// large request took goes back to the system when it is done (glibc only).
void molshot_return_large_buffers(void);

/// Gives free memory of every arena back to the system (glibc's malloc_trim); returns whether any was.
int molshot_trim_heap(void);

/// Grows the heap by `bytes` at once and asks the kernel to back it with transparent huge pages,
/// with every thread allocating from that one heap (glibc only; elsewhere it does nothing).
/// Returns how many bytes were advised (0 where the kernel or the heap would not).
size_t molshot_heap_in_huge_pages(size_t bytes);

/// Lowers the calling thread's scheduling priority to `nice` (0 to 19, Linux); 0 where it did.
int molshot_lower_thread_priority(int nice);

/// Asks for the cache line holding `address` ahead of its read (a hint; it never faults).
static inline void molshot_prefetch(const void *address) { __builtin_prefetch(address); }

#endif
