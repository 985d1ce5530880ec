/* http.c -- libmicrohttpd glue: routing, the guard, bodies, static files.
 * See http.h. */
#include "http.h"
#include "../../db/db.h"
#include "../../importers/jsonr.h"
#include "../../importers/tmpfile.h"
#include "answer_mem.h"
#include "conn_guard.h"
#include "headers.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif


/* Requests or responses this big return their memory to the system after. */
#define HTTP_TRIM_BYTES ((size_t)1 << 20)

struct http_server {
    struct MHD_Daemon *d;
    http_config cfg;
    char *web_real;              /* realpath of the web folder, or NULL */
    char *tmp_dir;
    uint16_t port;
    atomic_int inflight;         /* requests begun and not completed */
    atomic_llong trimmed_ms;     /* when the server last went idle and trimmed */
    atomic_int bodies;           /* request bodies being received */
    atomic_bool stopping;        /* every request refused (503) */
    atomic_bool no_writes;       /* writes refused (503), reads still answered */
};

struct http_body {
    char *mem;                   /* first part (or all) of the body */
    size_t len, cap;
    int fd;                      /* -1: all in mem */
    char *map;                   /* the whole body + NUL, once finished with fd */
    size_t maplen;
};

/* Per-request state. */
typedef struct conn_state {
    http_server *srv;
    http_body *body;
    size_t limit;                /* the cap for this request's body */
    size_t discarded;            /* a GET's body bytes, read and dropped */
    bool body_coming;            /* Content-Length > 0 or chunked */
    bool drop_body;              /* a GET's body: read, not kept */
    char allow[64];              /* a 405's Allow: the methods the path takes */
    const char *path;            /* the target's path: the URL's, or an absolute form's */
    char authority[256];         /* an absolute-form target's host[:port], else "" */
    int io_errno;                /* why a body could not be kept (io_error) */
    bool answered, counted_body, trim, io_error;
    bool head_streamed;          /* a HEAD of a streamed answer: no length to give */
    /* the route table looked up once per request (route_lookup), by the
     * guard, and answered from by dispatch: the route that takes the
     * request (NULL: none), whether another method's takes its path, and
     * the route's `*` segments (copies in params_buf) */
    bool routed;
    const http_route *route;
    bool path_known;
    const char *params[HTTP_MAX_PARAMS];
    size_t nparams;
    char params_buf[1024];
} conn_state;

/* ---- bodies --------------------------------------------------------------------- */

const char *http_body_data(const http_body *b) {
    return !b ? NULL : b->map ? b->map : b->mem;
}
size_t http_body_len(const http_body *b) { return b ? b->len : 0; }
bool http_body_mapped(const http_body *b) { return b && b->map; }

void http_body_free(http_body *b) {
    if (!b) return;
    if (b->map) munmap(b->map, b->maplen);
    if (b->fd >= 0) close(b->fd);
    free(b->mem);
    free(b);
}

/* an unlinked file for a big body (importers/tmpfile.h: never named) */
static int tmp_open(const char *dir) { return imp_tmp_fd_in(dir, "body"); }

static int write_all(int fd, const char *p, size_t n) {
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Append; past HTTP_BODY_RAM the bytes go to a temporary file. In memory
 * len + 1 <= HTTP_BODY_RAM (the '\0'), so the test cannot wrap. */
static int body_append(http_server *srv, http_body *b, const char *p, size_t n) {
    if (b->fd < 0 && n < HTTP_BODY_RAM - b->len) {
        if (b->len + n + 1 > b->cap) {
            size_t nc = b->cap ? b->cap : 16384;
            while (nc < b->len + n + 1) nc *= 2;
            char *nb = realloc(b->mem, nc);
            if (!nb) return -1;
            b->mem = nb;
            b->cap = nc;
        }
        memcpy(b->mem + b->len, p, n);
        b->len += n;
        b->mem[b->len] = '\0';
        return 0;
    }
    if (b->fd < 0) {
        if ((b->fd = tmp_open(srv->tmp_dir)) < 0) return -1;
        if (b->len && write_all(b->fd, b->mem, b->len)) return -1;
        free(b->mem);
        b->mem = NULL;
        b->cap = 0;
    }
    if (write_all(b->fd, p, n)) return -1;
    b->len += n;
    return 0;
}

/* Map a spilled body (with a NUL after it) once it is complete. */
static int body_finish(http_body *b) {
    if (b->fd < 0) return 0;
    if (write_all(b->fd, "", 1)) return -1;
    b->maplen = b->len + 1;
    void *m = mmap(NULL, b->maplen, PROT_READ, MAP_PRIVATE, b->fd, 0);
    if (m == MAP_FAILED) return -1;
    b->map = m;
    return 0;
}

http_body *http_take_body(const http_request *req) {
    conn_state *cs = req->priv;
    if (!cs || !cs->body || !cs->body->len) return NULL;
    http_body *b = cs->body;
    cs->body = NULL;
    return b;
}

/* ---- responses ------------------------------------------------------------------ */

/* ---- streamed bodies (http_set_stream) ---------------------------------------------- */

struct http_stream {
    http_stream_fill fill;
    void (*free_ctx)(void *ctx);
    void *ctx;
    jw_buf w;            /* pull mode: made by fill, read out by MHD */
    bool done;           /* fill said the text is complete */
    size_t cost;         /* http_stream_cost: what ctx holds */
    size_t taken;        /* of answer_mem.h, given back when done */
};

static void stream_free(void *cls) {
    struct http_stream *st = cls;
    if (!st) return;
    if (st->taken) amem_give(st->taken);
    if (st->free_ctx) st->free_ctx(st->ctx);
    jw_free(&st->w);
    free(st);
}

/* A response's streamed body given up before it was sent (the handler set
 * another body after it). */
static void drop_stream(http_response *res) {
    stream_free(res->stream);
    res->stream = NULL;
}

/* A shared body (http_set_shared) given up: its owner gets it back. */
static void drop_shared(http_response *res) {
    if (res->release) res->release(res->release_cls);
    res->shared = NULL;
    res->release = NULL;
    res->release_cls = NULL;
}

void http_set_shared(http_response *res, int status, const char *data, size_t len,
                     const char *content_type, void (*release)(void *cls), void *cls) {
    drop_stream(res);
    drop_shared(res);
    free(res->body);
    res->body = NULL;
    res->shared = data;
    res->len = len;
    res->release = release;
    res->release_cls = cls;
    res->status = status;
    res->content_type = content_type;
}

/* libmicrohttpd's content reader: fill until `max` bytes are ready (or the
 * end), then hand them over. MHD sends them as chunks of a chunked body. */
static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max) {
    (void)pos;
    struct http_stream *st = cls;
    while (!st->done && jw_pending(&st->w) < max) {
        size_t before = jw_pending(&st->w);
        int r = st->fill(st->ctx, &st->w);
        if (r < 0 || st->w.oom) return MHD_CONTENT_READER_END_WITH_ERROR;
        if (r == 0) st->done = true;
        else if (jw_pending(&st->w) == before) break;   /* it added nothing: send what is there */
    }
    size_t n = jw_read(&st->w, buf, max);
    if (!n) return st->done ? MHD_CONTENT_READER_END_OF_STREAM : MHD_CONTENT_READER_END_WITH_ERROR;
    return (ssize_t)n;
}

void http_set_stream(http_response *res, int status, const char *content_type,
                     http_stream_fill fill, void (*free_ctx)(void *ctx), void *ctx) {
    drop_stream(res);
    drop_shared(res);
    free(res->body);
    res->body = NULL;
    res->len = 0;
    struct http_stream *st = calloc(1, sizeof *st);
    if (!st) {
        if (free_ctx) free_ctx(ctx);
        http_set_error(res, 500, "out of memory writing the response");
        return;
    }
    st->fill = fill;
    st->free_ctx = free_ctx;
    st->ctx = ctx;
    res->stream = st;
    res->status = status;
    res->content_type = content_type;
}

void http_stream_cost(http_response *res, size_t bytes) {
    if (res->stream) res->stream->cost = bytes;
}

/* A buffered body counted in answer_mem.h: freed and given back once sent. */
typedef struct counted_body {
    char *p;
    size_t n;
} counted_body;

