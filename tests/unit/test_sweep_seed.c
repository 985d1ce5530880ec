/* test_sweep_seed.c -- the shipped sweeps stored at first start
 * (server/app/sweep_seed.h) from a folder written here: a spec is computed
 * and stored once, marked with its file (with SCHEDLAB_SEED_SWEEP_TASKSETS,
 * at that many tasksets a point); a spec the folder lacks fails, the first
 * failure in err; a shipped result is stored as it is when it is a whole
 * sweep's, and refused on stderr, saying why, when it is of another
 * schema, one shard's, or lacks its spec or its numbers; a later start
 * stores nothing twice. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../importers/jsonr.h"
#include "../../server/app/sweep_seed.h"
#include "test_db_util.h"

static char dir[256];

static void put(const char *name, const char *text) {
    char path[400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* sweep_seed with stderr caught into *said (malloc'ed) */
static int seed(tdb *t, int *added, char *err, size_t errlen, char **said) {
    char path[300];
    snprintf(path, sizeof path, "%s/stderr-XXXXXX", dir);
    fflush(stderr);
    int saved = dup(2), fd = mkstemp(path);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    close(fd);
    int rc = sweep_seed(t->d, dir, 1, added, err, errlen);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    *said = calloc(1, 1 << 16);
    size_t n = fread(*said, 1, (1 << 16) - 1, f);
    (*said)[n] = '\0';
    fclose(f);
    unlink(path);
    return rc;
}

/* stderr's line for shipped result `name` refused for `why` */
static void refused(const char *said, const char *name, const char *why) {
    char want[1024];
    snprintf(want, sizeof want,
             "schedlab: warning: the shipped sweep %s not stored: %s/results/%s: %s\n", name, dir,
             name, why);
    if (!strstr(said, want)) fail_msg("stderr lacks \"%s\"; it said:\n%s", want, said);
}

#define RS "isca17-parboil-paper-rollover-spart.json"
#define T1 "isca17-parboil-trio1-paper.json"
#define T2 "isca17-parboil-trio2-paper.json"

static void test_seed_folder(void **state) {
    (void)state;
    tdb t;
    assert_int_equal(tdb_open(&t, "seed"), 0);
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/sweepseed-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    assert_non_null(mkdtemp(dir));
    char sub[300];
    snprintf(sub, sizeof sub, "%s/results", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    /* one of the table's nine specs, the shipped one (tests run at the
     * checkout's root) */
    size_t len;
    char err[1024], *said;
    char *text = jr_read_file("sweeps/gcaps-fig8a-tasks.json", 1 << 20, "sweep spec", &len, err,
                              sizeof err);
    if (!text) fail_msg("%s", err);
    /* its kind named (the default's): still a schedulability sweep, reduced
     * by its tasksets */
    json_t *spec = json_loadb(text, len, 0, NULL);
    assert_non_null(spec);
    free(text);
    json_object_set_new(spec, "kind", json_string("schedulability"));
    text = json_dumps(spec, 0);
    json_decref(spec);
    put("gcaps-fig8a-tasks.json", text);
    free(text);
    put("results/" RS, "{\"schema\": \"schedlab-sweep-result/1\", \"name\": \"whole\", \"spec\": "
                       "{\"description\": \"d\"}, \"points\": []}");
    put("results/" T1, "{\"schema\": \"schedlab-sweep-result/2\", \"spec\": {}, \"points\": []}");
    put("results/" T2, "{\"schema\": \"schedlab-sweep-result/1\", \"shard\": {\"index\": 0, "
                       "\"count\": 2}, \"spec\": {}, \"points\": []}");
    setenv("SCHEDLAB_SEED_SWEEP_TASKSETS", "2", 1);
    int added = -1;
    /* eight specs missing, two results refused */
    assert_int_equal(seed(&t, &added, err, sizeof err, &said), 10);
    assert_int_equal(added, 2);
    char want[600];
    snprintf(want, sizeof want, "%s/gcaps-fig8b-util.json: cannot open: No such file or directory",
             dir);
    assert_string_equal(err, want);
    refused(said, T1, "schema: expected \"schedlab-sweep-result/1\" (a file `schedlab sweep -o` "
                      "writes)");
    refused(said, T2, "shard: one shard's result, not the whole sweep's (`schedlab merge -o` them "
                      "first)");
    free(said);
    assert_int_equal(tdb_scalar(t.d, "SELECT count(*) FROM sweeps"), 2);
    /* the computed one at the tasksets asked for */
    assert_int_equal(tdb_scalar(t.d, "SELECT json_extract(result, '$.spec.tasksets') FROM sweeps "
                                     "WHERE json_extract(result, '$.name') LIKE 'GCAPS%'"),
                     2);
    assert_int_equal(tdb_scalar(t.d, "SELECT count(*) FROM sweeps WHERE "
                                     "json_extract(result, '$.name') = 'whole'"),
                     1);
    /* each marked with its file, as a later start looks it up */
    assert_int_equal(tdb_scalar(t.d, "SELECT count(*) FROM experiments WHERE scenario_file IN "
                                     "('sweeps/gcaps-fig8a-tasks.json', 'sweeps/" RS "')"),
                     2);

    /* a later start: nothing stored twice; the refused ones again, for
     * their spec and their numbers missing */
    put("results/" T1, "{\"schema\": \"schedlab-sweep-result/1\", \"spec\": [], \"points\": []}");
    put("results/" T2, "{\"schema\": \"schedlab-sweep-result/1\", \"spec\": {}, \"points\": {}}");
    assert_int_equal(seed(&t, &added, err, sizeof err, &said), 10);
    assert_int_equal(added, 0);
    refused(said, T1, "spec: missing (the sweep's spec as it was run)");
    refused(said, T2, "points: missing (no sweep's numbers)");
    free(said);
    assert_int_equal(tdb_scalar(t.d, "SELECT count(*) FROM sweeps"), 2);

    /* a schedulability sweep's numbers are its "schedulable" object; a
     * file that is no JSON says where */
    put("results/" T1, "{\"schema\": \"schedlab-sweep-result/1\", \"name\": \"sched\", \"spec\": {}, "
                       "\"schedulable\": {}}");
    put("results/" T2, "{\"schema\": ");
    assert_int_equal(seed(&t, &added, err, sizeof err, &said), 9);
    assert_int_equal(added, 1);
    char path[400];
    snprintf(path, sizeof path, "%s/results/%s:1:", dir, T2);
    assert_non_null(strstr(said, path));
    free(said);
    assert_int_equal(tdb_scalar(t.d, "SELECT count(*) FROM sweeps"), 3);

    unsetenv("SCHEDLAB_SEED_SWEEP_TASKSETS");
    static const char *const files[] = {"gcaps-fig8a-tasks.json", "results/" RS, "results/" T1,
                                        "results/" T2};
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(sub);
    rmdir(dir);
    tdb_close(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_folder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
