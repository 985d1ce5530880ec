/* window.c -- the blocks API and the pyramid's tiles. See window.h; the
 * contract is docs/api.md. */
#include "window.h"

#include <inttypes.h>
#include <pthread.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../db/pyramid.h"
#include "idset.h"
#include "jw.h"
#include "pause_index.h"
#include "trace_json.h"
#include "window_cohorts.h"

/* A finished run never changes: its tiles may be kept for good. */
#define IMMUTABLE IDSET_IMMUTABLE

void window_db_fail(db *d, http_response *res, int rc, const char *err) {
    /* db/'s messages start with the database's path ("PATH: no run named
     * ..."): no answer says where the server keeps its files
     * (docs/shared-machine.md), a 404 included */
    const char *path = db_path(d);
    size_t n = path ? strlen(path) : 0;
    if (n && strncmp(err, path, n) == 0 && err[n] == ':' && err[n + 1] == ' ') err += n + 2;
    http_set_error(res, rc == DB_NOT_FOUND ? 404 : 500, "%s", err);
}

/* num / den (den > 0) with six decimals, trailing zeros dropped: exact to
 * 5e-7, and a few integer steps instead of printf's %.17g, which took most
 * of a bins answer's time. */
static void put_mean(jw_buf *w, int64_t num, int64_t den) {
    if (num < 0) {
        jw_putc(w, '-');
        num = num == INT64_MIN ? INT64_MAX : -num;
    }
    int64_t q = num / den;
    long long frac = (long long)((double)(num % den) / (double)den * 1e6 + 0.5);
    if (frac >= 1000000) {
        q++;
        frac = 0;
    }
    jw_i64_raw(w, q);
    if (!frac) return;
    char d[8];
    int n = 6;
    for (int i = 5; i >= 0; i--, frac /= 10) d[i] = (char)('0' + frac % 10);
    while (n > 0 && d[n - 1] == '0') n--;
    jw_putc(w, '.');
    jw_putn(w, d, (size_t)n);
}


/* ---- blocks --------------------------------------------------------------------- */

typedef struct block_out {
    jw_buf *b;
    const pause_index *pauses;
    int64_t n, max;
} block_out;

static int put_block(void *ctx, const trace_block *blk) {
    block_out *o = ctx;
    if (++o->n > o->max) return 1;   /* one more than max: bins instead */
    if (o->n > 1) jw_putc(o->b, ',');
    if (o->pauses) pause_index_put_block(o->pauses, o->b, blk);
    else tj_put_block(o->b, blk);
    return o->b->oom ? -1 : 0;
}

/* The window's blocks, or false (nothing in res) when it holds more than
 * max of them. */
static bool answer_blocks(db *d, const char *run, const pyr_run *r, int64_t from, int64_t to,
                          int64_t max, http_response *res) {
    char err[512];
    bool has_pauses = false;
    pause_index *pauses = NULL;
    int rc = db_run_has_pauses(d, r, &has_pauses, err, sizeof err);
    if (!rc && has_pauses) rc = pause_index_load(d, run, from, to, &pauses, err, sizeof err);
    if (rc) {
        window_db_fail(d, res, rc, err);
        return true;
    }
    /* one allocation for the whole answer (a block is at most ~110 bytes;
     * untouched pages cost nothing), not a doubling copy after copy */
    jw_buf b = {0};
    size_t cap = (size_t)(max < 20000 ? max + 1 : 20001) * 112 + 256;
    if ((b.s = malloc(cap))) {
        b.cap = cap;
        b.s[0] = '\0';
    }
    char head[160];
    snprintf(head, sizeof head,
             "{\"from\":%" PRId64 ",\"to\":%" PRId64 ",\"mode\":\"blocks\",\"blocks\":[", from, to);
    jw_puts(&b, head);
    block_out o = {&b, pauses, 0, max};
    int64_t n;
    rc = db_window_blocks(d, r, from, to, max + 1, put_block, &o, &n, err, sizeof err);
    pause_index_free(pauses);
    if (rc == 1) {   /* overflowed */
        jw_free(&b);
        return false;
    }
    if (rc || b.oom) {
        jw_free(&b);
        if (rc) window_db_fail(d, res, rc, err);
        else http_set_error(res, 500, "out of memory writing the response");
        return true;
    }
    /* the count is known only now, so it follows the blocks (a JSON
     * object's keys have no order) */
    jw_puts(&b, "],\"total\":");
    jw_i64_raw(&b, o.n);
    jw_putc(&b, '}');
    http_set_buf(res, 200, &b, "application/json");
    return true;
}

