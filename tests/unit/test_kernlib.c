/* test_kernlib.c -- the kernel library (server/formats/kernlib.h) by hand:
 * a folder of schedlab-kernel/1 files written here, loaded, looked up by
 * name and alias; each rule of a file refused with its message (the
 * schema, the name its file gives it, a program object, a source, the
 * aliases' count and names, unknown keys); a name given twice refused
 * naming both files; no folder an empty library; and the nearest name for
 * a misspelt one (by spelling, else the shortest name holding the word's
 * letters in order, in any case). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../server/formats/kernlib.h"

typedef struct folder {
    char dir[256];
    char files[8][64];
    int n;
} folder;

static void folder_make(folder *f) {
    const char *tmp = getenv("TMPDIR");
    snprintf(f->dir, sizeof f->dir, "%s/kernlib-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    assert_non_null(mkdtemp(f->dir));
    f->n = 0;
}

static void folder_put(folder *f, const char *file, const char *text) {
    char path[400];
    snprintf(path, sizeof path, "%s/%s", f->dir, file);
    FILE *o = fopen(path, "w");
    assert_non_null(o);
    fputs(text, o);
    fclose(o);
    for (int i = 0; i < f->n; i++)
        if (!strcmp(f->files[i], file)) return;
    assert_true(f->n < 8);
    snprintf(f->files[f->n++], sizeof f->files[0], "%s", file);
}

static void folder_remove(folder *f) {
    char path[400];
    for (int i = 0; i < f->n; i++) {
        snprintf(path, sizeof path, "%s/%s", f->dir, f->files[i]);
        unlink(path);
    }
    rmdir(f->dir);
}

#define KERNEL(name, extra)                                                                  \
    "{\"schema\": \"schedlab-kernel/1\", \"name\": \"" name "\", \"source\": \"a.cu\", "     \
    "\"program\": {\"body\": [{\"op\": \"alu\"}]}" extra "}"

static void test_load_and_find(void **state) {
    (void)state;
    folder f;
    folder_make(&f);
    folder_put(&f, "vectorAdd.json", KERNEL("vectorAdd", ", \"aliases\": [\"vec\"], \"blocks\": 80"));
    folder_put(&f, "sgemm.json", KERNEL("sgemm", ""));
    folder_put(&f, "mri-q.json", KERNEL("mri-q", ", \"aliases\": [\"mriq\", \"MRI-Q\"]"));
    folder_put(&f, "a-vector-add-variant.json", KERNEL("a-vector-add-variant", ""));
    char err[512];
    assert_int_equal(kl_open(f.dir, err, sizeof err), 0);
    assert_string_equal(kl_dir(), f.dir);
    size_t n;
    const char *const *names = kl_names(&n);
    assert_int_equal(n, 7);   /* four names, three aliases */
    assert_null(names[7]);
    const kl_kernel *v = kl_find("vectorAdd");
    assert_non_null(v);
    assert_ptr_equal(kl_find("vec"), v);
    assert_string_equal(v->name, "vectorAdd");
    char path[400];
    snprintf(path, sizeof path, "%s/vectorAdd.json", f.dir);
    assert_string_equal(v->path, path);
    /* the file's text, whole */
    const char *want = KERNEL("vectorAdd", ", \"aliases\": [\"vec\"], \"blocks\": 80");
    assert_int_equal(v->len, strlen(want));
    assert_memory_equal(v->text, want, v->len);
    assert_ptr_equal(kl_find("MRI-Q"), kl_find("mri-q"));
    assert_string_equal(kl_find("mriq")->name, "mri-q");
    assert_null(kl_find("VectorAdd"));   /* names are exact */
    assert_null(kl_find("nope"));

    /* the nearest name: by spelling first ("sgem"), else the shortest name
     * with the word's letters in order, in any case ("vctad": vectorAdd;
     * "MQ": too short for that) */
    assert_string_equal(kl_suggest("sgem"), "sgemm");
    assert_string_equal(kl_suggest("vctad"), "vectorAdd");
    assert_string_equal(kl_suggest("VCTADD"), "vectorAdd");
    /* the shortest, though a longer name holding them comes first */
    assert_string_equal(kl_suggest("vecadd"), "vectorAdd");
    assert_string_equal(kl_suggest("mrq"), "mriq");
    assert_null(kl_suggest("MQ"));
    assert_null(kl_suggest("zzzzzz"));
    kl_close();
    assert_null(kl_dir());
    assert_null(kl_find("sgemm"));
    kl_names(&n);
    assert_int_equal(n, 0);

    /* a name or alias given twice: the second file refused, naming the first */
    folder_put(&f, "tpacf.json", KERNEL("tpacf", ", \"aliases\": [\"vec\"]"));
    assert_int_equal(kl_open(f.dir, err, sizeof err), -1);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s/vectorAdd.json: \"vec\" is already the name or an alias of %s/tpacf.json",
             f.dir, f.dir);
    assert_string_equal(err, msg);
    assert_null(kl_find("sgemm"));   /* the library left empty */
    folder_remove(&f);

    /* no folder: an empty library, no error */
    err[0] = 'x';
    assert_int_equal(kl_open(f.dir, err, sizeof err), 0);
    assert_string_equal(err, "");
    kl_names(&n);
    assert_int_equal(n, 0);
    kl_close();
}

