#include "gl_loader_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct molshot_egl_context {
    EGLDisplay display;
    EGLContext context;
};

/// Whether the space-separated `list` holds `name`.
static int has(const char *list, const char *name) {
    size_t n = strlen(name);
    for (const char *p = list; p && (p = strstr(p, name)); p += n) {
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0)) return 1;
    }
    return 0;
}

/// The devices EGL enumerates, at most `capacity`; 0 where it cannot.
static EGLint devices(EGLDeviceEXT *out, EGLint capacity) {
    EGLint count = 0;
    const char *client = molshot_egl.QueryString(NULL, EGL_EXTENSIONS);
    if (!molshot_egl.QueryDevices || !has(client, "EGL_EXT_platform_device")) return 0;
    if (!molshot_egl.QueryDevices(capacity, out, &count)) return 0;
    return count;
}

static int is_software(EGLDeviceEXT device) {
    const char *e = molshot_egl.QueryDeviceString ? molshot_egl.QueryDeviceString(device, EGL_EXTENSIONS) : NULL;
    return has(e, "EGL_MESA_device_software");
}

static const char *device_file(EGLDeviceEXT device) {
    if (!molshot_egl.QueryDeviceString) return NULL;
    const char *e = molshot_egl.QueryDeviceString(device, EGL_EXTENSIONS);
    if (has(e, "EGL_EXT_device_drm_render_node")) {
        const char *f = molshot_egl.QueryDeviceString(device, EGL_DRM_RENDER_NODE_FILE_EXT);
        if (f) return f;
    }
    return has(e, "EGL_EXT_device_drm") ? molshot_egl.QueryDeviceString(device, EGL_DRM_DEVICE_FILE_EXT) : NULL;
}

int molshot_egl_devices(char *out, size_t out_size) {
    EGLDeviceEXT list[16];
    if (!molshot_egl.QueryDevices) return -1;
    EGLint count = devices(list, 16);
    size_t used = 0;
    if (out_size) out[0] = 0;
    for (EGLint i = 0; i < count && used < out_size; i++) {
        const char *file = device_file(list[i]);
        int n = snprintf(out + used, out_size - used, "%d\t%s\t%s\n", i, is_software(list[i]) ? "software" : "hardware",
                         file ? file : "-");
        if (n < 0) break;
        used += (size_t)n;
    }
    return count;
}

void *molshot_egl_create(char *display_name, size_t name_size, char *error, size_t error_size) {
    EGLDeviceEXT list[16];
    EGLint count = devices(list, 16);
    const char *client = molshot_egl.QueryString(NULL, EGL_EXTENSIONS);
    const char *wanted = getenv("MOLSHOT_GL_DEVICE");
    int chosen = -1;
    if (wanted && *wanted) {
        char *end;
        long n = strtol(wanted, &end, 10);
        if (*end || n < 0 || n >= count) {
            snprintf(error, error_size, "--gl-device %s: EGL has %d devices here, numbered from 0 (molshot doctor lists them)", wanted,
                     (int)count);
            return NULL;
        }
        chosen = (int)n;
    } else {
        // A GPU where there is one: the first device that is not Mesa's software one.
        for (EGLint i = 0; i < count; i++) {
            if (!is_software(list[i])) { chosen = i; break; }
        }
    }
    EGLDisplay display = NULL;
    if (chosen >= 0) {
        display = molshot_egl.GetPlatformDisplay(EGL_PLATFORM_DEVICE_EXT, list[chosen], NULL);
        const char *file = device_file(list[chosen]);
        snprintf(display_name, name_size, "device %d (%s)", chosen, is_software(list[chosen]) ? "software" : file ? file : "hardware");
    } else if (has(client, "EGL_MESA_platform_surfaceless")) {
        display = molshot_egl.GetPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, NULL, NULL);
        snprintf(display_name, name_size, "surfaceless");
    } else if (count > 0) {
        display = molshot_egl.GetPlatformDisplay(EGL_PLATFORM_DEVICE_EXT, list[0], NULL);
        snprintf(display_name, name_size, "device 0 (software)");
    }
    if (!display) {
        snprintf(error, error_size, "EGL offers no display without a window (neither EGL_EXT_platform_device nor "
                 "EGL_MESA_platform_surfaceless; install libegl-mesa0)");
        return NULL;
    }
    EGLint major = 0, minor = 0;
    if (!molshot_egl.Initialize(display, &major, &minor)) {
        snprintf(error, error_size, "eglInitialize failed on the %s display (EGL error 0x%x)", display_name, molshot_egl.GetError());
        return NULL;
    }
    if (!molshot_egl.BindAPI(EGL_OPENGL_API)) {
        snprintf(error, error_size, "EGL cannot bind desktop OpenGL (EGL error 0x%x)", molshot_egl.GetError());
        return NULL;
    }
    const EGLint wanted_config[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
    EGLConfig config = NULL;
    EGLint configs = 0;
    // No config at all is EGL_NO_CONFIG_KHR, which surfaceless contexts may take.
    if (!molshot_egl.ChooseConfig(display, wanted_config, &config, 1, &configs) || configs == 0) config = NULL;
    const EGLint attributes[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 5,
                                 EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    EGLContext context = molshot_egl.CreateContext(display, config, NULL, attributes);
    if (!context) {
        snprintf(error, error_size, "EGL could not create an OpenGL 4.5 core context on the %s display (EGL error 0x%x)", display_name,
                 molshot_egl.GetError());
        return NULL;
    }
    if (!molshot_egl.MakeCurrent(display, NULL, NULL, context)) {
        snprintf(error, error_size, "EGL cannot make a context current without a surface (EGL_KHR_surfaceless_context; EGL error 0x%x)",
                 molshot_egl.GetError());
        molshot_egl.DestroyContext(display, context);
        return NULL;
    }
    struct molshot_egl_context *c = malloc(sizeof *c);
    if (!c) return NULL;
    c->display = display;
    c->context = context;
    return c;
}

int molshot_egl_make_current(void *context) {
    struct molshot_egl_context *c = context;
    return molshot_egl.MakeCurrent(c->display, NULL, NULL, c->context) ? 0 : -1;
}

void molshot_egl_destroy(void *context) {
    struct molshot_egl_context *c = context;
    if (!c) return;
    molshot_egl.MakeCurrent(c->display, NULL, NULL, NULL);
    molshot_egl.DestroyContext(c->display, c->context);
    free(c);
}
