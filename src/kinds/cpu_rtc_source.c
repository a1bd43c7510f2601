/* cpu_rtc_source.c: a user's kernel source made ready for the host C++ compiler. Three things a
 * GPU compiler does from the source itself need the source read here: which extern "C" __global__
 * kernels it defines (each gets an entry the library finds by name, user_prelude.h's
 * HKCPU_KERNEL), storage for `extern __shared__ T name[];` (dynamic shared memory: a thread_local
 * array of HKCPU_SHARED_BYTES), and what GPU-only constructs it uses, to explain a failed compile.
 * The reading is token-level (comments, strings and preprocessor lines skipped), and every change
 * keeps the line numbers, so the compiler's messages point at the user's lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../hip_kernels/cpu/user_abi.h"
#include "kinds/cpu_internal.h"

typedef enum token_kind { IDENT, NUMBER, STRING, PUNCT } token_kind;

typedef struct token {
    token_kind kind;
    size_t start, end;
} token;

typedef struct tokens {
    token *at;
    size_t count, capacity;
} tokens;

static bool push_token(tokens *t, token_kind kind, size_t start, size_t end)
{
    if (t->count == t->capacity) {
        size_t capacity = t->capacity ? 2 * t->capacity : 1024;
        token *grown = realloc(t->at, capacity * sizeof *grown);
        if (!grown)
            return false;
        t->at = grown;
        t->capacity = capacity;
    }
    t->at[t->count++] = (token){kind, start, end};
    return true;
}

static bool is_ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_ident_char(char c)
{
    return is_ident_start(c) || (c >= '0' && c <= '9');
}

/* The end of a quoted literal starting at s[i] (the quote). */
static size_t skip_quoted(const char *s, size_t i)
{
    const char quote = s[i++];
    while (s[i] && s[i] != quote && s[i] != '\n') {
        if (s[i] == '\\' && s[i + 1])
            i++;
        i++;
    }
    return s[i] == quote ? i + 1 : i;
}

/* The end of a raw string literal whose `"` is at s[i]: R"delim( ... )delim". */
static size_t skip_raw_string(const char *s, size_t i)
{
    size_t open = i + 1;
    while (s[open] && s[open] != '(' && open - i < 18)
        open++;
    if (s[open] != '(')
        return skip_quoted(s, i);
    const size_t delim_len = open - (i + 1);
    for (size_t j = open + 1; s[j]; j++)
        if (s[j] == ')' && strncmp(s + j + 1, s + i + 1, delim_len) == 0 && s[j + 1 + delim_len] == '"')
            return j + 2 + delim_len;
    return strlen(s);
}

static bool tokenize(const char *s, tokens *out)
{
    bool line_start = true;
    size_t i = 0;
    while (s[i]) {
        const char c = s[i];
        if (c == '\n') {
            line_start = true;
            i++;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            i++;
        } else if (c == '#' && line_start) { /* a preprocessor line, with its continuations */
            while (s[i] && s[i] != '\n')
                i += s[i] == '\\' && s[i + 1] == '\n' ? 2 : s[i] == '\\' && s[i + 1] == '\r' && s[i + 2] == '\n' ? 3 : 1;
        } else if (c == '/' && s[i + 1] == '/') {
            while (s[i] && s[i] != '\n')
                i++;
        } else if (c == '/' && s[i + 1] == '*') {
            const char *close = strstr(s + i + 2, "*/");
            i = close ? (size_t)(close - s) + 2 : strlen(s);
        } else if (is_ident_start(c)) {
            size_t j = i;
            while (is_ident_char(s[j]))
                j++;
            const size_t len = j - i;
            if (s[j] == '"' && len <= 3 && s[j - 1] == 'R') { /* R"(...)", u8R"(...)", LR"(...)" */
                size_t end = skip_raw_string(s, j);
                if (!push_token(out, STRING, i, end))
                    return false;
                i = end;
            } else if ((s[j] == '"' || s[j] == '\'') && len <= 2 &&
                       (!strncmp(s + i, "u8", len) || !strncmp(s + i, "u", len) || !strncmp(s + i, "U", len) ||
                        !strncmp(s + i, "L", len))) {
                size_t end = skip_quoted(s, j);
                if (!push_token(out, STRING, i, end))
                    return false;
                i = end;
            } else {
                if (!push_token(out, IDENT, i, j))
                    return false;
                i = j;
            }
            line_start = false;
        } else if (c >= '0' && c <= '9') {
            size_t j = i;
            while (is_ident_char(s[j]) || s[j] == '.' || s[j] == '\'' ||
                   ((s[j] == '+' || s[j] == '-') && strchr("eEpP", s[j - 1])))
                j++;
            if (!push_token(out, NUMBER, i, j))
                return false;
            i = j;
            line_start = false;
        } else if (c == '"' || c == '\'') {
            size_t end = skip_quoted(s, i);
            if (!push_token(out, STRING, i, end))
                return false;
            i = end;
            line_start = false;
        } else {
            if (!push_token(out, PUNCT, i, i + 1))
                return false;
            i++;
            line_start = false;
        }
    }
    return true;
}