/* kl_check's message for text, named x/K.json with stem K */
static const char *refused(const char *text) {
    static char err[512];
    if (kl_check(text, strlen(text), "x/K.json", "K", err, sizeof err) != -1)
        fail_msg("accepted: %s", text);
    return err;
}

static void test_file_rules(void **state) {
    (void)state;
    char err[512];
    const char *ok = KERNEL("K", ", \"aliases\": [\"k1\"], \"description\": \"d\", \"threads\": 64");
    if (kl_check(ok, strlen(ok), "x/K.json", "K", err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(kl_check(ok, strlen(ok), "x/K.json", NULL, err, sizeof err), 0);

    assert_string_equal(refused("[1]"), "x/K.json: a kernel is a JSON object, not an array");
    assert_string_equal(
        refused("{\"schema\": \"schedlab-kernel/2\", \"name\": \"K\", \"source\": \"a\", "
                "\"program\": {}}"),
        "x/K.json: schema: must be \"schedlab-kernel/1\"");
    assert_string_equal(
        refused("{\"schema\": \"schedlab-kernel/11\", \"name\": \"K\", \"source\": \"a\", "
                "\"program\": {}}"),
        "x/K.json: schema: must be \"schedlab-kernel/1\"");
    assert_string_equal(refused("{\"schema\": \"schedlab-kernel/1\", \"source\": \"a\", \"program\": {}}"),
                        "x/K.json: name: missing (the kernel's name, as its file's)");
    assert_string_equal(refused(KERNEL("L", "")), "x/K.json: name: \"L\" is not the file's name (\"K\")");
    assert_string_equal(refused("{\"schema\": \"schedlab-kernel/1\", \"name\": \"K\", \"source\": \"a\", "
                                "\"program\": [1]}"),
                        "x/K.json: program: missing or not an object (the warp program, as a "
                        "scenario op's \"program\")");
    assert_string_equal(refused("{\"schema\": \"schedlab-kernel/1\", \"name\": \"K\", \"source\": \"\", "
                                "\"program\": {}}"),
                        "x/K.json: source: missing (the CUDA source the program is written from)");
    assert_string_equal(refused(KERNEL("K", ", \"aliases\": [\"a\", \"\"]")),
                        "x/K.json: aliases[1]: must not be empty");
    assert_string_equal(refused(KERNEL("K", ", \"aliases\": \"a\"")),
                        "x/K.json: aliases: must be an array, not a string");
    assert_string_equal(refused(KERNEL("K", ", \"Threads\": 64")),
                        "x/K.json: unknown key \"Threads\" (did you mean \"threads\"?)");
    /* KL_MAX_ALIASES aliases, and one more */
    char text[2048], list[1024];
    size_t k = 0;
    for (int i = 0; i <= KL_MAX_ALIASES; i++)
        k += (size_t)snprintf(list + k, sizeof list - k, "%s\"a%d\"", i ? ", " : "", i);
    snprintf(text, sizeof text, KERNEL("K", ", \"aliases\": [%s]"), list);
    char want[128];
    snprintf(want, sizeof want, "x/K.json: aliases: %d names; at most %d", KL_MAX_ALIASES + 1,
             KL_MAX_ALIASES);
    assert_string_equal(refused(text), want);
    *strrchr(list, ',') = '\0';   /* KL_MAX_ALIASES of them */
    snprintf(text, sizeof text, KERNEL("K", ", \"aliases\": [%s]"), list);
    assert_int_equal(kl_check(text, strlen(text), "x/K.json", "K", err, sizeof err), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_and_find),
        cmocka_unit_test(test_file_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
