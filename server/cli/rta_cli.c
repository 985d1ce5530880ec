/* rta_cli.c -- `schedlab rta`, `sweep` and `merge`. See rta_cli.h. */
#include "rta_cli.h"
#include "../../importers/jsonr.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../db/db.h"
#include "../../db/sweep.h"
#include "cli_opt.h"
#include "cli_out.h"
#include "cli_progress.h"
#include "qos_sweep.h"
#include "sweep.h"
#include "sweep_api.h"
#include "taskset.h"

#define EXIT_BAD_INPUT 2
#define PROGRESS_MIN_S 0.05   /* --progress: the shortest interval between lines */

static const char usage_rta[] =
    "usage: schedlab rta TASKSET.json\n"
    "\n"
    "Response-time analysis of a schedlab-taskset/1 (or of the `tasks` of a\n"
    "schedlab-scenario/1) under the default TSG round-robin driver and under\n"
    "GCAPS, busy-waiting and self-suspending, with and without GPU-priority\n"
    "assignment (Wang et al., ECRTS 2024, §6). Prints schedlab-rta/1 JSON: per\n"
    "analysis whether the taskset is schedulable and each task's bound in ns\n"
    "(null where the iteration passed the deadline).\n";

static const char usage_sweep[] =
    "usage: schedlab sweep SPEC.json [--shard i/n] [--reuse OLD.json] [--db DB] [-o RESULT.json] "
    "[--threads N]\n"
    "                      [--progress SECONDS]\n"
    "\n"
    "Generate tasksets per point of the spec's swept parameter (schedlab-sweep/1,\n"
    "the GCAPS paper's Table 3 by default), analyse each with every approach on\n"
    "every core, and store the schedulable counts as a new experiment (its slug\n"
    "is printed) that the dashboard charts like the paper's Fig. 8. With\n"
    "--shard i/n only the i-th of n disjoint slices is computed and written\n"
    "(to -o or stdout) for `schedlab merge`; nothing is stored. A spec of\n"
    "\"kind\": \"qos\" runs the ISCA'17 QoSreach sweep instead (kernel pairs x QoS\n"
    "goals x schemes, each point a simulation), stored and sharded the same way.\n"
    "  --shard i/n        compute slice i of n (0 <= i < n) only, and write it\n"
    "  --reuse OLD.json   a QoS sweep run again after a change: simulate only the kernel\n"
    "                     groups whose kernels changed since OLD.json (an earlier whole\n"
    "                     result of this sweep) and take every other point from it; the\n"
    "                     result is the whole run's, to the digit\n"
    "  --db DB            the database (default: $SCHEDLAB_DB, else ./schedlab.db), created\n"
    "                     when missing\n"
    "  -o RESULT.json     write the result (schedlab-sweep-result/1) to this file too;\n"
    "                     with --shard instead of stdout\n"
    "  --threads N        worker threads, 1..256 (default: one per CPU)\n"
    "  --progress SECONDS a line on stderr every SECONDS says how many tasksets (or\n"
    "                     QoS points) are done, the rate and the time left (default:\n"
    "                     10 on a terminal, 60 otherwise, as in a Slurm job's log;\n"
    "                     0: none; else at least 0.05)\n";

static const char usage_merge[] =
    "usage: schedlab merge SHARD.json... [--db DB] [-o RESULT.json]\n"
    "\n"
    "Combine the result files of every shard of one sweep into the result of\n"
    "the whole sweep (the same text a one-process sweep writes), store it as a\n"
    "new experiment and print its slug. Each point must be one of the sweep's,\n"
    "in its own shard, once; a shard that is not is refused, naming the point.\n"
    "  --db DB            the database (default: $SCHEDLAB_DB, else ./schedlab.db), created\n"
    "                     when missing\n"
    "  -o RESULT.json     write the merged result to this file too\n";

