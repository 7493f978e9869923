/* The compiled core of `afp aggregate`'s OTLP fast path (agentbisect/importers/otlp_native.py).
 *
 * One job: read an OTLP/JSON trace of one flat run (a root span and its direct children: LLM
 * calls, tool calls, retrievals, other spans) in the current GenAI conventions and return the
 * facts the aggregate shows, applying the same source rules as the Python fast path (otlp_sources.py) for
 * the cases it handles -- without making a Python object per JSON value. Anything outside that
 * subset, or anything malformed, is declined (the function returns None) and the caller takes
 * the Python fast path, which declines in turn to the full import. Declining is always correct,
 * so this file is strict: when in doubt, it declines.
 *
 * Every text rule whose semantics are Python's (clean, split_paragraphs, the system-instruction
 * parts, a value shown as JSON, a retrieval's documents) is called back in Python through the
 * helpers the caller passes, memoized, so those rules have one definition (importers/texts.py);
 * texts compared as the Python walk compares them (lines, substrings) are Python strs.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#define OK 0
#define BAIL 1
#define ERR (-1)
#define REDO 2 /* the spans are not in start order: read them again into a table */
#define TRY(x)                 \
    do {                       \
        int _r = (x);          \
        if (_r != OK) return _r; \
    } while (0)

#define MAX_DEPTH 48
/* texts.MIN_DOC_CHARS: shorter document texts are too common to say which input part quotes
 * them (a test holds the two equal) */
#define MIN_DOC_CHARS 20
/* {"traceId":"<32>","spanId":"<16>","kind":1,"startTimeUnixNano":1,"endTimeUnixNano":1} */
#define MIN_SPAN_BYTES 90
#define MAX_COUNT (((int64_t)1) << 53)

/* ------------------------------------------------------------------ attribute keys */

/* Where a span's attribute values are kept (otlp_typed's slots); S_UNREAD is checked and
 * dropped. */
enum {
    S_OP, S_REQ_MODEL, S_RESP_MODEL, S_T_IN, S_T_OUT, S_FINISH, S_SYSTEM, S_INPUT, S_OUTPUT,
    S_TOOL_NAME, S_CALL_ID, S_RESULT, S_AGENT_NAME, S_GEN_AI_SYSTEM, S_DATA_SOURCE, S_DOCUMENTS,
    S_UNREAD, N_KEPT = S_UNREAD
};
enum { V_STR, V_RAWSTR, V_INT, V_CHECKEDINT, V_DBL, V_BOOL, V_REASONS };

typedef struct {
    const char *key;
    int slot;
    int kind;
} KeyDef;

/* Mirrors otlp_typed.READ and UNREAD_KEYS (a test holds the lists equal). */
static const KeyDef KEYS[] = {
    {"gen_ai.operation.name", S_OP, V_STR},
    {"gen_ai.request.model", S_REQ_MODEL, V_STR},
    {"gen_ai.response.model", S_RESP_MODEL, V_STR},
    {"gen_ai.usage.input_tokens", S_T_IN, V_INT},
    {"gen_ai.usage.output_tokens", S_T_OUT, V_INT},
    {"gen_ai.response.finish_reasons", S_FINISH, V_REASONS},
    {"gen_ai.system_instructions", S_SYSTEM, V_RAWSTR},
    {"gen_ai.input.messages", S_INPUT, V_RAWSTR},
    {"gen_ai.output.messages", S_OUTPUT, V_RAWSTR},
    {"gen_ai.tool.name", S_TOOL_NAME, V_STR},
    {"gen_ai.tool.call.id", S_CALL_ID, V_STR},
    {"gen_ai.tool.call.result", S_RESULT, V_RAWSTR},
    {"gen_ai.agent.name", S_AGENT_NAME, V_STR},
    {"gen_ai.system", S_GEN_AI_SYSTEM, V_STR},
    {"gen_ai.data_source.id", S_DATA_SOURCE, V_STR},
    {"gen_ai.retrieval.documents", S_DOCUMENTS, V_RAWSTR},
    {"gen_ai.provider.name", S_UNREAD, V_STR},
    {"gen_ai.retrieval.query.text", S_UNREAD, V_STR},
    {"gen_ai.tool.type", S_UNREAD, V_STR},
    {"gen_ai.tool.description", S_UNREAD, V_STR},
    {"gen_ai.tool.call.arguments", S_UNREAD, V_STR},
    {"gen_ai.response.id", S_UNREAD, V_STR},
    {"gen_ai.conversation.id", S_UNREAD, V_STR},
    {"gen_ai.agent.id", S_UNREAD, V_STR},
    {"gen_ai.agent.description", S_UNREAD, V_STR},
    {"gen_ai.output.type", S_UNREAD, V_STR},
    {"gen_ai.openai.request.service_tier", S_UNREAD, V_STR},
    {"gen_ai.openai.response.service_tier", S_UNREAD, V_STR},
    {"gen_ai.openai.response.system_fingerprint", S_UNREAD, V_STR},
    {"openai.request.service_tier", S_UNREAD, V_STR},
    {"openai.response.service_tier", S_UNREAD, V_STR},
    {"openai.response.system_fingerprint", S_UNREAD, V_STR},
    {"server.address", S_UNREAD, V_STR},
    {"error.type", S_UNREAD, V_STR},
    {"server.port", S_UNREAD, V_CHECKEDINT},
    {"gen_ai.request.max_tokens", S_UNREAD, V_CHECKEDINT},
    {"gen_ai.request.seed", S_UNREAD, V_CHECKEDINT},
    {"gen_ai.request.choice.count", S_UNREAD, V_CHECKEDINT},
    {"gen_ai.request.temperature", S_UNREAD, V_DBL},
    {"gen_ai.request.top_p", S_UNREAD, V_DBL},
    {"gen_ai.request.top_k", S_UNREAD, V_DBL},
    {"gen_ai.request.frequency_penalty", S_UNREAD, V_DBL},
    {"gen_ai.request.presence_penalty", S_UNREAD, V_DBL},
    {"gen_ai.request.stream", S_UNREAD, V_BOOL},
};
#define N_KEYS ((int)(sizeof(KEYS) / sizeof(KEYS[0])))
#define HASH_SIZE 256
static int key_table[HASH_SIZE]; /* index into KEYS + 1; 0 = empty */

static uint32_t fnv(const char *p, Py_ssize_t n) {
    uint32_t h = 2166136261u;
    for (Py_ssize_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 16777619u;
    return h;
}

static void build_key_table(void) {
    memset(key_table, 0, sizeof(key_table));
    for (int i = 0; i < N_KEYS; i++) {
        uint32_t h = fnv(KEYS[i].key, (Py_ssize_t)strlen(KEYS[i].key)) & (HASH_SIZE - 1);
        while (key_table[h]) h = (h + 1) & (HASH_SIZE - 1);
        key_table[h] = i + 1;
    }
}

static const KeyDef *find_key(const char *p, Py_ssize_t n) {
    uint32_t h = fnv(p, n) & (HASH_SIZE - 1);
    while (key_table[h]) {
        const KeyDef *k = &KEYS[key_table[h] - 1];
        if ((Py_ssize_t)strlen(k->key) == n && memcmp(k->key, p, (size_t)n) == 0) return k;
        h = (h + 1) & (HASH_SIZE - 1);
    }
    return NULL;
}

/* ------------------------------------------------------------------ JSON scanning */

typedef struct {
    const unsigned char *p, *end;
} Cur;

/* A JSON string as found: its bytes between the quotes, and whether it holds escapes. */
typedef struct {
    const unsigned char *p;
    uint32_t n; /* (a longer string is declined) */
    uint32_t esc;
} Str;

static inline __attribute__((always_inline)) void ws(Cur *c) {
    while (c->p < c->end) {
        unsigned char b = *c->p;
        if (b == ' ' || b == '\n' || b == '\r' || b == '\t')
            c->p++;
        else
            break;
    }
}

static inline __attribute__((always_inline)) int expect(Cur *c, unsigned char ch) {
    ws(c);
    if (c->p >= c->end || *c->p != ch) return BAIL;
    c->p++;
    return OK;
}

static inline __attribute__((always_inline)) int peek(Cur *c) {
    ws(c);
    return c->p < c->end ? *c->p : -1;
}

static int hex4(const unsigned char *p, const unsigned char *end, unsigned *out) {
    if (end - p < 4) return BAIL;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char b = p[i];
        v <<= 4;
        if (b >= '0' && b <= '9')
            v |= b - '0';
        else if (b >= 'a' && b <= 'f')
            v |= b - 'a' + 10;
        else if (b >= 'A' && b <= 'F')
            v |= b - 'A' + 10;
        else
            return BAIL;
    }
    *out = v;
    return OK;
}

/* Length of a valid UTF-8 sequence at p (no overlongs, no surrogates, <= U+10FFFF), or 0. */
static inline int utf8_len(const unsigned char *p, const unsigned char *end) {
    unsigned char b = p[0];
    if (b < 0xC2) return 0;
    if (b < 0xE0) {
        if (end - p < 2 || (p[1] & 0xC0) != 0x80) return 0;
        return 2;
    }
    if (b < 0xF0) {
        if (end - p < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80) return 0;
        if (b == 0xE0 && p[1] < 0xA0) return 0;
        if (b == 0xED && p[1] >= 0xA0) return 0;
        return 3;
    }
    if (b < 0xF5) {
        if (end - p < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 ||
            (p[3] & 0xC0) != 0x80)
            return 0;
        if (b == 0xF0 && p[1] < 0x90) return 0;
        if (b == 0xF4 && p[1] >= 0x90) return 0;
        return 4;
    }
    return 0;
}

/* The first byte at or after p that ends a plain run of a string: a quote, a backslash, a
 * control byte or a non-ASCII byte (sixteen bytes a step where SSE2 is there: x86-64). */
#ifdef __SSE2__
#include <emmintrin.h>
static inline const unsigned char *plain_run(const unsigned char *p, const unsigned char *end) {
    const __m128i quote = _mm_set1_epi8('"'), slash = _mm_set1_epi8('\\');
    const __m128i space = _mm_set1_epi8(0x20);
    while (end - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)p);
        __m128i m = _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, slash));
        /* (signed: below 0x20, or 0x80 and above) */
        m = _mm_or_si128(m, _mm_cmpgt_epi8(space, v));
        int mask = _mm_movemask_epi8(m);
        if (mask) return p + __builtin_ctz((unsigned)mask);
        p += 16;
    }
    while (p < end && *p != '"' && *p != '\\' && *p >= 0x20 && *p < 0x80) p++;
    return p;
}
#else
static inline const unsigned char *plain_run(const unsigned char *p, const unsigned char *end) {
    while (p < end && *p != '"' && *p != '\\' && *p >= 0x20 && *p < 0x80) p++;
    return p;
}
#endif

/* A string at the cursor (which is on its opening quote): validated, escapes checked (a lone
 * surrogate escape is declined), the cursor left after the closing quote. */
static int scan_string(Cur *c, Str *s) {
    const unsigned char *p = c->p + 1, *end = c->end;
    int esc = 0;
    s->p = p;
    for (;;) {
        /* the plain run: most of a long value */
        p = plain_run(p, end);
        if (p >= end) return BAIL;
        unsigned char b = *p;
        if (b == '"') break;
        if (b == '\\') {
            esc = 1;
            if (p + 1 >= end) return BAIL;
            unsigned char e = p[1];
            if (e == 'u') {
                unsigned v;
                if (hex4(p + 2, end, &v)) return BAIL;
                p += 6;
                if (v >= 0xD800 && v <= 0xDBFF) {
                    unsigned lo;
                    if (end - p < 6 || p[0] != '\\' || p[1] != 'u' || hex4(p + 2, end, &lo))
                        return BAIL;
                    if (lo < 0xDC00 || lo > 0xDFFF) return BAIL;
                    p += 6;
                } else if (v >= 0xDC00 && v <= 0xDFFF) {
                    return BAIL;
                }
                continue;
            }
            if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' ||
                e == 'r' || e == 't') {
                p += 2;
                continue;
            }
            return BAIL;
        }
        if (b < 0x20) return BAIL;
        int n = utf8_len(p, end);
        if (!n) return BAIL;
        p += n;
    }
    if (p - s->p > (Py_ssize_t)UINT32_MAX) return BAIL;
    s->n = (uint32_t)(p - s->p);
    s->esc = (uint32_t)esc;
    c->p = p + 1;
    return OK;
}

static inline __attribute__((always_inline)) int get_string(Cur *c, Str *s) {
    if (peek(c) != '"') return BAIL;
    return scan_string(c, s);
}

static void put_utf8(unsigned char **o, unsigned v) {
    unsigned char *q = *o;
    if (v < 0x80) {
        *q++ = (unsigned char)v;
    } else if (v < 0x800) {
        *q++ = (unsigned char)(0xC0 | (v >> 6));
        *q++ = (unsigned char)(0x80 | (v & 0x3F));
    } else if (v < 0x10000) {
        *q++ = (unsigned char)(0xE0 | (v >> 12));
        *q++ = (unsigned char)(0x80 | ((v >> 6) & 0x3F));
        *q++ = (unsigned char)(0x80 | (v & 0x3F));
    } else {
        *q++ = (unsigned char)(0xF0 | (v >> 18));
        *q++ = (unsigned char)(0x80 | ((v >> 12) & 0x3F));
        *q++ = (unsigned char)(0x80 | ((v >> 6) & 0x3F));
        *q++ = (unsigned char)(0x80 | (v & 0x3F));
    }
    *o = q;
}

