/**
 * CDI integration: the {@code @Locked} interceptor binding and an injectable lock factory.
 */
package io.lockkit.cdi;
