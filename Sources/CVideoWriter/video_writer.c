#include "video_writer.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>

#define TEXT(x) #x
#define NUMBER(x) TEXT(x)

/// FFmpeg's functions, found at run time in the libraries of the major versions built against.
static struct {
    __typeof__(av_log_set_level) *log_set_level;
    __typeof__(av_frame_alloc) *frame_alloc;
    __typeof__(av_frame_get_buffer) *frame_get_buffer;
    __typeof__(av_frame_make_writable) *frame_make_writable;
    __typeof__(av_frame_free) *frame_free;
    __typeof__(av_opt_set) *opt_set;
    __typeof__(av_dict_set) *dict_set;
    __typeof__(av_dict_free) *dict_free;
    __typeof__(av_strerror) *strerror;
    __typeof__(av_d2q) *d2q;
    __typeof__(sws_getContext) *sws_get_context;
    __typeof__(sws_scale) *sws_scale;
    __typeof__(sws_freeContext) *sws_free_context;
    __typeof__(sws_setColorspaceDetails) *sws_set_colorspace_details;
    __typeof__(sws_getCoefficients) *sws_get_coefficients;
    __typeof__(avcodec_find_encoder_by_name) *find_encoder_by_name;
    __typeof__(avcodec_find_encoder) *find_encoder;
    __typeof__(avcodec_alloc_context3) *alloc_context;
    __typeof__(avcodec_open2) *codec_open;
    __typeof__(avcodec_parameters_from_context) *parameters_from_context;
    __typeof__(avcodec_send_frame) *send_frame;
    __typeof__(avcodec_receive_packet) *receive_packet;
    __typeof__(avcodec_free_context) *free_context;
    __typeof__(av_packet_alloc) *packet_alloc;
    __typeof__(av_packet_free) *packet_free;
    __typeof__(av_packet_rescale_ts) *packet_rescale_ts;
    __typeof__(avformat_alloc_output_context2) *alloc_output;
    __typeof__(avformat_new_stream) *new_stream;
    __typeof__(avio_open) *avio_open;
    __typeof__(avio_closep) *avio_closep;
    __typeof__(avformat_write_header) *write_header;
    __typeof__(av_interleaved_write_frame) *write_frame;
    __typeof__(av_write_trailer) *write_trailer;
    __typeof__(avformat_free_context) *free_format;
} ff;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_failure[512];

