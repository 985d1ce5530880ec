/* bench_pytorch.c -- the PyTorch profiler importer's parse rate and memory
 * (issue 29), against Python's json.load of the same file, which bench/run.mjs
 * times beside it:
 *
 *   bench_pytorch FILE
 *
 * The file is mapped (as the server maps an upload body), so the pages read
 * count in the peak RSS as they would in the server; peak_rss_mb also holds
 * the trace model's records (trace_mb, about 200 bytes per kernel or copy),
 * which grow with the events kept, while the reader's own memory does not
 * (pjson.h: the longest string). One JSON object on stdout. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../importers/importers.h"
#include "bench_util.h"

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: bench_pytorch FILE\n");
        return 2;
    }
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
    double t0 = now_s();
    if (imp_import(IMP_PYTORCH, &file, 1, &t, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    double t1 = now_s();
    double trace_mb = ((double)t.kernels.cap * sizeof *t.kernels.v +
                       (double)t.copies.cap * sizeof *t.copies.v) / (1 << 20);
    printf("{\"bench\":\"pytorch\",\"bytes\":%zu,\"kernels\":%zu,\"copies\":%zu,\"parse_s\":%.4f,"
           "\"mb_per_s\":%.1f,\"peak_rss_mb\":%.1f,\"trace_mb\":%.1f}\n",
           len, t.kernels.n, t.copies.n, t1 - t0, (double)len / (1 << 20) / (t1 - t0), peak_rss_mb(),
           trace_mb);
    trace_free(&t);
    munmap((void *)data, len);
    close(fd);
    return 0;
}