static int say(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int say(int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("schedlab: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return code;
}

typedef struct copts {
    const char *pos[256];
    int npos;
    const char *out, *db, *shard, *threads, *progress, *reuse;
    bool out_stdout;   /* "-o -" (out is NULL then, as without -o) */
    bool help;
} copts;

/* -1 with a message on a bad option */
static int parse(int argc, char **argv, const char *allowed, copts *o) {
    memset(o, 0, sizeof *o);
    cli_opt_seen seen = {.n = 0};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            o->help = true;
            return 0;
        }
        if (a[0] != '-' || !strcmp(a, "-")) {
            if (o->npos == 256)
                return say(-1, "too many arguments");
            o->pos[o->npos++] = a;
            continue;
        }
        /* the value as the next argument or after '=', as the other
         * commands take it (cli_opt.h) */
        char flag[32];
        const char *val = cli_opt_split(a, flag, sizeof flag);
        const char **dst = !strcmp(flag, "-o") || !strcmp(flag, "--output") ? &o->out
                           : !strcmp(flag, "--db")                           ? &o->db
                           : !strcmp(flag, "--shard")                        ? &o->shard
                           : !strcmp(flag, "--threads")                      ? &o->threads
                           : !strcmp(flag, "--progress")                     ? &o->progress
                           : !strcmp(flag, "--reuse")                        ? &o->reuse
                                                                             : NULL;
        char needle[40];
        snprintf(needle, sizeof needle, " %s ", flag);
        if (!dst || !strstr(allowed, needle))
            return say(-1, "unknown option %s (see --help)", flag);
        if (!val) {
            if (i + 1 >= argc)
                return say(-1, "option %s needs a value", flag);
            val = argv[++i];
        }
        /* as the other commands: no option means anything by "" */
        if (!*val) return say(-1, "option %s: the value is empty (leave the option out instead)", flag);
        /* as the other commands: one value an option (cli_opt.h) */
        char twice[160];
        if (cli_opt_once(&seen, dst, flag, twice, sizeof twice))
            return say(-1, "%s", twice);
        /* "-o -" is stdout, as an input "-" is stdin (it made a file named "-") */
        *dst = dst == &o->out && strcmp(val, "-") == 0 ? NULL : val;
        if (dst == &o->out && !*dst) o->out_stdout = true;
    }
    return 0;
}

static const char *db_default(const copts *o) {
    if (o->db)
        return o->db;
    const char *env = getenv("SCHEDLAB_DB");
    return env && *env ? env : "schedlab.db";
}

/* -o FILE refused before any work (docs/cli.md; cli_out.h): a file with
 * other hard links, or the database the result is stored in (symlinks
 * followed), which it would replace; -1 having said so */
static int out_refused(const copts *o) {
    char err[PATH_MAX + 256];
    if (!o->out) return 0;
    if (cli_out_check(o->out, err, sizeof err)) return say(-1, "%s", err);
    if (!o->shard && cli_out_same_file(o->out, db_default(o)))
        return say(-1, "-o %s: the database %s itself: writing it would replace the database "
                   "(give -o another name)", o->out, db_default(o));
    return 0;
}

/* "-o -" where stdout is the experiment's slug (sweep without --shard,
 * merge): the result would be lost (it was, saying nothing) or mixed with
 * the slug; -1 having said so */
static int out_stdout_refused(const copts *o) {
    if (!o->out_stdout || o->shard) return 0;
    return say(-1, "-o -: the result and the stored experiment's slug would both go to stdout "
               "(give -o RESULT.json)");
}

/* text as path, whole or not at all (cli_out.h), or to stdout for NULL */
static int write_text(const char *path, const char *text) {
    char err[PATH_MAX + 256];
    int rc = cli_out_write(path, text, strlen(text), err, sizeof err);
    if (rc)
        return say(rc == CLI_OUT_REFUSED ? EXIT_BAD_INPUT : 1, "%s", err);
    return 0;
}


