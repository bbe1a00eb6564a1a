#include "gl_loader_internal.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[512];

static void load(void) {
    void *handle = dlopen("libOSMesa.so.8", RTLD_LAZY | RTLD_LOCAL);
    if (!handle) handle = dlopen("libOSMesa.so", RTLD_LAZY | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        snprintf(failure, sizeof failure, "OSMesa (libOSMesa.so.8) could not be opened: %s; install libosmesa6",
                 why ? why : "not found");
        return;
    }
    for (const struct molshot_gl_symbol *s = molshot_gl_symbols; s->name; s++) {
        *s->address = dlsym(handle, s->name);
        if (!*s->address) {
            snprintf(failure, sizeof failure, "OSMesa (libOSMesa) has no %s", s->name);
            return;
        }
    }
}

int molshot_gl_load(char *error, size_t error_size) {
    pthread_once(&once, load);
    if (failure[0]) {
        if (error && error_size) snprintf(error, error_size, "%s", failure);
        return -1;
    }
    return 0;
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
