/* schedlab_trace.c -- schedlab's own trace JSON, as `schedlab export`
 * writes it (DESIGN §5; docs/trace-format.md): detected here like every
 * format, read by the server's trace JSON reader (server/trace_json.c,
 * tj_parse_trace), which shares its JSON reader with the scenarios, out of
 * the importers' reach (they use simcore/trace.h only). So its descriptor
 * has no reader: imp_import refuses it with a message saying so, and the
 * server's store (server/store.c) reads it itself. */
#include "archive.h"
#include "formats.h"

/* a JSON object naming "schedlab-trace/1" near its top */
static bool detect(const imp_file *f) {
    bool schema;
    return imp_archive_detect(f->data, f->len) == IMP_ARCHIVE_NONE &&
           imp_sniff_json_object(f->data, f->len, &schema) && schema;
}

const imp_importer imp_schedlab_trace_format = {
    .name = "schedlab-trace",
    .hint = "schedlab's own trace JSON (schedlab export)",
    .detect = detect,
};
