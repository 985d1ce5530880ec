/* bench_import.c -- import speed: parse a file into the trace model, then
 * store it as one run, timed apart; one JSON object per line on stdout.
 *
 *   bench_import FORMAT FILE DB
 *
 * The lead number is rows per second end to end (parse + store), the same
 * work as the sqlite3 CLI's .import of the file, which bench.mk times beside
 * it as the ceiling. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../db/db.h"
#include "../importers/importers.h"
#include "bench_util.h"

static unsigned char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: bench_import FORMAT FILE DB\n");
        return 2;
    }
    char err[512];
    imp_format fmt = imp_format_parse(argv[1]);
    size_t len;
    double t0 = now_s();
    unsigned char *data = slurp(argv[2], &len);
    if (!data) {
        fprintf(stderr, "%s: cannot read\n", argv[2]);
        return 1;
    }
    imp_file file = {argv[2], data, len};
    trace t;
    trace_init(&t);
    double t1 = now_s();
    if (imp_import(fmt, &file, 1, &t, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    double t2 = now_s();
    size_t rows = t.kernels.n + t.copies.n + t.blocks.n;

    remove(argv[3]);
    db *d;
    char exp[DB_SLUG_SIZE], run[DB_SLUG_SIZE];
    if (db_open(argv[3], &d, err, sizeof err) != 0 ||
        db_create_experiment(d, "bench", NULL, "import", NULL, NULL, exp, err, sizeof err) != 0 ||
        db_store_run(d, exp, "bench", &t, run, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    db_close(d);
    double t3 = now_s();
    printf("{\"bench\":\"import\",\"format\":\"%s\",\"rows\":%zu,\"bytes\":%zu,"
           "\"read_s\":%.4f,\"parse_s\":%.4f,\"store_s\":%.4f,\"total_s\":%.4f,"
           "\"rows_per_s\":%.0f,\"parse_rows_per_s\":%.0f,\"peak_rss_mb\":%.1f}\n",
           argv[1], rows, len, t1 - t0, t2 - t1, t3 - t2, t3 - t0, (double)rows / (t3 - t0),
           (double)rows / (t2 - t1), peak_rss_mb());
    trace_free(&t);
    free(data);
    return 0;
}
