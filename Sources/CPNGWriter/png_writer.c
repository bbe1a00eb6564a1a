#include "png_writer.h"
#include "fast_deflate.h"
#include <libdeflate.h>
#include "../CISAL/shim.h"
#include <png.h>
#include <pthread.h>
#include <unistd.h>
#include <zlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The writer: PNG rows filtered and deflated in strips, one thread a strip, joined into one
 * zlib stream (each strip but the last ends on a byte boundary with a sync flush and no final
 * block, as pigz joins its pieces) whose Adler-32 is combined from the strips'. A 2000 px picture
 * takes about half the time on two cores that it takes in one stream; files grow by a few hundred
 * bytes a strip, because a strip starts without the previous one's window. */

typedef struct {
    const uint8_t *rgba;
    size_t stride;
    int width, channels, filters, level;
    int first, last; /* rows [first, last) */
    uint8_t *out;
    size_t out_size;
    uLong adler;
    int is_last, failed;
    int fast; /* fast_deflate.c instead of zlib */
} strip;

static int paeth(int a, int b, int c) {
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c);
}

/* Row y's pixels as the file stores them (RGBA, or RGB with alpha dropped). */
static void pixels(const strip *s, int y, uint8_t *row) {
    const uint8_t *src = s->rgba + (size_t)y * s->stride;
    if (s->channels == 4) {
        memcpy(row, src, (size_t)s->width * 4);
        return;
    }
    /* Two pixels at a time: eight bytes in, six out (the store writes eight; the next overwrites
     * the two extra, and the last pair is done byte by byte so nothing is written past the row). */
    int x = 0;
    for (; x + 2 < s->width; x += 2) {
        uint64_t v;
        memcpy(&v, src + 4 * x, 8);
        uint64_t rgb = (v & 0xFFFFFFull) | ((v >> 8) & 0xFFFFFF000000ull);
        memcpy(row + 3 * x, &rgb, 8);
    }
    for (; x < s->width; x++) {
        row[3 * x] = src[4 * x];
        row[3 * x + 1] = src[4 * x + 1];
        row[3 * x + 2] = src[4 * x + 2];
    }
}

/* Adler-32 (RFC 1950) of `n` bytes after `adler`, 32 bytes a step with SSSE3 where the processor
 * has it: s1 gains the bytes' sum, s2 gains 32 * s1 plus the bytes weighted 32 down to 1. zlib's
 * own does a byte at a time; on a 2000 px picture it was a fifth of the encoding. */
#if defined(__x86_64__)
#include <immintrin.h>
__attribute__((target("ssse3"))) static uint32_t adler32_ssse3(uint32_t adler, const uint8_t *p, size_t n) {
    const uint32_t mod = 65521;
    uint32_t s1 = adler & 0xFFFF, s2 = adler >> 16;
    const __m128i weights_high = _mm_setr_epi8(32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17);
    const __m128i weights_low = _mm_setr_epi8(16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1);
    const __m128i ones = _mm_set1_epi16(1), zero = _mm_setzero_si128();
    while (n >= 32) {
        /* At most 5536 bytes (173 steps) before the sums are reduced, so that s2 stays in 32 bits. */
        size_t steps = n / 32 < 173 ? n / 32 : 173;
        n -= steps * 32;
        __m128i v_s1 = _mm_setzero_si128(), v_s2 = _mm_setzero_si128(), v_s1_sum = _mm_setzero_si128();
        uint32_t s1_start = s1;
        for (size_t k = 0; k < steps; k++) {
            __m128i a = _mm_loadu_si128((const __m128i *)p), b = _mm_loadu_si128((const __m128i *)(p + 16));
            p += 32;
            v_s1_sum = _mm_add_epi32(v_s1_sum, v_s1); /* each step adds 32 times the s1 so far */
            v_s1 = _mm_add_epi32(v_s1, _mm_add_epi32(_mm_sad_epu8(a, zero), _mm_sad_epu8(b, zero)));
            __m128i wa = _mm_madd_epi16(_mm_maddubs_epi16(a, weights_high), ones);
            __m128i wb = _mm_madd_epi16(_mm_maddubs_epi16(b, weights_low), ones);
            v_s2 = _mm_add_epi32(v_s2, _mm_add_epi32(wa, wb));
        }
        uint32_t t1[4], t2[4], t3[4];
        _mm_storeu_si128((__m128i *)t1, v_s1);
        _mm_storeu_si128((__m128i *)t2, v_s2);
        _mm_storeu_si128((__m128i *)t3, v_s1_sum);
        uint64_t bytes_sum = (uint64_t)t1[0] + t1[1] + t1[2] + t1[3];
        uint64_t weighted = (uint64_t)t2[0] + t2[1] + t2[2] + t2[3];
        uint64_t earlier = (uint64_t)t3[0] + t3[1] + t3[2] + t3[3];
        s2 = (uint32_t)((s2 + (uint64_t)s1_start * 32 * steps + earlier * 32 + weighted) % mod);
        s1 = (uint32_t)((s1_start + bytes_sum) % mod);
    }
    while (n--) {
        s1 += *p++;
        if (s1 >= mod) s1 -= mod;
        s2 += s1;
        if (s2 >= mod) s2 -= mod;
    }
    return s1 | (s2 << 16);
}
#endif

