/* server/cli/ -- the command line: main.c parses the commands and their
 * options and calls app/ (simulate, import, export, replay, check) or starts
 * the HTTP server (serve); rta_cli.c holds the `rta`, `sweep` and `merge`
 * commands. The top layer: it may include every server/ folder below it
 * (http/, app/, formats/) and db/, importers/, simcore/ (docs/modules.md). */

/* main.c -- the schedlab command line (DESIGN §3).
 *
 * Exit status: 0 success; 2 bad input (one line on stderr naming the file,
 * the place and the problem); 1 any other failure. This is the only file
 * that calls exit(). */
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <archive.h>
#include <jansson.h>
#include <microhttpd.h>
#include <sqlite3.h>

#include "../../db/db.h"
#include "../../importers/importers.h"
#include "../../simcore/sim.h"
#include "answer_mem.h"
#include "conn_guard.h"
#include "api.h"
#include "budget.h"
#include "store.h"
#include "seed_bg.h"
#include "sweep_api.h"
#include "addrs.h"
#include "http.h"
#include "replay.h"
#include "replay_devices.h"
#include "replay_api.h"
#include "replay_heldout.h"
#include "fidelity.h"
#include "fidelity_causes.h"
#include "rta_cli.h"
#include "cli_opt.h"
#include "cli_out.h"
#include "../../importers/jsonr.h"
#include "kernlib.h"
#include "scenario.h"
#include "trace_json.h"

#define SCHEDLAB_VERSION "0.1.0"
#ifndef SCHEDLAB_LIBIBERTY_VERSION  /* the Makefile passes libiberty-dev's version */
#define SCHEDLAB_LIBIBERTY_VERSION "(version unknown)"
#endif
#define EXIT_BAD_INPUT 2

static const char usage_main[] =
    "usage: schedlab COMMAND [options]   (schedlab COMMAND --help for details)\n"
    "\n"
    "  simulate SCENARIO.json [-o TRACE.json] [--variant NAME]\n"
    "  import FILE... [--format F] [--db DB] [--name NAME] [--experiment SLUG]\n"
    "  export RUN [--db DB] [--format trace|chrome] [-o FILE]\n"
    "  replay RUN [--db DB] [-o SCENARIO.json] [--device PRESET] [--report REPORT.json] [--store]\n"
    "  serve [--db DB] [--port 8080] [--bind 127.0.0.1] [--web DIR] [--scenarios DIR]\n"
    "        [--token T] [--max-upload SIZE] [--allow-host NAME,...] [--budget KEY=N,...]\n"
    "        [--token-file FILE] [--read-token T] [--answer-memory SIZE] [--no-check]\n"
    "        [--header-timeout S] [--min-body-rate BYTES] [--max-per-address N]\n"
    "  rta TASKSET.json\n"
    "  sweep SPEC.json [--shard i/n] [--reuse OLD.json] [--db DB] [-o RESULT.json] [--threads N]\n"
    "        [--progress SECONDS]\n"
    "  merge SHARD.json... [--db DB] [-o RESULT.json]\n"
    "  --version          the version of schedlab and of the libraries it uses\n"
    "\n"
    "The database is ./schedlab.db unless --db or the SCHEDLAB_DB variable names another;\n"
    "import, serve, sweep and merge create it, export and replay only read it.\n"
    "Exit status: 0 ok, 2 bad input (one line on stderr says where), 1 other failures.\n";

static const char usage_simulate[] =
    "usage: schedlab simulate SCENARIO.json [-o TRACE.json] [--variant NAME]\n"
    "\n"
    "Simulate one run of a schedlab-scenario/1 file and write its schedlab-trace/1\n"
    "JSON. Nothing is stored; the same scenario gives the same bytes.\n"
    "  -o TRACE.json      write it to this file (default: stdout), created only once\n"
    "                     the simulation has succeeded\n"
    "  --variant NAME     the run of that name: one of the scenario's variants, or the\n"
    "                     base run's own name (default: the scenario as written,\n"
    "                     \"default\"); an unknown name lists the runs\n";

static const char usage_import[] =
    "usage: schedlab import FILE... [--format F] [--db DB] [--name NAME] [--experiment SLUG]\n"
    "\n"
    "Import a profiler trace as one new run and print the run's id. Several files\n"
    "(or one .zip/.tar) only for examiner-json (one file per stream) and pytorch\n"
    "(one file per rank of a job).\n"
    "  --format F         examiner-json, globaltimer-csv, nvprof-csv, nvprof-sqlite,\n"
    "                     nsys-sqlite, schedlab-trace or pytorch; detected from the content if absent\n"
    "  --db DB            the database (default: $SCHEDLAB_DB, else ./schedlab.db), created\n"
    "                     when missing\n"
    "  --name NAME        the run's name (default: the file name)\n"
    "  --experiment SLUG  add the run to this experiment (default: a new experiment)\n"
    "Stops cleanly on SIGINT, SIGTERM or SIGHUP (not under nohup): nothing stored,\n"
    "a database it made removed.\n";

static const char usage_export[] =
    "usage: schedlab export RUN [--db DB] [--format trace|chrome] [-o FILE]\n"
    "\n"
    "Write a stored run as schedlab-trace/1 JSON (default) or as Chrome/Perfetto\n"
    "trace-event JSON (open it in ui.perfetto.dev or chrome://tracing). The database\n"
    "is opened read-only: a missing one is an error, never created.\n"
    "  --db DB            the database (default: $SCHEDLAB_DB, else ./schedlab.db)\n"
    "  --format F         trace (schedlab-trace/1, the default) or chrome\n"
    "  -o FILE            write it to this file (default: stdout)\n";

static const char usage_replay[] =
    "usage: schedlab replay RUN [--db DB] [-o SCENARIO.json] [--device PRESET] [--report REPORT.json] [--store]\n"
    "\n"
    "Derive a schedlab-scenario/1 from a stored run (kernels with their streams,\n"
    "issue times, grid and block sizes, per-block durations; copies), so a measured\n"
    "trace can be simulated under other policies. The device is the trace's own,\n"
    "completed from its compute capability (or from its name); --device names a\n"
    "preset instead. The scenario runs most-room placement and has every other\n"
    "placement policy as a variant (--variant round-robin).\n"
    "\n"
    "The scenario is simulated and compared with the measured run: the fidelity\n"
    "report (its calibration, a held-out prediction, the causes of misses) goes\n"
    "to stderr, and as schedlab-fidelity/1 JSON to --report. The database is\n"
    "opened read-only, unless --store: then the simulations (one run per policy)\n"
    "are stored as a new experiment with their reports, as the dashboard's replay\n"
    "does.\n"
    "  --db DB            the database (default: $SCHEDLAB_DB, else ./schedlab.db)\n"
    "  -o SCENARIO.json   write the scenario to this file (default: stdout)\n"
    "  --device PRESET    simulate on this preset (default: the trace's own device)\n"
    "  --report REPORT.json  write the fidelity report to this file too (-: to stdout,\n"
    "                     the scenario then to -o SCENARIO.json)\n"
    "  --store            store the simulations and their reports (default: nothing\n"
    "                     is stored)\n";