void window_bins_json(jw_buf *w, const pyr_bins *pb, int64_t from, int64_t to) {
    jw_puts(w, "{\"from\":");
    jw_i64_raw(w, from);
    jw_puts(w, ",\"to\":");
    jw_i64_raw(w, to);
    jw_puts(w, ",\"mode\":\"bins\",\"total\":");
    jw_i64_raw(w, pb->total);
    jw_puts(w, ",\"bin_ns\":");
    jw_i64_raw(w, pb->bin_ns);
    jw_puts(w, ",\"sms\":");
    jw_i64_raw(w, pb->sms);
    jw_puts(w, ",\"bins\":[");
    for (int32_t sm = 0; sm < pb->sms; sm++)
        for (size_t i = 0; i < pb->nbins; i++) {
            int64_t t = (pb->k0 + (int64_t)i) * pb->bin_ns;
            /* the part of the bin inside [from, to) */
            int64_t lo = t > from ? t : from;
            int64_t hi = (to - t > pb->bin_ns) ? t + pb->bin_ns : to;
            const pyr_cell *c = &pb->cells[i * (size_t)pb->sms + (size_t)sm];
            jw_puts(w, sm || i ? ",{\"sm\":" : "{\"sm\":");
            jw_i64_raw(w, sm);
            jw_puts(w, ",\"t\":");
            jw_i64_raw(w, t);
            jw_puts(w, ",\"threads\":");
            put_mean(w, c->thr, hi - lo);
            jw_puts(w, ",\"blocks\":");
            put_mean(w, c->blk, hi - lo);
            jw_putc(w, '}');
        }
    jw_puts(w, "]}");
}

static void answer_bins(db *d, const pyr_run *r, int64_t from, int64_t to, int64_t max,
                        http_response *res) {
    /* about `max` cells in all: at least one bin per SM, at most
     * WINDOW_BINS_MAX */
    int64_t want = max / r->sms;
    if (want < 1) want = 1;
    if (want > WINDOW_BINS_MAX) want = WINDOW_BINS_MAX;
    char err[512];
    pyr_bins pb;
    int rc = db_pyramid_bins(d, r, from, to, want, &pb, err, sizeof err);
    if (rc) {
        window_db_fail(d, res, rc, err);
        return;
    }
    jw_buf b = {0};
    size_t cap = pb.nbins * (size_t)pb.sms * 80 + 256;   /* one allocation, as above */
    if ((b.s = malloc(cap))) {
        b.cap = cap;
        b.s[0] = '\0';
    }
    window_bins_json(&b, &pb, from, to);
    pyr_bins_free(&pb);
    http_set_buf(res, 200, &b, "application/json");
}

/* ---- the answers' cache ------------------------------------------------------------ */

/* The last answers of /blocks, least recently used out first, at most
 * WINDOW_CACHE_BYTES in all: a stored run never changes, so an answer is
 * right until its run is deleted, and window_blocks looks the run up before
 * the cache (a deleted run is a 404, its answers age out). A dashboard asks
 * the same windows again (back, forward, a shared link), and a hit is a
 * reference to the stored bytes, which libmicrohttpd sends as they are
 * (http_set_shared): no scan, no formatting, and no copy of the body. */
#define WINDOW_CACHE_ENTRIES 64
#define WINDOW_CACHE_BYTES ((size_t)32 << 20)

/* An answer's bytes, held by the cache and by every response sending
 * them: the last reference frees them (a response being sent may outlive
 * its entry's eviction). */