static void load(void) {
    static const char *names[] = {
        "libavutil.so." NUMBER(LIBAVUTIL_VERSION_MAJOR), "libswscale.so." NUMBER(LIBSWSCALE_VERSION_MAJOR),
        "libavcodec.so." NUMBER(LIBAVCODEC_VERSION_MAJOR), "libavformat.so." NUMBER(LIBAVFORMAT_VERSION_MAJOR),
    };
    void *handles[4];
    for (int i = 0; i < 4; i++) {
        handles[i] = dlopen(names[i], RTLD_LAZY | RTLD_LOCAL);
        if (!handles[i]) {
            const char *why = dlerror();
            snprintf(load_failure, sizeof load_failure,
                     "movies need FFmpeg's libraries, and %s could not be opened (%s): install libavformat" NUMBER(LIBAVFORMAT_VERSION_MAJOR)
                     " and libswscale" NUMBER(LIBSWSCALE_VERSION_MAJOR) " (Debian), or write PNG frames or an animated PNG instead",
                     names[i], why ? why : "not found");
            return;
        }
    }
    struct { void **address; int library; const char *name; } symbols[] = {
        {(void **)&ff.log_set_level, 0, "av_log_set_level"}, {(void **)&ff.frame_alloc, 0, "av_frame_alloc"},
        {(void **)&ff.frame_get_buffer, 0, "av_frame_get_buffer"}, {(void **)&ff.frame_make_writable, 0, "av_frame_make_writable"},
        {(void **)&ff.frame_free, 0, "av_frame_free"}, {(void **)&ff.opt_set, 0, "av_opt_set"},
        {(void **)&ff.dict_set, 0, "av_dict_set"}, {(void **)&ff.dict_free, 0, "av_dict_free"},
        {(void **)&ff.strerror, 0, "av_strerror"}, {(void **)&ff.d2q, 0, "av_d2q"},
        {(void **)&ff.sws_get_context, 1, "sws_getContext"}, {(void **)&ff.sws_scale, 1, "sws_scale"},
        {(void **)&ff.sws_free_context, 1, "sws_freeContext"}, {(void **)&ff.sws_set_colorspace_details, 1, "sws_setColorspaceDetails"},
        {(void **)&ff.sws_get_coefficients, 1, "sws_getCoefficients"},
        {(void **)&ff.find_encoder_by_name, 2, "avcodec_find_encoder_by_name"}, {(void **)&ff.find_encoder, 2, "avcodec_find_encoder"},
        {(void **)&ff.alloc_context, 2, "avcodec_alloc_context3"}, {(void **)&ff.codec_open, 2, "avcodec_open2"},
        {(void **)&ff.parameters_from_context, 2, "avcodec_parameters_from_context"}, {(void **)&ff.send_frame, 2, "avcodec_send_frame"},
        {(void **)&ff.receive_packet, 2, "avcodec_receive_packet"}, {(void **)&ff.free_context, 2, "avcodec_free_context"},
        {(void **)&ff.packet_alloc, 2, "av_packet_alloc"}, {(void **)&ff.packet_free, 2, "av_packet_free"},
        {(void **)&ff.packet_rescale_ts, 2, "av_packet_rescale_ts"},
        {(void **)&ff.alloc_output, 3, "avformat_alloc_output_context2"}, {(void **)&ff.new_stream, 3, "avformat_new_stream"},
        {(void **)&ff.avio_open, 3, "avio_open"}, {(void **)&ff.avio_closep, 3, "avio_closep"},
        {(void **)&ff.write_header, 3, "avformat_write_header"}, {(void **)&ff.write_frame, 3, "av_interleaved_write_frame"},
        {(void **)&ff.write_trailer, 3, "av_write_trailer"}, {(void **)&ff.free_format, 3, "avformat_free_context"},
    };
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        if (!(*symbols[i].address = dlsym(handles[symbols[i].library], symbols[i].name))) {
            snprintf(load_failure, sizeof load_failure, "%s has no %s", names[symbols[i].library], symbols[i].name);
            return;
        }
    }
    // Errors only: x264's statistics and libvpx's notes are not for the user's terminal.
    ff.log_set_level(AV_LOG_ERROR);
}

int molshot_video_available(char *message, size_t message_size) {
    pthread_once(&once, load);
    if (load_failure[0]) {
        snprintf(message, message_size, "%s", load_failure);
        return 1;
    }
    return 0;
}

enum { MP4 = 0, WEBM = 1, GIF = 2 };
/// GIF colours are counted in bins of 5 bits a channel.
#define BINS 32768

struct molshot_video {
    int kind;
    int width, height;        // the pictures'
    int coded_width, coded_height;  // even for yuv420p
    double fps;
    uint32_t matte;
    AVFormatContext *format;
    AVCodecContext *codec;
    AVStream *stream;
    struct SwsContext *scaler;
    AVFrame *frame;
    AVPacket *packet;
    int64_t frames;
    int header_written;
    uint8_t *opaque;          // one picture laid over the matte: RGBA (MP4, WebM) or RGB (GIF)
    // GIF: frames spooled, colours counted.
    FILE *spool;
    uint32_t *counts;
    uint64_t *sums;           // r, g, b sums per bin
    char *path;               // written at the end
};

static void say(char *message, size_t size, const char *what, int error) {
    char text[256] = "";
    if (error && ff.strerror) ff.strerror(error, text, sizeof text);
    snprintf(message, size, error ? "%s: %s" : "%s", what, text);
}

static void release(molshot_video *v) {
    if (!v) return;
    if (v->scaler) ff.sws_free_context(v->scaler);
    if (v->frame) ff.frame_free(&v->frame);
    if (v->packet) ff.packet_free(&v->packet);
    if (v->codec) ff.free_context(&v->codec);
    if (v->format) {
        if (v->format->pb) ff.avio_closep(&v->format->pb);
        ff.free_format(v->format);
    }
    if (v->spool) fclose(v->spool);
    free(v->opaque);
    free(v->counts);
    free(v->sums);
    free(v->path);
    free(v);
}

