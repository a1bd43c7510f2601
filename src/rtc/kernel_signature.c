/* kernel_signature.c: read a kernel's parameter types from its source, so
 * launches can check and convert arguments. Handles `extern "C" __global__`
 * declarations with plain C types; anything it cannot classify (templates,
 * structs, references, macros) makes the signature unknown rather than wrong. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "rtc/rtc_internal.h"

/* Copy of the source with comments and string/char literals blanked, so the
 * scanner never matches inside them. */
static char *strip(const char *source)
{
    size_t n = strlen(source);
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    size_t i = 0;
    while (i < n) {
        if (source[i] == '/' && source[i + 1] == '/') {
            while (i < n && source[i] != '\n')
                out[i++] = ' ';
        } else if (source[i] == '/' && source[i + 1] == '*') {
            out[i] = out[i + 1] = ' ';
            i += 2;
            while (i < n && !(source[i] == '*' && source[i + 1] == '/'))
                out[i++] = ' ';
            if (i < n)
                out[i] = out[i + 1] = ' ', i += 2;
        } else if (source[i] == '"' || source[i] == '\'') {
            char quote = source[i];
            out[i++] = ' ';
            while (i < n && source[i] != quote) {
                if (source[i] == '\\' && i + 1 < n)
                    out[i++] = ' ';
                out[i++] = ' ';
            }
            if (i < n)
                out[i++] = ' ';
        } else {
            out[i] = source[i];
            i++;
        }
    }
    out[n] = '\0';
    return out;
}

