/**
 * Micrometer meters for lockkit: {@link io.lockkit.micrometer.LockMetrics}, a
 * {@link io.lockkit.LockObserver} that is also a Micrometer {@code MeterBinder}.
 */
@NullMarked
package io.lockkit.micrometer;

import org.jspecify.annotations.NullMarked;
