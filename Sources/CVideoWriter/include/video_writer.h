#ifndef MOLSHOT_VIDEO_WRITER_H
#define MOLSHOT_VIDEO_WRITER_H
#include <stddef.h>
#include <stdint.h>

/// Movies through FFmpeg's libraries (libavformat, libavcodec, libswscale, libavutil), opened at
/// run time (dlopen of the sonames these headers were built with), so that commands that make no
/// movie neither load them nor need them installed.
///
/// Kinds: 0 MP4 with H.264 (libx264, yuv420p, BT.709, "faststart": the index first, as
/// PowerPoint, Keynote and browsers want it); 1 WebM with VP9 (libvpx); 2 GIF with one 256-colour
/// palette for the whole movie (frames are spooled to an unlinked temporary file and their
/// colours counted; the palette is chosen and the frames encoded at the end, so memory does not
/// grow with the movie). Pictures of odd width or height are padded by repeating their last column
/// or row (yuv420p needs even sizes). Pixels are RGBA, rows `stride` bytes apart, top row first,
/// laid over `matte` (0xRRGGBB) where not opaque.
typedef struct molshot_video molshot_video;

/// Opens `path` for a movie of `kind`; `fps` frames a second; `quality` 0-100 (0: the kind's
/// default). NULL with `message` filled on failure (FFmpeg's libraries missing among them).
molshot_video *molshot_video_open(const char *path, int kind, int width, int height, double fps, int quality,
                                  uint32_t matte, char *message, size_t message_size);
/// Adds one frame. Returns 0, or nonzero with `message` filled.
int molshot_video_write(molshot_video *video, const uint8_t *rgba, size_t stride, char *message, size_t message_size);
/// Ends the movie (the encoder's last frames, the trailer) and frees it. Returns 0 or nonzero with `message`.
int molshot_video_close(molshot_video *video, char *message, size_t message_size);
/// Frees a movie without ending it (its file is left unfinished: remove it).
void molshot_video_abort(molshot_video *video);
/// Whether FFmpeg's libraries open here: 0, or nonzero with `message` naming what is missing.
int molshot_video_available(char *message, size_t message_size);

#endif
