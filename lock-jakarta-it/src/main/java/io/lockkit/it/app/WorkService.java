package io.lockkit.it.app;

import io.lockkit.cdi.Locked;
import io.lockkit.cdi.WhenBusy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** The asynchronous, skipping and slow {@code @Locked} methods. */
@ApplicationScoped
public class WorkService {

    @Resource
    ManagedExecutorService executor;

    /** Runs {@code millis} of work on a managed thread; the lock {@code report:{id}} is held until the stage completes. */
    @Locked(value = "report:{id}", waitTime = 120)
    public CompletionStage<String> report(String id, long millis) {
        return CompletableFuture.supplyAsync(
                () -> {
                    SharedState.enter("report-" + id);
                    try {
                        SharedState.pause(millis);
                        return SharedState.instance();
                    } finally {
                        SharedState.exit("report-" + id);
                    }
                },
                executor);
    }

    /** Runs {@code millis} of work when {@code job:{id}} is free; returns null (skipped) when it is busy. */
    @Locked(value = "job:{id}", waitTime = 0, whenBusy = WhenBusy.SKIP)
    public String runIfFree(String id, long millis) {
        SharedState.enter("job-" + id);
        try {
            SharedState.pause(millis);
            return "ran";
        } finally {
            SharedState.exit("job-" + id);
        }
    }

    /** Holds {@code slow} for {@code millis}; the undeploy test removes the application while this runs. */
    @Locked(value = "slow", waitTime = 120)
    public String slow(long millis) {
        SharedState.enter("slow");
        try {
            SharedState.pause(millis);
            return SharedState.instance();
        } finally {
            SharedState.exit("slow");
        }
    }
}
