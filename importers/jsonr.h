/* jsonr.h -- a small reader for hand-written JSON inputs (scenarios, traces,
 * task sets) on top of jansson: paths, unknown keys with a "did you mean"
 * hint, typed getters and one-line error messages.
 *
 * Every message has the form
 *     FILE: [PREFIX]PATH: what is wrong
 * (PATH like "ops[3].threads"; an empty PATH leaves out "PATH: "), or
 *     FILE:LINE:COL: JSON: what jansson says
 * for text that is not JSON. jansson keeps no positions for the values of a
 * parsed tree, so line:column is only known for syntax errors; past that
 * the path names the place. A message quotes the user's own strings: it is
 * escaped (jr_one_line) so it always stays one printable line.
 *
 * Conventions: a function that can fail returns 0, or -1 after writing the
 * message into the context's buffer (jr_fail). Paths are built in caller
 * buffers of JR_PATH_MAX bytes; a path too long is cut, which only shortens
 * the message. Strings handed out (jr_get_string, jr_get_name) are borrowed
 * from the json_t and live as long as it; nothing here takes or gives
 * references. */
#ifndef IMPORTERS_JSONR_H
#define IMPORTERS_JSONR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#define JR_PATH_MAX 160

/* Where messages go. `pfx` is put between "FILE: " and the path (the
 * scenario parser sets `variants[1] ("fast"): ` while resolving a variant);
 * NULL or "" for none. `err` may be NULL (messages are then dropped). */
typedef struct jr_ctx {
    const char *file;
    char *err;
    size_t errlen;
    const char *pfx;
} jr_ctx;

/* ---- messages ---------------------------------------------------------------- */

