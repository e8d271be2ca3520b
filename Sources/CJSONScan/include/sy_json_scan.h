// Byte scanning for Switchyard's JSON fast path: sixteen bytes per step with SSE2 where the target has it.
// Header-only (static inline) so that Swift inlines it into the reader and the writer.
#ifndef SY_JSON_SCAN_H
#define SY_JSON_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/// The number of leading bytes of `p[0..<n]` before the first `"`, `\`, control character (< 0x20) or,
/// when `stop_at_non_ascii`, byte >= 0x80. Inlined with a constant flag, it compiles to one loop each.
static inline size_t sy_json_scan(const uint8_t *p, size_t n, int stop_at_non_ascii) {
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i space = _mm_set1_epi8(0x20);
    const __m128i control_max = _mm_set1_epi8(0x1F);
    while (i + 16 <= n) {
        __m128i v = _mm_loadu_si128((const __m128i *)(p + i));
        // Signed v < 0x20 catches control characters and bytes >= 0x80 (negative); unsigned v <= 0x1F
        // (max(v, 0x1F) == 0x1F) catches control characters only.
        __m128i low = stop_at_non_ascii ? _mm_cmplt_epi8(v, space) : _mm_cmpeq_epi8(_mm_max_epu8(v, control_max), control_max);
        __m128i special = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)), low);
        unsigned mask = (unsigned)_mm_movemask_epi8(special);
        if (mask != 0) return i + (size_t)__builtin_ctz(mask);
        i += 16;
    }
#endif
    // Eight bytes at a time (exact for the lowest flagged byte: borrows only run upwards from one).
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    while (i + 8 <= n) {
        uint64_t w;
        __builtin_memcpy(&w, p + i, 8);
        uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
        uint64_t special = (((q - ones) & ~q) | ((b - ones) & ~b) | ((w - ones * 0x20) & ~w) | (stop_at_non_ascii ? w : 0)) & highs;
        if (special != 0) return i + (size_t)(__builtin_ctzll(special) >> 3);
        i += 8;
    }
    while (i < n) {
        uint8_t c = p[i];
        if (c == '"' || c == '\\' || c < 0x20 || (stop_at_non_ascii && c >= 0x80)) return i;
        i += 1;
    }
    return n;
}

/// The number of leading bytes of `p[0..<n]` that a JSON string may hold as they are, without a look:
/// not `"`, `\`, a control character, or a non-ASCII byte (which needs UTF-8 validation).
static inline size_t sy_json_plain_prefix(const uint8_t *p, size_t n) { return sy_json_scan(p, n, 1); }

/// The number of leading bytes of `p[0..<n]` that a JSON string writer copies as they are: not `"`, `\`
/// and not a control character. UTF-8 bytes (>= 0x80) are copied as they are.
static inline size_t sy_json_unescaped_prefix(const uint8_t *p, size_t n) { return sy_json_scan(p, n, 0); }

/// Copies `n` bytes (the writer's keys and short strings) with a few overlapping loads and stores instead of
/// a `memcpy` call; longer copies call `memcpy`.
static inline void sy_copy(uint8_t *d, const uint8_t *s, size_t n) {
    if (n > 32) {
        memcpy(d, s, n);
    } else if (n >= 16) {
#if defined(__SSE2__)
        __m128i a = _mm_loadu_si128((const __m128i *)s), b = _mm_loadu_si128((const __m128i *)(s + n - 16));
        _mm_storeu_si128((__m128i *)d, a);
        _mm_storeu_si128((__m128i *)(d + n - 16), b);
#else
        memcpy(d, s, n);
#endif
    } else if (n >= 8) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        memcpy(d, &a, 4);
        memcpy(d + n - 4, &b, 4);
    } else {
        for (size_t i = 0; i < n; i++) d[i] = s[i];
    }
}

#endif
