#include "include/COpenGL.h"
#include <stdint.h>

/// An entry point by name and where its address goes.
struct molshot_gl_symbol {
    const char *name;
    void **address;
};

/// Every entry point Molshot calls, ending with a null name (gl_entry_points.c).
extern const struct molshot_gl_symbol molshot_gl_symbols[];

// EGL 1.5 (EGL/egl.h, EGL/eglext.h of libegl-dev): the types, constants and calls Molshot uses.
typedef void *EGLDisplay, *EGLConfig, *EGLContext, *EGLSurface, *EGLDeviceEXT;
typedef int32_t EGLint;
typedef unsigned int EGLBoolean;
typedef unsigned int EGLenum;
typedef intptr_t EGLAttrib;
#define EGL_NONE 0x3038
#define EGL_EXTENSIONS 0x3055
#define EGL_VENDOR 0x3053
#define EGL_RENDERABLE_TYPE 0x3040
#define EGL_OPENGL_BIT 0x0008
#define EGL_OPENGL_API 0x30A2
#define EGL_CONTEXT_MAJOR_VERSION 0x3098
#define EGL_CONTEXT_MINOR_VERSION 0x30FB
#define EGL_CONTEXT_OPENGL_PROFILE_MASK 0x30FD
#define EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT 0x0001
#define EGL_PLATFORM_DEVICE_EXT 0x313F
#define EGL_PLATFORM_SURFACELESS_MESA 0x31DD
#define EGL_DRM_DEVICE_FILE_EXT 0x3233
#define EGL_DRM_RENDER_NODE_FILE_EXT 0x3377

struct molshot_egl_calls {
    void *(*GetProcAddress)(const char *);
    const char *(*QueryString)(EGLDisplay, EGLint);
    EGLDisplay (*GetPlatformDisplay)(EGLenum, void *, const EGLAttrib *);
    EGLBoolean (*Initialize)(EGLDisplay, EGLint *, EGLint *);
    EGLBoolean (*Terminate)(EGLDisplay);
    EGLBoolean (*ChooseConfig)(EGLDisplay, const EGLint *, EGLConfig *, EGLint, EGLint *);
    EGLBoolean (*BindAPI)(EGLenum);
    EGLContext (*CreateContext)(EGLDisplay, EGLConfig, EGLContext, const EGLint *);
    EGLBoolean (*DestroyContext)(EGLDisplay, EGLContext);
    EGLBoolean (*MakeCurrent)(EGLDisplay, EGLSurface, EGLSurface, EGLContext);
    EGLint (*GetError)(void);
    // EGL_EXT_device_enumeration and EGL_EXT_device_query, where the client has them.
    EGLBoolean (*QueryDevices)(EGLint, EGLDeviceEXT *, EGLint *);
    const char *(*QueryDeviceString)(EGLDeviceEXT, EGLint);
};

/// EGL's calls, filled by the loader when EGL is the backend.
extern struct molshot_egl_calls molshot_egl;
