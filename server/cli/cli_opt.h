/* cli_opt.h -- one option of the command line as every command reads it
 * (docs/cli.md: "Options take their value as the next argument or after
 * `=`"): main.c's commands and rta_cli.c's alike. */
#ifndef SCHEDLAB_CLI_OPT_H
#define SCHEDLAB_CLI_OPT_H

#include <stddef.h>

/* The option's name ("--db" of "--db=x.db") into flag (len bytes), and its
 * value after '=' ("x.db"), or NULL when the value is the next argument. A
 * name too long for flag is cut there (and is no option's). */
const char *cli_opt_split(const char *arg, char *flag, size_t len);

/* The options of one command line given so far: every option takes one
 * value, and one given twice (`--db a.db --db b.db`) is bad input (docs/cli.md)
 * rather than the last one silently winning. slot: where the option's
 * value goes (-o and --output are one option: one slot). */
typedef struct cli_opt_seen {
    const void *slot[32];
    char flag[32][32];   /* as it was first given */
    size_t n;
} cli_opt_seen;

/* Records that the option of `slot` was given as `flag`; -1 with "option
 * FLAG given twice" (and how it was given first, when spelled otherwise)
 * in err when it was given before. */
int cli_opt_once(cli_opt_seen *s, const void *slot, const char *flag, char *err, size_t n);

/* An option's whole number: decimal digits only (no sign, blank, base
 * prefix or trailing text: strtol took " 80", "+2" and "8080 "), within
 * min..max; -1 otherwise. */
int cli_opt_long(const char *s, long min, long max, long *out);

/* An option's decimal number at the start of s: digits, then optionally
 * '.' and digits (no sign, blank, exponent or hex: strtod took " 5",
 * "1e1" and "0x10"); *end is the character after it. -1 when s does not
 * start with a digit. */
int cli_opt_decimal(const char *s, const char **end, double *out);

#endif
