package io.lockkit.cdi;

import io.lockkit.Leadership;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/** Observers of declared leaderships, for {@link LeadershipEventsTest}: each container's own record. */
final class Leaders {

    /** Every container's events in the order they were observed, as {@code "<witness id> <what>"}. */
    static final List<String> HISTORY = new CopyOnWriteArrayList<>();

    /** After observers without a priority (theirs is {@code APPLICATION + 500}). */
    static final int LATE = jakarta.interceptor.Interceptor.Priority.APPLICATION + 1000;

    private Leaders() {}

    /** Every witness's events by its id: readable after its container stopped. */
    private static final Map<String, List<Object>> EVENTS = new ConcurrentHashMap<>();

    /** The {@link LeadershipGranted} events the witness {@code id} observed. */
    static List<LeadershipGranted> granted(String id) {
        return of(id, LeadershipGranted.class);
    }

    /** The {@link LeadershipRevoked} events the witness {@code id} observed. */
    static List<LeadershipRevoked> revoked(String id) {
        return of(id, LeadershipRevoked.class);
    }

    private static <T> List<T> of(String id, Class<T> type) {
        return EVENTS.getOrDefault(id, List.of()).stream()
                .filter(type::isInstance)
                .map(type::cast)
                .toList();
    }

    /** Records the events of the leadership {@code reports} in this container (and in {@link #HISTORY}). */
    @ApplicationScoped
    public static class Witness {
        private final String id = UUID.randomUUID().toString();

        void onGranted(@Observes @LeaderOf("reports") LeadershipGranted event) {
            EVENTS.computeIfAbsent(id, k -> new CopyOnWriteArrayList<>()).add(event);
            HISTORY.add(id + " granted " + event.term().fencingToken());
        }

        void onRevoked(@Observes @LeaderOf("reports") LeadershipRevoked event) {
            EVENTS.computeIfAbsent(id, k -> new CopyOnWriteArrayList<>()).add(event);
            HISTORY.add(id + " revoked " + event.term().fencingToken() + " " + event.reason());
        }

        /** Its id, for {@link Leaders#granted} and {@link Leaders#revoked}. */
        public String id() {
            return id;
        }
    }

    /** Sees every declared leadership's events: no qualifier. */
    @ApplicationScoped
    public static class AllNames {
        private final List<String> names = new CopyOnWriteArrayList<>();

        void onGranted(@Observes LeadershipGranted event) {
            names.add(event.name());
        }

        public List<String> names() {
            return List.copyOf(names);
        }
    }

    /** An observer that throws at every event, notified after the witness. */
    @ApplicationScoped
    public static class Broken {
        void onGranted(@Observes @Priority(LATE) @LeaderOf("reports") LeadershipGranted event) {
            throw new IllegalStateException("a broken observer of " + event);
        }

        void onRevoked(@Observes @Priority(LATE) @LeaderOf("reports") LeadershipRevoked event) {
            throw new IllegalStateException("a broken observer of " + event);
        }
    }

    /** A scheduled job that runs on the leader only, through an injected leadership. */
    @ApplicationScoped
    public static class Nightly {
        @Inject
        @LeaderOf("reports")
        Leadership reports;

        /** What a timer on every instance asks before it runs the job: whether this instance leads. */
        public boolean runIfLeader() {
            return reports.isLeader();
        }

        public Leadership leadership() {
            return reports;
        }
    }

    /** Injects a leadership the configuration does not declare. */
    @ApplicationScoped
    public static class Undeclared {
        @Inject
        @LeaderOf("payroll")
        Leadership payroll;

        public boolean leads() {
            return payroll.isLeader();
        }
    }

    /** Uses a leadership the configuration does not declare as soon as the application starts. */
    @ApplicationScoped
    public static class EarlyUser {
        /** Whether an instance's start-up observer ran. */
        static final java.util.concurrent.atomic.AtomicBoolean RAN = new java.util.concurrent.atomic.AtomicBoolean();

        @Inject
        @LeaderOf("payroll")
        Leadership payroll;

        void onStart(@Observes jakarta.enterprise.event.Startup started) {
            RAN.set(true);
            payroll.isLeader();
        }
    }
}
