#ifndef MOLSHOT_FAST_DEFLATE_H
#define MOLSHOT_FAST_DEFLATE_H

#include <stddef.h>
#include <stdint.h>

enum { MOLSHOT_DEFLATE_BLOCK_TOKENS = 32768 };

/// A raw deflate stream written row by row (`fast_deflate.c`): matches a pixel back, a byte back
/// and in the row above, each block with its own Huffman codes.
typedef struct {
    uint8_t *out;
    size_t capacity, at;
    uint64_t bits;
    int bit_count, overflow;
    size_t tokens;
    uint16_t token_value[MOLSHOT_DEFLATE_BLOCK_TOKENS];    /* a literal byte, or a match's length */
    uint16_t token_distance[MOLSHOT_DEFLATE_BLOCK_TOKENS]; /* 0 for a literal */
} molshot_deflate;

void molshot_deflate_init(molshot_deflate *d, uint8_t *out, size_t capacity);
/// Adds `length` bytes; `previous` (or NULL) is the row written just before, of the same length.
void molshot_deflate_row(molshot_deflate *d, const uint8_t *line, const uint8_t *previous, size_t length, int bpp);
/// Ends the stream (`final`), or ends this piece on a byte boundary so that another can follow.
/// Returns the bytes written, or 0 if they did not fit in the capacity.
size_t molshot_deflate_finish(molshot_deflate *d, int final);

#endif
