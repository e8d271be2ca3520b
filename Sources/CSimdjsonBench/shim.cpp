// simdjson as the benchmark's floor: DOM parse of each NDJSON line, nothing else.
#include "sy_simdjson.h"

#include <cstring>
#include <simdjson.h>

extern "C" size_t sy_simdjson_padding(void) { return simdjson::SIMDJSON_PADDING; }

extern "C" size_t sy_simdjson_parse_lines(const char *buf, size_t len, size_t *valid, size_t *checksum) {
    static thread_local simdjson::dom::parser parser;
    size_t lines = 0, ok = 0, sum = 0;
    const char *p = buf;
    const char *end = buf + len;
    while (p < end) {
        const char *nl = static_cast<const char *>(memchr(p, '\n', size_t(end - p)));
        size_t n = nl ? size_t(nl - p) : size_t(end - p);
        if (n > 0) {
            lines++;
            // The bytes after each line (the next lines, then the caller's padding) are readable:
            // no copy needed.
            simdjson::dom::element doc;
            if (parser.parse(reinterpret_cast<const uint8_t *>(p), n, false).get(doc) == simdjson::SUCCESS) {
                ok++;
                sum += doc.is_object() ? 1 : 0;
            }
        }
        p += n + 1;
    }
    *valid = ok;
    *checksum = sum;
    return lines;
}