/* The UTF-8 bytes of a scanned string's value into out (room for s->n bytes: an escape never
 * decodes longer than it is written); returns the length. */
static Py_ssize_t unescape(const Str *s, unsigned char *out) {
    const unsigned char *p = s->p, *end = s->p + s->n;
    unsigned char *o = out;
    if (!s->esc) {
        memcpy(out, p, (size_t)s->n);
        return s->n;
    }
    while (p < end) {
        const unsigned char *q = p;
        while (q < end && *q != '\\') q++;
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
        if (q >= end) break;
        unsigned char e = q[1];
        p = q + 2;
        switch (e) {
            case 'n': *o++ = '\n'; break;
            case 't': *o++ = '\t'; break;
            case 'r': *o++ = '\r'; break;
            case 'b': *o++ = '\b'; break;
            case 'f': *o++ = '\f'; break;
            case 'u': {
                unsigned v, lo;
                hex4(p, end, &v);
                p += 4;
                if (v >= 0xD800 && v <= 0xDBFF) {
                    hex4(p + 2, end, &lo);
                    p += 6;
                    v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
                }
                put_utf8(&o, v);
                break;
            }
            default: *o++ = e; break; /* " \ / */
        }
    }
    return o - out;
}

/* ``scan_string`` that also writes the value's UTF-8 bytes to the arena (room is certain: the
 * values written are disjoint parts of the file, none longer decoded than written). */
static int scan_unescape_to(Cur *c, Str *s, unsigned char *out, Py_ssize_t *written) {
    const unsigned char *p = c->p + 1, *end = c->end;
    unsigned char *o = out;
    int esc = 0;
    s->p = p;
    for (;;) {
        const unsigned char *q = plain_run(p, end);
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
        p = q;
        if (p >= end) return BAIL;
        unsigned char b = *p;
        if (b == '"') break;
        if (b == '\\') {
            esc = 1;
            if (p + 1 >= end) return BAIL;
            unsigned char e = p[1];
            switch (e) {
                case '"': *o++ = '"'; break;
                case '\\': *o++ = '\\'; break;
                case '/': *o++ = '/'; break;
                case 'n': *o++ = '\n'; break;
                case 't': *o++ = '\t'; break;
                case 'r': *o++ = '\r'; break;
                case 'b': *o++ = '\b'; break;
                case 'f': *o++ = '\f'; break;
                case 'u': {
                    unsigned v, lo;
                    if (hex4(p + 2, end, &v)) return BAIL;
                    p += 6;
                    if (v >= 0xD800 && v <= 0xDBFF) {
                        if (end - p < 6 || p[0] != '\\' || p[1] != 'u' || hex4(p + 2, end, &lo))
                            return BAIL;
                        if (lo < 0xDC00 || lo > 0xDFFF) return BAIL;
                        p += 6;
                        v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
                    } else if (v >= 0xDC00 && v <= 0xDFFF) {
                        return BAIL;
                    }
                    put_utf8(&o, v);
                    continue;
                }
                default: return BAIL;
            }
            p += 2;
            continue;
        }
        if (b < 0x20) return BAIL;
        int n = utf8_len(p, end);
        if (!n) return BAIL;
        memcpy(o, p, (size_t)n);
        o += n;
        p += n;
    }
    if (p - s->p > (Py_ssize_t)UINT32_MAX) return BAIL;
    s->n = (uint32_t)(p - s->p);
    s->esc = (uint32_t)esc;
    c->p = p + 1;
    *written = o - out;
    return OK;
}

/* A scanned string as a Python str. */
static PyObject *str_obj(const Str *s) {
    if (!s->esc) return PyUnicode_DecodeUTF8((const char *)s->p, s->n, "strict");
    unsigned char stackbuf[256];
    unsigned char *buf = s->n <= (Py_ssize_t)sizeof(stackbuf) ? stackbuf : PyMem_Malloc((size_t)s->n);
    if (!buf) return PyErr_NoMemory();
    Py_ssize_t n = unescape(s, buf);
    PyObject *r = PyUnicode_DecodeUTF8((const char *)buf, n, "strict");
    if (buf != stackbuf) PyMem_Free(buf);
    return r;
}


/* Whether a scanned string's value equals an ASCII literal (escapes decoded: an escape never
 * decodes longer than it is written, and at most six bytes make one character). */
static inline __attribute__((always_inline)) int str_eq_n(const Str *s, const char *lit, size_t n) {
    if (!s->esc) return (size_t)s->n == n && memcmp(s->p, lit, n) == 0;
    if ((size_t)s->n > 6 * n || s->n > 256) return 0;
    unsigned char buf[256];
    Py_ssize_t m = unescape(s, buf);
    return (size_t)m == n && memcmp(buf, lit, n) == 0;
}
#define str_eq(s, lit) str_eq_n((s), (lit), sizeof(lit) - 1)

static int skip_value(Cur *c, int depth);

static int scan_number(Cur *c, int *is_int) {
    const unsigned char *p = c->p, *end = c->end;
    *is_int = 1;
    if (p < end && *p == '-') p++;
    if (p >= end) return BAIL;
    if (*p == '0') {
        p++;
    } else if (*p >= '1' && *p <= '9') {
        while (p < end && *p >= '0' && *p <= '9') p++;
    } else {
        return BAIL;
    }
    if (p < end && *p == '.') {
        *is_int = 0;
        p++;
        if (p >= end || *p < '0' || *p > '9') return BAIL;
        while (p < end && *p >= '0' && *p <= '9') p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        *is_int = 0;
        p++;
        if (p < end && (*p == '+' || *p == '-')) p++;
        if (p >= end || *p < '0' || *p > '9') return BAIL;
        while (p < end && *p >= '0' && *p <= '9') p++;
    }
    c->p = p;
    return OK;
}

static int skip_value(Cur *c, int depth) {
    int b = peek(c);
    if (depth > MAX_DEPTH) return BAIL;
    if (b == '"') {
        Str s;
        return scan_string(c, &s);
    }
    if (b == '{') {
        c->p++;
        if (peek(c) == '}') {
            c->p++;
            return OK;
        }
        for (;;) {
            Str k;
            TRY(get_string(c, &k));
            TRY(expect(c, ':'));
            TRY(skip_value(c, depth + 1));
            b = peek(c);
            c->p++;
            if (b == ',') continue;
            if (b == '}') return OK;
            return BAIL;
        }
    }
    if (b == '[') {
        c->p++;
        if (peek(c) == ']') {
            c->p++;
            return OK;
        }
        for (;;) {
            TRY(skip_value(c, depth + 1));
            b = peek(c);
            c->p++;
            if (b == ',') continue;
            if (b == ']') return OK;
            return BAIL;
        }
    }
    if (b == 't' || b == 'f' || b == 'n') {
        const char *lit = b == 't' ? "true" : b == 'f' ? "false" : "null";
        size_t n = strlen(lit);
        if ((size_t)(c->end - c->p) < n || memcmp(c->p, lit, n) != 0) return BAIL;
        c->p += n;
        return OK;
    }
    if (b == '-' || (b >= '0' && b <= '9')) {
        int is_int;
        return scan_number(c, &is_int);
    }
    return BAIL;
}

/* Object iteration: begin with obj_open, then obj_next gives each key (1) or the end (0). */
static inline __attribute__((always_inline)) int obj_open(Cur *c) { return expect(c, '{'); }

static inline __attribute__((always_inline)) int obj_next(Cur *c, int *first, Str *key, int *more) {
    int b = peek(c);
    if (*first) {
        *first = 0;
        if (b == '}') {
            c->p++;
            *more = 0;
            return OK;
        }
    } else {
        c->p++;
        if (b == '}') {
            *more = 0;
            return OK;
        }
        if (b != ',') return BAIL;
    }
    TRY(get_string(c, key));
    TRY(expect(c, ':'));
    *more = 1;
    return OK;
}

static inline __attribute__((always_inline)) int arr_open(Cur *c) { return expect(c, '['); }

static inline __attribute__((always_inline)) int arr_next(Cur *c, int *first, int *more) {
    int b = peek(c);
    if (*first) {
        *first = 0;
        if (b == ']') {
            c->p++;
            *more = 0;
            return OK;
        }
        *more = 1;
        return OK;
    }
    c->p++;
    if (b == ']') {
        *more = 0;
        return OK;
    }
    if (b != ',') return BAIL;
    *more = 1;
    return OK;
}

static inline __attribute__((always_inline)) int is_null(Cur *c) {
    if (peek(c) == 'n' && c->end - c->p >= 4 && memcmp(c->p, "null", 4) == 0) {
        c->p += 4;
        return 1;
    }
    return 0;
}

/* A JSON integer (no fraction or exponent) or a string of -?[0-9]+ ("digits"), as int64. */
static int parse_digits(const unsigned char *p, Py_ssize_t n, int64_t *out) {
    int neg = 0;
    if (n && *p == '-') {
        neg = 1;
        p++;
        n--;
    }
    if (n < 1 || n > 19) return BAIL;
    uint64_t v = 0; /* (19 digits fit: nanosecond times have 19) */
    for (Py_ssize_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') return BAIL;
        v = v * 10 + (uint64_t)(p[i] - '0');
    }
    if (v > (uint64_t)INT64_MAX) return BAIL;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return OK;
}

static int int_or_digits(Cur *c, int allow_string, int64_t *out) {
    int b = peek(c);
    if (b == '"') {
        Str s;
        TRY(scan_string(c, &s));
        if (!allow_string || s.esc) return BAIL;
        return parse_digits(s.p, s.n, out);
    }
    const unsigned char *start = c->p;
    int is_int;
    TRY(scan_number(c, &is_int));
    if (!is_int) return BAIL;
    return parse_digits(start, c->p - start, out);
}

/* ------------------------------------------------------------------ big buffers */

/* The span table and the arena are large and written once, front to back: on Linux they are
 * reserved as anonymous mappings with transparent huge pages asked for, so filling them costs
 * a page fault per 2 MiB instead of per 4 KiB (page faults were a sixth of the time). Only
 * what is written becomes resident. */
static void *big_alloc(size_t size) {
#ifdef __linux__
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, size, MADV_HUGEPAGE);
#endif
    return p;
#else
    return PyMem_Malloc(size);
#endif
}

static void big_free(void *p, size_t size) {
    if (!p) return;
#ifdef __linux__
    munmap(p, size);
#else
    (void)size;
    PyMem_Free(p);
#endif
}

/* ------------------------------------------------------------------ spans */

typedef struct {
    Str s;        /* the string (V_STR, V_RAWSTR, the finish reason) */
    int64_t i;    /* the count (V_INT); content (input, output): where in the arena */
    uint32_t alen; /* content: its value's length in the arena */
    uint8_t present;
    uint8_t reasons_array; /* V_REASONS: arrayValue (1) or stringValue (0) */
    uint8_t reasons_empty; /* V_REASONS: an array with no values */
} Slot;

typedef struct {
    Str trace, name;
    uint64_t sid, pid;
    int has_parent;
    int kind;
    int64_t start, end;
    int failed;
    Slot v[N_KEPT];
} Span;

typedef struct {
    Span *spans;
    Py_ssize_t n, cap;
    /* The values of the content attributes, unescaped while they are validated (one pass):
     * as large as the file, of which only what is written becomes resident. */
    unsigned char *arena;
    Py_ssize_t alen;
    /* Streaming (the usual case: spans in start order): each span is walked as soon as it is
     * read, so neither a span table nor the whole arena is kept: two arena buffers take
     * turns (one holds the input window the next call is compared with). */
    int stream;
    Span one;
    unsigned char *spare;
    void *state;
    Py_ssize_t kids;
    int64_t last_start, last_end, kid_min, kid_max;
    uint64_t kid_pid;
    int have_kid, have_root, have_trace;
    int walk_declined; /* the walk declined: read on only to see whether the order breaks */
    Span root; /* (its ids, times, name and role; its slots are not read) */
    int root_role;
    Str trace;
    uint64_t *sids; /* (one per span read: ss->n of them) */
} Spans;

static int stream_span(Spans *ss, Span *sp);

static int scan_unescape(Cur *c, Str *s, Spans *ss, Slot *slot) {
    Py_ssize_t written;
    TRY(scan_unescape_to(c, s, ss->arena + ss->alen, &written));
    slot->i = ss->alen;
    slot->alen = (uint32_t)written;
    ss->alen += written;
    return OK;
}

static int hex16(const Str *s, uint64_t *out) {
    if (s->esc || s->n != 16) return BAIL;
    uint64_t v = 0;
    for (int i = 0; i < 16; i++) {
        unsigned char b = s->p[i];
        v <<= 4;
        if (b >= '0' && b <= '9')
            v |= (uint64_t)(b - '0');
        else if (b >= 'a' && b <= 'f')
            v |= (uint64_t)(b - 'a' + 10);
        else
            return BAIL; /* (upper-case hex is normalized by the full import) */
    }
    *out = v;
    return OK;
}

/* {"<field>": value} with exactly the one field (forbid_unknown_fields, field required): the
 * cursor is left on the value; ``field_close`` then expects the end of the object. */
static int field_open(Cur *c, const char *field) {
    Str k;
    TRY(obj_open(c));
    TRY(get_string(c, &k));
    if (!str_eq_n(&k, field, strlen(field))) return BAIL;
    return expect(c, ':');
}

static int field_close(Cur *c) { return expect(c, '}'); }

static int scan_unescape(Cur *c, Str *s, Spans *ss, Slot *slot);

