/* importers.c -- format names, detection from content, and the one import
 * entry point (importers.h) that dispatches to the per-format functions of
 * formats.h, then re-bases the trace and records where it came from. */
#include "importers.h"

#include "archive.h"
#include "formats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const format_names[IMP_FORMAT_COUNT] = {
    [IMP_EXAMINER_JSON] = "examiner-json",
    [IMP_GLOBALTIMER_CSV] = "globaltimer-csv",
    [IMP_NVPROF_CSV] = "nvprof-csv",
    [IMP_NVPROF_SQLITE] = "nvprof-sqlite",
    [IMP_NSYS_SQLITE] = "nsys-sqlite",
    [IMP_SCHEDLAB_TRACE] = "schedlab-trace",
    [IMP_PYTORCH] = "pytorch",
};

const char *imp_format_name(imp_format f) {
    if (f < 0 || f >= IMP_FORMAT_COUNT) return "unknown";
    return format_names[f];
}

imp_format imp_format_parse(const char *name) {
    if (!name) return IMP_UNKNOWN;
    for (int i = 0; i < IMP_FORMAT_COUNT; i++)
        if (strcmp(name, format_names[i]) == 0) return (imp_format)i;
    return IMP_UNKNOWN;
}

static bool has_prefix(const char *s, size_t len, const char *p) {
    size_t n = strlen(p);
    return len >= n && memcmp(s, p, n) == 0;
}

/* "K1,0,3,100,200[,S1][,256]": five to seven fields, the 2nd to 5th integers. */
static bool looks_like_block_row(const char *s, size_t len) {
    size_t field = 0, start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && s[i] != ',') continue;
        if (field >= 1 && field <= 4) {
            size_t a = start, b = i;
            while (a < b && s[a] == ' ') a++;
            while (b > a && s[b - 1] == ' ') b--;
            if (a == b) return false;
            for (size_t k = a; k < b; k++)
                if (s[k] < '0' || s[k] > '9') return false;
        }
        field++;
        start = i + 1;
    }
    return field >= 5 && field <= 7;
}

/* A globaltimer header names start_ns and end_ns in some order. */
static bool header_line(const char *s, size_t len) {
    bool start = false, end = false;
    for (size_t i = 0; i < len; i++) {
        if (len - i >= 8 && memcmp(s + i, "start_ns", 8) == 0) start = true;
        if (len - i >= 6 && memcmp(s + i, "end_ns", 6) == 0) end = true;
    }
    return start && end;
}

/* nvprof's live preamble is "==<pid>== ", its import-mode one "======== ". */
static bool nvprof_marker(const char *s, size_t len) {
    if (has_prefix(s, len, "\"Start\",") || has_prefix(s, len, "Start,\"Duration\"")) return true;
    if (!has_prefix(s, len, "==")) return false;
    size_t i = 2;
    while (i < len && ((s[i] >= '0' && s[i] <= '9') || s[i] == '=')) i++;
    return i >= 4 && s[i - 1] == '=' && s[i - 2] == '=';
}

imp_format imp_detect(const imp_file *file) {
    const unsigned char *d = file->data;
    size_t len = file->len;
    if (!d) return IMP_UNKNOWN;
    if (imp_pytorch_detect(d, len)) return IMP_PYTORCH;
    if (len >= 16 && memcmp(d, "SQLite format 3", 16) == 0) {
        int k = imp_sqlite_kind(d, len);
        return (k == IMP_NVPROF_SQLITE || k == IMP_NSYS_SQLITE) ? (imp_format)k : IMP_UNKNOWN;
    }
    /* only examiner results come as several files, hence as an archive */
    if (imp_archive_detect(d, len) != IMP_ARCHIVE_NONE) return IMP_EXAMINER_JSON;
    size_t pos = 0;
    if (len >= 3 && d[0] == 0xEF && d[1] == 0xBB && d[2] == 0xBF) pos = 3;
    while (pos < len && (d[pos] == ' ' || d[pos] == '\t' || d[pos] == '\r' || d[pos] == '\n'))
        pos++;
    if (pos < len && d[pos] == '{') {
        /* our own trace names its schema near the top ("schema" is the
         * first key `export` writes); examiner results are other objects */
        size_t scan = len - pos < 4096 ? len - pos : 4096;
        static const char schema[] = "\"schedlab-trace/1\"";
        for (size_t i = pos; i + sizeof schema - 1 <= pos + scan; i++)
            if (memcmp(d + i, schema, sizeof schema - 1) == 0) return IMP_SCHEDLAB_TRACE;
        return IMP_EXAMINER_JSON;
    }

    /* The globaltimer format is decided by its first significant line; an
     * nvprof log may start with application output, so its markers are
     * looked for further down. */
    bool first = true;
    for (int lines = 0; pos < len && lines < 200; lines++) {
        const char *s = (const char *)d + pos;
        const char *nl = memchr(s, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - s) : len - pos;
        pos += n + (nl ? 1 : 0);
        if (n && s[n - 1] == '\r') n--;
        size_t lead = 0;
        while (lead < n && (s[lead] == ' ' || s[lead] == '\t')) lead++;
        if (lead == n) continue;
        if (nvprof_marker(s, n)) return IMP_NVPROF_CSV;
        if (first) {
            if (s[lead] == '#') continue;
            first = false;
            if (has_prefix(s + lead, n - lead, "kernel,") || header_line(s, n) ||
                looks_like_block_row(s, n))
                return IMP_GLOBALTIMER_CSV;
        }
    }
    /* a long run of application output before the table */
    static const char hdr[] = "\n\"Start\",\"Duration\",";
    size_t scan = len < 65536 ? len : 65536;
    for (size_t i = 0; i + sizeof hdr - 1 <= scan; i++)
        if (d[i] == '\n' && memcmp(d + i, hdr, sizeof hdr - 1) == 0) return IMP_NVPROF_CSV;
    const char *name = file->name;
    size_t nl = name ? strlen(name) : 0;
    if (nl > 5 && strcmp(name + nl - 5, ".json") == 0) return IMP_EXAMINER_JSON;
    return IMP_UNKNOWN;
}