static const char usage_serve[] =
    "usage: schedlab serve [--db DB] [--port 8080] [--bind 127.0.0.1] [--web DIR] [--scenarios DIR]\n"
    "                      [--token T] [--max-upload SIZE] [--allow-host NAME,...] [--budget KEY=N,...]\n"
    "                      [--token-file FILE] [--read-token T] [--answer-memory SIZE] [--no-check]\n"
    "                      [--header-timeout S] [--min-body-rate BYTES] [--max-per-address N]\n"
    "\n"
    "Serve the dashboard and the HTTP API. A missing database is created; every\n"
    "scenario in the scenarios folder not yet stored is simulated and stored as an\n"
    "experiment, in the background: the port opens at once and GET /api/health says\n"
    "\"seeding\": true until they are all stored. One line per address it answers\n"
    "on (every interface's for --bind 0.0.0.0). --web and --scenarios default to\n"
    "the installed ones (PREFIX/share/schedlab/ for PREFIX/bin/schedlab), or those\n"
    "of the checkout the executable is in, else web/ and scenarios/ in the current\n"
    "folder.\n"
    "  --db DB            the database (default: $SCHEDLAB_DB, else ./schedlab.db), created\n"
    "                     when missing\n"
    "  --port N           the port (8080; 0: any free port)\n"
    "  --bind ADDR        the address to answer on (127.0.0.1; 0.0.0.0 or :: for every\n"
    "                     interface)\n"
    "  --web DIR          the dashboard's files (default: as above)\n"
    "  --scenarios DIR    the scenarios stored at start (default: as above; an empty\n"
    "                     folder: none)\n"
    "  --no-check         skip the check of the whole database file at start (PRAGMA\n"
    "                     quick_check, about a second per 100 MB; /api/health reports\n"
    "                     a corrupt file once it is done): for a file just copied from\n"
    "                     one that passed it\n"
    "\n"
    "On a shared machine:\n"
    "  --token T          writes (POST) need \"Authorization: Bearer T\"; reads stay open\n"
    "                     so shared links work. Default: $SCHEDLAB_TOKEN -- prefer it or\n"
    "                     --token-file: the command line is readable by every local user\n"
    "                     (a warning says so). Without a token, binding to another\n"
    "                     address than loopback, or a machine with other login users,\n"
    "                     warns.\n"
    "  --token-file FILE  the token from the first line of FILE (chmod 600)\n"
    "  --read-token T     the API's reads (GET /api/..., but /api/health) need\n"
    "                     \"Authorization: Bearer T\" (or the write token) too. Default:\n"
    "                     $SCHEDLAB_READ_TOKEN\n"
    "  --max-upload SIZE  largest upload (512MiB by default; 100MB, 2GiB, bytes), answered\n"
    "                     413 past it; scenario and taskset bodies are capped at 64MiB\n"
    "  --allow-host NAMES host names this server answers to besides IP addresses and\n"
    "                     localhost (comma-separated), e.g. gpu-lab.example.org\n"
    "  --header-timeout S a new connection's request headers must be complete within\n"
    "                     S seconds (10), else 408 and closed; a kept-alive connection\n"
    "                     idle 30 s after an answer is closed unanswered\n"
    "  --max-per-address N  connections one client address may hold at once (64; at\n"
    "                     most 448): more are closed unanswered. Behind a reverse proxy\n"
    "                     every request comes from the proxy's address: give it more\n"
    "  --min-body-rate BYTES  a request body must keep BYTES a second (1024), averaged, once\n"
    "                     --header-timeout seconds have passed, else 408 and closed\n"
    "  --answer-memory SIZE  memory held at once for answers being sent (256MiB): past\n"
    "                     it an answer is 503 with Retry-After, so slow readers cannot\n"
    "                     pin the server's memory\n"
    "  --budget KEY=N,... work allowed per request: blocks (20000000: all kernels'\n"
    "                     blocks times the runs), ops (200000), variants (64), events\n"
    "                     (100000000), seconds (1000000 simulated), streams (4096),\n"
    "                     processes (256), tasks (4096), sync (200000 events:\n"
    "                     above it the work runs as a job, 202), sync_bytes (4194304),\n"
    "                     queue (16 jobs queued or running; past it 503),\n"
    "                     workers (1 job thread), sweep_analyses (5000000),\n"
    "                     sweep_cycles (25000000) and sweep_threads (2) of one\n"
    "                     sweep job (POST /api/sweeps)\n"
    "Stops cleanly on SIGINT, SIGTERM or SIGHUP (not under nohup): no new writes,\n"
    "queued jobs dropped, running jobs given 5 s to finish then rolled back, every\n"
    "request in flight answered.\n";

static void die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void die(int code, const char *fmt, ...) {
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* messages quote input (file names, JSON tokens): any control character
     * in them is escaped, so the error stays one printable line (issue 16) */
    fputs("schedlab: ", stderr);
    for (const unsigned char *p = (const unsigned char *)msg; *p; p++) {
        if (*p == '\n') fputs("\\n", stderr);
        else if (*p < 0x20 || *p == 0x7f) fprintf(stderr, "\\x%02x", *p);
        else fputc(*p, stderr);
    }
    fputc('\n', stderr);
    exit(code);
}

/* What went to stdout reached it: a run's id, the analysis, a shard's
 * result or the version lost to a full disk or a closed descriptor
 * (`schedlab rta T > /dev/full` exited 0 with nothing written) is a
 * failure, exit 1 (docs/cli.md "Exit status": anything else), named as a
 * failed -o is. rc: the command's status, kept when it failed already. */
static int stdout_checked(int rc) {
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout)) return rc;
    if (rc) return rc;
    fprintf(stderr, "schedlab: stdout: write failed: %s\n", strerror(errno ? errno : EIO));
    return 1;
}

typedef struct opts {
    const char *pos[64];
    int npos;
    const char *out, *variant, *format, *db, *name, *experiment, *device, *bind, *web,
        *scenarios, *port, *token, *max_upload, *allow_host, *budget, *report, *store,
        *answer_memory, *token_file, *read_token, *header_timeout, *min_body_rate,
        *max_per_address, *no_check;
} opts;

/* Options take a value; positional arguments are collected. --help prints
 * the command's usage. */
static void parse_opts(int argc, char **argv, const char *usage, const char *allowed, opts *o) {
    memset(o, 0, sizeof *o);
    cli_opt_seen seen = {.n = 0};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage, stdout);
            exit(stdout_checked(0));
        }
        /* flags: they take no value */
        struct { const char *flag; const char **dst; } flags[] = {
            {"--store", &o->store}, {"--no-check", &o->no_check},
        };
        bool is_flag = false;
        for (size_t f = 0; f < sizeof flags / sizeof *flags && !is_flag; f++) {
            size_t len = strlen(flags[f].flag);
            char needle[32];
            snprintf(needle, sizeof needle, " %s ", flags[f].flag);
            if (strncmp(a, flags[f].flag, len) != 0 || !strstr(allowed, needle)) continue;
            if (a[len] == '\0') {
                *flags[f].dst = a;
                is_flag = true;
            } else if (a[len] == '=') {
                /* "--store=yes" was "unknown option --store", an option --help lists */
                die(EXIT_BAD_INPUT, "option %s takes no value, got \"%s\"", flags[f].flag, a + len + 1);
            }
        }
        if (is_flag) continue;
        if (a[0] != '-' || strcmp(a, "-") == 0) {
            if (o->npos == 64) die(EXIT_BAD_INPUT, "too many arguments");
            o->pos[o->npos++] = a;
            continue;
        }
        struct { const char *flag; const char **dst; } map[] = {
            {"-o", &o->out}, {"--output", &o->out}, {"--variant", &o->variant},
            {"--format", &o->format}, {"--db", &o->db}, {"--name", &o->name},
            {"--experiment", &o->experiment}, {"--device", &o->device}, {"--bind", &o->bind},
            {"--web", &o->web}, {"--scenarios", &o->scenarios}, {"--port", &o->port},
            {"--token", &o->token}, {"--max-upload", &o->max_upload},
            {"--allow-host", &o->allow_host}, {"--budget", &o->budget}, {"--report", &o->report},
            {"--answer-memory", &o->answer_memory}, {"--token-file", &o->token_file},
            {"--read-token", &o->read_token}, {"--header-timeout", &o->header_timeout},
            {"--min-body-rate", &o->min_body_rate}, {"--max-per-address", &o->max_per_address},
        };
        char flag[64];
        const char *val = cli_opt_split(a, flag, sizeof flag);
        const char **dst = NULL;
        for (size_t m = 0; m < sizeof map / sizeof *map; m++)
            if (strcmp(flag, map[m].flag) == 0) dst = map[m].dst;
        char needle[80];
        snprintf(needle, sizeof needle, " %s ", flag);
        if (!dst || !strstr(allowed, needle))
            die(EXIT_BAD_INPUT, "unknown option %s (see --help)", flag);
        if (!val) {
            if (i + 1 >= argc) die(EXIT_BAD_INPUT, "option %s needs a value", flag);
            val = argv[++i];
        }
        /* "--name ''" would name a run nothing; no option means anything by "" */
        if (!*val) die(EXIT_BAD_INPUT, "option %s: the value is empty (leave the option out instead)", flag);
        /* "--db a.db --db b.db" used b.db, saying nothing; a list is one
         * option's value, comma-separated */
        char twice[160];
        if (cli_opt_once(&seen, dst, flag, twice, sizeof twice))
            die(EXIT_BAD_INPUT, "%s%s", twice,
                dst == &o->allow_host ? "; give the names comma-separated: --allow-host NAME,NAME"
                : dst == &o->budget   ? "; give the keys comma-separated: --budget KEY=N,KEY=N"
                                      : "");
        /* "-o -" is stdout, as an input "-" is stdin (it made a file named "-") */
        *dst = dst == &o->out && strcmp(val, "-") == 0 ? NULL : val;
    }
}

