#include "frame_writer.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <webp/encode.h>

/// libjpeg reports errors by calling error_exit, which must not return: it jumps back here.
struct jpeg_failure {
    struct jpeg_error_mgr base;
    jmp_buf back;
    char *message;
    size_t message_size;
};

static void jpeg_failed(j_common_ptr info) {
    struct jpeg_failure *failure = (struct jpeg_failure *)info->err;
    char text[JMSG_LENGTH_MAX];
    (*info->err->format_message)(info, text);
    snprintf(failure->message, failure->message_size, "JPEG: %s", text);
    longjmp(failure->back, 1);
}

int molshot_jpeg_encode(const uint8_t *rgba, int width, int height, size_t stride, int quality, uint32_t matte,
                        uint8_t **out, size_t *size, char *message, size_t message_size) {
    struct jpeg_compress_struct info;
    struct jpeg_failure failure;
    unsigned char *buffer = NULL;
    unsigned long length = 0;
    /* volatile: kept across the longjmp */
    uint8_t *volatile row = NULL;
    *out = NULL;
    *size = 0;
    if (width <= 0 || height <= 0 || width > 65500 || height > 65500) {
        snprintf(message, message_size, "JPEG: %d x %d is not a size JPEG holds", width, height);
        return 1;
    }
    row = malloc((size_t)width * 3);
    if (!row) {
        snprintf(message, message_size, "JPEG: out of memory");
        return 1;
    }
    info.err = jpeg_std_error(&failure.base);
    failure.base.error_exit = jpeg_failed;
    failure.message = message;
    failure.message_size = message_size;
    if (setjmp(failure.back)) {
        jpeg_destroy_compress(&info);
        free(buffer);
        free(row);
        return 1;
    }
    jpeg_create_compress(&info);
    jpeg_mem_dest(&info, &buffer, &length);
    info.image_width = (JDIMENSION)width;
    info.image_height = (JDIMENSION)height;
    info.input_components = 3;
    info.in_color_space = JCS_RGB;
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, quality < 1 ? 1 : quality > 100 ? 100 : quality, TRUE);
    info.dct_method = JDCT_ISLOW;
    jpeg_start_compress(&info, TRUE);
    const int mr = (matte >> 16) & 255, mg = (matte >> 8) & 255, mb = matte & 255;
    while (info.next_scanline < info.image_height) {
        const uint8_t *p = rgba + (size_t)info.next_scanline * stride;
        uint8_t *q = row;
        for (int x = 0; x < width; x++, p += 4, q += 3) {
            const int a = p[3];
            if (a == 255) {
                q[0] = p[0]; q[1] = p[1]; q[2] = p[2];
            } else {
                /* Straight alpha, laid over the matte. */
                q[0] = (uint8_t)((p[0] * a + mr * (255 - a) + 127) / 255);
                q[1] = (uint8_t)((p[1] * a + mg * (255 - a) + 127) / 255);
                q[2] = (uint8_t)((p[2] * a + mb * (255 - a) + 127) / 255);
            }
        }
        JSAMPROW rows[1] = { row };
        jpeg_write_scanlines(&info, rows, 1);
    }
    jpeg_finish_compress(&info);
    jpeg_destroy_compress(&info);
    free(row);
    *out = buffer;
    *size = length;
    return 0;
}

int molshot_webp_encode(const uint8_t *rgba, int width, int height, size_t stride, int quality, int keep_alpha,
                        uint8_t **out, size_t *size, char *message, size_t message_size) {
    *out = NULL;
    *size = 0;
    if (width <= 0 || height <= 0 || width > WEBP_MAX_DIMENSION || height > WEBP_MAX_DIMENSION) {
        snprintf(message, message_size, "WebP: %d x %d is not a size WebP holds (at most %d a side)", width, height, WEBP_MAX_DIMENSION);
        return 1;
    }
    WebPConfig config;
    WebPPicture picture;
    WebPMemoryWriter writer;
    if (!WebPConfigInit(&config) || !WebPPictureInit(&picture)) {
        snprintf(message, message_size, "WebP: this libwebp does not match its headers");
        return 1;
    }
    config.quality = (float)(quality < 0 ? 0 : quality > 100 ? 100 : quality);
    /* Live frames: speed over the last percent of size. */
    config.method = 0;
    config.alpha_quality = 100;
    picture.use_argb = 1;
    picture.width = width;
    picture.height = height;
    int imported = keep_alpha ? WebPPictureImportRGBA(&picture, rgba, (int)stride)
                              : WebPPictureImportRGBX(&picture, rgba, (int)stride);
    if (!imported) {
        snprintf(message, message_size, "WebP: out of memory for a %d x %d picture", width, height);
        WebPPictureFree(&picture);
        return 1;
    }
    WebPMemoryWriterInit(&writer);
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &writer;
    int ok = WebPEncode(&config, &picture);
    int code = picture.error_code;
    WebPPictureFree(&picture);
    if (!ok) {
        WebPMemoryWriterClear(&writer);
        snprintf(message, message_size, "WebP: encoding failed (libwebp error %d)", code);
        return 1;
    }
    *out = writer.mem;
    *size = writer.size;
    return 0;
}

void molshot_jpeg_free(uint8_t *buffer) { free(buffer); }

void molshot_webp_free(uint8_t *buffer) { WebPFree(buffer); }
