/* cli_opt.c -- one option of the command line (cli_opt.h). */
#include "cli_opt.h"

#include <stdio.h>
#include <string.h>

const char *cli_opt_split(const char *arg, char *flag, size_t len) {
    const char *eq = strchr(arg, '=');
    if (eq && (size_t)(eq - arg) < len) {
        memcpy(flag, arg, (size_t)(eq - arg));
        flag[eq - arg] = '\0';
        return eq + 1;
    }
    snprintf(flag, len, "%s", arg);
    return NULL;
}