/* Store a result as a new sweep experiment; prints the slug. */
static int store(const copts *o, const json_t *result) {
    char err[1024], slug[DB_SLUG_SIZE];
    db *d;
    int orc = db_open(db_default(o), &d, err, sizeof err);
    if (orc)
        return say(orc == DB_NOT_A_DATABASE ? EXIT_BAD_INPUT : 1, "%s", err);
    /* the page's sweeps store the same way (sweep_api.h) */
    int rc = sweep_store_result(d, result, NULL, slug, err, sizeof err);
    db_close(d);
    if (rc)
        return say(1, "%s", err);
    printf("%s\n", slug);
    return 0;
}

int rta_cli_rta(int argc, char **argv) {
    copts o;
    if (parse(argc, argv, " ", &o))
        return EXIT_BAD_INPUT;
    if (o.help)
        return fputs(usage_rta, stdout), 0;
    if (o.npos != 1)
        return say(EXIT_BAD_INPUT, "rta needs one TASKSET.json (see --help)");
    char err[1024];
    tset *t;
    if (tset_parse_file(o.pos[0], &t, err, sizeof err))
        return say(EXIT_BAD_INPUT, "%s", err);
    json_t *j = tset_analyse_json(tset_rta(t));
    char *text = j ? json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    int rc = text ? 0 : say(1, "out of memory");
    if (text) {
        fputs(text, stdout);
        fputc('\n', stdout);
    }
    free(text);
    json_decref(j);
    tset_free(t);
    return rc;
}

/* "i/n" with 0 <= i < n, each in decimal digits alone (cli_opt_long: no
 * sign, blank or trailing text: sscanf's %d took " 0/+2" and wrapped
 * 0/4294967298 round to 0/2); -1 otherwise. */
static int shard_parse(const char *s, int *index, int *count) {
    const char *slash = strchr(s, '/');
    char left[24];
    long i, n;
    if (!slash || (size_t)(slash - s) >= sizeof left) return -1;
    memcpy(left, s, (size_t)(slash - s));
    left[slash - s] = '\0';
    if (cli_opt_long(left, 0, 999999999, &i) || cli_opt_long(slash + 1, 1, 999999999, &n) || i >= n)
        return -1;
    *index = (int)i;
    *count = (int)n;
    return 0;
}

/* A result file read whole (merge's shards, sweep --reuse): NULL, *rc
 * EXIT_BAD_INPUT, having said where it went wrong. */
static json_t *read_result(const char *path, int *rc) {
    json_error_t je;
    size_t len;
    char rerr[1024];
    /* read first, so a folder or an unreadable file says so (jansson
     * reads a folder as an empty text: "'[' or '{' expected") */
    char *text = jr_read_file(path, 1024u << 20, "sweep result", &len, rerr, sizeof rerr);
    if (!text) {
        *rc = say(EXIT_BAD_INPUT, "%s", rerr);
        return NULL;
    }
    json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    free(text);
    if (!j) *rc = say(EXIT_BAD_INPUT, "%s:%d:%d: JSON: %s", path, je.line, jr_error_column(&je), je.text);
    return j;
}

