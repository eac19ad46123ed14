package org.example.filelock;

import io.lockkit.cdi.Locked;
import io.lockkit.cdi.WhenBusy;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** An application bean: one report at a time across every process of the host. */
@ApplicationScoped
public class Reports {

    /** Runs the report, holding {@code report:<day>} while it runs; null (skipped) when another run holds it. */
    @Locked(value = "report:{day}", waitTime = 0, whenBusy = WhenBusy.SKIP)
    public Boolean run(String day, CountDownLatch started, CountDownLatch finish) throws InterruptedException {
        started.countDown();
        return finish.await(30, TimeUnit.SECONDS);
    }
}
