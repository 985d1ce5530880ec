/* kernlib.c -- the kernel library (kernlib.h): a folder of
 * schedlab-kernel/1 files read once, kept as text, looked up by name. */
#include "kernlib.h"

#include <ctype.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../../importers/jsonr.h"

#define KL_SCHEMA "schedlab-kernel/1"
/* a kernel file is a program and a few keys; anything past this is not one */
#define KL_MAX_FILE ((size_t)1 << 20)

static const char *const kl_keys[] = {"schema", "name", "aliases", "source", "description",
                                      "blocks", "threads", "smem", "regs", "latency",
                                      "program", NULL};

static struct {
    char *dir;
    kl_kernel *k;
    size_t n;
    const char **names;      /* [nnames + 1] every name and alias, NULL-terminated */
    const kl_kernel **of;    /* [nnames] the kernel each of names[] is */
    size_t nnames;
} L;

void kl_close(void) {
    for (size_t i = 0; i < L.n; i++) {
        free((char *)L.k[i].name);
        free((char *)L.k[i].path);
        free((char *)L.k[i].text);
    }
    for (size_t i = 0; i < L.nnames; i++)
        free((char *)L.names[i]);
    free(L.k);
    free(L.names);
    free(L.of);
    free(L.dir);
    memset(&L, 0, sizeof L);
}

const char *kl_dir(void) {
    return L.dir;
}

const kl_kernel *kl_find(const char *name) {
    for (size_t i = 0; i < L.nnames; i++)
        if (strcmp(L.names[i], name) == 0)
            return L.of[i];
    return NULL;
}

const char *const *kl_names(size_t *n) {
    static const char *const none[] = {NULL};
    if (n)
        *n = L.nnames;
    return L.names ? L.names : none;
}

/* the nearest name by spelling (jr_suggest), else the shortest name that
 * has the word's letters in order, in any case ("vecadd": vectorAdd) */