static const char *db_default(const opts *o) {
    if (o->db) return o->db;
    const char *env = getenv("SCHEDLAB_DB");
    return env && *env ? env : "schedlab.db";
}

/* The files a command will write (-o, --report; "-" is stdout), refused
 * before anything is read or made (docs/cli.md): a file with other hard
 * links (cli_out_check); the database the command reads (reads_db: it
 * takes --db), symlinks followed: `export RUN --db x.db -o x.db` replaced
 * the database by its own export; and -o and --report naming one file,
 * one replacing the other. */
static void check_outputs(const opts *o, bool reads_db) {
    char err[PATH_MAX + 256];
    const char *names[2] = {o->out, o->report && strcmp(o->report, "-") != 0 ? o->report : NULL};
    const char *flags[2] = {"-o", "--report"};
    for (int i = 0; i < 2; i++) {
        if (!names[i]) continue;
        if (cli_out_check(names[i], err, sizeof err)) die(EXIT_BAD_INPUT, "%s", err);
        if (reads_db && cli_out_same_file(names[i], db_default(o)))
            die(EXIT_BAD_INPUT, "%s %s: the database %s itself: writing it would replace the "
                "database (give %s another name)", flags[i], names[i], db_default(o), flags[i]);
    }
    if (names[0] && names[1] &&
        cli_out_same_file(names[0], names[1]))
        die(EXIT_BAD_INPUT, "-o %s and --report %s: one file: the report would replace the scenario "
            "(give them two names)", names[0], names[1]);
}

/* The whole file in memory; NULL with errno set on failure. */
static char *read_file(const char *path, size_t *len) {
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            char *nb = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
            if (!nb) { free(buf); buf = NULL; errno = ENOMEM; break; }
            buf = nb;
            cap *= 2;
        }
        errno = 0;
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                /* the read's own errno (EISDIR for a folder), not always EIO */
                int e = errno ? errno : EIO;
                free(buf);
                buf = NULL;
                errno = e;
            }
            break;
        }
    }
    if (f != stdin) fclose(f);
    if (buf) *len = n;
    return buf;
}

/* A regular file mapped read-only rather than copied onto the heap (issue 9:
 * an import held the whole file twice, as the read buffer grew by
 * doubling): its pages are the page cache's, read once in order. *maplen is
 * the mapping's length, 0 when the bytes were read instead (stdin, a pipe,
 * an empty file). The importers read data[0..len) only. */
static char *map_file(const char *path, size_t *len, size_t *maplen) {
    *maplen = 0;
    struct stat st;
    int fd = strcmp(path, "-") == 0 ? -1 : open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (uint64_t)st.st_size < SIZE_MAX) {
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m != MAP_FAILED) {
            close(fd);
            madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
            *len = *maplen = (size_t)st.st_size;
            return m;
        }
    }
    if (fd >= 0) close(fd);
    return read_file(path, len);
}

/* data as path (whole or not at all: cli_out.h), or to stdout for NULL */
static void write_out(const char *path, const char *data, size_t len) {
    char err[PATH_MAX + 256];
    int rc = cli_out_write(path, data, len, err, sizeof err);
    if (rc) die(rc == CLI_OUT_REFUSED ? EXIT_BAD_INPUT : 1, "%s", err);
}

/* `replay --report FILE`: the report's JSON and a newline, its failure
 * named as -o's are (it said "cannot write the report", not why) */
static void write_report(const char *path, const json_t *rep) {
    char *text = replay_text(rep);   /* as the scenario is written */
    if (!text) die(1, "out of memory");
    char err[PATH_MAX + 256];
    int rc = cli_out_write(strcmp(path, "-") == 0 ? NULL : path, text, strlen(text), err,
                           sizeof err);   /* "-": stdout */
    free(text);   /* before die(): it exits, and the text would be a leak at exit */
    if (rc) die(rc == CLI_OUT_REFUSED ? EXIT_BAD_INPUT : 1, "%s", err);
}

/* ---- streamed output (simulate, export) ----------------------------------------- */

/* The output file (or stdout) with a jw writer flushing to it in chunks. */
typedef struct stream_out {
    const char *path;   /* NULL: stdout */
    int fd;
    int err;            /* errno of a failed write */
    cli_out file;       /* the -o file, put in place once whole (cli_out.h) */
    jw_buf w;
} stream_out;

#define OUT_CHUNK ((size_t)256 << 10)

static int out_sink(void *ctx, const char *p, size_t n) {
    stream_out *o = ctx;
    if (jw_fd_sink(&o->fd, p, n) == 0) return 0;
    o->err = errno ? errno : EIO;
    return -1;
}

static void out_open(stream_out *o, const char *path) {
    char err[PATH_MAX + 256];
    o->path = path;
    o->err = 0;
    o->fd = STDOUT_FILENO;
    if (path) {
        int rc = cli_out_open(&o->file, path, err, sizeof err);
        if (rc) die(rc == CLI_OUT_REFUSED ? EXIT_BAD_INPUT : 1, "%s", err);
        o->fd = o->file.fd;
    }
    jw_init_sink(&o->w, out_sink, o, OUT_CHUNK);
}

/* rc: the writer's result. A failed write names the file and its errno,
 * and leaves no part of the file (cli_out.h). */
static void out_close(stream_out *o, int rc) {
    char err[PATH_MAX + 256];
    if (rc == 0) rc = jw_finish(&o->w);
    jw_free(&o->w);
    if (rc == 0 && o->path && cli_out_commit(&o->file, err, sizeof err) != 0) die(1, "%s", err);
    if (rc && o->path) cli_out_abort(&o->file);
    if (rc && o->err)
        die(1, "%s: write failed: %s", o->path ? o->path : "stdout", strerror(o->err));
    if (rc) die(1, "out of memory writing the output");
}

/* Simulated blocks through an unlinked temporary file. */
typedef struct spill {
    FILE *f;
    trace_block *buf;   /* read back SIM_SINK_BATCH at a time */
    int failed;         /* errno of a failed write or read */
} spill;

static int spill_emit(void *ctx, const trace_block *b, size_t n) {
    spill *sp = ctx;
    if (fwrite(b, sizeof *b, n, sp->f) != n) {
        sp->failed = errno ? errno : EIO;
        return -1;
    }
    return 0;
}

static int spill_next(void *ctx, const trace_block **v, size_t *n) {
    spill *sp = ctx;
    if (!sp->buf && !(sp->buf = malloc(SIM_SINK_BATCH * sizeof *sp->buf))) {
        sp->failed = ENOMEM;
        return -1;
    }
    size_t got = fread(sp->buf, sizeof *sp->buf, SIM_SINK_BATCH, sp->f);
    if (got == 0 && ferror(sp->f)) {
        sp->failed = errno ? errno : EIO;
        return -1;
    }
    *v = sp->buf;
    *n = got;
    return 0;
}

/* a --db naming a folder or another kind of file is bad input (a database
 * that does not exist, docs/cli.md "Exit status") */
static db *open_db(const opts *o) {
    char err[1024];
    db *d;
    int rc = db_open(db_default(o), &d, err, sizeof err);
    if (rc) die(rc == DB_NOT_A_DATABASE ? EXIT_BAD_INPUT : 1, "%s", err);
    return d;
}

/* ---- commands ------------------------------------------------------------------ */