static void counted_free(void *cls) {
    counted_body *c = cls;
    amem_give(c->n);
    free(c->p);
    free(c);
}

void http_set_json(http_response *res, int status, json_t *body) {
    drop_stream(res);
    drop_shared(res);
    free(res->body);
    res->body = body ? json_dumps(body, JSON_COMPACT | JSON_REAL_PRECISION(10)) : NULL;
    json_decref(body);
    if (!res->body) {
        status = 500;
        res->body = strdup("{\"error\":\"out of memory writing the response\"}");
    }
    res->len = res->body ? strlen(res->body) : 0;
    res->status = status;
    res->content_type = "application/json";
}

void http_set_error(http_response *res, int status, const char *fmt, ...) {
    char msg[1024], out[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* an error quoting input keeps control characters escaped: one line */
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)msg; *p && o + 5 < sizeof out; p++) {
        if (*p >= 0x20 && *p != 0x7f) out[o++] = (char)*p;
        else o += (size_t)snprintf(out + o, sizeof out - o, *p == '\n' ? "\\n" : "\\x%02x", *p);
    }
    out[o] = '\0';
    /* a write the disk has no room for: RFC 4918 §11.5's 507, not a fault of
     * the server's (docs/api.md) */
    if (status == 500 && db_error_full(out)) status = 507;
    http_set_json(res, status, json_pack("{s:o}", "error", tj_string(out)));
}

void http_set_buf(http_response *res, int status, tj_buf *buf, const char *content_type) {
    drop_stream(res);
    drop_shared(res);
    free(res->body);
    if (buf->oom) {
        tj_buf_free(buf);
        res->body = NULL;
        http_set_error(res, 500, "out of memory writing the response");
        return;
    }
    res->body = buf->s;
    res->len = buf->len;
    res->status = status;
    res->content_type = content_type;
    memset(buf, 0, sizeof *buf);
}

bool http_parse_int(const char *s, int64_t *out) {
    const char *d = s && *s == '-' ? s + 1 : s;
    if (!d || *d < '0' || *d > '9') return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end) return false;
    *out = v;
    return true;
}

const char *http_query(const http_request *req, const char *key) {
    return MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, key);
}

const char *http_mime_type(const char *path) {
    static const struct { const char *ext, *type; } types[] = {
        {".html", "text/html; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"},
        {".mjs", "text/javascript; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},
        {".svg", "image/svg+xml"},
        {".png", "image/png"},
        {".ico", "image/x-icon"},
        {".json", "application/json"},
        {".map", "application/json"},
        {".txt", "text/plain; charset=utf-8"},
        {".woff2", "font/woff2"},
    };
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (dot && (!slash || dot > slash))
        for (size_t i = 0; i < sizeof types / sizeof *types; i++)
            if (strcasecmp(dot, types[i].ext) == 0) return types[i].type;
    return "application/octet-stream";
}

/* A path token starts after one of these and ends before one of the others. */
static bool path_start(char c) {
    return c == ' ' || c == '"' || c == '\'' || c == '(' || c == '=' || c == '[' || c == '`';
}
static bool path_end(char c) {
    return c == '\0' || c == ' ' || c == '"' || c == '\'' || c == ':' || c == ',' ||
           c == ')' || c == ']' || c == ';' || c == '`' || c == '\\';
}

void http_scrub_paths(char *s) {
    if (!s) return;
    char *w = s;
    for (char *r = s; *r;) {
        if (*r == '/' && (r == s || path_start(r[-1]))) {
            char *e = r, *last = r;
            int slashes = 0;
            while (!path_end(*e)) {
                if (*e == '/') { slashes++; last = e; }
                e++;
            }
            if (slashes >= 2 && last + 1 < e) {
                for (char *p = last + 1; p < e;) *w++ = *p++;
                r = e;
                continue;
            }
            while (r < e) *w++ = *r++;
            continue;
        }
        *w++ = *r++;
    }
    *w = '\0';
}

/* every answer's (headers.h; answer_now's and the watchdog's as raw lines) */

static void common_headers(struct MHD_Response *r) {
    for (size_t i = 0; i < HDR_NCOMMON; i++)
        MHD_add_response_header(r, hdr_common[i][0], hdr_common[i][1]);
}

/* If-None-Match holds `etag` (a list of entity tags, weak ones compared
 * weakly as RFC 9110 §13.1.2 says for GET, or "*"). */
static bool etag_fresh(struct MHD_Connection *conn, const char *etag) {
    const char *v = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                                MHD_HTTP_HEADER_IF_NONE_MATCH);
    if (!v) return false;
    size_t el = strlen(etag);
    while (*v) {
        while (*v == ' ' || *v == '\t' || *v == ',') v++;
        if (*v == '*') return true;
        if (v[0] == 'W' && v[1] == '/') v += 2;
        const char *e = v;
        while (*e && *e != ',') e++;
        size_t n = (size_t)(e - v);
        while (n && (v[n - 1] == ' ' || v[n - 1] == '\t')) n--;
        if (n == el && memcmp(v, etag, el) == 0) return true;
        v = e;
    }
    return false;
}

bool http_etag_fresh(const http_request *req, const char *etag) {
    return req->conn && etag_fresh(req->conn, etag);   /* no connection: a handler called directly */
}

/* The body reader of a 304 or a HEAD answer: never called (MHD sends no
 * body with either). */
static ssize_t no_body_read(void *cls, uint64_t pos, char *buf, size_t max) {
    (void)cls;
    (void)pos;
    (void)buf;
    (void)max;
    return MHD_CONTENT_READER_END_WITH_ERROR;
}

/* A body-less answer (a 304, or a HEAD's) standing for a 200 of `len200`
 * bytes. libmicrohttpd 0.9.75 writes a Content-Length into either whenever
 * the response's size is known (its build_header_response:
 * is_reply_body_headers_needed() is true for them; MHD_add_response_header
 * refuses one of ours), and an unknown size gives "Transfer-Encoding:
 * chunked" instead: it leaves both out only by closing the connection. So
 * the size is the 200's where it is known, the one value RFC 9110 8.6
 * allows in a 304 or a HEAD answer (15.4.5: the 304 stands for the 200;
 * 9.3.2: HEAD has the GET's fields); "Content-Length: 0" said the
 * representation was empty. */
static struct MHD_Response *no_body(uint64_t len200) {
    struct MHD_Response *r =
        MHD_create_response_from_callback(len200, 4096, no_body_read, NULL, NULL);
    /* a length unknown (the handler built no body, or streams it): "chunked"
     * would have 0.9.75 send a last chunk, "0\r\n\r\n", after the header
     * section -- read as the start of the next answer; without both headers
     * the end of the answer is the connection's close */
    if (r && len200 == MHD_SIZE_UNKNOWN &&
        MHD_set_response_options(r, MHD_RF_HTTP_1_0_COMPATIBLE_STRICT, MHD_RO_END) != MHD_YES) {
        MHD_destroy_response(r);
        return NULL;
    }
    return r;
}

