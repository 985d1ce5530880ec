/* importers.c -- format names, detection from content, and the one import
 * entry point (importers.h) that dispatches to the per-format functions of
 * formats.h, then re-bases the trace and records where it came from. */
#include "importers.h"

#include "archive.h"
#include "formats.h"
#include "sqlite_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The table: IMP_FORMATS (importers.h) lists each format's descriptor. */
#define IMP_FORMAT_ENTRY(id, desc) [id] = &desc,
static const imp_importer *const importers[IMP_FORMAT_COUNT] = { IMP_FORMATS(IMP_FORMAT_ENTRY) };
#undef IMP_FORMAT_ENTRY

const imp_importer *imp_importer_get(imp_format f) {
    return f >= 0 && f < IMP_FORMAT_COUNT ? importers[f] : NULL;
}

const char *imp_format_name(imp_format f) {
    const imp_importer *im = imp_importer_get(f);
    return im ? im->name : "unknown";
}

imp_format imp_format_parse(const char *name) {
    if (!name) return IMP_UNKNOWN;
    for (int i = 0; i < IMP_FORMAT_COUNT; i++)
        if (strcmp(name, importers[i]->name) == 0) return (imp_format)i;
    return IMP_UNKNOWN;
}

const char *imp_format_list(char *buf, size_t len) {
    size_t o = 0;
    if (len) buf[0] = '\0';
    for (int i = 0; i < IMP_FORMAT_COUNT && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "", importers[i]->name);
    return buf;
}

/* The first format whose content test accepts the bytes, in table order;
 * else, for a file that is not SQLite (an SQLite file of neither kind is
 * nobody's), the first whose name suffix the file's name ends with. */
imp_format imp_detect(const imp_file *file) {
    if (!file->data) return IMP_UNKNOWN;
    for (int i = 0; i < IMP_FORMAT_COUNT; i++)
        if (importers[i]->detect && importers[i]->detect(file)) return (imp_format)i;
    if (imp_sql_is_sqlite(file->data, file->len)) return IMP_UNKNOWN;
    const char *name = file->name;
    size_t nl = name ? strlen(name) : 0;
    for (int i = 0; i < IMP_FORMAT_COUNT; i++) {
        const char *suf = importers[i]->suffix;
        size_t sl = suf ? strlen(suf) : 0;
        if (sl && nl > sl && strcmp(name + nl - sl, suf) == 0) return (imp_format)i;
    }
    return IMP_UNKNOWN;
}

static const char *file_name(const imp_file *f) { return f->name ? f->name : "input"; }

static int dispatch(imp_ctx *cx, imp_format fmt, const imp_file *files, size_t nfiles, trace *out,
                    char *err, size_t errlen) {
    const imp_importer *im = imp_importer_get(fmt);
    if (im && im->read) return im->read(cx, files, nfiles, out, err, errlen);
    snprintf(err, errlen, "%s: unknown format", file_name(&files[0]));
    return -1;
}

/* Every archive among the examiner files expanded in place, in upload
 * order. With no archive *out stays NULL and the caller reads `files` as
 * given. Otherwise every entry of *out owns its name -- archive members
 * (mapped temporary files) are moved out of imp_archive_expand's array,
 * plain files borrowed from `files` (imp_archive_borrow) -- so
 * imp_archive_free(*out, *nout) is the one way to release it. The members
 * left out are import warnings on `warn` (archive.h). */
static int expand_archives(const imp_file *files, size_t nfiles, trace *warn, imp_file **out,
                           size_t *nout, char *err, size_t errlen) {
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
            imp_archive_expand_warn(&files[i], warn, &members, &nm, err, errlen) < 0)
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
            if (imp_archive_borrow(&files[i], &all[n]) < 0) goto oom;
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
    const imp_importer *im = imp_importer_get(fmt);
    return im && im->stream;
}

static int import_run(imp_ctx *cx, imp_format fmt, const imp_file *files, size_t nfiles,
                      imp_stream *stream, trace *out, char *err, size_t errlen);

int imp_import_opts(imp_format fmt, const imp_file *files, size_t nfiles,
                    const imp_options *opts, trace *out, char *err, size_t errlen) {
    imp_ctx cx = {0};
    imp_progress_begin(&cx, opts);
    imp_stream_begin(&cx, NULL);
    int rc = import_run(&cx, fmt, files, nfiles, opts ? opts->stream : NULL, out, err, errlen);
    /* stopped by imp_options.cancelled: one message whatever the format
     * met first (an SQLite statement interrupted, a row cut short) */
    if (rc && cx.stop && err && errlen)
        snprintf(err, errlen, "%s: %s", nfiles ? file_name(&files[0]) : "import", IMP_CANCELLED);
    imp_progress_end(&cx, rc == 0);
    return rc;
}