static int attr_value(Cur *c, const KeyDef *kd, Slot *slot, Spans *ss) {
    slot->present = 1;
    switch (kd->kind) {
        case V_RAWSTR:
            if (kd->slot == S_INPUT || kd->slot == S_OUTPUT) {
                TRY(field_open(c, "stringValue"));
                if (peek(c) != '"') return BAIL;
                TRY(scan_unescape(c, &slot->s, ss, slot));
                return field_close(c);
            }
            /* fall through */
        case V_STR:
            TRY(field_open(c, "stringValue"));
            TRY(get_string(c, &slot->s));
            return field_close(c);
        case V_INT:
            TRY(field_open(c, "intValue"));
            TRY(int_or_digits(c, 1, &slot->i));
            return field_close(c);
        case V_CHECKEDINT: {
            int64_t v;
            TRY(field_open(c, "intValue"));
            TRY(int_or_digits(c, 1, &v));
            return field_close(c);
        }
        case V_DBL: {
            int is_int;
            TRY(field_open(c, "doubleValue"));
            ws(c);
            TRY(scan_number(c, &is_int));
            return field_close(c);
        }
        case V_BOOL: {
            TRY(field_open(c, "boolValue"));
            ws(c);
            if (c->end - c->p >= 4 && memcmp(c->p, "true", 4) == 0)
                c->p += 4;
            else if (c->end - c->p >= 5 && memcmp(c->p, "false", 5) == 0)
                c->p += 5;
            else
                return BAIL;
            return field_close(c);
        }
        case V_REASONS: {
            int first = 1, more, have_array = 0, have_string = 0;
            Str k;
            TRY(obj_open(c));
            for (;;) {
                TRY(obj_next(c, &first, &k, &more));
                if (!more) break;
                if (str_eq(&k, "arrayValue") && !have_array) {
                    have_array = 1;
                    int f2 = 1, m2, have_values = 0;
                    Str k2;
                    TRY(obj_open(c));
                    for (;;) {
                        TRY(obj_next(c, &f2, &k2, &m2));
                        if (!m2) break;
                        if (!str_eq(&k2, "values") || have_values) return BAIL;
                        have_values = 1;
                        int f3 = 1, m3, count = 0;
                        TRY(arr_open(c));
                        for (;;) {
                            TRY(arr_next(c, &f3, &m3));
                            if (!m3) break;
                            Str v;
                            TRY(field_open(c, "stringValue"));
                            TRY(get_string(c, &v));
                            TRY(field_close(c));
                            if (count++ == 0) slot->s = v;
                        }
                        slot->reasons_empty = count == 0;
                    }
                    if (!have_values) slot->reasons_empty = 1;
                    slot->reasons_array = 1;
                } else if (str_eq(&k, "stringValue") && !have_string) {
                    have_string = 1;
                    Str v;
                    TRY(get_string(c, &v));
                    if (!have_array) slot->s = v;
                } else {
                    return BAIL;
                }
            }
            /* both kinds in one value, or neither: the Python fast path declines too */
            if (have_array == have_string) return BAIL;
            return OK;
        }
    }
    return BAIL;
}

static int parse_attributes(Cur *c, Span *sp, Spans *ss) {
    int first = 1, more;
    TRY(arr_open(c));
    for (;;) {
        TRY(arr_next(c, &first, &more));
        if (!more) break;
        int f2 = 1, m2, have_key = 0, have_value = 0;
        Str k, key;
        Cur value_at = {0};
        const KeyDef *kd = NULL;
        Slot slot = {0};
        TRY(obj_open(c));
        for (;;) {
            TRY(obj_next(c, &f2, &k, &m2));
            if (!m2) break;
            if (str_eq(&k, "key") && !have_key) {
                have_key = 1;
                TRY(get_string(c, &key));
                if (key.esc) return BAIL;
                kd = find_key((const char *)key.p, key.n);
                if (!kd) return BAIL;
            } else if (str_eq(&k, "value") && !have_value) {
                have_value = 1;
                ws(c);
                if (kd) {
                    TRY(attr_value(c, kd, &slot, ss)); /* (the usual order: key, then value) */
                } else {
                    value_at = *c;
                    TRY(skip_value(c, 0));
                }
            } else {
                return BAIL;
            }
        }
        if (!have_key || !have_value) return BAIL;
        if (value_at.p) TRY(attr_value(&value_at, kd, &slot, ss));
        if (kd->slot < N_KEPT) sp->v[kd->slot] = slot; /* (the last of a repeated key) */
    }
    return OK;
}

static int parse_status(Cur *c, Span *sp) {
    if (is_null(c)) return OK;
    int first = 1, more, have_code = 0, have_msg = 0;
    Str k;
    TRY(obj_open(c));
    for (;;) {
        TRY(obj_next(c, &first, &k, &more));
        if (!more) break;
        if (str_eq(&k, "code") && !have_code) {
            have_code = 1;
            if (peek(c) == '"') {
                Str s;
                TRY(scan_string(c, &s));
                if (s.esc) return BAIL;
                /* code.upper().removeprefix("STATUS_CODE_") == "ERROR", on ASCII only */
                char up[64];
                if (s.n >= (Py_ssize_t)sizeof(up)) {
                    sp->failed = 0;
                    for (Py_ssize_t i = 0; i < s.n; i++)
                        if (s.p[i] >= 0x80) return BAIL;
                    continue;
                }
                for (Py_ssize_t i = 0; i < s.n; i++) {
                    unsigned char b = s.p[i];
                    if (b >= 0x80) return BAIL;
                    up[i] = (char)(b >= 'a' && b <= 'z' ? b - 32 : b);
                }
                up[s.n] = 0;
                const char *rest = up;
                if (strncmp(rest, "STATUS_CODE_", 12) == 0) rest += 12;
                sp->failed = strcmp(rest, "ERROR") == 0;
            } else {
                int64_t v;
                TRY(int_or_digits(c, 0, &v));
                sp->failed = v == 2;
            }
        } else if (str_eq(&k, "message") && !have_msg) {
            have_msg = 1;
            Str s;
            TRY(get_string(c, &s));
        } else {
            return BAIL;
        }
    }
    return OK;
}

enum {
    F_TRACE = 1, F_SPAN = 2, F_PARENT = 4, F_NAME = 8, F_KIND = 16, F_START = 32, F_END = 64,
    F_ATTRS = 128, F_EVENTS = 256, F_STATUS = 512
};

static int parse_span(Cur *c, Span *sp, Spans *ss) {
    int first = 1, more, seen = 0;
    Str k;
    memset(sp, 0, sizeof(*sp));
    TRY(obj_open(c));
    for (;;) {
        TRY(obj_next(c, &first, &k, &more));
        if (!more) break;
        if (k.esc) return BAIL;
#define FIELD(lit, bit) (str_eq(&k, lit) && !(seen & (bit)) && ((seen |= (bit)), 1))
        if (FIELD("traceId", F_TRACE)) {
            TRY(get_string(c, &sp->trace));
        } else if (FIELD("spanId", F_SPAN)) {
            Str s;
            TRY(get_string(c, &s));
            TRY(hex16(&s, &sp->sid));
        } else if (FIELD("parentSpanId", F_PARENT)) {
            Str s;
            TRY(get_string(c, &s));
            if (s.n) {
                TRY(hex16(&s, &sp->pid));
                sp->has_parent = sp->pid != 0; /* ("0" * 16 is no parent) */
            }
        } else if (FIELD("name", F_NAME)) {
            TRY(get_string(c, &sp->name));
        } else if (FIELD("kind", F_KIND)) {
            int64_t v;
            TRY(int_or_digits(c, 0, &v));
            if (v < 1 || v > 5) return BAIL;
            sp->kind = (int)v;
        } else if (FIELD("startTimeUnixNano", F_START)) {
            TRY(int_or_digits(c, 1, &sp->start));
        } else if (FIELD("endTimeUnixNano", F_END)) {
            TRY(int_or_digits(c, 1, &sp->end));
        } else if (FIELD("attributes", F_ATTRS)) {
            TRY(parse_attributes(c, sp, ss));
        } else if (FIELD("events", F_EVENTS)) {
            TRY(arr_open(c));
            if (peek(c) != ']') return BAIL; /* span events: the older conventions' content */
            c->p++;
        } else if (FIELD("status", F_STATUS)) {
            TRY(parse_status(c, sp));
        } else if (str_eq(&k, "flags") || str_eq(&k, "traceState") ||
                   str_eq(&k, "droppedAttributesCount") || str_eq(&k, "droppedEventsCount") ||
                   str_eq(&k, "droppedLinksCount") || str_eq(&k, "links")) {
            TRY(skip_value(c, 0)); /* (read by neither import) */
        } else {
            return BAIL;
        }
#undef FIELD
    }
    if (!(seen & F_KIND)) return BAIL; /* kind 0: unknown-span-kind */
    if (!(seen & F_SPAN) || !(seen & F_START) || !(seen & F_END)) return BAIL;
    if (sp->trace.esc || sp->trace.n != 32) return BAIL;
    if (sp->start <= 0 || sp->end <= 0) return BAIL;
    return OK;
}

static int add_span(Cur *c, Spans *ss) {
    if (ss->n == ss->cap) return BAIL; /* (cannot happen: see MIN_SPAN_BYTES) */
    /* Ctrl-C, SIGTERM: their Python handlers run here, and what they raise ends the read */
    if ((ss->n & 4095) == 4095 && PyErr_CheckSignals() < 0) return ERR;
    if (ss->stream) {
        ss->alen = 0;
        TRY(parse_span(c, &ss->one, ss));
        ss->n++;
        return stream_span(ss, &ss->one);
    }
    TRY(parse_span(c, &ss->spans[ss->n], ss));
    ss->n++;
    return OK;
}

/* An object (or null) of which one field is read, as a string; any other field is skipped
 * (a Struct that ignores unknown fields: a resource attribute, a scope). */
static int string_field_object(Cur *c, const char *field) {
    if (is_null(c)) return OK;
    int first = 1, more;
    Str k, v;
    TRY(obj_open(c));
    for (;;) {
        TRY(obj_next(c, &first, &k, &more));
        if (!more) return OK;
        if (str_eq_n(&k, field, strlen(field)))
            TRY(get_string(c, &v));
        else
            TRY(skip_value(c, 0));
    }
}

/* resource: {"attributes": [{"key": str, "value": any}], ...} or null */
static int parse_resource(Cur *c) {
    if (is_null(c)) return OK;
    int first = 1, more;
    Str k;
    TRY(obj_open(c));
    for (;;) {
        TRY(obj_next(c, &first, &k, &more));
        if (!more) return OK;
        if (!str_eq(&k, "attributes")) {
            TRY(skip_value(c, 0));
            continue;
        }
        int f2 = 1, m2;
        TRY(arr_open(c));
        for (;;) {
            TRY(arr_next(c, &f2, &m2));
            if (!m2) break;
            if (peek(c) != '{') return BAIL; /* (a ResourceAttr, not null) */
            TRY(string_field_object(c, "key"));
        }
    }
}

/* Each element of an array, read by ``item`` (spans, scope spans, resource spans). */
static int each(Cur *c, Spans *ss, int (*item)(Cur *, Spans *)) {
    int first = 1, more;
    TRY(arr_open(c));
    for (;;) {
        TRY(arr_next(c, &first, &more));
        if (!more) return OK;
        TRY(item(c, ss));
    }
}

static int parse_scope_spans(Cur *c, Spans *ss) {
    int first = 1, more;
    Str k;
    TRY(obj_open(c));
    for (;;) {
        TRY(obj_next(c, &first, &k, &more));
        if (!more) return OK;
        if (str_eq(&k, "scope"))
            TRY(string_field_object(c, "name"));
        else if (str_eq(&k, "spans"))
            TRY(each(c, ss, add_span));
        else
            TRY(skip_value(c, 0));
    }
}

static int parse_resource_spans(Cur *c, Spans *ss) {
    int first = 1, more;
    Str k;
    TRY(obj_open(c));
    for (;;) {
        TRY(obj_next(c, &first, &k, &more));
        if (!more) return OK;
        if (str_eq(&k, "resource"))
            TRY(parse_resource(c));
        else if (str_eq(&k, "scopeSpans"))
            TRY(each(c, ss, parse_scope_spans));
        else
            TRY(skip_value(c, 0));
    }
}

static int parse_document(Cur *c, Spans *ss) {
    int first = 1, more;
    Str k;
    TRY(obj_open(c));
    for (;;) {
        TRY(obj_next(c, &first, &k, &more));
        if (!more) return OK;
        if (!str_eq(&k, "resourceSpans"))
            return BAIL; /* log records, a capture's first line, anything else */
        TRY(each(c, ss, parse_resource_spans));
    }
}

/* One OTLP/JSON document, or JSON Lines of them (no carriage returns; short blank lines), read
 * as the Python paths read them: the whole file as one document first, then line by line. A
 * file whose first document is its first line and is followed by more lines is read on from
 * there (that line reads the same either way), so no span is read twice. */
