/*  config_text — the config file's text before libconfig reads it.
 *
 *  The libconfig of Debian 12 (1.5) reads an integer without the L suffix
 *  as 32 bits: 10737418240 (10 GiB, a documented default) wraps to
 *  -2147483648, and 4296015872 silently becomes 1048576. So before the
 *  text is parsed, every integer literal outside strings and comments
 *  whose value does not fit 32 bits gets the L suffix libconfig wants for
 *  a 64-bit one; nothing else changes (a line keeps its number, so errors
 *  still name the line). Pure.
 */
#ifndef DLQ_CONFIG_TEXT_H
#define DLQ_CONFIG_TEXT_H

#include <stddef.h>

/* A copy of text (len bytes; NUL-terminated, its length in *len_out) with
 * the L suffix after every integer literal that needs 64 bits. The caller
 * frees it. */
char *dlq_config_text_widen (const char *text, size_t len, size_t *len_out);

#endif
