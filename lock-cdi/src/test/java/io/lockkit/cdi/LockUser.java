package io.lockkit.cdi;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/** An application bean that injects the factory and has a {@code @Locked} method. */
@ApplicationScoped
public class LockUser {

    @Inject
    DistributedLockFactory locks;

    public DistributedLockFactory locks() {
        return locks;
    }

    /** The hold this method runs under (still valid only inside it). */
    @Locked("user:{id}")
    public LockHandle locked(String id) {
        return CurrentLock.handle().orElseThrow();
    }
}