const char *kl_suggest(const char *word) {
    const char *near = jr_suggest(word, L.names ? L.names : (const char *const[]){NULL}, L.nnames);
    if (near || strlen(word) < 3)
        return near;
    for (size_t i = 0; i < L.nnames; i++) {
        const char *w = word, *c = L.names[i];
        for (; *w && *c; c++)
            if (tolower((unsigned char)*c) == tolower((unsigned char)*w))
                w++;
        if (!*w && (!near || strlen(L.names[i]) < strlen(near)))
            near = L.names[i];
    }
    return near;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* names[] gets `name` for kernel k, unless a kernel already has it */
static int add_name(const char *name, size_t k, const char *path, char *err, size_t errlen) {
    for (size_t i = 0; i < L.nnames; i++)
        if (strcmp(L.names[i], name) == 0) {
            snprintf(err, errlen, "%s: \"%s\" is already the name or an alias of %s", path, name,
                     L.k[(uintptr_t)L.of[i] - 1].path);
            return -1;
        }
    if (!(L.names[L.nnames] = strdup(name))) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    L.of[L.nnames++] = (const kl_kernel *)(uintptr_t)(k + 1);   /* an index until the end */
    return 0;
}

/* One file: its keys, its name against the file's, its program. */
static int check_file(const char *path, const char *stem, json_t *root, size_t k, char *err,
                      size_t errlen) {
    jr_ctx c = {path, err, errlen, ""};
    if (!json_is_object(root))
        return jr_fail(&c, "", "a kernel is a JSON object, not %s", jr_type_name(root));
    if (jr_check_keys(&c, root, "", kl_keys))
        return -1;
    const char *s = NULL;
    json_t *v = json_object_get(root, "schema");
    if (!v || jr_get_string(&c, v, "schema", &s) || strcmp(s, KL_SCHEMA) != 0)
        return jr_fail(&c, "schema", "must be \"" KL_SCHEMA "\"");
    v = json_object_get(root, "name");
    if (!v || jr_get_name(&c, v, "name", &s))
        return v ? -1 : jr_fail(&c, "name", "missing (the kernel's name, as its file's)");
    if (strcmp(s, stem) != 0)
        return jr_fail(&c, "name", "\"%s\" is not the file's name (\"%s\")", s, stem);
    if (!json_is_object(json_object_get(root, "program")))
        return jr_fail(&c, "program", "missing or not an object (the warp program, as a "
                       "scenario op's \"program\")");
    v = json_object_get(root, "source");
    if (!v || !json_is_string(v) || !*json_string_value(v))
        return jr_fail(&c, "source", "missing (the CUDA source the program is written from)");
    if (add_name(stem, k, path, err, errlen))
        return -1;
    json_t *al = json_object_get(root, "aliases");
    if (al) {
        if (jr_need_array(&c, al, "aliases"))
            return -1;
        size_t i;
        json_t *a;
        json_array_foreach(al, i, a) {
            char p[JR_PATH_MAX];
            if (jr_get_name(&c, a, jr_index(p, "aliases", i), &s) ||
                add_name(s, k, path, err, errlen))
                return -1;
        }
    }
    return 0;
}

int kl_open(const char *dir, char *err, size_t errlen) {
    kl_close();
    if (err && errlen)
        err[0] = '\0';
    DIR *dp = opendir(dir);
    if (!dp)
        return 0;   /* no library: scenarios that name a kernel say so */
    char **files = NULL;
    size_t nf = 0;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(dp))) {
        size_t l = strlen(e->d_name);
        if (l < 6 || e->d_name[0] == '.' || strcmp(e->d_name + l - 5, ".json") != 0)
            continue;
        char **nfs = realloc(files, (nf + 1) * sizeof *nfs);
        if (!nfs || !(nfs[nf] = strdup(e->d_name))) {
            files = nfs ? nfs : files;
            rc = -1;
            snprintf(err, errlen, "%s: out of memory", dir);
            break;
        }
        files = nfs;
        nf++;
    }
    closedir(dp);
    if (nf)
        qsort(files, nf, sizeof *files, cmp_str);   /* readdir's order is the file system's */
    if (!rc && !(L.dir = strdup(dir)))
        rc = -1;
    if (!rc && nf) {
        L.k = calloc(nf, sizeof *L.k);
        L.names = calloc(nf * 17 + 1, sizeof *L.names);   /* a name and up to 16 aliases */
        L.of = calloc(nf * 17, sizeof *L.of);
        if (!L.k || !L.names || !L.of) {
            rc = -1;
            snprintf(err, errlen, "%s: out of memory", dir);
        }
    }
    for (size_t i = 0; i < nf && !rc; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        size_t len;
        char *text = jr_read_file(path, KL_MAX_FILE, "kernel", &len, err, errlen);
        if (!text) {
            rc = -1;
            break;
        }
        json_error_t je;
        json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
        if (!root) {
            snprintf(err, errlen, "%s:%d:%d: JSON: %s", path, je.line, je.column, je.text);
            free(text);
            rc = -1;
            break;
        }
        files[i][strlen(files[i]) - 5] = '\0';
        json_t *al = json_object_get(root, "aliases");
        if (json_is_array(al) && json_array_size(al) > 16) {
            snprintf(err, errlen, "%s: aliases: at most 16", path);
            rc = -1;
        } else {
            rc = check_file(path, files[i], root, L.n, err, errlen);
        }
        json_decref(root);
        L.k[L.n].text = text;
        L.k[L.n].len = len;
        L.k[L.n].name = strdup(files[i]);
        L.k[L.n].path = strdup(path);
        L.n++;
        if (!rc && (!L.k[L.n - 1].name || !L.k[L.n - 1].path)) {
            rc = -1;
            snprintf(err, errlen, "%s: out of memory", path);
        }
    }
    for (size_t i = 0; i < nf; i++)
        free(files[i]);
    free(files);
    if (rc) {
        kl_close();
        return -1;
    }
    for (size_t i = 0; i < L.nnames; i++)
        L.of[i] = &L.k[(uintptr_t)L.of[i] - 1];
    return 0;
}
