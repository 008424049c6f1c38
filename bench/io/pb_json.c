/* pb_json.c — see pb_json.h. */
#include "pb_json.h"

#include <math.h>

#include "pb_md_escape.h"

void pb_json_str(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    fputc('"', f);
    while (*p) {
        if (*p == '"' || *p == '\\') {
            fprintf(f, "\\%c", *p++);
        } else if (*p < 0x20 || *p == 0x7f) {
            fprintf(f, "\\u%04x", *p++);
        } else if (*p < 0x80) {
            fputc(*p++, f);
        } else {
            size_t n = pb_utf8_length(p);
            if (n)
                fwrite(p, 1, n, f);
            else
                fputs("\xef\xbf\xbd", f); /* U+FFFD for the byte that starts no character */
            p += n ? n : 1;
        }
    }
    fputc('"', f);
}

void pb_json_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.9g", v);
    else
        fputs("null", f);
}

void pb_json_key(FILE *f, const char *key)
{
    pb_json_str(f, key);
    fputs(": ", f);
}
