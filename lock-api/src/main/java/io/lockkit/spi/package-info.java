/**
 * The provider SPI: what a lock backend implements. Waiting, lease renewal, hold bookkeeping and
 * loss reporting live in the caller API's core, so a backend is a few hundred lines.
 */
@NullMarked
package io.lockkit.spi;

import org.jspecify.annotations.NullMarked;