static const char *file_name(const imp_file *f) { return f->name ? f->name : "input"; }

static int dispatch(imp_format fmt, const imp_file *files, size_t nfiles, trace *out, char *err,
                    size_t errlen) {
    switch (fmt) {
    case IMP_EXAMINER_JSON: return imp_examiner_json(files, nfiles, out, err, errlen);
    case IMP_GLOBALTIMER_CSV: return imp_globaltimer_csv(&files[0], out, err, errlen);
    case IMP_NVPROF_CSV: return imp_nvprof_csv(&files[0], out, err, errlen);
    case IMP_NVPROF_SQLITE: return imp_nvprof_sqlite(&files[0], out, err, errlen);
    case IMP_NSYS_SQLITE: return imp_nsys_sqlite(&files[0], out, err, errlen);
    case IMP_PYTORCH: return imp_pytorch_json(files, nfiles, out, err, errlen);
    case IMP_SCHEDLAB_TRACE:
        snprintf(err, errlen, "%s: schedlab-trace JSON is read by the trace JSON reader "
                 "(tj_parse_trace), not by imp_import", file_name(&files[0]));
        return -1;
    default: break;
    }
    snprintf(err, errlen, "%s: unknown format", file_name(&files[0]));
    return -1;
}

/* A plain file beside archives, owned like an archive member. */
static int own_copy(const imp_file *f, imp_file *dst) {
    char *name = strdup(file_name(f));
    unsigned char *data = malloc(f->len ? f->len : 1);
    if (!name || !data) {
        free(name);
        free(data);
        return -1;
    }
    if (f->len) memcpy(data, f->data, f->len);
    *dst = (imp_file){name, data, f->len};
    return 0;
}

/* Every archive among the examiner files expanded in place, in upload
 * order. With no archive *out stays NULL and the caller reads `files` as
 * given. Otherwise every entry of *out owns its name and bytes -- archive
 * members are moved out of imp_archive_expand's array, plain files copied --
 * so imp_archive_free(*out, *nout) is the one way to release it. */
static int expand_archives(const imp_file *files, size_t nfiles, imp_file **out, size_t *nout,
                           char *err, size_t errlen) {
    imp_file *all = NULL;
    size_t n = 0, i;
    *out = NULL;
    *nout = 0;
    for (i = 0; i < nfiles; i++)
        if (imp_archive_detect(files[i].data, files[i].len) != IMP_ARCHIVE_NONE) break;
    if (i == nfiles) return 0;
    for (i = 0; i < nfiles; i++) {
        imp_file *members = NULL;
        size_t nm = 1;
        if (imp_archive_detect(files[i].data, files[i].len) != IMP_ARCHIVE_NONE &&
            imp_archive_expand(&files[i], &members, &nm, err, errlen) < 0)
            goto bad;
        imp_file *grown = realloc(all, (n + nm) * sizeof *grown);
        if (!grown) {
            imp_archive_free(members, nm);
            goto oom;
        }
        all = grown;
        if (members) {
            memcpy(all + n, members, nm * sizeof *members);
            free(members);               /* the entries now belong to `all` */
            n += nm;
        } else {
            if (own_copy(&files[i], &all[n]) < 0) goto oom;
            n++;
        }
    }
    *out = all;
    *nout = n;
    return 0;
oom:
    snprintf(err, errlen, "%s: out of memory", file_name(&files[i]));
bad:
    imp_archive_free(all, n);
    return -1;
}

