/**
 * The multi-client history check, for every provider: {@link io.lockkit.testkit.history.LockHistory}
 * runs clients against one lock while the provider's own faults are injected, and
 * {@link io.lockkit.testkit.history.HoldHistory} checks what they recorded for mutual exclusion
 * among clean holds and the order of fencing tokens in time.
 * {@link io.lockkit.testkit.history.LeadershipHistory} and
 * {@link io.lockkit.testkit.history.PrimitiveHistory} run worker JVMs under process and backend
 * faults: leaders checked by {@link io.lockkit.testkit.history.TermHistory}; read/write locks,
 * semaphores and fair locks by {@link io.lockkit.testkit.history.ClaimHistory} (holds with a mode
 * and a weight); multi-locks by {@link io.lockkit.testkit.history.MultiLockHistory} (each name as
 * a lock, each grant all or nothing).
 */
@NullMarked
package io.lockkit.testkit.history;

import org.jspecify.annotations.NullMarked;
