#ifndef MOLSHOT_PNG_WRITER_H
#define MOLSHOT_PNG_WRITER_H
#include <stddef.h>
#include <stdint.h>

// PNG files written in strips on several threads (zlib, libdeflate or at level 1 ISA-L for the last strip, or fast_deflate.c), and read back with libpng's simplified API.

/// Encodes 8-bit RGBA rows (top row first, `stride` bytes apart) as PNG into a malloc'd buffer.
/// `level` is the zlib level 0-9; `filters` one MOLSHOT_PNG_FILTER_* (ALL, or 0: the best of the five a row); with
/// `opaque` set (every alpha 255) the file is RGB, a quarter less to compress and store. With `runs_and_rows`
/// and one filter, the rows are deflated by fast_deflate.c (matches a pixel back and in the row above) instead
/// of zlib, whatever the level.
/// Returns 0 and sets *out, *out_size on success; otherwise writes a message into `error`.
int molshot_png_encode(const uint8_t *rgba, int width, int height, size_t stride, int level, int filters, int opaque,
                       int runs_and_rows, uint8_t **out, size_t *out_size, char *error, size_t error_size);

void molshot_png_free(uint8_t *buffer);

enum {
    MOLSHOT_PNG_FILTER_NONE = 0x08,
    MOLSHOT_PNG_FILTER_SUB = 0x10,
    MOLSHOT_PNG_FILTER_UP = 0x20,
    MOLSHOT_PNG_FILTER_ALL = 0xF8
};
#endif

#ifndef MOLSHOT_PNG_READER_H
#define MOLSHOT_PNG_READER_H
/// Decodes a PNG file to 8-bit RGBA (top row first) into a malloc'd buffer.
/// Returns 0 on success; otherwise writes a message into `error`.
int molshot_png_decode_file(const char *path, uint8_t **rgba, int *width, int *height, char *error, size_t error_size);
#endif