/* ------------------------------------------------------------------ reading */

typedef struct reader {
    const char *s;
    const token *t;
    size_t n;
} reader;

static bool is(const reader *r, size_t i, const char *text)
{
    if (i >= r->n)
        return false;
    const size_t len = r->t[i].end - r->t[i].start;
    return strlen(text) == len && strncmp(r->s + r->t[i].start, text, len) == 0;
}

static bool is_kind(const reader *r, size_t i, token_kind kind)
{
    return i < r->n && r->t[i].kind == kind;
}

/* The index after the parenthesis matching the `(` at i (or n). */
static size_t after_parens(const reader *r, size_t i)
{
    int depth = 0;
    for (; i < r->n; i++) {
        if (is(r, i, "("))
            depth++;
        else if (is(r, i, ")") && --depth == 0)
            return i + 1;
    }
    return r->n;
}

/* Attribute-like words followed by a parenthesised argument, skipped when looking for a name. */
static bool is_attribute_word(const reader *r, size_t i)
{
    static const char *const words[] = {"__launch_bounds__", "__attribute__", "__declspec", "alignas", "__align__",
                                        "__cluster_dims__", "__maxnreg__"};
    for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
        if (is(r, i, words[k]))
            return true;
    return false;
}

typedef enum scope_kind { SCOPE_NAMESPACE, SCOPE_EXTERN_C, SCOPE_EXTERN_CXX, SCOPE_OTHER } scope_kind;

typedef struct scope {
    scope_kind kind;
    size_t name_start, name_end; /* a namespace's name ("a::b"); empty when anonymous */
} scope;

#define MAX_SCOPES 256

/* What kind of scope the `{` at i opens. */
static scope scope_opened(const reader *r, size_t i)
{
    scope sc = {SCOPE_OTHER, 0, 0};
    if (i >= 1 && is_kind(r, i - 1, STRING) && i >= 2 && is(r, i - 2, "extern")) {
        sc.kind = is(r, i - 1, "\"C\"") ? SCOPE_EXTERN_C : SCOPE_EXTERN_CXX;
        return sc;
    }
    if (i >= 1 && is(r, i - 1, "namespace")) {
        sc.kind = SCOPE_NAMESPACE;
        return sc;
    }
    size_t j = i - 1; /* a (possibly nested) name: a::b::c */
    if (i < 2 || !is_kind(r, j, IDENT))
        return sc;
    while (j >= 3 && is(r, j - 1, ":") && is(r, j - 2, ":") && is_kind(r, j - 3, IDENT))
        j -= 3;
    if (j >= 1 && is(r, j - 1, "namespace")) {
        sc.kind = SCOPE_NAMESPACE;
        sc.name_start = r->t[j].start;
        sc.name_end = r->t[i - 1].end;
    }
    return sc;
}

