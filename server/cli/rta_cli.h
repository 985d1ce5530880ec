/* rta_cli.h -- the `rta`, `sweep` and `merge` commands (issue 14). main.c
 * dispatches to them; each returns the exit status (0 ok, 2 bad input with
 * one line on stderr naming the file and place, 1 other failures) and never
 * calls exit(). */
#ifndef SERVER_RTA_CLI_H
#define SERVER_RTA_CLI_H

int rta_cli_rta(int argc, char **argv);
int rta_cli_sweep(int argc, char **argv);
int rta_cli_merge(int argc, char **argv);

#endif