/// Sends `frame` (NULL drains) and writes the packets that come out.
static int encode(molshot_video *v, AVFrame *frame, char *message, size_t message_size) {
    int status = ff.send_frame(v->codec, frame);
    if (status < 0) { say(message, message_size, "the encoder refused a frame", status); return 1; }
    for (;;) {
        status = ff.receive_packet(v->codec, v->packet);
        if (status == AVERROR(EAGAIN) || status == AVERROR_EOF) return 0;
        if (status < 0) { say(message, message_size, "encoding failed", status); return 1; }
        if (v->packet->duration == 0) v->packet->duration = v->kind == GIF ? (int64_t)llround(100.0 / v->fps) : 1;
        ff.packet_rescale_ts(v->packet, v->codec->time_base, v->stream->time_base);
        v->packet->stream_index = v->stream->index;
        status = ff.write_frame(v->format, v->packet);
        if (status < 0) { say(message, message_size, "writing the movie failed", status); return 1; }
    }
}

/// Opens the codec and the file; GIF's is opened at the end, when its palette is known.
static int start(molshot_video *v, const char *path, int quality, char *message, size_t message_size) {
    const char *container = v->kind == MP4 ? "mp4" : v->kind == WEBM ? "webm" : "gif";
    int status = ff.alloc_output(&v->format, NULL, container, path);
    if (status < 0 || !v->format) { say(message, message_size, "FFmpeg has no muxer for this movie", status); return 1; }
    const AVCodec *codec = v->kind == MP4 ? ff.find_encoder_by_name("libx264")
                           : v->kind == WEBM ? ff.find_encoder_by_name("libvpx-vp9") : ff.find_encoder(AV_CODEC_ID_GIF);
    if (!codec) {
        snprintf(message, message_size, "this FFmpeg has no %s encoder", v->kind == MP4 ? "H.264 (libx264)" : v->kind == WEBM ? "VP9 (libvpx)" : "GIF");
        return 1;
    }
    v->stream = ff.new_stream(v->format, NULL);
    v->codec = ff.alloc_context(codec);
    if (!v->stream || !v->codec) { snprintf(message, message_size, "out of memory opening the encoder"); return 1; }
    AVCodecContext *c = v->codec;
    c->width = v->coded_width;
    c->height = v->coded_height;
    AVRational rate = ff.d2q(v->fps, 1001000);
    c->framerate = rate;
    c->time_base = v->kind == GIF ? (AVRational){1, 100} : (AVRational){rate.den, rate.num};
    v->stream->time_base = c->time_base;
    v->stream->avg_frame_rate = rate;
    if (v->kind == GIF) {
        c->pix_fmt = AV_PIX_FMT_PAL8;
    } else {
        c->pix_fmt = AV_PIX_FMT_YUV420P;
        c->color_range = AVCOL_RANGE_MPEG;
        c->colorspace = AVCOL_SPC_BT709;
        c->color_primaries = AVCOL_PRI_BT709;
        c->color_trc = AVCOL_TRC_BT709;
        char crf[16];
        if (v->kind == MP4) {
            // quality 0: crf 18, visually lossless for these pictures; 100: crf 0.
            snprintf(crf, sizeof crf, "%d", quality > 0 ? (int)lround(51 - quality * 0.51) : 18);
            ff.opt_set(c->priv_data, "preset", "medium", 0);
            ff.opt_set(c->priv_data, "crf", crf, 0);
        } else {
            snprintf(crf, sizeof crf, "%d", quality > 0 ? (int)lround(63 - quality * 0.63) : 30);
            c->bit_rate = 0;
            ff.opt_set(c->priv_data, "crf", crf, 0);
            ff.opt_set(c->priv_data, "deadline", "good", 0);
            ff.opt_set(c->priv_data, "cpu-used", "5", 0);
            ff.opt_set(c->priv_data, "row-mt", "1", 0);
        }
    }
    if (v->format->oformat->flags & AVFMT_GLOBALHEADER) c->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    status = ff.codec_open(c, codec, NULL);
    if (status < 0) { say(message, message_size, "the encoder could not be opened", status); return 1; }
    status = ff.parameters_from_context(v->stream->codecpar, c);
    if (status < 0) { say(message, message_size, "the stream could not be set up", status); return 1; }
    status = ff.avio_open(&v->format->pb, path, AVIO_FLAG_WRITE);
    if (status < 0) { say(message, message_size, "the movie file could not be opened", status); return 1; }
    AVDictionary *options = NULL;
    if (v->kind == MP4) ff.dict_set(&options, "movflags", "+faststart", 0);
    status = ff.write_header(v->format, &options);
    ff.dict_free(&options);
    if (status < 0) { say(message, message_size, "the movie's header could not be written", status); return 1; }
    v->header_written = 1;
    v->frame = ff.frame_alloc();
    v->packet = ff.packet_alloc();
    if (!v->frame || !v->packet) { snprintf(message, message_size, "out of memory"); return 1; }
    v->frame->format = c->pix_fmt;
    v->frame->width = c->width;
    v->frame->height = c->height;
    status = ff.frame_get_buffer(v->frame, 0);
    if (status < 0) { say(message, message_size, "no memory for a frame", status); return 1; }
    if (v->kind != GIF) {
        v->scaler = ff.sws_get_context(c->width, c->height, AV_PIX_FMT_RGBA, c->width, c->height, AV_PIX_FMT_YUV420P,
                                       SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INP, NULL, NULL, NULL);
        if (!v->scaler) { snprintf(message, message_size, "the colour converter could not be made"); return 1; }
        const int *bt709 = ff.sws_get_coefficients(SWS_CS_ITU709);
        ff.sws_set_colorspace_details(v->scaler, bt709, 1, bt709, 0, 0, 1 << 16, 1 << 16);
    }
    return 0;
}

