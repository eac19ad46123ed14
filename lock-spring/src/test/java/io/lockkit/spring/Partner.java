package io.lockkit.spring;

import io.lockkit.LockHandle;
import io.lockkit.cdi.CurrentLock;
import io.lockkit.cdi.DistributedBulkhead;
import io.lockkit.cdi.Locked;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A bulkheaded call into a partner API, and a locked job that reads its own hold. */
public class Partner {

    /** At most two calls in flight across the cluster; each waits for {@code done} (at most 30 s). */
    @DistributedBulkhead(value = "partner-api", capacity = 2)
    public boolean call(CountDownLatch inside, CountDownLatch done) throws InterruptedException {
        inside.countDown();
        return done.await(30, TimeUnit.SECONDS);
    }

    /** The hold the method runs under, as {@link CurrentLock} gives it. */
    @Locked("job:{id}")
    public LockHandle job(String id) {
        return CurrentLock.handle().orElseThrow();
    }
}
