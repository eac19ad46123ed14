/**
 * What a runtime (an application framework, a reactive library's integration) tells lock-cdi:
 * {@link io.lockkit.cdi.spi.LockedRuntime}, whether the calling thread may block, where an
 * asynchronous method's body resumes once its lock is granted, and how its own asynchronous return
 * types are followed; {@link io.lockkit.cdi.spi.ConfigNames}, how its applications spell lockkit's
 * configuration keys, for messages. Implementations are found with {@link java.util.ServiceLoader};
 * applications do not implement them.
 */
@NullMarked
package io.lockkit.cdi.spi;

import org.jspecify.annotations.NullMarked;
