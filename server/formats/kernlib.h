/* kernlib.h -- the kernel library: warp programs of real benchmarks,
 * written from their CUDA source, that a scenario names instead of writing
 * a program (issue 25; docs/scenario-format.md "Kernel library").
 *
 * The library is a folder of schedlab-kernel/1 files, one kernel each
 * (scenarios/kernels/NAME.json in a checkout, PREFIX/share/schedlab/
 * scenarios/kernels after `make install`: beside the scenarios, found the
 * way the scenarios are). A file holds:
 *
 *   {"schema": "schedlab-kernel/1", "name": "vectorAdd", "aliases": ["vec"],
 *    "source": "NVIDIA/cuda-samples Samples/0_Introduction/vectorAdd/vectorAdd.cu",
 *    "description": "...", "blocks": 80, "threads": 1024,
 *    "program": {...}, "latency": {...}}
 *
 * "program" is a scenario op's program object; "blocks", "threads",
 * "smem", "regs" and "latency" are the op's defaults (an op's own keys win).
 * A scenario op uses it with "program": "vectorAdd" (a name or an alias).
 *
 * The library is loaded once per process (kl_open, before any thread
 * parses a scenario) and only read afterwards: each file is kept as its
 * text, which the scenario parser reads again on its own thread, so no
 * JSON tree is shared between threads or allocators. */
#ifndef SERVER_KERNLIB_H
#define SERVER_KERNLIB_H

#include <stddef.h>

typedef struct kl_kernel {
    const char *name;        /* the file's "name" (= its file name without .json) */
    const char *path;        /* the file, for messages */
    const char *text;        /* the file's JSON text */
    size_t len;
} kl_kernel;

/* at most this many aliases per kernel */
#define KL_MAX_ALIASES 16

/* Check one kernel file's text (path names it in messages; stem, when not
 * NULL, is the name it must have): 0, or -1 with "PATH: where: why" in
 * err. Reads nothing else (fuzz/fuzz_kernel.c). */
int kl_check(const char *text, size_t len, const char *path, const char *stem, char *err,
             size_t errlen);

/* Load every DIR/NAME.json (replacing a library loaded before). Each must be
 * a schedlab-kernel/1 object with the keys above, a "name" equal to its
 * file name and a "program" object; names and aliases are unique. A folder
 * that does not exist is an empty library (returns 0); a bad file fails
 * with "PATH: why" in err and leaves the library empty. */
int kl_open(const char *dir, char *err, size_t errlen);
void kl_close(void);
/* The folder the library was loaded from; NULL when none was. */
const char *kl_dir(void);

/* The kernel named `name` or one of its aliases; NULL when none is. */
const kl_kernel *kl_find(const char *name);
/* The name or alias a misspelt `name` most likely meant; NULL if none. */
const char *kl_suggest(const char *name);
/* Every name and alias, NULL-terminated (valid until kl_open/kl_close). */
const char *const *kl_names(size_t *n);

#endif