molshot_video *molshot_video_open(const char *path, int kind, int width, int height, double fps, int quality,
                                  uint32_t matte, char *message, size_t message_size) {
    if (molshot_video_available(message, message_size)) return NULL;
    if (kind < MP4 || kind > GIF || width < 1 || height < 1 || width > 16384 || height > 16384 || !(fps > 0 && fps <= 240)) {
        snprintf(message, message_size, "a movie needs a size from 1 to 16384 and 0 < fps <= 240");
        return NULL;
    }
    molshot_video *v = calloc(1, sizeof *v);
    if (!v) { snprintf(message, message_size, "out of memory"); return NULL; }
    v->kind = kind;
    v->width = width;
    v->height = height;
    v->coded_width = kind == GIF ? width : (width + 1) & ~1;
    v->coded_height = kind == GIF ? height : (height + 1) & ~1;
    v->fps = fps;
    v->matte = matte;
    v->opaque = malloc((size_t)v->coded_width * v->coded_height * 4);
    if (!v->opaque) { snprintf(message, message_size, "out of memory"); release(v); return NULL; }
    if (kind == GIF) {
        v->spool = tmpfile();
        v->counts = calloc(BINS, sizeof *v->counts);
        v->sums = calloc(BINS * 3, sizeof *v->sums);
        if (!v->spool || !v->counts || !v->sums) { snprintf(message, message_size, "no temporary file for the GIF's frames"); release(v); return NULL; }
        // Opened now so that a path that cannot be written fails before any frame is drawn.
        FILE *probe = fopen(path, "wb");
        if (!probe) { snprintf(message, message_size, "the movie file could not be opened"); release(v); return NULL; }
        fclose(probe);
        v->path = strdup(path);
        if (!v->path) { snprintf(message, message_size, "out of memory"); release(v); return NULL; }
        return v;
    }
    if (start(v, path, quality, message, message_size)) { release(v); return NULL; }
    return v;
}

/// The picture laid over the matte into `v->opaque`: RGBA padded to the coded size (yuv), or RGB (GIF).
static void flatten(molshot_video *v, const uint8_t *rgba, size_t stride) {
    int mr = v->matte >> 16 & 0xFF, mg = v->matte >> 8 & 0xFF, mb = v->matte & 0xFF;
    int channels = v->kind == GIF ? 3 : 4, width = v->kind == GIF ? v->width : v->coded_width;
    for (int y = 0; y < (v->kind == GIF ? v->height : v->coded_height); y++) {
        const uint8_t *row = rgba + (size_t)(y < v->height ? y : v->height - 1) * stride;
        uint8_t *out = v->opaque + (size_t)y * width * channels;
        for (int x = 0; x < width; x++) {
            const uint8_t *p = row + (size_t)(x < v->width ? x : v->width - 1) * 4;
            int a = p[3];
            uint8_t *o = out + (size_t)x * channels;
            if (a == 255) {
                o[0] = p[0]; o[1] = p[1]; o[2] = p[2];
            } else {
                o[0] = (uint8_t)((p[0] * a + mr * (255 - a) + 127) / 255);
                o[1] = (uint8_t)((p[1] * a + mg * (255 - a) + 127) / 255);
                o[2] = (uint8_t)((p[2] * a + mb * (255 - a) + 127) / 255);
            }
            if (channels == 4) o[3] = 255;
        }
    }
}

