// OpenGL through Mesa's offscreen library, opened at run time: `molshot_gl_load` (or, ahead of
// time on its own thread, `molshot_gl_preload`) opens libOSMesa and finds every entry point
// Molshot calls; until then they must not be called. Opening it relocates Mesa's LLVM, tens of
// milliseconds that a front end spends reading its input meanwhile.
// Every gl* entry point comes from libOSMesa itself; never load libGL as well (every GL call then
// silently does nothing: see ../shared/design/OSMESA-NOTES.md).
#ifndef MOLSHOT_COSMESA_H
#define MOLSHOT_COSMESA_H
#define GL_GLEXT_PROTOTYPES 1
#include <GL/osmesa.h>
#include <GL/gl.h>
#include <GL/glext.h>
#include <stddef.h>

/// Opens libOSMesa and finds its entry points, once per process (later calls wait for the first
/// and give its result). 0 when done; otherwise -1 and what went wrong in `error`.
int molshot_gl_load(char *error, size_t error_size);

/// Starts `molshot_gl_load` on a thread of its own and returns at once.
void molshot_gl_preload(void);
#endif
