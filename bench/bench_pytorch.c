/* bench_pytorch.c -- the PyTorch profiler importer's parse rate and memory
 * (issue 29), against Python's json.load of the same file, which bench/run.mjs
 * times beside it:
 *
 *   bench_pytorch FILE [whole]
 *
 * The file is mapped (as the server maps an upload body) and imported the
 * way the store imports one (server/store.c, import_stream): streamed in
 * batches of 8192 rows (importers.h imp_stream, mapped, so the pages read
 * are dropped behind the reader). The batch sink here only counts the rows
 * (the store copies them to its writer thread), so parse_s is the importer
 * alone and peak_rss_mb what it holds: a run of spilled records, the launch
 * calls table (calls_mb: 16 bytes per runtime/driver call with a
 * correlation id), the string table and a page window of the file --
 * independent of the file's size but for the calls table. "whole" imports
 * without batches (every record in memory, trace_mb) for comparison. One
 * JSON object on stdout. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../importers/importers.h"
#include "bench_util.h"

typedef struct sink { size_t kernels, copies, batches; } sink;

static int count_batch(void *user, const trace *t, size_t kernels, size_t copies, char *err,
                       size_t errlen) {
    (void)kernels, (void)copies, (void)err, (void)errlen;
    sink *s = user;
    s->kernels += t->kernels.n;
    s->copies += t->copies.n;
    s->batches++;
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "whole") != 0)) {
        fprintf(stderr, "usage: bench_pytorch FILE [whole]\n");
        return 2;
    }
    bool whole = argc == 3;
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size == 0) {
        fprintf(stderr, "%s: cannot read\n", argv[1]);
        return 1;
    }
    size_t len = (size_t)st.st_size;
    const unsigned char *data = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (data == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    imp_file file = {argv[1], data, len};
    trace t;
    trace_init(&t);
    char err[512];
    sink s = {0};
    imp_stream is = {.batch = count_batch, .user = &s, .rows = 8192, .mapped = true};
    imp_options io = {.stream = whole ? NULL : &is};
    double t0 = now_s(), c0 = cpu_s();
    if (imp_import_opts(IMP_PYTORCH, &file, 1, &io, &t, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    double t1 = now_s(), c1 = cpu_s();
    if (whole) {
        s.kernels = t.kernels.n;
        s.copies = t.copies.n;
    }
    double trace_mb = ((double)t.kernels.cap * sizeof *t.kernels.v +
                       (double)t.copies.cap * sizeof *t.copies.v) / (1 << 20);
    printf("{\"bench\":\"pytorch\",\"mode\":\"%s\",\"bytes\":%zu,\"kernels\":%zu,\"copies\":%zu,"
           "\"batches\":%zu,\"parse_s\":%.4f,\"cpu_s\":%.4f,\"mb_per_s\":%.1f,\"peak_rss_mb\":%.1f,"
           "\"trace_mb\":%.1f}\n",
           whole ? "whole" : "streamed", len, s.kernels, s.copies, s.batches, t1 - t0, c1 - c0,
           (double)len / (1 << 20) / (t1 - t0), peak_rss_mb(), trace_mb);
    trace_free(&t);
    munmap((void *)data, len);
    close(fd);
    return 0;
}