static int bin(int r, int g, int b) { return (r >> 3) << 10 | (g >> 3) << 5 | (b >> 3); }

int molshot_video_write(molshot_video *v, const uint8_t *rgba, size_t stride, char *message, size_t message_size) {
    flatten(v, rgba, stride);
    if (v->kind == GIF) {
        size_t n = (size_t)v->width * v->height;
        for (size_t i = 0; i < n; i++) {
            const uint8_t *p = v->opaque + 3 * i;
            int k = bin(p[0], p[1], p[2]);
            v->counts[k]++;
            v->sums[3 * k] += p[0];
            v->sums[3 * k + 1] += p[1];
            v->sums[3 * k + 2] += p[2];
        }
        if (fwrite(v->opaque, 3, n, v->spool) != n) { snprintf(message, message_size, "the GIF's temporary file could not be written (disk full?)"); return 1; }
        v->frames++;
        return 0;
    }
    int status = ff.frame_make_writable(v->frame);
    if (status < 0) { say(message, message_size, "no frame to write into", status); return 1; }
    const uint8_t *planes[1] = {v->opaque};
    int strides[1] = {v->coded_width * 4};
    ff.sws_scale(v->scaler, planes, strides, 0, v->coded_height, v->frame->data, v->frame->linesize);
    v->frame->pts = v->frames++;
    return encode(v, v->frame, message, message_size);
}

/// A box of colour bins for the median cut.
typedef struct { int start, end; uint64_t pixels; int axis, spread; } box;

static int channel(int k, int axis) { return axis == 0 ? k >> 10 & 31 : axis == 1 ? k >> 5 & 31 : k & 31; }

static void measure(box *b, const int *bins, const uint32_t *counts) {
    int lo[3] = {31, 31, 31}, hi[3] = {0, 0, 0};
    b->pixels = 0;
    for (int i = b->start; i < b->end; i++) {
        for (int a = 0; a < 3; a++) {
            int c = channel(bins[i], a);
            if (c < lo[a]) lo[a] = c;
            if (c > hi[a]) hi[a] = c;
        }
        b->pixels += counts[bins[i]];
    }
    b->axis = 0;
    for (int a = 1; a < 3; a++) if (hi[a] - lo[a] > hi[b->axis] - lo[b->axis]) b->axis = a;
    b->spread = hi[b->axis] - lo[b->axis];
}

static int sort_axis;
static int by_axis(const void *x, const void *y) {
    return channel(*(const int *)x, sort_axis) - channel(*(const int *)y, sort_axis);
}

/// Up to 256 colours for the whole movie by median cut of its colour counts; `map` gives each bin its colour.
static int choose_palette(molshot_video *v, uint32_t palette[256], uint8_t *map) {
    int *bins = malloc(BINS * sizeof *bins), used = 0;
    if (!bins) return 0;
    for (int k = 0; k < BINS; k++) if (v->counts[k]) bins[used++] = k;
    box boxes[256];
    int count = 1;
    boxes[0] = (box){0, used, 0, 0, 0};
    measure(&boxes[0], bins, v->counts);
    while (count < 256) {
        // The box with the most pixels spread over the widest range is cut at its median pixel.
        int pick = -1;
        double best = 0;
        for (int i = 0; i < count; i++) {
            if (boxes[i].end - boxes[i].start < 2 || boxes[i].spread == 0) continue;
            double score = (double)boxes[i].pixels * boxes[i].spread;
            if (score > best) { best = score; pick = i; }
        }
        if (pick < 0) break;
        box *b = &boxes[pick];
        sort_axis = b->axis;
        qsort(bins + b->start, (size_t)(b->end - b->start), sizeof *bins, by_axis);
        uint64_t half = b->pixels / 2, seen = 0;
        int cut = b->start + 1;
        for (int i = b->start; i < b->end - 1; i++) {
            seen += v->counts[bins[i]];
            cut = i + 1;
            if (seen >= half) break;
        }
        boxes[count] = (box){cut, b->end, 0, 0, 0};
        b->end = cut;
        measure(b, bins, v->counts);
        measure(&boxes[count], bins, v->counts);
        count++;
    }
    int colours[256][3];
    for (int i = 0; i < count; i++) {
        uint64_t s[3] = {0, 0, 0}, n = 0;
        for (int j = boxes[i].start; j < boxes[i].end; j++) {
            int k = bins[j];
            for (int a = 0; a < 3; a++) s[a] += v->sums[3 * k + a];
            n += v->counts[k];
        }
        for (int a = 0; a < 3; a++) colours[i][a] = n ? (int)((s[a] + n / 2) / n) : 0;
        palette[i] = 0xFF000000u | (uint32_t)colours[i][0] << 16 | (uint32_t)colours[i][1] << 8 | (uint32_t)colours[i][2];
    }
    for (int i = count; i < 256; i++) palette[i] = 0xFF000000u;
    // Each bin to the nearest colour of the palette (its mean colour where it was seen).
    for (int k = 0; k < BINS; k++) {
        int r, g, b;
        if (v->counts[k]) {
            r = (int)(v->sums[3 * k] / v->counts[k]); g = (int)(v->sums[3 * k + 1] / v->counts[k]); b = (int)(v->sums[3 * k + 2] / v->counts[k]);
        } else {
            r = (k >> 10 & 31) << 3 | 4; g = (k >> 5 & 31) << 3 | 4; b = (k & 31) << 3 | 4;
        }
        int best = 0, bestDistance = 1 << 30;
        for (int i = 0; i < count; i++) {
            int dr = r - colours[i][0], dg = g - colours[i][1], db = b - colours[i][2];
            int d = 2 * dr * dr + 4 * dg * dg + 3 * db * db;
            if (d < bestDistance) { bestDistance = d; best = i; }
        }
        map[k] = (uint8_t)best;
    }
    free(bins);
    return count;
}

