/**
 * Helpers for provider authors, beside the provider SPI: what lockkit's own providers share and
 * any provider may use (the waiters by key, a wake-up connection's outages, argument checks,
 * failure messages with their causes, a forwarding provider for decorators, finding provider
 * factories). Unlike {@link io.lockkit.spi}, whose contract changes only in a major release (in
 * 0.x: a minor one, listed under "Upgrading"), these may change in any minor release: a provider
 * that uses them builds against the lockkit version it runs with, or copies what it needs.
 */
@NullMarked
package io.lockkit.spi.support;

import org.jspecify.annotations.NullMarked;