typedef struct kernel_name {
    size_t start, end; /* the name's token */
    char *qualified;   /* with its namespaces */
} kernel_name;

typedef struct edit {
    size_t start, end;
    char *text;
} edit;

typedef struct reading {
    kernel_name *kernels;
    size_t kernel_count, kernel_capacity;
    edit *edits;
    size_t edit_count, edit_capacity;
    bool failed; /* out of memory */
} reading;

static void *grow(void *array, size_t *capacity, size_t count, size_t size, bool *failed)
{
    if (count < *capacity)
        return array;
    size_t wanted = *capacity ? 2 * *capacity : 16;
    void *grown = realloc(array, wanted * size);
    if (!grown) {
        *failed = true;
        return NULL;
    }
    *capacity = wanted;
    return grown;
}

/* The kernel `__global__` at index g declares, if it is an extern "C" definition at namespace scope
 * (templates and C++ names are not found by name on the GPUs either). */
static void read_kernel(const reader *r, size_t g, const scope *scopes, int depth, reading *out)
{
    bool c_linkage = false;
    for (int d = 0; d < depth; d++) {
        if (scopes[d].kind == SCOPE_OTHER)
            return;
        if (scopes[d].kind == SCOPE_EXTERN_C)
            c_linkage = true;
        else if (scopes[d].kind == SCOPE_EXTERN_CXX)
            c_linkage = false;
    }
    for (size_t j = g; j-- > 0;) { /* back to the start of the declaration */
        if (is(r, j, ";") || is(r, j, "{") || is(r, j, "}"))
            break;
        if (is(r, j, "template"))
            return;
        if (is(r, j, "extern") && is_kind(r, j + 1, STRING))
            c_linkage = is(r, j + 1, "\"C\"");
    }
    if (!c_linkage)
        return;
    size_t k = g + 1, name = r->n;
    while (k < r->n && !is(r, k, ";") && !is(r, k, "{") && !is(r, k, "}") && !is(r, k, "=")) {
        if (is_kind(r, k, IDENT) && is(r, k + 1, "(")) {
            if (!is_attribute_word(r, k)) {
                name = k;
                break;
            }
            k = after_parens(r, k + 1);
        } else {
            k++;
        }
    }
    if (name == r->n)
        return;
    size_t after = after_parens(r, name + 1);
    for (int guard = 0; after < r->n && guard < 64 && !is(r, after, "{") && !is(r, after, ";"); guard++)
        after = is(r, after, "(") ? after_parens(r, after) : after + 1;
    if (!is(r, after, "{"))
        return; /* a declaration: its definition, if any, is found where it is */
    const size_t start = r->t[name].start, end = r->t[name].end;
    for (size_t i = 0; i < out->kernel_count; i++)
        if (out->kernels[i].end - out->kernels[i].start == end - start &&
            !strncmp(r->s + out->kernels[i].start, r->s + start, end - start))
            return;
    size_t length = end - start + 1;
    for (int d = 0; d < depth; d++)
        if (scopes[d].kind == SCOPE_NAMESPACE)
            length += scopes[d].name_end - scopes[d].name_start + 2;
    char *qualified = malloc(length + 2);
    kernel_name *grown = grow(out->kernels, &out->kernel_capacity, out->kernel_count, sizeof *grown, &out->failed);
    if (!qualified || !grown) {
        free(qualified);
        out->failed = true;
        return;
    }
    out->kernels = grown;
    char *w = qualified;
    *w++ = ':', *w++ = ':';
    for (int d = 0; d < depth; d++)
        if (scopes[d].kind == SCOPE_NAMESPACE && scopes[d].name_end > scopes[d].name_start) {
            memcpy(w, r->s + scopes[d].name_start, scopes[d].name_end - scopes[d].name_start);
            w += scopes[d].name_end - scopes[d].name_start;
            *w++ = ':', *w++ = ':';
        }
    memcpy(w, r->s + start, end - start);
    w[end - start] = '\0';
    out->kernels[out->kernel_count++] = (kernel_name){start, end, qualified};
}

