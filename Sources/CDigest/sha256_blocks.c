// SHA-256's compression function on x86's SHA extensions (SHA-NI), per FIPS 180-4 and the
// instructions' definitions: sha256rnds2 does two rounds on the state held as (a,b,e,f) and
// (c,d,g,h); sha256msg1/sha256msg2 compute the message schedule's sigma0 and sigma1 terms.
#include "sha256_blocks.h"

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

const uint32_t *molshot_sha256_constants(void) { return K; }

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

__attribute__((target("sha,sse4.1,ssse3")))
static void compress_ni(uint32_t state[8], const uint8_t *data, size_t blocks) {
    // Lanes are little-endian words: load (a,b,c,d) and (e,f,g,h), then pack as the rounds
    // instruction wants them, (f,e,b,a) high to low in one register and (h,g,d,c) in the other.
    __m128i abcd = _mm_loadu_si128((const __m128i *)&state[0]);
    __m128i efgh = _mm_loadu_si128((const __m128i *)&state[4]);
    __m128i cdab = _mm_shuffle_epi32(abcd, 0xB1);      // lanes b,a,d,c
    __m128i hgfe = _mm_shuffle_epi32(efgh, 0x1B);      // lanes h,g,f,e
    __m128i abef = _mm_alignr_epi8(cdab, hgfe, 8);     // lanes f,e,b,a
    __m128i cdgh = _mm_blend_epi16(hgfe, cdab, 0xF0);  // lanes h,g,d,c
    // Message words are big-endian in the data.
    const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);

    for (size_t block = 0; block < blocks; block++, data += 64) {
        const __m128i abef0 = abef, cdgh0 = cdgh;
        __m128i w[4];
        for (int i = 0; i < 4; i++) {
            w[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * i)), swap);
        }
        for (int i = 0; i < 16; i++) {
            __m128i m;
            if (i < 4) {
                m = w[i];
            } else {
                // w[t..t+3] from w[t-16..t-13], w[t-12..t-9], w[t-8..t-5] and w[t-4..t-1].
                __m128i older = _mm_sha256msg1_epu32(w[i & 3], w[(i + 1) & 3]);
                older = _mm_add_epi32(older, _mm_alignr_epi8(w[(i + 3) & 3], w[(i + 2) & 3], 4));
                m = _mm_sha256msg2_epu32(older, w[(i + 3) & 3]);
                w[i & 3] = m;
            }
            __m128i mk = _mm_add_epi32(m, _mm_loadu_si128((const __m128i *)&K[4 * i]));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, mk);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(mk, 0x0E));
        }
        abef = _mm_add_epi32(abef, abef0);
        cdgh = _mm_add_epi32(cdgh, cdgh0);
    }
    // Back to (a,b,c,d) and (e,f,g,h).
    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);      // lanes a,b,e,f
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);      // lanes g,h,c,d
    _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, dchg, 0xF0));
    _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(dchg, feba, 8));
}

int molshot_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks) {
    static int supported = -1;
    if (supported < 0) {
        __builtin_cpu_init();
        supported = __builtin_cpu_supports("sha") && __builtin_cpu_supports("sse4.1") && __builtin_cpu_supports("ssse3");
    }
    if (!supported) return 0;
    compress_ni(state, data, blocks);
    return 1;
}

#else
int molshot_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks) {
    (void)state; (void)data; (void)blocks;
    return 0;
}
#endif
