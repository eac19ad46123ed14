package io.lockkit.cdi.example;

/** An order of the example shop. */
public record Order(long id, String sku, int quantity) {
}