static enum MHD_Result send_response(struct MHD_Connection *conn, conn_state *cs,
                                     http_response *res, bool close_conn) {
    if (res->status >= 500 && res->body) {
        http_scrub_paths(res->body);
        res->len = strlen(res->body);
    }
    if (cs) {
        cs->answered = true;
        /* (a shared body was not allocated for this request: nothing to trim) */
        if (res->len >= HTTP_TRIM_BYTES && !res->shared) cs->trim = true;
    }
    /* An immutable answer the client already holds (res->etag, issue 9):
     * 304 and no body. */
    bool fresh = res->etag[0] && res->status == 200 && !res->stream && etag_fresh(conn, res->etag);
    /* the 200's length; unknown when the handler saw the tag fresh and
     * built no body (window.c, occupancy.c, stream_bins.c) */
    uint64_t len200 = res->body || res->shared ? res->len : MHD_SIZE_UNKNOWN;
    if (fresh) {
        drop_shared(res);
        free(res->body);
        res->body = NULL;
        res->len = 0;
        res->status = MHD_HTTP_NOT_MODIFIED;
    }
    /* the memory held for answers (answer_mem.h, issue 31): past the cap a
     * 503, so slow readers cannot pin more than it however many they are */
    size_t take = res->stream ? res->stream->cost + 2 * HTTP_STREAM_CHUNK
                : !res->shared && res->body && res->len >= AMEM_MIN_BYTES ? res->len : 0;
    if (take && !amem_take(take)) {
        drop_stream(res);
        drop_shared(res);
        free(res->body);
        res->body = NULL;
        char msg[200];
        snprintf(msg, sizeof msg,
                 "answers being sent hold %zu MiB of the server's %zu MiB for them "
                 "(--answer-memory); try again shortly",
                 amem_held() >> 20, amem_cap() >> 20);
        http_response busy = {0};
        busy.retry_after = 5;
        http_set_error(&busy, 503, "%s", msg);
        return send_response(conn, cs, &busy, close_conn);
    }
    struct MHD_Response *r;
    if (fresh || (cs && cs->head_streamed)) {
        r = no_body(fresh ? len200 : MHD_SIZE_UNKNOWN);
        if (!r) return MHD_NO;
    } else if (res->stream) {
        /* built as it is sent: no Content-Length, chunked (http_set_stream) */
        free(res->body);
        res->body = NULL;
        if (cs) cs->trim = true;
        res->stream->taken = take;
        r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, HTTP_STREAM_CHUNK, stream_read,
                                              res->stream, stream_free);
        if (!r) {
            drop_stream(res);
            return MHD_NO;
        }
        res->stream = NULL;   /* MHD's now: stream_free runs when it is done */
    } else if (res->shared) {
        /* the cache's bytes as they are: MHD sends from them and calls
         * release when done (a 650 KB answer copied per request was half
         * the CPU of a cached window, issue 9) */
        r = MHD_create_response_from_buffer_with_free_callback_cls(
            res->len, (void *)res->shared, res->release, res->release_cls);
        if (!r) {
            drop_shared(res);
            return MHD_NO;
        }
        res->shared = NULL;   /* MHD's now */
        res->release = NULL;
    } else if (take) {
        counted_body *c = malloc(sizeof *c);
        r = c ? MHD_create_response_from_buffer_with_free_callback_cls(res->len, res->body,
                                                                       counted_free, c)
              : NULL;
        if (!r) {
            free(c);
            amem_give(take);
            free(res->body);
            return MHD_NO;
        }
        c->p = res->body;
        c->n = take;
    } else {
        r = MHD_create_response_from_buffer(res->len, res->body ? res->body : (void *)"",
                                            res->body ? MHD_RESPMEM_MUST_FREE
                                                      : MHD_RESPMEM_PERSISTENT);
        if (!r) {
            free(res->body);
            return MHD_NO;
        }
    }
    res->body = NULL;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
                            res->content_type ? res->content_type : "application/json");
    const char *cc = res->cache_control ? res->cache_control : "no-store";
    char priv[96];
    if (cs && cs->srv->cfg.read_token && *cs->srv->cfg.read_token && strncmp(cc, "public", 6) == 0) {
        /* with --read-token an API answer is the token holders' alone: a
         * shared cache (a proxy's) must not keep it for others, which
         * "public" allows even for a request with Authorization (RFC 9111
         * 3.5) */
        snprintf(priv, sizeof priv, "private%s", cc + 6);
        cc = priv;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, cc);
    common_headers(r);
    if (res->disposition[0])
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_DISPOSITION, res->disposition);
    if (res->etag[0]) MHD_add_response_header(r, MHD_HTTP_HEADER_ETAG, res->etag);
    if (res->location[0] && res->status == 201)
        MHD_add_response_header(r, MHD_HTTP_HEADER_LOCATION, res->location);
    if (res->retry_after > 0) {
        char ra[16];
        snprintf(ra, sizeof ra, "%d", res->retry_after);
        MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, ra);
    }
    if (res->status == 401) MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
    /* a 405 names the methods the path takes (RFC 9110 15.5.6: MUST) */
    if (res->status == 405 && cs && cs->allow[0])
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, cs->allow);
    if (close_conn) MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
    enum MHD_Result ret = MHD_queue_response(conn, (unsigned)res->status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result send_error_ex(struct MHD_Connection *conn, conn_state *cs, int status,
                                     bool close_conn, int retry_after, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static enum MHD_Result send_error_ex(struct MHD_Connection *conn, conn_state *cs, int status,
                                     bool close_conn, int retry_after, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    http_response res = {0};
    res.retry_after = retry_after;
    http_set_error(&res, status, "%s", msg);
    return send_response(conn, cs, &res, close_conn);
}

#define send_error(conn, cs, status, ...) send_error_ex(conn, cs, status, false, 0, __VA_ARGS__)

/* The handler's MHD_NO after answer_now: libmicrohttpd logs it as "Application
 * reported internal error", which it is not (mhd_log leaves it out once). */
static _Thread_local bool closing_answered;

/* An error answered while libmicrohttpd is still reading the body, which
 * 0.9.75 cannot queue an answer in (MHD_queue_response refuses until the
 * whole request is in): the answer, with the fields send_response gives an
 * error, is written straight to the socket (cg_answer_now), the connection
 * closes and what the client still sends is drained for up to 2 s first.
 * Returns MHD_NO, which makes libmicrohttpd stop reading and close; when
 * the answer cannot be written the connection closes unanswered. */
static enum MHD_Result answer_now(struct MHD_Connection *conn, conn_state *cs, int status,
                                  const char *reason, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static enum MHD_Result answer_now(struct MHD_Connection *conn, conn_state *cs, int status,
                                  const char *reason, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    http_response res = {0};
    http_set_error(&res, status, "%s", msg);
    cs->answered = true;
    if (!res.body) return MHD_NO;
    char out[4096];
    int n = snprintf(out, sizeof out,
                     "HTTP/1.1 %d %s\r\nConnection: close\r\n"
                     "Content-Type: application/json\r\nCache-Control: no-store\r\n",
                     status, reason);
    if (n > 0 && (size_t)n < sizeof out) {
        size_t h = hdr_raw(out + n, sizeof out - (size_t)n);
        n = h ? n + (int)h : -1;
    }
    if (n > 0 && (size_t)n < sizeof out)
        n += snprintf(out + n, sizeof out - (size_t)n, "Content-Length: %zu\r\n\r\n%s", res.len,
                      res.body);
    free(res.body);
    if (n > 0 && (size_t)n < sizeof out) cg_answer_now(conn, out, (size_t)n);
    closing_answered = true;
    return MHD_NO;
}

/* ---- static files ---------------------------------------------------------------- */

/* The dashboard's pages, as web/js/router.mjs's ROUTES match them (tests/
 * api/page_routes.test.mjs holds the two to each other): "/", "/compare"
 * and "/sweeps", "/experiments/ID" and "/runs/ID" (one non-empty segment),
 * each with or without a trailing slash; and "/index.html" itself. A path
 * the router shows as "not found" (/experiments, /runs/a/b) is no page:
 * a browser gets the shell with status 404, other clients JSON 404. */
static bool is_page(const char *path) {
    static const char *const fixed[] = {"/compare", "/sweeps"};
    static const char *const with_id[] = {"/experiments/", "/runs/"};
    if (strcmp(path, "/") == 0 || strcmp(path, "/index.html") == 0) return true;
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) {
        size_t f = strlen(fixed[i]);
        if (strncmp(path, fixed[i], f) == 0 && (n == f || (n == f + 1 && path[f] == '/')))
            return true;
    }
    for (size_t i = 0; i < sizeof with_id / sizeof *with_id; i++) {
        size_t f = strlen(with_id[i]);
        if (strncmp(path, with_id[i], f) != 0) continue;
        const char *id = path + f, *slash = strchr(id, '/');
        return *id && *id != '/' && (!slash || slash[1] == '\0');
    }
    return false;
}

/* A path is served only when no segment is "." or "..", it has no
 * backslash, and it resolves inside the web folder (symlinks included). */
static bool safe_path(const char *path) {
    if (strchr(path, '\\')) return false;
    const char *s = path;
    while (*s) {
        while (*s == '/') s++;
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if ((n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.')) return false;
        s += n;
    }
    return true;
}

static enum MHD_Result serve_file(http_server *srv, struct MHD_Connection *conn, conn_state *cs,
                                  const char *path) {
    /* a browser asking for a path that is no page of the app and names no
     * file (no extension in its last segment) gets the app shell with status
     * 404, so it shows the dashboard's own "not found" page (issue 15);
     * other clients keep the JSON 404 */
    const char *last = strrchr(path, '/');
    const char *accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
    bool shell404 = !is_page(path) && !strchr(last ? last : path, '.') && accept &&
                    strstr(accept, "text/html");
    const char *rel = is_page(path) || shell404 ? "/index.html" : path;
    if (!srv->web_real) return send_error(conn, cs, 404, "no web folder: %s", path);
    if (!safe_path(rel)) return send_error(conn, cs, 403, "%s: path outside the web folder", path);
    char full[PATH_MAX], real[PATH_MAX];
    if ((size_t)snprintf(full, sizeof full, "%s%s", srv->web_real, rel) >= sizeof full)
        return send_error(conn, cs, 404, "no such page or file: %s", path);
    size_t wl = strlen(srv->web_real);
    if (!realpath(full, real) || strncmp(real, srv->web_real, wl) != 0 || real[wl] != '/')
        return send_error(conn, cs, 404, "no such page or file: %s", path);
    int fd = open(real, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0) close(fd);
        return send_error(conn, cs, 404, "no such page or file: %s", path);
    }
    /* Revalidated on every load (no-cache) but answered 304 when unchanged;
     * vendored libraries never change under one name. */
    char modified[64];
    struct tm tm;
    gmtime_r(&st.st_mtime, &tm);
    strftime(modified, sizeof modified, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    const char *ims = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                                  MHD_HTTP_HEADER_IF_MODIFIED_SINCE);
    bool vendor = strncmp(rel, "/vendor/", 8) == 0;
    struct MHD_Response *r;
    unsigned status;
    if (ims && strcmp(ims, modified) == 0 && !shell404) {
        close(fd);
        r = no_body((uint64_t)st.st_size);
        status = MHD_HTTP_NOT_MODIFIED;
    } else {
        r = MHD_create_response_from_fd64((uint64_t)st.st_size, fd);   /* MHD closes fd */
        status = shell404 ? MHD_HTTP_NOT_FOUND : MHD_HTTP_OK;
    }
    if (!r) {
        if (status != MHD_HTTP_NOT_MODIFIED) close(fd);
        return MHD_NO;
    }
    cs->answered = true;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, http_mime_type(rel));
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL,
                            vendor ? "public, max-age=86400" : "no-cache");
    MHD_add_response_header(r, MHD_HTTP_HEADER_LAST_MODIFIED, modified);
    common_headers(r);
    enum MHD_Result ret = MHD_queue_response(conn, status, r);
    MHD_destroy_response(r);
    return ret;
}

/* ---- routing ----------------------------------------------------------------------- */

/* Match `path` against `pattern`; the `*` segments are copied into buf
 * (NUL-separated) and pointed to from params. */
static bool match(const char *pattern, const char *path, char *buf, size_t buflen,
                  const char **params, size_t *nparams) {
    size_t np = 0, used = 0;
    const char *p = pattern, *s = path;
    while (*p && *s) {
        if (*p != '/' || *s != '/') return false;
        p++;
        s++;
        const char *pe = strchr(p, '/'), *se = strchr(s, '/');
        size_t pl = pe ? (size_t)(pe - p) : strlen(p), sl = se ? (size_t)(se - s) : strlen(s);
        if (pl == 1 && *p == '*') {
            if (sl == 0 || np == HTTP_MAX_PARAMS || used + sl + 1 > buflen) return false;
            memcpy(buf + used, s, sl);
            buf[used + sl] = '\0';
            params[np++] = buf + used;
            used += sl + 1;
        } else if (pl != sl || memcmp(p, s, pl) != 0) {
            return false;
        }
        p += pl;
        s += sl;
    }
    if (*p || (*s && strcmp(s, "/") != 0)) return false;
    *nparams = np;
    return true;
}

/* The route that takes (url, method) into cs->route (NULL when none), its
 * `*` segments into cs->params, and cs->path_known: whether some route
 * (of any method) has the path. One pass over the table, once per request:
 * the guard checks the route's arguments and dispatch calls its handler. */
static void route_lookup(http_server *srv, const char *url, const char *m, conn_state *cs) {
    const char *params[HTTP_MAX_PARAMS];
    size_t np;
    cs->routed = true;
    cs->route = NULL;
    cs->path_known = false;
    cs->nparams = 0;
    for (size_t i = 0; i < srv->cfg.nroutes; i++) {
        const http_route *rt = &srv->cfg.routes[i];
        if (!match(rt->pattern, url, cs->params_buf, sizeof cs->params_buf, params, &np))
            continue;
        cs->path_known = true;
        if (strcmp(rt->method, m) != 0) continue;
        cs->route = rt;
        memcpy(cs->params, params, np * sizeof *params);
        cs->nparams = np;
        return;
    }
}

static bool is_api(const char *url) { return strncmp(url, "/api/", 5) == 0 || strcmp(url, "/api") == 0; }

/* The methods `url` takes, for a 405's Allow, into cs->allow: its routes'
 * (GET with HEAD), or GET and HEAD for a page or file. */
static void set_allow(http_server *srv, conn_state *cs, const char *url) {
    static const char *const order[] = {"GET", "HEAD", "POST", "DELETE"};
    bool has[4] = {false};
    char buf[1024];
    const char *params[HTTP_MAX_PARAMS];
    size_t np;
    bool any = false;
    for (size_t i = 0; i < srv->cfg.nroutes; i++) {
        const http_route *rt = &srv->cfg.routes[i];
        if (!match(rt->pattern, url, buf, sizeof buf, params, &np)) continue;
        any = true;
        for (int k = 0; k < 4; k++)
            if (strcmp(rt->method, order[k]) == 0) has[k] = true;
    }
    if (!any) has[0] = true;   /* a page or a file of the web folder */
    if (has[0]) has[1] = true;
    size_t o = 0;
    cs->allow[0] = '\0';
    for (int k = 0; k < 4; k++)
        if (has[k] && o < sizeof cs->allow)
            o += (size_t)snprintf(cs->allow + o, sizeof cs->allow - o, "%s%s", o ? ", " : "", order[k]);
}

static enum MHD_Result dispatch(http_server *srv, struct MHD_Connection *conn, const char *url,
                                const char *method, conn_state *cs) {
    bool head = strcmp(method, "HEAD") == 0;
    const char *m = head ? "GET" : method;
    http_request req = {.method = m, .path = url, .conn = conn, .priv = cs,
                        .body = http_body_data(cs->body), .body_len = http_body_len(cs->body),
                        .body_mapped = http_body_mapped(cs->body)};
    if (!cs->routed) route_lookup(srv, url, m, cs);   /* the guard looked it up */
    const http_route *rt = cs->route;
    if (rt) {
        memcpy(req.params, cs->params, cs->nparams * sizeof *cs->params);
        req.nparams = cs->nparams;
        http_response res = {.status = 500};
        rt->fn(srv->cfg.app, &req, &res);
        /* HEAD: the headers of the GET, no body. libmicrohttpd leaves out a
         * buffered body itself but still sends the chunks of a callback
         * (streamed) one, which a client reads as the next response. */
        if (head && res.stream) {
            drop_stream(&res);
            cs->head_streamed = true;   /* its length is the stream's: unknown */
        }
        if (res.status >= 500)
            fprintf(stderr, "schedlab: %s %s -> %d %.*s\n", method, url, res.status,
                    (int)(res.len < 300 ? res.len : 300), res.body ? res.body : "");
        return send_response(conn, cs, &res, false);
    }
    /* a HEAD's error names GET, the method it is answered as: its
     * Content-Length is then the GET's (RFC 9110 9.3.2, docs/api.md) */
    if (cs->path_known) {
        set_allow(srv, cs, url);
        return send_error(conn, cs, 405, "%s is not allowed on %s", m, url);
    }
    if (is_api(url)) return send_error(conn, cs, 404, "no such API route: %s %s", m, url);
    if (strcmp(m, "GET") != 0) {
        set_allow(srv, cs, url);
        return send_error(conn, cs, 405, "%s is not allowed on %s", method, url);
    }
    return serve_file(srv, conn, cs, url);
}

/* ---- the guard ------------------------------------------------------------------------ */

static const char *header(struct MHD_Connection *conn, const char *name) {
    return MHD_lookup_connection_value(conn, MHD_HEADER_KIND, name);
}

/* Host without its port; false when it does not fit or is malformed. */
static bool host_name(const char *host, char *out, size_t n) {
    size_t l;
    if (host[0] == '[') {
        const char *e = strchr(host, ']');
        if (!e) return false;
        l = (size_t)(e - host) + 1;
    } else {
        const char *c = strchr(host, ':');
        l = c ? (size_t)(c - host) : strlen(host);
    }
    if (l == 0 || l >= n) return false;
    for (size_t i = 0; i < l; i++) out[i] = (char)tolower((unsigned char)host[i]);
    out[l] = '\0';
    return true;
}

static bool host_allowed(http_server *srv, const char *host) {
    char name[256], tmp[256];
    if (!host || !host_name(host, name, sizeof name)) return false;
    if (strcmp(name, "localhost") == 0) return true;
    unsigned char addr[16];
    if (inet_pton(AF_INET, name, addr) == 1) return true;
    size_t l = strlen(name);
    if (name[0] == '[' && l > 2) {
        memcpy(tmp, name + 1, l - 2);
        tmp[l - 2] = '\0';
        if (inet_pton(AF_INET6, tmp, addr) == 1) return true;
    }
    for (size_t i = 0; i < srv->cfg.nallow_hosts; i++)
        if (strcasecmp(srv->cfg.allow_hosts[i], name) == 0) return true;
    return false;
}

/* Origin (scheme://host[:port]) must name the host the request was sent to. */
static bool origin_ok(const char *origin, const char *host) {
    const char *p = strstr(origin, "://");
    if (!p || !host) return false;
    size_t sl = (size_t)(p - origin);
    if (!((sl == 4 && strncasecmp(origin, "http", 4) == 0) ||
          (sl == 5 && strncasecmp(origin, "https", 5) == 0)))
        return false;
    return strcasecmp(p + 3, host) == 0;
}

/* The media type of a Content-Type, lower case, without parameters. */
static void media_type(const char *ct, char *out, size_t n) {
    size_t i = 0;
    while (ct && *ct == ' ') ct++;
    for (; ct && ct[i] && ct[i] != ';' && ct[i] != ' ' && i + 1 < n; i++)
        out[i] = (char)tolower((unsigned char)ct[i]);
    out[i] = '\0';
}

static bool upload_type(const char *mt) {
    static const char *const ok[] = {
        "application/octet-stream", "application/json", "text/csv", "application/csv",
        "application/gzip", "application/x-gzip", "application/zip",
        "application/x-zip-compressed", "application/x-tar", "application/x-bzip2",
        "application/x-xz", "application/vnd.sqlite3", "application/x-sqlite3",
    };
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
        if (strcmp(mt, ok[i]) == 0) return true;
    return false;
}

static bool is_upload_path(const char *url) { return strcmp(url, "/api/imports") == 0; }

/* Constant-time token comparison. */
static bool token_ok(const char *want, const char *auth) {
    if (!auth || strncasecmp(auth, "Bearer ", 7) != 0) return false;
    const char *got = auth + 7;
    while (*got == ' ') got++;
    size_t wl = strlen(want), gl = strlen(got);
    unsigned char diff = (unsigned char)(wl != gl);
    for (size_t i = 0; i < wl; i++) diff |= (unsigned char)(want[i] ^ (i < gl ? got[i] : 0));
    return diff == 0;
}

/* Whether a request sent a bearer token at all (a wrong one is told so,
 * not asked to send one). */
static bool bearer_sent(const char *auth) {
    return auth && strncasecmp(auth, "Bearer ", 7) == 0 && auth[7 + strspn(auth + 7, " ")];
}

/* A NUL decoded from %00 would cut a name short unseen: such a query
 * argument (or header) is refused. */
static enum MHD_Result find_nul(void *cls, enum MHD_ValueKind kind, const char *key,
                                size_t key_size, const char *value, size_t value_size) {
    (void)kind;
    if ((key && strlen(key) != key_size) || (value && strlen(value) != value_size)) {
        *(const char **)cls = key ? key : "";
        return MHD_NO;
    }
    return MHD_YES;
}

/* The API's query arguments as given: names (to find one given twice) and
 * values (NULL for a name without '='). */
typedef struct arg_keys {
    const char **k, **v;
    size_t n, cap;
    bool oom;
} arg_keys;

static enum MHD_Result collect_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value) {
    (void)kind;
    arg_keys *a = cls;
    if (!key || !*key) return MHD_YES;   /* "?&&": empty pieces, no arguments */
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 16;
        const char **k = realloc(a->k, cap * sizeof *k);
        if (k) a->k = k;
        const char **v = k ? realloc(a->v, cap * sizeof *v) : NULL;
        if (!v) {
            a->oom = true;
            return MHD_NO;
        }
        a->v = v;
        a->cap = cap;
    }
    a->k[a->n] = key;
    a->v[a->n++] = value;
    return MHD_YES;
}

