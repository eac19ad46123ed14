package io.lockkit.cdi.internal.engine;

import io.lockkit.DistributedLockFactory;
import io.lockkit.Leadership;
import io.lockkit.LeadershipOptions;
import io.lockkit.cdi.LeadershipGranted;
import io.lockkit.cdi.LeadershipRevoked;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * The leaderships an application declares in configuration ({@code lockkit.leadership.<name>.*}):
 * started on the factory {@code @Locked} uses, their callbacks passed as {@link LeadershipGranted} and
 * {@link LeadershipRevoked} to the framework's event sink (CDI events qualified by
 * {@code @LeaderOf(name)}, Spring application events), closed before the drain. Thread-safe.
 */
// Design notes.
// - An observer's exception is logged, not passed to the leadership (which would step down for an
//   exception from onElected: one broken observer must not take the lead from the others).
// - Closed leaderships are closed outside the monitor: their observers may call back into lockkit.
public final class Leaderships {

    private static final System.Logger LOG = System.getLogger(Leaderships.class.getName());

    /** Fires an event (a {@link LeadershipGranted} or {@link LeadershipRevoked}) of the leadership named second. */
    private final BiConsumer<Object, String> events;
    /** The started leaderships, by name; guarded by this. */
    private final Map<String, Leadership> started = new LinkedHashMap<>();
    /** Set once closed: a leadership started later is closed at once; guarded by this. */
    private boolean closed;

    /** Leaderships whose events go to {@code events} (the event, the leadership's name). */
    public Leaderships(BiConsumer<Object, String> events) {
        this.events = events;
    }

    /**
     * Starts a leadership for each name {@code config} declares, on the factory {@code factory} gives.
     *
     * @throws IllegalArgumentException naming the key, for a bad value or a name that is no lock name
     */
    public void start(LockkitConfig config, Supplier<DistributedLockFactory> factory) {
        Set<String> names = config.leadershipNames();
        for (String name : names) {
            String leaseKey = LockkitConfig.leadershipKey(LockkitConfig.LEADERSHIP_LEASE, name);
            String rejoinKey = LockkitConfig.leadershipKey(LockkitConfig.LEADERSHIP_REJOIN_DELAY, name);
            LeadershipOptions.Builder options = LeadershipOptions.builder()
                    .onElected(term -> fire(new LeadershipGranted(name, term), name))
                    .onRevoked((term, reason) -> fire(new LeadershipRevoked(name, term, reason), name));
            Leadership leadership;
            try {
                config.duration(leaseKey).ifPresent(options::lease);
                config.duration(rejoinKey).ifPresent(options::rejoinDelay);
                leadership = factory.get().leadership(name, options.build());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "lockkit: the leadership '" + name + "' (" + config.describe(leaseKey, "the watchdog lease")
                                + ", " + config.describe(rejoinKey, "the lease") + "): " + e.getMessage(),
                        e);
            }
            synchronized (this) {
                if (closed) {
                    leadership.close();
                    return;
                }
                started.put(name, leadership);
            }
            leadership.start();
            LOG.log(System.Logger.Level.INFO, "lockkit: campaigning for the leadership {0}", name);
        }
    }

    /** Fires a leadership's event to its observers; what they throw is logged, not passed to the leadership. */
    private void fire(Object event, String name) {
        try {
            events.accept(event, name);
        } catch (RuntimeException e) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "lockkit: an observer of " + event + " threw; the leadership " + name + " is not affected",
                    e);
        }
    }

    /** The started leadership {@code name}, if the configuration declares it. */
    public synchronized Optional<Leadership> get(String name) {
        return Optional.ofNullable(started.get(name));
    }

    /** Closes the started leaderships ({@link LeadershipRevoked} with reason {@code CLOSED}), outside the monitor. */
    public void close(boolean forGood) {
        List<Leadership> open;
        synchronized (this) {
            closed |= forGood;
            open = new ArrayList<>(started.values());
            started.clear();
        }
        for (Leadership leadership : open) {
            try {
                leadership.close();
            } catch (RuntimeException e) {
                LOG.log(
                        System.Logger.Level.WARNING,
                        "lockkit: closing the leadership " + leadership.name() + " failed",
                        e);
            }
        }
    }
}
