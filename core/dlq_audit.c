/*  dlq_audit — the audit channel (see the header). */
#include "dlq_audit.h"

#include "dlq_buf.h"
#include "dlq_json.h"
#include "dlq_log.h"
#include "dlq_time.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static atomic_int audit_fd = -1;     /* the file, or -1: the main log */

bool
dlq_audit_open (const char *path, char *err, size_t err_len)
{
    if (!path) {
        dlq_audit_close ();
        return true;
    }
    int fd = open (path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
    if (fd < 0) {
        snprintf (err, err_len, "%s: %s", path, strerror (errno));
        return false;
    }
    int old = atomic_exchange (&audit_fd, fd);
    if (old >= 0)
        close (old);
    return true;
}

void
dlq_audit_close (void)
{
    int old = atomic_exchange (&audit_fd, -1);
    if (old >= 0)
        close (old);
}

void
dlq_audit (const char *principal, const char *verb, const void *body, size_t len, dlq_code_t code,
           const char *message)
{
    const char *who = principal ? principal : "-";
    char result [400];
    if (code == DLQ_OK)
        snprintf (result, sizeof result, "OK%s%s", message ? ": " : "", message ? message : "");
    else
        snprintf (result, sizeof result, "ERR %s: %s", dlq_code_name (code), message ? message : "");
    /* only what is valid UTF-8, cut at a character: the line stays JSON */
    size_t shown = body ? dlq_utf8_prefix (body, len, DLQ_AUDIT_REQUEST_MAX) : 0, bad = 0;
    if (body && !dlq_utf8_valid (body, shown, &bad))
        shown = bad;
    char now [DLQ_TIME_ISO_LEN + 1];
    dlq_time_format_iso (dlq_time_now_ms (), now);
    dlq_buf_t line = DLQ_BUF_INIT;
    dlq_buf_printf (&line, "{\"time\":\"%s\",\"principal\":", now);
    dlq_json_write_string (&line, who, strlen (who));
    dlq_buf_puts (&line, ",\"verb\":");
    dlq_json_write_string (&line, verb, strlen (verb));
    if (body) {
        dlq_buf_puts (&line, ",\"request\":");
        dlq_json_write_string (&line, body, shown);
    }
    dlq_buf_puts (&line, ",\"result\":");
    dlq_json_write_string (&line, result, strlen (result));
    dlq_buf_puts (&line, "}\n");
    int fd = atomic_load (&audit_fd);
    if (fd >= 0) {
        ssize_t ignored = write (fd, line.data, line.len);
        (void) ignored;
    }
    else
        dlq_log (DLQ_LOG_INFO, "audit: %.*s", (int) line.len - 1, line.data);
    dlq_buf_free (&line);
}
