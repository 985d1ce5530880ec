/* kernlib.c -- the kernel library (kernlib.h): a folder of
 * schedlab-kernel/1 files read once, kept as text, looked up by name. */
#include "kernlib.h"

#include <ctype.h>
#include <errno.h>
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

int kl_check(const char *text, size_t len, const char *path, const char *stem, char *err,
             size_t errlen) {
    jr_ctx c = {path, err, errlen, ""};
    json_t *root = jr_load(&c, text, len);
    if (!root)
        return -1;
    int rc = -1;
    const char *s = NULL;
    json_t *v, *al;
    if (!json_is_object(root)) {
        jr_fail(&c, "", "a kernel is a JSON object, not %s", jr_type_name(root));
        goto out;
    }
    if (jr_check_keys(&c, root, "", kl_keys))
        goto out;
    v = json_object_get(root, "schema");
    if (!v || !json_is_string(v) || strcmp(json_string_value(v), KL_SCHEMA) != 0) {
        jr_fail(&c, "schema", "must be \"" KL_SCHEMA "\"");
        goto out;
    }
    v = json_object_get(root, "name");
    if (!v) {
        jr_fail(&c, "name", "missing (the kernel's name, as its file's)");
        goto out;
    }
    if (jr_get_name(&c, v, "name", &s))
        goto out;
    if (stem && strcmp(s, stem) != 0) {
        jr_fail(&c, "name", "\"%s\" is not the file's name (\"%s\")", s, stem);
        goto out;
    }
    if (!json_is_object(json_object_get(root, "program"))) {
        jr_fail(&c, "program", "missing or not an object (the warp program, as a scenario op's "
                "\"program\")");
        goto out;
    }
    v = json_object_get(root, "source");
    if (!v || !json_is_string(v) || !*json_string_value(v)) {
        jr_fail(&c, "source", "missing (the CUDA source the program is written from)");
        goto out;
    }
    al = json_object_get(root, "aliases");
    if (al) {
        if (jr_need_array(&c, al, "aliases"))
            goto out;
        if (json_array_size(al) > KL_MAX_ALIASES) {
            jr_fail(&c, "aliases", "%zu names; at most %d", json_array_size(al), KL_MAX_ALIASES);
            goto out;
        }
        size_t i;
        json_t *a;
        json_array_foreach(al, i, a) {
            char p[JR_PATH_MAX];
            if (jr_get_name(&c, a, jr_index(p, "aliases", i), &s))
                goto out;
        }
    }
    rc = 0;
out:
    json_decref(root);
    return rc;
}

/* Register a checked file's name and aliases for kernel k. */
static int add_names(const char *text, size_t len, const char *path, const char *stem, size_t k,
                     char *err, size_t errlen) {
    json_t *root = json_loadb(text, len, 0, NULL);
    if (!root) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    int rc = add_name(stem, k, path, err, errlen);
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(root, "aliases"), i, a)
        if (!rc)
            rc = add_name(json_string_value(a), k, path, err, errlen);
    json_decref(root);
    return rc;
}

int kl_open(const char *dir, char *err, size_t errlen) {
    kl_close();
    if (err && errlen)
        err[0] = '\0';
    char **files;
    size_t nf;
    int rc = 0;
    if (jr_json_files(dir, &files, &nf) != 0) {
        if (errno != ENOMEM)
            return 0;   /* no library: scenarios that name a kernel say so */
        snprintf(err, errlen, "%s: out of memory", dir);
        return -1;
    }
    if (!(L.dir = strdup(dir))) {
        rc = -1;
        snprintf(err, errlen, "%s: out of memory", dir);
    }
    if (!rc && nf) {
        L.k = calloc(nf, sizeof *L.k);
        L.names = calloc(nf * (KL_MAX_ALIASES + 1) + 1, sizeof *L.names);
        L.of = calloc(nf * (KL_MAX_ALIASES + 1), sizeof *L.of);
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
        files[i][strlen(files[i]) - 5] = '\0';
        rc = kl_check(text, len, path, files[i], err, errlen);
        if (!rc)
            rc = add_names(text, len, path, files[i], L.n, err, errlen);
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
    jr_free_names(files, nf);
    if (rc) {
        kl_close();
        return -1;
    }
    for (size_t i = 0; i < L.nnames; i++)
        L.of[i] = &L.k[(uintptr_t)L.of[i] - 1];
    return 0;
}