typedef struct cache_body {
    atomic_int refs;
    size_t len;
    char data[];
} cache_body;

static void cache_body_unref(void *cls) {
    cache_body *b = cls;
    if (atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) == 1) free(b);
}

typedef struct cache_entry {
    int64_t run_id, from, to, max;
    char slug[DB_SLUG_SIZE];
    cache_body *body;            /* NULL: free slot */
    size_t len;
    uint64_t used;
} cache_entry;

static struct {
    pthread_mutex_t mu;
    cache_entry e[WINDOW_CACHE_ENTRIES];
    size_t bytes;
    uint64_t clock;
} cache = {.mu = PTHREAD_MUTEX_INITIALIZER};

static cache_entry *cache_find(int64_t id, const char *slug, int64_t from, int64_t to, int64_t max) {
    for (size_t i = 0; i < WINDOW_CACHE_ENTRIES; i++) {
        cache_entry *e = &cache.e[i];
        if (e->body && e->run_id == id && e->from == from && e->to == to && e->max == max &&
            strcmp(e->slug, slug) == 0)
            return e;
    }
    return NULL;
}

static bool cache_get(int64_t id, const char *slug, int64_t from, int64_t to, int64_t max,
                      http_response *res) {
    pthread_mutex_lock(&cache.mu);
    cache_entry *e = cache_find(id, slug, from, to, max);
    cache_body *body = NULL;
    if (e) {
        body = e->body;
        atomic_fetch_add_explicit(&body->refs, 1, memory_order_relaxed);
        e->used = ++cache.clock;
    }
    pthread_mutex_unlock(&cache.mu);
    if (!body) return false;
    http_set_shared(res, 200, body->data, body->len, "application/json", cache_body_unref, body);
    return true;
}

static void cache_put(int64_t id, const char *slug, int64_t from, int64_t to, int64_t max,
                      const http_response *res) {
    if (!res->body || res->len > WINDOW_CACHE_BYTES / 8 || strlen(slug) >= DB_SLUG_SIZE) return;
    cache_body *copy = malloc(sizeof *copy + res->len + 1);
    if (!copy) return;
    atomic_init(&copy->refs, 1);   /* the cache's */
    copy->len = res->len;
    memcpy(copy->data, res->body, res->len);
    copy->data[res->len] = '\0';
    pthread_mutex_lock(&cache.mu);
    if (cache_find(id, slug, from, to, max)) {   /* another request put it first */
        pthread_mutex_unlock(&cache.mu);
        free(copy);
        return;
    }
    for (;;) {   /* make room: the least recently used out */
        cache_entry *lru = NULL, *empty = NULL;
        for (size_t i = 0; i < WINDOW_CACHE_ENTRIES; i++) {
            cache_entry *e = &cache.e[i];
            if (!e->body) empty = empty ? empty : e;
            else if (!lru || e->used < lru->used) lru = e;
        }
        if (empty && cache.bytes + res->len <= WINDOW_CACHE_BYTES) {
            *empty = (cache_entry){id, from, to, max, "", copy, res->len, ++cache.clock};
            memcpy(empty->slug, slug, strlen(slug) + 1);
            cache.bytes += res->len;
            break;
        }
        cache.bytes -= lru->len;
        cache_body_unref(lru->body);   /* freed once no response sends it */
        lru->body = NULL;
    }
    pthread_mutex_unlock(&cache.mu);
}

size_t window_cache_bytes(void) {
    pthread_mutex_lock(&cache.mu);
    size_t n = cache.bytes;
    pthread_mutex_unlock(&cache.mu);
    return n;
}

/* ---- the blocks API --------------------------------------------------------------------- */

bool window_range(int64_t t_min, int64_t t_max, int64_t *from, bool has_from, int64_t *to,
                  bool has_to, http_response *res) {
    if (!has_from) *from = t_min != TRACE_NONE ? t_min : 0;
    if (!has_to) *to = t_max != TRACE_NONE ? t_max : *from;
    if (!has_to && *to <= *from) *to = *from + 1;
    if (*to <= *from) {
        http_set_error(res, 400, "to: %" PRId64 " is not after from (%" PRId64 ")", *to, *from);
        return false;
    }
    return true;
}

