#ifndef SWITCHYARD_CZLIB_SHIM_H
#define SWITCHYARD_CZLIB_SHIM_H
#include <zlib.h>

// inflateInit2 is a function-like macro, which Swift does not import.
static inline int switchyard_inflateInit2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}
#endif
