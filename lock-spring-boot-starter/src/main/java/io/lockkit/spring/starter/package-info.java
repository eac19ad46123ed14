/**
 * lockkit's Spring Boot starter: the one dependency a Boot application adds. It has no code of its
 * own; it brings {@code lock-spring} (the auto-configuration: a {@code DistributedLockFactory} bean
 * from {@code lockkit.*}, {@code @Locked} on Spring beans, health, meters and leadership events) and
 * {@code lock-jedis}, the Redis provider. With {@code lockkit.redis.uri}, or Boot's own
 * {@code spring.data.redis.*} address, the application has its locks. An application on a database
 * adds {@code lock-jdbc} and sets {@code lockkit.provider=jdbc}.
 */
package io.lockkit.spring.starter;
