/* csv.h -- a small RFC-4180 reader and locale-free number parsing for the
 * text importers (nvprof_csv.c, globaltimer_csv.c).
 *
 * The reader walks a buffer the caller owns (it is never modified and must
 * outlive the reader). Quoted fields may hold commas, newlines and "" escapes;
 * CRLF and LF both end a record. Field text is unescaped into storage the
 * reader owns: the pointers in `f` stay valid until the next imp_csv_next()
 * or imp_csv_free().
 *
 * Profilers print numbers in the C locale whatever the user's locale is, and
 * strtod() would follow LC_NUMERIC, so numbers are parsed here digit by digit
 * (nvprof's "598.807267" ms is 598807267 ns exactly, never via a double). */
#ifndef IMPORTERS_CSV_H
#define IMPORTERS_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct imp_csv_field {
    const char *s;           /* NUL-terminated, unescaped */
    size_t len;
    bool quoted;
} imp_csv_field;

typedef struct imp_csv {
    const char *data;
    size_t len, pos;
    long line;               /* line number (1-based) at pos */
    size_t line_start;       /* offset where that line begins (for columns) */
    long rec_line;           /* line where the last record read began */
    imp_csv_field *f;
    size_t nf, fcap;
    char *buf;               /* unescaped field text, NUL-separated */
    size_t blen, bcap;
    size_t *off;             /* field offsets into buf while reading */
    size_t offcap;
} imp_csv;

void imp_csv_init(imp_csv *r, const char *data, size_t len);
void imp_csv_free(imp_csv *r);

/* Read the next record into r->f / r->nf. Returns 1 for a record, 0 at the
 * end of the data, -1 with "line:column: problem" in err (no file name: the
 * caller prefixes it). An empty line is a record of one empty field. */
int imp_csv_next(imp_csv *r, char *err, size_t errlen);

/* The raw text of the line at the current position (without its newline),
 * so a caller can skip lines that are not CSV (nvprof's "==123==" preamble
 * holds commas) before tokenising them. Returns false at the end. */
bool imp_csv_peek_line(const imp_csv *r, const char **line, size_t *len);
void imp_csv_skip_line(imp_csv *r);

/* A decimal "[-+]digits[.digits]" times `mult`, rounded half away from zero
 * to an integer: imp_dec_scaled("598.807267", 1000000, &ns) gives 598807267.
 * Leading/trailing blanks are allowed. Returns 0, or -1 if `s` is not such a
 * number or the result does not fit an int64_t. */
int imp_dec_scaled(const char *s, int64_t mult, int64_t *out);

/* An integer "[-+]digits" (blanks allowed around it); -1 if not one or out
 * of range. */
int imp_parse_int64(const char *s, int64_t *out);

/* Copy at most maxlen bytes of s into dst (dstlen > 0), replacing control
 * characters, so a bad value can be quoted in a one-line message. Adds "..."
 * when cut. Returns dst. */
const char *imp_quote_value(char *dst, size_t dstlen, const char *s, size_t maxlen);

#endif
