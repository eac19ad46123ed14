/**
 * The counter demo: {@link io.lockkit.examples.demo.CounterDemo} runs worker JVMs
 * ({@link io.lockkit.examples.demo.CounterWorker}) whose threads increment one Redis counter by
 * read, pause, write under one lock ({@link io.lockkit.examples.demo.CounterDemo#incrementUnderTheLock}),
 * and checks that no update was lost.
 */
package io.lockkit.examples.demo;