static int cmp_key(const void *x, const void *y) {
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static bool name_in(const char *name, const char *const *list) {
    for (size_t i = 0; list && list[i]; i++)
        if (strcmp(name, list[i]) == 0) return true;
    return false;
}

/* The API's query arguments checked against the route's (http_route.args):
 * into msg the first the route does not read (its name, what the route
 * takes and the nearest of those to a typo), else the first given with an
 * empty value or without '=' that has no empty value of its own
 * (http_route.empty_ok: ?max= was read as the default, ?limit= and
 * ?scenario= as bad values, ?max as left out: one rule now, docs/api.md),
 * else the first one given twice (?max=5&max=200000, ?runs=a&runs=b: every
 * route reads one value per name, http_query's first, so the second was
 * dropped without a word and the answer was to another question than the
 * one asked). rt NULL (no route takes the request: a 404 or 405 follows)
 * checks repeats only. Returns 0, 400 with msg, or 503 out of memory. */
static int query_check(struct MHD_Connection *conn, const http_route *rt, const char *url,
                       const char *method, char *msg, size_t msglen) {
    arg_keys a = {0};
    MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, collect_arg, &a);
    if (a.oom) {
        free(a.k);
        free(a.v);
        return 503;
    }
    int status = 0;
    for (size_t i = 0; rt && i < a.n && !status; i++) {
        size_t n = rt->args ? jr_count(rt->args) : 0;
        size_t j = 0;
        while (j < n && strcmp(a.k[i], rt->args[j]) != 0) j++;
        if (j < n) continue;
        char known[256];
        const char *near = n ? jr_suggest(a.k[i], rt->args, n) : NULL;
        if (n) jr_list_names(known, sizeof known, rt->args, n, "");
        if (near)
            snprintf(msg, msglen, "%.60s: not an argument of %s %.150s (did you mean \"%s\"?)",
                     a.k[i], method, url, near);
        else
            snprintf(msg, msglen, "%.60s: not an argument of %s %.150s (it takes %.200s)", a.k[i],
                     method, url, n ? known : "none");
        status = 400;
    }
    for (size_t i = 0; rt && i < a.n && !status; i++) {
        bool empty_ok = name_in(a.k[i], rt->empty_ok);
        if (a.v[i] && (*a.v[i] || empty_ok)) continue;
        if (empty_ok)
            snprintf(msg, msglen, "%.60s: no value (no '='): \"%.60s=\" is the empty list; leave "
                     "the argument out for the default", a.k[i], a.k[i]);
        else if (name_in(a.k[i], rt->needed))
            snprintf(msg, msglen, "%.60s: empty value; it has no default: give one", a.k[i]);
        else
            snprintf(msg, msglen, "%.60s: empty value; leave the argument out for the default",
                     a.k[i]);
        status = 400;
    }
    if (!status && a.n > 1) {
        qsort(a.k, a.n, sizeof *a.k, cmp_key);
        for (size_t i = 1; i < a.n && !status; i++)
            if (strcmp(a.k[i - 1], a.k[i]) == 0) {
                snprintf(msg, msglen, "%.60s: given more than once; give each query argument once",
                         a.k[i]);
                status = 400;
            }
    }
    free(a.k);
    free(a.v);
    return status;
}

