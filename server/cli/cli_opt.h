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

#endif
