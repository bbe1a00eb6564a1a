#ifndef MOLSHOT_MEMORY_TUNING_H
#define MOLSHOT_MEMORY_TUNING_H

/// Keeps allocations of up to 32 MB in the heap and the heap untrimmed below 256 MB, so that
/// buffers freed by one picture are reused by the next instead of being unmapped and mapped
/// again (glibc only; elsewhere it does nothing).
void molshot_keep_buffers_in_heap(void);

#endif