void window_blocks(db *d, const http_request *req, const char *run, int64_t from, bool has_from,
                   int64_t to, bool has_to, int64_t max, http_response *res) {
    char err[512];
    pyr_run r;
    int rc = db_pyramid_run(d, run, &r, err, sizeof err);
    if (rc) {
        window_db_fail(d, res, rc, err);
        return;
    }
    if (!window_range(r.t_min, r.t_max, &from, has_from, &to, has_to, res)) return;
    /* A stored run never changes: the answer is named by the window alone
     * (the slug, never reused, and the run's row id, which can be after a
     * delete), and the client may keep it. */
    snprintf(res->etag, sizeof res->etag, "\"%s.%" PRId64 ".%" PRId64 ".%" PRId64 ".b1\"", run,
             from, to, max);
    res->cache_control = IMMUTABLE;
    /* a kept answer first: its 304 then carries the 200's Content-Length and
     * the connection stays open (http.c not_modified) */
    if (cache_get(r.id, run, from, to, max, res)) return;
    if (http_etag_fresh(req, res->etag)) {
        res->status = 200;
        res->content_type = "application/json";
        return;
    }
    /* a run simulated with cohorts (issue 28): its blocks and waves */
    if (r.cspan >= 0) {
        if (!window_cohort_blocks(d, run, &r, from, to, max, res))
            answer_bins(d, &r, from, to, max, res);
        goto done;
    }
    /* Blocks that start inside whole finest bins of the window surely
     * overlap it: past max of them, no block need be read at all. */
    int64_t surely;
    if ((rc = db_pyramid_starts_within(d, &r, from, to, &surely, err, sizeof err))) {
        window_db_fail(d, res, rc, err);
        return;
    }
    if (!(surely <= max && answer_blocks(d, run, &r, from, to, max, res)))
        answer_bins(d, &r, from, to, max, res);
done:
    if (res->status == 200) cache_put(r.id, run, from, to, max, res);
    else {
        res->etag[0] = '\0';
        res->cache_control = NULL;
    }
}

/* ---- tiles ---------------------------------------------------------------------------- */

void window_tile_info(db *d, const char *run, http_response *res) {
    char err[512];
    pyr_run r;
    int rc = db_pyramid_run(d, run, &r, err, sizeof err);
    if (rc) {
        window_db_fail(d, res, rc, err);
        return;
    }
    jw_buf b = {0};
    jw_obj(&b);
    jw_kv_str(&b, "run", run);
    if (r.z0 <= r.ztop) {
        jw_kv_i64(&b, "z0", r.z0);
        jw_kv_i64(&b, "ztop", r.ztop);
    } else {   /* no blocks: no levels */
        jw_kv_null(&b, "z0");
        jw_kv_null(&b, "ztop");
    }
    jw_kv_i64(&b, "max_z", PYR_MAX_Z);
    jw_kv_i64(&b, "tile_bins", PYR_TILE_BINS);
    jw_kv_i64(&b, "sms", r.sms);
    jw_key(&b, "t_min");
    if (r.t_min == TRACE_NONE) jw_null(&b);
    else jw_i64(&b, r.t_min);
    jw_key(&b, "t_max");
    if (r.t_max == TRACE_NONE) jw_null(&b);
    else jw_i64(&b, r.t_max);
    jw_kv_i64(&b, "blocks", r.n_blocks);
    jw_end(&b);
    snprintf(res->etag, sizeof res->etag, "\"%s.pyramid.1\"", run);
    res->cache_control = IMMUTABLE;
    http_set_buf(res, 200, &b, "application/json");
}

/* A URL segment as a whole decimal integer within [lo, hi]. */
static bool seg_i64(const char *s, int64_t lo, int64_t hi, int64_t *out) {
    int64_t v;
    if (!http_parse_int(s, &v) || v < lo || v > hi) return false;
    *out = v;
    return true;
}