static int cmd_simulate(int argc, char **argv) {
    opts o;
    parse_opts(argc, argv, usage_simulate, " -o --output --variant ", &o);
    check_outputs(&o, false);
    if (o.npos != 1) die(EXIT_BAD_INPUT, "simulate needs one SCENARIO.json (see --help)");
    char err[1024];
    scn_scenario *s;
    if (scn_parse_file(o.pos[0], &s, err, sizeof err)) die(EXIT_BAD_INPUT, "%s", err);
    int run = 0;
    if (o.variant && (run = scn_find_run(s, o.variant)) < 0) {
        char names[512] = "";
        size_t l = 0;
        for (size_t i = 0; i < scn_run_count(s) && l < sizeof names; i++)
            l += (size_t)snprintf(names + l, sizeof names - l, "%s%s", i ? ", " : "",
                                  scn_run_name(s, i));
        die(EXIT_BAD_INPUT, "%s: --variant: no run named \"%s\" (runs: %s)", jr_path_name(o.pos[0]), o.variant,
            names);
    }
    sim_config cfg;
    trace t;
    trace_init(&t);
    /* Constant memory whatever the run's size (issue 9): the blocks go to an
     * unlinked temporary file as they are simulated (the trace lists kernels,
     * whose ends come last, before blocks), then the text is written in
     * chunks as it is made, the blocks read back batch by batch. */
    spill sp = {0};
    if (!(sp.f = tmpfile()))
        die(1, "cannot open a temporary file for simulated blocks: %s", strerror(errno));
    sim_block_sink sink = {.ctx = &sp, .emit = spill_emit, .batch = 0};
    if (scn_config(s, (size_t)run, &cfg, err, sizeof err))
        die(EXIT_BAD_INPUT, "%s: run \"%s\": %s", jr_path_name(o.pos[0]), scn_run_name(s, (size_t)run), err);
    cfg.block_sink = &sink;
    if (sim_run(&cfg, &t, err, sizeof err)) {
        if (sp.failed)
            die(1, "cannot write simulated blocks to a temporary file: %s", strerror(sp.failed));
        die(EXIT_BAD_INPUT, "%s: run \"%s\": %s", jr_path_name(o.pos[0]), scn_run_name(s, (size_t)run), err);
    }
    if (!t.name) trace_set_name(&t, scn_name(s));
    if (fflush(sp.f) != 0 || fseek(sp.f, 0, SEEK_SET) != 0)
        die(1, "cannot read back simulated blocks: %s", strerror(errno));
    tj_block_src src = {.ctx = &sp, .next = spill_next};
    tj_stream ts;
    tj_stream_init(&ts, &t, &src);
    stream_out out;
    out_open(&out, o.out);
    int rc = tj_stream_step(&ts, &out.w, SIZE_MAX);
    if (sp.failed) die(1, "cannot read back simulated blocks: %s", strerror(sp.failed));
    out_close(&out, rc);
    fclose(sp.f);
    free(sp.buf);
    trace_free(&t);
    scn_free(s);
    return 0;
}

/* "schedlab: warning: LINE" per stored warning on stderr (each line is one
 * printable line already: importers.h imp_warn), then how many more the
 * run's meta counts but does not list. */
static void print_warnings(const store_warnings *w) {
    long long shown = 0;
    for (const char *p = w->lines; p && *p; shown++) {
        const char *nl = strchr(p, '\n');
        int n = nl ? (int)(nl - p) : (int)strlen(p);
        fprintf(stderr, "schedlab: warning: %.*s\n", n, p);
        p += n + (nl ? 1 : 0);
    }
    if (w->total > shown)
        fprintf(stderr, "schedlab: warning: and %lld more (the run's meta counts them in "
                "import_warnings_total)\n", w->total - shown);
}

static int count_experiment(void *ctx, const db_experiment *e) {
    (void)e;
    ++*(int64_t *)ctx;
    return 0;
}

/* Whether d holds no run and no experiment; false when that cannot be told. */
static bool db_is_empty(db *d) {
    int64_t runs = -1, exps = 0;
    char err[256];
    return db_count_runs(d, &runs, err, sizeof err) == 0 && runs == 0 &&
           db_list_experiments(d, count_experiment, &exps, err, sizeof err) == 0 && exps == 0;
}

/* A stop signal (SIGINT, SIGTERM, SIGHUP) during an import: the import is
 * cancelled (store_ctl.cancel) and rolled back like a bad input, the
 * database closed (its -wal and -shm go) and removed when this import made
 * it, and the process then ends by that signal. Before, the default action
 * killed it mid-transaction: nothing was stored, but a new database was
 * left with its -wal (18 MB for a 1.5 M-row log) and -shm. The signals are
 * blocked in every thread (the store's and the streaming parser's inherit
 * the mask) and taken by sigwait in one; a signal ignored at start (nohup,
 * a background job of a script) stays ignored. */
static atomic_bool import_stop;
static atomic_int import_sig;
static sigset_t import_sigs;

static void *import_watch(void *arg) {
    (void)arg;
    int sig = 0;
    while (sigwait(&import_sigs, &sig) != 0) {}
    atomic_store(&import_sig, sig);
    atomic_store(&import_stop, true);
    return NULL;
}

static void import_watch_start(void) {
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    sigemptyset(&import_sigs);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction cur;
        if (sigaction(sigs[i], NULL, &cur) == 0 && cur.sa_handler != SIG_IGN)
            sigaddset(&import_sigs, sigs[i]);
    }
    pthread_sigmask(SIG_BLOCK, &import_sigs, NULL);
    pthread_t th;
    if (pthread_create(&th, NULL, import_watch, NULL) == 0) pthread_detach(th);
}

