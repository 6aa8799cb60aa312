/*  dlq_secret — whether a setting's text holds a credential: a URL with a
 *  password in its user part (amqp://user:pass@host, mongodb://u:p@h), or
 *  a "password=" pair (a libpq conninfo's password=..., librdkafka's
 *  sasl.password=... or ssl.key.password=...). dlqd refuses a config file
 *  others can read when it holds one (docs/security.md). Pure.
 */
#ifndef DLQ_SECRET_H
#define DLQ_SECRET_H

#include <stdbool.h>

/* Does text hold a credential (see above)? */
bool dlq_secret_in (const char *text);

#endif
