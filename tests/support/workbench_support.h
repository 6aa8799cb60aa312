/*  workbench_support — the failures that the suites of the failure
 *  workbench (itest_workbench over the wire, itest_dlqctl_workbench
 *  through dlqctl and libdlq) store and then filter, count and group.
 */
#ifndef WORKBENCH_SUPPORT_H
#define WORKBENCH_SUPPORT_H

/* PUT (each acked OK, or the test fails) three bugs, 11 events:
 *   - 6 timeouts of stream orders (java.net.SocketTimeoutException, "Read
 *     timed out after N ms calling 10.0.0.i:8080", a stack frame whose
 *     line differs), i = 0..5: status PENDING for even i and DLQ for odd
 *     i, attempts i;
 *   - 3 of stream payments (com.acme.NotFound, "Order <ObjectId> not
 *     found"), attempts 1, status PENDING (the gateway's default);
 *   - 2 of stream orders (com.acme.ValidationError, "field 'sku-i' is
 *     required"), attempts 3, metadata {"tenantId":"acme"}.
 * All are created now (no createdAt). */
void workbench_put_failures (const char *endpoint);

#endif
