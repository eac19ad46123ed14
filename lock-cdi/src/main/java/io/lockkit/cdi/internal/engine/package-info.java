/**
 * The behaviour of {@code @Locked} without CDI: declaration checks, lock names, holds and their
 * release, configuration. Uses no {@code jakarta.*} type (an architecture test keeps it so); the
 * CDI-facing classes in the parent package find the factory and call in here. Implementation
 * details; not an API: may change in any release.
 */
@NullMarked
package io.lockkit.cdi.internal.engine;

import org.jspecify.annotations.NullMarked;