static uLong checksum(uLong adler, const uint8_t *p, size_t n) {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("ssse3")) return adler32_ssse3((uint32_t)adler, p, n);
#endif
    return adler32(adler, p, (uInt)n);
}

/* Filters `cur` (previous row `prev`, zeros above the first) with filter type `type` into out. */
static void apply(int type, const uint8_t *cur, const uint8_t *prev, size_t n, int bpp, uint8_t *out) {
    out[0] = (uint8_t)type;
    out++;
    switch (type) {
    case 0: memcpy(out, cur, n); break;
    case 1:
        for (size_t i = 0; i < n; i++) out[i] = (uint8_t)(cur[i] - (i >= (size_t)bpp ? cur[i - bpp] : 0));
        break;
    case 2:
        for (size_t i = 0; i < n; i++) out[i] = (uint8_t)(cur[i] - prev[i]);
        break;
    case 3:
        for (size_t i = 0; i < n; i++) out[i] = (uint8_t)(cur[i] - (((i >= (size_t)bpp ? cur[i - bpp] : 0) + prev[i]) >> 1));
        break;
    default:
        for (size_t i = 0; i < n; i++) {
            int a = i >= (size_t)bpp ? cur[i - bpp] : 0, c = i >= (size_t)bpp ? prev[i - bpp] : 0;
            out[i] = (uint8_t)(cur[i] - paeth(a, prev[i], c));
        }
    }
}

static unsigned long cost(const uint8_t *filtered, size_t n) {
    unsigned long sum = 0;
    for (size_t i = 1; i <= n; i++) sum += filtered[i] < 128 ? filtered[i] : 256 - filtered[i];
    return sum;
}

/* The strip's rows with Molshot's own deflate: matches a pixel back, a byte back and in the row above. */
static int encode_strip_fast(strip *s) {
    size_t n = (size_t)s->width * s->channels, rows = (size_t)(s->last - s->first);
    uint8_t *cur = malloc(n), *prev = calloc(n, 1), *line = malloc(n + 1), *last = malloc(n + 1);
    molshot_deflate *d = malloc(sizeof *d);
    size_t capacity = (n + 1) * rows * 2 + 4096;
    s->out = malloc(capacity);
    int ok = cur && prev && line && last && d && s->out;
    s->adler = adler32(0L, Z_NULL, 0);
    if (ok) {
        molshot_deflate_init(d, s->out, capacity);
        if (s->first > 0) pixels(s, s->first - 1, prev);
        int type = s->filters == MOLSHOT_PNG_FILTER_SUB ? 1 : s->filters == MOLSHOT_PNG_FILTER_UP ? 2 : 0;
        for (int y = s->first; y < s->last; y++) {
            pixels(s, y, cur);
            apply(type, cur, prev, n, s->channels, line);
            s->adler = checksum(s->adler, line, n + 1);
            molshot_deflate_row(d, line, y > s->first ? last : NULL, n + 1, s->channels);
            uint8_t *t = prev; prev = cur; cur = t;
            t = last; last = line; line = t;
        }
        s->out_size = molshot_deflate_finish(d, s->is_last);
        ok = s->out_size > 0;
    }
    free(cur); free(prev); free(line); free(last); free(d);
    if (!ok) { free(s->out); s->out = NULL; }
    return ok;
}

/* Row y filtered as the strip's filter says (adaptive: the filter whose bytes sum smallest as signed
 * values, as libpng chooses), into `line` or `best`; returns the one chosen. */