/* End by the signal that stopped the import, as its default action would. */
static void import_watch_reraise(void) {
    int sig = atomic_load(&import_sig);
    fprintf(stderr, "schedlab: %s: the import was stopped; nothing was stored\n",
            sig == SIGINT ? "SIGINT" : sig == SIGHUP ? "SIGHUP" : "SIGTERM");
    fflush(stderr);
    signal(sig, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    raise(sig);
    pthread_sigmask(SIG_UNBLOCK, &one, NULL);
    _exit(128 + sig);
}

static int cmd_import(int argc, char **argv) {
    opts o;
    parse_opts(argc, argv, usage_import, " --format --db --name --experiment ", &o);
    if (o.npos < 1) die(EXIT_BAD_INPUT, "import needs at least one FILE (see --help)");
    /* an option's value is checked before any file is read: a bad --format
     * is named whether or not the files exist */
    if (o.format && imp_format_parse(o.format) == IMP_UNKNOWN) {
        char names[256];
        die(EXIT_BAD_INPUT, "--format: unknown format \"%s\" (formats: %s)", o.format,
            imp_format_list(names, sizeof names));
    }
    imp_file files[64];
    char *bufs[64];
    size_t maps[64];   /* mapped length; 0: bufs[i] is malloc'ed */
    for (int i = 0; i < o.npos; i++) {
        size_t len;
        if (!(bufs[i] = map_file(o.pos[i], &len, &maps[i])))
            die(EXIT_BAD_INPUT, "%s: cannot read: %s", o.pos[i], strerror(errno));
        /* stdin ("-") is named "stdin", as an upload is "upload"
         * (writes.c): the run's default name, its experiment's and the
         * place an error names, never "-" */
        files[i] = (imp_file){.name = strcmp(o.pos[i], "-") == 0 ? "stdin" : o.pos[i],
                              .data = (const unsigned char *)bufs[i], .len = len};
    }
    import_watch_start();
    struct stat dbst;
    bool db_made = stat(db_default(&o), &dbst) != 0 && errno == ENOENT;
    db *d = open_db(&o);
    char run[DB_SLUG_SIZE], exp[DB_SLUG_SIZE], err[1024];
    /* mapped files let a streaming import drop what it has read (issue 9) */
    store_warnings warned = {0};
    store_ctl sc = {.cancel = &import_stop, .lock_ms = -1, .files_mapped = true,
                    .warnings = &warned};
    for (int i = 0; i < o.npos; i++) sc.files_mapped = sc.files_mapped && maps[i];
    int rc = store_import_ctl(d, files, (size_t)o.npos, o.format, o.experiment, o.name, &sc, run,
                              exp, err, sizeof err);
    /* a refused import leaves nothing behind: the database closed (its
     * -wal and -shm files go with it), and removed when this import made
     * it and it holds nothing (a typo in --db with a bad file made an
     * empty database), as a file that cannot be read makes none */
    if (rc) {
        bool empty = db_made && db_is_empty(d);
        db_close(d);
        if (empty) db_remove_files(db_default(&o));
        if (atomic_load(&import_stop)) import_watch_reraise();
    }
    if (rc == DB_NOT_FOUND)
        die(EXIT_BAD_INPUT, "--experiment: no experiment named \"%s\" in %s", o.experiment,
            db_default(&o));
    /* a slug of an experiment imports may not add to is a wrong slug, as
     * an unknown one is (the API answers 409): bad input, named by the flag */
    if (rc == STORE_FORBIDDEN) die(EXIT_BAD_INPUT, "--%s", err);
    if (rc) die(rc == STORE_BAD_INPUT ? EXIT_BAD_INPUT : 1, "%s", err);
    /* what the import left out or guessed, one line each (docs/cli.md); the
     * run is stored all the same (exit 0) */
    print_warnings(&warned);
    store_warnings_free(&warned);
    printf("%s\n", run);
    db_close(d);
    for (int i = 0; i < o.npos; i++) {
        if (maps[i]) munmap(bufs[i], maps[i]);
        else free(bufs[i]);
    }
    return 0;
}

/* The read commands (export, replay) never create or migrate a database:
 * a missing file is named, not made. */
static db *open_db_readonly(const opts *o) {
    const char *path = db_default(o);
    struct stat st;
    if (stat(path, &st) != 0)
        die(EXIT_BAD_INPUT, "%s: no such database (--db or SCHEDLAB_DB names the file; "
            "`schedlab import` or `schedlab serve` creates one)", path);
    char err[1024];
    db *d;
    int rc = db_open_readonly(path, &d, err, sizeof err);
    if (rc) die(rc == DB_NOT_A_DATABASE ? EXIT_BAD_INPUT : 1, "%s", err);
    return d;
}

static void load_or_die(const opts *o, const char *run, trace *t) {
    db *d = open_db_readonly(o);
    char err[1024];
    trace_init(t);
    int rc = db_load_run(d, run, DB_LOAD_ALL, t, err, sizeof err);
    if (rc == DB_NOT_FOUND) die(EXIT_BAD_INPUT, "%s: no run named \"%s\"", db_default(o), run);
    if (rc) die(1, "%s", err);
    db_close(d);
}

static int cmd_export(int argc, char **argv) {
    opts o;
    parse_opts(argc, argv, usage_export, " --db --format -o --output ", &o);
    check_outputs(&o, true);
    if (o.npos != 1) die(EXIT_BAD_INPUT, "export needs one RUN id (see --help)");
    const char *fmt = o.format ? o.format : "trace";
    bool chrome = strcmp(fmt, "chrome") == 0;
    if (!chrome && strcmp(fmt, "trace") != 0)
        die(EXIT_BAD_INPUT, "--format: expected \"trace\" or \"chrome\", got \"%s\"", fmt);
    trace t;
    load_or_die(&o, o.pos[0], &t);
    stream_out out;   /* written as it is made, never whole (issue 9) */
    out_open(&out, o.out);
    out_close(&out, chrome ? tj_write_chrome(&t, &out.w) : tj_write_trace(&t, &out.w));
    trace_free(&t);
    return 0;
}

/* Simulate the replay's base run, compare it with the measured run and
 * print the fidelity report (fidelity_causes.h) to stderr; write it as JSON
 * to `path` when given. A scenario that does not simulate ends the command
 * with exit 2 and nothing written, saying why. */
static void replay_report(const trace *t, const json_t *scn, const char *what,
                          const char *device, const replay_info *info, const char *path) {
    char err[1024] = "";
    char *txt = json_dumps(scn, JSON_COMPACT);
    if (!txt) die(1, "out of memory");
    scn_scenario *s = NULL;
    int bad = scn_parse(txt, strlen(txt), "replay", &s, err, sizeof err);
    free(txt);
    sim_config cfg;
    trace sim;
    trace_init(&sim);
    bad = bad || scn_config(s, 0, &cfg, err, sizeof err) != 0;
    /* a trace without block records compares kernel by kernel (fidelity.c):
     * the simulated blocks would only be memory */
    if (!bad && !t->blocks.n && !t->cohorts.n) cfg.block_sink = replay_discard_sink();
    if (bad || sim_run(&cfg, &sim, err, sizeof err) != 0) {
        replay_name_op(scn, err, sizeof err);
        /* a scenario that does not validate on its device is bad input
         * (docs/cli.md "Exit status"): `schedlab simulate` of it exits 2, so
         * it is not written, with or without --report, as the several-GPU
         * replay (replay_devices_cli) and --store refuse it */
        if (path)
            die(EXIT_BAD_INPUT, "%s: no fidelity report: the replay does not simulate: %s",
                strcmp(path, "-") == 0 ? "stdout" : path, err);
        die(EXIT_BAD_INPUT, "%s: does not simulate: %s", what, err);
    }
    scn_free(s);
    fidelity f;
    replay_heldout h;
    if (fidelity_compare(t, &sim, &f, err, sizeof err) != 0 ||
        replay_heldout_run(t, what, device, &h, err, sizeof err) != 0)
        die(1, "%s", err);
    json_t *rep = fidelity_json(&f, t, &sim, 10);
    if (!rep || fidelity_explain(rep, t, info, &h) != 0) die(1, "out of memory");
    char *text = fidelity_text(rep);
    if (!text) die(1, "out of memory");
    fputs(text, stderr);
    free(text);
    if (path) write_report(path, rep);
    json_decref(rep);
    fidelity_free(&f);
    trace_free(&sim);
}

/* A trace with work on several GPUs (replay_devices.h): each GPU replayed
 * on its own simulated device; the report (overall and per GPU) to stderr
 * and to `report` when given; the scenarios, one per GPU, as one object
 * {"schema": "schedlab-replay-devices/1", "devices": [{"device": KEY,
 * "scenario": SCENARIO}]} to `out`. */
static void replay_devices_cli(const trace *t, const char *what, const opts *o) {
    char err[1024] = "";
    replay_dev *v = NULL;
    size_t n = 0;
    trace merged;
    int rc = replay_devices_run(t, what, o->device, 1, NULL, &v, &n, &merged, err, sizeof err);
    if (rc) die(rc > 0 ? EXIT_BAD_INPUT : 1, "%s", err);
    json_t *rep = NULL;
    replay_info all;
    if (replay_devices_report(t, v, n, &merged, &rep, &all, err, sizeof err) != 0) die(1, "%s", err);
    fprintf(stderr, "schedlab: replaying on %s\n", all.device_why);
    char *text = fidelity_text(rep);
    if (!text) die(1, "out of memory");
    fputs(text, stderr);
    free(text);
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, "  %s: %zu kernels: duration error median %.2f %%, p90 %.2f %%; start "
                "error median %.3f %% of the span; makespan %+.2f %%\n", v[i].key,
                v[i].measured.kernels.n, v[i].fid.dur_median * 100, v[i].fid.dur_p90 * 100,
                v[i].fid.start_median_share * 100, v[i].fid.makespan_diff * 100);
    if (o->report) write_report(o->report, rep);
    json_t *all_scn = replay_devices_scenarios(v, n);
    char *full = all_scn ? replay_text(all_scn) : NULL;
    if (!full) die(1, "out of memory writing the scenarios");
    write_out(o->out, full, strlen(full));
    free(full);
    json_decref(all_scn);
    json_decref(rep);
    trace_free(&merged);
    replay_devices_free(v, n);
}

