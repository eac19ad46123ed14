package io.lockkit.examples.cdi;

/** An order of the example shop. */
public record Order(long id, String sku, int quantity) {}