static int parse_file(const unsigned char *buf, Py_ssize_t size, Spans *ss) {
    Cur c = {buf, buf + size};
    ws(&c);
    const unsigned char *doc = c.p;
    TRY(parse_document(&c, ss)); /* (a first document that fails fails as a line too) */
    const unsigned char *doc_end = c.p;
    ws(&c);
    if (c.p == c.end) return OK;
    /* JSON Lines */
    if (memchr(buf, '\r', (size_t)size)) return BAIL;
    if (memchr(doc, '\n', (size_t)(doc_end - doc))) return BAIL; /* (its first line is no JSON) */
    const unsigned char *p = buf, *end = buf + size;
    for (;;) { /* the blank lines before it */
        const unsigned char *nl = memchr(p, '\n', (size_t)(doc - p));
        if (!nl) break;
        if (nl - p > 64) return BAIL;
        p = nl + 1;
    }
    p = doc_end;
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    if (p < end && *p != '\n') return BAIL;
    p++;
    while (p < end) {
        const unsigned char *nl = memchr(p, '\n', (size_t)(end - p));
        const unsigned char *le = nl ? nl : end;
        const unsigned char *q = p;
        while (q < le && (*q == ' ' || *q == '\t')) q++;
        if (q == le) {
            if (le - p > 64) return BAIL;
        } else { /* (a line with a form feed or vertical tab is no JSON: declined below) */
            Cur lc = {p, le};
            TRY(parse_document(&lc, ss));
            ws(&lc);
            if (lc.p != lc.end) return BAIL;
        }
        p = le + 1;
    }
    return OK;
}

/* ------------------------------------------------------------------ the walk */

enum { R_LLM, R_TOOL, R_AGENT, R_RETRIEVAL, R_EMBEDDING, R_OTHER };

static int role_of(const Span *sp) {
    const Slot *op = &sp->v[S_OP];
    if (op->present) {
        const Str *s = &op->s;
        if (str_eq(s, "chat") || str_eq(s, "text_completion") || str_eq(s, "generate_content") ||
            str_eq(s, "completion"))
            return R_LLM;
        if (str_eq(s, "execute_tool")) return R_TOOL;
        if (str_eq(s, "invoke_agent") || str_eq(s, "create_agent")) return R_AGENT;
        if (str_eq(s, "retrieval") || str_eq(s, "retrieve")) return R_RETRIEVAL;
        if (str_eq(s, "embeddings")) return R_EMBEDDING;
        return R_OTHER;
    }
    if (sp->v[S_GEN_AI_SYSTEM].present && sp->v[S_REQ_MODEL].present) return R_LLM;
    if (sp->v[S_TOOL_NAME].present) return R_TOOL;
    return R_OTHER;
}

/* A message of an input window: where its bytes are, what it is, and its outcome. */
enum { C_SYSTEM, C_ASSISTANT, C_TOOL, C_OTHER };

typedef struct {
    Py_ssize_t off, n;
    int cat;
    int settled;
} Entry;

typedef struct {
    const unsigned char *buf; /* (in the arena) */
    Py_ssize_t len;
    Entry *e;
    Py_ssize_t n, ecap;
} Window;

/* A message part, as parsed (otlp_typed.Part). */
typedef struct {
    Str type, content, text, id, name;
    uint8_t has_type, has_content, has_text, has_id, has_name; /* present and not null */
    uint8_t content_set, text_set;                              /* present (maybe null) */
    const unsigned char *args, *resp, *result;                  /* raw JSON, or NULL */
    Py_ssize_t args_n, resp_n, result_n;
} Part;

typedef struct {
    Part *parts;
    Py_ssize_t n, cap;
} Parts;

/* The last value of a name that repeats from span to span (an operation, a model, a tool):
 * its str and its cleaned form are made again only when its bytes change. */
typedef struct {
    const unsigned char *p;
    uint32_t n, esc;
    PyObject *obj, *clean;
} Memo;

typedef struct {
    /* helpers from Python */
    PyObject *row_type, *clean, *paragraphs, *system_parts, *raw_text;
    PyObject *kw_row; /* the LlmCallRow keyword names */
    /* results */
    PyObject *llm_rows, *calls, *commits;
    Py_ssize_t tools, llm_to_user, typed, uncaptured, by_content, by_structure;
    double tok_in, tok_out;
    /* the matching state (otlp_sources.Sources) */
    PyObject *last_llm;        /* step id, or NULL */
    PyObject *last_row_tools;  /* the tools list of the row made last */
    PyObject *llm_by_call_id, *llm_by_tool_name, *tool_by_id, *system_parts_by_text,
        *part_ids, *messages, *last_asked, *cleaned, *paragraphs_memo;
    Window win, next;
    int prev_has_system;
    const unsigned char *prev_system;
    Py_ssize_t prev_system_n;
    PyObject *system_memo_texts, *system_memo_parts; /* tuples */
    int system_done;
    Parts parts;
    Memo label, model, tool;
    /* retrieval (``Sources.pending``, ``docs``, ``doc_parts``): pending is a list of
     * (step, [(doc id, content or None)]); docs a list of [id, content, by, consumed] */
    PyObject *documents; /* the helper that reads a retrieval span's documents */
    PyObject *pending, *docs, *doc_parts, *doc_keys; /* doc_keys: the doc keys read this call */
    PyObject *v_content, *v_id, *v_structure;
    const Spans *ss;
    /* interned strings */
    PyObject *k_step, *k_type, *k_llm_index, *k_model, *k_tokens, *k_input, *k_output,
        *k_failed, *k_tool_name, *v_llm, *v_tool, *v_error, *v_tool_calls, *v_stop, *empty;
} State;

static const char REDACTED[] = "__REDACTED__";

static int is_redacted(const Str *s) { return str_eq(s, REDACTED); }

/* A Python exception from a helper: a bug or an input the helper refuses -- decline, unless
 * it is an interruption. */
static int helper_failed(void) {
    if (PyErr_ExceptionMatches(PyExc_Exception)) {
        PyErr_Clear();
        return BAIL;
    }
    return ERR;
}

/* ``fn(arg)``, remembered in the dict ``memo`` (a text rule called back in Python). */
static PyObject *memo_call(PyObject *memo, PyObject *fn, PyObject *arg) {
    PyObject *found = PyDict_GetItemWithError(memo, arg);
    if (found) {
        Py_INCREF(found);
        return found;
    }
    if (PyErr_Occurred()) return NULL;
    found = PyObject_CallOneArg(fn, arg);
    if (!found) return NULL;
    if (PyDict_SetItem(memo, arg, found) < 0) {
        Py_DECREF(found);
        return NULL;
    }
    return found;
}

static PyObject *cleaned(State *st, PyObject *name) { return memo_call(st->cleaned, st->clean, name); }

static PyObject *memo_str(Memo *m, const Str *s) {
    if (m->obj && m->n == s->n && m->esc == s->esc && memcmp(m->p, s->p, s->n) == 0) {
        Py_INCREF(m->obj);
        return m->obj;
    }
    PyObject *o = str_obj(s);
    if (!o) return NULL;
    Py_XSETREF(m->obj, o);
    Py_CLEAR(m->clean);
    m->p = s->p;
    m->n = s->n;
    m->esc = s->esc;
    Py_INCREF(o);
    return o;
}

static PyObject *memo_clean(State *st, Memo *m) {
    if (!m->clean) m->clean = cleaned(st, m->obj);
    Py_XINCREF(m->clean);
    return m->clean;
}

static void memo_clear(Memo *m) {
    Py_CLEAR(m->obj);
    Py_CLEAR(m->clean);
}

/* ``f"{prefix}{name}#{index}"``: a step id. */
static PyObject *step_id(const char *prefix, PyObject *name, Py_ssize_t index) {
    Py_ssize_t n;
    const char *utf8 = PyUnicode_AsUTF8AndSize(name, &n);
    if (!utf8) return NULL;
    size_t np = strlen(prefix);
    char stackbuf[256];
    char *buf = (size_t)n + np + 24 <= sizeof(stackbuf) ? stackbuf : PyMem_Malloc((size_t)n + np + 24);
    if (!buf) return PyErr_NoMemory();
    memcpy(buf, prefix, np);
    memcpy(buf + np, utf8, (size_t)n);
    int d = snprintf(buf + np + n, 24, "#%zd", index);
    PyObject *r = PyUnicode_DecodeUTF8(buf, (Py_ssize_t)np + n + d, "strict");
    if (buf != stackbuf) PyMem_Free(buf);
    return r;
}

static int commit(State *st, PyObject *step) { return PyList_Append(st->commits, step) < 0 ? ERR : OK; }

static int ensure(void **buf, Py_ssize_t *cap, Py_ssize_t need, size_t item) {
    if (need <= *cap) return OK;
    Py_ssize_t cap2 = *cap ? *cap : 16;
    while (cap2 < need) cap2 *= 2;
    void *grown = PyMem_Realloc(*buf, (size_t)cap2 * item);
    if (!grown) {
        PyErr_NoMemory();
        return ERR;
    }
    *buf = grown;
    *cap = cap2;
    return OK;
}

static int add_entry(Window *w, Py_ssize_t off, Py_ssize_t n) {
    TRY(ensure((void **)&w->e, &w->ecap, w->n + 1, sizeof(Entry)));
    w->e[w->n].off = off;
    w->e[w->n].n = n;
    w->e[w->n].cat = C_OTHER;
    w->e[w->n].settled = 0;
    w->n++;
    return OK;
}

/* The elements of the JSON array in w->buf (otlp_typed.RAWS) from the cursor on: ``first``
 * says whether the cursor is just after the opening bracket or after an element. */
static int split_from(Window *w, Cur *c, int first) {
    int more;
    for (;;) {
        TRY(arr_next(c, &first, &more));
        if (!more) break;
        ws(c);
        const unsigned char *start = c->p;
        TRY(skip_value(c, 0));
        TRY(add_entry(w, start - w->buf, c->p - start));
    }
    ws(c);
    return c->p == c->end ? OK : BAIL;
}

static int split_array(Window *w) {
    Cur c = {w->buf, w->buf + w->len};
    w->n = 0;
    TRY(arr_open(&c));
    return split_from(w, &c, 1);
}

/* A window on a content attribute's value (in the arena). */
static void view_of(Window *w, const Spans *ss, const Slot *slot) {
    w->buf = ss->arena + slot->i;
    w->len = slot->alen;
    w->n = 0;
}

static int same(const Window *a, const Entry *x, const Window *b, const Entry *y) {
    return x->n == y->n && memcmp(a->buf + x->off, b->buf + y->off, (size_t)x->n) == 0;
}

/* The new input's split, and how many of its first messages are the previous input's last
 * ones (``Sources.llm_start``'s ``skip``; ``*k``: where they start in the previous input).
 * The usual case is found without splitting them again: the new input starts with the bytes
 * of the previous one's last messages (each a JSON object, so those bytes are those messages),
 * and none of them before the last equals the last (the Python rule takes the first match).
 * Anything else is split and compared the general way. */
static int split_window(Window *cur, const Window *prev, Py_ssize_t *skip_out, Py_ssize_t *k_out) {
    *skip_out = 0;
    *k_out = 0;
    cur->n = 0;
    if (prev->n) {
        Cur c = {cur->buf, cur->buf + cur->len};
        TRY(arr_open(&c));
        ws(&c);
        const unsigned char *body = c.p;
        const Entry *last = &prev->e[prev->n - 1];
        Py_ssize_t last_end = last->off + last->n;
        for (Py_ssize_t k = 0; k < prev->n; k++) {
            Py_ssize_t seg = last_end - prev->e[k].off;
            if (c.end - body < seg || memcmp(body, prev->buf + prev->e[k].off, (size_t)seg) != 0)
                continue;
            Py_ssize_t j = prev->n - 1 - k;
            int earlier = 0;
            for (Py_ssize_t t = 0; t < j && !earlier; t++) earlier = same(prev, &prev->e[k + t], prev, last);
            if (earlier) break; /* (the general way) */
            Py_ssize_t base = (body - cur->buf) - prev->e[k].off;
            for (Py_ssize_t t = k; t < prev->n; t++) TRY(add_entry(cur, base + prev->e[t].off, prev->e[t].n));
            c.p = body + seg;
            TRY(split_from(cur, &c, 0));
            *skip_out = j + 1;
            *k_out = k;
            return OK;
        }
    }
    TRY(split_array(cur));
    Py_ssize_t n = cur->n;
    if (!prev->n || !n) return OK;
    const Entry *last = &prev->e[prev->n - 1];
    Py_ssize_t j = -1;
    for (Py_ssize_t t = 0; t < n; t++) {
        if (same(cur, &cur->e[t], prev, last)) {
            j = t;
            break;
        }
    }
    Py_ssize_t k = prev->n - 1 - j;
    if (j < 0 || k < 0) return OK;
    for (Py_ssize_t t = 0; t <= j; t++)
        if (!same(cur, &cur->e[t], prev, &prev->e[k + t])) return OK;
    *skip_out = j + 1;
    *k_out = k;
    return OK;
}

static int part_field_str(Cur *c, Str *s, uint8_t *has, uint8_t *set) {
    if (set) *set = 1;
    if (is_null(c)) return OK;
    TRY(get_string(c, s));
    *has = 1;
    return OK;
}

static int raw_field(Cur *c, const unsigned char **p, Py_ssize_t *n) {
    ws(c);
    const unsigned char *start = c->p;
    TRY(skip_value(c, 0));
    *p = start;
    *n = c->p - start;
    return OK;
}

