/**
 * {@code lockkit}, the operator command line ({@link io.lockkit.cli.LockkitCli}): list, show,
 * release and watch the locks held in a Redis. An application, shipped as one runnable jar.
 */
@NullMarked
package io.lockkit.cli;

import org.jspecify.annotations.NullMarked;