void window_tile(db *d, const http_request *req, const char *run, const char *zs,
                 const char *is, http_response *res) {
    int64_t z, index;
    if (!seg_i64(zs, 0, WINDOW_TILE_MAX_Z, &z)) {
        http_set_error(res, 400, "level: \"%s\" is not a level 0..%d", zs, WINDOW_TILE_MAX_Z);
        return;
    }
    /* tiles of level z start within [-2^62, 2^62) ns, as every stored time */
    int64_t reach = (int64_t)1 << (WINDOW_TILE_MAX_Z - z);
    if (!seg_i64(is, -reach, reach - 1, &index)) {
        http_set_error(res, 400, "tile: \"%s\" is not a tile index of level %" PRId64
                       " (-%" PRId64 "..%" PRId64 ")", is, z, reach, reach - 1);
        return;
    }
    char err[512];
    pyr_run r;
    int rc = db_pyramid_run(d, run, &r, err, sizeof err);
    if (rc) {
        window_db_fail(d, res, rc, err);
        return;
    }
    if (r.z0 <= r.ztop && z < r.z0) {
        http_set_error(res, 404, "level %" PRId64 ": the finest level of run \"%s\" is %d", z,
                       run, r.z0);
        return;
    }
    /* the tile of a stored run never changes: the URL is its identity */
    snprintf(res->etag, sizeof res->etag, "\"%s.%" PRId64 ".%" PRId64 ".1\"", run, z, index);
    res->cache_control = IMMUTABLE;
    if (http_etag_fresh(req, res->etag)) {   /* 304: no body to build */
        res->status = 200;
        res->content_type = "application/json";
        return;
    }
    pyr_cell *cells = calloc((size_t)PYR_TILE_BINS * (size_t)r.sms, sizeof *cells);
    if (!cells) {
        http_set_error(res, 500, "out of memory for a tile");
        return;
    }
    int64_t k0 = index * PYR_TILE_BINS;
    rc = db_pyramid_cells(d, &r, (int)z, k0, k0 + PYR_TILE_BINS, cells, err, sizeof err);
    if (rc) {
        free(cells);
        window_db_fail(d, res, rc, err);
        return;
    }
    jw_buf b = {0};
    jw_puts(&b, "{\"run\":");
    jw_str_raw(&b, run);
    jw_puts(&b, ",\"z\":");
    jw_i64_raw(&b, z);
    jw_puts(&b, ",\"bin_ns\":");
    jw_i64_raw(&b, (int64_t)1 << z);
    jw_puts(&b, ",\"tile\":");
    jw_i64_raw(&b, index);
    jw_puts(&b, ",\"t\":");
    jw_i64_raw(&b, k0 * ((int64_t)1 << z));
    jw_puts(&b, ",\"bins\":");
    jw_i64_raw(&b, PYR_TILE_BINS);
    jw_puts(&b, ",\"sms\":");
    jw_i64_raw(&b, r.sms);
    jw_puts(&b, ",\"cells\":[");
    bool first = true;
    for (int64_t i = 0; i < PYR_TILE_BINS; i++)
        for (int32_t sm = 0; sm < r.sms; sm++) {
            const pyr_cell *c = &cells[(size_t)i * (size_t)r.sms + (size_t)sm];
            if (!c->thr && !c->blk && !c->starts && !c->live) continue;
            jw_puts(&b, first ? "[" : ",[");
            first = false;
            jw_i64_raw(&b, sm);
            jw_putc(&b, ',');
            jw_i64_raw(&b, i);
            jw_putc(&b, ',');
            jw_i64_raw(&b, c->thr);
            jw_putc(&b, ',');
            jw_i64_raw(&b, c->blk);
            jw_putc(&b, ',');
            jw_i64_raw(&b, c->starts);
            jw_putc(&b, ',');
            jw_i64_raw(&b, c->live);
            jw_putc(&b, ']');
        }
    jw_puts(&b, "]}");
    free(cells);
    http_set_buf(res, 200, &b, "application/json");
}
