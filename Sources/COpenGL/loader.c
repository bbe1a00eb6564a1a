#include "gl_loader_internal.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[1024];
static int backend = -1;
struct molshot_egl_calls molshot_egl;

/// libOSMesa: every entry point from the library itself. 0, or -1 with `why` filled.
static int load_osmesa(char *why, size_t size) {
    // MOLSHOT_OSMESA_LIBRARY names another file (or hides it, for tests of the EGL fallback).
    const char *name = getenv("MOLSHOT_OSMESA_LIBRARY");
    void *handle = dlopen(name && *name ? name : "libOSMesa.so.8", RTLD_LAZY | RTLD_LOCAL);
    if (!handle && !(name && *name)) handle = dlopen("libOSMesa.so", RTLD_LAZY | RTLD_LOCAL);
    if (!handle) {
        const char *e = dlerror();
        snprintf(why, size, "OSMesa (libOSMesa.so.8) could not be opened: %s", e ? e : "not found");
        return -1;
    }
    for (const struct molshot_gl_symbol *s = molshot_gl_symbols; s->name; s++) {
        if (!(*s->address = dlsym(handle, s->name))) {
            snprintf(why, size, "OSMesa (libOSMesa) has no %s", s->name);
            return -1;
        }
    }
    return 0;
}

/// libEGL: its calls by dlsym, the GL entry points from eglGetProcAddress.
static int load_egl(char *why, size_t size) {
    void *handle = dlopen("libEGL.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!handle) {
        const char *e = dlerror();
        snprintf(why, size, "EGL (libEGL.so.1) could not be opened: %s", e ? e : "not found");
        return -1;
    }
    struct { void **address; const char *name; } calls[] = {
        {(void **)&molshot_egl.GetProcAddress, "eglGetProcAddress"}, {(void **)&molshot_egl.QueryString, "eglQueryString"},
        {(void **)&molshot_egl.GetPlatformDisplay, "eglGetPlatformDisplay"}, {(void **)&molshot_egl.Initialize, "eglInitialize"},
        {(void **)&molshot_egl.Terminate, "eglTerminate"}, {(void **)&molshot_egl.ChooseConfig, "eglChooseConfig"},
        {(void **)&molshot_egl.BindAPI, "eglBindAPI"}, {(void **)&molshot_egl.CreateContext, "eglCreateContext"},
        {(void **)&molshot_egl.DestroyContext, "eglDestroyContext"}, {(void **)&molshot_egl.MakeCurrent, "eglMakeCurrent"},
        {(void **)&molshot_egl.GetError, "eglGetError"},
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        if (!(*calls[i].address = dlsym(handle, calls[i].name))) {
            snprintf(why, size, "EGL (libEGL.so.1) has no %s (EGL 1.5 is needed)", calls[i].name);
            return -1;
        }
    }
    molshot_egl.QueryDevices = (EGLBoolean (*)(EGLint, EGLDeviceEXT *, EGLint *))molshot_egl.GetProcAddress("eglQueryDevicesEXT");
    molshot_egl.QueryDeviceString = (const char *(*)(EGLDeviceEXT, EGLint))molshot_egl.GetProcAddress("eglQueryDeviceStringEXT");
    for (const struct molshot_gl_symbol *s = molshot_gl_symbols; s->name; s++) {
        if (strncmp(s->name, "OSMesa", 6) == 0) continue;
        if (!(*s->address = molshot_egl.GetProcAddress(s->name))) {
            snprintf(why, size, "EGL has no OpenGL entry point %s", s->name);
            return -1;
        }
    }
    return 0;
}

static void load(void) {
    const char *wanted = getenv("MOLSHOT_GL");
    if (!wanted || !*wanted) wanted = "auto";
    char osmesa[480] = "", egl[480] = "";
    if (strcmp(wanted, "osmesa") == 0) {
        if (load_osmesa(osmesa, sizeof osmesa) == 0) backend = MOLSHOT_GL_OSMESA;
        else snprintf(failure, sizeof failure, "%s; install libosmesa6, or use EGL (--gl egl)", osmesa);
    } else if (strcmp(wanted, "egl") == 0) {
        if (load_egl(egl, sizeof egl) == 0) backend = MOLSHOT_GL_EGL;
        else snprintf(failure, sizeof failure, "%s; install libegl1 and libegl-mesa0, or use OSMesa (--gl osmesa)", egl);
    } else if (strcmp(wanted, "auto") == 0) {
        if (load_osmesa(osmesa, sizeof osmesa) == 0) backend = MOLSHOT_GL_OSMESA;
        else if (load_egl(egl, sizeof egl) == 0) backend = MOLSHOT_GL_EGL;
        else snprintf(failure, sizeof failure, "no OpenGL: %s; %s; install libegl1 and libegl-mesa0 (or libosmesa6)", osmesa, egl);
    } else {
        snprintf(failure, sizeof failure, "--gl (MOLSHOT_GL) must be auto, osmesa or egl (got %s)", wanted);
    }
}

int molshot_gl_load(char *error, size_t error_size) {
    pthread_once(&once, load);
    if (backend < 0) {
        if (error && error_size) snprintf(error, error_size, "%s", failure);
        return -1;
    }
    return backend;
}

static void *preload(void *unused) {
    (void)unused;
    molshot_gl_load(NULL, 0);
    return NULL;
}

void molshot_gl_preload(void) {
    pthread_t thread;
    if (pthread_create(&thread, NULL, preload, NULL) == 0) pthread_detach(thread);
}