int rta_cli_sweep(int argc, char **argv) {
    copts o;
    if (parse(argc, argv, " --shard --reuse --db -o --output --threads --progress ", &o))
        return EXIT_BAD_INPUT;
    if (o.help)
        return fputs(usage_sweep, stdout), 0;
    if (o.npos != 1)
        return say(EXIT_BAD_INPUT, "sweep needs one SPEC.json (see --help)");
    if (out_stdout_refused(&o) || out_refused(&o))
        return EXIT_BAD_INPUT;
    int index = 0, count = 1, threads = 0;
    if (o.shard && shard_parse(o.shard, &index, &count))
        return say(EXIT_BAD_INPUT, "--shard: expected i/n with 0 <= i < n, got \"%s\"", o.shard);
    if (o.threads) {
        long t;
        if (cli_opt_long(o.threads, 1, 256, &t))
            return say(EXIT_BAD_INPUT, "--threads: expected 1..256, got \"%s\"", o.threads);
        threads = (int)t;
    }
    double every = isatty(STDERR_FILENO) ? 10 : 60;
    if (o.progress) {
        const char *end;
        double v;
        if (cli_opt_decimal(o.progress, &end, &v) || *end || v > 86400)
            return say(EXIT_BAD_INPUT,
                       "--progress: expected the seconds between reports, 0..86400 (0: none), "
                       "got \"%s\"",
                       o.progress);
        /* a line each 0.0001 s flooded stderr (10,000 lines a second, the
         * sweep slowed by its own log): 20 a second is already more than
         * anyone reads */
        if (v > 0 && v < PROGRESS_MIN_S)
            return say(EXIT_BAD_INPUT,
                       "--progress: must be at least %g seconds (0: none), got \"%s\"",
                       PROGRESS_MIN_S, o.progress);
        every = v;
    }
    size_t len;
    char err[1024];
    char *text = jr_read_file(o.pos[0], 64u << 20, "sweep spec", &len, err, sizeof err);
    if (!text)
        return say(EXIT_BAD_INPUT, "%s", err);
    sweep_spec *s;
    int rc = sweep_spec_parse(text, len, jr_path_name(o.pos[0]), &s, err, sizeof err);
    free(text);
    if (rc)
        return say(EXIT_BAD_INPUT, "%s", err);
    /* --reuse: the earlier result read and matched to the spec before any
     * work, as the -o and the database below */
    qos_reuse *plan = NULL;
    if (o.reuse) {
        if (o.shard) rc = say(EXIT_BAD_INPUT, "--reuse and --shard: one or the other (a shard "
                              "of a changed sweep is its whole run's; merge first, then reuse)");
        json_t *old = rc ? NULL : read_result(o.reuse, &rc);
        if (old && sweep_reuse_plan(s, old, o.reuse, &plan, err, sizeof err))
            rc = say(EXIT_BAD_INPUT, "%s", err);
        json_decref(old);
        if (rc) {
            sweep_spec_free(s);
            return rc;
        }
    }
    /* where the result goes is settled before the work: a -o or a --db
     * that cannot be written (a typo'd folder) was found only once the
     * sweep was done, hours of a paper-scale QoS sweep, and its result lost */
    cli_out outf;
    int orc0 = o.out ? cli_out_open(&outf, o.out, err, sizeof err) : 0;
    if (orc0) {
        qos_reuse_free(plan);
        sweep_spec_free(s);
        return say(orc0 == CLI_OUT_REFUSED ? EXIT_BAD_INPUT : 1, "%s", err);
    }
    /* the database is checked, not kept: stopped meanwhile (Ctrl-C), the
     * sweep leaves no database it made */
    int orc = o.shard ? 0 : db_check_writable(db_default(&o), err, sizeof err);
    if (orc) {
        if (o.out) cli_out_abort(&outf);
        qos_reuse_free(plan);
        sweep_spec_free(s);
        return say(orc == DB_NOT_A_DATABASE ? EXIT_BAD_INPUT : 1, "%s", err);
    }
    json_t *res;
    sweep_stats st;
    /* the units done, as the run counts them (the server's jobs count the
     * same: sweep_api.c), reported every `every` seconds; a QoS sweep's
     * rate from its points on, after the kernels alone */
    atomic_llong done = 0;
    _Atomic(const char *) phase = NULL;
    sweep_ctl ctl = {.done = &done, .phase = &phase};
    bool qos = sweep_is_qos(s);
    uint64_t units = plan ? qos_reuse_to_run(plan) : sweep_shard_units(s, index, count);
    /* (nothing to simulate but the kernels alone: no count to report) */
    bool report = every > 0 && (units > 0 || !plan);
    progress *pr = report ? progress_start("sweep", qos ? "points" : "tasksets", units, every, &done,
                                           &phase, qos ? "points" : NULL)
                          : NULL;
    uint64_t reused = plan ? qos_reuse_reused(plan) : 0;
    rc = plan ? sweep_run_reuse(s, plan, threads, &ctl, &res, &st, err, sizeof err)
              : sweep_run_ctl(s, index, count, threads, &ctl, &res, &st, err, sizeof err);
    progress_stop(pr);
    qos_reuse_free(plan);
    sweep_spec_free(s);
    if (rc) {
        if (o.out) cli_out_abort(&outf);
        return say(1, "%s", err);
    }
    if (st.qos) {
        /* the kernels alone run first, once per kernel whatever the points;
         * the points' own rate is what a larger sweep scales by */
        double pts_s = st.wall_s - st.iso_s;
        fprintf(stderr,
                "schedlab: sweep: %llu points (%llu simulations) in %.3f s on %d threads: %.2f "
                "points/s (first the kernels alone, %llu simulations in %.3f s; then %.2f "
                "points/s)\n",
                (unsigned long long)st.points, (unsigned long long)st.sims, st.wall_s,
                st.threads, st.wall_s > 0 ? (double)st.points / st.wall_s : 0.0,
                (unsigned long long)st.iso_sims, st.iso_s,
                pts_s > 0 ? (double)st.points / pts_s : 0.0);
        if (o.reuse)
            fprintf(stderr, "schedlab: sweep: %llu points taken from %s (their groups' kernels "
                    "unchanged)\n", (unsigned long long)reused, o.reuse);
    } else {
        fprintf(stderr,
                "schedlab: sweep: %llu tasksets x %llu analyses in %.3f s on %d threads: %.0f "
                "analyses/s (draw %.3f s, analyse %.3f s of thread time)\n",
                (unsigned long long)st.tasksets,
                (unsigned long long)(st.tasksets ? st.analyses / st.tasksets : 0), st.wall_s,
                st.threads, st.wall_s > 0 ? (double)st.analyses / st.wall_s : 0.0, st.gen_s,
                st.rta_s);
    }
    char *out = sweep_text(res);
    if (!out) {
        if (o.out) cli_out_abort(&outf);
        json_decref(res);
        return say(1, "out of memory");
    }
    /* a shard, even the one of 1 (a Slurm array of one task), is written
     * for `schedlab merge`, never stored (docs/cli.md) */
    if (o.out && cli_out_finish(&outf, out, strlen(out), err, sizeof err))
        rc = say(1, "%s", err);
    else if (o.shard && !o.out)
        rc = write_text(NULL, out);
    if (!rc && !o.shard)
        rc = store(&o, res);
    free(out);
    json_decref(res);
    return rc;
}

int rta_cli_merge(int argc, char **argv) {
    copts o;
    if (parse(argc, argv, " --db -o --output ", &o))
        return EXIT_BAD_INPUT;
    if (o.help)
        return fputs(usage_merge, stdout), 0;
    if (o.npos < 1)
        return say(EXIT_BAD_INPUT, "merge needs the shard result files (see --help)");
    if (out_stdout_refused(&o) || out_refused(&o))
        return EXIT_BAD_INPUT;
    json_t *sh[256];
    int rc = 0, n = 0;
    for (; n < o.npos; n++)
        if (!(sh[n] = read_result(o.pos[n], &rc))) break;
    json_t *m = NULL;
    char err[1024];
    if (!rc && sweep_merge_named(sh, o.pos, (size_t)n, &m, err, sizeof err))
        rc = say(EXIT_BAD_INPUT, "%s", err);
    for (int i = 0; i < n; i++)
        json_decref(sh[i]);
    if (rc)
        return rc;
    char *out = sweep_text(m);
    if (!out)
        rc = say(1, "out of memory");
    else if (!(rc = o.out ? write_text(o.out, out) : 0))
        rc = store(&o, m);
    free(out);
    json_decref(m);
    return rc;
}
