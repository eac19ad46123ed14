/**
 * lockkit's Quarkus extension: the {@code quarkus.lockkit.*} configuration. Locks are lock-cdi's
 * ({@code @Locked}, the injectable {@code DistributedLockFactory}).
 */
@NullMarked
package io.lockkit.quarkus;

import org.jspecify.annotations.NullMarked;