/* Refuse a request from its headers: the answer is queued at once, before
 * any of the body is read (libmicrohttpd then reads none of it, and sends
 * no "100 Continue" to a client that waits for one), and the connection
 * closes after it. Reading a refused body first let a slow client that
 * sent no token hold a connection, and its thread, for as long as its
 * body took. What a client sent of its body before it read the answer is
 * drained on the close (cg_linger), so it reads the answer, not a reset. */
static enum MHD_Result refuse(struct MHD_Connection *conn, conn_state *cs, int status, int retry,
                              const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static enum MHD_Result refuse(struct MHD_Connection *conn, conn_state *cs, int status, int retry,
                              const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (cs->body_coming) cg_linger(conn);
    return send_error_ex(conn, cs, status, true, retry, "%s", msg);
}

/* The framing headers as sent (issue 31): libmicrohttpd 0.9.75 keeps a
 * duplicate Content-Length (the first wins) and files "Transfer-Encoding :
 * chunked" under a name with a space in it, where it is ignored -- a proxy
 * reading them otherwise would frame the request differently. */
typedef struct framing {
    int content_length, transfer_encoding, host;
    char bad_name[64];           /* a header name that is not an RFC 9110 token */
} framing;

static bool token_char(unsigned char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

static enum MHD_Result count_framing(void *cls, enum MHD_ValueKind kind, const char *key,
                                     size_t key_size, const char *value, size_t value_size) {
    (void)kind;
    (void)value;
    (void)value_size;
    framing *f = cls;
    if (!key) return MHD_YES;
    for (size_t i = 0; i < key_size; i++)
        if (!token_char((unsigned char)key[i])) {
            if (!f->bad_name[0]) snprintf(f->bad_name, sizeof f->bad_name, "%.*s", (int)key_size, key);
            break;
        }
    if (!f->bad_name[0] && key_size == 0) snprintf(f->bad_name, sizeof f->bad_name, "(empty)");
    if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0) f->content_length++;
    if (strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0) f->transfer_encoding++;
    if (strcasecmp(key, MHD_HTTP_HEADER_HOST) == 0) f->host++;
    return MHD_YES;
}

/* The request target (RFC 9112 3.2): the origin form (/path) as it is; the
 * absolute form (http://host[:port]/path, 3.2.2: a server MUST accept it)
 * as its path, its authority kept in cs->authority; the asterisk form
 * ("*") for OPTIONS. 0, or -1 with the reason in `why`. */
static int read_target(conn_state *cs, const char *url, const char *method, char *why,
                       size_t n) {
    cs->authority[0] = '\0';
    cs->path = url;
    if (url[0] == '/') return 0;
    if (strcmp(url, "*") == 0) {
        if (strcmp(method, "OPTIONS") == 0) return 0;
        snprintf(why, n, "the request target \"*\" is only for OPTIONS");
        return -1;
    }
    size_t sl = strncasecmp(url, "http://", 7) == 0 ? 7 : strncasecmp(url, "https://", 8) == 0 ? 8 : 0;
    if (!sl) {
        snprintf(why, n, "the request target \"%.100s\" is neither a path (/...) nor an absolute "
                 "http URL", url);
        return -1;
    }
    const char *a = url + sl, *slash = strchr(a, '/');
    size_t al = slash ? (size_t)(slash - a) : strlen(a);
    /* userinfo (user@host) is deprecated and a phishing device (RFC 9110 4.2.4) */
    if (al == 0 || al >= sizeof cs->authority || memchr(a, '@', al)) {
        snprintf(why, n, "the request target \"%.100s\" names no host, or a user, or too long a one",
                 url);
        return -1;
    }
    memcpy(cs->authority, a, al);
    cs->authority[al] = '\0';
    cs->path = slash ? slash : "/";
    return 0;
}

static enum MHD_Result guard(http_server *srv, struct MHD_Connection *conn, conn_state *cs,
                             const char *url, const char *method, const char *version) {
    /* framing first: with it in doubt, nothing after the headers can be trusted */
    framing fr = {0};
    MHD_get_connection_values_n(conn, MHD_HEADER_KIND, count_framing, &fr);
    if (fr.bad_name[0])
        return send_error_ex(conn, cs, 400, true, 0,
                             "header name \"%s\" is malformed (no spaces or separators before "
                             "the colon)", fr.bad_name);
    if (fr.content_length > 1 || fr.transfer_encoding > 1)
        return send_error_ex(conn, cs, 400, true, 0, "a request may have one %s header, not %d",
                             fr.content_length > 1 ? "Content-Length" : "Transfer-Encoding",
                             fr.content_length > 1 ? fr.content_length : fr.transfer_encoding);
    const char *te = header(conn, MHD_HTTP_HEADER_TRANSFER_ENCODING);
    const char *cl = header(conn, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (te && strcasecmp(te, "chunked") != 0)
        return send_error_ex(conn, cs, 501, true, 0,
                             "Transfer-Encoding \"%.60s\" is not supported (only chunked)", te);
    if (te && cl)
        return send_error_ex(conn, cs, 400, true, 0,
                             "a request may not have both Content-Length and Transfer-Encoding");
    char why[256];
    if (read_target(cs, url, method, why, sizeof why)) {
        if (te || cl) cg_linger(conn);
        return send_error_ex(conn, cs, 400, true, 0, "%s", why);
    }
    url = cs->path;
    bool head = strcmp(method, "HEAD") == 0;
    bool read_only = head || strcmp(method, "GET") == 0;
    /* POST /api/rta computes an analysis and stores nothing (rta_api.c): the
     * Tasks tab and a sweep's page ask it for the bounds they draw, so it
     * needs what a read needs (the read token, if any), never the write
     * token: README's team section, "reads (every page, every shared link)
     * are open". The checks against other pages (Origin, Content-Type) and
     * the body limits stay a write's. */
    bool computes = !read_only && strcmp(method, "POST") == 0 && strcmp(cs->path, "/api/rta") == 0;
    const char *m = head ? "GET" : method;
    route_lookup(srv, url, m, cs);
    /* 0: a route takes (method, url); 1: the path is known, not the method;
     * 2: no route has the path */
    int rk = cs->route ? 0 : cs->path_known ? 1 : 2;
    bool upload = is_upload_path(url);
    /* a GET needs no body: one is read (up to the JSON cap) and dropped */
    cs->limit = read_only ? HTTP_MAX_JSON_BODY
              : upload   ? srv->cfg.max_body
                         : (srv->cfg.max_body < HTTP_MAX_JSON_BODY ? srv->cfg.max_body
                                                                   : HTTP_MAX_JSON_BODY);
    unsigned long long clen = 0;
    if (cl) {
        char *end;
        errno = 0;
        clen = strtoull(cl, &end, 10);
        if (errno || *end || cl[0] == '-' || !cl[0] || clen > cs->limit) {
            cg_linger(conn);
            return send_error_ex(conn, cs, 413, true, 0,
                                 "request body of %.30s bytes is over the %s limit", cl,
                                 hdr_size_buf(cs->limit).s);
        }
    }
    cs->body_coming = te || clen > 0;
    cs->drop_body = read_only;

    if (atomic_load(&srv->stopping) || (!read_only && atomic_load(&srv->no_writes)))
        return refuse(conn, cs, 503, 5, "the server is stopping; try again shortly");
    /* RFC 9112 3.2: an HTTP/1.1 request without a Host header, or any with
     * more than one, is a 400 (an absolute-form target does not stand in for
     * it in HTTP/1.1); HTTP/1.0 had no Host, so there the absolute form's
     * authority names the server alone, and an origin form without Host
     * names none: a 400 too (RFC 9110 7.2: a client sends one) */
    bool http10 = version && strcmp(version, MHD_HTTP_VERSION_1_0) == 0;
    if (fr.host > 1 || (fr.host == 0 && !(http10 && cs->authority[0])))
        return refuse(conn, cs, 400, 0, "%s",
                      fr.host ? "a request may have one Host header, not several"
                              : "the request has no Host header: name the server in one "
                                "(RFC 9112 3.2)");
    /* a Host, or an absolute-form target's authority (RFC 9112 3.2.2: it,
     * not the Host header, names the server), that names another server:
     * 421, a browser misled by DNS rebinding (issue 16) */
    const char *host = cs->authority[0] ? cs->authority : header(conn, MHD_HTTP_HEADER_HOST);
    if (!host_allowed(srv, host))
        return refuse(conn, cs, 421, 0,
                      "%s \"%.100s\" is not a name this server answers to (it answers IP "
                      "addresses, localhost and the names given with --allow-host)",
                      cs->authority[0] ? "the request target's host" : "Host", host ? host : "");
    const char *nul = NULL;
    MHD_get_connection_values_n(conn, MHD_GET_ARGUMENT_KIND | MHD_HEADER_KIND, find_nul, &nul);
    if (nul)
        return refuse(conn, cs, 400, 0,
                      "%.60s: a NUL byte (%%00) is not allowed in a query argument or header", nul);
    if (is_api(url)) {
        char bad[512];
        int qs = query_check(conn, cs->route, url, m, bad, sizeof bad);
        if (qs == 503) return refuse(conn, cs, 503, 5, "out of memory reading the query; try again");
        if (qs) return refuse(conn, cs, 400, 0, "%s", bad);
    }
    /* --read-token (issue 31): the API's reads need a token too (the read
     * or the write one); /api/health stays open for monitors */
    if ((read_only || computes) && srv->cfg.read_token && *srv->cfg.read_token && is_api(url) &&
        strcmp(url, "/api/health") != 0) {
        const char *auth = header(conn, MHD_HTTP_HEADER_AUTHORIZATION);
        if (!token_ok(srv->cfg.read_token, auth) &&
            !(srv->cfg.token && *srv->cfg.token && token_ok(srv->cfg.token, auth)))
            return refuse(conn, cs, 401, 0, "%s",
                          bearer_sent(auth)
                              ? "this server needs a token for reads: the token sent is not "
                                "its read token nor its write token"
                              : "this server needs a token for reads: send \"Authorization: "
                                "Bearer TOKEN\" (serve --read-token)");
    }
    if (!read_only) {
        if (rk == 1) {
            set_allow(srv, cs, url);
            return refuse(conn, cs, 405, 0, "%s is not allowed on %s", method, url);
        }
        if (rk == 2) {
            if (!is_api(url)) set_allow(srv, cs, url);
            return refuse(conn, cs, is_api(url) ? 404 : 405, 0, "%s %s: %s", method, url,
                          is_api(url) ? "no such API route" : "not allowed");
        }
        const char *origin = header(conn, "Origin");
        const char *site = header(conn, "Sec-Fetch-Site");
        if ((origin && !origin_ok(origin, host)) || (site && strcasecmp(site, "cross-site") == 0))
            return refuse(conn, cs, 403, 0,
                          "cross-origin write refused (Origin \"%.100s\"): only pages served "
                          "by this schedlab may write to it",
                          origin ? origin : "");
        const char *wauth = header(conn, MHD_HTTP_HEADER_AUTHORIZATION);
        if (!computes && srv->cfg.token && *srv->cfg.token && !token_ok(srv->cfg.token, wauth))
            return refuse(conn, cs, 401, 0, "%s",
                          !bearer_sent(wauth)
                              ? "this server needs a token for writes: send \"Authorization: "
                                "Bearer TOKEN\" (serve --token)"
                          : srv->cfg.read_token && *srv->cfg.read_token &&
                                  token_ok(srv->cfg.read_token, wauth)
                              ? "this server needs a token for writes: the token sent is its "
                                "read token, which only reads"
                              : "this server needs a token for writes: the token sent is not "
                                "its write token");
        char mt[96];
        const char *ctype = header(conn, MHD_HTTP_HEADER_CONTENT_TYPE);
        media_type(ctype, mt, sizeof mt);
        /* A write without a body has no type to check: a DELETE (issue
         * 15), or a POST with neither body nor Content-Type (POST
         * /api/sweeps?spec=FILE, `curl -X POST URL`). What the type check
         * keeps out, a cross-site HTML form, always sends a Content-Type,
         * even for an empty form (HTML, form submission: the enctype), and
         * a browser's bodiless cross-site fetch carries its Origin (Fetch,
         * "append a request Origin header": every non-GET/HEAD request),
         * which is 403 above; a typed empty body is checked as before. */
        bool bodiless = !cs->body_coming && (strcmp(m, "DELETE") == 0 || !ctype);
        if (!bodiless && (upload ? !upload_type(mt) : strcmp(mt, "application/json") != 0))
            return refuse(conn, cs, 415, 0,
                          upload ? "Content-Type \"%s\" is not an upload type: send the raw "
                                   "file as application/octet-stream"
                                 : "Content-Type \"%s\": send the JSON as application/json",
                          mt);
        if (cs->body_coming) {
            size_t max = srv->cfg.max_bodies;
            if ((size_t)atomic_fetch_add(&srv->bodies, 1) >= max) {
                atomic_fetch_sub(&srv->bodies, 1);
                return refuse(conn, cs, 503, 5, "%zu uploads are arriving already; try again shortly",
                              max);
            }
            cs->counted_body = true;
        }
    }
    return MHD_YES;
}

static void body_done(conn_state *cs) {
    if (cs->counted_body) {
        atomic_fetch_sub(&cs->srv->bodies, 1);
        cs->counted_body = false;
    }
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_data_size,
                                  void **con_cls) {
    http_server *srv = cls;
    conn_state *cs = *con_cls;
    if (!cs) {
        cs = calloc(1, sizeof *cs);
        if (!cs) return MHD_NO;
        cs->srv = srv;
        cs->path = url;   /* read_target's, once guard has read it */
        *con_cls = cs;
        atomic_fetch_add(&srv->inflight, 1);
        enum MHD_Result g = guard(srv, conn, cs, url, method, version);
        /* the header deadline is met; a body now has its minimum rate */
        cg_headers_done(conn, cs->body_coming && !cs->answered);
        return g;
    }
    if (*upload_data_size) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        cg_body_bytes(conn, n);
        if (cs->drop_body) {
            /* a GET's body: read and dropped (no memory, no disk) up to the cap */
            cs->discarded += n;
            if (cs->discarded <= cs->limit) return MHD_YES;
            return answer_now(conn, cs, 413, "Content Too Large",
                              "request body over the %s limit",
                              hdr_size_buf(cs->limit).s);
        }
        if (cs->answered || cs->io_error) return MHD_YES;   /* discarded */
        if (!cs->body) {
            cs->body = calloc(1, sizeof *cs->body);
            if (!cs->body) return MHD_NO;
            cs->body->fd = -1;
        }
        if (n > cs->limit - cs->body->len) {
            /* the cap, as bytes arrive (chunked bodies have no length to
             * check first): 413 at once, nothing of the body kept; it was
             * read and dropped up to twice the cap first (and a client
             * that sent on past that was cut off unanswered) */
            http_body_free(cs->body);
            cs->body = NULL;
            body_done(cs);
            return answer_now(conn, cs, 413, "Content Too Large",
                              "request body over the %s limit",
                              hdr_size_buf(cs->limit).s);
        }
        if (body_append(srv, cs->body, upload_data, n)) {
            cs->io_errno = errno;
            cs->io_error = true;
            http_body_free(cs->body);
            cs->body = NULL;
        }
        if (cs->body && cs->body->len >= HTTP_TRIM_BYTES) cs->trim = true;
        return MHD_YES;
    }
    if (cs->answered) return MHD_YES;
    cg_handling(conn);
    body_done(cs);
    if (!cs->io_error && cs->body && body_finish(cs->body)) {
        cs->io_errno = errno;
        cs->io_error = true;
    }
    if (cs->io_error) {
        /* the reason, and where: the server's log names the folder (an
         * answer names none), so whoever runs it sees why uploads fail */
        const char *why = cs->io_errno ? strerror(cs->io_errno) : "out of memory";
        fprintf(stderr, "schedlab: %s %s -> 503: cannot keep the request body in %s (TMPDIR): %s\n",
                method, cs->path, srv->tmp_dir, why);
        return send_error_ex(conn, cs, 503, true, 10,
                             "cannot keep the request body in the server's temporary folder: %s",
                             why);
    }
    return dispatch(srv, conn, cs->path, method, cs);
}

/* True at most once a second (CLOCK_MONOTONIC), for the idle work. */
static bool idle_due(http_server *srv) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    long long now = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    long long last = atomic_load(&srv->trimmed_ms);
    return now - last >= 1000 && atomic_compare_exchange_strong(&srv->trimmed_ms, &last, now);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe) {
    (void)toe;
    cg_completed(conn);   /* a refused request's drain (cg_linger) */
    cg_idle(conn);        /* kept alive: idle from now (conn_guard.h) */
    http_server *srv = cls;
    conn_state *cs = *con_cls;
    if (cs) {
        body_done(cs);
        bool trim = cs->trim;
        http_body_free(cs->body);
        free(cs);
        *con_cls = NULL;
        /* When a request leaves none in flight, at most once a second, the
         * application drops what it keeps between requests (on_idle: the
         * pooled connections' page caches) and the allocator hands back
         * everything the last requests left in its per-thread arenas; a big
         * request's memory goes back at once. A server that has answered a
         * burst goes back to its size (issue 24: a fuzz run of 1,200 small
         * requests left 7 MB in the arenas on a loaded machine). */
        if (atomic_fetch_sub(&srv->inflight, 1) == 1 && idle_due(srv)) {
            if (srv->cfg.on_idle) srv->cfg.on_idle(srv->cfg.app);
            trim = true;
        }
#ifdef __GLIBC__
        if (trim) malloc_trim(0);
#else
        (void)trim;
#endif
    }
}

