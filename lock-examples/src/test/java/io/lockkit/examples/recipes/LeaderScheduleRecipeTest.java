package io.lockkit.examples.recipes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.Leadership;
import io.lockkit.cdi.LeaderOf;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.se.SeContainer;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jboss.weld.environment.se.Weld;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The recipe "scheduled work on the leader only" (docs/recipes.md) in its Quarkus form: two
 * instances (two Weld containers over one Redis) each fire the job as Quarkus' scheduler would; only
 * the leader's runs do the work, all with its term's token, and when the leader's application stops,
 * the other instance's runs do it with a larger token. The EJB form runs on six servers
 * ({@code ServerTests.scheduledTimerOfTheLeaderRunsOnlyOnTheInstanceThatLeads} in lock-jakarta-it).
 */
@DisplayName("recipe: a timer every instance fires does its work on the leader only")
class LeaderScheduleRecipeTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    /** The tokens of the runs that did the work, whichever instance ran them. */
    static final List<Long> CLEANED = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void configure(RedisServer redis) {
        Recipes.useConfig("lockkit.redis.uri", redis.uri(), "lockkit.leadership.cleanup.lease", "1s");
    }

    @AfterAll
    static void clearConfig() {
        Recipes.clearConfig();
    }

    // recipes:quarkus-leader-schedule-begin
    @ApplicationScoped
    public static class CleanupJob {

        @Inject
        @LeaderOf("cleanup")
        Leadership cleanup;

        @Inject
        Cleaner cleaner;

        /** Fires every 10 s on every instance; only the leader's run cleans, with its term's token. */
        @Scheduled(every = "10s")
        void run() {
            cleanup.currentTerm().ifPresent(term -> cleaner.clean(term.fencingToken()));
        }
    }
    // recipes:quarkus-leader-schedule-end

    /** Stands for the job's real work. */
    @ApplicationScoped
    public static class Cleaner {
        public void clean(long fencingToken) {
            CLEANED.add(fencingToken);
        }
    }

    @Test
    @DisplayName(
            "of two instances firing alike, the leader's runs work; after it stops, the other's, with a larger token")
    void onlyTheLeaderWorks() {
        CLEANED.clear();
        SeContainer a = container("cleanup-a");
        SeContainer b = container("cleanup-b");
        try {
            CleanupJob inA = a.select(CleanupJob.class).get();
            CleanupJob inB = b.select(CleanupJob.class).get();
            await("a leader").atMost(Duration.ofSeconds(30)).until(() -> {
                inA.run();
                inB.run();
                return !CLEANED.isEmpty();
            });
            CLEANED.clear();
            for (int period = 0; period < 5; period++) {
                inA.run();
                inB.run();
            }
            assertThat(CLEANED)
                    .as("runs that worked of 5 firings on each instance")
                    .hasSize(5);
            long token = CLEANED.get(0);
            assertThat(CLEANED).as("one term did all the work").containsOnly(token);

            CLEANED.clear();
            inA.run();
            boolean aLeads = !CLEANED.isEmpty();
            (aLeads ? a : b).close(); // the leader's application stops: its leadership is closed first
            CleanupJob survivor = aLeads ? inB : inA;
            CLEANED.clear();
            await("the other instance leads").atMost(Duration.ofSeconds(30)).until(() -> {
                survivor.run();
                return !CLEANED.isEmpty();
            });
            assertThat(CLEANED).as("the survivor's term after %d", token).allMatch(t -> t > token);
        } finally {
            for (SeContainer app : List.of(a, b)) {
                if (app.isRunning()) {
                    app.close();
                }
            }
        }
    }

    private static SeContainer container(String id) {
        return new Weld(id).addBeanClasses(CleanupJob.class, Cleaner.class).initialize();
    }
}
