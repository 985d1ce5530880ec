/* detect.c -- the content sniffers behind the formats' detect functions
 * (formats.h). The text formats share one scan: an nvprof log may start
 * with application output, so its markers are looked for down to line 200,
 * while a globaltimer CSV is decided by its first significant line; which
 * format a file is depends on which comes first, so one loop decides both. */
#include "archive.h"
#include "formats.h"
#include "sqlite_util.h"

#include <string.h>

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

bool imp_nvprof_header_line(const char *s, size_t len) {
    bool start = false, duration = false;
    size_t a = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && s[i] != ',') continue;
        size_t b = i;
        while (a < b && (s[a] == ' ' || s[a] == '\t')) a++;
        while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\r')) b--;
        if (b - a >= 2 && s[a] == '"' && s[b - 1] == '"') {
            a++;
            b--;
        }
        if (b - a == 5 && memcmp(s + a, "Start", 5) == 0) start = true;
        if (b - a == 8 && memcmp(s + a, "Duration", 8) == 0) duration = true;
        a = i + 1;
    }
    return start && duration;
}

/* nvprof's live preamble is "==<pid>== ", its import-mode one "======== ". */
static bool nvprof_marker(const char *s, size_t len) {
    if (has_prefix(s, len, "\"Start\",") || has_prefix(s, len, "Start,\"Duration\"") ||
        imp_nvprof_header_line(s, len))
        return true;
    if (!has_prefix(s, len, "==")) return false;
    size_t i = 2;
    while (i < len && ((s[i] >= '0' && s[i] <= '9') || s[i] == '=')) i++;
    return i >= 4 && s[i - 1] == '=' && s[i - 2] == '=';
}

/* past a UTF-8 BOM and white space */
static size_t skip_space(const unsigned char *d, size_t len) {
    size_t pos = 0;
    if (len >= 3 && d[0] == 0xEF && d[1] == 0xBB && d[2] == 0xBF) pos = 3;
    while (pos < len && (d[pos] == ' ' || d[pos] == '\t' || d[pos] == '\r' || d[pos] == '\n'))
        pos++;
    return pos;
}

bool imp_sniff_json_object(const unsigned char *d, size_t len, bool *schema) {
    *schema = false;
    if (!d) return false;
    size_t pos = skip_space(d, len);
    if (!(pos < len && d[pos] == '{')) return false;
    /* our own trace names its schema near the top ("schema" is the first
     * key `export` writes); examiner results are other objects */
    size_t scan = len - pos < 4096 ? len - pos : 4096;
    static const char name[] = "\"schedlab-trace/1\"";
    for (size_t i = pos; i + sizeof name - 1 <= pos + scan; i++)
        if (memcmp(d + i, name, sizeof name - 1) == 0) {
            *schema = true;
            break;
        }
    return true;
}

imp_format imp_sniff_text(const unsigned char *d, size_t len) {
    bool schema;
    if (!d || imp_sql_is_sqlite(d, len) || imp_archive_detect(d, len) != IMP_ARCHIVE_NONE ||
        imp_sniff_json_object(d, len, &schema))
        return IMP_UNKNOWN;
    size_t pos = skip_space(d, len);

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
    return IMP_UNKNOWN;
}