/* libmicrohttpd's messages, to stderr as before, less the ones a client
 * leaving mid-answer causes ("Failed to send the response body for the
 * request for ...: Broken pipe"): a browser that closes a tab during a
 * download is no error of the server's (issue 30), and the log is where an
 * operator looks for real ones. */
static void mhd_log(void *cls, const char *fmt, va_list ap) {
    (void)cls;
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    if (strncmp(buf, "Failed to send ", 15) == 0) return;
    if (closing_answered && strncmp(buf, "Application reported internal error", 35) == 0) {
        closing_answered = false;
        return;
    }
    fputs(buf, stderr);
}

int http_start(const http_config *cfg, http_server **out, char *err, size_t errlen) {
    *out = NULL;
    http_server *srv = calloc(1, sizeof *srv);
    if (!srv) { snprintf(err, errlen, "out of memory"); return -1; }
    srv->cfg = *cfg;
    if (!srv->cfg.max_body) srv->cfg.max_body = HTTP_DEFAULT_MAX_BODY;
    if (!srv->cfg.max_bodies) srv->cfg.max_bodies = HTTP_DEFAULT_MAX_BODIES;
    atomic_init(&srv->inflight, 0);
    atomic_init(&srv->trimmed_ms, 0);
    atomic_init(&srv->bodies, 0);
    atomic_init(&srv->stopping, false);
    atomic_init(&srv->no_writes, false);
    const char *tmp = cfg->tmp_dir;
    if (!tmp || !*tmp) tmp = getenv("TMPDIR");
    srv->tmp_dir = strdup(tmp && *tmp ? tmp : "/tmp");
    /* bodies past HTTP_BODY_RAM are kept there: said at the start, not at
     * the first refused upload */
    if (srv->tmp_dir && access(srv->tmp_dir, W_OK | X_OK) != 0)
        fprintf(stderr, "schedlab: warning: the temporary folder %s (TMPDIR) cannot be written "
                "(%s): uploads and bodies over %zu KiB will be refused with 503\n",
                srv->tmp_dir, strerror(errno), HTTP_BODY_RAM >> 10);
    if (cfg->web_dir) {
        char real[PATH_MAX];
        if (realpath(cfg->web_dir, real)) srv->web_real = strdup(real);
    }
#ifdef __GLIBC__
    /* Big buffers (bodies, responses, batches) as their own mappings, given
     * back on free; few arenas, so worker threads do not each keep a heap. */
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
    mallopt(M_ARENA_MAX, 4);
#endif
    /* One thread per connection (issue 16): a slow handler (a big export,
     * a small scenario simulated at once) then delays only its own client,
     * never /api/health or anyone else's request on the same worker, as a
     * fixed pool of event-loop threads would. HTTP_MAX_CONNECTIONS bounds
     * the threads. cfg->threads is not used in this mode. */
    const char *bind = cfg->bind ? cfg->bind : "127.0.0.1";
    struct sockaddr_storage addr;
    memset(&addr, 0, sizeof addr);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL |
                     MHD_USE_ERROR_LOG | MHD_USE_ITC;
    struct sockaddr_in *a4 = (struct sockaddr_in *)&addr;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&addr;
    if (inet_pton(AF_INET, bind, &a4->sin_addr) == 1) {
        a4->sin_family = AF_INET;
        a4->sin_port = htons(cfg->port);
    } else if (inet_pton(AF_INET6, bind, &a6->sin6_addr) == 1) {
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons(cfg->port);
        flags |= MHD_USE_IPv6;
    } else {
        snprintf(err, errlen, "--bind: \"%s\" is not an IPv4 or IPv6 address", bind);
        free(srv->web_real);
        free(srv->tmp_dir);
        free(srv);
        return -1;
    }
    errno = 0;
    /* libmicrohttpd 0.9.75 (Debian 12's, the newest Debian has): idle
     * connections are closed after HTTP_TIMEOUT_S, at most
     * HTTP_MAX_CONNECTIONS at once (per address: conn_guard.h), and 128 KiB per
     * connection for the request line and headers (the default 32 KiB left
     * some 500 query parameters unanswered). */
    /* issue 31: the deadlines and the per-address limits 0.9.75 lacks are
     * conn_guard.h's (an accept policy, a connection notifier, a watchdog) */
    cg_config gc = {.header_s = cfg->header_s, .idle_s = HTTP_TIMEOUT_S,
                    .min_rate = cfg->min_body_rate,
                    .total = HTTP_MAX_CONNECTIONS,
                    .per_ip = cfg->max_per_address ? cfg->max_per_address : HTTP_PER_ADDRESS,
                    .reserve = HTTP_MAX_CONNECTIONS / 8};
    if (cg_start(&gc)) {
        snprintf(err, errlen, "cannot start the connection watchdog");
        free(srv->web_real);
        free(srv->tmp_dir);
        free(srv);
        return -1;
    }
    srv->d = MHD_start_daemon(flags, cfg->port, cg_accept, NULL, on_request, srv,
                              MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,   /* first, as MHD wants */
                              MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
                              MHD_OPTION_NOTIFY_COMPLETED, on_completed, srv,
                              MHD_OPTION_NOTIFY_CONNECTION, cg_notify, NULL,
                              MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)HTTP_TIMEOUT_S,
                              MHD_OPTION_CONNECTION_LIMIT, (unsigned)HTTP_MAX_CONNECTIONS,
                              MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)128 * 1024,
                              MHD_OPTION_END);
    if (!srv->d) {
        cg_stop();
        snprintf(err, errlen, "cannot listen on %s port %u: %s", bind, (unsigned)cfg->port,
                 errno ? strerror(errno) : "libmicrohttpd refused to start");
        free(srv->web_real);
        free(srv->tmp_dir);
        free(srv);
        return -1;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(srv->d, MHD_DAEMON_INFO_BIND_PORT);
    srv->port = info ? info->port : cfg->port;
    *out = srv;
    return 0;
}

uint16_t http_port(const http_server *s) { return s->port; }

void http_refuse_writes(http_server *s) {
    if (s) atomic_store(&s->no_writes, true);
}

void http_quiesce(http_server *s) {
    if (!s) return;
    atomic_store(&s->stopping, true);
    MHD_socket fd = MHD_quiesce_daemon(s->d);
    if (fd != MHD_INVALID_SOCKET) close(fd);
}

int http_wait_idle(http_server *s, int ms) {
    if (!s) return 0;
    for (int waited = 0; waited < ms; waited += 10) {
        if (atomic_load(&s->inflight) <= 0) return 0;
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return atomic_load(&s->inflight);
}

void http_stop(http_server *s) {
    if (!s) return;
    MHD_stop_daemon(s->d);
    cg_stop();
    free(s->web_real);
    free(s->tmp_dir);
    free(s);
}