/* A file refused as the format named for it (--format, ?format=, the
 * upload form's list) whose content another format's detection takes
 * beyond doubt -- a CSV of either kind, an nvprof or Nsight export, a
 * schedlab trace, a PyTorch trace (examiner results are any JSON object,
 * so never) -- gets that format named after the refusal: "nvprof.csv:1: 2
 * fields; expected kernel,block,... (its content is nvprof-csv's: import
 * it as format nvprof-csv)". A detected format is its own detection's. */
static void wrong_format_hint(const imp_ctx *cx, imp_format fmt, const imp_file *files,
                              size_t nfiles, char *err, size_t errlen) {
    if (cx->stop || nfiles != 1 || !err || !errlen) return;
    imp_format g = imp_detect(&files[0]);
    if (g == fmt || (g != IMP_NVPROF_CSV && g != IMP_GLOBALTIMER_CSV && g != IMP_NVPROF_SQLITE &&
                     g != IMP_NSYS_SQLITE && g != IMP_SCHEDLAB_TRACE && g != IMP_PYTORCH))
        return;
    size_t n = strlen(err);
    if (strstr(err, "import it as format")) return;   /* the refusal named it already */
    if (n + 1 < errlen)
        snprintf(err + n, errlen - n, " (its content is %s's: import it as format %s)",
                 imp_format_name(g), imp_format_name(g));
}

