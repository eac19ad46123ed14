package io.lockkit.examples.demo;

/** Why the demo could not run to its verdict; its message is printed after "FAILED: ". */
final class DemoFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    DemoFailure(String message) {
        super(message);
    }
}