int imp_import(imp_format fmt, const imp_file *files, size_t nfiles, trace *out, char *err,
               size_t errlen) {
    return imp_import_opts(fmt, files, nfiles, NULL, out, err, errlen);
}

bool imp_can_stream(imp_format fmt) {
    return fmt == IMP_NVPROF_CSV || fmt == IMP_GLOBALTIMER_CSV || fmt == IMP_NVPROF_SQLITE ||
           fmt == IMP_NSYS_SQLITE;
}

static int import_run(imp_format fmt, const imp_file *files, size_t nfiles, imp_stream *stream,
                      trace *out, char *err, size_t errlen);

int imp_import_opts(imp_format fmt, const imp_file *files, size_t nfiles,
                    const imp_options *opts, trace *out, char *err, size_t errlen) {
    imp_progress_begin(opts);
    int rc = import_run(fmt, files, nfiles, opts ? opts->stream : NULL, out, err, errlen);
    imp_stream_begin(NULL);   /* a failed import leaves no sink behind */
    imp_progress_end(rc == 0);
    return rc;
}

static int import_run(imp_format fmt, const imp_file *files, size_t nfiles, imp_stream *stream,
                      trace *out, char *err, size_t errlen) {
    if (!files || nfiles == 0) {
        snprintf(err, errlen, "import: no input file given");
        return -1;
    }
    if (fmt == IMP_UNKNOWN) {
        fmt = imp_detect(&files[0]);
        if (fmt == IMP_UNKNOWN) {
            snprintf(err, errlen, "%s: cannot tell the format from the content; name it "
                     "(examiner-json, globaltimer-csv, nvprof-csv, nvprof-sqlite, nsys-sqlite, "
                     "schedlab-trace, pytorch)", file_name(&files[0]));
            return -1;
        }
    }
    if (fmt < 0 || fmt >= IMP_FORMAT_COUNT) {
        snprintf(err, errlen, "%s: unknown format", file_name(&files[0]));
        return -1;
    }
    if (nfiles > 1 && fmt != IMP_EXAMINER_JSON && fmt != IMP_PYTORCH) {
        snprintf(err, errlen, "%s: only examiner-json (one file per stream) and pytorch (one "
                 "file per rank) read several files as one run; import %s files one at a time", file_name(&files[1]),
                 imp_format_name(fmt));
        return -1;
    }
    int rc;
    if (stream) {
        imp_stream_begin(stream);
        /* a streaming format names neither: the first batch's receiver
         * sees the name and source the trace ends with */
        if (imp_can_stream(fmt)) {
            const char *base = strrchr(file_name(&files[0]), '/');
            trace_set_source(out, imp_format_name(fmt));
            trace_set_name(out, base ? base + 1 : file_name(&files[0]));
        }
    }
    if (fmt == IMP_EXAMINER_JSON) {
        imp_file *all;
        size_t n;
        if (expand_archives(files, nfiles, &all, &n, err, errlen) < 0) return -1;
        rc = all ? dispatch(fmt, all, n, out, err, errlen)
                 : dispatch(fmt, files, nfiles, out, err, errlen);
        imp_archive_free(all, n);
    } else {
        rc = dispatch(fmt, files, nfiles, out, err, errlen);
    }
    if (rc < 0) {
        /* the SQLite formats stream rows by start: the first bad one they
         * meet need not be the first by rowid that the whole-file import
         * names */
        if (stream && (fmt == IMP_NVPROF_SQLITE || fmt == IMP_NSYS_SQLITE))
            stream->whole_message = true;
        return -1;
    }
    imp_stream_end(out);

    if (!out->source) trace_set_source(out, imp_format_name(fmt));
    if (!out->name) {
        const char *base = strrchr(file_name(&files[0]), '/');
        trace_set_name(out, base ? base + 1 : file_name(&files[0]));
    }
    trace_rebase(out);
    char num[32];
    snprintf(num, sizeof num, "%lld", (long long)out->origin);
    trace_set_meta(out, "origin_ns", num);
    trace_set_meta(out, "format", imp_format_name(fmt));
    size_t total = 1;
    for (size_t i = 0; i < nfiles; i++) total += strlen(file_name(&files[i])) + 2;
    char *list = malloc(total);
    if (list) {
        size_t o = 0;
        for (size_t i = 0; i < nfiles; i++)
            o += (size_t)snprintf(list + o, total - o, "%s%s", i ? ", " : "",
                                  file_name(&files[i]));
        trace_set_meta(out, "files", list);
        free(list);
    } else {
        out->oom = true;
    }
    if (out->oom) {
        snprintf(err, errlen, "%s: out of memory", file_name(&files[0]));
        return -1;
    }
    return 0;
}
