/**
 * lockkit for Spring Boot: the auto-configuration ({@link io.lockkit.spring.LockkitAutoConfiguration})
 * that gives an application a {@link io.lockkit.DistributedLockFactory} bean from its {@code lockkit.*}
 * properties ({@link io.lockkit.spring.LockkitProperties}), {@code @Locked} and
 * {@code @DistributedBulkhead} ({@code io.lockkit.cdi}, the same annotations and semantics as in CDI)
 * on Spring beans, a health indicator, metrics, and the leaderships declared in configuration with
 * their events ({@link io.lockkit.spring.LeadershipGrantedEvent},
 * {@link io.lockkit.spring.LeadershipRevokedEvent}).
 */
@NullMarked
package io.lockkit.spring;

import org.jspecify.annotations.NullMarked;
