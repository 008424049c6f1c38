/* pb_md_escape.h — text from a run directory made inert for report.md and compare.md. Host names, machine facts,
 * CSV labels, file names and the error messages that quote them come from files anyone could have written;
 * every piece of such text reaches the Markdown through pb_md_escape, the one escaping function.
 *
 * What it does, byte by byte of the input:
 *   - `\` `` ` `` `*` `[` `]` `|` `!` `~` `#` `$` get a backslash (CommonMark lets any ASCII punctuation be
 *     escaped): no emphasis, strike-through, code span, heading, math, link or image can start, and `|` cannot
 *     end a table cell. `_` too, except between two ASCII letters or digits, where CommonMark never reads it as
 *     emphasis (so q8_0 and cpu_util.csv stay as they are).
 *   - `<` `>` `&` become &lt; &gt; &amp;: no HTML tag, comment, autolink or character reference can form.
 *   - newline, CR and tab become a space (a table row stays one line); other control characters (C0, DEL, and
 *     the C1 range U+0080-U+009F) are dropped.
 *   - a byte that does not start a valid UTF-8 sequence (overlong forms, surrogates and code points above
 *     U+10FFFF included) becomes U+FFFD.
 *   - the ':' of "://" and the '.' of "www." get a backslash: GFM's literal autolinks (cmark-gfm) do not make
 *     a bare URL a link. An e-mail address may still become a mailto: link there (GFM finds those after the
 *     escapes are gone); nothing is fetched or run from one.
 * The result is capped at the buffer's size less the ellipsis: when the input does not fit, the output ends with
 * "…", and an escape or a UTF-8 sequence is never cut.
 *
 * PB_MD(s) is a table cell or a name (PB_MD_CELL bytes at most), PB_MD_LINE(s) a sentence or an error message;
 * both sit inside a printf argument list (the compound literal lives until the enclosing block ends). */
#ifndef PB_MD_ESCAPE_H
#define PB_MD_ESCAPE_H

#include <stddef.h>

#define PB_MD_CELL 200   /* bytes of escaped text a cell keeps before its "…" */
#define PB_MD_SENTENCE 2000

/* Writes s, escaped, into buf[0..len) (len >= 4: room for "…" and the NUL) and returns buf. */
const char *pb_md_escape(char *buf, size_t len, const char *s);
/* The length (2 to 4) of the valid UTF-8 sequence s starts, 0 when it starts none (overlong forms, surrogates and
 * code points above U+10FFFF included). A NUL ends the sequence like any byte that is not a continuation byte, so
 * s is never read past its end. pb_json_str (pb_json.h) replaces what this refuses too. */
size_t pb_utf8_length(const unsigned char *s);

#define PB_MD(s) pb_md_escape((char[PB_MD_CELL + 4]){ 0 }, PB_MD_CELL + 4, (s))
#define PB_MD_LINE(s) pb_md_escape((char[PB_MD_SENTENCE + 4]){ 0 }, PB_MD_SENTENCE + 4, (s))

#endif
