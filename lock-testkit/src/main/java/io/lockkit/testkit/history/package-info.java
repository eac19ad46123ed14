/**
 * The multi-client history check, for every provider: {@link io.lockkit.testkit.history.LockHistory}
 * runs clients against one lock while the provider's own faults are injected, and
 * {@link io.lockkit.testkit.history.HoldHistory} checks what they recorded for mutual exclusion
 * among clean holds and the order of fencing tokens in time.
 */
@NullMarked
package io.lockkit.testkit.history;

import org.jspecify.annotations.NullMarked;