static int is_ident(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Classify one parameter's text ("const float *__restrict__ x", "int n"). */
static int classify(const char *text, size_t length, hk_arg_type *type)
{
    char words[8][32];
    int count = 0;
    int pointer = 0;
    for (size_t i = 0; i < length;) {
        char c = text[i];
        if (c == '*' || c == '[') {
            pointer = 1;
            i++;
        } else if (c == '&' || c == '<' || c == ':' || c == '=' || c == '(') {
            return 0; /* references, templates, qualified names, defaults: unknown */
        } else if (is_ident(c)) {
            size_t start = i;
            while (i < length && is_ident(text[i]))
                i++;
            size_t len = i - start;
            if (count == 8 || len >= sizeof words[0])
                return 0;
            memcpy(words[count], text + start, len);
            words[count][len] = '\0';
            count++;
        } else {
            i++;
        }
    }
    if (pointer) {
        *type = HK_ARG_POINTER;
        return 1;
    }
    /* Drop qualifiers, then the parameter's name (the last word). */
    char kept[8][32];
    int k = 0;
    for (int w = 0; w < count; w++) {
        const char *word = words[w];
        if (!strcmp(word, "const") || !strcmp(word, "volatile") || !strcmp(word, "__restrict__") ||
            !strcmp(word, "restrict") || !strcmp(word, "__restrict") || !strcmp(word, "register"))
            continue;
        strcpy(kept[k++], word);
    }
    if (k >= 2)
        k--; /* the name; an unnamed parameter of a one-word type keeps its word */
    char joined[128] = "";
    for (int w = 0; w < k; w++) {
        if (w)
            strcat(joined, " ");
        strcat(joined, kept[w]);
    }
    static const struct {
        const char *name;
        hk_arg_type type;
    } table[] = {
        {"bool", HK_ARG_BOOL},
        {"char", HK_ARG_INT8},
        {"signed char", HK_ARG_INT8},
        {"int8_t", HK_ARG_INT8},
        {"unsigned char", HK_ARG_UINT8},
        {"uint8_t", HK_ARG_UINT8},
        {"short", HK_ARG_INT16},
        {"short int", HK_ARG_INT16},
        {"signed short", HK_ARG_INT16},
        {"int16_t", HK_ARG_INT16},
        {"unsigned short", HK_ARG_UINT16},
        {"unsigned short int", HK_ARG_UINT16},
        {"uint16_t", HK_ARG_UINT16},
        {"int", HK_ARG_INT32},
        {"signed", HK_ARG_INT32},
        {"signed int", HK_ARG_INT32},
        {"int32_t", HK_ARG_INT32},
        {"unsigned", HK_ARG_UINT32},
        {"unsigned int", HK_ARG_UINT32},
        {"uint32_t", HK_ARG_UINT32},
        {"long", HK_ARG_INT64},
        {"long int", HK_ARG_INT64},
        {"long long", HK_ARG_INT64},
        {"long long int", HK_ARG_INT64},
        {"signed long", HK_ARG_INT64},
        {"signed long long", HK_ARG_INT64},
        {"int64_t", HK_ARG_INT64},
        {"ptrdiff_t", HK_ARG_INT64},
        {"intptr_t", HK_ARG_INT64},
        {"ssize_t", HK_ARG_INT64},
        {"unsigned long", HK_ARG_UINT64},
        {"unsigned long int", HK_ARG_UINT64},
        {"unsigned long long", HK_ARG_UINT64},
        {"unsigned long long int", HK_ARG_UINT64},
        {"uint64_t", HK_ARG_UINT64},
        {"size_t", HK_ARG_UINT64},
        {"uintptr_t", HK_ARG_UINT64},
        {"float", HK_ARG_FLOAT32},
        {"double", HK_ARG_FLOAT64},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(joined, table[i].name)) {
            *type = table[i].type;
            return 1;
        }
    return 0;
}

/* Skip a balanced (...) group starting at s[i] == '('; returns the index after it. */
static size_t skip_group(const char *s, size_t i)
{
    int depth = 0;
    for (; s[i]; i++) {
        if (s[i] == '(')
            depth++;
        else if (s[i] == ')' && --depth == 0)
            return i + 1;
    }
    return i;
}

int hk__parse_kernel_params(const char *source, const char *name, hk_arg_type *types, int capacity)
{
    char *s = strip(source);
    if (!s)
        return -1;
    int result = -1;
    size_t name_len = strlen(name);
    for (char *g = strstr(s, "__global__"); g && result == -1; g = strstr(g + 10, "__global__")) {
        if (g > s && is_ident(g[-1]))
            continue;
        /* Walk identifiers to the first '(' that is not an attribute's. */
        size_t i = (size_t)(g - s) + 10;
        const char *last = NULL;
        size_t last_len = 0;
        while (s[i] && s[i] != ';' && s[i] != '{') {
            if (is_ident(s[i])) {
                size_t start = i;
                while (is_ident(s[i]))
                    i++;
                last = s + start;
                last_len = i - start;
                if ((last_len == 17 && !strncmp(last, "__launch_bounds__", 17)) ||
                    (last_len == 13 && !strncmp(last, "__attribute__", 13))) {
                    while (s[i] && isspace((unsigned char)s[i]))
                        i++;
                    if (s[i] == '(')
                        i = skip_group(s, i);
                    last = NULL;
                }
            } else if (s[i] == '(') {
                break;
            } else {
                i++;
            }
        }
        if (s[i] != '(' || !last || last_len != name_len || strncmp(last, name, name_len))
            continue;
        /* The parameter list: split on depth-0 commas. */
        size_t end = skip_group(s, i);
        if (end == 0 || s[end - 1] != ')')
            break;
        size_t start = i + 1, stop = end - 1;
        int count = 0, known = 1, depth = 0;
        size_t item = start;
        for (size_t j = start; j <= stop; j++) {
            char c = j < stop ? s[j] : ',';
            if (c == '(' || c == '<' || c == '[')
                depth++;
            else if ((c == ')' || c == '>' || c == ']') && depth > 0)
                depth--;
            if (c == ',' && depth == 0) {
                size_t a = item, b = j;
                while (a < b && isspace((unsigned char)s[a]))
                    a++;
                while (b > a && isspace((unsigned char)s[b - 1]))
                    b--;
                if (b > a && !(b - a == 4 && !strncmp(s + a, "void", 4))) {
                    hk_arg_type t;
                    if (count >= capacity || !classify(s + a, b - a, &t))
                        known = 0;
                    else
                        types[count] = t;
                    count++;
                }
                item = j + 1;
            }
        }
        result = known ? count : -1;
        break;
    }
    free(s);
    return result;
}
