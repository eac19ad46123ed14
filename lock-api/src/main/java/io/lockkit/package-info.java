/**
 * The caller API: {@link io.lockkit.DistributedLockFactory} hands out thread-owned
 * {@link io.lockkit.DistributedLock}s and owner-independent {@link io.lockkit.LockHandle}s over a
 * {@link io.lockkit.spi.LockProvider}; {@link io.lockkit.LocalLockProvider} is the in-JVM backend.
 */
@NullMarked
package io.lockkit;

import org.jspecify.annotations.NullMarked;