static int cmd_replay(int argc, char **argv) {
    opts o;
    parse_opts(argc, argv, usage_replay, " --db -o --output --device --report --store ", &o);
    check_outputs(&o, true);
    if (o.npos != 1) die(EXIT_BAD_INPUT, "replay needs one RUN id (see --help)");
    /* "--report -" is stdout, as "-o -" is (it made a file named "-"); the
     * scenario goes there too unless -o names a file: one of them must */
    if (o.report && strcmp(o.report, "-") == 0 && !o.out)
        die(EXIT_BAD_INPUT, "--report -: the report and the scenario would both go to stdout "
            "(give -o SCENARIO.json, or --report REPORT.json)");
    trace t;
    load_or_die(&o, o.pos[0], &t);
    char what[64], err[1024];
    snprintf(what, sizeof what, "run %s", o.pos[0]);
    if (replay_device_keys(&t, NULL, 0) > 1) {
        replay_devices_cli(&t, what, &o);   /* one simulated GPU per GPU */
    } else {
        json_t *scn;
        replay_info info;
        if (replay_scenario_info(&t, what, o.device, &scn, &info, err, sizeof err))
            die(EXIT_BAD_INPUT, "%s", err);
        fprintf(stderr, "schedlab: replaying on %s\n", info.device_why);
        replay_report(&t, scn, what, o.device, &info, o.report);
        char *full = replay_text(scn);
        if (!full) die(1, "out of memory writing the scenario");
        write_out(o.out, full, strlen(full));
        free(full);
        json_decref(scn);
    }
    trace_free(&t);
    if (o.store) {
        /* as the dashboard's replay job: the same experiment and reports */
        db *d = open_db(&o);
        job_ctl ctl;
        memset(&ctl, 0, sizeof ctl);
        int status = 0;
        json_t *res = NULL;
        err[0] = '\0';
        replay_store(d, o.pos[0], o.device, &ctl, &status, &res, err, sizeof err);
        db_close(d);
        if (status != 201) die(status == 400 || status == 404 ? EXIT_BAD_INPUT : 1, "%s", err);
        fprintf(stderr, "schedlab: stored the replay as experiment %s (runs:",
                json_string_value(json_object_get(res, "slug")));
        size_t i;
        json_t *r;
        json_array_foreach(json_object_get(res, "runs"), i, r)
            fprintf(stderr, " %s", json_string_value(json_object_get(r, "run")));
        fprintf(stderr, ")\n");
        json_decref(res);
    }
    return 0;
}

/* Where the data folder NAME (web, scenarios) is, for an executable in
 * EXE_DIR: EXE_DIR/NAME (./schedlab in a checkout), then the installed
 * layout EXE_DIR/../share/schedlab/NAME (PREFIX/bin/schedlab after `make
 * install`, wherever PREFIX is), then EXE_DIR/../NAME (build/schedlab in a
 * checkout), else ./NAME; NULL when none exists. */
static const char *find_dir(const char *name, char *buf, size_t n) {
    char exe[PATH_MAX];
    ssize_t l = readlink("/proc/self/exe", exe, sizeof exe - 1);
    struct stat st;
    if (l > 0) {
        exe[l] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) *slash = '\0';
        for (int i = 0; i < 3; i++) {
            int w = 0;
            if (i == 0) w = snprintf(buf, n, "%s/%s", exe, name);
            else if (i == 1) w = snprintf(buf, n, "%s/../share/schedlab/%s", exe, name);
            else w = snprintf(buf, n, "%s/../%s", exe, name);
            if (w > 0 && (size_t)w < n && stat(buf, &st) == 0 && S_ISDIR(st.st_mode)) {
                char real[PATH_MAX];   /* ".../bin/../share/..." reads better resolved */
                if (realpath(buf, real) && strlen(real) < n) memcpy(buf, real, strlen(real) + 1);
                return buf;
            }
        }
    }
    snprintf(buf, n, "%s", name);
    return stat(buf, &st) == 0 && S_ISDIR(st.st_mode) ? buf : NULL;
}

/* The kernel library (kernlib.h) is the scenarios folder's kernels/:
 * scenarios name its kernels wherever they come from (a file, a request,
 * the shipped ones), so it is loaded before any of them is read. */
static void open_kernels(const char *scenarios) {
    char dir[PATH_MAX], err[1024];
    if (!scenarios) return;
    if (snprintf(dir, sizeof dir, "%s/kernels", scenarios) >= (int)sizeof dir) return;
    if (kl_open(dir, err, sizeof err)) die(1, "the kernel library: %s", err);
}

/* "512MiB", "100MB", "2G", "1000000" -> bytes (K/M/G/T binary). */
static int parse_size(const char *s, size_t *out) {
    const char *end;
    double v;
    if (cli_opt_decimal(s, &end, &v) || !(v > 0)) return -1;
    double mult = 1;
    switch (*end) {
    case 'k': case 'K': mult = 1024.0; end++; break;
    case 'm': case 'M': mult = 1024.0 * 1024; end++; break;
    case 'g': case 'G': mult = 1024.0 * 1024 * 1024; end++; break;
    case 't': case 'T': mult = 1024.0 * 1024 * 1024 * 1024; end++; break;
    default: break;
    }
    if (mult > 1 && *end == 'i') end++;
    if (*end == 'B' || *end == 'b') end++;
    /* under a byte is none: "--max-upload 0.5" came out 0, which the server
     * reads as "the default" (512MiB) */
    if (*end || v * mult > 1e15 || v * mult < 1) return -1;
    *out = (size_t)(v * mult);
    return 0;
}

static bool is_loopback(const char *bind) {
    return strncmp(bind, "127.", 4) == 0 || strcmp(bind, "::1") == 0 || strcmp(bind, "localhost") == 0;
}

/* The length of s without its surrounding blanks (spaces, tabs), which
 * start *lead characters in: a token as HTTP carries it (token_trim). */
static size_t blanks_cut(const char *s, size_t *lead) {
    *lead = strspn(s, " \t");
    size_t len = strlen(s);
    while (len > *lead && (s[len - 1] == ' ' || s[len - 1] == '\t')) len--;
    return len - *lead;
}

/* The first line of a token file, without its line end; -1 with the
 * reason in tok otherwise. */
static int read_token_file(const char *path, char *tok, size_t n) {
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(tok, n, "%s: %s", path, strerror(errno));
        return -1;
    }
    /* a folder opens, and its read fails: it said "the first line is
     * empty", after a warning that others can read it */
    struct stat st;
    bool others = false;
    if (fstat(fileno(f), &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            fclose(f);
            snprintf(tok, n, "%s: a folder, not a file", path);
            return -1;
        }
        others = (st.st_mode & 077) != 0;
    }
    errno = 0;
    if (!fgets(tok, (int)n, f)) {
        if (ferror(f)) {
            int e = errno ? errno : EIO;
            fclose(f);
            snprintf(tok, n, "%s: %s", path, strerror(e));
            return -1;
        }
        tok[0] = '\0';
    }
    fclose(f);
    tok[strcspn(tok, "\r\n")] = '\0';
    size_t lead, len = blanks_cut(tok, &lead);
    memmove(tok, tok + lead, len);
    tok[len] = '\0';
    if (!tok[0]) {
        snprintf(tok, n, "%s: the first line is empty; put the token on it", path);
        return -1;
    }
    /* said of a token read, not of a file refused (one line then) */
    if (others)
        fprintf(stderr, "schedlab: warning: --token-file %s can be read by other users "
                "(chmod 600 it)\n", path);
    return 0;
}

/* A token as HTTP carries it: a header value loses its surrounding blanks
 * on the way (clients and libmicrohttpd strip them), so "s3cret " from
 * SCHEDLAB_TOKEN or --token could never be matched; the blanks are cut
 * here too. NULL for none (an empty variable); one of blanks only is
 * refused, naming `what`: taken as none, it would open the server. */
static const char *token_trim(const char *t, const char *what, char *buf, size_t n) {
    if (!t || !*t) return NULL;
    size_t lead, len = blanks_cut(t, &lead);
    t += lead;
    if (!len) die(EXIT_BAD_INPUT, "%s: only blanks; give the token, or leave it out to serve "
                  "without one", what);
    if (len >= n) die(EXIT_BAD_INPUT, "token: longer than %zu characters", n - 1);
    memcpy(buf, t, len);
    buf[len] = '\0';
    return buf;
}

/* Accounts other than ours that can log in (uid >= 1000, not nobody, a
 * shell other than nologin/false): the people a token-less server on this
 * machine is open to. $SCHEDLAB_PASSWD names another passwd file (tests). */