static void add_edit(reading *out, size_t start, size_t end, char *text)
{
    edit *grown = text ? grow(out->edits, &out->edit_capacity, out->edit_count, sizeof *grown, &out->failed) : NULL;
    if (!grown) {
        free(text);
        out->failed = true;
        return;
    }
    out->edits = grown;
    out->edits[out->edit_count++] = (edit){start, end, text};
}

/* Appends the text of tokens [from, to) to buffer (size bytes, used so far), separated by spaces,
 * less alignment attributes when `bare`; false when it does not fit. */
static bool join_tokens(const reader *r, size_t from, size_t to, bool bare, char *buffer, size_t size, size_t *used)
{
    for (size_t j = from; j < to;) {
        if (bare && is_attribute_word(r, j) && is(r, j + 1, "(")) {
            j = after_parens(r, j + 1);
            continue;
        }
        const size_t len = r->t[j].end - r->t[j].start;
        if (*used + len + 2 >= size)
            return false;
        memcpy(buffer + *used, r->s + r->t[j].start, len);
        *used += len;
        buffer[(*used)++] = ' ';
        buffer[*used] = '\0';
        j++;
    }
    return true;
}

/* `extern __shared__ T name[];` at index e: a thread_local array of HKCPU_SHARED_BYTES in its place
 * (the threads of a block share a core; other blocks run on other cores). */
static void read_dynamic_shared(const reader *r, size_t e, reading *out)
{
    size_t semicolon = e + 2;
    while (semicolon < r->n && !is(r, semicolon, ";") && !is(r, semicolon, "{") && !is(r, semicolon, "}"))
        semicolon++;
    if (!is(r, semicolon, ";"))
        return;
    size_t bracket = r->n;
    for (size_t j = e + 2; j + 1 < semicolon; j++)
        if (is(r, j, "[") && is(r, j + 1, "]"))
            bracket = j;
    if (bracket == r->n || bracket < e + 4 || !is_kind(r, bracket - 1, IDENT))
        return;
    char type[512] = "", declarator[512] = "", tail[256] = "";
    size_t type_used = 0, declarator_used = 0, tail_used = 0;
    if (!join_tokens(r, e + 2, bracket - 1, true, type, sizeof type, &type_used) || type_used == 0 ||
        !join_tokens(r, e + 2, bracket, false, declarator, sizeof declarator, &declarator_used) ||
        !join_tokens(r, bracket + 2, semicolon, false, tail, sizeof tail, &tail_used))
        return;
    const size_t start = r->t[e].start, end = r->t[semicolon].end;
    size_t newlines = 0;
    for (size_t j = start; j < end; j++)
        newlines += r->s[j] == '\n';
    const size_t size = declarator_used + type_used + tail_used + newlines + 128;
    char *text = malloc(size);
    if (text) {
        int n = snprintf(text, size, "static thread_local __attribute__((aligned(16))) %s[HKCPU_SHARED_BYTES / sizeof(%s)]%s;",
                         declarator, type, tail);
        memset(text + n, '\n', newlines);
        text[(size_t)n + newlines] = '\0';
    }
    add_edit(out, start, end, text);
}

/* ----------------------------------------------------------------- the entry */

static char *escaped_file_name(const char *name)
{
    char *copy = strdup(name);
    for (char *p = copy; p && *p; p++)
        if (*p == '"' || *p == '\\' || *p == '\n' || *p == '\r')
            *p = '_';
    return copy;
}

static void free_reading(reading *rd)
{
    for (size_t i = 0; i < rd->kernel_count; i++)
        free(rd->kernels[i].qualified);
    for (size_t i = 0; i < rd->edit_count; i++)
        free(rd->edits[i].text);
    free(rd->kernels);
    free(rd->edits);
}

