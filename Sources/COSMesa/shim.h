// Every gl* entry point comes from libOSMesa itself; never link libGL as well
// (every GL call then silently does nothing: see ../shared/design/OSMESA-NOTES.md).
#define GL_GLEXT_PROTOTYPES 1
#include <GL/osmesa.h>
#include <GL/gl.h>
#include <GL/glext.h>
