/*  mongo_faults — injected faults; see mongo_faults.h. */
#include "mongo_faults.h"

#include "mongo_match.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

typedef struct fault_rule {
    mongo_fault_t      fault;
    char              *name;            /* a command fault: its command */
    bool               has_id;          /* an insert fault: the _id */
    bson_value_t       id;
    int                times;           /* < 0: forever */
    struct fault_rule *next;
} fault_rule_t;

struct mongo_faults {
    pthread_mutex_t lock;
    fault_rule_t   *first;
    int             delay_ms;
};

mongo_faults_t *
mongo_faults_new (void)
{
    mongo_faults_t *self = bson_malloc0 (sizeof *self);
    pthread_mutex_init (&self->lock, NULL);
    return self;
}

static void
rule_free (fault_rule_t *rule)
{
    bson_free (rule->name);
    if (rule->has_id)
        bson_value_destroy (&rule->id);
    bson_free (rule);
}

static void
free_rules (mongo_faults_t *self)
{
    for (fault_rule_t *r = self->first, *next; r; r = next) {
        next = r->next;
        rule_free (r);
    }
    self->first = NULL;
}

void
mongo_faults_destroy (mongo_faults_t **self_p)
{
    mongo_faults_t *self = self_p ? *self_p : NULL;
    if (!self)
        return;
    free_rules (self);
    pthread_mutex_destroy (&self->lock);
    bson_free (self);
    *self_p = NULL;
}

/* Add rule last (it applies after the ones set before). */
static void
add_rule (mongo_faults_t *self, fault_rule_t *rule)
{
    pthread_mutex_lock (&self->lock);
    fault_rule_t **link = &self->first;
    while (*link)
        link = &(*link)->next;
    *link = rule;
    pthread_mutex_unlock (&self->lock);
}

void
mongo_faults_fail_command (mongo_faults_t *self, const char *name, int times, int code,
                           const char *codename, const char *errmsg, const char *label)
{
    if (times == 0)
        return;
    fault_rule_t *rule = bson_malloc0 (sizeof *rule);
    char message [128];
    snprintf (message, sizeof message, "injected failure of '%s' (MongoDB test server)", name);
    rule->name = bson_strdup (name);
    rule->times = times;
    rule->fault.kind = MONGO_FAULT_FAIL;
    mongo_error_set_named (&rule->fault.error, code, codename, errmsg ? errmsg : message);
    snprintf (rule->fault.label, sizeof rule->fault.label, "%s", label ? label : "");
    add_rule (self, rule);
}

void
mongo_faults_drop_on_command (mongo_faults_t *self, const char *name, int times)
{
    if (times == 0)
        return;
    fault_rule_t *rule = bson_malloc0 (sizeof *rule);
    rule->name = bson_strdup (name);
    rule->times = times;
    rule->fault.kind = MONGO_FAULT_DROP;
    add_rule (self, rule);
}

void
mongo_faults_fail_insert_of (mongo_faults_t *self, const bson_value_t *id, int times, int code,
                             const char *errmsg)
{
    if (times == 0)
        return;
    fault_rule_t *rule = bson_malloc0 (sizeof *rule);
    rule->has_id = true;
    bson_value_copy (id, &rule->id);
    rule->times = times;
    rule->fault.kind = MONGO_FAULT_FAIL;
    mongo_error_set_named (&rule->fault.error, code, NULL,
                           errmsg ? errmsg : "injected write error (MongoDB test server)");
    add_rule (self, rule);
}

/* Use one of rule's times (removing it when none is left); lock held. */
static void
use_rule (mongo_faults_t *self, fault_rule_t **link)
{
    fault_rule_t *rule = *link;
    if (rule->times > 0 && --rule->times == 0) {
        *link = rule->next;
        rule_free (rule);
    }
}

void
mongo_faults_take_command (mongo_faults_t *self, const char *name, mongo_fault_t *out)
{
    out->kind = MONGO_FAULT_NONE;
    pthread_mutex_lock (&self->lock);
    for (fault_rule_t **link = &self->first; *link; link = &(*link)->next)
        if ((*link)->name && strcmp ((*link)->name, name) == 0) {
            *out = (*link)->fault;
            use_rule (self, link);
            break;
        }
    pthread_mutex_unlock (&self->lock);
}

bool
mongo_faults_take_insert (mongo_faults_t *self, const bson_value_t *id, mongo_error_t *err)
{
    bool found = false;
    pthread_mutex_lock (&self->lock);
    for (fault_rule_t **link = &self->first; *link; link = &(*link)->next)
        if ((*link)->has_id && mongo_value_equal (&(*link)->id, id)) {
            *err = (*link)->fault.error;
            use_rule (self, link);
            found = true;
            break;
        }
    pthread_mutex_unlock (&self->lock);
    return found;
}

void
mongo_faults_set_delay (mongo_faults_t *self, int ms)
{
    pthread_mutex_lock (&self->lock);
    self->delay_ms = ms > 0 ? ms : 0;
    pthread_mutex_unlock (&self->lock);
}

int
mongo_faults_delay (mongo_faults_t *self)
{
    pthread_mutex_lock (&self->lock);
    int ms = self->delay_ms;
    pthread_mutex_unlock (&self->lock);
    return ms;
}

void
mongo_faults_clear (mongo_faults_t *self)
{
    pthread_mutex_lock (&self->lock);
    free_rules (self);
    self->delay_ms = 0;
    pthread_mutex_unlock (&self->lock);
}