bool hk__cpu_prepare_source(const char *source, const char *file_name, hk__cpu_source *out)
{
    memset(out, 0, sizeof *out);
    tokens t = {0};
    if (!tokenize(source, &t)) {
        free(t.at);
        return false;
    }
    const reader r = {source, t.at, t.count};
    reading rd = {0};
    scope scopes[MAX_SCOPES];
    int depth = 0;
    for (size_t i = 0; i < r.n && !rd.failed; i++) {
        if (is(&r, i, "{")) {
            scope sc = scope_opened(&r, i);
            if (depth < MAX_SCOPES)
                scopes[depth] = sc;
            depth++;
        } else if (is(&r, i, "}")) {
            if (depth > 0)
                depth--;
        } else if (is(&r, i, "__global__")) {
            read_kernel(&r, i, scopes, depth < MAX_SCOPES ? depth : MAX_SCOPES, &rd);
        } else if (is(&r, i, "extern") && is(&r, i + 1, "__shared__")) {
            read_dynamic_shared(&r, i, &rd);
        } else if (is(&r, i, "asm") || is(&r, i, "__asm__") || is(&r, i, "__asm")) {
            out->uses_asm = true;
        } else if (is(&r, i, "<") && is(&r, i + 1, "<") && is(&r, i + 2, "<") && r.t[i + 2].start == r.t[i].start + 2) {
            out->uses_nested_launch = true;
        } else if (is(&r, i, "__half") || is(&r, i, "__half2") || is(&r, i, "__nv_bfloat16") ||
                   is(&r, i, "hip_bfloat16")) {
            out->uses_half = true;
        } else if (is(&r, i, "tex1Dfetch") || is(&r, i, "tex1D") || is(&r, i, "tex2D") || is(&r, i, "tex3D") ||
                   is(&r, i, "surf2Dwrite") || is(&r, i, "surf2Dread") || is(&r, i, "cudaTextureObject_t") ||
                   is(&r, i, "hipTextureObject_t")) {
            out->uses_textures = true;
        }
    }
    out->uses_half = out->uses_half || strstr(source, "fp16.h") || strstr(source, "bf16.h");
    out->uses_cooperative_groups = strstr(source, "cooperative_groups") != NULL;
    free(t.at);

    char *file = escaped_file_name(file_name);
    size_t size = strlen(source) + 256 + (file ? strlen(file) : 0);
    for (size_t i = 0; i < rd.edit_count; i++)
        size += strlen(rd.edits[i].text);
    for (size_t i = 0; i < rd.kernel_count; i++)
        size += 2 * (rd.kernels[i].end - rd.kernels[i].start) + strlen(rd.kernels[i].qualified) + 32;
    char *text = rd.failed || !file ? NULL : malloc(size);
    if (!text) {
        free(file);
        free_reading(&rd);
        return false;
    }
    size_t n = (size_t)snprintf(text, size, "#line 1 \"%s\"\n", file);
    size_t from = 0;
    for (size_t i = 0; i < rd.edit_count; i++) { /* in source order */
        memcpy(text + n, source + from, rd.edits[i].start - from);
        n += rd.edits[i].start - from;
        n += (size_t)snprintf(text + n, size - n, "%s", rd.edits[i].text);
        from = rd.edits[i].end;
    }
    n += (size_t)snprintf(text + n, size - n, "%s\n#line 1 \"<hipkit: kernel entries of %s>\"\n", source + from, file);
    for (size_t i = 0; i < rd.kernel_count; i++)
        n += (size_t)snprintf(text + n, size - n, "HKCPU_KERNEL(%.*s, %s)\n",
                              (int)(rd.kernels[i].end - rd.kernels[i].start), source + rd.kernels[i].start,
                              rd.kernels[i].qualified);
    snprintf(text + n, size - n, "HKCPU_MODULE()\n");
    out->text = text;
    out->kernel_count = (int)rd.kernel_count;
    free(file);
    free_reading(&rd);
    return true;
}

void hk__cpu_source_free(hk__cpu_source *s)
{
    free(s->text);
    s->text = NULL;
}