static int finish_gif(molshot_video *v, char *message, size_t message_size) {
    if (v->frames == 0) { snprintf(message, message_size, "a movie needs at least one frame"); return 1; }
    uint32_t palette[256];
    uint8_t *map = malloc(BINS);
    if (!map) { snprintf(message, message_size, "out of memory"); return 1; }
    if (!choose_palette(v, palette, map)) { free(map); snprintf(message, message_size, "out of memory"); return 1; }
    if (start(v, v->path, 0, message, message_size)) { free(map); return 1; }
    rewind(v->spool);
    size_t n = (size_t)v->width * v->height;
    // A 4x4 ordered dither of a third of a bin keeps shaded spheres from banding.
    static const int bayer[4][4] = {{0, 8, 2, 10}, {12, 4, 14, 6}, {3, 11, 1, 9}, {15, 7, 13, 5}};
    for (int64_t f = 0; f < v->frames; f++) {
        if (fread(v->opaque, 3, n, v->spool) != n) { snprintf(message, message_size, "the GIF's temporary file could not be read"); free(map); return 1; }
        int status = ff.frame_make_writable(v->frame);
        if (status < 0) { say(message, message_size, "no frame to write into", status); free(map); return 1; }
        memcpy(v->frame->data[1], palette, sizeof palette);
        for (int y = 0; y < v->height; y++) {
            uint8_t *out = v->frame->data[0] + (size_t)y * v->frame->linesize[0];
            const uint8_t *p = v->opaque + (size_t)y * v->width * 3;
            for (int x = 0; x < v->width; x++, p += 3) {
                int d = (bayer[y & 3][x & 3] - 8) / 3;
                int r = p[0] + d, g = p[1] + d, b = p[2] + d;
                r = r < 0 ? 0 : r > 255 ? 255 : r; g = g < 0 ? 0 : g > 255 ? 255 : g; b = b < 0 ? 0 : b > 255 ? 255 : b;
                out[x] = map[bin(r, g, b)];
            }
        }
        v->frame->pts = llround((double)f * 100.0 / v->fps);
        if (encode(v, v->frame, message, message_size)) { free(map); return 1; }
    }
    free(map);
    return 0;
}

int molshot_video_close(molshot_video *v, char *message, size_t message_size) {
    int failed = 0;
    if (v->kind == GIF) failed = finish_gif(v, message, message_size);
    else if (v->frames == 0) { snprintf(message, message_size, "a movie needs at least one frame"); failed = 1; }
    if (!failed) failed = encode(v, NULL, message, message_size);
    if (!failed) {
        int status = ff.write_trailer(v->format);
        if (status < 0) { say(message, message_size, "the movie's end could not be written", status); failed = 1; }
    }
    release(v);
    return failed;
}

void molshot_video_abort(molshot_video *v) { release(v); }