static int import_run(imp_ctx *cx, imp_format fmt, const imp_file *files, size_t nfiles,
                      imp_stream *stream, trace *out, char *err, size_t errlen) {
    if (!files || nfiles == 0) {
        snprintf(err, errlen, "import: no input file given");
        return -1;
    }
    /* An empty file, whatever the format named or guessed from its name
     * (a profiler that died before writing, a pipe that carried nothing):
     * said as such, as the upload's "the request body is empty", rather
     * than as the format's first expectation it fails ("truncated at line
     * 1", "no nvprof GPU-trace header", "byte 0: the input ends") */
    for (size_t i = 0; i < nfiles; i++)
        if (files[i].len == 0) {
            snprintf(err, errlen, "%s: the file is empty (0 bytes): nothing to import",
                     file_name(&files[i]));
            return -1;
        }
    /* The file `nsys profile` writes is its own report, not the SQLite
     * export this reads (profiler-trace-formats.md §3.1): said by its name,
     * which is all there is to go on, unless the bytes are SQLite after all */
    for (size_t i = 0; i < nfiles; i++) {
        const char *nm = file_name(&files[i]);
        size_t nl = strlen(nm);
        bool nsys_rep = (nl > 9 && strcmp(nm + nl - 9, ".nsys-rep") == 0) ||
                        (nl > 6 && strcmp(nm + nl - 6, ".qdrep") == 0);
        bool ncu_rep = nl > 8 && strcmp(nm + nl - 8, ".ncu-rep") == 0;
        if ((nsys_rep || ncu_rep) && !imp_sql_is_sqlite(files[i].data, files[i].len)) {
            if (nsys_rep)
                snprintf(err, errlen, "%s: an Nsight Systems report, which only Nsight reads; "
                         "export it (nsys export --type sqlite %s) and import the .sqlite file",
                         nm, strrchr(nm, '/') ? strrchr(nm, '/') + 1 : nm);
            else
                snprintf(err, errlen, "%s: an Nsight Compute report (per-kernel metrics, no "
                         "timeline); record the run with Nsight Systems (nsys profile) and "
                         "import its SQLite export", nm);
            return -1;
        }
    }
    if (fmt == IMP_UNKNOWN) {
        fmt = imp_detect(&files[0]);
        if (fmt == IMP_UNKNOWN && imp_sql_is_sqlite(files[0].data, files[0].len))
            return imp_sqlite_unknown(&files[0], err, errlen);
        if (fmt == IMP_UNKNOWN) {
            char names[256];
            snprintf(err, errlen, "%s: cannot tell the format from the content; name it (%s)",
                     file_name(&files[0]), imp_format_list(names, sizeof names));
            return -1;
        }
    }
    if (fmt < 0 || fmt >= IMP_FORMAT_COUNT) {
        snprintf(err, errlen, "%s: unknown format", file_name(&files[0]));
        return -1;
    }
    const imp_importer *im = importers[fmt];
    if (nfiles > 1 && !im->multi_file) {
        char many[128] = "";
        size_t o = 0;
        for (int i = 0, k = 0; i < IMP_FORMAT_COUNT && o < sizeof many; i++)
            if (importers[i]->multi_file)
                o += (size_t)snprintf(many + o, sizeof many - o, "%s%s", k++ ? " and " : "",
                                      importers[i]->name);
        snprintf(err, errlen, "%s: only %s read several files as one run; import %s "
                 "files one at a time", file_name(&files[1]), many, im->name);
        return -1;
    }
    /* A compressed file or an archive named as a format that reads neither
     * (run.csv.gz --format nvprof-csv): said as what it is, rather than as
     * the format's first complaint about its bytes ("no nvprof GPU-trace
     * header", "1:2: JSON: invalid token near '\x1f'", "NUL byte in a
     * field"). Only examiner-json and pytorch read archives (multi_file)
     * and only pytorch a compressed file on its own. */
    if (!im->multi_file) {
        imp_archive_kind kind = imp_archive_detect(files[0].data, files[0].len);
        if (kind == IMP_ARCHIVE_GZIP || kind == IMP_ARCHIVE_BZIP2 || kind == IMP_ARCHIVE_XZ) {
            imp_archive_explain_compressed(&files[0], IMP_WANT_FILE, err, errlen);
            return -1;
        }
        if (kind == IMP_ARCHIVE_TAR || kind == IMP_ARCHIVE_ZIP) {
            snprintf(err, errlen, "%s: a %s archive; %s reads one file, not an archive: extract "
                     "it first (only examiner-json and pytorch read archives)",
                     file_name(&files[0]), kind == IMP_ARCHIVE_TAR ? "tar" : "zip", im->name);
            return -1;
        }
    }
    /* The files of one run are of one format: a file of another that its
     * content names beyond doubt (a CSV, an SQLite export, a schedlab
     * trace), given with a job's rank files, is said as such rather than
     * as the format's first complaint about it ("nv.csv: byte 0:
     * unexpected '='"). Archives are expanded and read member by member. */
    for (size_t i = 0; im->multi_file && nfiles > 1 && i < nfiles; i++) {
        if (imp_archive_detect(files[i].data, files[i].len) != IMP_ARCHIVE_NONE) continue;
        imp_format g = imp_detect(&files[i]);
        if (g == fmt || (g != IMP_NVPROF_CSV && g != IMP_GLOBALTIMER_CSV &&
                         g != IMP_NVPROF_SQLITE && g != IMP_NSYS_SQLITE && g != IMP_SCHEDLAB_TRACE))
            continue;
        snprintf(err, errlen, "%s: format %s, not %s; the files of one run are of one format: "
                 "import it on its own", file_name(&files[i]), imp_format_name(g), im->name);
        return -1;
    }
    /* one recording given twice would be one run with every record twice
     * (a job's rank file named two times): refused, naming both */
    for (size_t i = 1; i < nfiles; i++)
        for (size_t j = 0; j < i; j++)
            if (files[i].len == files[j].len &&
                (files[i].data == files[j].data ||
                 memcmp(files[i].data, files[j].data, files[i].len) == 0)) {
                snprintf(err, errlen, "%s: the same bytes as %s; a run holds each recording "
                         "once", file_name(&files[i]), file_name(&files[j]));
                return -1;
            }
    int rc;
    if (stream) {
        imp_stream_begin(cx, stream);
        /* a streaming format names neither: the first batch's receiver
         * sees the name and source the trace ends with */
        if (im->stream) {
            const char *base = strrchr(file_name(&files[0]), '/');
            trace_set_source(out, imp_format_name(fmt));
            trace_set_name(out, base ? base + 1 : file_name(&files[0]));
        }
    }
    if (im->multi_file && !im->own_archives) {
        /* several files come as an archive too */
        imp_file *all;
        size_t n;
        if (expand_archives(files, nfiles, out, &all, &n, err, errlen) < 0) return -1;
        rc = all ? dispatch(cx, fmt, all, n, out, err, errlen)
                 : dispatch(cx, fmt, files, nfiles, out, err, errlen);
        imp_archive_free(all, n);
    } else {
        rc = dispatch(cx, fmt, files, nfiles, out, err, errlen);
    }
    if (rc < 0) {
        /* the SQLite formats stream rows by start: the first bad one they
         * meet need not be the first by rowid that the whole-file import
         * names */
        if (stream && im->out_of_order) stream->whole_message = true;
        wrong_format_hint(cx, fmt, files, nfiles, err, errlen);
        /* pytorch reads a .json.gz itself: a gzip of another format's file
         * is refused for its inflated bytes, which are named likewise */
        if (fmt == IMP_PYTORCH && nfiles == 1 && !cx->stop && err && errlen &&
            !strstr(err, "(its content is"))
            imp_archive_hint_compressed(&files[0], err, errlen);
        return -1;
    }
    imp_stream_end(cx, out);
    if (im->as_written) {
        if (!out->oom) return 0;
        snprintf(err, errlen, "%s: out of memory", file_name(&files[0]));
        return -1;
    }

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