/* One message object (otlp_typed.Message in the parts form): its role and parts. */
static int parse_message(State *st, const unsigned char *p, Py_ssize_t n, Str *role, int *has_role) {
    Cur c = {p, p + n};
    int first = 1, more, have_parts = 0, have_role = 0, have_name = 0;
    Str k;
    *has_role = 0;
    st->parts.n = 0;
    TRY(obj_open(&c));
    for (;;) {
        TRY(obj_next(&c, &first, &k, &more));
        if (!more) break;
        if (k.esc) return BAIL;
        if (str_eq(&k, "role")) {
            if (have_role++) return BAIL;
            if (is_null(&c)) continue;
            TRY(get_string(&c, role));
            *has_role = 1;
        } else if (str_eq(&k, "parts")) {
            if (have_parts++) return BAIL;
            int f2 = 1, m2;
            TRY(arr_open(&c));
            for (;;) {
                TRY(arr_next(&c, &f2, &m2));
                if (!m2) break;
                TRY(ensure((void **)&st->parts.parts, &st->parts.cap, st->parts.n + 1, sizeof(Part)));
                Part *pt = &st->parts.parts[st->parts.n++];
                memset(pt, 0, sizeof(*pt));
                int f3 = 1, m3, seen = 0;
                Str k3;
                TRY(obj_open(&c));
                for (;;) {
                    TRY(obj_next(&c, &f3, &k3, &m3));
                    if (!m3) break;
                    if (k3.esc) return BAIL;
#define PF(lit, bit) (str_eq(&k3, lit) && !(seen & (bit)) && ((seen |= (bit)), 1))
                    if (PF("type", 1))
                        TRY(part_field_str(&c, &pt->type, &pt->has_type, NULL));
                    else if (PF("content", 2))
                        TRY(part_field_str(&c, &pt->content, &pt->has_content, &pt->content_set));
                    else if (PF("text", 4))
                        TRY(part_field_str(&c, &pt->text, &pt->has_text, &pt->text_set));
                    else if (PF("id", 8))
                        TRY(part_field_str(&c, &pt->id, &pt->has_id, NULL));
                    else if (PF("name", 16))
                        TRY(part_field_str(&c, &pt->name, &pt->has_name, NULL));
                    else if (PF("arguments", 32))
                        TRY(raw_field(&c, &pt->args, &pt->args_n));
                    else if (PF("response", 64))
                        TRY(raw_field(&c, &pt->resp, &pt->resp_n));
                    else if (PF("result", 128))
                        TRY(raw_field(&c, &pt->result, &pt->result_n));
                    else
                        return BAIL; /* (forbid_unknown_fields: e.g. the OpenAI form) */
#undef PF
                }
            }
        } else if (str_eq(&k, "message")) {
            return BAIL; /* (the generic reading: another form) */
        } else if (str_eq(&k, "name")) {
            if (have_name++) return BAIL;
            TRY(skip_value(&c, 0));
        } else {
            TRY(skip_value(&c, 0));
        }
    }
    ws(&c);
    if (c.p != c.end || !have_parts) return BAIL;
    return OK;
}

static int category(const Str *role, int has_role) {
    if (!has_role || role->n == 0 || is_redacted(role)) return C_OTHER; /* ("user") */
    if (str_eq(role, "system") || str_eq(role, "developer")) return C_SYSTEM;
    if (str_eq(role, "assistant")) return C_ASSISTANT;
    if (str_eq(role, "tool")) return C_TOOL;
    return C_OTHER;
}

static PyObject *text_of_str(const Str *s, int has) {
    if (!has || is_redacted(s)) return PyUnicode_FromStringAndSize("", 0);
    return str_obj(s);
}

/* ``raw_text`` of a raw JSON value (NULL: absent): a string's value, else the helper's. */
static PyObject *raw_text(State *st, const unsigned char *p, Py_ssize_t n) {
    if (!p) return PyUnicode_FromStringAndSize("", 0);
    if (n && p[0] == '"') {
        Cur c = {p, p + n};
        Str s;
        if (scan_string(&c, &s) != OK) {
            PyErr_SetString(PyExc_ValueError, "bad string");
            return NULL;
        }
        return str_obj(&s);
    }
    PyObject *b = PyBytes_FromStringAndSize((const char *)p, n);
    if (!b) return NULL;
    PyObject *r = PyObject_CallOneArg(st->raw_text, b);
    Py_DECREF(b);
    return r;
}

/* ``Msg.text()``: the parts' texts joined by line breaks (st->parts: the parsed message). */
static PyObject *message_text(State *st) {
    PyObject *texts = PyList_New(st->parts.n);
    if (!texts) return NULL;
    for (Py_ssize_t i = 0; i < st->parts.n; i++) {
        Part *pt = &st->parts.parts[i];
        PyObject *t;
        if (pt->has_type && str_eq(&pt->type, "tool_call")) {
            PyObject *name = text_of_str(&pt->name, pt->has_name);
            PyObject *args = name ? raw_text(st, pt->args, pt->args_n) : NULL;
            t = args ? PyUnicode_FromFormat("%U(%U)", name, args) : NULL;
            Py_XDECREF(name);
            Py_XDECREF(args);
        } else if (pt->has_type && str_eq(&pt->type, "tool_call_response")) {
            if (pt->resp)
                t = raw_text(st, pt->resp, pt->resp_n);
            else
                t = raw_text(st, pt->result, pt->result_n);
        } else if (pt->content_set) {
            t = text_of_str(&pt->content, pt->has_content);
        } else if (pt->text_set) {
            t = text_of_str(&pt->text, pt->has_text);
        } else {
            t = PyUnicode_FromStringAndSize("", 0);
        }
        if (!t) {
            Py_DECREF(texts);
            return NULL;
        }
        PyList_SET_ITEM(texts, i, t);
    }
    PyObject *nl = PyUnicode_FromString("\n");
    PyObject *r = nl ? PyUnicode_Join(nl, texts) : NULL;
    Py_XDECREF(nl);
    Py_DECREF(texts);
    return r;
}

static PyObject *paragraphs_of(State *st, PyObject *text) {
    PyObject *found = memo_call(st->paragraphs_memo, st->paragraphs, text);
    if (found && !PyTuple_Check(found)) {
        Py_DECREF(found);
        PyErr_SetString(PyExc_TypeError, "paragraphs: a tuple");
        return NULL;
    }
    return found;
}

/* The paragraphs of each text, in order, as one list. */
static PyObject *all_paragraphs(State *st, PyObject *texts) {
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(texts);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *paras = paragraphs_of(st, PySequence_Fast_GET_ITEM(texts, i));
        if (!paras) {
            Py_DECREF(out);
            return NULL;
        }
        for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(paras); j++) {
            if (PyList_Append(out, PyTuple_GET_ITEM(paras, j)) < 0) {
                Py_DECREF(paras);
                Py_DECREF(out);
                return NULL;
            }
        }
        Py_DECREF(paras);
    }
    return out;
}

/* ``_system``: the instruction texts and their paragraphs, memoized on the raw value. */
static int system_of(State *st, const Slot *sys) {
    if (st->prev_system && st->prev_system_n == sys->s.n &&
        memcmp(st->prev_system, sys->s.p, (size_t)sys->s.n) == 0)
        return OK;
    PyObject *text = str_obj(&sys->s);
    if (!text) return helper_failed();
    PyObject *texts = PyObject_CallOneArg(st->system_parts, text);
    Py_DECREF(text);
    if (!texts) return helper_failed();
    if (texts == Py_None || !PyTuple_Check(texts)) {
        Py_DECREF(texts);
        return BAIL;
    }
    PyObject *parts = all_paragraphs(st, texts);
    if (!parts) {
        Py_DECREF(texts);
        return helper_failed();
    }
    Py_XSETREF(st->system_memo_texts, texts);
    Py_XSETREF(st->system_memo_parts, parts);
    st->prev_system = sys->s.p;
    st->prev_system_n = sys->s.n;
    st->system_done = 0;
    return OK;
}

static int system_part(State *st, PyObject *text, Py_ssize_t ordinal, Py_ssize_t index) {
    PyObject *part_id = PyUnicode_FromFormat("system-instructions.p%zd", ordinal);
    if (!part_id) return ERR;
    Py_ssize_t n = 1;
    for (;;) {
        int has = PySet_Contains(st->part_ids, part_id);
        if (has < 0) goto fail;
        if (!has) break;
        n++;
        Py_SETREF(part_id, PyUnicode_FromFormat("system-instructions.p%zd.v%zd", ordinal, n));
        if (!part_id) return ERR;
    }
    if (PySet_Add(st->part_ids, part_id) < 0) goto fail;
    PyObject *step = PyUnicode_FromFormat("%U#%zd", part_id, index);
    if (!step) goto fail;
    Py_DECREF(part_id);
    int r = PyDict_SetItem(st->system_parts_by_text, text, step);
    if (r == 0) r = PyList_Append(st->commits, step);
    Py_DECREF(step);
    if (r < 0) return ERR;
    st->typed++; /* context.injected */
    return OK;
fail:
    Py_DECREF(part_id);
    return ERR;
}

/* ``_plain``: a message committed once per (position, role, text). */
static int plain(State *st, Py_ssize_t i, const Str *role, int has_role, Py_ssize_t index) {
    PyObject *role_s;
    if (!has_role || role->n == 0 || is_redacted(role))
        role_s = PyUnicode_FromString("user");
    else
        role_s = str_obj(role);
    if (!role_s) return helper_failed();
    PyObject *text = message_text(st);
    if (!text) {
        Py_DECREF(role_s);
        return helper_failed();
    }
    PyObject *pos = PyLong_FromSsize_t(i);
    PyObject *key = pos ? PyTuple_Pack(3, pos, role_s, text) : NULL;
    Py_XDECREF(pos);
    Py_DECREF(text);
    if (!key) {
        Py_DECREF(role_s);
        return ERR;
    }
    int has = PySet_Contains(st->messages, key);
    int r = OK;
    if (has < 0) {
        r = ERR;
    } else if (!has) {
        if (PySet_Add(st->messages, key) < 0) {
            r = ERR;
        } else {
            PyObject *clean_role = cleaned(st, role_s);
            PyObject *step =
                clean_role ? PyUnicode_FromFormat("message:%U.%zd#%zd", clean_role, i, index) : NULL;
            Py_XDECREF(clean_role);
            if (!step)
                r = helper_failed();
            else {
                r = commit(st, step);
                Py_DECREF(step);
            }
        }
    }
    Py_DECREF(key);
    Py_DECREF(role_s);
    return r;
}

/* ``_message``: handle one non-system message of the window; its outcome (1: settled). */
static int handle_message(State *st, Window *w, Py_ssize_t i, Py_ssize_t index, int *settled) {
    Entry *e = &w->e[i];
    Str role;
    int has_role;
    *settled = 0;
    if (e->cat == C_SYSTEM) return OK;
    TRY(parse_message(st, w->buf + e->off, e->n, &role, &has_role));
    if (e->cat == C_ASSISTANT) {
        for (Py_ssize_t k = 0; k < st->parts.n; k++) {
            Part *pt = &st->parts.parts[k];
            if (!pt->has_type || !str_eq(&pt->type, "tool_call") || !pt->has_id || pt->id.n == 0 ||
                is_redacted(&pt->id))
                continue;
            PyObject *id = str_obj(&pt->id);
            if (!id) return helper_failed();
            PyObject *llm = PyDict_GetItemWithError(st->llm_by_call_id, id);
            Py_DECREF(id);
            if (llm) {
                *settled = 1; /* (read by id: not counted) */
                return OK;
            }
            if (PyErr_Occurred()) return ERR;
        }
        return BAIL; /* matched by content, or a plain message: the Python fast path */
    }
    if (e->cat == C_TOOL) {
        for (Py_ssize_t k = 0; k < st->parts.n; k++) {
            Part *pt = &st->parts.parts[k];
            if (!pt->has_type || !str_eq(&pt->type, "tool_call_response")) continue;
            if (!pt->has_id || pt->id.n == 0 || is_redacted(&pt->id)) return BAIL;
            PyObject *id = str_obj(&pt->id);
            if (!id) return helper_failed();
            PyObject *tool = PyDict_GetItemWithError(st->tool_by_id, id);
            Py_DECREF(id);
            if (!tool) return PyErr_Occurred() ? ERR : BAIL;
            /* (no id is adopted on this path: a tool span without one is declined) */
        }
        *settled = 1;
        return OK;
    }
    return plain(st, i, &role, has_role, index);
}

/* ``read`` of a document's key by the call being handled: counted once per call (by content
 * or by structure), or only noted (by id). */
static int read_doc(State *st, PyObject *doc_id, PyObject *by) {
    PyObject *key = PyUnicode_FromFormat("doc:%U", doc_id);
    if (!key) return ERR;
    int has = PySet_Contains(st->doc_keys, key);
    int r = has < 0 ? ERR : OK;
    if (has == 0) {
        if (PySet_Add(st->doc_keys, key) < 0)
            r = ERR;
        else if (by == st->v_content)
            st->by_content++;
        else if (by == st->v_structure)
            st->by_structure++;
    }
    Py_DECREF(key);
    return r;
}

static int add_all(PyObject *set, PyObject *items) {
    Py_ssize_t n = PySet_GET_SIZE(items);
    if (!n) return OK;
    PyObject *it = PyObject_GetIter(items);
    if (!it) return ERR;
    PyObject *item;
    int r = OK;
    while ((item = PyIter_Next(it)) != NULL) {
        if (PySet_Add(set, item) < 0) r = ERR;
        Py_DECREF(item);
        if (r != OK) break;
    }
    Py_DECREF(it);
    return r == OK && !PyErr_Occurred() ? OK : ERR;
}

/* ``flush_retrievals``: commit the pending retrievals, their documents joining ``docs``;
 * returns (a new set) the input parts that turned out to be documents. ``inputs``: a list of
 * str, or NULL for none. */
