/* pb_md_escape.c — text from a run directory made inert in Markdown (pb_md_escape.h). */
#include "pb_md_escape.h"

#include <stdbool.h>
#include <string.h>
#include <strings.h>

static const char ellipsis[] = "…";

/* What an ASCII byte becomes; NULL: itself, or nothing for a control character the table does not name. */
static const char *const ascii_form[128] = {
    ['\t'] = " ", ['\n'] = " ", ['\r'] = " ",
    ['<'] = "&lt;", ['>'] = "&gt;", ['&'] = "&amp;",
    ['\\'] = "\\\\", ['`'] = "\\`", ['*'] = "\\*", ['_'] = "\\_", ['['] = "\\[", [']'] = "\\]", ['|'] = "\\|",
    ['!'] = "\\!", ['~'] = "\\~", ['#'] = "\\#", ['$'] = "\\$",
};

static const char replacement[] = "\xef\xbf\xbd"; /* U+FFFD */

static bool is_word(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* A character GFM's literal autolinks start from: the ':' of "://" and the '.' of "www.". A backslash before
 * it keeps cmark-gfm from linking a bare URL; elsewhere both are plain text and stay so. */
static bool starts_autolink(const unsigned char *p, const unsigned char *start)
{
    if (*p == ':')
        return p[1] == '/' && p[2] == '/';
    return *p == '.' && p - start >= 3 && strncasecmp((const char *)p - 3, "www", 3) == 0;
}

size_t pb_utf8_length(const unsigned char *s)
{
    static const unsigned least[5] = { [2] = 0x80, [3] = 0x800, [4] = 0x10000 }; /* below: an overlong form */
    size_t n = (s[0] >> 5) == 6 ? 2 : (s[0] >> 4) == 14 ? 3 : (s[0] >> 3) == 30 ? 4 : 0;
    if (!n)
        return 0;
    unsigned cp = s[0] & (0x7fu >> n);
    for (size_t k = 1; k < n; k++) {
        if ((s[k] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[k] & 0x3fu);
    }
    bool surrogate = cp >= 0xd800 && cp <= 0xdfff;
    return cp < least[n] || cp > 0x10ffff || surrogate ? 0 : n;
}

/* The output for the input at p (start: the input's first byte, for the neighbours of an underscore) into
 * piece; returns its length and sets *used to the input bytes it stands for. */
static size_t md_piece(const unsigned char *p, const unsigned char *start, char *piece, size_t *used)
{
    *used = 1;
    if (*p < 0x80) {
        bool inert_underscore = *p == '_' && p > start && is_word(p[-1]) && is_word(p[1]);
        const char *form = inert_underscore ? NULL : ascii_form[*p];
        if (!form && (*p < 0x20 || *p == 0x7f))
            form = "";
        if (!form) {
            size_t n = 0;
            if (starts_autolink(p, start))
                piece[n++] = '\\';
            piece[n++] = (char)*p;
            return n;
        }
        memcpy(piece, form, strlen(form));
        return strlen(form);
    }
    size_t n = pb_utf8_length(p);
    if (!n) {
        memcpy(piece, replacement, sizeof replacement - 1);
        return sizeof replacement - 1;
    }
    *used = n;
    if (p[0] == 0xc2 && p[1] < 0xa0) /* U+0080-U+009F: the C1 controls */
        return 0;
    memcpy(piece, p, n);
    return n;
}

const char *pb_md_escape(char *buf, size_t len, const char *s)
{
    size_t room = len - sizeof ellipsis, o = 0;
    const unsigned char *start = (const unsigned char *)s;
    for (const unsigned char *p = start; *p;) {
        char piece[8];
        size_t used, n = md_piece(p, start, piece, &used);
        if (o + n > room) {
            memcpy(buf + o, ellipsis, sizeof ellipsis);
            return buf;
        }
        memcpy(buf + o, piece, n);
        o += n;
        p += used;
    }
    buf[o] = '\0';
    return buf;
}
