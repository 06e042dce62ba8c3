/* analysis/condag_jsonscan.c — see condag_jsonscan.h.  Accepts exactly RFC
 * 8259 JSON, as jansson does: UTF-8 checked, no control characters or NUL in
 * strings, integers must fit in int64. */
#include <string.h>

#include "condag_jsonscan.h"
#include "internal.h"

ompdag_status jscan_fail(const jscan *s, const char *at, ompdag_error *err, const char *msg)
{
    int line = 1, col = 1;
    for (const char *q = s->base; q < at && q < s->end; ++q, ++col)
        if (*q == '\n') line++, col = 0;
    return ompdag_error_set(err, OMPDAG_ERR_PARSE, "%s:%d:%d: JSON syntax error: %s", s->origin,
                            line, col, msg);
}

void jscan_ws(jscan *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t'))
        s->p++;
}

static bool put(jscan *s, const char *bytes, size_t n)
{
    if (s->scratch_len + n + 1 > s->scratch_cap) {
        size_t cap = s->scratch_cap ? s->scratch_cap : 256;
        while (cap < s->scratch_len + n + 1)
            cap *= 2;
        char *b = realloc(s->scratch, cap);
        if (!b) return false;
        s->scratch = b, s->scratch_cap = cap;
    }
    memcpy(s->scratch + s->scratch_len, bytes, n);
    s->scratch_len += n;
    return true;
}

static int hex4(const char *p)
{
    int v = 0;
    for (int i = 0; i < 4; ++i) {
        char c = p[i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

static size_t utf8_encode(uint32_t cp, char out[4])
{
    if (cp < 0x80) return out[0] = (char)cp, 1;
    if (cp < 0x800) return out[0] = (char)(0xC0 | cp >> 6), out[1] = (char)(0x80 | (cp & 0x3F)), 2;
    if (cp < 0x10000)
        return out[0] = (char)(0xE0 | cp >> 12), out[1] = (char)(0x80 | ((cp >> 6) & 0x3F)),
               out[2] = (char)(0x80 | (cp & 0x3F)), 3;
    out[0] = (char)(0xF0 | cp >> 18), out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Length of the valid UTF-8 sequence at p (0 if invalid): no overlongs, no
 * surrogates, nothing above U+10FFFF. */
static size_t utf8_valid(const unsigned char *p, const unsigned char *end)
{
    unsigned char c = p[0];
    size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
    if (n == 0 || c > 0xF4 || c == 0xC0 || c == 0xC1 || (size_t)(end - p) < n) return 0;
    for (size_t i = 1; i < n; ++i)
        if ((p[i] & 0xC0) != 0x80) return 0;
    if ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] > 0x9F) || (c == 0xF0 && p[1] < 0x90) ||
        (c == 0xF4 && p[1] > 0x8F))
        return 0;
    return n;
}

/* One escape after the backslash at s->p; appends the decoded bytes. */
static ompdag_status string_escape(jscan *s, ompdag_error *err)
{
    const char *at = s->p;
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    if (s->p + 1 >= s->end) return jscan_fail(s, at, err, "unterminated string");
    const char *hit = strchr(from, s->p[1]);
    if (hit && s->p[1]) {
        s->p += 2;
        return put(s, &to[hit - from], 1) ? OMPDAG_OK : OMPDAG_ERR_NOMEM;
    }
    if (s->p[1] != 'u' || s->end - s->p < 6 || hex4(s->p + 2) < 0)
        return jscan_fail(s, at, err, "invalid escape");
    uint32_t cp = (uint32_t)hex4(s->p + 2);
    s->p += 6;
    if (cp >= 0xDC00 && cp <= 0xDFFF)
        return jscan_fail(s, at, err, "invalid Unicode '\\u' escape (lone low surrogate)");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        int lo = s->end - s->p >= 6 && s->p[0] == '\\' && s->p[1] == 'u' ? hex4(s->p + 2) : -1;
        if (lo < 0xDC00 || lo > 0xDFFF)
            return jscan_fail(s, at, err, "invalid Unicode '\\u' escape (unpaired surrogate)");
        cp = 0x10000 + ((cp - 0xD800) << 10) + (uint32_t)(lo - 0xDC00);
        s->p += 6;
    }
    if (cp == 0) return jscan_fail(s, at, err, "\\u0000 is not allowed");
    char buf[4];
    return put(s, buf, utf8_encode(cp, buf)) ? OMPDAG_OK : OMPDAG_ERR_NOMEM;
}

ompdag_status jscan_string(jscan *s, size_t *off, ompdag_error *err)
{
    if (s->p >= s->end || *s->p != '"') return jscan_fail(s, s->p, err, "expected a string");
    const char *start = s->p++;
    *off = s->scratch_len;
    for (;;) {
        const char *run = s->p;
        while (s->p < s->end && *s->p != '"' && *s->p != '\\' && (unsigned char)*s->p >= 0x20 &&
               (unsigned char)*s->p < 0x80)
            s->p++;
        if (s->p > run && !put(s, run, (size_t)(s->p - run)))
            return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
        if (s->p >= s->end) return jscan_fail(s, start, err, "unterminated string");
        unsigned char c = (unsigned char)*s->p;
        if (c == '"') {
            s->p++;
            break;
        }
        ompdag_status st = OMPDAG_OK;
        if (c == '\\') {
            st = string_escape(s, err);
        } else if (c < 0x20) {
            st = jscan_fail(s, s->p, err, "control character in string");
        } else {
            size_t n = utf8_valid((const unsigned char *)s->p, (const unsigned char *)s->end);
            if (!n) return jscan_fail(s, s->p, err, "invalid UTF-8 in string");
            st = put(s, s->p, n) ? OMPDAG_OK : OMPDAG_ERR_NOMEM;
            s->p += n;
        }
        if (st) return st == OMPDAG_ERR_NOMEM ? ompdag_error_set(err, st, "out of memory") : st;
    }
    if (!put(s, "", 0)) /* reserves room for the terminator, even for "" */
        return ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
    s->scratch[s->scratch_len++] = '\0';
    return OMPDAG_OK;
}

