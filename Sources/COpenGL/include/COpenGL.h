// OpenGL opened at run time, through one of two backends: Mesa's offscreen library (OSMesa,
// libOSMesa.so.8) or EGL without a display (libEGL.so.1: a GPU's device, or Mesa's surfaceless
// platform on llvmpipe). `molshot_gl_load` (or, ahead of time on its own thread,
// `molshot_gl_preload`) opens the backend `MOLSHOT_GL` names (auto, osmesa or egl; auto takes
// OSMesa where it opens and EGL otherwise) and finds every entry point Molshot calls; until then
// they must not be called. Opening it relocates Mesa's LLVM, tens of milliseconds that a front
// end spends reading its input meanwhile.
// With OSMesa every gl* entry point comes from libOSMesa itself; never load libGL as well (every
// GL call then silently does nothing: see ../shared/design/OSMESA-NOTES.md). With EGL they come
// from eglGetProcAddress. Neither backend's headers are needed to build: the few OSMesa and EGL
// declarations Molshot uses are below (GL/gl.h and GL/glext.h come from libgl-dev).
#ifndef MOLSHOT_COPENGL_H
#define MOLSHOT_COPENGL_H
#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>
#include <stddef.h>

// OSMesa (GL/osmesa.h of libosmesa6-dev, Mesa 22): the calls and constants Molshot uses.
typedef struct osmesa_context *OSMesaContext;
#define OSMESA_FORMAT 0x22
#define OSMESA_DEPTH_BITS 0x30
#define OSMESA_STENCIL_BITS 0x31
#define OSMESA_ACCUM_BITS 0x32
#define OSMESA_PROFILE 0x33
#define OSMESA_CORE_PROFILE 0x34
#define OSMESA_CONTEXT_MAJOR_VERSION 0x36
#define OSMESA_CONTEXT_MINOR_VERSION 0x37
OSMesaContext OSMesaCreateContextAttribs(const int *attribList, OSMesaContext sharelist);
void OSMesaDestroyContext(OSMesaContext ctx);
GLboolean OSMesaMakeCurrent(OSMesaContext ctx, void *buffer, GLenum type, GLsizei width, GLsizei height);

/// The backends.
enum { MOLSHOT_GL_OSMESA = 1, MOLSHOT_GL_EGL = 2 };

/// Opens the backend `MOLSHOT_GL` asks for and finds its entry points, once per process (later
/// calls wait for the first and give its result). The backend opened (MOLSHOT_GL_OSMESA or
/// MOLSHOT_GL_EGL); otherwise -1 and what went wrong in `error`.
int molshot_gl_load(char *error, size_t error_size);

/// Starts `molshot_gl_load` on a thread of its own and returns at once.
void molshot_gl_preload(void);

/// An EGL context without a surface, on the device `MOLSHOT_GL_DEVICE` names (an index of
/// eglQueryDevicesEXT), else the first device that is not Mesa's software one, else the
/// surfaceless platform. Current on the calling thread when made. NULL with `error` filled.
/// `display_name` gets what was chosen ("device 1 (/dev/dri/renderD128)", "surfaceless").
void *molshot_egl_create(char *display_name, size_t name_size, char *error, size_t error_size);
int molshot_egl_make_current(void *context);
void molshot_egl_destroy(void *context);

/// The EGL devices, one line each ("N\tdriver\tsoftware|hardware\tdrm file") into `out`;
/// how many, or -1 where EGL cannot enumerate devices.
int molshot_egl_devices(char *out, size_t out_size);
#endif
