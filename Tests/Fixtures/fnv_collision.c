/* Finds two files with one FNV-1a 64 checksum: FILE0 and FILE1, each with a line
 * "REMARK 9NN <11 characters>" appended, for ServiceSafetyTests (the service's old image cache was
 * keyed by this checksum, so an upload could take another's picture). Brent's cycle search over
 * f(x) = FNV of FILE(x & 1) + "REMARK 9NN " + 11 base-64 characters of x + "\n", whose value is
 * the next x: the two steps that first meet are a collision, kept when they come from different
 * files (one try in two). Build and run: cc -O3 -o fnv_collision fnv_collision.c &&
 * ./fnv_collision Caffeine.pdb 1crn.pdb (some minutes a try on one core). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRIME 0x100000001b3ULL
static uint64_t state[2];
static const char *alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static uint64_t fnv(uint64_t h, const unsigned char *s, size_t n) {
    for (size_t i = 0; i < n; i++) { h ^= s[i]; h *= PRIME; }
    return h;
}

static uint64_t step(uint64_t x) {
    uint64_t h = state[x & 1], y = x;
    for (int i = 0; i < 11; i++) { h ^= (unsigned char)alphabet[y & 63]; h *= PRIME; y >>= 6; }
    h ^= '\n';
    return h * PRIME;
}

static void tail(uint64_t x, char *out) {
    for (int i = 0; i < 11; i++) { out[i] = alphabet[x & 63]; x >>= 6; }
    out[11] = 0;
}

static unsigned char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    fseek(f, 0, SEEK_END); *n = (size_t)ftell(f); rewind(f);
    unsigned char *b = malloc(*n);
    if (fread(b, 1, *n, f) != *n) { perror(path); exit(1); }
    fclose(f);
    return b;
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: %s FILE0 FILE1\n", argv[0]); return 2; }
    size_t n0, n1;
    unsigned char *b0 = slurp(argv[1], &n0), *b1 = slurp(argv[2], &n1);
    for (uint64_t attempt = 1; attempt < 100; attempt++) {
        char remark[32];
        snprintf(remark, sizeof remark, "REMARK %03d ", (int)(900 + attempt));
        state[0] = fnv(fnv(0xcbf29ce484222325ULL, b0, n0), (const unsigned char *)remark, strlen(remark));
        state[1] = fnv(fnv(0xcbf29ce484222325ULL, b1, n1), (const unsigned char *)remark, strlen(remark));
        uint64_t start = attempt * 0x9E3779B97F4A7C15ULL, power = 1, lambda = 1, t = start, h = step(start);
        while (t != h) {
            if (power == lambda) { t = h; power *= 2; lambda = 0; }
            h = step(h);
            lambda++;
        }
        t = h = start;
        for (uint64_t i = 0; i < lambda; i++) h = step(h);
        uint64_t pt = 0, ph = 0, mu = 0;
        while (t != h) { pt = t; ph = h; t = step(t); h = step(h); mu++; }
        fprintf(stderr, "%s: cycle %llu, entered after %llu steps\n", remark, (unsigned long long)lambda, (unsigned long long)mu);
        if (mu == 0 || (pt & 1) == (ph & 1)) continue;
        char a[12], b[12];
        tail(pt, a); tail(ph, b);
        printf("%s%s\t(after file %d)\n%s%s\t(after file %d)\n", remark, a, (int)(pt & 1), remark, b, (int)(ph & 1));
        return 0;
    }
    return 1;
}
