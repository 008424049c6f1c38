/* pb_json.h — the pieces of JSON results.json is written with (RFC 8259). Text from a run directory (host names,
 * machine facts, CSV labels) comes from files anyone could have written: it reaches the JSON through
 * pb_json_str only, so the output parses whatever the input held. */
#ifndef PB_JSON_H
#define PB_JSON_H

#include <stdio.h>

/* s as a JSON string: quote and backslash escaped, control characters as \u00XX, and a byte that does not
 * start a valid UTF-8 sequence (pb_utf8_length) as U+FFFD; NULL writes "". */
void pb_json_str(FILE *f, const char *s);
/* v as a JSON number (9 significant digits: more than any CSV cell holds), or null when it is NaN or infinite
 * (JSON has neither). */
void pb_json_num(FILE *f, double v);
/* "key": as an object member's start, the key through pb_json_str. */
void pb_json_key(FILE *f, const char *key);

#endif
