#include "png_writer.h"
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint8_t *data;
    size_t size;
    size_t capacity;
    int failed;
} sink;

typedef struct {
    jmp_buf jump;
    char *error;
    size_t error_size;
} failure;

static void on_error(png_structp png, png_const_charp message) {
    failure *f = (failure *)png_get_error_ptr(png);
    snprintf(f->error, f->error_size, "%s", message);
    longjmp(f->jump, 1);
}

static void on_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

static void on_write(png_structp png, png_bytep data, png_size_t length) {
    sink *s = (sink *)png_get_io_ptr(png);
    if (s->failed) return;
    if (s->size + length > s->capacity) {
        size_t capacity = s->capacity ? s->capacity : 65536;
        while (capacity < s->size + length) capacity *= 2;
        uint8_t *grown = (uint8_t *)realloc(s->data, capacity);
        if (!grown) {
            s->failed = 1;
            png_error(png, "out of memory");
            return;
        }
        s->data = grown;
        s->capacity = capacity;
    }
    memcpy(s->data + s->size, data, length);
    s->size += length;
}

static void on_flush(png_structp png) { (void)png; }

int molshot_png_encode(const uint8_t *rgba, int width, int height, size_t stride, int level, int filters, int opaque,
                       uint8_t **out, size_t *out_size, char *error, size_t error_size) {
    failure f;
    f.error = error;
    f.error_size = error_size;
    sink s = {0, 0, 0, 0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &f, on_error, on_warning);
    if (!png) {
        snprintf(error, error_size, "cannot create PNG writer");
        return 1;
    }
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        snprintf(error, error_size, "cannot create PNG info");
        return 1;
    }
    if (setjmp(f.jump)) {
        png_destroy_write_struct(&png, &info);
        free(s.data);
        return 1;
    }
    png_set_write_fn(png, &s, on_write, on_flush);
    png_set_compression_level(png, level);
    if (filters) png_set_filter(png, PNG_FILTER_TYPE_BASE, filters);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, opaque ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGB_ALPHA,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
    png_write_info(png, info);
    if (opaque) png_set_filler(png, 0, PNG_FILLER_AFTER); /* rows stay RGBA in memory; the 4th byte is dropped */
    for (int y = 0; y < height; y++) {
        png_write_row(png, (png_const_bytep)(rgba + (size_t)y * stride));
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    *out = s.data;
    *out_size = s.size;
    return 0;
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
