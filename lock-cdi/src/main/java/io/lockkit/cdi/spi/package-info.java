/**
 * What a runtime (an application framework, a reactive library's integration) tells
 * {@link io.lockkit.cdi.Locked}: whether the calling thread may block, where an asynchronous
 * method's body resumes once its lock is granted, and how its own asynchronous return types are
 * followed. Implementations are found with {@link java.util.ServiceLoader}; applications do not
 * implement it.
 */
@NullMarked
package io.lockkit.cdi.spi;

import org.jspecify.annotations.NullMarked;
