#include "memory_tuning.h"
#include <stdint.h>
#include <stdlib.h> /* defines __GLIBC__ where it is glibc */
#if defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#endif

void molshot_keep_buffers_in_heap(void) {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 32 << 20); /* the most glibc takes */
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

void molshot_return_large_buffers(void) {
#if defined(__GLIBC__)
    /* Fixed (no longer raised by each free of a mapped block) at 8 MB: a live frame's buffers
     * (512 px drawn at 2 x 2 samples: depths, ids and colours of 4 MB each) stay in the heap and
     * are reused frame after frame. At 1 MB each frame mapped them anew and the kernel zeroed
     * every page at its first touch: 3,300 page faults a frame, and four sessions of 1crn drew
     * 133-151 frames in 4-5 s against 191-259 kept in the heap. A large structure's arrays past
     * 8 MB are still mapped apart and returned when freed. */
    mallopt(M_MMAP_THRESHOLD, 8 << 20);
    mallopt(M_TRIM_THRESHOLD, 32 << 20);
    /* Two arenas: each further one reserves 64 MB of address space, and the service's many
     * threads had made 16 (1.2 GB of its 1.7 GB virtual size, with 95 MB resident), so that
     * under an address-space cap (RLIMIT_AS 2 GB) a 128 MB picture buffer found no room. */
    mallopt(M_ARENA_MAX, 2);
#endif
}

int molshot_trim_heap(void) {
#if defined(__GLIBC__)
    return malloc_trim(0);
#else
    return 0;
#endif
}

/* What glibc's tunable glibc.malloc.hugetlb=1 does, from inside the process (tunables are read
 * from the environment before main): a page fault costs about 2.5 us a 4 KB page on these
 * machines, so a 2000 px picture's buffers (drawn, read back, filtered, a few of 13 MB) cost
 * tens of milliseconds in faults alone; in 2 MB pages, a few. The heap is grown by blocks kept
 * under the mmap threshold (so they come from the heap), advised, and freed again into the top
 * of the heap, which molshot_keep_buffers_in_heap keeps from being trimmed. One arena, so that
 * the threads that read and build geometry allocate from it too. */
size_t molshot_heap_in_huge_pages(size_t bytes) {
#if defined(__GLIBC__) && defined(MADV_HUGEPAGE)
    enum { block = 16 << 20, most = 64 };
    const uintptr_t huge = 2 << 20;
    mallopt(M_ARENA_MAX, 1);
    void *blocks[most];
    int count = 0;
    for (size_t got = 0; got < bytes && count < most; got += block) {
        if (!(blocks[count] = malloc(block))) break;
        count++;
    }
    size_t advised = 0;
    if (count > 0) {
        uintptr_t low = (uintptr_t)blocks[0], high = (uintptr_t)blocks[0] + block;
        for (int i = 1; i < count; i++) {
            if ((uintptr_t)blocks[i] < low) low = (uintptr_t)blocks[i];
            if ((uintptr_t)blocks[i] + block > high) high = (uintptr_t)blocks[i] + block;
        }
        uintptr_t start = (low + huge - 1) & ~(huge - 1);
        /* Contiguous only: blocks from the heap lie end to end, a few bytes of header apart. */
        if (high > start && high - low < (size_t)count * (block + 4096) && madvise((void *)start, high - start, MADV_HUGEPAGE) == 0)
            advised = high - start;
    }
    while (count > 0) free(blocks[--count]);
    return advised;
#else
    (void)bytes;
    return 0;
#endif
}

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
/* setpriority with a thread's id sets that thread's nice value alone (Linux). */
int molshot_lower_thread_priority(int nice) {
#if defined(__linux__) && defined(SYS_gettid)
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice);
#else
    (void)nice;
    return -1;
#endif
}
