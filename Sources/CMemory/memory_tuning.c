#include "memory_tuning.h"
#include <stdlib.h> /* defines __GLIBC__ where it is glibc */
#if defined(__GLIBC__)
#include <malloc.h>
#endif

void molshot_keep_buffers_in_heap(void) {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 32 << 20); /* the most glibc takes */
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}