static bool is_digit(const jscan *s)
{
    return s->p < s->end && *s->p >= '0' && *s->p <= '9';
}

ompdag_status jscan_number(jscan *s, bool *is_int, int64_t *value, ompdag_error *err)
{
    const char *start = s->p;
    bool neg = s->p < s->end && *s->p == '-';
    s->p += neg;
    if (!is_digit(s)) return jscan_fail(s, start, err, "invalid number");
    uint64_t mag = 0;
    bool overflow = false;
    if (*s->p == '0') {
        s->p++;
    } else {
        for (; is_digit(s); s->p++) {
            overflow |= __builtin_mul_overflow(mag, 10, &mag) ||
                        __builtin_add_overflow(mag, (uint64_t)(*s->p - '0'), &mag);
        }
    }
    *is_int = true;
    if (s->p < s->end && *s->p == '.') {
        s->p++;
        if (!is_digit(s)) return jscan_fail(s, start, err, "invalid number");
        while (is_digit(s))
            s->p++;
        *is_int = false;
    }
    if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
        s->p++;
        if (s->p < s->end && (*s->p == '+' || *s->p == '-')) s->p++;
        if (!is_digit(s)) return jscan_fail(s, start, err, "invalid number");
        while (is_digit(s))
            s->p++;
        *is_int = false;
    }
    if (*is_int && (overflow || mag > (uint64_t)INT64_MAX + neg))
        return jscan_fail(s, start, err, "too big integer");
    *value = *is_int ? (neg ? (int64_t)(0 - mag) : (int64_t)mag) : 0;
    return OMPDAG_OK;
}

static ompdag_status scan_scalar(jscan *s, ompdag_error *err)
{
    static const char *const literals[] = {"true", "false", "null"};
    if (s->p >= s->end) return jscan_fail(s, s->p, err, "unexpected end of input");
    if (*s->p == '"') {
        size_t mark = s->scratch_len, off;
        ompdag_status st = jscan_string(s, &off, err);
        s->scratch_len = mark; /* skipped strings are not kept */
        return st;
    }
    for (int i = 0; i < 3; ++i) {
        size_t n = strlen(literals[i]);
        if ((size_t)(s->end - s->p) >= n && !memcmp(s->p, literals[i], n)) {
            s->p += n;
            return OMPDAG_OK;
        }
    }
    bool is_int;
    int64_t v;
    return jscan_number(s, &is_int, &v, err);
}

/* After a value inside containers: consumes ',' (and the next key) or closers.
 * Returns 1 when a value must follow, 0 when the outermost container closed. */
static int after_value(jscan *s, char *stack, size_t *depth, ompdag_error *err, ompdag_status *st)
{
    while (*depth) {
        jscan_ws(s);
        char top = stack[*depth - 1];
        if (s->p < s->end && *s->p == ',') {
            s->p++;
            if (top == '{') {
                jscan_ws(s);
                size_t mark = s->scratch_len, off;
                if ((*st = jscan_string(s, &off, err))) return -1;
                s->scratch_len = mark;
                jscan_ws(s);
                if (s->p >= s->end || *s->p != ':')
                    return *st = jscan_fail(s, s->p, err, "expected ':'"), -1;
                s->p++;
            }
            return 1;
        }
        if (s->p < s->end && *s->p == (top == '{' ? '}' : ']')) {
            s->p++;
            (*depth)--;
            continue;
        }
        *st = jscan_fail(s, s->p, err, top == '{' ? "expected ',' or '}'" : "expected ',' or ']'");
        return -1;
    }
    return 0;
}

ompdag_status jscan_skip_value(jscan *s, ompdag_error *err)
{
    char *stack = NULL;
    size_t depth = 0, cap = 0;
    ompdag_status st = OMPDAG_OK;
    for (;;) {
        jscan_ws(s);
        if (s->p < s->end && (*s->p == '{' || *s->p == '[')) {
            char open = *s->p++;
            jscan_ws(s);
            if (s->p < s->end && *s->p == (open == '{' ? '}' : ']')) {
                s->p++;
            } else {
                if (depth == cap) {
                    char *ns = realloc(stack, cap = cap ? cap * 2 : 16);
                    if (!ns) {
                        st = ompdag_error_set(err, OMPDAG_ERR_NOMEM, "out of memory");
                        break;
                    }
                    stack = ns;
                }
                stack[depth++] = open;
                if (open == '{') {
                    size_t mark = s->scratch_len, off;
                    if ((st = jscan_string(s, &off, err))) break;
                    s->scratch_len = mark;
                    jscan_ws(s);
                    if (s->p >= s->end || *s->p != ':') {
                        st = jscan_fail(s, s->p, err, "expected ':'");
                        break;
                    }
                    s->p++;
                }
                continue;
            }
        } else if ((st = scan_scalar(s, err))) {
            break;
        }
        int more = after_value(s, stack, &depth, err, &st);
        if (more <= 0) break;
    }
    free(stack);
    return st;
}