static PyObject *flush_retrievals(State *st, PyObject *inputs) {
    PyObject *owned = PySet_New(NULL);
    if (!owned) return NULL;
    Py_ssize_t np = PyList_GET_SIZE(st->pending), ni = inputs ? PyList_GET_SIZE(inputs) : 0;
    for (Py_ssize_t i = 0; i < np; i++) {
        PyObject *entry = PyList_GET_ITEM(st->pending, i);
        PyObject *step = PyTuple_GET_ITEM(entry, 0), *found = PyTuple_GET_ITEM(entry, 1);
        for (Py_ssize_t d = 0; d < PyList_GET_SIZE(found); d++) {
            PyObject *pair = PyList_GET_ITEM(found, d);
            PyObject *doc_id = PyTuple_GET_ITEM(pair, 0), *content = PyTuple_GET_ITEM(pair, 1);
            PyObject *by = st->v_content;
            if (content == Py_None) {
                for (Py_ssize_t t = 0; t < ni; t++) {
                    PyObject *part = PyList_GET_ITEM(inputs, t);
                    int c = PyUnicode_Contains(part, doc_id);
                    if (c < 0) goto fail;
                    if (c) {
                        content = part;
                        by = st->v_id;
                        if (PySet_Add(owned, part) < 0) goto fail;
                        break;
                    }
                }
            } else if (PyUnicode_GET_LENGTH(content) >= MIN_DOC_CHARS) {
                for (Py_ssize_t t = 0; t < ni; t++) {
                    PyObject *part = PyList_GET_ITEM(inputs, t);
                    int c = PyUnicode_Contains(part, content);
                    if (c < 0 || (c && PySet_Add(owned, part) < 0)) goto fail;
                }
            }
            if (content != Py_None && PySet_Add(owned, content) < 0) goto fail;
            PyObject *doc = PyList_New(4);
            if (!doc) goto fail;
            Py_INCREF(doc_id);
            Py_INCREF(content);
            Py_INCREF(by);
            Py_INCREF(Py_False);
            PyList_SET_ITEM(doc, 0, doc_id);
            PyList_SET_ITEM(doc, 1, content);
            PyList_SET_ITEM(doc, 2, by);
            PyList_SET_ITEM(doc, 3, Py_False);
            int r = PyList_Append(st->docs, doc);
            Py_DECREF(doc);
            if (r < 0) goto fail;
            st->typed++; /* context.injected */
        }
        if (commit(st, step) != OK) goto fail;
    }
    if (np && PyList_SetSlice(st->pending, 0, np, NULL) < 0) goto fail;
    return owned;
fail:
    Py_DECREF(owned);
    return NULL;
}

/* A document list entry's "consumed" flag. */
static void consume(PyObject *doc) {
    Py_INCREF(Py_True);
    Py_SETREF(PyList_GET_ITEM(doc, 3), Py_True);
}

/* ``structural_reads`` (a call without content: it read the last output, its tools, and the
 * documents not read yet). */
static int structural_reads(State *st) {
    if (st->last_llm) {
        st->by_structure++;
        Py_ssize_t n = PyList_GET_SIZE(st->last_asked);
        if (n <= 1) {
            st->by_structure += n;
        } else {
            PyObject *seen = PySet_New(NULL);
            if (!seen) return ERR;
            for (Py_ssize_t i = 0; i < n; i++) {
                PyObject *key = PyList_GET_ITEM(st->last_asked, i);
                int has = PySet_Contains(seen, key);
                if (has < 0 || (!has && PySet_Add(seen, key) < 0)) {
                    Py_DECREF(seen);
                    return ERR;
                }
                if (!has) st->by_structure++;
            }
            Py_DECREF(seen);
        }
    }
    Py_ssize_t nd = PyList_GET_SIZE(st->docs);
    for (Py_ssize_t i = 0; i < nd; i++) {
        PyObject *doc = PyList_GET_ITEM(st->docs, i);
        if (PyList_GET_ITEM(doc, 3) == Py_True) continue;
        if (read_doc(st, PyList_GET_ITEM(doc, 0), st->v_structure) != OK) return ERR;
        consume(doc);
    }
    return nd && PyList_SetSlice(st->docs, 0, nd, NULL) < 0 ? ERR : OK;
}

