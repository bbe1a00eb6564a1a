#include "include/COSMesa.h"

/// An entry point by name and where its address goes.
struct molshot_gl_symbol {
    const char *name;
    void **address;
};

/// Every entry point Molshot calls, ending with a null name (gl_entry_points.c).
extern const struct molshot_gl_symbol molshot_gl_symbols[];
