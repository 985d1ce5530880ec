/* http.c -- libmicrohttpd glue: routing, bodies, static files. See http.h. */
#include "http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct http_server {
    struct MHD_Daemon *d;
    http_config cfg;
    char *web_real;              /* realpath of the web folder, or NULL */
    uint16_t port;
};

/* Per-connection state while a request body arrives. */
typedef struct conn_state {
    char *body;
    size_t len, cap;
    bool too_large;
} conn_state;

/* ---- responses ------------------------------------------------------------------ */

void http_set_json(http_response *res, int status, json_t *body) {
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
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    http_set_json(res, status, json_pack("{s:o}", "error", tj_string(msg)));
}

void http_set_buf(http_response *res, int status, tj_buf *buf, const char *content_type) {
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

static enum MHD_Result send_response(struct MHD_Connection *conn, http_response *res) {
    struct MHD_Response *r = MHD_create_response_from_buffer(res->len, res->body ? res->body : (void *)"",
                                                             res->body ? MHD_RESPMEM_MUST_FREE
                                                                       : MHD_RESPMEM_PERSISTENT);
    if (!r) {
        free(res->body);
        return MHD_NO;
    }
    res->body = NULL;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
                            res->content_type ? res->content_type : "application/json");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL,
                            res->cache_control ? res->cache_control : "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    if (res->disposition[0])
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_DISPOSITION, res->disposition);
    enum MHD_Result ret = MHD_queue_response(conn, (unsigned)res->status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result send_error(struct MHD_Connection *conn, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static enum MHD_Result send_error(struct MHD_Connection *conn, int status, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    http_response res = {0};
    http_set_error(&res, status, "%s", msg);
    return send_response(conn, &res);
}

/* ---- static files ---------------------------------------------------------------- */

static bool is_page(const char *path) {
    return strcmp(path, "/") == 0 || strcmp(path, "/index.html") == 0 ||
           strncmp(path, "/experiments/", 13) == 0 || strncmp(path, "/runs/", 6) == 0 ||
           strcmp(path, "/compare") == 0 || strncmp(path, "/compare/", 9) == 0 ||
           strcmp(path, "/experiments") == 0;
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

static enum MHD_Result serve_file(http_server *srv, struct MHD_Connection *conn,
                                  const char *path) {
    const char *rel = is_page(path) ? "/index.html" : path;
    if (!srv->web_real) return send_error(conn, 404, "no web folder: %s", path);
    if (!safe_path(rel)) return send_error(conn, 403, "%s: path outside the web folder", path);
    char full[PATH_MAX], real[PATH_MAX];
    if ((size_t)snprintf(full, sizeof full, "%s%s", srv->web_real, rel) >= sizeof full)
        return send_error(conn, 404, "no such page or file: %s", path);
    size_t wl = strlen(srv->web_real);
    if (!realpath(full, real) || strncmp(real, srv->web_real, wl) != 0 || real[wl] != '/')
        return send_error(conn, 404, "no such page or file: %s", path);
    int fd = open(real, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0) close(fd);
        return send_error(conn, 404, "no such page or file: %s", path);
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
    if (ims && strcmp(ims, modified) == 0) {
        close(fd);
        r = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
        status = MHD_HTTP_NOT_MODIFIED;
    } else {
        r = MHD_create_response_from_fd64((uint64_t)st.st_size, fd);   /* MHD closes fd */
        status = MHD_HTTP_OK;
    }
    if (!r) {
        if (status == MHD_HTTP_OK) close(fd);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, http_mime_type(rel));
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL,
                            vendor ? "public, max-age=86400" : "no-cache");
    MHD_add_response_header(r, MHD_HTTP_HEADER_LAST_MODIFIED, modified);
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
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

static enum MHD_Result dispatch(http_server *srv, struct MHD_Connection *conn, const char *url,
                                const char *method, conn_state *cs) {
    bool head = strcmp(method, "HEAD") == 0;
    const char *m = head ? "GET" : method;
    char buf[1024];
    http_request req = {.method = m, .path = url, .conn = conn,
                        .body = cs->body, .body_len = cs->len};
    bool path_known = false;
    for (size_t i = 0; i < srv->cfg.nroutes; i++) {
        const http_route *rt = &srv->cfg.routes[i];
        if (!match(rt->pattern, url, buf, sizeof buf, req.params, &req.nparams)) continue;
        path_known = true;
        if (strcmp(rt->method, m) != 0) continue;
        http_response res = {.status = 500};
        rt->fn(srv->cfg.app, &req, &res);
        if (res.status >= 500)
            fprintf(stderr, "schedlab: %s %s -> %d %.*s\n", method, url, res.status,
                    (int)(res.len < 300 ? res.len : 300), res.body ? res.body : "");
        return send_response(conn, &res);
    }
    if (path_known) return send_error(conn, 405, "%s is not allowed on %s", method, url);
    if (strncmp(url, "/api/", 5) == 0 || strcmp(url, "/api") == 0)
        return send_error(conn, 404, "no such API route: %s %s", method, url);
    if (strcmp(m, "GET") != 0) return send_error(conn, 405, "%s is not allowed on %s", method, url);
    return serve_file(srv, conn, url);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_data_size,
                                  void **con_cls) {
    (void)version;
    http_server *srv = cls;
    conn_state *cs = *con_cls;
    size_t max = srv->cfg.max_body ? srv->cfg.max_body : HTTP_DEFAULT_MAX_BODY;
    if (!cs) {
        cs = calloc(1, sizeof *cs);
        if (!cs) return MHD_NO;
        *con_cls = cs;
        /* refuse a declared oversize body before reading any of it */
        const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                                     MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl && strtoull(cl, NULL, 10) > max)
            return send_error(conn, 413, "request body of %s bytes is over the %zu MiB limit",
                              cl, max >> 20);
        return MHD_YES;
    }
    if (*upload_data_size) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        if (cs->too_large || n > max - cs->len) {
            cs->too_large = true;
            return MHD_YES;
        }
        if (cs->len + n + 1 > cs->cap) {
            size_t nc = cs->cap ? cs->cap : 65536;
            while (nc < cs->len + n + 1) nc *= 2;
            char *nb = realloc(cs->body, nc);
            if (!nb) return MHD_NO;
            cs->body = nb;
            cs->cap = nc;
        }
        memcpy(cs->body + cs->len, upload_data, n);
        cs->len += n;
        cs->body[cs->len] = '\0';
        return MHD_YES;
    }
    if (cs->too_large)
        return send_error(conn, 413, "request body over the %zu MiB limit", max >> 20);
    return dispatch(srv, conn, url, method, cs);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe) {
    (void)cls;
    (void)conn;
    (void)toe;
    conn_state *cs = *con_cls;
    if (cs) {
        free(cs->body);
        free(cs);
        *con_cls = NULL;
    }
}

int http_start(const http_config *cfg, http_server **out, char *err, size_t errlen) {
    *out = NULL;
    http_server *srv = calloc(1, sizeof *srv);
    if (!srv) { snprintf(err, errlen, "out of memory"); return -1; }
    srv->cfg = *cfg;
    if (cfg->web_dir) {
        char real[PATH_MAX];
        if (realpath(cfg->web_dir, real)) srv->web_real = strdup(real);
    }
    unsigned threads = cfg->threads;
    if (!threads) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n < 2 ? 2 : n > 16 ? 16 : (unsigned)n;
    }
    const char *bind = cfg->bind ? cfg->bind : "127.0.0.1";
    struct sockaddr_storage addr;
    memset(&addr, 0, sizeof addr);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL_LINUX_ONLY | MHD_USE_ERROR_LOG;
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
        free(srv);
        return -1;
    }
    errno = 0;
    srv->d = MHD_start_daemon(flags, cfg->port, NULL, NULL, on_request, srv,
                              MHD_OPTION_THREAD_POOL_SIZE, threads,
                              MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
                              MHD_OPTION_NOTIFY_COMPLETED, on_completed, srv,
                              MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)300,
                              MHD_OPTION_END);
    if (!srv->d) {
        snprintf(err, errlen, "cannot listen on %s port %u: %s", bind, (unsigned)cfg->port,
                 errno ? strerror(errno) : "libmicrohttpd refused to start");
        free(srv->web_real);
        free(srv);
        return -1;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(srv->d, MHD_DAEMON_INFO_BIND_PORT);
    srv->port = info ? info->port : cfg->port;
    *out = srv;
    return 0;
}

uint16_t http_port(const http_server *s) { return s->port; }

void http_stop(http_server *s) {
    if (!s) return;
    MHD_stop_daemon(s->d);
    free(s->web_real);
    free(s);
}
