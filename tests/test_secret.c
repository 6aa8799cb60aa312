/*  test_secret — which setting texts hold a credential: a config file that
 *  others can read is refused when one does, so every usual way to write
 *  a password must be seen, and texts without one must not be.
 */
#include "dlq_secret.h"

#include <criterion/criterion.h>

Test (secret, passwords_are_seen)
{
    static const char *const with [] = {
        "amqp://dlq:S3cret@rabbit:5672/", "amqps://u:p@h/vhost", "mongodb://admin:pw@db1,db2/?replicaSet=r",
        "postgresql://app:pw@pg/dlq", "host=pg user=app password=pw dbname=dlq", "password=pw",
        "host=pg PASSWORD = pw", "sasl.password=hunter2", "ssl.key.password=k", "sasl.username=u,sasl.password=p",
    };
    for (size_t i = 0; i < sizeof with / sizeof with [0]; i++)
        cr_expect (dlq_secret_in (with [i]), "%s", with [i]);
}

Test (secret, texts_without_one_are_not)
{
    static const char *const without [] = {
        "amqp://rabbit:5672/", "amqp://guest@rabbit/", "mongodb://db1:27017/dlq", "host=pg user=app dbname=dlq",
        "tcp://127.0.0.1:5560", "http://h/p?q=a:b@c", "passwordless=true", "sasl.mechanism=PLAIN",
        "password=", "mypassword=x", "", "dlq.events",
    };
    for (size_t i = 0; i < sizeof without / sizeof without [0]; i++)
        cr_expect_not (dlq_secret_in (without [i]), "%s", without [i]);
    cr_expect_not (dlq_secret_in (NULL));
}
