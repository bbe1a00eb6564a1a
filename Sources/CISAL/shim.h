#include <isa-l/igzip_lib.h>

/* ISA-L's assembly (its AVX2 and AVX-512 deflate and inflate) returns with the vector registers'
 * upper halves in use, and the SSE code that runs after it on that thread then runs slowly: on
 * this machine's AMD EPYC, after a PNG deflated so, the next picture's drawing and edge smoothing
 * took 40-60% longer (`measure-render` of the corpus: drawing 0.36 s against 0.25, finishing 0.27
 * against 0.16). Called after each ISA-L call, it clears them (`vzeroupper`), as compilers do at
 * the end of their own AVX code. */
static inline void molshot_isal_clear_upper(void) {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx")) __asm__ volatile("vzeroupper" ::: "memory");
#endif
}