/* Writes "FILE: [PFX]PATH: message" into c->err; always returns -1. */
int jr_fail(jr_ctx *c, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int jr_oom(jr_ctx *c);   /* jr_fail(c, "", "out of memory") */

/* Escape control characters in msg (\n, \t, \r, \xNN) so it is one line. */
void jr_one_line(char *msg, size_t cap);

/* Parse `text` (duplicate keys rejected). Returns a new reference, or NULL
 * with "FILE:LINE:COL: JSON: ..." in c->err.
 *
 * The parse has a memory budget (issue 31): the tree jansson builds may
 * hold at most JR_PARSE_FACTOR times the text's length plus JR_PARSE_FLOOR,
 * and never more than JR_PARSE_MAX, at once (each allocation counted with
 * malloc's size for it as it is made). Scenarios cost about 11
 * times their text (the shipped ones and a 5.5 MB one of 60,000 ops,
 * measured); a text past the budget -- `[{},{},...]` costs some 80 times
 * its size -- is refused as soon as the tree passes the budget, with "FILE: JSON: the
 * document needs more than N MiB of memory to read (...); refused", and
 * jr_over_budget() is then true (HTTP answers it 413). A malloc failure
 * reads "FILE: JSON: out of memory reading the document". */
#define JR_PARSE_FACTOR 16
#define JR_PARSE_FLOOR ((size_t)16 << 20)
#define JR_PARSE_MAX ((size_t)512 << 20)
json_t *jr_load(jr_ctx *c, const char *text, size_t len);
/* The 1-based column of a jansson error, for "FILE:LINE:COL:". jansson
 * counts the column of the last character it read and sets it to 0 when
 * that was a newline, so an error at the end of a text ending in one
 * ('{"a": 1' and a newline: '}' expected) came out as "2:0"; it is column 1
 * of that line, where the next character would go (as
 * importers/schedlab_trace.c counts its own places). */
int jr_error_column(const json_error_t *e);
/* Whether the last jr_load (or budgeted parse) on this thread was refused
 * for its budget. */
bool jr_over_budget(void);

/* The budget by hand, for a reader that loads a document value by value
 * (imp_trace_json_parse, importers/schedlab_trace.c): begin with the document's length, load with
 * jr_load_value, end. jr_load_value reads one JSON value (any type) at the
 * start of text, sets *used to the bytes it took, and on failure leaves
 * jansson's message alone in c->err (the caller adds the place), or the
 * budget's. jr_budget_peak: the most bytes the trees held at once. */
void jr_budget_begin(size_t len);
void jr_budget_end(void);
size_t jr_budget_peak(void);
json_t *jr_load_value(jr_ctx *c, const char *text, size_t len, size_t *used);
/* Install the counting allocator (jr_load does; idempotent). */
void jr_alloc_init(void);

/* json_dumps(j, flags) with a newline after it, as a file or an answer
 * ends (malloc'ed; NULL out of memory). */
char *jr_dumps_line(const json_t *j, size_t flags);

/* What errors call `path`: "stdin" for "-" (the standard input, as an
 * import of "-" names it), the path itself otherwise. */
const char *jr_path_name(const char *path);

/* A JSON input file ("-": standard input) whole in memory, NUL-terminated,
 * refused past `max` bytes ("larger than N MB; not a WHAT"). Returns a
 * malloc'ed buffer (the caller frees it) with its length in *len, or NULL
 * with "PATH: why" in err. Scenarios, task sets and sweep specs read their
 * files through it. */
char *jr_read_file(const char *path, size_t max, const char *what, size_t *len, char *err,
                   size_t errlen);

/* The names of the *.json files of folder `dir` (not starting with '.'),
 * sorted: the scenarios, the kernel library and the sweeps folder are read
 * in this order. 0 with *names (malloc'ed, free with jr_free_names) and
 * *n, or -1 with errno (the folder cannot be read, or ENOMEM) and none. */
int jr_json_files(const char *dir, char ***names, size_t *n);
void jr_free_names(char **names, size_t n);

/* ---- paths ------------------------------------------------------------------- */

/* buf = "base.key" ("key" when base is ""); returns buf. */
const char *jr_join(char buf[JR_PATH_MAX], const char *base, const char *key);
/* buf = "base[i]"; returns buf. */
const char *jr_index(char buf[JR_PATH_MAX], const char *base, size_t i);

/* ---- keys and names ---------------------------------------------------------- */

/* "an object", "an array", "a string", "an integer", "a number", "a boolean",
 * "null": for "must be X, not <type>". */
const char *jr_type_name(const json_t *v);

/* The candidate nearest to `word` (case-insensitive edit distance) when it
 * is close enough to be a typo of it (1 edit for words of up to 3
 * characters, 2 up to 6, else 3, and fewer edits than the word has
 * characters; of candidates as near, the first); NULL otherwise. */
const char *jr_suggest(const char *word, const char *const *cands, size_t n);

/* jr_suggest over candidates given one at a time (names held in a
 * scenario's own structures): init, add each (NULL is skipped), get; where
 * two are as near, none (the scenario's own names come in series: "K3" is
 * as near K1 as K2). */
typedef struct jr_near {
    const char *word;
    const char *best;
    size_t d;
    bool tie;   /* another candidate is as near as best */
} jr_near;
void jr_near_init(jr_near *n, const char *word);
void jr_near_add(jr_near *n, const char *cand);
const char *jr_near_get(const jr_near *n);

/* `buf` = the candidates joined by ", ", each between `quote`s; where the
 * next one does not fit whole the list ends with ", \u2026" (never half a
 * name). */
void jr_list_names(char *buf, size_t n, const char *const *cands, size_t ncands,
                   const char *quote);

/* Fails with "unknown WHAT \"word\" (did you mean \"near\"?)", or, when no
 * candidate is near, "unknown WHAT \"word\" (known: a, b, c)". */
int jr_fail_unknown(jr_ctx *c, const char *path, const char *what, const char *word,
                    const char *const *cands, size_t ncands);

/* Number of entries before the NULL that ends `list`. */
size_t jr_count(const char *const *list);

/* Every key of `obj` must be in `known` (NULL-terminated); else fails at
 * `path` with jr_fail_unknown(..., "key", ...). */
int jr_check_keys(jr_ctx *c, json_t *obj, const char *path, const char *const *known);

/* ---- typed getters (v is the value itself, path names it) ---------------------- */

/* The member `key` of obj, or NULL when obj has none or it is JSON null. */
json_t *jr_opt(json_t *obj, const char *key);

/* "must be an object, not ..." / "must be an array, not ..." */
int jr_need_object(jr_ctx *c, json_t *v, const char *path);
int jr_need_array(jr_ctx *c, json_t *v, const char *path);

/* A string ("must be a string, not ..."); jr_get_name also refuses "". */
int jr_get_string(jr_ctx *c, json_t *v, const char *path, const char **out);
int jr_get_name(jr_ctx *c, json_t *v, const char *path, const char **out);

/* A whole number given as a JSON number: 1e9 counts, 1.5 does not
 * ("1.5 is not a whole number", "must be a number, not ..."). */
int jr_get_whole(jr_ctx *c, json_t *v, const char *path, int64_t *out);

/* A whole number in min..max ("N must be at least MIN", "N is more than
 * MAX, the most this build accepts"). */
int jr_get_count(jr_ctx *c, json_t *v, const char *path, int64_t min, int64_t max,
                 int64_t *out);

#endif
