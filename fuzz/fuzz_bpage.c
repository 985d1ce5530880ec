/* fuzz_bpage.c -- libFuzzer harness for the block page codec
 * (db/bpage_codec.c): every window and export decodes page blobs read from
 * a database file, which may be damaged or foreign. The first byte is the
 * block count asked for (1..256), the rest the page's bytes. Every input
 * must either be refused (-1) or decode to blocks that encode back to the
 * very same bytes (one encoding per page). The same bytes read as raw
 * blocks must round-trip through encode and decode unchanged. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BPAGE_CODEC_ONLY
#include "../db/bpage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static trace_block blocks[BPAGE_BLOCKS], back[BPAGE_BLOCKS];
static uint8_t enc[BPAGE_BLOCKS * BPAGE_MAX_BLOCK_BYTES];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len) {
    if (len < 1) return 0;
    size_t n = (size_t)data[0] + 1;
    if (bpage_decode(data + 1, len - 1, n, blocks) == 0) {
        size_t m = bpage_encode(blocks, n, enc);
        if (m != len - 1 || memcmp(enc, data + 1, m) != 0) abort();
    }
    size_t nb = (len - 1) / sizeof(trace_block);
    if (nb > BPAGE_BLOCKS) nb = BPAGE_BLOCKS;
    memcpy(blocks, data + 1, nb * sizeof(trace_block));
    size_t m = bpage_encode(blocks, nb, enc);
    if (m > nb * BPAGE_MAX_BLOCK_BYTES) abort();
    if (bpage_decode(enc, m, nb, back) != 0) abort();
    for (size_t i = 0; i < nb; i++)
        if (back[i].kernel != blocks[i].kernel || back[i].index != blocks[i].index ||
            back[i].sm != blocks[i].sm || back[i].start != blocks[i].start ||
            back[i].end != blocks[i].end)
            abort();
    return 0;
}