static const uint8_t *filtered(const strip *s, const uint8_t *cur, const uint8_t *prev, size_t n, uint8_t **line, uint8_t **best) {
    if (s->filters == MOLSHOT_PNG_FILTER_NONE) { apply(0, cur, prev, n, s->channels, *line); return *line; }
    if (s->filters == MOLSHOT_PNG_FILTER_SUB) { apply(1, cur, prev, n, s->channels, *line); return *line; }
    if (s->filters == MOLSHOT_PNG_FILTER_UP) { apply(2, cur, prev, n, s->channels, *line); return *line; }
    unsigned long lowest = (unsigned long)-1;
    for (int type = 0; type < 5; type++) {
        apply(type, cur, prev, n, s->channels, *line);
        unsigned long c = cost(*line, n);
        if (c < lowest) { lowest = c; uint8_t *t = *best; *best = *line; *line = t; }
    }
    return *best;
}

/* The last strip (a whole thumbnail is one) with libdeflate: the rows filtered into one buffer and
 * deflated in one call, about 1.5 times as fast as zlib at level 1 and a little smaller. libdeflate
 * cannot end a piece without a final block, so strips before the last keep zlib's sync flush. Each
 * thread keeps its compressor. Returns 0 to fall back to zlib. */
static __thread struct libdeflate_compressor *compressor;
static __thread int compressor_level = -1;

/* Levels as zlib's; level 0 (stored) stays with zlib. libdeflate 1.14's level 1 deflates the
 * corpus's 144 unfiltered thumbnails in 155 ms against its level 2's 190 ms (its level 2 was
 * once chosen for level 1 as being as fast: not so on Debian 12's build), 5% larger. */
static int libdeflate_level(int level) { return level; }

/* zlib's level 1 (thumbnails, renders, live frames) through ISA-L's deflate at its level 2, in
 * one call: the corpus's 144 thumbnails' rows in 32 ms against libdeflate level 1's 136, 2.7%
 * larger (its level 1 took 29 ms and came 5% larger; a 2400 x 2000 cartoon of crambin comes 8%
 * larger, 905 KB against 835: `--png-level 2` and above keep libdeflate). Its hash tables (about
 * 300 KB) are kept by a thread that keeps its compressor (`kept`), else made and freed here.
 * Returns the raw deflate stream's size (ending in a final block), or 0 where it did not fit
 * `capacity`, for libdeflate. */
static __thread uint8_t *isal_tables;
static size_t deflate_isal(const uint8_t *in, size_t size, uint8_t *out, size_t capacity, int kept) {
    if (size > 0xFFFFFFFFu || capacity > 0xFFFFFFFFu) return 0;
    uint8_t *tables = kept ? isal_tables : NULL;
    if (!tables) tables = malloc(ISAL_DEF_LVL2_DEFAULT);
    if (!tables) return 0;
    if (kept) isal_tables = tables;
    /* Zeroed first: isal_deflate_stateless_init leaves fields it does not know of unset, among them
     * hist_bits (the window's size, 0 for the default), and a window left to what was on the stack
     * encodes the same rows differently from run to run (valgrind: a jump on an uninitialised value). */
    struct isal_zstream z;
    memset(&z, 0, sizeof z);
    isal_deflate_stateless_init(&z);
    z.level = 2;
    z.level_buf = tables;
    z.level_buf_size = ISAL_DEF_LVL2_DEFAULT;
    z.gzip_flag = IGZIP_DEFLATE;
    z.end_of_stream = 1;
    z.flush = NO_FLUSH;
    z.next_in = (uint8_t *)in;
    z.avail_in = (uint32_t)size;
    z.next_out = out;
    z.avail_out = (uint32_t)capacity;
    int status = isal_deflate_stateless(&z);
    molshot_isal_clear_upper();
    if (!kept) free(tables);
    return status == COMP_OK && z.avail_in == 0 ? (size_t)z.total_out : 0;
}