static int other_login_users(void) {
    const char *path = getenv("SCHEDLAB_PASSWD");
    FILE *f = fopen(path && *path ? path : "/etc/passwd", "r");
    if (!f) return 0;
    int n = 0;
    uid_t me = getuid();
    struct passwd *pw;
    while ((pw = fgetpwent(f))) {
        const char *sh = pw->pw_shell ? pw->pw_shell : "";
        size_t l = strlen(sh);
        bool nologin = l == 0 || (l >= 7 && strcmp(sh + l - 7, "nologin") == 0) ||
                       (l >= 5 && strcmp(sh + l - 5, "false") == 0);
        if (pw->pw_uid >= 1000 && pw->pw_uid != 65534 && pw->pw_uid != me && !nologin) n++;
    }
    fclose(f);
    return n;
}

static int cmd_serve(int argc, char **argv) {
#ifdef __GLIBC__
    /* Answers of 0.5-8 MB (windows, bins, exports) come and go all day.
     * glibc raises its mmap threshold to the size of each mmapped block
     * freed, after which such blocks come from the thread arenas and stay
     * in the RSS once freed (a fuzz run grew the server from 24 to 38 MB
     * this way). A fixed threshold turns the adjustment off: every block
     * over 128 KiB is mapped and goes back to the kernel when freed.
     * Connections are threads, and glibc gives threads up to 8 arenas a
     * core, each keeping its own freed pieces: 4 arenas hold less and
     * contend little on the cores a server like this gets. */
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    mallopt(M_ARENA_MAX, 4);
#endif
    opts o;
    parse_opts(argc, argv, usage_serve,
               " --db --port --bind --web --scenarios --token --max-upload --allow-host --budget "
               "--answer-memory --token-file --read-token --header-timeout --min-body-rate "
               "--max-per-address --no-check ", &o);
    if (o.npos) die(EXIT_BAD_INPUT, "serve takes no arguments, got \"%s\" (see --help)", o.pos[0]);
    long port = 8080;
    if (o.port && cli_opt_long(o.port, 0, 65535, &port))
        die(EXIT_BAD_INPUT, "--port: expected 0..65535, got \"%s\"", o.port);
    /* the address is checked before anything is said or made: http_start
     * refused it only after the database was created and a warning about
     * serving "on nosuchhost without --token" printed, exit 1 */
    if (o.bind) {
        unsigned char a[sizeof(struct in6_addr)];
        if (inet_pton(AF_INET, o.bind, a) != 1 && inet_pton(AF_INET6, o.bind, a) != 1)
            die(EXIT_BAD_INPUT, "--bind: \"%s\" is not an IPv4 or IPv6 address (127.0.0.1 for this "
                "machine alone, 0.0.0.0 or :: for every interface)", o.bind);
    }
    size_t max_upload = HTTP_DEFAULT_MAX_BODY;
    if (o.max_upload && parse_size(o.max_upload, &max_upload))
        die(EXIT_BAD_INPUT, "--max-upload: expected a size such as 512MiB, 2GB or 1000000, got \"%s\"",
            o.max_upload);
    size_t answer_mem = (size_t)AMEM_DEFAULT_MIB << 20;
    if (o.answer_memory && (parse_size(o.answer_memory, &answer_mem) || !answer_mem))
        die(EXIT_BAD_INPUT, "--answer-memory: expected a size such as 256MiB or 1GiB, got \"%s\"",
            o.answer_memory);
    amem_set_cap(answer_mem);
    long header_s = CG_DEFAULT_HEADER_S;
    if (o.header_timeout && cli_opt_long(o.header_timeout, 1, 3600, &header_s))
        die(EXIT_BAD_INPUT, "--header-timeout: expected 1..3600 seconds, got \"%s\"",
            o.header_timeout);
    size_t min_rate = CG_DEFAULT_MIN_RATE;
    if (o.min_body_rate && (parse_size(o.min_body_rate, &min_rate) || !min_rate))
        die(EXIT_BAD_INPUT, "--min-body-rate: expected bytes a second such as 1024 or 4KiB, got \"%s\"",
            o.min_body_rate);
    long per_address = HTTP_PER_ADDRESS;
    if (o.max_per_address && cli_opt_long(o.max_per_address, 1, HTTP_PER_ADDRESS_MAX, &per_address))
        die(EXIT_BAD_INPUT, "--max-per-address: expected 1..%d connections, got \"%s\"",
            HTTP_PER_ADDRESS_MAX, o.max_per_address);
    budget bud;
    budget_default(&bud);
    char berr[256];
    if (o.budget && budget_parse(o.budget, &bud, berr, sizeof berr)) die(EXIT_BAD_INPUT, "%s", berr);
    /* tokens (issue 31): the command line is world-readable in
     * /proc/PID/cmdline, the environment and a file are not */
    if (o.token && o.token_file) die(EXIT_BAD_INPUT, "--token and --token-file: give one");
    static char filetok[512];
    if (o.token_file && read_token_file(o.token_file, filetok, sizeof filetok))
        die(EXIT_BAD_INPUT, "--token-file: %s", filetok);
    if (o.token && *o.token)
        fprintf(stderr, "schedlab: warning: --token on the command line can be read by every "
                "local user (ps, /proc/PID/cmdline); pass it in SCHEDLAB_TOKEN or --token-file "
                "instead\n");
    if (o.read_token && *o.read_token)
        fprintf(stderr, "schedlab: warning: --read-token on the command line can be read by "
                "every local user; pass it in SCHEDLAB_READ_TOKEN instead\n");
    static char tokbuf[512], rtokbuf[512];
    const char *token = token_trim(o.token ? o.token : o.token_file ? filetok : getenv("SCHEDLAB_TOKEN"),
                                   o.token ? "--token" : o.token_file ? o.token_file : "SCHEDLAB_TOKEN",
                                   tokbuf, sizeof tokbuf);
    const char *read_token = token_trim(o.read_token ? o.read_token : getenv("SCHEDLAB_READ_TOKEN"),
                                        o.read_token ? "--read-token" : "SCHEDLAB_READ_TOKEN",
                                        rtokbuf, sizeof rtokbuf);
    const char *hosts[16];
    size_t nhosts = 0;
    char hostbuf[1024];
    if (o.allow_host) {
        if (strlen(o.allow_host) >= sizeof hostbuf) die(EXIT_BAD_INPUT, "--allow-host: too long");
        snprintf(hostbuf, sizeof hostbuf, "%s", o.allow_host);
        /* each a host name as a Host header carries it, without its port
         * (http.c host_allowed): "gpu-lab:8080" or "http://gpu-lab" never
         * matched, and every request by that name was 421; "," allowed none */
        for (char *h = hostbuf, *next; h; h = next) {
            next = strchr(h, ',');
            if (next) *next++ = '\0';
            if (!*h) die(EXIT_BAD_INPUT, "--allow-host: an empty name in \"%s\"", o.allow_host);
            if (strspn(h, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-") != strlen(h))
                die(EXIT_BAD_INPUT, "--allow-host: \"%s\" is not a host name (the name alone, as "
                    "gpu-lab.example.org: no scheme, port or path)", h);
            if (nhosts == sizeof hosts / sizeof *hosts) die(EXIT_BAD_INPUT, "--allow-host: at most 16 names");
            hosts[nhosts++] = h;
        }
    }
    char webbuf[PATH_MAX], scnbuf[PATH_MAX];
    const char *web = o.web ? o.web : find_dir("web", webbuf, sizeof webbuf);
    if (o.web) {
        /* a folder named but absent (a typo) served every page as a JSON
         * 404 "no web folder", with nothing said at the start: bad input,
         * before the database is made (cli.md) */
        struct stat wst;
        char index[PATH_MAX];
        if (stat(o.web, &wst) != 0)
            die(EXIT_BAD_INPUT, "--web: %s: %s", o.web, strerror(errno));
        if (!S_ISDIR(wst.st_mode)) die(EXIT_BAD_INPUT, "--web: %s: not a folder", o.web);
        if (snprintf(index, sizeof index, "%s/index.html", o.web) >= (int)sizeof index ||
            access(index, R_OK) != 0)
            die(EXIT_BAD_INPUT, "--web: %s: no index.html in it (the dashboard's folder: web/ "
                "of a checkout, PREFIX/share/schedlab/web installed)", o.web);
    }
    if (o.scenarios) {
        /* as --web: a folder named but absent (a typo) was a warning after
         * the database was made, and a server without the scenarios meant
         * ("no scenarios" is an empty folder) */
        struct stat sst;
        if (stat(o.scenarios, &sst) != 0)
            die(EXIT_BAD_INPUT, "--scenarios: %s: %s", o.scenarios, strerror(errno));
        if (!S_ISDIR(sst.st_mode)) die(EXIT_BAD_INPUT, "--scenarios: %s: not a folder", o.scenarios);
    }
    const char *scenarios = o.scenarios ? o.scenarios : find_dir("scenarios", scnbuf, sizeof scnbuf);
    if (o.scenarios) open_kernels(o.scenarios);   /* --scenarios DIR: DIR/kernels */

    /* Block the stop signals before any thread starts, so every thread
     * inherits the mask and sigwait below is the one place they arrive. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    /* SIGHUP (the terminal or ssh session that started it closed) stops
     * cleanly too: its default killed the server on the spot, the -wal
     * left behind and a job cut off. Not under nohup: a signal ignored at
     * start stays ignored (blocked, Linux would queue it for sigwait). */
    struct sigaction hup;
    if (sigaction(SIGHUP, NULL, &hup) == 0 && hup.sa_handler != SIG_IGN) sigaddset(&stop, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);

    char err[1024];
    api_ctx *api;
    api_config acfg = {.db_path = db_default(&o), .scenarios_dir = scenarios,
                       .version = SCHEDLAB_VERSION, .budget = &bud, .no_check = o.no_check != NULL};
    if (api_init(&acfg, &api, err, sizeof err)) die(1, "%s", err);
    /* the shipped sweeps (issue 30; sweep_api.h): the sweeps folder beside
     * the scenarios folder, listed by the API and seeded after them */
    char swbuf[PATH_MAX], swreal[PATH_MAX];
    struct stat swst;
    if (scenarios && snprintf(swbuf, sizeof swbuf, "%s/../sweeps", scenarios) < (int)sizeof swbuf &&
        realpath(swbuf, swreal) && stat(swreal, &swst) == 0 && S_ISDIR(swst.st_mode))
        sweep_api_set_dir(swreal);
    size_t nroutes;
    const http_route *routes = api_routes(&nroutes);
    http_config hcfg = {.bind = o.bind ? o.bind : "127.0.0.1", .port = (uint16_t)port,
                        .web_dir = web, .routes = routes, .nroutes = nroutes, .app = api,
                        .on_idle = api_idle,
                        .max_body = max_upload, .token = token, .allow_hosts = hosts,
                        .nallow_hosts = nhosts, .read_token = read_token,
                        .header_s = (unsigned)header_s,
                        .min_body_rate = min_rate, .max_per_address = (unsigned)per_address};
    if (!token && !is_loopback(hcfg.bind))
        fprintf(stderr, "schedlab: warning: serving on %s without --token: anyone who can reach "
                "this port can store runs (give --token T or SCHEDLAB_TOKEN)\n", hcfg.bind);
    else if (!token) {
        int others = other_login_users();
        if (others > 0)
            fprintf(stderr, "schedlab: warning: serving without a token on a machine with %d "
                    "other login user(s): any of them can store and delete experiments through "
                    "this port (set SCHEDLAB_TOKEN or give --token-file FILE)\n", others);
    }
    if (scenarios) seedbg_expect();   /* before the port opens: seed_bg.h */
    http_server *srv;
    if (http_start(&hcfg, &srv, err, sizeof err)) {
        api_free(api);
        die(1, "%s", err);
    }
    /* every address it answers on: a wildcard bind lists the interfaces'
     * (addrs.h), the links teammates use */
    char tail[PATH_MAX * 2 + 32];
    snprintf(tail, sizeof tail, " (db %s, web %s)", acfg.db_path, web ? web : "none");
    addrs_print(stderr, hcfg.bind, (unsigned)http_port(srv), tail);
    /* the shipped scenarios not stored yet, in the background: the port is
     * open meanwhile (issue 30; seed_bg.h) */
    if (scenarios && seedbg_start(acfg.db_path, scenarios, sweep_api_dir(), err, sizeof err))
        fprintf(stderr, "schedlab: warning: %s\n", err);
    int sig = 0;
    while (sigwait(&stop, &sig) != 0) {}
    fprintf(stderr, "schedlab: %s, stopping\n",
            sig == SIGINT ? "SIGINT" : sig == SIGHUP ? "SIGHUP" : "SIGTERM");
    /* No new writes; jobs end (finished, or rolled back after the grace);
     * then no new requests, and every one in flight gets its answer. A
     * request or job waiting for another process's lock on the database
     * gives up with the grace (it held the stop for 30 s). */
    db_give_up_waits_after(5000);
    http_refuse_writes(srv);
    /* a stop while the shipped scenarios are being stored does not wait for
     * them (tens of seconds): the one being written is rolled back by
     * SQLite when the process ends, and the next start stores the rest */
    if (seedbg_pending())
        fprintf(stderr, "schedlab: stopping before every shipped scenario is stored; the next start stores the rest\n");
    else
        seedbg_join();
    api_stop_jobs(api, 5000);
    http_quiesce(srv);
    int left = http_wait_idle(srv, 10000);
    if (left) fprintf(stderr, "schedlab: %d request(s) still in flight, closing them\n", left);
    http_stop(srv);
    api_free(api);
    return 0;
}

/* The version, then each library's as linked (run time, not build time). */
static void print_version(void) {
    printf("schedlab %s\n", SCHEDLAB_VERSION);
    printf("SQLite %s\n", sqlite3_libversion());
    printf("jansson %s\n", jansson_version_str());
    printf("libmicrohttpd %s\n", MHD_get_version());
    const char *av = archive_version_string();
    printf("libarchive %s\n", strncmp(av, "libarchive ", 11) == 0 ? av + 11 : av);
    printf("libiberty %s (GNU C++ demangler, linked statically)\n", SCHEDLAB_LIBIBERTY_VERSION);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fputs(usage_main, stderr);
        return EXIT_BAD_INPUT;
    }
    const char *cmd = argv[1];
    static const struct { const char *name; int (*fn)(int, char **); } cmds[] = {
        {"simulate", cmd_simulate}, {"import", cmd_import}, {"export", cmd_export},
        {"replay", cmd_replay},     {"serve", cmd_serve},
        {"rta", rta_cli_rta},       {"sweep", rta_cli_sweep},   {"merge", rta_cli_merge},
    };
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        /* "schedlab help simulate" printed the overview, not simulate's
         * usage: COMMAND --help is what it asks for */
        if (argc == 3) {
            char help[] = "--help";
            char *hargv[] = {help, NULL};
            for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++)
                if (strcmp(argv[2], cmds[i].name) == 0) return stdout_checked(cmds[i].fn(1, hargv));
            die(EXIT_BAD_INPUT, "%s: unknown command \"%s\" (commands: simulate, import, export, "
                "replay, serve, rta, sweep, merge)", cmd, argv[2]);
        }
        if (argc > 3) die(EXIT_BAD_INPUT, "%s takes at most one COMMAND (see schedlab --help)", cmd);
        fputs(usage_main, stdout);
        return stdout_checked(0);
    }
    if (strcmp(cmd, "--version") == 0) {
        /* "schedlab --version simulate" printed the version, its argument
         * dropped (docs/cli.md: a wrong number of arguments is bad input) */
        if (argc > 2) die(EXIT_BAD_INPUT, "--version takes no arguments, got \"%s\"", argv[2]);
        print_version();
        return stdout_checked(0);
    }
    char scnbuf[PATH_MAX];
    open_kernels(find_dir("scenarios", scnbuf, sizeof scnbuf));
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++)
        if (strcmp(cmd, cmds[i].name) == 0) return stdout_checked(cmds[i].fn(argc - 2, argv + 2));
    die(EXIT_BAD_INPUT, "unknown command \"%s\" (commands: simulate, import, export, replay, serve, rta, sweep, merge)",
        cmd);
}
