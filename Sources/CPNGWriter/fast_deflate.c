#include "fast_deflate.h"
#include <pthread.h>
#include <string.h>

/* A deflate (RFC 1951) encoder for filtered image rows that looks for matches in two places only:
 * the same bytes one pixel (or one byte) back, and the row above. Pictures are mostly runs of one
 * color and rows like the one above them, and these two need no hash table: each position costs a
 * few compares. Tokens are gathered into blocks, each coded with its own Huffman tables (dynamic
 * blocks). */

enum { MAX_MATCH = 258, MIN_MATCH = 3, WINDOW = 32768 };

static const uint16_t length_base[29] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                         35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t length_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                                         3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t distance_base[30] = {1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
                                           257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t distance_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
                                           7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
static const uint8_t code_length_order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

static uint8_t length_code[MAX_MATCH + 1]; /* length -> index into length_base */

static int distance_search(unsigned d) {
    int lo = 0, hi = 29;
    while (lo < hi) { /* the last base not above d */
        int mid = (lo + hi + 1) / 2;
        if (distance_base[mid] <= d) lo = mid; else hi = mid - 1;
    }
    return lo;
}

/* The code of every distance (1 to the window's 32768), looked up: two per match had been a search. */
static uint8_t distance_codes[WINDOW + 1];

static inline int distance_code(unsigned d) { return distance_codes[d]; }

static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void fill_tables(void) {
    for (int code = 0; code < 29; code++) {
        int top = code == 28 ? 258 : length_base[code] + (1 << length_extra[code]) - 1;
        for (int len = length_base[code]; len <= top && len <= MAX_MATCH; len++) length_code[len] = (uint8_t)code;
    }
    length_code[258] = 28;
    for (unsigned d = 1; d <= WINDOW; d++) distance_codes[d] = (uint8_t)distance_search(d);
}

/* Once, whichever strip's thread comes first. */
static void prepare_tables(void) { pthread_once(&tables_once, fill_tables); }

/* ---- bits ---- */

/* Whole bytes of the bit buffer out, one at a time (the ends of a piece, and near a full output). */
static void flush_bytes(molshot_deflate *d) {
    while (d->bit_count >= 8) {
        if (d->at < d->capacity) d->out[d->at] = (uint8_t)d->bits;
        else d->overflow = 1;
        d->at++;
        d->bits >>= 8;
        d->bit_count -= 8;
    }
}

/* Up to 16 bits; the buffer keeps under 32 between calls and goes out four bytes at a time. */
static inline void put_bits(molshot_deflate *d, uint64_t value, int count) {
    d->bits |= value << d->bit_count;
    d->bit_count += count;
    if (d->bit_count < 32) return;
    if (d->at + 4 <= d->capacity) {
        uint8_t *o = d->out + d->at;
        o[0] = (uint8_t)d->bits; o[1] = (uint8_t)(d->bits >> 8); o[2] = (uint8_t)(d->bits >> 16); o[3] = (uint8_t)(d->bits >> 24);
        d->at += 4;
        d->bits >>= 32;
        d->bit_count -= 32;
    } else {
        flush_bytes(d);
    }
}

static void align_to_byte(molshot_deflate *d) {
    if (d->bit_count & 7) put_bits(d, 0, 8 - (d->bit_count & 7));
    flush_bytes(d);
}

/* ---- Huffman codes ---- */

/* Code lengths (at most `limit` bits) for `count` symbols of frequencies `freq`: Huffman's
 * construction, and where a code comes out longer than the limit, again with the frequencies
 * flattened, until it fits. */
static void code_lengths(const uint32_t *freq, int count, int limit, uint8_t *lengths) {
    uint32_t f[320];
    int symbols[320];
    memcpy(f, freq, sizeof(uint32_t) * (size_t)count);
    for (;;) {
        int used = 0;
        for (int i = 0; i < count; i++) {
            lengths[i] = 0;
            if (f[i]) symbols[used++] = i;
        }
        if (used == 0) return;
        if (used == 1) { lengths[symbols[0]] = 1; return; }
        /* Nodes: leaves 0..used-1, inner nodes after; sort the leaves by frequency. */
        uint64_t weight[640];
        int parent[640];
        for (int i = 0; i < used; i++) weight[i] = f[symbols[i]];
        for (int i = 1; i < used; i++) { /* insertion sort, leaves are at most 286 */
            uint64_t w = weight[i];
            int s = symbols[i], j = i - 1;
            while (j >= 0 && weight[j] > w) { weight[j + 1] = weight[j]; symbols[j + 1] = symbols[j]; j--; }
            weight[j + 1] = w;
            symbols[j + 1] = s;
        }
        int leaf = 0, inner = used, next = used;
        for (int k = 0; k < used - 1; k++) {
            int pick[2];
            for (int p = 0; p < 2; p++) {
                if (leaf < used && (inner >= next || weight[leaf] <= weight[inner])) pick[p] = leaf++;
                else pick[p] = inner++;
            }
            weight[next] = weight[pick[0]] + weight[pick[1]];
            parent[pick[0]] = parent[pick[1]] = next;
            next++;
        }
        int depth[640];
        depth[next - 1] = 0;
        for (int n = next - 2; n >= 0; n--) depth[n] = depth[parent[n]] + 1;
        int longest = 0;
        for (int i = 0; i < used; i++) if (depth[i] > longest) longest = depth[i];
        if (longest <= limit) {
            for (int i = 0; i < used; i++) lengths[symbols[i]] = (uint8_t)depth[i];
            return;
        }
        for (int i = 0; i < count; i++) if (f[i]) f[i] = (f[i] >> 1) | 1;
    }
}

/* Canonical codes (RFC 1951 3.2.2), bit-reversed for writing least significant bit first. */
static void canonical_codes(const uint8_t *lengths, int count, uint16_t *codes) {
    int bl_count[16] = {0}, next_code[16];
    for (int i = 0; i < count; i++) bl_count[lengths[i]]++;
    bl_count[0] = 0;
    int code = 0;
    for (int bits = 1; bits < 16; bits++) {
        code = (code + bl_count[bits - 1]) << 1;
        next_code[bits] = code;
    }
    for (int i = 0; i < count; i++) {
        int len = lengths[i];
        if (!len) { codes[i] = 0; continue; }
        unsigned c = (unsigned)next_code[len]++, r = 0;
        for (int b = 0; b < len; b++) { r = (r << 1) | (c & 1); c >>= 1; }
        codes[i] = (uint16_t)r;
    }
}

/* ---- blocks ---- */

static void write_block(molshot_deflate *d, int final) {
    uint32_t lit_freq[286] = {0}, dist_freq[30] = {0};
    for (size_t i = 0; i < d->tokens; i++) {
        if (d->token_distance[i] == 0) {
            lit_freq[d->token_value[i]]++;
        } else {
            lit_freq[257 + length_code[d->token_value[i]]]++;
            dist_freq[distance_code(d->token_distance[i])]++;
        }
    }
    lit_freq[256] = 1;
    /* Complete codes of two symbols at least: every decoder takes those. */
    int lits = 0, dists = 0;
    for (int i = 0; i < 286; i++) lits += lit_freq[i] != 0;
    for (int i = 0; i < 30; i++) dists += dist_freq[i] != 0;
    if (lits < 2) lit_freq[lit_freq[0] ? 1 : 0] = 1;
    if (dists < 2) { if (!dist_freq[0]) dist_freq[0] = 1; else dist_freq[1] = 1; }

    uint8_t lit_len[286], dist_len[30];
    code_lengths(lit_freq, 286, 15, lit_len);
    code_lengths(dist_freq, 30, 15, dist_len);
    int hlit = 286, hdist = 30;
    while (hlit > 257 && lit_len[hlit - 1] == 0) hlit--;
    while (hdist > 1 && dist_len[hdist - 1] == 0) hdist--;

    /* The code lengths, run-length coded with 16, 17 and 18. */
    uint8_t all[316];
    memcpy(all, lit_len, (size_t)hlit);
    memcpy(all + hlit, dist_len, (size_t)hdist);
    int total = hlit + hdist;
    uint8_t rle_symbol[316], rle_extra[316];
    int rle = 0;
    uint32_t cl_freq[19] = {0};
    for (int i = 0; i < total;) {
        int v = all[i], run = 1;
        while (i + run < total && all[i + run] == v) run++;
        if (v == 0 && run >= 3) {
            int n = run > 138 ? 138 : run;
            if (n >= 11) { rle_symbol[rle] = 18; rle_extra[rle++] = (uint8_t)(n - 11); }
            else { rle_symbol[rle] = 17; rle_extra[rle++] = (uint8_t)(n - 3); }
            cl_freq[rle_symbol[rle - 1]]++;
            i += n;
        } else if (v != 0 && run >= 4) {
            rle_symbol[rle] = (uint8_t)v; rle_extra[rle++] = 0; cl_freq[v]++;
            int n = run - 1 > 6 ? 6 : run - 1;
            rle_symbol[rle] = 16; rle_extra[rle++] = (uint8_t)(n - 3); cl_freq[16]++;
            i += 1 + n;
        } else {
            rle_symbol[rle] = (uint8_t)v; rle_extra[rle++] = 0; cl_freq[v]++;
            i++;
        }
    }
    uint8_t cl_len[19];
    uint16_t cl_code[19];
    int cl_used = 0;
    for (int i = 0; i < 19; i++) cl_used += cl_freq[i] != 0;
    if (cl_used < 2) cl_freq[cl_freq[0] ? 1 : 0] = 1;
    code_lengths(cl_freq, 19, 7, cl_len);
    canonical_codes(cl_len, 19, cl_code);
    int hclen = 19;
    while (hclen > 4 && cl_len[code_length_order[hclen - 1]] == 0) hclen--;

    uint16_t lit_code[286], dist_code[30];
    canonical_codes(lit_len, 286, lit_code);
    canonical_codes(dist_len, 30, dist_code);

    put_bits(d, (uint64_t)(final ? 1 : 0), 1);
    put_bits(d, 2, 2); /* dynamic Huffman */
    put_bits(d, (uint64_t)(hlit - 257), 5);
    put_bits(d, (uint64_t)(hdist - 1), 5);
    put_bits(d, (uint64_t)(hclen - 4), 4);
    for (int i = 0; i < hclen; i++) put_bits(d, cl_len[code_length_order[i]], 3);
    for (int i = 0; i < rle; i++) {
        int s = rle_symbol[i];
        put_bits(d, cl_code[s], cl_len[s]);
        if (s == 16) put_bits(d, rle_extra[i], 2);
        else if (s == 17) put_bits(d, rle_extra[i], 3);
        else if (s == 18) put_bits(d, rle_extra[i], 7);
    }
    for (size_t i = 0; i < d->tokens; i++) {
        unsigned v = d->token_value[i], dist = d->token_distance[i];
        if (dist == 0) {
            put_bits(d, lit_code[v], lit_len[v]);
        } else {
            int lc = length_code[v];
            put_bits(d, lit_code[257 + lc], lit_len[257 + lc]);
            if (length_extra[lc]) put_bits(d, v - length_base[lc], length_extra[lc]);
            int dc = distance_code(dist);
            put_bits(d, dist_code[dc], dist_len[dc]);
            if (distance_extra[dc]) put_bits(d, dist - distance_base[dc], distance_extra[dc]);
        }
    }
    put_bits(d, lit_code[256], lit_len[256]);
    d->tokens = 0;
}

static inline void token(molshot_deflate *d, unsigned value, unsigned distance) {
    d->token_value[d->tokens] = (uint16_t)value;
    d->token_distance[d->tokens] = (uint16_t)distance;
    if (++d->tokens == MOLSHOT_DEFLATE_BLOCK_TOKENS) write_block(d, 0);
}

/* How many bytes from a and b agree, up to `most`. */
static inline size_t agree(const uint8_t *a, const uint8_t *b, size_t most) {
    size_t n = 0;
    while (n + 8 <= most) {
        uint64_t x, y;
        memcpy(&x, a + n, 8);
        memcpy(&y, b + n, 8);
        if (x != y) return n + (size_t)(__builtin_ctzll(x ^ y) >> 3);
        n += 8;
    }
    while (n < most && a[n] == b[n]) n++;
    return n;
}

void molshot_deflate_init(molshot_deflate *d, uint8_t *out, size_t capacity) {
    prepare_tables();
    memset(d, 0, sizeof *d);
    d->out = out;
    d->capacity = capacity;
}

void molshot_deflate_row(molshot_deflate *d, const uint8_t *line, const uint8_t *previous, size_t length, int bpp) {
    /* `previous` came just before `line` in the stream, `length` bytes back. */
    int up = previous != NULL && length <= WINDOW;
    size_t i = 0;
    while (i < length) {
        size_t rest = length - i < MAX_MATCH ? length - i : MAX_MATCH;
        size_t best = 0, distance = 0;
        if (up) {
            best = agree(line + i, previous + i, rest);
            distance = length;
        }
        if (best < rest) {
            /* The same bytes a pixel back, or a byte back (a run of one value). */
            if (i >= (size_t)bpp) {
                size_t n = agree(line + i, line + i - bpp, rest);
                if (n > best) { best = n; distance = (size_t)bpp; }
            }
            if (best < rest && bpp > 1 && i >= 1 && line[i] == line[i - 1]) {
                size_t n = agree(line + i, line + i - 1, rest);
                if (n > best) { best = n; distance = 1; }
            }
        }
        if (best >= MIN_MATCH) {
            token(d, (unsigned)best, (unsigned)distance);
            i += best;
        } else {
            token(d, line[i], 0);
            i++;
        }
    }
}

size_t molshot_deflate_finish(molshot_deflate *d, int final) {
    write_block(d, final);
    if (!final) {
        /* An empty stored block ends the piece on a byte boundary, as zlib's sync flush does, so that
         * the next piece can follow. */
        put_bits(d, 0, 3);
        align_to_byte(d);
        put_bits(d, 0x0000, 16);
        put_bits(d, 0xFFFF, 16);
    } else {
        align_to_byte(d);
    }
    return d->overflow ? 0 : d->at;
}
