package io.lockkit.quarkus.deployment;

import java.util.ArrayList;
import java.util.List;

/** The messages of a failed build or start, the exception's and its causes', for the tests' assertions. */
final class FailureMessages {

    private FailureMessages() {}

    /** {@code failure}'s message, then each cause's, outermost first. */
    static List<String> of(Throwable failure) {
        List<String> messages = new ArrayList<>();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            messages.add(String.valueOf(t.getMessage()));
        }
        return messages;
    }
}
