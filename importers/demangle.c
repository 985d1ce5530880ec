/* demangle.c -- C++ kernel names for display, by the GNU demangler.
 *
 * The demangler is libiberty's (Debian: libiberty-dev, linked as -liberty),
 * the one behind binutils' c++filt, called with the flags c++filt uses by
 * default (DMGL_PARAMS | DMGL_ANSI | DMGL_VERBOSE): a kernel name reads
 * exactly as `c++filt NAME` prints it, lambdas ("{lambda(int, int)#1}"),
 * constructors, clone suffixes ("[clone .cold]"), array and function types
 * included.
 *
 * DMGL_TYPES (c++filt -t) is left out on purpose: it would turn an
 * extern "C" kernel named `f` or `i` into "float" or "int". Rust and D
 * symbols are not CUDA kernel names and are shown raw.
 *
 * Bounds. cplus_demangle_v3_callback hands the output to a callback in
 * pieces and allocates nothing on the heap (its parse state is on the
 * stack, about 70 bytes per input byte), so:
 *   - a name longer than IMP_DEMANGLE_MAX_IN bytes is shown raw (no real
 *     kernel name comes near; it bounds the stack the parser takes);
 *   - once the output would not fit the caller's buffer, the callback
 *     longjmps out and the name is shown raw. A hostile name whose output
 *     doubles with every substitution (2^40 characters from 350 bytes) thus
 *     costs at most one buffer of output, not the whole expansion. */
#include "formats.h"

#include <setjmp.h>
#include <string.h>

#include <libiberty/demangle.h>

#define IMP_DEMANGLE_MAX_IN 8192

typedef struct dm_out {
    char *buf;
    size_t cap, len;
    jmp_buf full;
} dm_out;

static void dm_put(const char *s, size_t n, void *opaque) {
    dm_out *o = opaque;
    if (n >= o->cap - o->len) longjmp(o->full, 1);
    memcpy(o->buf + o->len, s, n);
    o->len += n;
    o->buf[o->len] = '\0';
}

const char *imp_demangle(const char *name, char *buf, size_t buflen) {
    if (!name || !buf || buflen == 0) return NULL;
    size_t n = strnlen(name, IMP_DEMANGLE_MAX_IN + 1);
    if (n == 0 || n > IMP_DEMANGLE_MAX_IN) return NULL;
    dm_out o = {.buf = buf, .cap = buflen, .len = 0};
    buf[0] = '\0';
    if (setjmp(o.full)) return NULL;
    if (!cplus_demangle_v3_callback(name, DMGL_PARAMS | DMGL_ANSI | DMGL_VERBOSE, dm_put, &o))
        return NULL;
    return o.len && strcmp(o.buf, name) != 0 ? o.buf : NULL;
}