/* The texts of the window's messages (``Msg.text()``), all of them or the non-system ones. */
static PyObject *window_texts(State *st, const Window *w, int non_system) {
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    for (Py_ssize_t t = 0; t < w->n; t++) {
        if (non_system && w->e[t].cat == C_SYSTEM) continue;
        Str role;
        int has_role;
        if (parse_message(st, w->buf + w->e[t].off, w->e[t].n, &role, &has_role) != OK) {
            PyErr_SetString(PyExc_ValueError, "a message read before");
            Py_DECREF(out);
            return NULL;
        }
        PyObject *text = message_text(st);
        if (!text || PyList_Append(out, text) < 0) {
            Py_XDECREF(text);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(text);
    }
    return out;
}

/* The pending retrievals flushed before a call with content: its input parts (instruction
 * paragraphs, then the lines of its other messages) may quote or name their documents. */
static int flush_before_call(State *st, const Window *w, PyObject *parts) {
    PyObject *inputs = parts ? PySequence_List(parts) : PyList_New(0);
    PyObject *texts = inputs ? window_texts(st, w, 1) : NULL;
    if (!texts) {
        Py_XDECREF(inputs);
        return helper_failed();
    }
    for (Py_ssize_t t = 0; t < PyList_GET_SIZE(texts); t++) {
        PyObject *lines = PyUnicode_Splitlines(PyList_GET_ITEM(texts, t), 0);
        int r = lines ? OK : ERR;
        for (Py_ssize_t k = 0; r == OK && k < PyList_GET_SIZE(lines); k++)
            if (PyList_Append(inputs, PyList_GET_ITEM(lines, k)) < 0) r = ERR;
        Py_XDECREF(lines);
        if (r != OK) {
            Py_DECREF(texts);
            Py_DECREF(inputs);
            return ERR;
        }
    }
    Py_DECREF(texts);
    PyObject *owned = flush_retrievals(st, inputs);
    Py_DECREF(inputs);
    if (!owned) return ERR;
    int r = add_all(st->doc_parts, owned);
    Py_DECREF(owned);
    return r;
}

/* The documents the call's messages quote (read by content or id), or that have none to quote
 * (read by structure, once). */
static int read_documents(State *st, const Window *w) {
    Py_ssize_t nd = PyList_GET_SIZE(st->docs);
    if (!nd) return OK;
    PyObject *texts = window_texts(st, w, 0);
    if (!texts) return helper_failed();
    PyObject *nl = PyUnicode_FromString("\n");
    PyObject *all_text = nl ? PyUnicode_Join(nl, texts) : NULL;
    Py_XDECREF(nl);
    Py_DECREF(texts);
    PyObject *keep = all_text ? PyList_New(0) : NULL;
    if (!keep) {
        Py_XDECREF(all_text);
        return ERR;
    }
    int r = OK;
    for (Py_ssize_t i = 0; i < nd && r == OK; i++) {
        PyObject *doc = PyList_GET_ITEM(st->docs, i);
        PyObject *content = PyList_GET_ITEM(doc, 1);
        int consumed = PyList_GET_ITEM(doc, 3) == Py_True;
        int has_content = content != Py_None && PyUnicode_GET_LENGTH(content) > 0;
        if (has_content) {
            int c = PyUnicode_Contains(all_text, content);
            if (c < 0) {
                r = ERR;
                break;
            }
            if (c) {
                r = read_doc(st, PyList_GET_ITEM(doc, 0), PyList_GET_ITEM(doc, 2));
                consume(doc);
                if (r == OK && PyList_Append(keep, doc) < 0) r = ERR;
                continue;
            }
        } else if (!consumed) {
            r = read_doc(st, PyList_GET_ITEM(doc, 0), st->v_structure);
            consume(doc);
            continue;
        }
        if (!consumed && PyList_Append(keep, doc) < 0) r = ERR;
    }
    Py_DECREF(all_text);
    if (r == OK) Py_SETREF(st->docs, keep);
    else Py_DECREF(keep);
    return r;
}

/* ``Sources.llm_start``. */
static int llm_start(State *st, const Span *sp, Py_ssize_t index) {
    const Slot *sys = &sp->v[S_SYSTEM], *in = &sp->v[S_INPUT];
    if (PySet_GET_SIZE(st->doc_keys) && PySet_Clear(st->doc_keys) < 0) return ERR;
    if (!sys->present && !in->present && !sp->v[S_OUTPUT].present) {
        PyObject *owned = flush_retrievals(st, NULL);
        if (!owned) return ERR;
        Py_DECREF(owned);
        st->uncaptured++;
        return structural_reads(st);
    }
    Window *prev = &st->win, *cur = &st->next;
    Py_ssize_t skip = 0, k = 0;
    if (in->present) {
        view_of(cur, st->ss, in);
        TRY(split_window(cur, prev, &skip, &k));
    } else {
        cur->buf = NULL;
        cur->len = 0;
        cur->n = 0;
    }
    Py_ssize_t n = cur->n;
    int has_system_msg = 0;
    for (Py_ssize_t t = 0; t < skip; t++) {
        cur->e[t].cat = prev->e[k + t].cat;
        cur->e[t].settled = prev->e[k + t].settled;
        if (cur->e[t].cat == C_SYSTEM && st->prev_has_system) has_system_msg = 1;
    }
    for (Py_ssize_t t = skip; t < n; t++) {
        Str role;
        int has_role;
        TRY(parse_message(st, cur->buf + cur->e[t].off, cur->e[t].n, &role, &has_role));
        cur->e[t].cat = category(&role, has_role);
        cur->e[t].settled = 0;
        if (cur->e[t].cat == C_SYSTEM) has_system_msg = 1;
    }
    /* the window moves on */
    {
        Window moved = st->win;
        st->win = st->next;
        st->next = moved;
    }
    prev = NULL;
    cur = &st->win;
    st->prev_has_system = has_system_msg;

    PyObject *parts = NULL; /* a new reference, or NULL for none */
    if (sys->present) {
        TRY(system_of(st, sys));
        parts = st->system_memo_parts;
        Py_INCREF(parts);
    }
    if (has_system_msg) {
        PyObject *texts = st->system_memo_texts && sys->present ? PySequence_List(st->system_memo_texts)
                                                                : PyList_New(0);
        if (!texts) {
            Py_XDECREF(parts);
            return ERR;
        }
        for (Py_ssize_t t = 0; t < n; t++) {
            if (cur->e[t].cat != C_SYSTEM) continue;
            Str role;
            int has_role, r = parse_message(st, cur->buf + cur->e[t].off, cur->e[t].n, &role, &has_role);
            PyObject *text = r == OK ? message_text(st) : NULL;
            if (!text || PyList_Append(texts, text) < 0) {
                Py_XDECREF(text);
                Py_DECREF(texts);
                Py_XDECREF(parts);
                return r != OK ? r : helper_failed();
            }
            Py_DECREF(text);
        }
        Py_XSETREF(parts, all_paragraphs(st, texts));
        Py_DECREF(texts);
        if (!parts) return helper_failed();
    }
    if (PyList_GET_SIZE(st->pending)) {
        int r = flush_before_call(st, cur, parts);
        if (r != OK) {
            Py_XDECREF(parts);
            return r;
        }
    }
    if (has_system_msg || !st->system_done) {
        if (parts) {
            Py_ssize_t np = PyList_GET_SIZE(parts);
            for (Py_ssize_t t = 0; t < np; t++) {
                PyObject *part = PyList_GET_ITEM(parts, t);
                int has = PySet_Contains(st->doc_parts, part);
                if (!has) has = PyDict_Contains(st->system_parts_by_text, part);
                if (has < 0) {
                    Py_DECREF(parts);
                    return ERR;
                }
                if (!has) {
                    int r = system_part(st, part, t + 1, index);
                    if (r != OK) {
                        Py_DECREF(parts);
                        return r;
                    }
                }
            }
        }
        st->system_done = sys->present;
    }
    Py_XDECREF(parts);

    Py_ssize_t first = 0;
    if (skip) {
        int all = 1;
        for (Py_ssize_t t = 0; t < skip && all; t++) all = cur->e[t].settled;
        if (all) first = skip;
    }
    for (Py_ssize_t i = first; i < n; i++) {
        if (i < skip && cur->e[i].settled) continue;
        int settled;
        TRY(handle_message(st, cur, i, index, &settled));
        cur->e[i].settled = settled;
    }
    return read_documents(st, cur);
}

/* ``Sources.llm_end``: how many tool calls the output asks for. */
static int llm_end(State *st, const Span *sp, PyObject *step, Py_ssize_t *asked) {
    const Slot *out = &sp->v[S_OUTPUT];
    *asked = 0;
    if (out->present) {
        Window *w = &st->next; /* (scratch: the window's spare entries) */
        view_of(w, st->ss, out);
        TRY(split_array(w));
        for (Py_ssize_t t = 0; t < w->n; t++) {
            Str role;
            int has_role;
            TRY(parse_message(st, w->buf + w->e[t].off, w->e[t].n, &role, &has_role));
            for (Py_ssize_t k = 0; k < st->parts.n; k++) {
                Part *pt = &st->parts.parts[k];
                if (!pt->has_type || !str_eq(&pt->type, "tool_call")) continue;
                (*asked)++;
                PyObject *id = text_of_str(&pt->id, pt->has_id);
                PyObject *name = id ? text_of_str(&pt->name, pt->has_name) : NULL;
                int r = name ? 0 : -1;
                if (!r && PyUnicode_GET_LENGTH(id)) r = PyDict_SetItem(st->llm_by_call_id, id, step);
                if (!r) r = PyDict_SetItem(st->llm_by_tool_name, name, step);
                Py_XDECREF(id);
                Py_XDECREF(name);
                if (r < 0) return helper_failed();
            }
        }
        w->n = 0;
    }
    TRY(commit(st, step));
    Py_INCREF(step);
    Py_XSETREF(st->last_llm, step);
    if (PyList_SetSlice(st->last_asked, 0, PyList_GET_SIZE(st->last_asked), NULL) < 0) return ERR;
    return OK;
}

static int set_item(PyObject *d, PyObject *k, PyObject *v) {
    if (!v) return ERR;
    int r = PyDict_SetItem(d, k, v);
    Py_DECREF(v);
    return r < 0 ? ERR : OK;
}

static int llm_span(State *st, const Span *sp, Py_ssize_t index) {
    const Slot *op = &sp->v[S_OP];
    PyObject *label = memo_str(&st->label, op->present && op->s.n ? &op->s : &sp->name);
    if (!label) return helper_failed();
    Py_DECREF(label);
    PyObject *clean_label = memo_clean(st, &st->label);
    if (!clean_label) return helper_failed();
    PyObject *step = step_id("", clean_label, index);
    Py_DECREF(clean_label);
    if (!step) return ERR;
    int r = ERR;
    PyObject *model = NULL, *call = NULL, *row = NULL, *tools = NULL;
    const Slot *m = &sp->v[S_RESP_MODEL];
    if (!m->present || m->s.n == 0) m = &sp->v[S_REQ_MODEL];
    if (m->present && !is_redacted(&m->s))
        model = memo_str(&st->model, &m->s);
    else
        model = PyUnicode_FromStringAndSize("", 0);
    if (!model) {
        r = helper_failed();
        goto done;
    }
    Py_ssize_t k = PyList_GET_SIZE(st->llm_rows);
    call = PyDict_New();
    if (!call || PyDict_SetItem(call, st->k_step, step) < 0 ||
        PyDict_SetItem(call, st->k_type, st->v_llm) < 0 ||
        set_item(call, st->k_llm_index, PyLong_FromSsize_t(k)) != OK ||
        PyDict_SetItem(call, st->k_model, model) < 0)
        goto done;
    r = llm_start(st, sp, index);
    if (r != OK) goto done;
    Py_ssize_t asked;
    r = llm_end(st, sp, step, &asked);
    if (r != OK) goto done;
    r = BAIL;
    const Slot *ti = &sp->v[S_T_IN], *to = &sp->v[S_T_OUT];
    if (!ti->present && !to->present) goto done; /* no usage */
    int64_t tin = ti->present ? ti->i : 0, tout = to->present ? to->i : 0;
    if (tin < 0 || tin > MAX_COUNT || tout < 0 || tout > MAX_COUNT) goto done;
    st->tok_in += (double)tin;
    st->tok_out += (double)tout;
    PyObject *finish = NULL;
    const Slot *fr = &sp->v[S_FINISH];
    if (fr->present && !(fr->reasons_array && fr->reasons_empty)) {
        if (fr->reasons_array)
            finish = text_of_str(&fr->s, 1);
        else
            finish = str_obj(&fr->s);
        if (!finish) {
            r = helper_failed();
            goto done;
        }
    }
    PyObject *stop;
    if (sp->failed)
        stop = st->v_error;
    else if (finish && PyUnicode_GET_LENGTH(finish))
        stop = finish;
    else
        stop = asked ? st->v_tool_calls : st->v_stop;
    Py_INCREF(stop);
    Py_XDECREF(finish);
    if (!asked) st->llm_to_user++;
    r = ERR;
    tools = PyList_New(0);
    PyObject *tokens = PyDict_New();
    if (!tools || !tokens || set_item(tokens, st->k_input, PyLong_FromLongLong(tin)) != OK ||
        set_item(tokens, st->k_output, PyLong_FromLongLong(tout)) != OK ||
        PyDict_SetItem(call, st->k_tokens, tokens) < 0) {
        Py_XDECREF(tokens);
        Py_DECREF(stop);
        goto done;
    }
    Py_DECREF(tokens);
    int failed = PyUnicode_CompareWithASCIIString(stop, "error") == 0;
    if (failed && PyDict_SetItem(call, st->k_failed, Py_True) < 0) {
        Py_DECREF(stop);
        goto done;
    }
    {
        PyObject *args[8];
        args[0] = PyLong_FromSsize_t(k);
        args[1] = step;
        args[2] = model;
        args[3] = PyLong_FromLongLong(tin);
        args[4] = PyLong_FromLongLong(tout);
        args[5] = PyLong_FromLongLong(sp->end / 1000000 - sp->start / 1000000);
        args[6] = stop;
        args[7] = tools;
        if (args[0] && args[3] && args[4] && args[5])
            row = PyObject_Vectorcall(st->row_type, args, 0, st->kw_row);
        Py_XDECREF(args[0]);
        Py_XDECREF(args[3]);
        Py_XDECREF(args[4]);
        Py_XDECREF(args[5]);
    }
    Py_DECREF(stop);
    if (!row || PyList_Append(st->llm_rows, row) < 0 || PyList_Append(st->calls, call) < 0) goto done;
    Py_INCREF(tools);
    Py_XSETREF(st->last_row_tools, tools);
    r = OK;
done:
    Py_DECREF(step);
    Py_XDECREF(model);
    Py_XDECREF(call);
    Py_XDECREF(row);
    Py_XDECREF(tools);
    return r;
}

static int tool_span(State *st, const Span *sp, Py_ssize_t index) {
    const Slot *tn = &sp->v[S_TOOL_NAME], *cid = &sp->v[S_CALL_ID];
    PyObject *tool;
    if (tn->present && tn->s.n && !is_redacted(&tn->s)) {
        tool = memo_str(&st->tool, &tn->s);
    } else {
        return BAIL; /* (the name from the span's name: the Python fast path) */
    }
    if (!tool) return helper_failed();
    if (!cid->present || cid->s.n == 0 || is_redacted(&cid->s)) {
        Py_DECREF(tool);
        return BAIL; /* no call id: a result's id, or one adopted from the asking call */
    }
    int r = ERR;
    PyObject *step = NULL, *call = NULL, *call_id = NULL, *key = NULL;
    PyObject *clean_tool = memo_clean(st, &st->tool);
    if (!clean_tool) {
        r = helper_failed();
        goto done;
    }
    step = step_id("execute_tool:", clean_tool, index);
    Py_DECREF(clean_tool);
    if (!step) goto done;
    call = PyDict_New();
    if (!call || PyDict_SetItem(call, st->k_step, step) < 0 ||
        PyDict_SetItem(call, st->k_type, st->v_tool) < 0 ||
        PyDict_SetItem(call, st->k_tool_name, tool) < 0 || PyList_Append(st->calls, call) < 0)
        goto done;
    if (st->last_row_tools && PyList_Append(st->last_row_tools, tool) < 0) goto done;
    st->tools++;
    /* the span's end: ``tool_end`` */
    call_id = str_obj(&cid->s);
    if (!call_id) {
        r = helper_failed();
        goto done;
    }
    PyObject *asked = PyDict_GetItemWithError(st->llm_by_call_id, call_id);
    if (!asked) {
        if (PyErr_Occurred()) goto done;
        asked = PyDict_GetItemWithError(st->llm_by_tool_name, tool);
        if (asked)
            st->by_content++;
        else if (PyErr_Occurred())
            goto done;
        else if ((asked = st->last_llm) != NULL)
            st->by_structure++;
    }
    key = PyUnicode_FromFormat("tool:%U", call_id);
    if (!key) goto done;
    if (asked && asked == st->last_llm && PyList_Append(st->last_asked, key) < 0) goto done;
    if (commit(st, step) != OK) goto done;
    if (!PyDict_Contains(st->tool_by_id, call_id) && PyDict_SetItem(st->tool_by_id, call_id, step) < 0)
        goto done;
    if (sp->failed && PyDict_SetItem(call, st->k_failed, Py_True) < 0) goto done;
    r = OK;
done:
    Py_DECREF(tool);
    Py_XDECREF(step);
    Py_XDECREF(call);
    Py_XDECREF(call_id);
    Py_XDECREF(key);
    return r;
}

/* ------------------------------------------------------------------ the checks and the run */

typedef struct {
    int64_t start, end;
    Py_ssize_t i;
} Order;

static int by_start(const void *a, const void *b) {
    const Order *x = a, *y = b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int lower_hex(const Str *s) {
    for (uint32_t i = 0; i < s->n; i++) {
        unsigned char b = s->p[i];
        if (!((b >= '0' && b <= '9') || (b >= 'a' && b <= 'f'))) return 0;
    }
    return 1;
}

static int unique(uint64_t *ids, Py_ssize_t n) {
    qsort(ids, (size_t)n, sizeof(uint64_t), cmp_u64);
    for (Py_ssize_t i = 1; i < n; i++)
        if (ids[i] == ids[i - 1]) return 0;
    return 1;
}

/* A retrieval span: its step and documents wait for the next call (``pending``). */
static int retrieval_span(State *st, const Span *sp, Py_ssize_t index) {
    const Slot *ds = &sp->v[S_DATA_SOURCE], *docs = &sp->v[S_DOCUMENTS];
    PyObject *label = ds->present && ds->s.n ? str_obj(&ds->s) : NULL;
    if (!label) {
        if (PyErr_Occurred()) return helper_failed();
        PyObject *name = str_obj(&sp->name);
        if (!name) return helper_failed();
        label = PyObject_CallMethod(name, "removeprefix", "s", "retrieval ");
        Py_DECREF(name);
        if (!label) return helper_failed();
    }
    PyObject *step;
    if (PyUnicode_CompareWithASCIIString(label, "retrieval") == 0 ||
        PyUnicode_CompareWithASCIIString(label, "retrieve") == 0) {
        step = PyUnicode_FromFormat("retrieval#%zd", index);
    } else {
        PyObject *clean_label = cleaned(st, label);
        step = clean_label ? step_id("retrieval:", clean_label, index) : NULL;
        Py_XDECREF(clean_label);
    }
    Py_DECREF(label);
    if (!step) return helper_failed();
    PyObject *found;
    if (docs->present) {
        char sid[17];
        snprintf(sid, sizeof(sid), "%016llx", (unsigned long long)sp->sid);
        PyObject *text = str_obj(&docs->s);
        found = text ? PyObject_CallFunction(st->documents, "Os", text, sid) : NULL;
        Py_XDECREF(text);
    } else {
        found = PyList_New(0);
    }
    if (!found) {
        Py_DECREF(step);
        return helper_failed();
    }
    /* (the helper gives [(id: str, content: str | None)]; anything else is declined) */
    int ok = PyList_CheckExact(found);
    for (Py_ssize_t i = 0; ok && i < PyList_GET_SIZE(found); i++) {
        PyObject *pair = PyList_GET_ITEM(found, i);
        ok = PyTuple_CheckExact(pair) && PyTuple_GET_SIZE(pair) == 2 &&
             PyUnicode_CheckExact(PyTuple_GET_ITEM(pair, 0)) &&
             (PyTuple_GET_ITEM(pair, 1) == Py_None || PyUnicode_CheckExact(PyTuple_GET_ITEM(pair, 1)));
    }
    PyObject *entry = ok ? PyTuple_Pack(2, step, found) : NULL;
    Py_DECREF(step);
    Py_DECREF(found);
    if (!entry) return ok ? ERR : BAIL;
    int r = PyList_Append(st->pending, entry);
    Py_DECREF(entry);
    return r < 0 ? ERR : OK;
}

/* One walked child span: an LLM call, a tool call, a retrieval, or a span that is none. */
static int walk_span(State *st, const Span *sp, Py_ssize_t index) {
    switch (role_of(sp)) {
        case R_LLM: return llm_span(st, sp, index);
        case R_TOOL: return tool_span(st, sp, index);
        case R_RETRIEVAL: return retrieval_span(st, sp, index);
        case R_OTHER:
        case R_EMBEDDING: return OK;
        default: return BAIL; /* a nested agent */
    }
}

/* The walk's end (the root's): retrievals no call read are committed all the same. */
static int walk_end(State *st) {
    PyObject *owned = flush_retrievals(st, NULL);
    if (!owned) return ERR;
    Py_DECREF(owned);
    return OK;
}

/* The streaming walk's step: a span just read (``Span *sp``, its content in ss->arena). */
static int stream_span(Spans *ss, Span *sp) {
    State *st = ss->state;
    if (!ss->have_trace) {
        ss->trace = sp->trace;
        ss->have_trace = 1;
    } else if (memcmp(sp->trace.p, ss->trace.p, 32) != 0) {
        return BAIL; /* several traces */
    }
    ss->sids[ss->n - 1] = sp->sid; /* (add_span counted it) */
    if (sp->end < sp->start) return BAIL;
    if (!sp->has_parent) {
        if (ss->have_root) return BAIL; /* several roots */
        ss->have_root = 1;
        ss->root = *sp;
        ss->root_role = role_of(sp);
        return OK;
    }
    if (!ss->have_kid) {
        ss->have_kid = 1;
        ss->kid_pid = sp->pid;
        ss->kid_min = sp->start;
        ss->kid_max = sp->end;
    } else {
        if (sp->pid != ss->kid_pid) return BAIL; /* nested: the Python fast path */
        if (sp->start < ss->last_start || (sp->start == ss->last_start && sp->end < ss->last_end))
            return REDO;
        if (sp->start < ss->kid_min) ss->kid_min = sp->start;
        if (sp->end > ss->kid_max) ss->kid_max = sp->end;
    }
    ss->last_start = sp->start;
    ss->last_end = sp->end;
    ++ss->kids;
    if (ss->walk_declined) return OK;
    /* A call can decline because a span it depends on comes later in the file (end order): the
     * rest is still read, and if the order breaks the table walk answers. */
    int r = walk_span(st, sp, ss->kids);
    if (r == BAIL) {
        ss->walk_declined = 1;
        return OK;
    }
    if (r != OK) return r;
    if (sp->v[S_INPUT].present) { /* the window now lives in this buffer: write the next one */
        unsigned char *t = ss->arena;
        ss->arena = ss->spare;
        ss->spare = t;
    }
    return OK;
}

/* Whether the streamed trace is one flat run, as ``otlp_walk`` requires. */
static int check_stream(Spans *ss) {
    if (ss->walk_declined || !ss->have_root || !ss->have_trace || !lower_hex(&ss->trace)) return BAIL;
    if (!unique(ss->sids, ss->n)) return BAIL;
    if (ss->have_kid) {
        const Span *root = &ss->root;
        if (ss->kid_pid != root->sid) return BAIL;
        if (ss->kid_min < root->start || ss->kid_max > root->end) return BAIL;
        int role = ss->root_role;
        if (role == R_LLM || role == R_TOOL || role == R_RETRIEVAL) return BAIL;
    }
    return OK;
}

/* The table walk: every span read first, then the root's children in start order. */
static int walk_table(Spans *ss, State *st) {
    Py_ssize_t n = ss->n, root = -1;
    if (!n) return BAIL;
    ss->trace = ss->spans[0].trace;
    if (!lower_hex(&ss->trace)) return BAIL;
    for (Py_ssize_t i = 0; i < n; i++) {
        Span *sp = &ss->spans[i];
        if (memcmp(sp->trace.p, ss->trace.p, 32) != 0) return BAIL;
        if (sp->end < sp->start) return BAIL;
        if (!sp->has_parent) {
            if (root >= 0) return BAIL; /* several roots */
            root = i;
        }
        ss->sids[i] = sp->sid;
    }
    if (root < 0 || !unique(ss->sids, n)) return BAIL;
    const Span *rs = &ss->spans[root];
    for (Py_ssize_t i = 0; i < n; i++) {
        const Span *sp = &ss->spans[i];
        if (i == root) continue;
        if (sp->pid != rs->sid) return BAIL;
        if (sp->start < rs->start || sp->end > rs->end) return BAIL;
    }
    if (n > 1) {
        int role = role_of(rs);
        if (role == R_LLM || role == R_TOOL || role == R_RETRIEVAL) return BAIL;
    }
    ss->root = *rs;
    Order *order = PyMem_Malloc((size_t)n * sizeof(Order));
    if (!order) {
        PyErr_NoMemory();
        return ERR;
    }
    Py_ssize_t m = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (i == root) continue;
        order[m].start = ss->spans[i].start;
        order[m].end = ss->spans[i].end;
        order[m].i = i;
        m++;
    }
    qsort(order, (size_t)m, sizeof(Order), by_start);
    int r = OK;
    for (Py_ssize_t t = 0; t < m && r == OK; t++) {
        if ((t & 4095) == 4095 && PyErr_CheckSignals() < 0) r = ERR;
        if (r == OK) r = walk_span(st, &ss->spans[order[t].i], t + 1);
    }
    PyMem_Free(order);
    return r;
}

static void window_free(Window *w) {
    PyMem_Free(w->e);
    w->e = NULL;
    w->ecap = 0;
    w->n = 0;
}

static PyObject *intern(const char *s) { return PyUnicode_InternFromString(s); }

static void state_clear(State *st) {
    memo_clear(&st->label);
    memo_clear(&st->model);
    memo_clear(&st->tool);
    Py_CLEAR(st->pending);
    Py_CLEAR(st->docs);
    Py_CLEAR(st->doc_parts);
    Py_CLEAR(st->doc_keys);
    Py_CLEAR(st->v_content);
    Py_CLEAR(st->v_id);
    Py_CLEAR(st->v_structure);
    window_free(&st->win);
    window_free(&st->next);
    PyMem_Free(st->parts.parts);
    st->parts.parts = NULL;
    st->parts.cap = st->parts.n = 0;
    Py_CLEAR(st->kw_row);
    Py_CLEAR(st->llm_rows);
    Py_CLEAR(st->calls);
    Py_CLEAR(st->commits);
    Py_CLEAR(st->llm_by_call_id);
    Py_CLEAR(st->llm_by_tool_name);
    Py_CLEAR(st->tool_by_id);
    Py_CLEAR(st->system_parts_by_text);
    Py_CLEAR(st->part_ids);
    Py_CLEAR(st->messages);
    Py_CLEAR(st->last_asked);
    Py_CLEAR(st->cleaned);
    Py_CLEAR(st->paragraphs_memo);
    Py_CLEAR(st->last_llm);
    Py_CLEAR(st->last_row_tools);
    Py_CLEAR(st->system_memo_texts);
    Py_CLEAR(st->system_memo_parts);
    Py_CLEAR(st->k_step);
    Py_CLEAR(st->k_type);
    Py_CLEAR(st->k_llm_index);
    Py_CLEAR(st->k_model);
    Py_CLEAR(st->k_tokens);
    Py_CLEAR(st->k_input);
    Py_CLEAR(st->k_output);
    Py_CLEAR(st->k_failed);
    Py_CLEAR(st->k_tool_name);
    Py_CLEAR(st->v_llm);
    Py_CLEAR(st->v_tool);
    Py_CLEAR(st->v_error);
    Py_CLEAR(st->v_tool_calls);
    Py_CLEAR(st->v_stop);
}

/* A fresh matching state (the helpers are kept); ERR with an exception on failure. */
static int state_init(State *st, PyObject *helpers[6]) {
    PyObject *row_type = helpers[0], *clean = helpers[1], *paragraphs = helpers[2],
             *system_parts = helpers[3], *raw_text = helpers[4], *documents = helpers[5];
    const Spans *ss = st->ss;
    memset(st, 0, sizeof(*st));
    st->row_type = row_type;
    st->clean = clean;
    st->paragraphs = paragraphs;
    st->system_parts = system_parts;
    st->raw_text = raw_text;
    st->documents = documents;
    st->ss = ss;
    st->pending = PyList_New(0);
    st->docs = PyList_New(0);
    st->doc_parts = PySet_New(NULL);
    st->doc_keys = PySet_New(NULL);
    st->v_content = intern("content");
    st->v_id = intern("id");
    st->v_structure = intern("structure");
    if (!st->pending || !st->docs || !st->doc_parts || !st->doc_keys || !st->v_content ||
        !st->v_id || !st->v_structure)
        return ERR;
    st->kw_row = Py_BuildValue("(ssssssss)", "index", "step", "model", "tokensIn", "tokensOut",
                               "latencyMs", "stopReason", "tools");
    st->llm_rows = PyList_New(0);
    st->calls = PyList_New(0);
    st->commits = PyList_New(0);
    st->llm_by_call_id = PyDict_New();
    st->llm_by_tool_name = PyDict_New();
    st->tool_by_id = PyDict_New();
    st->system_parts_by_text = PyDict_New();
    st->part_ids = PySet_New(NULL);
    st->messages = PySet_New(NULL);
    st->last_asked = PyList_New(0);
    st->cleaned = PyDict_New();
    st->paragraphs_memo = PyDict_New();
    st->k_step = intern("step");
    st->k_type = intern("type");
    st->k_llm_index = intern("llmIndex");
    st->k_model = intern("model");
    st->k_tokens = intern("tokens");
    st->k_input = intern("input");
    st->k_output = intern("output");
    st->k_failed = intern("failed");
    st->k_tool_name = intern("toolName");
    st->v_llm = intern("llm");
    st->v_tool = intern("tool");
    st->v_error = intern("error");
    st->v_tool_calls = intern("tool_calls");
    st->v_stop = intern("stop");
    if (!st->kw_row || !st->llm_rows || !st->calls || !st->commits || !st->llm_by_call_id ||
        !st->llm_by_tool_name || !st->tool_by_id || !st->system_parts_by_text || !st->part_ids ||
        !st->messages || !st->last_asked || !st->cleaned || !st->paragraphs_memo ||
        !st->k_step || !st->k_type || !st->k_llm_index || !st->k_model || !st->k_tokens ||
        !st->k_input || !st->k_output || !st->k_failed || !st->k_tool_name || !st->v_llm ||
        !st->v_tool || !st->v_error || !st->v_tool_calls || !st->v_stop)
        return ERR;
    return OK;
}

static PyObject *scan_aggregate(PyObject *self, PyObject *args) {
    Py_buffer view;
    PyObject *helpers[6];
    if (!PyArg_ParseTuple(args, "y*OOOOOO", &view, &helpers[0], &helpers[1], &helpers[2],
                          &helpers[3], &helpers[4], &helpers[5]))
        return NULL;
    State st;
    Spans ss;
    memset(&st, 0, sizeof(st));
    memset(&ss, 0, sizeof(ss));
    PyObject *result = NULL;
    /* Every span's object holds its kind and its trace, span and time fields: no span takes
     * fewer bytes than MIN_SPAN_BYTES, so no table needs to grow. */
    ss.cap = view.len / MIN_SPAN_BYTES + 1;
    size_t arena_size = (size_t)view.len + 1, ids_size = (size_t)ss.cap * sizeof(uint64_t);
    size_t table_size = (size_t)ss.cap * sizeof(Span);
    unsigned char *arena = big_alloc(arena_size), *spare = big_alloc(arena_size);
    ss.sids = big_alloc(ids_size);
    int r = arena && spare && ss.sids ? OK : BAIL; /* (no room: the Python paths answer) */
    if (r == OK) {
        st.ss = &ss;
        ss.state = &st;
        r = state_init(&st, helpers);
    }
    if (r == OK) {
        ss.stream = 1;
        ss.arena = arena;
        ss.spare = spare;
        r = parse_file(view.buf, view.len, &ss);
        if (r == OK) r = check_stream(&ss);
        if (r == OK) r = walk_end(&st);
    }
    if (r == REDO) { /* out of start order: read into a table, then walk it sorted */
        state_clear(&st);
        r = state_init(&st, helpers);
        Span *table = r == OK ? big_alloc(table_size) : NULL;
        if (r == OK && !table) r = BAIL;
        if (r == OK) {
            uint64_t *sids = ss.sids;
            memset(&ss, 0, sizeof(ss));
            ss.cap = view.len / MIN_SPAN_BYTES + 1;
            ss.state = &st;
            ss.arena = arena;
            ss.spans = table;
            ss.sids = sids;
            r = parse_file(view.buf, view.len, &ss);
            if (r == OK) r = walk_table(&ss, &st);
            if (r == OK) r = walk_end(&st);
            if (r == REDO) r = BAIL;
        }
        big_free(table, table_size);
    }
    if (r == OK && !PyList_GET_SIZE(st.commits)) r = BAIL;
    if (r == OK) {
        const Span *rs = &ss.root;
        PyObject *trace = str_obj(&ss.trace), *name = str_obj(&rs->name);
        if (trace && name)
            result = Py_BuildValue(
                "(NNnLLOOnnOnnnnLL)", trace, name, ss.n, (long long)rs->start, (long long)rs->end,
                st.llm_rows, st.calls, st.tools, st.llm_to_user, st.commits, st.typed,
                st.uncaptured, st.by_content, st.by_structure, (long long)st.tok_in,
                (long long)st.tok_out);
        else {
            Py_XDECREF(trace);
            Py_XDECREF(name);
        }
        if (!result) r = ERR;
    }
    if (r == BAIL) {
        if (PyErr_Occurred()) PyErr_Clear();
        result = Py_None;
        Py_INCREF(result);
    }
    PyBuffer_Release(&view);
    big_free(arena, arena_size);
    big_free(spare, arena_size);
    big_free(ss.sids, ids_size);
    state_clear(&st);
    return result;
}

static PyObject *key_list(PyObject *self, PyObject *unused) {
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    for (int i = 0; i < N_KEYS; i++) {
        PyObject *item = Py_BuildValue("(sii)", KEYS[i].key, KEYS[i].slot, KEYS[i].kind);
        if (!item || PyList_Append(out, item) < 0) {
            Py_XDECREF(item);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(item);
    }
    return out;
}

static PyMethodDef methods[] = {
    {"aggregate", scan_aggregate, METH_VARARGS,
     "aggregate(buffer, row_type, clean, paragraphs, system_parts, raw_text, documents)\n"
     "The facts of a flat OTLP/JSON trace, or None where the Python paths must answer."},
    {"keys", key_list, METH_NOARGS, "The attribute keys read, as (key, slot, kind)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_otlpscan", "The compiled core of afp aggregate's OTLP fast path.",
    -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__otlpscan(void) {
    build_key_table();
    PyObject *m = PyModule_Create(&module);
    if (m && PyModule_AddIntConstant(m, "MIN_DOC_CHARS", MIN_DOC_CHARS) < 0) Py_CLEAR(m);
    return m;
}
