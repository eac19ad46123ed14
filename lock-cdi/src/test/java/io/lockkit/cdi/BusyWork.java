package io.lockkit.cdi;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/** Methods on the lock "busy" with each busy policy; counts the calls that ran. */
@ApplicationScoped
public class BusyWork {

    static final String LOCK = "busy";

    private final AtomicInteger ran = new AtomicInteger();

    /** How many of the methods ran (a method: the test holds a client proxy, whose fields are not the bean's). */
    public int ran() {
        return ran.get();
    }

    @Locked(value = LOCK, waitTime = 0)
    public void tryOnce() {
        ran.incrementAndGet();
    }

    @Locked(value = LOCK, waitTime = 200, waitUnit = ChronoUnit.MILLIS)
    public void waitBriefly() {
        ran.incrementAndGet();
    }

    @Locked(value = LOCK, waitTime = 30)
    public String waitLong() {
        ran.incrementAndGet();
        return "ran";
    }

    /** As {@link #waitLong}, declaring the interruption of its wait. */
    @Locked(value = LOCK, waitTime = 30)
    public void waitDeclaringInterruption() throws InterruptedException {
        ran.incrementAndGet();
    }

    @Locked(value = LOCK, waitTime = 0, whenBusy = WhenBusy.SKIP)
    public void skipVoid() {
        ran.incrementAndGet();
    }

    @Locked(value = LOCK, waitTime = 0, whenBusy = WhenBusy.SKIP)
    public String skipValue() {
        ran.incrementAndGet();
        return "ran";
    }

    @Locked(value = LOCK, waitTime = 0, whenBusy = WhenBusy.SKIP)
    public Optional<String> skipOptional() {
        ran.incrementAndGet();
        return Optional.of("ran");
    }

    @Locked(value = LOCK, waitTime = 0, whenBusy = WhenBusy.SKIP)
    public CompletionStage<String> skipStage() {
        ran.incrementAndGet();
        return CompletableFuture.completedFuture("ran");
    }

    @Locked(value = LOCK, waitTime = 0, whenBusy = WhenBusy.SKIP)
    public CompletableFuture<Optional<String>> skipFutureOfOptional() {
        ran.incrementAndGet();
        return CompletableFuture.completedFuture(Optional.of("ran"));
    }
}
