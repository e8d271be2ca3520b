#ifndef SY_SIMDJSON_H
#define SY_SIMDJSON_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Parses every line of an NDJSON buffer with simdjson's DOM parser, one record at a time on one
/// thread (the floor for "parse only"). `buf` must stay readable for 64 bytes past `len`
/// (simdjson's padding). Returns the number of lines parsed; `*valid` gets the number that were
/// valid JSON, `*checksum` the sum of their tape sizes (so the work cannot be optimised away).
size_t sy_simdjson_parse_lines(const char *buf, size_t len, size_t *valid, size_t *checksum);

/// The padding simdjson needs after the input.
size_t sy_simdjson_padding(void);

#ifdef __cplusplus
}
#endif

#endif