static int encode_strip_libdeflate(strip *s) {
    if (!s->is_last || s->level < 1) return 0;
    /* The first strip runs on the caller's thread, which keeps its compressor; a last strip after
     * others runs on a thread of its own that ends with it, so it frees its own. */
    struct libdeflate_compressor *own = NULL, *c;
    if (s->first == 0) {
        if (compressor_level != s->level) {
            if (compressor) libdeflate_free_compressor(compressor);
            compressor = libdeflate_alloc_compressor(libdeflate_level(s->level));
            compressor_level = compressor ? s->level : -1;
        }
        c = compressor;
    } else {
        c = own = libdeflate_alloc_compressor(libdeflate_level(s->level));
    }
    if (!c) return 0;
    size_t n = (size_t)s->width * s->channels, rows = (size_t)(s->last - s->first);
    uint8_t *cur = malloc(n), *prev = calloc(n, 1), *line = malloc(n + 1), *best = malloc(n + 1), *all = malloc((n + 1) * rows);
    int ok = cur && prev && line && best && all;
    if (ok) {
        if (s->first > 0) pixels(s, s->first - 1, prev);
        uint8_t *at = all;
        for (int y = s->first; y < s->last; y++) {
            pixels(s, y, cur);
            memcpy(at, filtered(s, cur, prev, n, &line, &best), n + 1);
            at += n + 1;
            uint8_t *t = prev; prev = cur; cur = t;
        }
        size_t capacity = libdeflate_deflate_compress_bound(c, (n + 1) * rows);
        s->out = malloc(capacity);
        s->adler = checksum(adler32(0L, Z_NULL, 0), all, (n + 1) * rows);
        s->out_size = 0;
        if (s->out && s->level == 1) s->out_size = deflate_isal(all, (n + 1) * rows, s->out, capacity, s->first == 0);
        if (s->out && s->out_size == 0) s->out_size = libdeflate_deflate_compress(c, all, (n + 1) * rows, s->out, capacity);
        if (s->out_size == 0) { free(s->out); s->out = NULL; ok = 0; }
    }
    free(cur); free(prev); free(line); free(best); free(all);
    if (own) libdeflate_free_compressor(own);
    return ok;
}

static void *encode_strip(void *argument) {
    strip *s = (strip *)argument;
    if (s->fast && encode_strip_fast(s)) return NULL;
    if (!s->fast && encode_strip_libdeflate(s)) return NULL;
    size_t n = (size_t)s->width * s->channels;
    uint8_t *cur = malloc(n), *prev = calloc(n, 1), *line = malloc(n + 1), *best = malloc(n + 1);
    z_stream z;
    memset(&z, 0, sizeof z);
    if (!cur || !prev || !line || !best || deflateInit2(&z, s->level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        s->failed = 1;
        free(cur); free(prev); free(line); free(best);
        return NULL;
    }
    size_t capacity = deflateBound(&z, (uLong)((n + 1) * (size_t)(s->last - s->first))) + 64;
    s->out = malloc(capacity);
    s->adler = adler32(0L, Z_NULL, 0);
    if (!s->out) s->failed = 1;
    if (s->first > 0 && !s->failed) pixels(s, s->first - 1, prev);
    z.next_out = s->out;
    z.avail_out = (uInt)capacity;
    for (int y = s->first; y < s->last && !s->failed; y++) {
        pixels(s, y, cur);
        const uint8_t *chosen = filtered(s, cur, prev, n, &line, &best);
        s->adler = checksum(s->adler, chosen, n + 1);
        z.next_in = (Bytef *)chosen;
        z.avail_in = (uInt)(n + 1);
        if (deflate(&z, Z_NO_FLUSH) != Z_OK || z.avail_in != 0) s->failed = 1;
        uint8_t *t = prev; prev = cur; cur = t;
    }
    if (!s->failed && deflate(&z, s->is_last ? Z_FINISH : Z_SYNC_FLUSH) != (s->is_last ? Z_STREAM_END : Z_OK)) s->failed = 1;
    s->out_size = capacity - z.avail_out;
    deflateEnd(&z);
    free(cur); free(prev); free(line); free(best);
    return NULL;
}

static void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}

/* Appends a chunk (length, type, data, CRC of type and data) at *at. */
static void chunk(uint8_t **at, const char *type, const uint8_t *data, size_t size) {
    uint8_t *p = *at;
    put32(p, (uint32_t)size);
    memcpy(p + 4, type, 4);
    if (size) memcpy(p + 8, data, size);
    put32(p + 8 + size, (uint32_t)crc32(0L, p + 4, (uInt)(size + 4)));
    *at = p + 12 + size;
}

