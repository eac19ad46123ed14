package io.lockkit.testkit;

import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * Names the call a timed-out test was stuck in: JUnit's timeout of a kit test says only which test
 * ran out of time and carries the stuck thread's stack as its cause; this adds the provider method
 * on that stack to the message ({@code ... timed out after 120 seconds; it waits in
 * LockProvider.tryAcquire (its class)}). Other failures pass through unchanged. Stateless.
 */
final class StuckTestCalls implements TestExecutionExceptionHandler {

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        Throwable stack = failure.getCause();
        if (failure instanceof TimeoutException && stack != null) {
            String in = BoundedCalls.waitsIn(stack.getStackTrace());
            if (in != null) {
                throw new AssertionError(failure.getMessage() + "; it waits in " + in, failure);
            }
        }
        throw failure;
    }
}
