/* pb_cli_values.h — inside pb_cli: each option kind's value parser and the text of what an option accepts
 * (pb_cli_values.c). Not for harnesses: they use pb_cli.h. */
#ifndef PB_CLI_VALUES_H
#define PB_CLI_VALUES_H

#include <stddef.h>

#include "pb_cli.h"

/* Bounds the length of a reason or message. */
#define PB_ERR_MAX 1024

/* Parses val into o->dest by o->kind; 0, or -1 with the reason (no prefix) in why. */
int pb_cli_value_parse(const pb_opt *o, const char *val, char *why, size_t len);
/* The kind's default metavar; NULL when the kind takes no value (a flag). */
const char *pb_cli_kind_metavar(const pb_opt *o);
/* "1..1024", the choices, ...: what o accepts, for --help and errors ("" when nothing to say). */
void pb_cli_accepted_text(const pb_opt *o, char *buf, size_t len);

#endif