int molshot_png_encode(const uint8_t *rgba, int width, int height, size_t stride, int level, int filters, int opaque,
                       int runs_and_rows, uint8_t **out, size_t *out_size, char *error, size_t error_size) {
    if (width <= 0 || height <= 0) {
        snprintf(error, error_size, "cannot encode a %dx%d picture", width, height);
        return 1;
    }
    int channels = opaque ? 3 : 4;
    size_t row = (size_t)width * channels + 1, bytes = row * (size_t)height;
    /* Strips of at least 256 KB, at most one a core (up to 8). */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int count = (int)(bytes / (256 * 1024));
    if (count > cores) count = (int)cores;
    if (count > 8) count = 8;
    if (count > height) count = height;
    if (count < 1) count = 1;
    strip strips[8];
    pthread_t threads[8];
    int started[8] = {0};
    for (int i = 0; i < count; i++) {
        strips[i] = (strip){rgba, stride, width, channels, filters ? filters : MOLSHOT_PNG_FILTER_ALL, level,
                            (int)((long)height * i / count), (int)((long)height * (i + 1) / count), NULL, 0, 0, i == count - 1, 0,
                            runs_and_rows && filters != 0 && filters != MOLSHOT_PNG_FILTER_ALL};
        if (i > 0) started[i] = pthread_create(&threads[i], NULL, encode_strip, &strips[i]) == 0;
        if (i > 0 && !started[i]) encode_strip(&strips[i]);
    }
    encode_strip(&strips[0]);
    size_t compressed = 0;
    int failed = 0;
    uLong adler = adler32(0L, Z_NULL, 0);
    for (int i = 0; i < count; i++) {
        if (i > 0 && started[i]) pthread_join(threads[i], NULL);
        failed |= strips[i].failed;
        compressed += strips[i].out_size;
        size_t length = (size_t)(strips[i].last - strips[i].first) * row;
        adler = adler32_combine(adler, strips[i].adler, (z_off_t)length);
    }
    uint8_t *file = NULL;
    if (!failed && compressed + 6 <= 0x7fffffffu) file = malloc(8 + 25 + 12 + compressed + 6 + 12);
    if (file) {
        static const uint8_t signature[8] = {137, 80, 78, 71, 13, 10, 26, 10};
        memcpy(file, signature, 8);
        uint8_t *at = file + 8;
        uint8_t header[13];
        put32(header, (uint32_t)width);
        put32(header + 4, (uint32_t)height);
        header[8] = 8;                  /* bits a channel */
        header[9] = opaque ? 2 : 6;     /* RGB or RGBA */
        header[10] = header[11] = header[12] = 0;
        chunk(&at, "IHDR", header, 13);
        /* One IDAT: zlib header (deflate, 32K window, check bits), the strips, Adler-32. */
        uint8_t *idat = at;
        put32(idat, (uint32_t)(compressed + 6));
        memcpy(idat + 4, "IDAT", 4);
        uint8_t *p = idat + 8;
        p[0] = 0x78;
        p[1] = level <= 1 ? 0x01 : (level < 6 ? 0x5e : (level == 6 ? 0x9c : 0xda));
        p += 2;
        for (int i = 0; i < count; i++) {
            memcpy(p, strips[i].out, strips[i].out_size);
            p += strips[i].out_size;
        }
        put32(p, (uint32_t)adler);
        p += 4;
        put32(p, (uint32_t)crc32(0L, idat + 4, (uInt)(p - idat - 4)));
        at = p + 4;
        chunk(&at, "IEND", NULL, 0);
        *out = file;
        *out_size = (size_t)(at - file);
    } else {
        snprintf(error, error_size, failed ? "compression failed" : "out of memory");
    }
    for (int i = 0; i < count; i++) free(strips[i].out);
    return file ? 0 : 1;
}

void molshot_png_free(uint8_t *buffer) { free(buffer); }

int molshot_png_decode_file(const char *path, uint8_t **rgba, int *width, int *height, char *error, size_t error_size) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&image, path)) {
        snprintf(error, error_size, "%s", image.message);
        return 1;
    }
    image.format = PNG_FORMAT_RGBA;
    size_t size = PNG_IMAGE_SIZE(image);
    uint8_t *buffer = (uint8_t *)malloc(size);
    if (!buffer) {
        png_image_free(&image);
        snprintf(error, error_size, "out of memory");
        return 1;
    }
    if (!png_image_finish_read(&image, NULL, buffer, 0, NULL)) {
        snprintf(error, error_size, "%s", image.message);
        free(buffer);
        return 1;
    }
    *rgba = buffer;
    *width = (int)image.width;
    *height = (int)image.height;
    return 0;
}
