#ifndef MOLSHOT_FRAME_WRITER_H
#define MOLSHOT_FRAME_WRITER_H
#include <stddef.h>
#include <stdint.h>

/// Lossy encodings of an RGBA picture for live frames: JPEG through libjpeg-turbo, WebP through
/// libwebp. Pixels are RGBA, rows `stride` bytes apart, top row first. Transparent pixels are
/// laid over `matte` (0xRRGGBB) for JPEG, which has no alpha; WebP keeps alpha where
/// `keep_alpha` is set. On success *out holds a malloc'd buffer of *size bytes (free with
/// molshot_jpeg_free or molshot_webp_free) and 0 is returned; otherwise a message is written to `message`.
int molshot_jpeg_encode(const uint8_t *rgba, int width, int height, size_t stride, int quality, uint32_t matte,
                        uint8_t **out, size_t *size, char *message, size_t message_size);
int molshot_webp_encode(const uint8_t *rgba, int width, int height, size_t stride, int quality, int keep_alpha,
                        uint8_t **out, size_t *size, char *message, size_t message_size);
void molshot_jpeg_free(uint8_t *buffer);
void molshot_webp_free(uint8_t *buffer);

#endif
