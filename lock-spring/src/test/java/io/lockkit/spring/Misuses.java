package io.lockkit.spring;

import io.lockkit.cdi.Locked;

/** Beans whose @Locked declarations cannot work. */
final class Misuses {

    private Misuses() {}

    /** A template naming a parameter the method does not have. */
    public static class UnknownParameter {
        @Locked("order-{customer}")
        public void ship(String order) {}
    }

    /** A call that needs the lock, on whatever backend is configured. */
    public static class Shipping {
        @Locked("shipping-{0}")
        public String ship(String order) {
            return "shipped " + order;
        }
    }
}
